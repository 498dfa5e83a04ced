// SPDX-License-Identifier: MIT
#include "host_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_level = -1;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_init(void)
{
	static const char *const names[] = {"none", "error", "warn", "info", "debug"};
	const char *env = getenv("VKFD_DEBUG");

	log_level = VKFD_LOG_WARN;
	if (!env || !*env)
		return;
	for (int i = 0; i < 5; i++) {
		if (!strcmp(env, names[i])) {
			log_level = i;
			return;
		}
	}
	if (env[0] >= '0' && env[0] <= '9' && env[1] == '\0')
		log_level = env[0] - '0' > VKFD_LOG_DEBUG ? VKFD_LOG_DEBUG : env[0] - '0';
}

int vkfd_log_level(void)
{
	pthread_once(&log_once, log_init);
	return log_level;
}

void vkfd_log(enum vkfd_log_level level, const char *fmt, ...)
{
	static const char *const tags[] = {"", "error", "warn", "info", "debug"};
	char line[512];
	va_list ap;
	int n;

	if ((int)level > vkfd_log_level() || level == VKFD_LOG_NONE)
		return;
	n = snprintf(line, sizeof(line), "vkfd-host %s: ", tags[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* one fprintf per message so concurrent threads do not interleave */
	fprintf(stderr, "%s\n", line);
}
