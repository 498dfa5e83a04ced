// SPDX-License-Identifier: MIT
#include "server_log.h"

#include <stdarg.h>

static int log_level = SRV_LOG_WARN;

void srv_log_init(void)
{
	log_level = vkfd_log_env_level(SRV_LOG_WARN);
}

void srv_log(enum srv_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level == SRV_LOG_NONE || (int)level > log_level)
		return;
	va_start(ap, fmt);
	vkfd_log_vwrite("vkfd-server", (enum vkfd_log_level)level, fmt, ap);
	va_end(ap);
}
