// SPDX-License-Identifier: MIT
/*
 * Doorbell relay latency and CPU cost (reported, see docs/architecture.md).
 * Functional assertions: every doorbell value arrives; timing assertions are
 * lower bounds only (a relay copy cannot take zero time and an idle relay
 * that still polls must cost some CPU).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "doorbell_relay.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One doorbell store -> value visible in the real doorbell. */
static void measure(const char *what, struct doorbell_relay *r, volatile uint64_t *shadow,
		    volatile uint64_t *real, uint64_t base, int n, int gap_us, bool kick)
{
	double *lat = calloc((size_t)n, sizeof(double));
	uint64_t one = 1;

	assert_non_null(lat);
	for (int i = 0; i < n; i++) {
		uint64_t v = base + (uint64_t)i + 1;
		double t0;

		if (gap_us)
			usleep((useconds_t)gap_us);
		t0 = now_us();
		__atomic_store_n(shadow, v, __ATOMIC_RELEASE);
		if (kick)
			assert_int_equal(write(doorbell_relay_efd(r), &one, 8), 8);
		while (__atomic_load_n(real, __ATOMIC_ACQUIRE) != v)
			;
		lat[i] = now_us() - t0;
		assert_true(lat[i] > 0.0);
	}
	qsort(lat, (size_t)n, sizeof(double), cmp_d);
	print_message("relay %-34s n=%d  min %7.1f us  median %7.1f us  p99 %7.1f us\n", what, n,
		      lat[0], lat[n / 2], lat[(n * 99) / 100]);
	free(lat);
}

static void test_relay_latency_and_cost(void **state)
{
	volatile uint64_t shadow = 0, real = 0;
	struct doorbell_relay *r;
	double c0, t0, c1, t1;

	(void)state;
	assert_int_equal(doorbell_relay_start(&r, 4), 0);

	/* no active queue: the relay sleeps in poll() */
	c0 = cpu_us();
	t0 = now_us();
	usleep(500000);
	c1 = cpu_us();
	t1 = now_us();
	print_message("relay idle, no queue:          CPU %.2f%% of one core\n",
		      100.0 * (c1 - c0) / (t1 - t0));

	assert_int_equal(doorbell_relay_add(r, 0, &shadow, &real), 0);
	measure("hot (back-to-back stores)", r, &shadow, &real, 0, 2000, 0, false);
	measure("after 5 ms idle (backed off)", r, &shadow, &real, 10000, 100, 5000, false);
	measure("after 5 ms idle + eventfd kick", r, &shadow, &real, 20000, 100, 5000, true);

	/* one active queue, nobody rings: the cost of adaptive polling */
	usleep(50000);
	c0 = cpu_us();
	t0 = now_us();
	usleep(1000000);
	c1 = cpu_us();
	t1 = now_us();
	print_message("relay idle, 1 queue polled:    CPU %.2f%% of one core\n",
		      100.0 * (c1 - c0) / (t1 - t0));
	assert_true(c1 - c0 > 0.0);
	doorbell_relay_stop(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_relay_latency_and_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
