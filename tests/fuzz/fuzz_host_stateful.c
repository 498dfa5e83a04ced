// SPDX-License-Identifier: MIT
/*
 * Stateful, structure-aware libFuzzer harness of the host library over
 * kfdsim. The input is not a batch but a program: a sequence of operations
 * (one opcode byte, then the argument bytes that operation reads), run by a
 * model guest that keeps what a real guest keeps across batches: the GPU id,
 * live BO handles with their VA, size and blob size, queues, events, bound
 * blob ids. Most operations therefore build *valid* requests naming live
 * objects, so the fuzzer gets past the argument checks into the state the
 * host keeps: exports of bound blobs (get_blob, mapped and touched), event
 * pages, queues and their doorbells, waits on rings, asynchronous batches
 * left queued while time passes, a second context allocating next to the
 * first, and context destroy at any point. An odd first seqno makes the
 * model a protocol 1.1 guest (docs/protocol.md 14): allocations may then
 * name guest-chosen handles (often hostile ones) and go without a reply.
 *
 * Besides the sanitizers, the harness checks rules of docs/protocol.md that
 * a crash would not show (each a __builtin_trap(), so libFuzzer reports it):
 *  - CREATE_EVENT accepts a page only with 4096 x 8 bytes of memory behind it;
 *  - a BO allocated at VA 0 is never mapped;
 *  - a blob's fd holds at least the size get_blob reported (touched through
 *    a mapping: a short export is a SIGBUS);
 *  - AVAILABLE_MEMORY does not move when another context allocates;
 *  - a blob id bound to a live BO (by a submitted batch) is exported on the
 *    first get_blob of it with the BO's blob size, however much work is
 *    still queued (not checked for BOs allocated without a reply);
 *  - a synchronous ALLOC with a guest-chosen handle answers that handle;
 *  - get_blob answers without waiting for queued work (bounded by the
 *    libFuzzer -timeout: a stall is reported as a timeout), also for an id
 *    bound to a BO an ALLOC_MEMORY_ASYNC not yet run creates: that bind is
 *    refused at submit, so such a get_blob fails (docs/protocol.md 14.4);
 *  - arenas (docs/protocol.md 9.4.1): an arena's blob exports with the
 *    arena's size; the host never accepts a BO over a range another live BO
 *    of the arena holds; a new arena BO's range reads as zero through the
 *    arena's mapping, whatever the previous BO there wrote; DESTROY_ARENA
 *    with a live BO in it is never accepted (BOs allocated without a reply
 *    are not held to the range and busy rules: the host may have refused
 *    them);
 *  - ALLOC_USERPTR_PIECES (9.4.2): accepted only with every piece inside a
 *    live arena and the sizes adding up; pages no live BO held read zero;
 *    their pages count as held for the range and busy rules above.
 *  - a map barrier word the guest sets to anything (docs/protocol.md 14.5)
 *    holds at most this context's doorbells: destroy still returns
 *    (bounded by the -timeout, as above).
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kfd_uapi_ext.h"
#include "vkfd/host.h"
#include "vkfd_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BOS          32
#define MAX_QUEUES       4
#define MAX_EVENTS       16
#define MAX_BLOBS        32
#define EVENT_PAGE       (4096u * 8u)
#define PAGE             4096ull
#define FIRST_VA         0x7f0000000000ull
#define NEIGHBOUR_MB     192ull
#define MAX_BOS_QUOTA    64           /* cfg.quota.max_bos: also the blob-id limit */
#define MAX_ARENAS       4            /* the model's arena ids 1..4; it also names 0 and 5.. */
#define MAX_MODEL_PIECES 4            /* pieces of one ALLOC_USERPTR_PIECES the model sends */
#define ARENA_BLOB       (1ull << 40) /* arena blob ids: apart from BO blob ids */

/* ---- input cursor --------------------------------------------------- */

struct cursor {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct cursor *c)
{
	if (!c->n)
		return 0;
	c->n--;
	return *c->p++;
}

static uint32_t u16(struct cursor *c)
{
	uint32_t lo = u8(c);

	return lo | (uint32_t)u8(c) << 8;
}

/* ---- the model guest ------------------------------------------------ */

struct bo {
	uint64_t handle, va, size, blob_size;
	uint32_t flags, map_flags;
	bool live;
	bool maybe;      /* allocated without a reply: the host may have refused it */
	bool unborn;     /* its ALLOC_MEMORY_ASYNC is in the batch not yet submitted */
	bool event_page; /* FREE refuses it: it stays alive on the host */
	uint32_t arena;  /* 1..MAX_ARENAS: its memory is [arena_off, +size) there */
	uint64_t arena_off;
	/* ALLOC_USERPTR_PIECES: the arena ranges it holds */
	uint32_t n_pieces;
	struct {
		uint32_t arena;
		uint64_t off, size;
	} pieces[MAX_MODEL_PIECES];
};

/* An arena the model created; `map` its blob, once exported and mapped. */
struct arena_rec {
	bool live;
	uint64_t size, blob_id;
	uint8_t *map;
};

/* A blob id this guest bound. `sure` when the host must export it: bound to
 * a live BO by a fresh id within the id quota, its batch submitted, the BO
 * not freed since and the id not exported yet. */
struct blob_rec {
	uint64_t id, handle;
	uint32_t slot;
	bool sure, submitted, exported;
	/* bound in the batch of its BO's ALLOC_MEMORY_ASYNC (or before), the
	 * handle naming no other BO the host may hold: the bind is refused at
	 * submit and get_blob of the id must fail (docs/protocol.md 14.4) */
	bool doomed;
};

struct guest {
	struct vkfd_host_context *ctx;
	struct vkfd_blob shm_blob;
	uint8_t *shm;
	uint8_t *batch;
	struct vkfd_builder b;
	uint32_t first_seqno, rsp_next;
	uint32_t gpu_id;
	struct vkfd_aperture ap;
	uint64_t next_va;
	struct bo bos[MAX_BOS];
	uint64_t queues[MAX_QUEUES];
	uint32_t events[MAX_EVENTS];
	uint32_t n_events;
	struct blob_rec blobs[MAX_BLOBS];
	uint32_t n_blob_ids;
	uint32_t n_sure; /* sure ids bound to live BOs: the host holds them */
	uint64_t next_blob_id;
	uint64_t next_fence;
	struct arena_rec arenas[MAX_ARENAS + 1]; /* [0] unused */
	uint64_t next_arena_blob;
	bool v11;          /* HELLO asked for protocol 1.1's guest handles and async alloc */
	bool frees_queued; /* a FREE sent since the last answered call */
	bool unknown_bos;  /* op_raw may have made BOs the model does not know */
};

static uint8_t batch_a[VKFD_MAX_BATCH_SIZE], batch_b[VKFD_MAX_BATCH_SIZE];
static int lib_ready;

static void no_retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	(void)cookie;
	(void)ctx_id;
	(void)ring;
	(void)fence_id;
}

static void lib_init(void)
{
	struct vkfd_host_config cfg;

	setenv("VKFD_DEBUG", "none", 0);
	/* small enough that the neighbour's allocations move the device's free
	 * VRAM below this context's quota */
	setenv("VKFDSIM_VRAM_MB", "384", 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.device = VKFD_DEVICE_SIM;
	cfg.retire_fence = no_retire;
	cfg.quota.vram_bytes = 256ull << 20;
	cfg.quota.gtt_bytes = 256ull << 20;
	cfg.quota.max_bos = MAX_BOS_QUOTA;
	cfg.quota.max_queues = MAX_QUEUES;
	cfg.quota.max_events = MAX_EVENTS;
	cfg.quota.max_pending_waits = 4;
	if (vkfd_host_init(&cfg) == 0)
		lib_ready = 1;
}

static void flush(struct guest *g)
{
	if (g->b.len && vkfd_host_context_submit_cmd(g->ctx, g->batch, g->b.len) == 0)
		for (uint32_t i = 0; i < g->n_blob_ids; i++)
			g->blobs[i].submitted = true;
	for (uint32_t i = 0; i < MAX_BOS; i++)
		g->bos[i].unborn = false;
	vkfd_builder_reset(&g->b);
}

/* Queue a request; its response slot offset, or UINT32_MAX if it did not fit. */
static uint32_t add(struct guest *g, uint32_t cmd, void *req, uint32_t len, uint32_t *seq)
{
	uint32_t need = (vkfd_rsp_size(cmd, req, len) + 7u) & ~7u, off;

	if (need < sizeof(struct vkfd_rsp_hdr))
		need = sizeof(struct vkfd_rsp_hdr);
	if (g->rsp_next + need > VKFD_RSP_AREA_SIZE)
		g->rsp_next = 0;
	off = g->rsp_next;
	if (vkfd_builder_add(&g->b, cmd, req, len, off, seq) == -ENOSPC) {
		flush(g);
		if (vkfd_builder_add(&g->b, cmd, req, len, off, seq))
			return UINT32_MAX;
	}
	g->rsp_next += need;
	return off;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait until the header passed seq (the guest's own window). */
static bool wait_seq(struct guest *g, uint32_t seq)
{
	const struct vkfd_shmem_hdr *h = (const void *)g->shm;
	uint64_t t0 = now_ms();

	while (!vkfd_seqno_processed(vkfd_load_acquire_u32(&h->seqno), seq, g->first_seqno - 1,
				     g->b.seqno - 1)) {
		if (vkfd_load_acquire_u32(&h->async_error) || now_ms() - t0 > 20000)
			return false;
		sched_yield();
	}
	return true;
}

/* A synchronous call: its `ret`, the response copied into rsp. */
static int call(struct guest *g, uint32_t cmd, void *req, uint32_t len, void *rsp, size_t rsp_len)
{
	const struct vkfd_rsp_hdr *rh;
	uint32_t seq = 0, off = add(g, cmd, req, len, &seq);

	if (off == UINT32_MAX)
		return -ENOSPC;
	flush(g);
	if (!wait_seq(g, seq))
		return -EIO;
	g->frees_queued = false; /* the executor ran every request before it */
	rh = (const void *)vkfd_shmem_rsp(g->shm, off);
	if (vkfd_load_acquire_u32(&rh->seqno) != seq)
		return -EPROTO;
	if (rsp)
		memcpy(rsp, rh, rsp_len);
	return rh->ret;
}

static void async(struct guest *g, uint32_t cmd, void *req, uint32_t len)
{
	add(g, cmd, req, len, NULL);
}

static bool guest_open(struct guest *g, uint32_t ctx_id, uint32_t first_seqno)
{
	struct vkfd_req_hello hello;
	struct vkfd_req_get_process_apertures ga;
	struct vkfd_rsp_get_process_apertures gr;
	struct vkfd_req_gpu acq;

	if (vkfd_host_context_create(ctx_id, "fuzz", NULL, &g->ctx))
		return false;
	if (vkfd_host_context_get_blob(g->ctx, 0, 0, VKFD_SHMEM_SIZE, 1, &g->shm_blob))
		return false;
	/* writable: a 1.1 guest writes the map barrier word */
	g->shm = mmap(NULL, VKFD_SHMEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, g->shm_blob.fd, 0);
	if (g->shm == MAP_FAILED) {
		g->shm = NULL;
		return false;
	}
	g->first_seqno = first_seqno;
	vkfd_builder_init(&g->b, g->batch, VKFD_MAX_BATCH_SIZE, first_seqno);
	g->next_va = FIRST_VA;
	g->next_blob_id = 1;
	g->next_fence = 1;
	memset(&hello, 0, sizeof(hello));
	hello.version_min = 1;
	hello.version_max = 1;
	hello.features = VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES;
	g->next_arena_blob = ARENA_BLOB;
	/* an odd first seqno: a protocol 1.1 guest (docs/protocol.md 14) */
	g->v11 = first_seqno & 1;
	if (g->v11)
		hello.features |=
		    VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC | VKFD_FEAT_ASYNC_MAP;
	if (call(g, VKFD_CMD_HELLO, &hello, sizeof(hello), NULL, 0))
		return false;
	memset(&ga, 0, sizeof(ga));
	ga.max_nodes = VKFD_MAX_GPUS;
	if (call(g, VKFD_CMD_GET_PROCESS_APERTURES, &ga, sizeof(ga), &gr, sizeof(gr)) ||
	    gr.num_nodes < 1)
		return false;
	g->ap = gr.apertures[0];
	g->gpu_id = gr.apertures[0].gpu_id;
	memset(&acq, 0, sizeof(acq));
	acq.gpu_id = g->gpu_id;
	return call(g, VKFD_CMD_ACQUIRE_VM, &acq, sizeof(acq), NULL, 0) == 0;
}

static void guest_close(struct guest *g)
{
	for (uint32_t i = 1; i <= MAX_ARENAS; i++) {
		if (g->arenas[i].map)
			munmap(g->arenas[i].map, g->arenas[i].size);
		g->arenas[i].map = NULL;
	}
	if (g->ctx)
		vkfd_host_context_destroy(g->ctx);
	if (g->shm)
		munmap(g->shm, VKFD_SHMEM_SIZE);
	if (g->shm_blob.fd > 0)
		close(g->shm_blob.fd);
	g->ctx = NULL;
	g->shm = NULL;
	g->shm_blob.fd = -1;
}

static struct bo *pick_bo(struct guest *g, struct cursor *c)
{
	struct bo *b = &g->bos[u8(c) % MAX_BOS];

	return b->live ? b : NULL;
}

/* ---- operations ----------------------------------------------------- */

static const uint32_t alloc_flags[] = {
    KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE,
    KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE,
    KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM,
    KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM,
    KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | VKFD_KFD_ALLOC_WRITABLE,
    KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP | VKFD_KFD_ALLOC_WRITABLE,
    KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED,
};

static void op_alloc(struct guest *g, struct cursor *c)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	uint32_t slot = u8(c) % MAX_BOS, fl = u8(c), pages = 1u + u8(c) % 16u, where = u8(c) % 8;
	struct bo *b = &g->bos[slot];

	if (b->live)
		return;
	memset(&r, 0, sizeof(r));
	r.gpu_id = g->gpu_id;
	r.flags = alloc_flags[fl % (sizeof(alloc_flags) / sizeof(alloc_flags[0]))];
	r.size = (uint64_t)pages * PAGE;
	if (r.flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM)
		r.size *= 2;
	if (r.flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL)
		r.size = VKFD_KFD_DOORBELL_SLICE;
	if (r.flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)
		r.size = PAGE;
	if (fl & 0x80)
		r.size = (uint64_t)(1u + u8(c)) << 20; /* a big one */
	switch (where) {
	case 0:
		r.va = 0; /* VRAM for export only */
		break;
	case 1:
		r.va = g->ap.gpuvm_base;
		break;
	case 2:
		r.va = g->next_va - PAGE; /* overlaps the last one */
		break;
	default:
		r.va = g->next_va;
		g->next_va += (r.size + 0x1fffff) & ~0x1fffffull;
	}
	if (g->v11 && (fl & 0x40)) {
		/* a guest-chosen handle, often hostile: index 0, past the
		 * quota, live, or a generation that is not the slot's next;
		 * sent without a reply (the host may lose the context) or
		 * with one */
		uint8_t h = u8(c);
		uint32_t idx = (h & 0x3f) == 0x3f ? MAX_BOS_QUOTA + 1u : h & 0x3fu;

		r.new_handle = VKFD_HANDLE(idx, 1u + ((h >> 6) & 1));
		if (h & 0x80) {
			async(g, VKFD_CMD_ALLOC_MEMORY_ASYNC, &r, sizeof(r));
			*b = (struct bo){.handle = r.new_handle,
					 .va = r.va,
					 .size = r.size,
					 .blob_size = r.size,
					 .flags = r.flags,
					 .live = true,
					 .maybe = true,
					 .unborn = true};
			return;
		}
	}
	if (call(g, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)))
		return;
	if (r.new_handle && rsp.handle != r.new_handle)
		__builtin_trap(); /* the host must use the handle it was given */
	*b = (struct bo){.handle = rsp.handle,
			 .va = r.va,
			 .size = r.size,
			 .blob_size = rsp.blob_size,
			 .flags = r.flags,
			 .map_flags = rsp.map_flags,
			 .live = true};
	if (rsp.blob_size > r.size)
		__builtin_trap(); /* a blob larger than the BO */
}

static void op_map(struct guest *g, struct cursor *c, bool map)
{
	struct vkfd_req_map_memory r;
	struct vkfd_rsp_map_memory rsp;
	struct bo *b = pick_bo(g, c);
	int ret;

	if (!b)
		return;
	memset(&r, 0, sizeof(r));
	r.handle = b->handle;
	r.n_devices = 1;
	r.device_ids[0] = g->gpu_id;
	ret = call(g, map ? VKFD_CMD_MAP_MEMORY : VKFD_CMD_UNMAP_MEMORY, &r,
		   VKFD_REQ_MAP_MEMORY_LEN(1), &rsp, sizeof(rsp));
	/* a BO without a GPU VA passed no VA check: it must never be mapped */
	if (map && ret == 0 && b->va == 0)
		__builtin_trap();
}

static void op_queue_cmd(struct guest *g, struct cursor *c);

/* MAP_MEMORY_ASYNC (docs/protocol.md 14.5), announced in the map barrier
 * as a guest does, sometimes after a burst of doorbell notifies of a queue
 * so that the relay holds them; or a hostile barrier word (anything,
 * including values far ahead of every seqno): it may stall only this
 * context's doorbells, and destroy must still return. A MAP the host
 * cannot run loses the context, which the model then only tears down. */
static void op_async_map(struct guest *g, struct cursor *c)
{
	struct vkfd_shmem_hdr *h = (struct vkfd_shmem_hdr *)g->shm;
	uint8_t what = u8(c);
	struct vkfd_req_map_memory r;
	struct bo *b;
	uint32_t s;

	if ((what & 3) == 1) {
		uint32_t v = u16(c) << 16 | u16(c);

		__atomic_store_n(&h->map_barrier, (what & 4) ? g->b.seqno + v % 64u : v,
				 __ATOMIC_RELEASE);
		return;
	}
	b = pick_bo(g, c);
	if (!b)
		return;
	memset(&r, 0, sizeof(r));
	r.handle = b->handle;
	r.n_devices = 1;
	r.device_ids[0] = (what & 8) ? g->gpu_id ^ 0x5a5a : g->gpu_id;
	s = g->b.seqno;
	async(g, VKFD_CMD_MAP_MEMORY_ASYNC, &r, VKFD_REQ_MAP_MEMORY_LEN(1));
	if ((what & 3) != 3)
		__atomic_store_n(&h->map_barrier, s, __ATOMIC_RELEASE);
	if (what & 0x10) {
		uint8_t qb[2] = {(uint8_t)(what >> 5), 0};
		struct cursor qc = {qb, sizeof(qb)};

		op_queue_cmd(g, &qc); /* one notify behind the MAP, still queued */
	}
}

static void op_free(struct guest *g, struct cursor *c)
{
	struct vkfd_req_handle r;
	struct bo *b = pick_bo(g, c);

	if (!b)
		return;
	memset(&r, 0, sizeof(r));
	r.handle = b->handle;
	async(g, VKFD_CMD_FREE_MEMORY, &r, sizeof(r));
	g->frees_queued = true;
	if (b->event_page)
		return; /* refused (-EPERM): it and its ids stay */
	b->live = false;
	/* its ids are gone */
	for (uint32_t i = 0; i < g->n_blob_ids; i++) {
		if (g->blobs[i].handle != b->handle || !g->blobs[i].sure)
			continue;
		g->blobs[i].sure = false;
		g->n_sure--;
	}
}

/* Is b's ALLOC_MEMORY_ASYNC not submitted yet, and its handle that of no
 * other BO the host may hold (a live one, or one a queued FREE has not
 * freed yet)? Then no BO has that handle when a bind queued now is
 * submitted. */
static bool bo_unborn_alone(const struct guest *g, const struct bo *b)
{
	if (!b->unborn || g->frees_queued || g->unknown_bos)
		return false;
	for (uint32_t i = 0; i < MAX_BOS; i++)
		if (&g->bos[i] != b && g->bos[i].live && g->bos[i].handle == b->handle)
			return false;
	return true;
}

static void op_bind(struct guest *g, struct cursor *c)
{
	struct vkfd_req_bind_blob r;
	struct bo *b = pick_bo(g, c);
	uint8_t how = u8(c);

	bool fresh = !((how & 1) && g->n_blob_ids);

	memset(&r, 0, sizeof(r));
	r.handle = b ? b->handle : (uint64_t)how << 32 | 1u; /* a guessed handle */
	r.blob_id = fresh ? g->next_blob_id++ : g->blobs[how % g->n_blob_ids].id;
	async(g, VKFD_CMD_BIND_BLOB, &r, sizeof(r));
	if (!fresh)
		g->blobs[how % g->n_blob_ids].doomed = false; /* bound again, maybe now */
	if (fresh && g->n_blob_ids < MAX_BLOBS) {
		struct blob_rec *rec = &g->blobs[g->n_blob_ids++];

		*rec = (struct blob_rec){
		    .id = r.blob_id, .handle = r.handle, .doomed = b && bo_unborn_alone(g, b)};
		/* an arena BO's mapping is its arena's blob: never bound */
		if (b && !b->maybe &&
		    !(b->map_flags & (VKFD_ALLOC_MAP_NONE | VKFD_ALLOC_MAP_ARENA)) &&
		    g->n_sure < MAX_BOS_QUOTA) {
			rec->sure = true;
			rec->slot = (uint32_t)(b - g->bos);
			g->n_sure++;
		}
	}
	if (how & 2)
		flush(g);
}

/* The VMM's get_blob, often while work is still queued; the blob is mapped
 * and its last byte read. */
static void op_get_blob(struct guest *g, struct cursor *c)
{
	struct vkfd_blob blob;
	uint8_t how = u8(c);
	struct bo *b = pick_bo(g, c);
	uint64_t id, size;
	void *p;

	struct blob_rec *rec;
	bool must;
	int ret;

	if (!g->n_blob_ids)
		return;
	rec = &g->blobs[how % g->n_blob_ids];
	id = rec->id;
	if (how & 4)
		b = rec->sure ? &g->bos[rec->slot] : NULL; /* the right size */
	size = b ? b->blob_size : (uint64_t)(1u + (how >> 4)) * PAGE;
	must = (how & 4) && rec->sure && rec->submitted && !rec->exported;
	ret = vkfd_host_context_get_blob(g->ctx, 1, id, size, (how & 8) ? 3 : 1, &blob);
	/* an id bound to a live BO is exported once, whatever else is queued */
	if (must && ret && !vkfd_load_acquire_u32(&((struct vkfd_shmem_hdr *)g->shm)->async_error))
		__builtin_trap();
	/* a bind of a BO not yet created is refused, never completed later */
	if (rec->doomed && ret == 0)
		__builtin_trap();
	if (ret)
		return;
	rec->exported = true;
	if (blob.size != size)
		__builtin_trap(); /* the export must be the size asked for */
	p = mmap(NULL, blob.size, PROT_READ, MAP_SHARED, blob.fd, 0);
	if (p != MAP_FAILED) {
		/* the memory behind the fd covers the whole blob */
		volatile const uint8_t *last = (const uint8_t *)p + blob.size - 1;

		(void)*last;
		munmap(p, blob.size);
	}
	close(blob.fd);
}

static void op_create_event(struct guest *g, struct cursor *c)
{
	struct vkfd_req_create_event r;
	struct vkfd_rsp_create_event rsp;
	struct bo *b = pick_bo(g, c);
	uint8_t how = u8(c);

	if (g->n_events >= MAX_EVENTS)
		return;
	memset(&r, 0, sizeof(r));
	r.event_page = b ? b->handle : 0;
	r.event_type = (how & 3) == 3 ? KFD_IOC_EVENT_MEMORY : KFD_IOC_EVENT_SIGNAL;
	r.auto_reset = (how >> 2) & 1;
	if (call(g, VKFD_CMD_CREATE_EVENT, &r, sizeof(r), &rsp, sizeof(rsp)))
		return;
	if (b)
		b->event_page = true;
	/* the kernel writes a whole page through the BO's memory */
	if (b && b->blob_size < EVENT_PAGE && r.event_type == KFD_IOC_EVENT_SIGNAL)
		__builtin_trap();
	g->events[g->n_events++] = rsp.event_id;
}

static void op_event(struct guest *g, struct cursor *c)
{
	struct vkfd_req_event r;
	uint8_t how = u8(c);

	if (!g->n_events)
		return;
	memset(&r, 0, sizeof(r));
	r.event_id = g->events[how % g->n_events];
	async(g, (how & 0x80) ? VKFD_CMD_RESET_EVENT_ASYNC : VKFD_CMD_SET_EVENT_ASYNC, &r,
	      sizeof(r));
}

static void op_wait(struct guest *g, struct cursor *c)
{
	struct vkfd_req_wait_events r;
	uint8_t how = u8(c), n = (uint8_t)(1u + u8(c) % 4u);

	if (!g->n_events)
		return;
	memset(&r, 0, sizeof(r));
	r.ring_idx = 1u + how % 8u;
	r.num_events = n;
	r.wait_for_all = (how >> 3) & 1;
	r.timeout_ms = (how & 0x40) ? 5 : 0;
	for (uint32_t i = 0; i < n; i++)
		r.events[i].event_id = g->events[(how + i) % g->n_events];
	async(g, VKFD_CMD_WAIT_EVENTS, &r, VKFD_REQ_WAIT_EVENTS_LEN(n));
	flush(g);
	vkfd_host_context_submit_fence(g->ctx, 0, r.ring_idx, g->next_fence++);
}

static void op_queue(struct guest *g, struct cursor *c)
{
	struct vkfd_req_create_queue r;
	struct vkfd_rsp_create_queue rsp;
	struct bo *ring = pick_bo(g, c), *ctl = pick_bo(g, c), *eop = pick_bo(g, c);
	uint8_t how = u8(c);
	uint32_t slot = how % MAX_QUEUES;

	if (!ring || !ctl || g->queues[slot])
		return;
	memset(&r, 0, sizeof(r));
	r.ring_base_address = ring->va;
	r.ring_size = (how & 0x10) ? (uint32_t)(ring->size / 2) : (uint32_t)ring->size;
	r.write_pointer_address = ctl->va;
	r.read_pointer_address = ctl->va + 0x80;
	r.gpu_id = g->gpu_id;
	r.queue_type = (how & 0x20) ? KFD_IOC_QUEUE_TYPE_SDMA : KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	r.queue_percentage = 100;
	r.queue_priority = 7;
	if (eop && (how & 0x40)) {
		r.eop_buffer_address = eop->va;
		r.eop_buffer_size = eop->size;
	}
	if (eop && (how & 0x80)) {
		r.ctx_save_restore_address = eop->va;
		r.ctx_save_restore_size = (uint32_t)eop->size;
		r.ctl_stack_size = (uint32_t)(u16(c) * 16u);
	}
	if (call(g, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)) == 0)
		g->queues[slot] = rsp.queue;
}

static void op_queue_cmd(struct guest *g, struct cursor *c)
{
	uint8_t how = u8(c);
	uint64_t q = g->queues[how % MAX_QUEUES];
	uint32_t n = 1u + u8(c) * 8u;

	if (!q)
		return;
	if (how & 0x80) {
		struct vkfd_req_handle r;

		memset(&r, 0, sizeof(r));
		r.handle = q;
		call(g, VKFD_CMD_DESTROY_QUEUE, &r, sizeof(r), NULL, 0);
		g->queues[how % MAX_QUEUES] = 0;
		return;
	}
	if (how & 0x40) {
		struct vkfd_req_update_queue r;

		memset(&r, 0, sizeof(r));
		r.queue = q;
		r.queue_percentage = (how & 1) ? 0 : 100;
		call(g, VKFD_CMD_UPDATE_QUEUE, &r, sizeof(r), NULL, 0);
		return;
	}
	/* a burst of notifies, left queued */
	for (uint32_t i = 0; i < n; i++) {
		struct vkfd_req_handle r;

		memset(&r, 0, sizeof(r));
		r.handle = q;
		async(g, VKFD_CMD_DOORBELL_NOTIFY, &r, sizeof(r));
	}
}

static uint64_t available(struct guest *g)
{
	struct vkfd_req_gpu r;
	struct vkfd_rsp_available_memory rsp;

	memset(&r, 0, sizeof(r));
	r.gpu_id = g->gpu_id;
	if (call(g, VKFD_CMD_AVAILABLE_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)))
		return UINT64_MAX;
	return rsp.available;
}

/* Another context allocates (and frees) VRAM: nothing this context is told
 * may move with it. */
static void op_neighbour(struct guest *g, struct guest *n, struct cursor *c)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	struct vkfd_req_handle f;
	uint64_t before, after;

	if (!n->ctx && !guest_open(n, 2, 1u + u8(c)))
		return;
	before = available(g);
	memset(&r, 0, sizeof(r));
	r.gpu_id = n->gpu_id;
	r.flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE;
	r.size = NEIGHBOUR_MB << 20;
	r.va = n->next_va;
	n->next_va += r.size;
	if (call(n, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)))
		return;
	after = available(g);
	if (before != UINT64_MAX && after != UINT64_MAX && before != after)
		__builtin_trap(); /* context 1 sees context 2's allocation */
	memset(&f, 0, sizeof(f));
	f.handle = rsp.handle;
	call(n, VKFD_CMD_FREE_MEMORY, &f, sizeof(f), NULL, 0);
}

/* Does b hold pages of model arena aid (its range there, or a piece)? */
static bool bo_in_arena(const struct bo *b, uint32_t aid, uint64_t off, uint64_t size)
{
	if (b->arena == aid && off < b->arena_off + b->size && b->arena_off < off + size)
		return true;
	for (uint32_t i = 0; i < b->n_pieces; i++)
		if (b->pieces[i].arena == aid && off < b->pieces[i].off + b->pieces[i].size &&
		    b->pieces[i].off < off + size)
			return true;
	return false;
}

/* The id sent for the model's arena id: 1..MAX_ARENAS as they are; 0 and
 * MAX_ARENAS + 1 name ids no arena can have (0, past VKFD_MAX_ARENAS), so
 * that the host never holds an arena the model does not track. */
static uint32_t wire_arena_id(uint32_t aid)
{
	return aid <= MAX_ARENAS ? aid : VKFD_MAX_ARENAS + 1u;
}

/* A request with fuzzed arguments but sane framing. */
/* CREATE_ARENA (sometimes at a bad id or size), DESTROY_ARENA, or the
 * arena's get_blob, mapped and kept for the zero checks. */
static void op_arena(struct guest *g, struct cursor *c)
{
	static const uint64_t sizes[] = {PAGE, 16 * PAGE, 1ull << 20,
					 0,    PAGE + 1,  (uint64_t)VKFD_MAX_ARENA_SIZE + PAGE};
	uint8_t what = u8(c), id = u8(c);
	uint32_t aid = id % (MAX_ARENAS + 2); /* 0 and MAX_ARENAS + 1: never live */
	struct arena_rec *a = aid >= 1 && aid <= MAX_ARENAS ? &g->arenas[aid] : NULL;

	if ((what & 3) == 0) {
		struct vkfd_req_create_arena r;
		uint64_t size = sizes[(id >> 4) % (sizeof(sizes) / sizeof(sizes[0]))];

		memset(&r, 0, sizeof(r));
		r.arena_id = (what & 4) ? 0xffffffffu : wire_arena_id(aid);
		r.size = size;
		r.blob_id = g->next_arena_blob++;
		if (call(g, VKFD_CMD_CREATE_ARENA, &r, sizeof(r), NULL, 0) || !a)
			return;
		if (a->live)
			__builtin_trap(); /* a live id created again */
		*a = (struct arena_rec){.live = true, .size = size, .blob_id = r.blob_id};
	} else if ((what & 3) == 1) {
		struct vkfd_req_destroy_arena r;
		bool busy = false;

		memset(&r, 0, sizeof(r));
		r.arena_id = wire_arena_id(aid);
		for (uint32_t i = 0; a && i < MAX_BOS; i++)
			busy |= g->bos[i].live && !g->bos[i].maybe &&
				bo_in_arena(&g->bos[i], aid, 0, UINT64_MAX);
		if (call(g, VKFD_CMD_DESTROY_ARENA, &r, sizeof(r), NULL, 0))
			return;
		if (!a || busy)
			__builtin_trap(); /* destroyed while a BO lives in it */
		if (a->map)
			munmap(a->map, a->size);
		*a = (struct arena_rec){0};
	} else if (a && a->live && !a->map) {
		struct vkfd_blob blob;
		void *p;

		if (vkfd_host_context_get_blob(g->ctx, 1, a->blob_id, a->size, 1, &blob))
			return;
		if (blob.size != a->size)
			__builtin_trap();
		p = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_SHARED, blob.fd, 0);
		close(blob.fd);
		if (p == MAP_FAILED)
			return;
		a->map = p;
		((volatile uint8_t *)a->map)[a->size - 1] = 0; /* covers the whole arena */
	}
}

/* ALLOC_MEMORY from an arena at an offset that fits, overlaps, sits at the
 * end or near 2^64. */
static void op_arena_alloc(struct guest *g, struct cursor *c)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	uint32_t slot = u8(c) % MAX_BOS, aid = u8(c) % (MAX_ARENAS + 2), where = u8(c);
	uint64_t pages = 1u + u8(c) % 8u;
	struct arena_rec *a = aid >= 1 && aid <= MAX_ARENAS ? &g->arenas[aid] : NULL;
	struct bo *b = &g->bos[slot];
	uint64_t asize = a && a->live ? a->size : 1ull << 20;

	if (b->live)
		return;
	memset(&r, 0, sizeof(r));
	r.gpu_id = g->gpu_id;
	r.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE;
	if (where & 0x40)
		r.flags |= KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
	if (where & 0x80)
		r.flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE;
	r.size = pages * PAGE;
	r.alloc_flags = VKFD_ALLOC_ARENA;
	r.arena_id = wire_arena_id(aid);
	switch (where & 7) {
	case 0:
		r.arena_offset = 0;
		break;
	case 1:
		r.arena_offset = asize > r.size ? asize - r.size : 0; /* the last pages */
		break;
	case 2:
		r.arena_offset = asize; /* just outside */
		break;
	case 3:
		r.arena_offset = ~0ull & ~(PAGE - 1); /* offset + size wraps */
		break;
	case 4:
		r.arena_offset = 3; /* unaligned */
		break;
	default:
		r.arena_offset = ((uint64_t)u8(c) * PAGE) % asize;
	}
	r.va = g->next_va;
	g->next_va += (r.size + 0x1fffff) & ~0x1fffffull;
	if (g->v11 && (where & 0x20)) {
		/* without a reply, under a guest-chosen (often hostile) handle as
		 * in op_alloc; the guest zeroes a range it can see, the host
		 * does not (docs/protocol.md 14.3) */
		uint8_t h = u8(c);
		uint32_t idx = (h & 0x3f) == 0x3f ? MAX_BOS_QUOTA + 1u : h & 0x3fu;

		r.new_handle = VKFD_HANDLE(idx, 1u + ((h >> 6) & 1));
		if (a && a->map && r.arena_offset % PAGE == 0 && r.arena_offset < a->size &&
		    r.size <= a->size - r.arena_offset)
			memset(a->map + r.arena_offset, 0, r.size);
		async(g, VKFD_CMD_ALLOC_MEMORY_ASYNC, &r, sizeof(r));
		*b = (struct bo){.handle = r.new_handle,
				 .va = r.va,
				 .size = r.size,
				 .blob_size = r.size,
				 .flags = r.flags,
				 .map_flags = VKFD_ALLOC_MAP_ARENA,
				 .live = true,
				 .maybe = true,
				 .unborn = true,
				 .arena = aid,
				 .arena_off = r.arena_offset};
		return;
	}
	if (call(g, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)))
		return;
	if (!a || !a->live || r.arena_offset + r.size > a->size ||
	    !(rsp.map_flags & VKFD_ALLOC_MAP_ARENA) || rsp.blob_size != r.size)
		__builtin_trap(); /* accepted outside a live arena, or answered wrong */
	for (uint32_t i = 0; i < MAX_BOS; i++) {
		const struct bo *o = &g->bos[i];

		if (o->live && !o->maybe && bo_in_arena(o, aid, r.arena_offset, r.size))
			__builtin_trap(); /* a range a live BO holds given to another */
	}
	*b = (struct bo){.handle = rsp.handle,
			 .va = r.va,
			 .size = r.size,
			 .blob_size = rsp.blob_size,
			 .flags = r.flags,
			 .map_flags = rsp.map_flags,
			 .live = true,
			 .arena = aid,
			 .arena_off = r.arena_offset};
	if (a->map) {
		/* zeroed before this BO existed; then written, so that the next
		 * BO over this range sees it if the host forgets to zero */
		for (uint64_t o = 0; o < r.size; o += PAGE / 2)
			if (a->map[r.arena_offset + o] || a->map[r.arena_offset + o + PAGE / 2 - 1])
				__builtin_trap();
		memset(a->map + r.arena_offset, 0xa5, r.size);
	}
}

/* ALLOC_USERPTR_PIECES (docs/protocol.md 9.4.2): one to four pieces, each
 * in one of the model's arena ids at a page that fits (often one a live
 * BO holds), the last pages, just outside, wrapping, unaligned, or with
 * 2^32 - 1 pages; the size their sum or a page more. Accepted, every piece
 * must lie in a live arena and the sizes add up; a page no live BO held
 * reads zero through the arena's mapping. */
static void op_pieces_alloc(struct guest *g, struct cursor *c)
{
	struct vkfd_req_alloc_userptr_pieces r;
	struct vkfd_rsp_alloc_memory rsp;
	uint32_t slot = u8(c) % MAX_BOS, n = 1u + u8(c) % MAX_MODEL_PIECES;
	uint32_t aids[MAX_MODEL_PIECES];
	struct bo *b = &g->bos[slot];
	uint64_t sum = 0;

	if (b->live)
		return;
	memset(&r, 0, sizeof(r));
	r.gpu_id = g->gpu_id;
	r.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE;
	r.n_pieces = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t aid = u8(c) % (MAX_ARENAS + 2), where = u8(c), pages = 1u + u8(c) % 4u;
		const struct arena_rec *a = aid >= 1 && aid <= MAX_ARENAS ? &g->arenas[aid] : NULL;
		uint64_t asize = a && a->live ? a->size : 1ull << 20, off;

		switch (where & 7) {
		case 0:
			off = 0;
			break;
		case 1:
			off = asize > pages * PAGE ? asize - pages * PAGE : 0;
			break;
		case 2:
			off = asize;
			break;
		case 3:
			off = ~0ull & ~(PAGE - 1);
			break;
		case 4:
			off = 3;
			break;
		case 5:
			off = 0;
			pages = 0xffffffffu;
			break;
		default:
			off = ((uint64_t)u8(c) * PAGE) % asize;
		}
		aids[i] = aid;
		r.pieces[i].arena_id = wire_arena_id(aid);
		r.pieces[i].arena_offset = off;
		r.pieces[i].pages = pages;
		sum += (uint64_t)pages * PAGE;
	}
	r.size = sum + ((u8(c) & 7) == 0 ? PAGE : 0);
	r.va = g->next_va;
	if (r.size <= (64ull << 20))
		g->next_va += (r.size + 0x1fffff) & ~0x1fffffull;
	if (call(g, VKFD_CMD_ALLOC_USERPTR_PIECES, &r, sizeof(r), &rsp, sizeof(rsp)))
		return;
	if (r.size != sum || !(rsp.map_flags & VKFD_ALLOC_MAP_ARENA) || rsp.blob_size != r.size)
		__builtin_trap(); /* sizes that do not add up, or answered wrong */
	for (uint32_t i = 0; i < n; i++) {
		const struct arena_rec *a =
		    aids[i] >= 1 && aids[i] <= MAX_ARENAS ? &g->arenas[aids[i]] : NULL;
		uint64_t off = r.pieces[i].arena_offset, len = (uint64_t)r.pieces[i].pages * PAGE;
		bool held = g->unknown_bos;

		if (!a || !a->live || off % PAGE || len > a->size || off > a->size - len)
			__builtin_trap(); /* a piece outside a live arena */
		for (uint32_t j = 0; j < MAX_BOS; j++)
			held |= g->bos[j].live && bo_in_arena(&g->bos[j], aids[i], off, len);
		for (uint32_t j = 0; j < i; j++)
			held |= aids[j] == aids[i];
		/* pages nobody held are new memory: zeroed */
		for (uint64_t o = 0; a->map && !held && o < len; o += PAGE / 2)
			if (a->map[off + o] || a->map[off + o + PAGE / 2 - 1])
				__builtin_trap();
	}
	*b = (struct bo){.handle = rsp.handle,
			 .va = r.va,
			 .size = r.size,
			 .blob_size = rsp.blob_size,
			 .flags = r.flags,
			 .map_flags = rsp.map_flags,
			 .live = true,
			 .n_pieces = n};
	for (uint32_t i = 0; i < n; i++) {
		b->pieces[i].arena = aids[i];
		b->pieces[i].off = r.pieces[i].arena_offset;
		b->pieces[i].size = (uint64_t)r.pieces[i].pages * PAGE;
	}
}

static void op_raw(struct guest *g, struct cursor *c)
{
	uint8_t req[64];
	uint32_t cmd = u8(c) % VKFD_CMD_COUNT_;

	/* the model must know which BOs, blob ids and arenas exist */
	if (cmd == VKFD_CMD_FREE_MEMORY || cmd == VKFD_CMD_BIND_BLOB ||
	    cmd == VKFD_CMD_CREATE_ARENA || cmd == VKFD_CMD_DESTROY_ARENA)
		cmd = VKFD_CMD_GET_VERSION;
	if (cmd == VKFD_CMD_ALLOC_MEMORY || cmd == VKFD_CMD_ALLOC_MEMORY_ASYNC ||
	    cmd == VKFD_CMD_IMPORT_RESOURCE || cmd == VKFD_CMD_ALLOC_USERPTR_PIECES)
		g->unknown_bos = true;
	memset(req, 0, sizeof(req));
	for (size_t i = sizeof(struct vkfd_req_hdr); i < sizeof(req); i++)
		req[i] = u8(c);
	if (vkfd_cmd_is_sync(cmd))
		call(g, cmd, req, sizeof(req), NULL, 0);
	else
		async(g, cmd, req, sizeof(req));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = {data, size};
	struct guest g, n;
	uint32_t first;

	if (!lib_ready)
		lib_init();
	if (!lib_ready || size < 4)
		return 0;
	memset(&g, 0, sizeof(g));
	memset(&n, 0, sizeof(n));
	g.batch = batch_a;
	n.batch = batch_b;
	g.shm_blob.fd = n.shm_blob.fd = -1;
	/* seqnos may start anywhere (docs/protocol.md 5.2) */
	first = u16(&c) << 16 | u16(&c);
	if (!guest_open(&g, 1, first))
		goto out;
	while (c.n) {
		/* opcodes 0..15 as before arenas (the committed seeds), 16, 17,
		 * 18 (pieces), 19 the asynchronous MAP */
		switch (u8(&c) % 20) {
		case 0:
		case 1:
			op_alloc(&g, &c);
			break;
		case 2:
			op_map(&g, &c, true);
			break;
		case 3:
			op_map(&g, &c, false);
			break;
		case 4:
			op_free(&g, &c);
			break;
		case 5:
			op_bind(&g, &c);
			break;
		case 6:
			op_get_blob(&g, &c);
			break;
		case 7:
			op_create_event(&g, &c);
			break;
		case 8:
			op_event(&g, &c);
			break;
		case 9:
			op_wait(&g, &c);
			break;
		case 10:
			op_queue(&g, &c);
			break;
		case 11:
			op_queue_cmd(&g, &c);
			break;
		case 12:
			op_neighbour(&g, &n, &c);
			break;
		case 13:
			/* time passes with work queued, or the queue drains */
			flush(&g);
			if (u8(&c) & 1)
				usleep(200);
			else
				vkfd_host_context_retire_fences(g.ctx);
			break;
		case 14:
			op_raw(&g, &c);
			break;
		case 16:
			op_arena(&g, &c);
			break;
		case 17:
			op_arena_alloc(&g, &c);
			break;
		case 18:
			op_pieces_alloc(&g, &c);
			break;
		case 19:
			op_async_map(&g, &c);
			break;
		default:
			/* destroy with whatever is queued or in flight */
			flush(&g);
			if (u8(&c) & 1)
				goto out;
			break;
		}
	}
	flush(&g);
out:
	guest_close(&n);
	guest_close(&g);
	return 0;
}
