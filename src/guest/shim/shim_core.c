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
int shim_log_level = VKFD_LOG_ERROR;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct shim_backend *_Atomic backend;
static int backend_err; /* sticky init error of this process */

void shim_log_at(enum vkfd_log_level level, const char *fmt, ...)
{
	va_list ap;

	if ((int)level > shim_log_level)
		return;
	va_start(ap, fmt);
	/* The logger writes with write(2), which is not interposed, so
	 * logging never recurses. */
	vkfd_log_vwrite("vkfd-shim", level, fmt, ap);
	va_end(ap);
}

__attribute__((constructor)) static void shim_core_ctor(void)
{
	shim_log_level = vkfd_log_env_level(VKFD_LOG_ERROR);
	shim_debug_on = shim_log_level >= VKFD_LOG_DEBUG;
}

/* Default: native where the shim has it (a host or developer build), else
 * vkfd (a guest-only build, -Dhost=false, has no kfdsim). */
static const struct shim_backend *select_backend(void)
{
	const char *name = getenv("VKFD_BACKEND");

	if (name && strcmp(name, "vkfd") == 0)
		return &shim_backend_vkfd;
#ifdef VKFD_SHIM_HAVE_NATIVE
	if (!name || !*name || strcmp(name, "native") == 0)
		return &shim_backend_native;
#else
	if (!name || !*name)
		return &shim_backend_vkfd;
	if (strcmp(name, "native") == 0) {
		shim_log(
		    "VKFD_BACKEND=native: this shim was built without kfdsim (guest-only build)");
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

void shim_core_atfork_prepare(void)
{
	const struct shim_backend *b = shim_backend_peek();

	if (b && b->atfork_prepare && !shim_busy()) {
		shim_enter();
		b->atfork_prepare();
		shim_leave();
	}
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
