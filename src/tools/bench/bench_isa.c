// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "isa": speed of kfdsim's gfx9 ISA interpreter in wave
 * instructions per second. Two real gfx90a kernels (isa_kernels/NAME.s,
 * pre-assembled into bench_isa_kernels.h) are dispatched through an AQL
 * queue the way bench_dispatch.c does it:
 *  - valu: 16 waves, each looping over 12 dependent VALU ops (f32 fma,
 *    mul, add, max, min, u24 mad, xor, conversions) + 3 scalar ops;
 *  - mem: 16 waves copying 16 bytes per lane per iteration between two
 *    4 MiB GTT buffers (global_load/store_dwordx4 and scalar address
 *    arithmetic).
 * The wave-instruction count of a dispatch follows from the kernels'
 * straight-line structure (every wave runs the same path; the .s files
 * state the formula); the time is from the doorbell store to the
 * completion signal, so it includes one dispatch's overhead (tens of µs,
 * see "dispatch"). Workgroups run one after another on the queue's one
 * engine thread, so the figure is per core.
 */
#include "bench.h"
#include "bench_aql.h"
#include "bench_dev.h"
#include "bench_isa_kernels.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIGNAL_OFF    0u
#define KD_OFF(k)     (0x100u + 0x40u * (k)) /* kernel descriptors */
#define KARG_OFF(k)   (0x200u + 0x40u * (k))
#define CODE_OFF(k)   (0x400u + 0x800u * (k))
#define MISC_BYTES    0x2000u
#define DATA_BYTES    (4u << 20)
#define WAVES         16u
#define WG_ITEMS      256u
#define VALU_ITERS    500u
#define MEM_ITERS     (DATA_BYTES / (WAVES * 64u * 16u))
#define SPIN_LIMIT_NS 20000000000ull

/* kernel descriptor fields (AMDGPUUsage) */
#define KCP_KERNARG_SEGMENT_PTR (1u << 3)
#define RSRC2_USER_SGPRS(n)     ((n) << 1)
#define RSRC2_WORKGROUP_ID_X    (1u << 7)

struct isa_mem {
	struct bench_bo ring, ptrs, misc, src, dst;
	bool have[5];
};

static int bo(struct bench_dev *d, struct bench_bo *b, bool *have, uint64_t size)
{
	uint64_t va = bench_dev_va(d, size);
	int r;

	if (!va)
		return -ENOMEM;
	r = bench_dev_alloc(d, BENCH_MEM_GTT, va, size, b);
	if (r)
		return r;
	*have = true;
	r = bench_dev_map(d, b);
	if (!r)
		r = bench_dev_cpu_map(d, b);
	return r;
}

static void load_kernel(uint8_t *misc, uint64_t misc_va, unsigned k, const uint32_t *code,
			size_t bytes)
{
	uint8_t *kd = misc + KD_OFF(k);
	int64_t entry = (int64_t)CODE_OFF(k) - (int64_t)KD_OFF(k);
	uint32_t rsrc2 = RSRC2_USER_SGPRS(2u) | RSRC2_WORKGROUP_ID_X,
		 props = KCP_KERNARG_SEGMENT_PTR;

	(void)misc_va;
	memset(kd, 0, 64);
	memcpy(kd + 16, &entry, 8);
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 4);
	memcpy(misc + CODE_OFF(k), code, bytes);
}

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One dispatch of kernel k over WAVES waves; its time in ns, 0 on
 * timeout; *cpu the CPU time this process spent meanwhile. The wait
 * sleeps 20 µs between polls, so on the native and direct paths (the
 * engine thread is in this process) *cpu is close to the engine thread's
 * own time, whatever else the machine runs. */
static uint64_t run_once(struct isa_mem *m, struct bench_queue *q, unsigned k, uint64_t *cpu)
{
	struct timespec nap = {0, 20000};
	uint64_t c0;
	struct dispatch_packet *ring = (struct dispatch_packet *)(uintptr_t)m->ring.va;
	uint64_t *wptr = (uint64_t *)(uintptr_t)(m->ptrs.va + WPTR_OFF);
	int64_t *sig = (int64_t *)(uintptr_t)(m->misc.va + SIGNAL_OFF + 8); /* value */
	struct dispatch_packet *pkt;
	uint64_t idx, t0, now;

	__atomic_store_n(sig, 1, __ATOMIC_RELEASE);
	idx = __atomic_load_n(wptr, __ATOMIC_ACQUIRE);
	pkt = &ring[idx % RING_PACKETS];
	memset((uint8_t *)pkt + 4, 0, 60);
	pkt->workgroup_size[0] = WG_ITEMS;
	pkt->workgroup_size[1] = pkt->workgroup_size[2] = 1;
	pkt->grid_size[0] = WAVES * 64u;
	pkt->grid_size[1] = pkt->grid_size[2] = 1;
	pkt->kernel_object = m->misc.va + KD_OFF(k);
	pkt->kernarg_address = m->misc.va + KARG_OFF(k);
	pkt->completion_signal = m->misc.va + SIGNAL_OFF;
	/* kernel dispatch, barrier, system-scope fences, 1 dimension */
	__atomic_store_n((uint32_t *)pkt,
			 PKT_TYPE_KERNEL_DISPATCH | PKT_BARRIER | PKT_SCOPE_SYSTEM_ACQ |
			     PKT_SCOPE_SYSTEM_REL | 1u << 16,
			 __ATOMIC_RELEASE);
	c0 = cpu_now_ns();
	t0 = bench_now_ns();
	__atomic_store_n(wptr, idx + 1, __ATOMIC_RELEASE);
	__atomic_store_n(q->doorbell, idx, __ATOMIC_RELEASE);
	do {
		now = bench_now_ns();
		if (__atomic_load_n(sig, __ATOMIC_ACQUIRE) == 0) {
			*cpu = cpu_now_ns() - c0;
			return now - t0 ? now - t0 : 1;
		}
		nanosleep(&nap, NULL);
	} while (now - t0 < SPIN_LIMIT_NS);
	return 0;
}

static void isa_path(enum bench_path p, unsigned iters, struct bench_cell *c)
{
	static const uint64_t insts[2] = {
	    WAVES * (12ull + 15ull * VALU_ITERS), /* valu.s */
	    WAVES * (8ull + 10ull * MEM_ITERS),   /* mem.s */
	};
	char why[BENCH_REASON_LEN];
	struct bench_dev *d = bench_dev_open(p, why, sizeof(why));
	struct bench_bo *bos[5];
	struct bench_queue q;
	struct isa_mem m;
	uint64_t *s[2] = {NULL, NULL}, *cpu[2] = {NULL, NULL};
	unsigned n = iters < 3 ? 3 : iters > 20 ? 20 : iters;
	uint8_t *misc;
	int r = 0;

	memset(&m, 0, sizeof(m));
	memset(&q, 0, sizeof(q));
	bos[0] = &m.ring, bos[1] = &m.ptrs, bos[2] = &m.misc, bos[3] = &m.src, bos[4] = &m.dst;
	if (!d) {
		bench_cell_na(c, "%s", why);
		return;
	}
	if ((r = bo(d, &m.ring, &m.have[0], RING_BYTES)) ||
	    (r = bo(d, &m.ptrs, &m.have[1], 4096)) ||
	    (r = bo(d, &m.misc, &m.have[2], MISC_BYTES)) ||
	    (r = bo(d, &m.src, &m.have[3], DATA_BYTES)) ||
	    (r = bo(d, &m.dst, &m.have[4], DATA_BYTES))) {
		bench_cell_na(c, "queue and data memory (ALLOC/MAP/CPU map of GTT): %s",
			      strerror(-r));
		goto out;
	}
	for (unsigned i = 0; i < RING_PACKETS; i++)
		((struct dispatch_packet *)(uintptr_t)m.ring.va)[i].header = PKT_TYPE_INVALID;
	misc = (uint8_t *)(uintptr_t)m.misc.va;
	*(int64_t *)(misc + SIGNAL_OFF) = 1; /* user signal */
	load_kernel(misc, m.misc.va, 0, kernel_valu, sizeof(kernel_valu));
	load_kernel(misc, m.misc.va, 1, kernel_mem, sizeof(kernel_mem));
	*(uint64_t *)(misc + KARG_OFF(0)) = m.dst.va;
	*(uint32_t *)(misc + KARG_OFF(0) + 8) = VALU_ITERS;
	*(uint64_t *)(misc + KARG_OFF(1)) = m.src.va;
	*(uint64_t *)(misc + KARG_OFF(1) + 8) = m.dst.va;
	*(uint32_t *)(misc + KARG_OFF(1) + 16) = MEM_ITERS;
	*(uint32_t *)(misc + KARG_OFF(1) + 20) = WAVES * 64u * 16u;
	bench_pin(1);
	r = bench_dev_queue_create(d, m.ring.va, RING_BYTES, m.ptrs.va + RPTR_OFF,
				   m.ptrs.va + WPTR_OFF, &q);
	bench_pin(0);
	if (r) {
		bench_cell_na(c, "CREATE_QUEUE: %s", strerror(-r));
		goto out;
	}
	for (unsigned k = 0; k < 2; k++) {
		s[k] = calloc(n, sizeof(uint64_t));
		cpu[k] = calloc(n, sizeof(uint64_t));
		if (!s[k] || !cpu[k]) {
			bench_cell_na(c, "out of memory");
			goto out_queue;
		}
		for (unsigned i = 0; i < n; i++) {
			s[k][i] = run_once(&m, &q, k, &cpu[k][i]);
			if (!s[k][i]) {
				bench_cell_na(
				    c, "%s kernel: completion signal not reached within 20 s",
				    k ? "mem" : "valu");
				goto out_queue;
			}
		}
		bench_sort_ns(s[k], n);
		bench_sort_ns(cpu[k], n);
	}
	{
		/* the copy must have happened: the kernels are real */
		const uint32_t *a = (const uint32_t *)(uintptr_t)m.src.va;
		const uint32_t *b = (const uint32_t *)(uintptr_t)m.dst.va;

		if (memcmp(a, b, DATA_BYTES)) {
			bench_cell_na(c, "mem kernel: destination differs from the source");
			goto out_queue;
		}
	}
	{
		/* metric names are kept by pointer: literals */
		static const char *const names[2][4] = {
		    {"valu_Minst_per_s", "valu_p50_ms", "valu_wave_insts", "valu_Minst_per_cpu_s"},
		    {"mem_Minst_per_s", "mem_p50_ms", "mem_wave_insts", "mem_Minst_per_cpu_s"},
		};

		for (unsigned k = 0; k < 2; k++) {
			double p50 = bench_percentile_ns(s[k], n, 50);

			bench_cell_metric(c, names[k][0], (double)insts[k] / p50 * 1e3);
			bench_cell_metric(c, names[k][1], p50 / 1e6);
			bench_cell_metric(c, names[k][2], (double)insts[k]);
			/* per second of CPU: only where the engine is in-process */
			if (p == BENCH_NATIVE || p == BENCH_DIRECT)
				bench_cell_metric(c, names[k][3],
						  (double)insts[k] /
						      bench_percentile_ns(cpu[k], n, 50) * 1e3);
		}
	}
	c->primary = (double)insts[0] / bench_percentile_ns(s[0], n, 50) * 1e3;
	c->ran = true;
out_queue:
	bench_dev_queue_destroy(d, &q);
out:
	free(s[0]);
	free(s[1]);
	free(cpu[0]);
	free(cpu[1]);
	for (unsigned i = 0; i < 5; i++)
		if (m.have[i])
			bench_dev_free(d, bos[i], false);
	bench_dev_close(d);
}

void bench_isa(const struct bench_opts *o, struct bench_scenario_result *out)
{
	out->name = "isa";
	out->primary_name = "valu_Minst_per_s";
	out->higher_is_better = true;
	snprintf(out->note, sizeof(out->note),
		 "ISA interpreter, M wave insts/s on one engine thread: %u waves of a VALU loop "
		 "(%llu insts), of a 4 MiB copy (%llu); median of %u",
		 WAVES, (unsigned long long)(WAVES * (12ull + 15ull * VALU_ITERS)),
		 (unsigned long long)(WAVES * (8ull + 10ull * MEM_ITERS)),
		 o->iterations < 3    ? 3
		 : o->iterations > 20 ? 20
				      : o->iterations);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			isa_path((enum bench_path)p, o->iterations, &out->cell[p]);
}
