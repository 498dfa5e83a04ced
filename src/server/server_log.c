// SPDX-License-Identifier: MIT
#include "server_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int log_level = SRV_LOG_WARN;

void srv_log_init(void)
{
	static const char *const names[] = {"none", "error", "warn", "info", "debug"};
	const char *env = getenv("VKFD_DEBUG");

	if (!env || !*env)
		return;
	if (env[0] >= '0' && env[0] <= '9' && env[1] == '\0') {
		int v = env[0] - '0';

		log_level = v > SRV_LOG_DEBUG ? SRV_LOG_DEBUG : v;
		return;
	}
	for (int i = 0; i <= SRV_LOG_DEBUG; i++)
		if (!strcasecmp(env, names[i]))
			log_level = i;
}

void srv_log(enum srv_log_level level, const char *fmt, ...)
{
	static const char *const tags[] = {"", "error", "warn", "info", "debug"};
	char line[512];
	va_list ap;
	int n;

	if ((int)level > log_level || level == SRV_LOG_NONE)
		return;
	n = snprintf(line, sizeof(line), "vkfd-server[%d] %s: ", (int)getpid(), tags[level]);
	if (n < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line so workers do not interleave mid-line. */
	size_t len = strlen(line);

	if (len < sizeof(line) - 1)
		line[len++] = '\n';
	else
		line[sizeof(line) - 2] = '\n', len = sizeof(line) - 1;
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}
