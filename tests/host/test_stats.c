// SPDX-License-Identifier: MIT
/* The executor's handling-time statistics: the histogram bucket arithmetic,
 * per-command counting through vkfd_host_context_get_stats, the CPU-time
 * option and the file a context writes at destruction with
 * VKFD_HOST_STATS_DIR. */
#include <dirent.h>
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

#include "host_harness.h"

static int setup(void **state)
{
	(void)state;
	return h_lib_init(0, NULL);
}

static int teardown(void **state)
{
	(void)state;
	h_lib_fini();
	return 0;
}

static void test_buckets(void **state)
{
	unsigned prev = 0;

	(void)state;
	for (uint64_t v = 0; v < 5000; v++) {
		unsigned b = vkfd_host_stats_bucket(v);

		assert_true(vkfd_host_stats_bucket_min_ns(b) <= v);
		assert_true(v <= vkfd_host_stats_bucket_max_ns(b));
		assert_true(b >= prev); /* monotonic */
		prev = b;
	}
	for (unsigned s = 3; s < 64; s++) {
		uint64_t v = 1ull << s, vals[] = {v - 1, v, v + 1, v + v / 3};

		for (unsigned i = 0; i < 4; i++) {
			unsigned b = vkfd_host_stats_bucket(vals[i]);

			assert_true(b < VKFD_HOST_STATS_BUCKETS);
			assert_true(vkfd_host_stats_bucket_min_ns(b) <= vals[i]);
			assert_true(vals[i] <= vkfd_host_stats_bucket_max_ns(b));
		}
	}
	/* contiguous, and no wider than 1/8 of the lower bound (but the last) */
	for (unsigned b = 0; b + 1 < VKFD_HOST_STATS_BUCKETS; b++) {
		uint64_t lo = vkfd_host_stats_bucket_min_ns(b),
			 hi = vkfd_host_stats_bucket_max_ns(b);

		assert_int_equal(hi + 1, vkfd_host_stats_bucket_min_ns(b + 1));
		assert_int_equal(vkfd_host_stats_bucket(lo), b);
		assert_int_equal(vkfd_host_stats_bucket(hi), b);
		if (b >= 8)
			assert_true(hi - lo + 1 <= lo / 8);
	}
	assert_int_equal(vkfd_host_stats_bucket(UINT64_MAX), VKFD_HOST_STATS_BUCKETS - 1);
	assert_true(vkfd_host_stats_bucket_max_ns(VKFD_HOST_STATS_BUCKETS - 1) == UINT64_MAX);
	/* 1 ms lies in a bucket of its own size class */
	assert_true(vkfd_host_stats_bucket_min_ns(vkfd_host_stats_bucket(1000000)) <= 1000000);
}

static uint64_t hist_total(const struct vkfd_host_cmd_stats *s)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < VKFD_HOST_STATS_BUCKETS; b++)
		n += s->hist[b];
	return n;
}

static void clock_calls(struct harness *h, unsigned n)
{
	struct vkfd_req_gpu r = {.gpu_id = h->gpu_id};
	struct vkfd_rsp_get_clock_counters rsp;

	for (unsigned i = 0; i < n; i++)
		assert_int_equal(
		    h_call(h, VKFD_CMD_GET_CLOCK_COUNTERS, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
}

static void test_counts(void **state)
{
	struct vkfd_host_cmd_stats s, all;
	struct harness h;

	(void)state;
	unsetenv("VKFD_HOST_STATS_CPU");
	assert_int_equal(h_open(&h, 1), 0);
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_CMD_GET_CLOCK_COUNTERS, &s), 0);
	assert_int_equal(s.count, 0);
	clock_calls(&h, 7);

	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_CMD_GET_CLOCK_COUNTERS, &s), 0);
	assert_int_equal(s.count, 7);
	assert_int_equal(hist_total(&s), 7);
	assert_true(s.max_ns > 0);
	assert_true(s.sum_ns >= s.max_ns);
	assert_true(s.sum_ns <= 7 * s.max_ns);
	assert_int_equal(s.cpu_sum_ns, 0); /* not asked for */
	assert_int_equal(s.cpu_max_ns, 0);
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, 0, &s), 0);
	assert_int_equal(s.count, 0); /* every request so far was defined */
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_CMD_HELLO, &s), 0);
	assert_int_equal(s.count, 1); /* h_open's */

	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_HOST_STATS_ALL, &all), 0);
	/* HELLO, ACQUIRE_VM, 7 clocks at least */
	assert_true(all.count >= 9);
	assert_int_equal(hist_total(&all), all.count);
	assert_true(all.max_ns >= s.max_ns);

	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_HOST_STATS_CMDS, &s), -EINVAL);
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, 0, NULL), -EINVAL);
	assert_int_equal(vkfd_host_context_get_stats(NULL, 0, &s), -EINVAL);
	h_close(&h);
}

static void test_cpu_time(void **state)
{
	struct vkfd_host_cmd_stats s;
	struct harness h;

	(void)state;
	setenv("VKFD_HOST_STATS_CPU", "1", 1);
	assert_int_equal(h_open(&h, 2), 0);
	unsetenv("VKFD_HOST_STATS_CPU");
	clock_calls(&h, 20);
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_CMD_GET_CLOCK_COUNTERS, &s), 0);
	assert_int_equal(s.count, 20);
	assert_true(s.cpu_sum_ns > 0); /* a device ioctl per call costs CPU */
	assert_true(s.cpu_sum_ns >= s.cpu_max_ns);
	h_close(&h);
}

/* With the executor's poll turned on every batch is still run, in order. */
static void test_exec_spin(void **state)
{
	struct vkfd_host_cmd_stats s;
	struct harness h;

	(void)state;
	assert_int_equal(h_open(&h, 4), 0);
	assert_int_equal(vkfd_host_context_set_exec_spin(NULL, 1000), -EINVAL);
	assert_int_equal(vkfd_host_context_set_exec_spin(h.ctx, 1000001), -EINVAL);
	assert_int_equal(vkfd_host_context_set_exec_spin(h.ctx, 30000), 0);
	clock_calls(&h, 300);
	for (unsigned i = 0; i < 50; i++) {
		struct vkfd_req_gpu r = {.gpu_id = h.gpu_id};

		assert_int_equal(h_async(&h, VKFD_CMD_HDP_FLUSH, &r, sizeof(r)), 0);
	}
	clock_calls(&h, 1);
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_CMD_GET_CLOCK_COUNTERS, &s), 0);
	assert_int_equal(s.count, 301);
	assert_int_equal(vkfd_host_context_get_stats(h.ctx, VKFD_CMD_HDP_FLUSH, &s), 0);
	assert_int_equal(s.count, 50);
	assert_int_equal(vkfd_host_context_set_exec_spin(h.ctx, 0), 0);
	clock_calls(&h, 5);
	h_close(&h);
}

/* The file of the context destroyed last; NULL when there is none. */
static char *find_file(const char *dir, char *path, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	char *found = NULL;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "host-stats-", 11)) {
			snprintf(path, len, "%s/%s", dir, e->d_name);
			found = path;
		}
		assert_false(e->d_name[0] == '.' && e->d_name[1] == 't'); /* no temp left */
	}
	closedir(d);
	return found;
}

static void test_dump_at_destroy(void **state)
{
	char dir[] = "/tmp/vkfd-test-stats-XXXXXX", path[512], line[4096];
	unsigned long long count = 0, sum = 0, max = 0;
	bool seen_clock = false, seen_hello = false, seen_relay = false;
	struct harness h;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("VKFD_HOST_STATS_DIR", dir, 1);
	assert_int_equal(h_open(&h, 3), 0);
	clock_calls(&h, 3);
	assert_null(find_file(dir, path, sizeof(path))); /* only at destruction */
	h_close(&h);
	unsetenv("VKFD_HOST_STATS_DIR");
	assert_non_null(find_file(dir, path, sizeof(path)));
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned cmd, b, n, total = 0;
		int off = 0;
		char name[64], *p;
		unsigned long long scans, copies, cpu_ns;

		if (!strncmp(line, "relay ", 6)) {
			/* the doorbell relay's own line, once, after the commands */
			assert_int_equal(sscanf(line, "relay scans %llu copies %llu cpu_ns %llu",
						&scans, &copies, &cpu_ns),
					 3);
			assert_false(seen_relay);
			seen_relay = true;
			continue;
		}
		assert_false(seen_relay);
		assert_int_equal(sscanf(line,
					"cmd %u %63s count %llu sum_ns %llu max_ns %llu cpu_sum_ns "
					"%*u cpu_max_ns %*u hist%n",
					&cmd, name, &count, &sum, &max, &off),
				 5);
		for (p = line + off; sscanf(p, " %u:%u%n", &b, &n, &off) == 2; p += off) {
			assert_true(b < VKFD_HOST_STATS_BUCKETS);
			total += n;
		}
		assert_int_equal(total, count);
		assert_true(sum >= max);
		if (cmd == VKFD_CMD_GET_CLOCK_COUNTERS) {
			seen_clock = true;
			assert_string_equal(name, "GET_CLOCK_COUNTERS");
			assert_int_equal(count, 3);
		}
		if (cmd == VKFD_CMD_HELLO)
			seen_hello = true;
	}
	fclose(f);
	assert_true(seen_clock);
	assert_true(seen_hello);
	assert_true(seen_relay);
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* nothing else was left there */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets),   cmocka_unit_test(test_counts),
	    cmocka_unit_test(test_cpu_time),  cmocka_unit_test(test_dump_at_destroy),
	    cmocka_unit_test(test_exec_spin),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
