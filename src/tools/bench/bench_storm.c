// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "storm": replays model_load.trace (see gen_model_load_trace.c)
 * as KFD ioctls (natively on kfdsim; on direct and vtest through the shim's
 * vkfd backend, so the protocol is the one the shim uses) on each path (min(iterations, 3) times,
 * each on a fresh context; the median wall time is the figure) and reports wall time, commands per
 * second, the blob and CPU-mapping operations issued and per-operation latencies as the guest sees
 * them, and the host's own handling times of these replays (bench_hosttime.c).
 */
#include "bench.h"
#include "bench_dev.h"
#include "bench_hosttime.h"
#include "bench_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#define STORM_MAX_RUNS 3u

static const char *const op_p50[OP_KIND_COUNT] = {
    "alloc_p50_us", "map_p50_us",      "cpumap_p50_us", "submit_p50_us",
    "wait_p50_us",  "cpuunmap_p50_us", "unmap_p50_us",  "free_p50_us",
};
static const char *const op_max[OP_KIND_COUNT] = {
    "alloc_max_us", "map_max_us",      "cpumap_max_us", "submit_max_us",
    "wait_max_us",  "cpuunmap_max_us", "unmap_max_us",  "free_max_us",
};

struct op_samples {
	uint64_t *v;
	size_t n;
};

/* the blob steps inside the operations (bench_counts.last_blob_*) */
enum blob_step { BLOB_CREATE, BLOB_MAP, BLOB_DESTROY, BLOB_STEP_COUNT };

static const char *const blob_metric[BLOB_STEP_COUNT][4] = {
    {"blob_create_p50_us", "blob_create_p90_us", "blob_create_p99_us", "blob_create_max_us"},
    {"blob_map_p50_us", "blob_map_p90_us", "blob_map_p99_us", "blob_map_max_us"},
    {"blob_destroy_p50_us", "blob_destroy_p90_us", "blob_destroy_p99_us", "blob_destroy_max_us"},
};

struct storm_acc {
	struct op_samples s[OP_KIND_COUNT]; /* per kind, over all runs */
	struct op_samples blob[BLOB_STEP_COUNT];
	struct op_samples all; /* every operation, over all runs */
	uint64_t worst;
	int worst_kind;
	struct bench_counts counts; /* of the last run */
	/* through the shim's backend, of the last run */
	bool have_backend;
	uint64_t sync_requests, async_requests, backend_blobs, transport_submits;
};

/* One replay on a fresh device; returns the wall time in ns, 0 on failure
 * (the cell then says why). */
static uint64_t storm_run(enum bench_path p, const struct trace *t, struct storm_acc *acc,
			  struct bench_cell *c)
{
	struct bench_bo *bos = NULL;
	bool *live = NULL;
	struct bench_dev *d;
	struct bench_counts before, *cnt;
	uint32_t event = 0;
	uint64_t t0, t1, wall = 0;
	uint64_t s0 = 0, a0 = 0, b0 = 0, t0s = 0, s1 = 0, a1 = 0, b1 = 0, t1s = 0;
	char why[BENCH_REASON_LEN];
	size_t i;
	int r;

	d = bench_dev_open_kfd(p, why, sizeof(why));
	if (!d) {
		bench_cell_na(c, "%s", why);
		return 0;
	}
	bos = calloc((size_t)t->max_id + 1, sizeof(*bos));
	live = calloc((size_t)t->max_id + 1, sizeof(*live));
	if (!bos || !live) {
		bench_cell_na(c, "out of memory");
		goto out;
	}
	r = bench_dev_event_create(d, true, &event);
	if (r) {
		bench_cell_na(c, "CREATE_EVENT (storm event): %s", strerror(-r));
		goto out;
	}
	cnt = bench_dev_counts(d);
	before = *cnt;
	acc->have_backend = !bench_shim_backend_counts(d, &s0, &a0, &b0, &t0s);
	t0 = bench_now_ns();
	for (i = 0; i < t->n; i++) {
		const struct trace_op *op = &t->ops[i];
		uint64_t a = bench_now_ns(), dt;
		struct op_samples *k = &acc->s[op->kind];

		cnt->last_blob_create_ns = 0;
		cnt->last_blob_map_ns = 0;
		cnt->last_blob_destroy_ns = 0;
		r = trace_replay_op(d, op, bos, live, event);
		dt = bench_now_ns() - a;
		if (r) {
			bench_cell_na(c, "trace line %u (%s %u) failed: %s", op->line,
				      trace_op_names[op->kind], op->id, strerror(-r));
			goto out;
		}
		acc->all.v[acc->all.n++] = dt;
		k->v[k->n++] = dt;
		if (cnt->last_blob_create_ns)
			acc->blob[BLOB_CREATE].v[acc->blob[BLOB_CREATE].n++] =
			    cnt->last_blob_create_ns;
		if (cnt->last_blob_map_ns)
			acc->blob[BLOB_MAP].v[acc->blob[BLOB_MAP].n++] = cnt->last_blob_map_ns;
		if (cnt->last_blob_destroy_ns)
			acc->blob[BLOB_DESTROY].v[acc->blob[BLOB_DESTROY].n++] =
			    cnt->last_blob_destroy_ns;
		if (dt > acc->worst) {
			acc->worst = dt;
			acc->worst_kind = op->kind;
		}
	}
	/* everything queued has been handled by the host */
	r = bench_dev_sync(d);
	t1 = bench_now_ns();
	if (r) {
		bench_cell_na(c, "final synchronous call failed: %s", strerror(-r));
		goto out;
	}
	wall = t1 - t0 ? t1 - t0 : 1;
	acc->counts.commands = cnt->commands - before.commands;
	acc->counts.blob_creates = cnt->blob_creates - before.blob_creates;
	acc->counts.cpu_maps = cnt->cpu_maps - before.cpu_maps;
	acc->counts.cpu_unmaps = cnt->cpu_unmaps - before.cpu_unmaps;
	if (acc->have_backend && !bench_shim_backend_counts(d, &s1, &a1, &b1, &t1s)) {
		acc->sync_requests = s1 - s0;
		acc->async_requests = a1 - a0;
		acc->backend_blobs = b1 - b0;
		acc->transport_submits = t1s - t0s;
	}
out:
	/* the device's teardown releases whatever the trace left behind */
	if (bos && live)
		for (i = 0; i <= t->max_id; i++)
			if (bos[i].blob || bos[i].cpu_mapped)
				bench_dev_cpu_unmap(d, &bos[i]);
	free(bos);
	free(live);
	bench_dev_close(d);
	return wall;
}

static void storm_path(enum bench_path p, const struct trace *t, unsigned runs,
		       struct bench_cell *c)
{
	struct storm_acc acc;
	uint64_t walls[STORM_MAX_RUNS];
	size_t cap = t->n * runs;
	bool ok = true;

	memset(&acc, 0, sizeof(acc));
	acc.worst_kind = -1;
	acc.all.v = calloc(cap, sizeof(uint64_t));
	for (unsigned k = 0; k < OP_KIND_COUNT; k++) {
		acc.s[k].v = calloc(cap, sizeof(uint64_t));
		ok = ok && acc.s[k].v;
	}
	for (unsigned k = 0; k < BLOB_STEP_COUNT; k++) {
		acc.blob[k].v = calloc(cap, sizeof(uint64_t));
		ok = ok && acc.blob[k].v;
	}
	if (!ok || !acc.all.v) {
		bench_cell_na(c, "out of memory");
		goto out;
	}
	bench_host_stats_reset();
	for (unsigned i = 0; i < runs; i++) {
		walls[i] = storm_run(p, t, &acc, c);
		if (!walls[i])
			goto out;
	}
	bench_sort_ns(walls, runs);
	double wall_ms = bench_percentile_ns(walls, runs, 50) / 1e6;

	bench_cell_samples(c, acc.all.v, acc.all.n);
	acc.all.v = NULL;
	c->nm = 0; /* the storm's own figures first */
	c->primary = wall_ms;
	bench_cell_metric(c, "wall_ms", wall_ms);
	bench_cell_metric(c, "wall_min_ms", (double)walls[0] / 1e6);
	bench_cell_metric(c, "runs", (double)runs);
	bench_cell_metric(c, "ops", (double)t->n);
	bench_cell_metric(c, "commands", (double)acc.counts.commands);
	bench_cell_metric(c, "commands_per_s", (double)acc.counts.commands / (wall_ms / 1e3));
	bench_cell_metric(c, "blob_creates",
			  (double)(acc.have_backend ? acc.backend_blobs : acc.counts.blob_creates));
	if (acc.have_backend) {
		/* requests the shim's backend sent: each sync one is a reply
		 * waited for (a round trip through the VMM in a VM) */
		bench_cell_metric(c, "replies_waited", (double)acc.sync_requests);
		bench_cell_metric(c, "async_requests", (double)acc.async_requests);
		/* batches and fence requests handed to the transport: each a
		 * virtqueue notify (a VM exit) in a VM */
		bench_cell_metric(c, "transport_submits", (double)acc.transport_submits);
	}
	bench_cell_metric(c, "cpu_maps", (double)acc.counts.cpu_maps);
	bench_cell_metric(c, "cpu_unmaps", (double)acc.counts.cpu_unmaps);
	bench_cell_metric(c, "op_p50_us", bench_cell_pct_us(c, 50));
	bench_cell_metric(c, "op_p99_us", bench_cell_pct_us(c, 99));
	bench_cell_metric(c, "op_max_us", (double)acc.worst / 1000.0);
	for (unsigned k = 0; k < OP_KIND_COUNT; k++) {
		if (!acc.s[k].n)
			continue;
		bench_sort_ns(acc.s[k].v, acc.s[k].n);
		bench_cell_metric(c, op_p50[k],
				  bench_percentile_ns(acc.s[k].v, acc.s[k].n, 50) / 1000.0);
		bench_cell_metric(c, op_max[k], (double)acc.s[k].v[acc.s[k].n - 1] / 1000.0);
	}
	for (unsigned k = 0; k < BLOB_STEP_COUNT; k++) {
		static const double pct[3] = {50, 90, 99};
		struct op_samples *b = &acc.blob[k];

		if (!b->n)
			continue;
		bench_sort_ns(b->v, b->n);
		for (unsigned q = 0; q < 3; q++)
			bench_cell_metric(c, blob_metric[k][q],
					  bench_percentile_ns(b->v, b->n, pct[q]) / 1000.0);
		bench_cell_metric(c, blob_metric[k][3], (double)b->v[b->n - 1] / 1000.0);
	}
	if (acc.worst_kind >= 0)
		snprintf(c->reason, sizeof(c->reason), "slowest operation: %s",
			 trace_op_names[acc.worst_kind]);
	if (p == BENCH_DIRECT || p == BENCH_VTEST) {
		int r = bench_host_stats_collect(runs, c);

		if (r) {
			size_t n = strlen(c->reason);

			snprintf(c->reason + n, sizeof(c->reason) - n,
				 "%shost handling time not measured: %s", n ? "; " : "",
				 strerror(-r));
		}
	}
out:
	for (unsigned k = 0; k < OP_KIND_COUNT; k++)
		free(acc.s[k].v);
	for (unsigned k = 0; k < BLOB_STEP_COUNT; k++)
		free(acc.blob[k].v);
	free(acc.all.v);
}

void bench_storm(const struct bench_opts *o, struct bench_scenario_result *out)
{
	unsigned runs = o->iterations < STORM_MAX_RUNS ? o->iterations : STORM_MAX_RUNS;
	struct trace t;
	char why[BENCH_REASON_LEN];

	out->name = "storm";
	out->primary_name = "wall_ms";
	out->higher_is_better = false;
	if (trace_load(o->trace, &t, why, sizeof(why))) {
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			if (o->paths[p])
				bench_cell_na(&out->cell[p], "%s", why);
		return;
	}
	snprintf(out->note, sizeof(out->note),
		 "trace %s: %zu operations, %u replays per path (wall_ms: median)", o->trace, t.n,
		 runs);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			storm_path((enum bench_path)p, &t, runs, &out->cell[p]);
	free(t.ops);
}
