// SPDX-License-Identifier: MIT
/* vkfd-info end to end: over vtest to a vkfd-server; its command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "server_harness.h"

static const char *info_bin;

/* Run vkfd-info with args, collect stdout; returns the exit status. */
static int run_info(const char *args, char *out, size_t cap)
{
	char cmd[1024];
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", info_bin, args);
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while (n + 1 < cap) {
		size_t r = fread(out + n, 1, cap - 1 - n, p);

		if (r == 0)
			break;
		n += r;
	}
	out[n] = '\0';
	int st = pclose(p);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_output(const char *out, const char *transport)
{
	char want[64];

	snprintf(want, sizeof(want), "transport: %s\n", transport);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "negotiated protocol version: 1\n"));
	assert_non_null(strstr(out, "capset 10:\n"));
	assert_non_null(strstr(out, "KFD version (as the guest sees it): 1."));
	assert_non_null(strstr(out, "--- nodes/0/properties\n"));
	assert_non_null(strstr(out, "gfx_target_version "));
	assert_non_null(strstr(out, "topology files: "));
}

static void test_info_vtest(void **state)
{
	struct test_server s = {0};
	const char *const extra[] = {"--gpus", "2", NULL};
	static char out[1 << 20];
	char args[256];

	(void)state;
	assert_int_equal(harness_start(&s, extra), 0);
	snprintf(args, sizeof(args), "--transport vtest --socket %s", s.sock);
	assert_int_equal(run_info(args, out, sizeof(out)), 0);
	check_output(out, "vtest");
	/* --gpus reached kfdsim in the worker */
	assert_non_null(strstr(out, "GPUs:               2\n"));
	assert_non_null(strstr(out, "--- nodes/1/properties\n"));
	assert_int_equal(harness_stop(&s), 0);
	/* and with the server gone: an error, not a hang */
	assert_int_equal(run_info(args, out, sizeof(out)), 1);
}

/* A guest tool: the in-process direct transport is not in the guest
 * library, so vkfd-info does not offer it (usage error, like nonsense). */
static void test_info_transport_names(void **state)
{
	static char out[1 << 20];

	(void)state;
	assert_int_equal(run_info("--transport direct", out, sizeof(out)), 2);
	assert_int_equal(run_info("--transport nonsense", out, sizeof(out)), 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_info_vtest),
	    cmocka_unit_test(test_info_transport_names),
	};

	if (argc < 3) {
		fprintf(stderr, "usage: %s VKFD-SERVER VKFD-INFO\n", argv[0]);
		return 2;
	}
	harness_set_server_bin(argv[1]);
	info_bin = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
