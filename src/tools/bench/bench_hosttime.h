/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: the host's own per-command handling times. Every host context
 * times each request it runs and, with VKFD_HOST_STATS_DIR set, writes its
 * statistics into that directory when it is destroyed (include/vkfd/host.h).
 * The in-process host (direct) and the vkfd-server workers (vtest, which
 * inherit the environment) do the same, so both paths report true handling
 * times of the timed runs themselves.
 */
#ifndef VKFD_BENCH_HOSTTIME_H
#define VKFD_BENCH_HOSTTIME_H

#include "bench.h"

/* Create the statistics directory and set VKFD_HOST_STATS_DIR; call before
 * any thread or server starts. 0 or -errno. */
int bench_host_stats_init(void);
/* Remove the directory and what is in it. */
void bench_host_stats_fini(void);
/* Forget the statistics of contexts destroyed so far. */
void bench_host_stats_reset(void);
/* Wait (at most 5 s) until `contexts` contexts have written their
 * statistics since the last reset, merge them and add host_* metrics to c.
 * 0 or -errno (-ENODATA: not all arrived, -ENOENT: not initialised). */
int bench_host_stats_collect(unsigned contexts, struct bench_cell *c);

#endif
