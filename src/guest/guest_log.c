// SPDX-License-Identifier: MIT
#include "guest_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int level = GUEST_LOG_ERROR;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_level(void)
{
	static const char *const names[] = {"none", "error", "warn", "info", "debug"};
	const char *env = getenv("VKFD_DEBUG");

	if (!env || !*env)
		return;
	if (env[0] >= '0' && env[0] <= '9' && env[1] == '\0') {
		level = env[0] - '0' > GUEST_LOG_DEBUG ? GUEST_LOG_DEBUG : env[0] - '0';
		return;
	}
	for (int i = 0; i <= GUEST_LOG_DEBUG; i++)
		if (!strcasecmp(env, names[i]))
			level = i;
}

void guest_log(enum guest_log_level lvl, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	pthread_once(&once, init_level);
	if (lvl == GUEST_LOG_NONE || (int)lvl > level)
		return;
	n = snprintf(line, sizeof(line), "vkfd-guest[%d]: ", (int)getpid());
	if (n < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = strlen(line);

	line[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
}
