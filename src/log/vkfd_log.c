// SPDX-License-Identifier: MIT
#include "vkfd_log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const level_names[] = {"none", "error", "warn", "info", "debug"};

int vkfd_log_parse(const char *value)
{
	if (!value || !*value)
		return -1;
	if (value[0] >= '0' && value[0] <= '4' && value[1] == '\0')
		return value[0] - '0';
	for (int i = VKFD_LOG_NONE; i <= VKFD_LOG_DEBUG; i++)
		if (!strcasecmp(value, level_names[i]))
			return i;
	return -1;
}

static int env_level = -1;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void env_read(void)
{
	env_level = vkfd_log_parse(getenv("VKFD_DEBUG"));
}

int vkfd_log_env_level(int fallback)
{
	pthread_once(&env_once, env_read);
	return env_level < 0 ? fallback : env_level;
}

void vkfd_log_vwrite(const char *component, enum vkfd_log_level level, const char *fmt, va_list ap)
{
	char line[512];
	int n, m;

	if (level <= VKFD_LOG_NONE || level > VKFD_LOG_DEBUG)
		return;
	n = snprintf(line, sizeof(line), "%s[%d] %s: ", component, (int)getpid(),
		     level_names[level]);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return;
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write(2) per line: concurrent threads and processes do not
	 * interleave mid-line, and the shim does not interpose write. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
