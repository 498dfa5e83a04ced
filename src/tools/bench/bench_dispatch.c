// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "dispatch": an AQL kernel dispatch of kfdsim's SLEEP builtin
 * with 0 ns, from the doorbell write to its completion signal, the way
 * ROCr submits: the ring, the read/write pointers, the signal, the kernel
 * descriptor and the kernargs live in CPU-mapped GTT BOs; the producer bumps
 * the write index, writes the packet, publishes its header and stores the
 * index to the doorbell with a plain store (no command is sent).
 *
 * native: the doorbell slice is mmapped from the KFD fd; kfdsim's engine
 * thread sees the write pointer. direct/vtest: the doorbell is the shadow
 * doorbell blob (docs/protocol.md section 11); the host's relay notices the
 * store and rings the real doorbell.
 *
 * t0: the packet is complete, just before the write pointer and the
 * doorbell are stored; t1: when the guest sees the completion signal's
 * value reach 0. Back to back (primary figure) and after 5 ms of idleness
 * (idle_*: the engine and the relay have backed off their polling).
 */
#include "bench.h"
#include "bench_aql.h"
#include "bench_dev.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIGNAL_OFF    0u
#define DESC_OFF      64u
#define KERNARG_OFF   128u
#define SPIN_LIMIT_NS 2000000000ull
#define BUILTIN_SLEEP 4u
#define IDLE_GAP_NS   5000000l /* longer than the engine's 1 ms poll back-off */

/* The part of amd_signal_t the engine touches. */
struct amd_signal {
	int64_t kind;
	int64_t value;
	uint64_t event_mailbox_ptr;
	uint32_t event_id;
	uint32_t reserved1;
	uint64_t start_ts;
	uint64_t end_ts;
	uint64_t reserved2[2];
};
_Static_assert(sizeof(struct amd_signal) == 64, "amd_signal_t");

struct qmem {
	struct bench_bo ring, ptrs, misc;
	bool have_ring, have_ptrs, have_misc;
};

static int gtt_bo(struct bench_dev *d, struct bench_bo *bo, bool *have)
{
	uint64_t va = bench_dev_va(d, 4096);
	int r;

	if (!va)
		return -ENOMEM;
	r = bench_dev_alloc(d, BENCH_MEM_GTT, va, 4096, bo);
	if (r)
		return r;
	*have = true;
	r = bench_dev_map(d, bo);
	if (!r)
		r = bench_dev_cpu_map(d, bo);
	return r;
}

static void qmem_free(struct bench_dev *d, struct qmem *m)
{
	if (m->have_ring)
		bench_dev_free(d, &m->ring, false);
	if (m->have_ptrs)
		bench_dev_free(d, &m->ptrs, false);
	if (m->have_misc)
		bench_dev_free(d, &m->misc, false);
}

static const char *setup(struct bench_dev *d, struct qmem *m, struct bench_queue *q, int *err)
{
	struct dispatch_packet *ring;
	uint8_t *misc;
	int r;

	if ((r = gtt_bo(d, &m->ring, &m->have_ring)) || (r = gtt_bo(d, &m->ptrs, &m->have_ptrs)) ||
	    (r = gtt_bo(d, &m->misc, &m->have_misc))) {
		*err = r;
		return "queue memory (ALLOC/MAP/CPU map of GTT)";
	}
	ring = (struct dispatch_packet *)(uintptr_t)m->ring.va;
	for (unsigned i = 0; i < RING_PACKETS; i++)
		ring[i].header = PKT_TYPE_INVALID;
	misc = (uint8_t *)(uintptr_t)m->misc.va;
	memcpy(misc + DESC_OFF, "KFDSIM01", 8);
	*(uint32_t *)(misc + DESC_OFF + 8) = BUILTIN_SLEEP;
	*(uint64_t *)(misc + KERNARG_OFF) = 0;                /* SLEEP 0 ns */
	((struct amd_signal *)(misc + SIGNAL_OFF))->kind = 1; /* user signal */
	/* the engine thread (native) runs on the host CPU */
	bench_pin(1);
	r = bench_dev_queue_create(d, m->ring.va, RING_BYTES, m->ptrs.va + RPTR_OFF,
				   m->ptrs.va + WPTR_OFF, q);
	bench_pin(0);
	if (r) {
		*err = r;
		return "CREATE_QUEUE";
	}
	return NULL;
}

/* One dispatch; returns its latency in ns or 0 on timeout. The packet is
 * complete before the write pointer moves, so the time covers only the
 * doorbell path (kfdsim's engine watches the write pointer in memory; a
 * packet made visible earlier would be picked up before the doorbell). */
static uint64_t dispatch_once(struct qmem *m, struct bench_queue *q)
{
	struct dispatch_packet *ring = (struct dispatch_packet *)(uintptr_t)m->ring.va;
	uint64_t *wptr = (uint64_t *)(uintptr_t)(m->ptrs.va + WPTR_OFF);
	struct amd_signal *sig = (struct amd_signal *)(uintptr_t)(m->misc.va + SIGNAL_OFF);
	uint64_t idx, t0, now;
	struct dispatch_packet *pkt;
	uint32_t hdr;

	__atomic_store_n(&sig->value, 1, __ATOMIC_RELEASE);
	idx = __atomic_load_n(wptr, __ATOMIC_ACQUIRE);
	pkt = &ring[idx % RING_PACKETS];
	pkt->workgroup_size[0] = pkt->workgroup_size[1] = pkt->workgroup_size[2] = 1;
	pkt->grid_size[0] = pkt->grid_size[1] = pkt->grid_size[2] = 1;
	pkt->private_segment_size = 0;
	pkt->group_segment_size = 0;
	pkt->kernel_object = m->misc.va + DESC_OFF;
	pkt->kernarg_address = m->misc.va + KERNARG_OFF;
	pkt->completion_signal = m->misc.va + SIGNAL_OFF;
	hdr =
	    (PKT_TYPE_KERNEL_DISPATCH | PKT_BARRIER | PKT_SCOPE_SYSTEM_ACQ | PKT_SCOPE_SYSTEM_REL) |
	    (1u << 16); /* setup: 1 dimension */
	__atomic_store_n((uint32_t *)pkt, hdr, __ATOMIC_RELEASE);
	t0 = bench_now_ns();
	__atomic_store_n(wptr, idx + 1, __ATOMIC_RELEASE);
	__atomic_store_n(q->doorbell, idx, __ATOMIC_RELEASE);
	do {
		now = bench_now_ns();
		if (__atomic_load_n(&sig->value, __ATOMIC_ACQUIRE) == 0)
			return now - t0 ? now - t0 : 1;
	} while (now - t0 < SPIN_LIMIT_NS);
	return 0;
}

/* n dispatches, each after idle_ns of idleness (0: back to back). */
static int dispatch_series(struct qmem *m, struct bench_queue *q, unsigned n, long idle_ns,
			   uint64_t *s)
{
	struct timespec idle = {0, idle_ns};

	for (unsigned i = 0; i < n; i++) {
		if (idle_ns)
			nanosleep(&idle, NULL);
		s[i] = dispatch_once(m, q);
		if (!s[i])
			return (int)i + 1;
	}
	return 0;
}

static void dispatch_path(enum bench_path p, unsigned iters, struct bench_cell *c)
{
	char why[BENCH_REASON_LEN];
	struct bench_dev *d = bench_dev_open(p, why, sizeof(why));
	struct bench_queue q;
	struct qmem m;
	const char *what;
	uint64_t *s = NULL, *idle = NULL, warm[3];
	unsigned idle_n;
	int err = 0, fail;

	memset(&m, 0, sizeof(m));
	memset(&q, 0, sizeof(q));
	if (!d) {
		bench_cell_na(c, "%s", why);
		return;
	}
	what = setup(d, &m, &q, &err);
	if (what) {
		bench_cell_na(c, "%s: %s", what, strerror(-err));
		goto out;
	}
	s = calloc(iters, sizeof(*s));
	if (!s) {
		bench_cell_na(c, "out of memory");
		goto out_queue;
	}
	/* warm-up: also proves the path executes dispatches at all */
	if (dispatch_series(&m, &q, 3, 0, warm)) {
		bench_cell_na(c,
			      "completion signal not reached within 2 s (dispatch not executed)");
		goto out_queue;
	}
	/* after an idle gap: the engine (and relay) have backed off */
	idle_n = iters / 10 < 3 ? 3 : iters / 10;
	idle = calloc(idle_n, sizeof(*idle));
	if (!idle) {
		bench_cell_na(c, "out of memory");
		goto out_queue;
	}
	fail = dispatch_series(&m, &q, idle_n, IDLE_GAP_NS, idle);
	if (!fail)
		fail = dispatch_series(&m, &q, iters, 0, s);
	if (fail) {
		bench_cell_na(c, "dispatch %d: completion signal not reached within 2 s", fail);
		goto out_queue;
	}
	bench_sort_ns(idle, idle_n);
	bench_cell_samples(c, s, iters);
	s = NULL;
	bench_cell_metric(c, "idle_p50_us", bench_percentile_ns(idle, idle_n, 50) / 1000.0);
	bench_cell_metric(c, "idle_p99_us", bench_percentile_ns(idle, idle_n, 99) / 1000.0);
	bench_cell_metric(c, "idle_max_us", (double)idle[idle_n - 1] / 1000.0);
out_queue:
	bench_dev_queue_destroy(d, &q);
out:
	free(s);
	free(idle);
	qmem_free(d, &m);
	bench_dev_close(d);
}

void bench_dispatch(const struct bench_opts *o, struct bench_scenario_result *out)
{
	out->name = "dispatch";
	out->primary_name = "p50_us";
	out->higher_is_better = false;
	snprintf(out->note, sizeof(out->note),
		 "AQL dispatch of builtin SLEEP 0, doorbell store -> completion signal 0, %u "
		 "back-to-back dispatches per path (idle_*: %u after 5 ms idle)",
		 o->iterations, o->iterations / 10 < 3 ? 3 : o->iterations / 10);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			dispatch_path((enum bench_path)p, o->iterations, &out->cell[p]);
}
