/* SPDX-License-Identifier: MIT */
/*
 * The one logger of vkfd: every component (host library, vkfd-server,
 * guest library, shim, the shim's vkfd backend) parses VKFD_DEBUG with
 * vkfd_log_parse() and writes its lines with vkfd_log_vwrite(). Lines go to
 * stderr only (stdout belongs to the program), one write(2) each, as
 * "<component>[<pid>] <level>: <message>".
 *
 * VKFD_DEBUG (docs/architecture.md, Logging): a digit 0..4 or one of none,
 * error, warn, info, debug (any case). Each component keeps its own default
 * for an unset, empty or unrecognised value.
 */
#ifndef VKFD_LOG_H
#define VKFD_LOG_H

#include <stdarg.h>

enum vkfd_log_level {
	VKFD_LOG_NONE = 0,
	VKFD_LOG_ERROR = 1,
	VKFD_LOG_WARN = 2,
	VKFD_LOG_INFO = 3,
	VKFD_LOG_DEBUG = 4,
};

/* The level a VKFD_DEBUG value names, or -1 when value is NULL, empty or
 * not one of the documented values. */
int vkfd_log_parse(const char *value);

/* The level VKFD_DEBUG names in this process (read once), or `fallback`
 * when it is unset or not one of the documented values. */
int vkfd_log_env_level(int fallback);

/* One line from `component` at `level` (not VKFD_LOG_NONE); the caller has
 * decided that it is enabled. Longer messages are truncated. */
void vkfd_log_vwrite(const char *component, enum vkfd_log_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
