/* SPDX-License-Identifier: MIT */
/*
 * The one VKFD_DEBUG parser and line writer (src/log/vkfd_log.c): every
 * documented value, values that are not documented, the once-per-process
 * environment read (VKFD_DEBUG=none is quiet: it once turned tracing on in
 * the shim), and the line format.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vkfd_log.h"

static void test_parse_names(void **state)
{
	(void)state;
	assert_int_equal(vkfd_log_parse("none"), VKFD_LOG_NONE);
	assert_int_equal(vkfd_log_parse("error"), VKFD_LOG_ERROR);
	assert_int_equal(vkfd_log_parse("warn"), VKFD_LOG_WARN);
	assert_int_equal(vkfd_log_parse("info"), VKFD_LOG_INFO);
	assert_int_equal(vkfd_log_parse("debug"), VKFD_LOG_DEBUG);
	/* any case */
	assert_int_equal(vkfd_log_parse("NONE"), VKFD_LOG_NONE);
	assert_int_equal(vkfd_log_parse("Debug"), VKFD_LOG_DEBUG);
}

static void test_parse_digits(void **state)
{
	(void)state;
	assert_int_equal(vkfd_log_parse("0"), VKFD_LOG_NONE);
	assert_int_equal(vkfd_log_parse("1"), VKFD_LOG_ERROR);
	assert_int_equal(vkfd_log_parse("2"), VKFD_LOG_WARN);
	assert_int_equal(vkfd_log_parse("3"), VKFD_LOG_INFO);
	assert_int_equal(vkfd_log_parse("4"), VKFD_LOG_DEBUG);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
	    "5", "9", "10", "04", "-1", " 1", "1 ", "nonee", "non", "warning", "yes", "on", "true",
	};

	(void)state;
	assert_int_equal(vkfd_log_parse(NULL), -1);
	assert_int_equal(vkfd_log_parse(""), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(vkfd_log_parse(bad[i]), -1);
}

/* main() sets VKFD_DEBUG=none before anything reads it. */
static void test_env_none_is_quiet(void **state)
{
	(void)state;
	assert_int_equal(vkfd_log_env_level(VKFD_LOG_WARN), VKFD_LOG_NONE);
	assert_int_equal(vkfd_log_env_level(VKFD_LOG_ERROR), VKFD_LOG_NONE);
	/* read once: a later change does not count */
	setenv("VKFD_DEBUG", "debug", 1);
	assert_int_equal(vkfd_log_env_level(VKFD_LOG_WARN), VKFD_LOG_NONE);
}

/* Runs `emit` with stderr on a pipe; returns the bytes written. */
static size_t capture(void (*emit)(void), char *buf, size_t cap)
{
	int p[2], saved;
	ssize_t n;

	assert_int_equal(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(p[1], STDERR_FILENO) >= 0);
	emit();
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, cap);
	close(p[0]);
	assert_true(n >= 0);
	return (size_t)n;
}

static void vwrite(const char *who, enum vkfd_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void vwrite(const char *who, enum vkfd_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vkfd_log_vwrite(who, level, fmt, ap);
	va_end(ap);
}

static void emit_warn(void)
{
	vwrite("vkfd-test", VKFD_LOG_WARN, "value %d", 42);
}

static void emit_none(void)
{
	vwrite("vkfd-test", VKFD_LOG_NONE, "never");
}

static char long_text[2048];

static void emit_long(void)
{
	vwrite("vkfd-test", VKFD_LOG_DEBUG, "%s", long_text);
}

static void test_line_format(void **state)
{
	char buf[1024], want[128];
	size_t n;

	(void)state;
	n = capture(emit_warn, buf, sizeof(buf));
	snprintf(want, sizeof(want), "vkfd-test[%d] warn: value 42\n", (int)getpid());
	assert_int_equal(n, strlen(want));
	assert_memory_equal(buf, want, n);

	assert_int_equal(capture(emit_none, buf, sizeof(buf)), 0);
}

static void test_long_line_truncated(void **state)
{
	char buf[4096];
	size_t n;

	(void)state;
	memset(long_text, 'x', sizeof(long_text) - 1);
	n = capture(emit_long, buf, sizeof(buf));
	/* one line, cut to the writer's 512-byte buffer, still ending in \n */
	assert_true(n > 400 && n <= 511);
	assert_int_equal(buf[n - 1], '\n');
	assert_null(memchr(buf, '\n', n - 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_names),   cmocka_unit_test(test_parse_digits),
	    cmocka_unit_test(test_parse_rejects), cmocka_unit_test(test_env_none_is_quiet),
	    cmocka_unit_test(test_line_format),   cmocka_unit_test(test_long_line_truncated),
	};

	setenv("VKFD_DEBUG", "none", 1);
	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
