/* SPDX-License-Identifier: MIT */
/*
 * Guest library diagnostics: stderr only, off below the VKFD_DEBUG level
 * (0..4 or none, error, warn, info, debug; default error, because the
 * library runs inside arbitrary applications).
 */
#ifndef VKFD_GUEST_LOG_H
#define VKFD_GUEST_LOG_H

enum guest_log_level {
	GUEST_LOG_NONE = 0,
	GUEST_LOG_ERROR = 1,
	GUEST_LOG_WARN = 2,
	GUEST_LOG_INFO = 3,
	GUEST_LOG_DEBUG = 4,
};

void guest_log(enum guest_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), visibility("hidden")));

#endif
