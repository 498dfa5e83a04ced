/* SPDX-License-Identifier: MIT */
/*
 * Leveled logging for the host library. Messages go to stderr only (stdout
 * belongs to the embedding program). The level comes from VKFD_DEBUG:
 * a number 0..4 or one of none, error, warn, info, debug (default warn).
 */
#ifndef VKFD_HOST_LOG_H
#define VKFD_HOST_LOG_H

enum vkfd_log_level {
	VKFD_LOG_NONE = 0,
	VKFD_LOG_ERROR = 1,
	VKFD_LOG_WARN = 2,
	VKFD_LOG_INFO = 3,
	VKFD_LOG_DEBUG = 4,
};

void vkfd_log(enum vkfd_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int vkfd_log_level(void);

#define vkfd_err(...)  vkfd_log(VKFD_LOG_ERROR, __VA_ARGS__)
#define vkfd_warn(...) vkfd_log(VKFD_LOG_WARN, __VA_ARGS__)
#define vkfd_info(...) vkfd_log(VKFD_LOG_INFO, __VA_ARGS__)
#define vkfd_dbg(...)  vkfd_log(VKFD_LOG_DEBUG, __VA_ARGS__)

#endif
