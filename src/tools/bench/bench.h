/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: shared types. A scenario runs once per path and fills one
 * result cell per path; a cell either holds measured metrics (and, for
 * latency scenarios, the raw samples) or says why it could not run.
 */
#ifndef VKFD_BENCH_H
#define VKFD_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bench_path {
	BENCH_NATIVE = 0, /* kfdsim through its device seam, no protocol */
	BENCH_DIRECT,     /* guest library -> host context in this process */
	BENCH_VTEST,      /* guest library -> private vkfd-server over a socket */
	BENCH_VIRTGPU,    /* guest library -> virtio-gpu (inside a VM only) */
	BENCH_PATH_COUNT,
};

const char *bench_path_name(enum bench_path p);

#define BENCH_MAX_METRICS 64
#define BENCH_REASON_LEN  200

struct bench_metric {
	const char *name; /* static string, e.g. "p50_us" */
	double value;
};

struct bench_cell {
	bool ran;                      /* false: n/a, see reason */
	char reason[BENCH_REASON_LEN]; /* why it did not run */
	struct bench_metric m[BENCH_MAX_METRICS];
	unsigned nm;
	double primary;     /* the figure compared against native */
	double *samples_us; /* latency samples (malloc'd) or NULL */
	size_t nsamples;
};

struct bench_opts {
	unsigned iterations;
	bool paths[BENCH_PATH_COUNT];
	bool json;
	bool pin;
	const char *trace;   /* storm trace file */
	char load_start[32]; /* /proc/loadavg (1, 5, 15 min) when the run began */
};

/* The first three fields of /proc/loadavg, or "unknown". */
void bench_loadavg(char *buf, size_t len);

struct bench_scenario_result {
	const char *name;
	const char *primary_name; /* e.g. "p50_us" */
	bool higher_is_better;
	bool no_ratio; /* the paths' primary figures measure different things */
	struct bench_cell cell[BENCH_PATH_COUNT];
	/* an extra reference row (sync: raw socket ping-pong) */
	bool has_ref;
	const char *ref_name;
	struct bench_cell ref;
	char note[BENCH_REASON_LEN];
};

/* bench_stats.c */
uint64_t bench_now_ns(void);
void bench_cell_na(struct bench_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bench_cell_metric(struct bench_cell *c, const char *name, double v);
/* Takes ownership of samples (ns, malloc'd): stores them as µs, adds
 * p50/p99/max/mean metrics and makes p50 the primary unless told. */
void bench_cell_samples(struct bench_cell *c, uint64_t *samples_ns, size_t n);
double bench_percentile_ns(uint64_t *sorted, size_t n, double pct);
void bench_sort_ns(uint64_t *v, size_t n);
/* Percentile of a cell's (sorted) samples, in µs. */
double bench_cell_pct_us(const struct bench_cell *c, double pct);
void bench_cell_free(struct bench_cell *c);
/* Pin the calling thread to one CPU (when pinning is on and the CPU
 * exists); threads created afterwards inherit it. */
void bench_pin_set(bool on);
void bench_pin(int cpu);
void bench_unpin(void);
int bench_ncpus(void);

/* Cells of one scenario; each fills out->cell[p] for the enabled paths. */
void bench_storm(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_sync(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_fence(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_decode(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_dispatch(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_rocminfo(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_isa(const struct bench_opts *o, struct bench_scenario_result *out);
void bench_hostfree(const struct bench_opts *o, struct bench_scenario_result *out);

/* bench_report.c */
void bench_report_table(const struct bench_opts *o, struct bench_scenario_result *r, unsigned n);
void bench_report_json(const struct bench_opts *o, struct bench_scenario_result *r, unsigned n);

#endif
