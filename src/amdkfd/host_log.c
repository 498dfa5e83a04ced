// SPDX-License-Identifier: MIT
#include "host_log.h"

#include <stdarg.h>

int vkfd_log_level(void)
{
	return vkfd_log_env_level(VKFD_LOG_WARN);
}

void vkfd_log(enum vkfd_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level == VKFD_LOG_NONE || (int)level > vkfd_log_level())
		return;
	va_start(ap, fmt);
	vkfd_log_vwrite("vkfd-host", level, fmt, ap);
	va_end(ap);
}
