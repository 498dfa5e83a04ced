// SPDX-License-Identifier: MIT
/*
 * popen/pclose: rocminfo checks for the amdgpu kernel module with
 * popen("lsmod | grep amdgpu") before it touches /dev/kfd. A virtual device
 * has no module, so a command mentioning lsmod reads a listing that has an
 * amdgpu line. Other commands run for real.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_popen.h"
#include "shim_real.h"

#define MAX_STREAMS 16

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *streams[MAX_STREAMS];

static bool remember(FILE *f)
{
	bool ok = false;

	pthread_mutex_lock(&streams_lock);
	for (unsigned i = 0; i < MAX_STREAMS && !ok; i++) {
		if (!streams[i]) {
			streams[i] = f;
			ok = true;
		}
	}
	pthread_mutex_unlock(&streams_lock);
	return ok;
}

static bool forget(FILE *f)
{
	bool found = false;

	pthread_mutex_lock(&streams_lock);
	for (unsigned i = 0; i < MAX_STREAMS && !found; i++) {
		if (streams[i] == f) {
			streams[i] = NULL;
			found = true;
		}
	}
	pthread_mutex_unlock(&streams_lock);
	return found;
}

static FILE *fake_lsmod(const char *cmd)
{
	/* Shaped like lsmod(8): name, size, use count. The size is not known
	 * for a virtual device; 0 says so. */
	static const char header[] = "Module                  Size  Used by\n";
	static const char line[] = "amdgpu                     0  0\n";
	FILE *f;
	int fd;

	fd = memfd_create("vkfd-lsmod", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if ((!strstr(cmd, "grep") && write(fd, header, sizeof(header) - 1) < 0) ||
	    write(fd, line, sizeof(line) - 1) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		shim_real_get()->close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		shim_real_get()->close(fd);
		return NULL;
	}
	if (!remember(f)) {
		fclose(f);
		errno = EMFILE;
		return NULL;
	}
	shim_debug("popen(\"%s\") -> virtual lsmod listing", cmd);
	return f;
}

FILE *popen(const char *cmd, const char *mode)
{
	bool ok;

	if (shim_busy() || !cmd || !mode || mode[0] != 'r' || !strstr(cmd, "lsmod"))
		return shim_real_get()->popen(cmd, mode);
	shim_enter();
	ok = shim_backend_get() != NULL;
	shim_leave();
	/* Without a working backend there is no device to pretend. */
	if (!ok)
		return shim_real_get()->popen(cmd, mode);
	return fake_lsmod(cmd);
}

int pclose(FILE *f)
{
	if (f && forget(f)) {
		fclose(f);
		return 0; /* the exit status of a successful command */
	}
	return shim_real_get()->pclose(f);
}

void shim_popen_atfork_child(void)
{
	pthread_mutex_init(&streams_lock, NULL);
}
