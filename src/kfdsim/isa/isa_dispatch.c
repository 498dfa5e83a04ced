/* SPDX-License-Identifier: MIT */
/*
 * Kernel dispatch: the code-object-v3+ kernel descriptor, the initial
 * register state the AMDGPU ABI defines for each wave, and the workgroup
 * scheduler (waves of a workgroup take turns; s_barrier releases when
 * every live wave reached it). Workgroups run one after another, or on
 * several threads (VKFDSIM_ISA_THREADS, below).
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

/* Set up workgroup `wgid` on c: its waves and a zeroed LDS. False when
 * the host cannot allocate the scratch the packet asks for. */
static bool wg_start(struct isa_ctx *c, const struct launch *l, const uint32_t wgid[3])
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
			if (!w->priv)
				return false;
		}
		w->id = i;
		init_wave(c, l, w, wgid, size, threads);
	}
	return true;
}

/* One turn of the workgroup on c: each running wave runs up to ISA_SLICE
 * instructions (a wave that yields ends the turn). ISA_NEXT while it
 * runs, ISA_END when every wave ended, else what stopped it. */
static enum isa_result wg_step(struct isa_ctx *c)
{
	unsigned running = 0, waiting = 0;

	for (unsigned i = 0; i < c->nwaves; i++) {
		struct isa_wave *w = &c->waves[i];
		enum isa_result r;

		if (w->state != ISA_WAVE_RUN)
			continue;
		r = isa_wave_run(w, ISA_SLICE);
		if (r == ISA_YIELD)
			return ISA_NEXT;
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
			return r;
		}
	}
	for (unsigned i = 0; i < c->nwaves; i++) {
		running += c->waves[i].state == ISA_WAVE_RUN;
		waiting += c->waves[i].state == ISA_WAVE_BARRIER;
	}
	if (!running && !waiting)
		return ISA_END;
	if (!running)
		for (unsigned i = 0; i < c->nwaves; i++)
			if (c->waves[i].state == ISA_WAVE_BARRIER)
				c->waves[i].state = ISA_WAVE_RUN;
	return ISA_NEXT;
}

static enum engine_status run_workgroup(struct isa_ctx *c, const struct launch *l,
					const uint32_t wgid[3])
{
	if (!wg_start(c, l, wgid)) {
		/* no host memory for the scratch the packet asks for: the
		 * wave cannot be launched */
		engine_queue_error(c->q, SIM_QERR_ILLEGAL_INSTRUCTION);
		return ENGINE_DEAD;
	}
	for (;;) {
		enum isa_result r = wg_step(c);

		if (r == ISA_END)
			return ENGINE_OK;
		if (r != ISA_NEXT)
			return dispatch_error(c, r);
		/* preemption point: translated pointers are dropped */
		isa_mem_flush(c);
		if (!engine_checkpoint(c->q))
			return ENGINE_STOPPED;
	}
}

/* A context ready for a new dispatch: decoded instructions and cached
 * translations forgotten, LDS and scratch sized for the packet. */
static void prepare_ctx(struct isa_ctx *c, const struct aql_dispatch_packet *pkt)
{
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
	c->defer_reports = false;
	c->has_irq = false;
	isa_mem_flush(c);
}

/* ---- workgroups on several threads (VKFDSIM_ISA_THREADS) ----
 *
 * The engine thread and threads-1 helper threads, each with its own
 * context (waves, LDS, caches), take workgroups in order from a shared
 * counter and run them in turns. After every turn all of them meet: each
 * has dropped its translated pointers, and the engine thread alone raises
 * the interrupts and reports the first fault or error the turn produced,
 * then passes the preemption point. So stop() and set_active(false) act
 * as with one thread, and every env callback but translate and gpu_clock
 * (thread-safe in kfdsim and the test environment) stays on the engine
 * thread. Workgroups are handed out in order, so a workgroup that waits
 * for an earlier one (a look-back scan) waits for one that runs. */
#define ISA_MAX_THREADS 8

static unsigned isa_threads(void)
{
	const char *e = getenv("VKFDSIM_ISA_THREADS");
	long n = e ? strtol(e, NULL, 10) : 1;

	return n < 1 ? 1u : n > ISA_MAX_THREADS ? ISA_MAX_THREADS : (unsigned)n;
}

struct isa_par {
	struct sim_engine_queue *q;
	const struct launch *l;
	const struct aql_dispatch_packet *pkt;
	unsigned nworkers;
	uint64_t total; /* workgroups */
	_Atomic uint64_t next;
	pthread_mutex_t lock;
	pthread_cond_t arrived_cv, turn_cv;
	/* under lock */
	unsigned arrived, busy;
	uint64_t turn;
	bool quit;
	enum isa_result err; /* first error of the turn, ISA_NEXT if none */
	uint64_t fault_va;
	bool fault_write;
	uint32_t irq[ISA_MAX_THREADS];
	unsigned nirq;
	uint64_t instructions;
};

struct isa_worker {
	struct isa_par *par;
	struct isa_ctx *c; /* NULL: no host memory for a context */
	bool has_wg;
	pthread_t thread;
};

/* The worker's turn: take a workgroup if it has none, run one step of it,
 * drop translations; then record what the turn produced. */
static void worker_turn(struct isa_worker *wk)
{
	struct isa_par *p = wk->par;
	struct isa_ctx *c = wk->c;
	enum isa_result r = ISA_NEXT;

	if (!c) {
		r = ISA_ILLEGAL;
	} else {
		if (!wk->has_wg) {
			uint64_t i = atomic_fetch_add(&p->next, 1);

			if (i < p->total) {
				const struct launch *l = p->l;
				uint32_t wgid[3] = {(uint32_t)(i % l->nwg[0]),
						    (uint32_t)(i / l->nwg[0] % l->nwg[1]),
						    (uint32_t)(i / l->nwg[0] / l->nwg[1])};

				wk->has_wg = true;
				if (!wg_start(c, l, wgid))
					r = ISA_ILLEGAL;
			}
		}
		if (wk->has_wg && r == ISA_NEXT) {
			r = wg_step(c);
			if (r == ISA_END) {
				wk->has_wg = false;
				r = ISA_NEXT;
			}
		}
		isa_mem_flush(c);
	}
	pthread_mutex_lock(&p->lock);
	if (r != ISA_NEXT && p->err == ISA_NEXT) {
		p->err = r;
		if (r == ISA_FAULT) {
			p->fault_va = c->fault_va;
			p->fault_write = c->fault_write;
		}
	}
	if (c && c->has_irq) {
		p->irq[p->nirq++] = c->irq; /* at most one per worker and turn */
		c->has_irq = false;
	}
	p->busy += wk->has_wg;
	pthread_mutex_unlock(&p->lock);
}

static void *helper_main(void *arg)
{
	struct isa_worker *wk = arg;
	struct isa_par *p = wk->par;

	wk->c = thread_ctx(p->q);
	if (wk->c) {
		prepare_ctx(wk->c, p->pkt);
		wk->c->defer_reports = true;
	}
	for (;;) {
		uint64_t turn;
		bool quit;

		worker_turn(wk);
		pthread_mutex_lock(&p->lock);
		turn = p->turn;
		p->arrived++;
		pthread_cond_signal(&p->arrived_cv);
		while (p->turn == turn)
			pthread_cond_wait(&p->turn_cv, &p->lock);
		quit = p->quit;
		pthread_mutex_unlock(&p->lock);
		if (quit)
			break;
	}
	if (wk->c) {
		pthread_mutex_lock(&p->lock);
		p->instructions += wk->c->instructions;
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* The engine thread's side of the end of a turn: wait for the helpers,
 * report, pass the preemption point, start the next turn. ENGINE_OK to go
 * on; *done when every workgroup ended. */
static enum engine_status end_turn(struct isa_par *p, bool *done)
{
	enum engine_status st = ENGINE_OK;
	uint32_t irq[ISA_MAX_THREADS];
	unsigned nirq;
	enum isa_result err;

	pthread_mutex_lock(&p->lock);
	while (p->arrived < p->nworkers - 1)
		pthread_cond_wait(&p->arrived_cv, &p->lock);
	/* every worker holds no translated pointer now */
	nirq = p->nirq;
	memcpy(irq, p->irq, sizeof(irq));
	p->nirq = 0;
	err = p->err;
	*done = p->busy == 0 && atomic_load(&p->next) >= p->total;
	p->busy = 0;
	pthread_mutex_unlock(&p->lock);

	for (unsigned i = 0; i < nirq && st == ENGINE_OK; i++)
		if (!engine_raise_interrupt(p->q, irq[i]))
			st = ENGINE_STOPPED;
	if (st == ENGINE_OK && err != ISA_NEXT) {
		if (err == ISA_FAULT) {
			engine_vm_fault(p->q, p->fault_va, p->fault_write);
			st = ENGINE_DEAD;
		} else if (err == ISA_STOPPED) {
			st = ENGINE_STOPPED;
		} else {
			engine_queue_error(p->q, err == ISA_TRAP ? SIM_QERR_TRAP
								 : SIM_QERR_ILLEGAL_INSTRUCTION);
			st = ENGINE_DEAD;
		}
	}
	if (st == ENGINE_OK && !*done && !engine_checkpoint(p->q))
		st = ENGINE_STOPPED;

	pthread_mutex_lock(&p->lock);
	p->quit = st != ENGINE_OK || *done;
	p->arrived = 0;
	p->turn++;
	pthread_cond_broadcast(&p->turn_cv);
	pthread_mutex_unlock(&p->lock);
	return st;
}

static enum engine_status run_parallel(struct isa_ctx *c, const struct launch *l,
				       const struct aql_dispatch_packet *pkt, unsigned threads)
{
	struct isa_worker wk[ISA_MAX_THREADS];
	struct isa_par p;
	enum engine_status st = ENGINE_OK;
	unsigned started = 1;
	bool done = false;

	memset(&p, 0, sizeof(p));
	p.q = c->q;
	p.l = l;
	p.pkt = pkt;
	p.total = (uint64_t)l->nwg[0] * l->nwg[1] * l->nwg[2];
	atomic_init(&p.next, 0);
	p.err = ISA_NEXT;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.arrived_cv, NULL);
	pthread_cond_init(&p.turn_cv, NULL);
	p.nworkers = threads;
	memset(wk, 0, sizeof(wk));
	wk[0].par = &p;
	wk[0].c = c;
	for (; started < threads; started++) {
		wk[started].par = &p;
		if (pthread_create(&wk[started].thread, NULL, helper_main, &wk[started]) != 0)
			break;
	}
	/* fewer helpers than asked for (no thread): run with those */
	pthread_mutex_lock(&p.lock);
	p.nworkers = started;
	pthread_mutex_unlock(&p.lock);
	c->defer_reports = true;
	while (st == ENGINE_OK && !done) {
		worker_turn(&wk[0]);
		st = end_turn(&p, &done);
	}
	for (unsigned i = 1; i < started; i++)
		pthread_join(wk[i].thread, NULL);
	c->defer_reports = false;
	c->instructions += p.instructions;
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.arrived_cv);
	pthread_cond_destroy(&p.turn_cv);
	return st;
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
			enum engine_status st, unsigned threads)
{
	uint64_t ns = now_ns() - t0;

	fprintf(stderr,
		"kfdsim isa: dispatch %#" PRIx64 " grid %ux%ux%u wg %ux%ux%u: %" PRIu64
		" wave instructions in %.3f ms (%.2f M/s, %u thread%s)%s\n",
		l->entry, l->grid[0], l->grid[1], l->grid[2], l->wg[0], l->wg[1], l->wg[2],
		c->instructions, (double)ns / 1e6,
		ns ? (double)c->instructions * 1e3 / (double)ns : 0.0, threads,
		threads > 1 ? "s" : "", st == ENGINE_OK ? "" : " (did not complete)");
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
	unsigned threads;
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

	prepare_ctx(c, pkt);
	t0 = stats_enabled() ? now_ns() : 0;
	st = ENGINE_OK;
	threads = isa_threads();
	if (threads > 1 && (uint64_t)l.nwg[0] * l.nwg[1] * l.nwg[2] > 1) {
		st = run_parallel(c, &l, pkt, threads);
	} else {
		for (wgid[2] = 0; wgid[2] < l.nwg[2] && st == ENGINE_OK; wgid[2]++)
			for (wgid[1] = 0; wgid[1] < l.nwg[1] && st == ENGINE_OK; wgid[1]++)
				for (wgid[0] = 0; wgid[0] < l.nwg[0] && st == ENGINE_OK; wgid[0]++)
					st = run_workgroup(c, &l, wgid);
	}
	if (t0)
		print_stats(c, &l, t0, st, threads);
	return st;
}
