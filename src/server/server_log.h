/* SPDX-License-Identifier: MIT */
/*
 * vkfd-server logging through the one vkfd logger (src/log/vkfd_log.h):
 * stderr only (stdout is never written), prefixed with the process id so
 * worker lines can be told apart. Level from VKFD_DEBUG (default warn).
 */
#ifndef VKFD_SERVER_LOG_H
#define VKFD_SERVER_LOG_H

#include "vkfd_log.h"

enum srv_log_level {
	SRV_LOG_NONE = VKFD_LOG_NONE,
	SRV_LOG_ERROR = VKFD_LOG_ERROR,
	SRV_LOG_WARN = VKFD_LOG_WARN,
	SRV_LOG_INFO = VKFD_LOG_INFO,
	SRV_LOG_DEBUG = VKFD_LOG_DEBUG,
};

void srv_log_init(void);
void srv_log(enum srv_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define srv_err(...)  srv_log(SRV_LOG_ERROR, __VA_ARGS__)
#define srv_warn(...) srv_log(SRV_LOG_WARN, __VA_ARGS__)
#define srv_info(...) srv_log(SRV_LOG_INFO, __VA_ARGS__)
#define srv_dbg(...)  srv_log(SRV_LOG_DEBUG, __VA_ARGS__)

#endif
