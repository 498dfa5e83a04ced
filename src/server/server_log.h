/* SPDX-License-Identifier: MIT */
/*
 * vkfd-server logging: stderr only (stdout is never written), prefixed with
 * the process id so worker lines can be told apart. Level from VKFD_DEBUG:
 * 0..4 or none, error, warn, info, debug (default warn).
 */
#ifndef VKFD_SERVER_LOG_H
#define VKFD_SERVER_LOG_H

enum srv_log_level {
	SRV_LOG_NONE = 0,
	SRV_LOG_ERROR = 1,
	SRV_LOG_WARN = 2,
	SRV_LOG_INFO = 3,
	SRV_LOG_DEBUG = 4,
};

void srv_log_init(void);
void srv_log(enum srv_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define srv_err(...)  srv_log(SRV_LOG_ERROR, __VA_ARGS__)
#define srv_warn(...) srv_log(SRV_LOG_WARN, __VA_ARGS__)
#define srv_info(...) srv_log(SRV_LOG_INFO, __VA_ARGS__)
#define srv_dbg(...)  srv_log(SRV_LOG_DEBUG, __VA_ARGS__)

#endif
