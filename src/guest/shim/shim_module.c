// SPDX-License-Identifier: MIT
/*
 * Virtual /sys/module/amdgpu files: a memory file per open, so every reader
 * gets its own offset and nothing is left behind on disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_module.h"
#include "shim_real.h"

#define INITSTATE "/sys/module/amdgpu/initstate"

bool shim_module_path(const char *path)
{
	return path && strcmp(path, INITSTATE) == 0;
}

int shim_module_open(const char *path, int flags)
{
	static const char live[] = "live\n";
	bool have;
	int fd;

	if (!shim_module_path(path)) {
		errno = ENOENT;
		return -1;
	}
	if ((flags & O_ACCMODE) != O_RDONLY) {
		errno = EACCES;
		return -1;
	}
	shim_enter();
	have = shim_backend_get() != NULL;
	shim_leave();
	if (!have) {
		errno = ENODEV;
		return -1;
	}
	fd = memfd_create("vkfd-amdgpu-initstate", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (write(fd, live, sizeof(live) - 1) != (ssize_t)(sizeof(live) - 1) ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		int err = errno ? errno : EIO;

		shim_real_get()->close(fd);
		errno = err;
		return -1;
	}
	shim_debug("open(%s) -> virtual \"live\"", path);
	return fd;
}
