// SPDX-License-Identifier: MIT
#include "guest_log.h"

#include <stdarg.h>

void guest_log(enum guest_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl == GUEST_LOG_NONE || (int)lvl > vkfd_log_env_level(GUEST_LOG_ERROR))
		return;
	va_start(ap, fmt);
	vkfd_log_vwrite("vkfd-guest", (enum vkfd_log_level)lvl, fmt, ap);
	va_end(ap);
}
