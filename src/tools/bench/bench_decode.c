// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "decode": throughput of batched asynchronous commands through
 * the host's decoder and executor. The guest queues N requests (the guest
 * library batches them into submits), then one synchronous call, which the
 * host answers only after every earlier request ran. Commands per second =
 * N / (t1 - t0): t0 before the first request is queued, t1 when the
 * synchronous call has returned.
 *
 * Two streams on the protocol paths:
 *  - HDP_FLUSH (primary): on kfdsim the host decodes and validates it and
 *    makes no device call, so it measures the protocol machinery itself;
 *  - RESET_EVENT_ASYNC (N/10 of them): each ends in a RESET_EVENT on the
 *    device, comparable with native, which issues the same number of
 *    RESET_EVENT ioctls on kfdsim (native's primary figure). The paths'
 *    primary figures therefore measure different things: no ratio.
 */
#include "bench.h"
#include "bench_dev.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CMDS_PER_ITERATION 1000u
#define MAX_CMDS           5000000u

enum stream { STREAM_HDP, STREAM_RESET };

/* Returns commands per second or a negative errno. */
static double run_stream(struct bench_dev *d, enum stream s, uint32_t event, unsigned n,
			 double *queue_ns, double *drain_ms, int *err)
{
	uint64_t t0, t1, t2;
	int r;

	r = bench_dev_sync(d);
	t0 = bench_now_ns();
	for (unsigned i = 0; i < n && !r; i++)
		r = s == STREAM_HDP ? bench_dev_hdp_flush_async(d)
				    : bench_dev_event_reset(d, event, true);
	t1 = bench_now_ns();
	if (!r)
		r = bench_dev_sync(d);
	t2 = bench_now_ns();
	*err = r;
	if (r)
		return 0;
	*queue_ns = (double)(t1 - t0) / (double)n;
	*drain_ms = (double)(t2 - t1) / 1e6;
	return (double)n / ((double)(t2 - t0) / 1e9);
}

static void decode_path(enum bench_path p, unsigned n, struct bench_cell *c)
{
	char why[BENCH_REASON_LEN];
	struct bench_dev *d = bench_dev_open(p, why, sizeof(why));
	unsigned n_reset = n / 10 ? n / 10 : 1;
	double q = 0, dr = 0, rate;
	uint32_t event;
	int r;

	if (!d) {
		bench_cell_na(c, "%s", why);
		return;
	}
	r = bench_dev_event_create(d, false, &event);
	if (r) {
		bench_cell_na(c, "CREATE_EVENT: %s", strerror(-r));
		goto out;
	}
	if (p != BENCH_NATIVE) {
		rate = run_stream(d, STREAM_HDP, event, n, &q, &dr, &r);
		if (r) {
			bench_cell_na(c, "HDP_FLUSH: %s", strerror(-r));
			goto out;
		}
		c->ran = true;
		c->primary = rate;
		bench_cell_metric(c, "commands_per_s", rate);
		bench_cell_metric(c, "commands", (double)n);
		bench_cell_metric(c, "queue_ns_per_cmd", q);
		bench_cell_metric(c, "drain_ms", dr);
	}
	rate = run_stream(d, STREAM_RESET, event, n_reset, &q, &dr, &r);
	if (r) {
		bench_cell_na(c, "RESET_EVENT: %s", strerror(-r));
		goto out;
	}
	if (p == BENCH_NATIVE) {
		c->ran = true;
		c->primary = rate;
		bench_cell_metric(c, "commands_per_s", rate);
		bench_cell_metric(c, "commands", (double)n_reset);
	}
	bench_cell_metric(c, "reset_event_per_s", rate);
	bench_cell_metric(c, "reset_queue_ns_per_cmd", q);
	if (p != BENCH_NATIVE)
		bench_cell_metric(c, "reset_drain_ms", dr);
out:
	bench_dev_close(d);
}

void bench_decode(const struct bench_opts *o, struct bench_scenario_result *out)
{
	unsigned n = o->iterations > MAX_CMDS / CMDS_PER_ITERATION
			 ? MAX_CMDS
			 : o->iterations * CMDS_PER_ITERATION;
	const struct bench_cell *nat = &out->cell[BENCH_NATIVE];

	out->name = "decode";
	out->primary_name = "commands_per_s";
	out->higher_is_better = true;
	out->no_ratio = true;
	snprintf(out->note, sizeof(out->note),
		 "protocol paths: %u HDP_FLUSH (async) then a sync call; all paths: %u "
		 "RESET_EVENT (async / native ioctl), reset_event_per_s",
		 n, n / 10 ? n / 10 : 1);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			decode_path((enum bench_path)p, n, &out->cell[p]);
	if (!o->paths[BENCH_NATIVE] || !nat->ran)
		return;
	for (unsigned p = BENCH_DIRECT; p < BENCH_PATH_COUNT; p++) {
		struct bench_cell *c = &out->cell[p];

		if (!o->paths[p] || !c->ran)
			continue;
		for (unsigned i = 0; i < c->nm; i++)
			if (!strcmp(c->m[i].name, "reset_event_per_s"))
				bench_cell_metric(c, "reset_vs_native",
						  c->m[i].value / nat->primary);
	}
}
