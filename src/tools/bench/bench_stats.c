// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: clocks, sample statistics, result cells and CPU pinning.
 */
#include "bench.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *bench_path_name(enum bench_path p)
{
	static const char *const names[BENCH_PATH_COUNT] = {"native", "direct", "vtest", "virtgpu"};

	return (unsigned)p < BENCH_PATH_COUNT ? names[p] : "?";
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_cell_na(struct bench_cell *c, const char *fmt, ...)
{
	va_list ap;

	c->ran = false;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

void bench_cell_metric(struct bench_cell *c, const char *name, double v)
{
	if (c->nm >= BENCH_MAX_METRICS)
		return;
	c->m[c->nm].name = name;
	c->m[c->nm].value = v;
	c->nm++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void bench_sort_ns(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

/* Nearest-rank percentile of a sorted array. */
double bench_percentile_ns(uint64_t *sorted, size_t n, double pct)
{
	size_t rank;

	if (n == 0)
		return NAN;
	rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)sorted[rank - 1];
}

double bench_cell_pct_us(const struct bench_cell *c, double pct)
{
	size_t rank;

	if (!c->nsamples)
		return NAN;
	rank = (size_t)ceil(pct / 100.0 * (double)c->nsamples);
	if (rank < 1)
		rank = 1;
	if (rank > c->nsamples)
		rank = c->nsamples;
	return c->samples_us[rank - 1];
}

void bench_cell_samples(struct bench_cell *c, uint64_t *s, size_t n)
{
	double sum = 0;

	if (!s || n == 0) {
		free(s);
		return;
	}
	bench_sort_ns(s, n);
	c->samples_us = malloc(n * sizeof(double));
	if (c->samples_us) {
		for (size_t i = 0; i < n; i++) {
			c->samples_us[i] = (double)s[i] / 1000.0;
			sum += (double)s[i];
		}
		c->nsamples = n;
	}
	bench_cell_metric(c, "p50_us", bench_percentile_ns(s, n, 50) / 1000.0);
	bench_cell_metric(c, "p99_us", bench_percentile_ns(s, n, 99) / 1000.0);
	bench_cell_metric(c, "max_us", (double)s[n - 1] / 1000.0);
	bench_cell_metric(c, "mean_us", sum / (double)n / 1000.0);
	bench_cell_metric(c, "samples", (double)n);
	c->primary = bench_percentile_ns(s, n, 50) / 1000.0;
	c->ran = true;
	free(s);
}

void bench_cell_free(struct bench_cell *c)
{
	free(c->samples_us);
	c->samples_us = NULL;
	c->nsamples = 0;
}

static bool pin_on;

void bench_pin_set(bool on)
{
	pin_on = on;
}

/* The process's affinity mask before any pinning. */
static cpu_set_t orig_set;
static bool orig_valid;

int bench_ncpus(void)
{
	cpu_set_t set;

	if (orig_valid)
		return CPU_COUNT(&orig_set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

/* Pin to the cpu-th CPU of the process's original affinity mask. */
void bench_pin(int cpu)
{
	cpu_set_t set;
	int seen = 0;

	if (!pin_on)
		return;
	if (!orig_valid) {
		if (sched_getaffinity(0, sizeof(orig_set), &orig_set))
			return;
		orig_valid = true;
	}
	if (CPU_COUNT(&orig_set) < 2)
		return;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &orig_set))
			continue;
		if (seen++ == cpu) {
			CPU_ZERO(&set);
			CPU_SET(i, &set);
			sched_setaffinity(0, sizeof(set), &set);
			return;
		}
	}
}

void bench_unpin(void)
{
	if (orig_valid)
		sched_setaffinity(0, sizeof(orig_set), &orig_set);
}
