// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: the host's per-command handling time during the storm, seen
 * from outside. The host publishes the sequence number of the last request
 * it finished in the shared memory (store-release after the response is
 * written). An extra, untimed replay puts a cheap asynchronous marker
 * (HDP_FLUSH, which on kfdsim the host answers without a device call) right
 * before each operation's first command, in the same batch, so the
 * executor runs the two back to back; a monitor thread spins on the
 * published sequence number and stamps every value it sees. For an
 * operation whose marker and command were both seen, handling time =
 * t(command published) - t(marker published): decoding, validation, the
 * device call and writing the response.
 *
 * The guest sleeps after each operation until the host has finished it,
 * so that mostly the executor and the monitor compete for the CPUs.
 *
 * Limits: the monitor misses a value that is overwritten before it looks
 * again (it is descheduled, or the next command is fast), so those samples
 * are dropped: host_samples of host_commands were timed, and host_max_us
 * is the largest observed, a lower bound of the true maximum. The spinning
 * monitor takes a CPU, so this replay is not the timed one. WAIT_EVENTS
 * counts until the host accepted the wait.
 */
#include "bench_hosttime.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct monitor {
	const uint32_t *word;
	uint32_t base; /* seqno published by the synchronous call before the replay */
	uint64_t *t;   /* stamp by seqno - base; 0 = not seen */
	size_t cap;
	bool stop;
};

static void *monitor_main(void *arg)
{
	struct monitor *m = arg;
	uint32_t last = __atomic_load_n(m->word, __ATOMIC_ACQUIRE);

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		uint32_t v = __atomic_load_n(m->word, __ATOMIC_ACQUIRE);
		uint32_t idx;

		if (v == last)
			continue;
		idx = v - m->base;
		if (idx < m->cap)
			m->t[idx] = bench_now_ns();
		last = v;
	}
	return NULL;
}

/* Until the host has published request index `want` (or 2 s passed). */
static void wait_processed(const struct monitor *m, uint32_t want)
{
	struct timespec nap = {0, 20000};
	uint64_t t0 = bench_now_ns();

	while ((int32_t)(__atomic_load_n(m->word, __ATOMIC_ACQUIRE) - m->base - want) < 0 &&
	       bench_now_ns() - t0 < 2000000000ull)
		nanosleep(&nap, NULL);
}

struct pair {
	uint32_t marker; /* request index of the marker (seqno - base) */
	uint8_t kind;
};

static const char *const host_max_names[OP_KIND_COUNT] = {
    "host_alloc_max_us", "host_map_max_us",      "host_bind_blob_max_us", "host_submit_max_us",
    "host_wait_max_us",  "host_cpuunmap_max_us", "host_unmap_max_us",     "host_free_max_us",
};

int bench_storm_host_timing(enum bench_path p, const struct trace *t, struct bench_cell *c)
{
	struct timespec settle = {0, 2000000};
	struct bench_counts *cnt;
	struct bench_bo *bos = NULL;
	struct pair *pairs = NULL;
	bool *live = NULL;
	uint64_t *s = NULL, *kind_max = NULL, k0;
	const volatile uint32_t *word;
	struct monitor m;
	struct bench_dev *d;
	pthread_t th;
	bool th_started = false;
	size_t npairs = 0, ns = 0;
	uint32_t event;
	char why[BENCH_REASON_LEN];
	int r = 0;

	memset(&m, 0, sizeof(m));
	d = bench_dev_open(p, why, sizeof(why));
	if (!d)
		return -ENODEV;
	word = bench_dev_seqno_word(d);
	if (!word) {
		r = -EOPNOTSUPP;
		goto out;
	}
	m.cap = t->n * 3 + 16; /* a marker and at most two requests per op */
	m.t = calloc(m.cap, sizeof(*m.t));
	pairs = calloc(t->n, sizeof(*pairs));
	s = calloc(t->n, sizeof(*s));
	kind_max = calloc(OP_KIND_COUNT, sizeof(*kind_max));
	bos = calloc((size_t)t->max_id + 1, sizeof(*bos));
	live = calloc((size_t)t->max_id + 1, sizeof(*live));
	if (!m.t || !pairs || !s || !kind_max || !bos || !live) {
		r = -ENOMEM;
		goto out;
	}
	r = bench_dev_event_create(d, true, &event);
	if (!r)
		r = bench_dev_sync(d);
	if (r)
		goto out;
	cnt = bench_dev_counts(d);
	k0 = cnt->commands;
	m.word = (const uint32_t *)word;
	m.base = __atomic_load_n(m.word, __ATOMIC_ACQUIRE);
	if (pthread_create(&th, NULL, monitor_main, &m)) {
		r = -EAGAIN;
		goto out;
	}
	th_started = true;
	for (size_t i = 0; i < t->n && !r; i++) {
		const struct trace_op *op = &t->ops[i];

		if (op->kind == OP_CPUUNMAP) { /* no protocol request */
			r = trace_replay_op(d, op, bos, live, event);
			continue;
		}
		r = bench_dev_hdp_flush_async(d);
		if (r)
			break;
		pairs[npairs].marker = (uint32_t)(cnt->commands - k0);
		pairs[npairs].kind = op->kind;
		npairs++;
		r = trace_replay_op(d, op, bos, live, event);
		/* send asynchronous ones now: marker and request share a batch */
		if (!r)
			r = bench_dev_flush(d);
		/* sleep until the host is done, so that only the executor and the
		 * monitor compete for the CPUs while it works */
		if (!r)
			wait_processed(&m, (uint32_t)(cnt->commands - k0));
	}
	if (!r)
		r = bench_dev_sync(d);
	nanosleep(&settle, NULL);
	__atomic_store_n(&m.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	th_started = false;
	if (r)
		goto out;
	for (size_t i = 0; i < npairs; i++) {
		uint32_t a = pairs[i].marker, b = a + 1;
		uint64_t dt;

		if (b >= m.cap || !m.t[a] || !m.t[b] || m.t[b] < m.t[a])
			continue;
		dt = m.t[b] - m.t[a];
		s[ns++] = dt;
		if (dt > kind_max[pairs[i].kind])
			kind_max[pairs[i].kind] = dt;
	}
	if (!ns) {
		r = -ENODATA;
		goto out;
	}
	bench_sort_ns(s, ns);
	bench_cell_metric(c, "host_p50_us", bench_percentile_ns(s, ns, 50) / 1000.0);
	bench_cell_metric(c, "host_p99_us", bench_percentile_ns(s, ns, 99) / 1000.0);
	bench_cell_metric(c, "host_max_us", (double)s[ns - 1] / 1000.0);
	bench_cell_metric(c, "host_samples", (double)ns);
	bench_cell_metric(c, "host_commands", (double)npairs);
	for (unsigned k = 0; k < OP_KIND_COUNT; k++)
		if (kind_max[k])
			bench_cell_metric(c, host_max_names[k], (double)kind_max[k] / 1000.0);
out:
	if (th_started) {
		__atomic_store_n(&m.stop, true, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
	}
	if (bos && live)
		for (size_t i = 0; i <= t->max_id; i++)
			if (bos[i].blob || bos[i].cpu_mapped)
				bench_dev_cpu_unmap(d, &bos[i]);
	free(bos);
	free(live);
	free(m.t);
	free(pairs);
	free(s);
	free(kind_max);
	bench_dev_close(d);
	return r;
}
