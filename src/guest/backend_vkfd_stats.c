// SPDX-License-Identifier: MIT
/*
 * vkfd backend: what the shim cost in round trips, for measurements
 * (docs/performance.md, "Real-ROCr storm"): replies it waited for (sync
 * calls), fenced waits, and blobs it created (per-BO blobs and arenas).
 * VKFD_SHIM_STATS=<file> appends one line per process at exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

struct bk_stats bk_stats;

static uint64_t load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void bk_stats_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

void bk_stats_report(void)
{
	const char *path = getenv("VKFD_SHIM_STATS");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "ae");
	if (!f)
		return;
	fprintf(f, "pid %d replies %llu waits %llu blobs %llu arena_bos %llu\n", (int)getpid(),
		(unsigned long long)load(&bk_stats.replies),
		(unsigned long long)load(&bk_stats.waits),
		(unsigned long long)load(&bk_stats.blobs),
		(unsigned long long)load(&bk_stats.arena_bos));
	fclose(f);
}
