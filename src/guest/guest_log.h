/* SPDX-License-Identifier: MIT */
/*
 * Guest library diagnostics through the one vkfd logger (src/log/vkfd_log.h):
 * stderr only, off below the VKFD_DEBUG level (default error, because the
 * library runs inside arbitrary applications).
 */
#ifndef VKFD_GUEST_LOG_H
#define VKFD_GUEST_LOG_H

#include "vkfd_log.h"

enum guest_log_level {
	GUEST_LOG_NONE = VKFD_LOG_NONE,
	GUEST_LOG_ERROR = VKFD_LOG_ERROR,
	GUEST_LOG_WARN = VKFD_LOG_WARN,
	GUEST_LOG_INFO = VKFD_LOG_INFO,
	GUEST_LOG_DEBUG = VKFD_LOG_DEBUG,
};

void guest_log(enum guest_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), visibility("hidden")));

#endif
