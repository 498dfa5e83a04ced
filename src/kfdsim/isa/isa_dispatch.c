/* SPDX-License-Identifier: MIT */
/*
 * Kernel dispatch: the code-object-v3+ kernel descriptor, the initial
 * register state the AMDGPU ABI defines for each wave, and the workgroup
 * scheduler (waves of a workgroup take turns; s_barrier releases when
 * every live wave reached it). Workgroups run one after another.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "isa.h"
#include "engine_mem.h"
#include "isa_exec.h"

/* Kernel descriptor (amdhsa, 64 bytes). */
#define KD_GROUP_SEGMENT_FIXED_SIZE   0
#define KD_PRIVATE_SEGMENT_FIXED_SIZE 4
#define KD_ENTRY_OFFSET               16
#define KD_PGM_RSRC3                  44
#define KD_PGM_RSRC1                  48
#define KD_PGM_RSRC2                  52
#define KD_CODE_PROPERTIES            56
#define KD_SIZE                       64

/* kernel_code_properties: which user SGPRs are set up, in this order. */
#define KCP_PRIVATE_SEGMENT_BUFFER (1u << 0)
#define KCP_DISPATCH_PTR           (1u << 1)
#define KCP_QUEUE_PTR              (1u << 2)
#define KCP_KERNARG_SEGMENT_PTR    (1u << 3)
#define KCP_DISPATCH_ID            (1u << 4)
#define KCP_FLAT_SCRATCH_INIT      (1u << 5)
#define KCP_PRIVATE_SEGMENT_SIZE   (1u << 6)
#define KCP_WAVEFRONT_SIZE32       (1u << 10)

/* Wave instructions between preemption points. */
#define ISA_SLICE 4096u

/* amd_queue_t offsets (see engine_qerror.c) */
#define AMDQ_WRITE_DISPATCH_ID 0x38u
#define AMDQ_READ_DISPATCH_ID  0x80u

static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void ctx_free(void *p)
{
	struct isa_ctx *c = p;

	if (!c)
		return;
	for (unsigned i = 0; i < ISA_MAX_WAVES; i++) {
		free(c->waves[i].v);
		free(c->waves[i].priv);
	}
	free(c->icache);
	free(c->lds);
	free(c);
}

static void ctx_key_init(void)
{
	pthread_key_create(&ctx_key, ctx_free);
}

/* The engine thread's interpreter context (one queue per thread). */
static struct isa_ctx *thread_ctx(struct sim_engine_queue *q)
{
	struct isa_ctx *c;

	pthread_once(&ctx_once, ctx_key_init);
	c = pthread_getspecific(ctx_key);
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->icache = calloc(ISA_ICACHE_SIZE, sizeof(*c->icache));
		c->lds = calloc(1, ISA_LDS_MAX);
		for (unsigned i = 0; i < ISA_MAX_WAVES && c->icache && c->lds; i++) {
			c->waves[i].v = calloc(ISA_VREGS, sizeof(*c->waves[i].v));
			if (!c->waves[i].v) {
				ctx_free(c);
				return NULL;
			}
		}
		if (!c->icache || !c->lds || pthread_setspecific(ctx_key, c) != 0) {
			ctx_free(c);
			return NULL;
		}
	}
	c->q = q;
	c->target = ISA_GFX90A;
	return c;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct launch {
	uint64_t kd_va, entry, kernarg, pkt_va, queue_va, dispatch_id;
	uint32_t rsrc1, rsrc2, rsrc3, props;
	uint32_t grid[3], wg[3], nwg[3];
};

static uint32_t mode_from_rsrc1(uint32_t rsrc1)
{
	uint32_t round = (rsrc1 >> 12) & 0xf, denorm = (rsrc1 >> 16) & 0xf;

	return round | denorm << 4 | ((rsrc1 >> 21) & 1) << 8 | ((rsrc1 >> 23) & 1) << 9;
}

static void init_wave(struct isa_ctx *c, const struct launch *l, struct isa_wave *w,
		      const uint32_t wgid[3], const uint32_t size[3], unsigned threads)
{
	unsigned s = 0, first = w->id * ISA_LANES;
	uint64_t exec = 0;

	memset(w->s, 0, sizeof(w->s));
	w->scc = false;
	w->state = ISA_WAVE_RUN;
	w->pc = l->entry;
	w->mode = mode_from_rsrc1(l->rsrc1);
	w->trapsts = 0;
	w->ctx = c;
	if (l->props & KCP_PRIVATE_SEGMENT_BUFFER) {
		/* A buffer resource with ADD_TID_ENABLE: the model treats
		 * swizzled buffers as the lane-private segment. */
		w->s[s + 0] = 0;
		w->s[s + 1] = 0;
		w->s[s + 2] = c->priv_size;
		w->s[s + 3] = 1u << 23;
		s += 4;
	}
	if (l->props & KCP_DISPATCH_PTR) {
		isa_wr_s64(w, s, l->pkt_va);
		s += 2;
	}
	if (l->props & KCP_QUEUE_PTR) {
		isa_wr_s64(w, s, l->queue_va);
		s += 2;
	}
	if (l->props & KCP_KERNARG_SEGMENT_PTR) {
		isa_wr_s64(w, s, l->kernarg);
		s += 2;
	}
	if (l->props & KCP_DISPATCH_ID) {
		isa_wr_s64(w, s, l->dispatch_id);
		s += 2;
	}
	if (l->props & KCP_FLAT_SCRATCH_INIT) {
		/* scratch is lane-private in the model: base 0 */
		isa_wr_s64(w, s, 0);
		s += 2;
	}
	if (l->props & KCP_PRIVATE_SEGMENT_SIZE)
		w->s[s++] = c->priv_size;
	/* system SGPRs follow the USER_SGPR_COUNT user SGPRs */
	s = (l->rsrc2 >> 1) & 0x1f;
	for (unsigned d = 0; d < 3; d++)
		if (l->rsrc2 & (1u << (7 + d)))
			w->s[s++] = wgid[d];
	if (l->rsrc2 & (1u << 10))
		w->s[s++] = c->nwaves; /* workgroup info */
	if (l->rsrc2 & 1u)
		w->s[s++] = 0; /* private segment wave offset */

	for (unsigned lane = 0; lane < ISA_LANES; lane++) {
		unsigned t = first + lane, x, y, z;

		if (t >= threads)
			break;
		exec |= 1ull << lane;
		x = t % size[0];
		y = (t / size[0]) % size[1];
		z = t / (size[0] * size[1]);
		if (c->target == ISA_GFX90A) {
			w->v[0][lane] = x | y << 10 | z << 20;
		} else {
			w->v[0][lane] = x;
			w->v[1][lane] = y;
			w->v[2][lane] = z;
		}
	}
	/* ids that the descriptor did not ask for read as 0 */
	if (c->target == ISA_GFX90A) {
		uint32_t keep = ((l->rsrc2 >> 11) & 3) == 0   ? 0x3ffu
				: ((l->rsrc2 >> 11) & 3) == 1 ? 0xfffffu
							      : 0x3fffffffu;

		for (unsigned lane = 0; lane < ISA_LANES; lane++)
			w->v[0][lane] &= keep;
	}
	isa_set_exec(w, exec);
}

/* Report what ended the dispatch; ENGINE_DEAD. */
static enum engine_status dispatch_error(struct isa_ctx *c, enum isa_result r)
{
	if (r == ISA_FAULT)
		return ENGINE_DEAD; /* already reported */
	if (r == ISA_STOPPED)
		return ENGINE_STOPPED;
	if (r == ISA_TRAP)
		engine_queue_error(c->q, SIM_QERR_TRAP);
	else
		engine_queue_error(c->q, SIM_QERR_ILLEGAL_INSTRUCTION);
	return ENGINE_DEAD;
}

static enum engine_status run_workgroup(struct isa_ctx *c, const struct launch *l,
					const uint32_t wgid[3])
{
	uint32_t size[3];
	unsigned threads;

	for (unsigned d = 0; d < 3; d++) {
		uint64_t start = (uint64_t)wgid[d] * l->wg[d];

		size[d] = (uint32_t)(l->grid[d] - start < l->wg[d] ? l->grid[d] - start : l->wg[d]);
	}
	threads = size[0] * size[1] * size[2];
	c->nwaves = (threads + ISA_LANES - 1) / ISA_LANES;
	memset(c->lds, 0, c->lds_size);
	for (unsigned i = 0; i < c->nwaves; i++) {
		struct isa_wave *w = &c->waves[i];

		if (c->priv_size && !w->priv) {
			w->priv = calloc(ISA_LANES, c->priv_size);
			if (!w->priv) {
				/* no host memory for the scratch the packet asks
				 * for: the wave cannot be launched */
				engine_queue_error(c->q, SIM_QERR_ILLEGAL_INSTRUCTION);
				return ENGINE_DEAD;
			}
		}
		w->id = i;
		init_wave(c, l, w, wgid, size, threads);
	}
	for (;;) {
		unsigned running = 0, waiting = 0;

		for (unsigned i = 0; i < c->nwaves; i++) {
			struct isa_wave *w = &c->waves[i];
			enum isa_result r;

			if (w->state != ISA_WAVE_RUN)
				continue;
			r = isa_wave_run(w, ISA_SLICE);
			switch (r) {
			case ISA_NEXT:
				break;
			case ISA_BARRIER:
				w->state = ISA_WAVE_BARRIER;
				break;
			case ISA_END:
				w->state = ISA_WAVE_DONE;
				break;
			default:
				return dispatch_error(c, r);
			}
		}
		for (unsigned i = 0; i < c->nwaves; i++) {
			running += c->waves[i].state == ISA_WAVE_RUN;
			waiting += c->waves[i].state == ISA_WAVE_BARRIER;
		}
		if (!running && !waiting)
			return ENGINE_OK;
		if (!running)
			for (unsigned i = 0; i < c->nwaves; i++)
				if (c->waves[i].state == ISA_WAVE_BARRIER)
					c->waves[i].state = ISA_WAVE_RUN;
		/* preemption point: translated pointers are dropped */
		isa_mem_flush(c);
		if (!engine_checkpoint(c->q))
			return ENGINE_STOPPED;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* VKFDSIM_ISA_STATS=1: one line per dispatch on stderr (instructions,
 * time, rate); a measuring aid, not a test. */
static bool stats_enabled(void)
{
	/* engine threads read it concurrently: an atomic, computed once */
	static _Atomic int on = -1;
	int v = atomic_load_explicit(&on, memory_order_relaxed);

	if (v < 0) {
		const char *e = getenv("VKFDSIM_ISA_STATS");

		v = e && *e == '1';
		atomic_store_explicit(&on, v, memory_order_relaxed);
	}
	return v;
}

static void print_stats(const struct isa_ctx *c, const struct launch *l, uint64_t t0,
			enum engine_status st)
{
	uint64_t ns = now_ns() - t0;

	fprintf(stderr,
		"kfdsim isa: dispatch %#" PRIx64 " grid %ux%ux%u wg %ux%ux%u: %" PRIu64
		" wave instructions in %.3f ms (%.2f M/s)%s\n",
		l->entry, l->grid[0], l->grid[1], l->grid[2], l->wg[0], l->wg[1], l->wg[2],
		c->instructions, (double)ns / 1e6,
		ns ? (double)c->instructions * 1e3 / (double)ns : 0.0,
		st == ENGINE_OK ? "" : " (did not complete)");
}

static uint64_t amd_queue_va(const struct sim_engine_queue *q)
{
	uint64_t base = q->desc.rptr_va - AMDQ_READ_DISPATCH_ID;

	if (q->desc.rptr_va < AMDQ_READ_DISPATCH_ID ||
	    q->desc.wptr_va != base + AMDQ_WRITE_DISPATCH_ID)
		return 0;
	return base;
}

enum engine_status isa_dispatch(struct sim_engine_queue *q, const struct aql_dispatch_packet *pkt,
				uint64_t pkt_va)
{
	struct isa_ctx *c = thread_ctx(q);
	uint8_t kd[KD_SIZE];
	struct launch l = {0};
	enum engine_status st;
	uint32_t wgid[3];
	int64_t entry_off;
	uint64_t t0;

	if (!c) {
		/* no host memory for the interpreter: the wave cannot start */
		engine_queue_error(q, SIM_QERR_ILLEGAL_INSTRUCTION);
		return ENGINE_DEAD;
	}
	st = engine_mem_read(q, pkt->kernel_object, kd, sizeof(kd));
	if (st != ENGINE_OK)
		return st;
	l.kd_va = pkt->kernel_object;
	memcpy(&entry_off, kd + KD_ENTRY_OFFSET, sizeof(entry_off));
	l.entry = pkt->kernel_object + (uint64_t)entry_off;
	l.rsrc1 = le32(kd + KD_PGM_RSRC1);
	l.rsrc2 = le32(kd + KD_PGM_RSRC2);
	l.rsrc3 = le32(kd + KD_PGM_RSRC3);
	l.props = le32(kd + KD_CODE_PROPERTIES) & 0xffff;
	l.kernarg = pkt->kernarg_address;
	l.pkt_va = pkt_va;
	l.queue_va = amd_queue_va(q);
	l.dispatch_id = q->rptr;
	for (unsigned d = 0; d < 3; d++) {
		l.grid[d] = pkt->grid_size[d];
		l.wg[d] = pkt->workgroup_size[d];
	}
	if (l.props & KCP_WAVEFRONT_SIZE32) {
		/* a wave32 kernel cannot run on a wave64 gfx9 GPU */
		engine_queue_error(q, SIM_QERR_ILLEGAL_INSTRUCTION);
		return ENGINE_DEAD;
	}
	if (!l.wg[0] || !l.wg[1] || !l.wg[2] || (uint64_t)l.wg[0] * l.wg[1] * l.wg[2] > 1024 ||
	    pkt->group_segment_size > ISA_LDS_MAX || pkt->private_segment_size > ISA_PRIVATE_MAX) {
		engine_queue_error(q, SIM_QERR_INVALID_PACKET);
		return ENGINE_DEAD;
	}
	if (!l.grid[0] || !l.grid[1] || !l.grid[2])
		return ENGINE_OK; /* an empty grid launches nothing */
	for (unsigned d = 0; d < 3; d++)
		l.nwg[d] = (uint32_t)(((uint64_t)l.grid[d] + l.wg[d] - 1) / l.wg[d]);

	c->gen++;
	c->lds_size = pkt->group_segment_size;
	if (c->priv_size != pkt->private_segment_size) {
		for (unsigned i = 0; i < ISA_MAX_WAVES; i++) {
			free(c->waves[i].priv);
			c->waves[i].priv = NULL;
		}
		c->priv_size = pkt->private_segment_size;
	}
	c->bad_op = 0;
	c->instructions = 0;
	t0 = stats_enabled() ? now_ns() : 0;
	isa_mem_flush(c);
	st = ENGINE_OK;
	for (wgid[2] = 0; wgid[2] < l.nwg[2] && st == ENGINE_OK; wgid[2]++)
		for (wgid[1] = 0; wgid[1] < l.nwg[1] && st == ENGINE_OK; wgid[1]++)
			for (wgid[0] = 0; wgid[0] < l.nwg[0] && st == ENGINE_OK; wgid[0]++)
				st = run_workgroup(c, &l, wgid);
	if (t0)
		print_stats(c, &l, t0, st);
	return st;
}
