/* SPDX-License-Identifier: MIT */
/*
 * Leveled logging for the host library through the one vkfd logger
 * (src/log/vkfd_log.h): stderr only (stdout belongs to the embedding
 * program), level from VKFD_DEBUG (default warn).
 */
#ifndef VKFD_HOST_LOG_H
#define VKFD_HOST_LOG_H

#include "vkfd_log.h"

void vkfd_log(enum vkfd_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int vkfd_log_level(void);

#define vkfd_err(...)  vkfd_log(VKFD_LOG_ERROR, __VA_ARGS__)
#define vkfd_warn(...) vkfd_log(VKFD_LOG_WARN, __VA_ARGS__)
#define vkfd_info(...) vkfd_log(VKFD_LOG_INFO, __VA_ARGS__)
#define vkfd_dbg(...)  vkfd_log(VKFD_LOG_DEBUG, __VA_ARGS__)

#endif
