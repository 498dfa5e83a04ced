/* SPDX-License-Identifier: MIT */
/*
 * Shared state of the interposition layer: the re-entrancy guard, the
 * selected backend (initialised lazily) and debug logging.
 */
#ifndef VKFD_SHIM_CORE_H
#define VKFD_SHIM_CORE_H

#include <stdbool.h>

#include "shim_backend.h"
#include "vkfd_log.h"

/* Code running inside the shim (and the backend it calls) sets this so that
 * its own open/mmap/close/... calls go straight to the C library. */
extern __thread int shim_depth __attribute__((tls_model("initial-exec")));

static inline bool shim_busy(void)
{
	return shim_depth > 0;
}

static inline void shim_enter(void)
{
	shim_depth++;
}

static inline void shim_leave(void)
{
	shim_depth--;
}

/* The backend chosen by VKFD_BACKEND, initialised on first use. NULL with
 * errno set when it is unknown or its init failed. Call inside
 * shim_enter()/shim_leave(). */
const struct shim_backend *shim_backend_get(void);

/* The backend if it was initialised already, else NULL (never initialises). */
const struct shim_backend *shim_backend_peek(void);

/* After fork() in the child: the backend must be initialised again. */
void shim_core_atfork_prepare(void);
void shim_core_atfork_child(void);

/* Logging through the one vkfd logger (src/log/vkfd_log.h): the level comes
 * from VKFD_DEBUG (default error); shim_debug_on is level debug, where every
 * virtual open, redirection, device ioctl, mmap, close and dup is traced. */
extern int shim_log_level;
extern bool shim_debug_on;
void shim_log_at(enum vkfd_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define shim_log(...) shim_log_at(VKFD_LOG_ERROR, __VA_ARGS__)
#define shim_debug(...)                                                                            \
	do {                                                                                       \
		if (shim_debug_on)                                                                 \
			shim_log_at(VKFD_LOG_DEBUG, __VA_ARGS__);                                  \
	} while (0)

#endif
