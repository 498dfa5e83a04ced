/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: host per-command handling time during the storm, observed
 * through the shared memory's processed sequence number (bench_hosttime.c).
 */
#ifndef VKFD_BENCH_HOSTTIME_H
#define VKFD_BENCH_HOSTTIME_H

#include "bench.h"
#include "bench_trace.h"

/* One extra, untimed replay of t on a fresh protocol device; adds host_*
 * metrics to c. 0 or -errno (-EOPNOTSUPP on native, -ENODATA when no
 * command could be timed). */
int bench_storm_host_timing(enum bench_path p, const struct trace *t, struct bench_cell *c);

#endif
