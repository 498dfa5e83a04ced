// SPDX-License-Identifier: MIT
/*
 * Backend selection, lazy initialisation and logging of the preload shim.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim_core.h"

__thread int shim_depth __attribute__((tls_model("initial-exec")));
bool shim_debug_on;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct shim_backend *_Atomic backend;
static int backend_err; /* sticky init error of this process */

void shim_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, m;

	n = snprintf(buf, sizeof(buf), "vkfd-shim[%d]: ", (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* write(2) is not interposed, so logging never recurses. */
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

__attribute__((constructor)) static void shim_core_ctor(void)
{
	const char *d = getenv("VKFD_DEBUG");

	shim_debug_on = d && *d && strcmp(d, "0") != 0;
}

static const struct shim_backend *select_backend(void)
{
	const char *name = getenv("VKFD_BACKEND");

	if (!name || !*name || strcmp(name, "native") == 0)
		return &shim_backend_native;
#ifdef VKFD_SHIM_HAVE_VKFD
	if (strcmp(name, "vkfd") == 0)
		return &shim_backend_vkfd;
#else
	if (strcmp(name, "vkfd") == 0) {
		shim_log("VKFD_BACKEND=vkfd: this shim was built without the vkfd backend");
		errno = ENOSYS;
		return NULL;
	}
#endif
	shim_log("unknown VKFD_BACKEND=%s (expected native or vkfd)", name);
	errno = EINVAL;
	return NULL;
}

const struct shim_backend *shim_backend_get(void)
{
	const struct shim_backend *b;
	int err = 0;

	pthread_mutex_lock(&init_lock);
	if (!backend && !backend_err) {
		b = select_backend();
		if (!b) {
			err = errno;
		} else {
			err = -b->init();
			if (err == 0)
				backend = b;
			else
				shim_log("backend %s failed to initialise: %s", b->name,
					 strerror(err));
		}
		backend_err = err;
	}
	b = backend;
	err = backend_err;
	pthread_mutex_unlock(&init_lock);
	if (!b)
		errno = err;
	return b;
}

const struct shim_backend *shim_backend_peek(void)
{
	return backend;
}

void shim_core_atfork_child(void)
{
	const struct shim_backend *b = backend;

	/* Only the forking thread exists now; the lock may have been held by
	 * another thread of the parent. */
	pthread_mutex_init(&init_lock, NULL);
	backend = NULL;
	backend_err = 0;
	if (b && b->atfork_child)
		b->atfork_child();
}
