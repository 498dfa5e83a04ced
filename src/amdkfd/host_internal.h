/* SPDX-License-Identifier: MIT */
/*
 * Internal state of the host library: the process-wide device and the
 * per-context objects. See docs/architecture.md for the threading model.
 *
 * Locking: each lock is described next to the data it guards (host_g.lock
 * in struct host_global, ctx->lock in struct vkfd_host_context). No KFD call
 * is made while holding ctx->lock, except EXPORT_DMABUF in get_blob, which
 * must not race with FREE of the same BO.
 */
#ifndef VKFD_HOST_INTERNAL_H
#define VKFD_HOST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "kfd_uapi_ext.h"
#include "vkfd/device.h"
#include "vkfd/host.h"
#include "vkfd_codec.h"
#include "vkfd_protocol.h"

#include "doorbell_relay.h"
#include "fence.h"
#include "host_lock.h"
#include "obj_table.h"
#include "shmem.h"
#include "topology.h"
#include "va_map.h"
#include "wait_order.h"
#include "wait_pool.h"

struct kfdsim;
struct host_stats;

#define HOST_MAX_GPUS TOPO_MAX_GPUS
/* GTT bytes a context may allocate asynchronously ahead of the executor
 * (docs/protocol.md 14.2); capped further by the GTT quota's headroom. */
#define HOST_ASYNC_GTT_WINDOW         (64ull << 20)
#define HOST_DEFAULT_MAX_BOS          65536u
#define HOST_DEFAULT_MAX_QUEUES       128u
#define HOST_DEFAULT_MAX_EVENTS       4096u
#define HOST_DEFAULT_MAX_WAITS        (VKFD_NUM_RINGS - 1)
#define HOST_DEFAULT_CONTEXTS_PER_GPU 8u
/* Bytes the host spends on batches queued but not yet executed, per
 * context: a guest that submits faster than its executor runs cannot grow
 * host memory without bound (512 maximum-size batches, or fewer tiny ones:
 * each batch is charged its whole allocation, see host_batch_cost()). */
#define HOST_MAX_QUEUED_BYTES (64u << 20)
/* What malloc spends per chunk beyond the bytes asked for (size header,
 * rounding to 16): charged so that tiny batches cost what they take. */
#define HOST_MALLOC_OVERHEAD          32u
#define HOST_QUEUE_SLOTS              (VKFD_KFD_DOORBELL_SLICE_SLOTS * HOST_MAX_GPUS)
#define VKFD_KFD_DOORBELL_SLICE_SLOTS 1024u /* 8 KiB of u64 doorbells */

/* Process-wide state (one device for all contexts). */
struct host_global {
	/* host_g.lock guards every field below. The device fields (cfg to
	 * topo_len) are written only under it by vkfd_host_init/_fini, while
	 * no context exists; contexts and their threads read them without it
	 * (an init happens-before the context's creation, which takes the
	 * lock). The context list, n_contexts and gpu_active change only
	 * under it. Functions that expect it held end in _locked. Never
	 * taken with a ctx->lock held. */
	pthread_mutex_t lock;
	bool inited;
	struct vkfd_host_config cfg;
	const struct vkfd_device_ops *ops;
	void *dev;
	struct kfdsim *sim;           /* owned when the device is kfdsim */
	struct vkfd_device_caps caps; /* what the device reported (query_caps) */
	struct topo_export topo;
	uint8_t *topo_blob; /* serialized export (vkfd_topo_put records) */
	size_t topo_len;
	uint32_t n_contexts;
	uint32_t gpu_active[HOST_MAX_GPUS]; /* contexts with queues per GPU */
	struct vkfd_host_context *contexts; /* list for reset */
};

extern struct host_global host_g;

enum bo_kind {
	BO_MEMORY = 0,
	BO_DOORBELL,
	BO_MMIO,
	BO_IMPORT,
};

struct host_arena;
struct host_alias;

struct host_bo {
	uint64_t handle;     /* opaque, guest visible */
	uint64_t kfd_handle; /* never leaves the host */
	uint64_t va, size;   /* guest request */
	uint64_t blob_size;  /* bytes of memory behind it (host_bo_backing_bytes) */
	uint64_t quota_bytes;
	uint32_t flags; /* KFD_IOC_ALLOC_MEM_FLAGS_* */
	uint32_t gpu;   /* exported GPU index */
	enum bo_kind kind;
	uint32_t map_info, map_flags;
	uint64_t mapped_mask;        /* bit g: mapped on exported GPU g */
	struct blob_entry *blob_ids; /* ids bound to this BO (bnext list) */
	bool freeing;                /* FREE in flight: get_blob must not export */
	bool event_page;
	bool in_va_map;
	int dmabuf_fd;            /* render-node allocation (KFD < 1.12), else -1 */
	struct host_arena *arena; /* memory is [arena_offset, +size) of it, or NULL */
	uint64_t arena_offset;
	struct host_alias *alias; /* ALLOC_USERPTR_PIECES: its arena ranges, or NULL */
};

/* A context's arena (docs/protocol.md 9.4.1): one sealed memfd exported as
 * one blob, whose page ranges back GTT BOs registered with KFD as USERPTR
 * of the host's own mapping. The executor alone creates, changes and
 * destroys arenas; get_blob reaches one only through the blob table, under
 * ctx->lock (host_arena.c). */
struct host_arena {
	uint32_t id;
	uint64_t size;
	uint64_t blob_id;        /* bound while the arena lives */
	struct shmem_region mem; /* memfd sealed against shrink and grow */
	uint16_t *refs;          /* per page: live BOs holding it (a page may back several) */
	uint32_t n_bos;          /* BO holds of ranges in it: destroy is -EBUSY */
};

/* The memory of an ALLOC_USERPTR_PIECES BO (docs/protocol.md 9.4.2): its
 * arena ranges, in order, each holding its pages, and the host's address
 * of them as one range: the arena's own mapping for one range, else a
 * private view that maps each range of its memfd back to back. KFD takes
 * the BO's pages through that view; it is unmapped after KFD freed the BO. */
struct host_alias_piece {
	struct host_arena *arena;
	uint64_t off, size;
};
struct host_alias {
	uint8_t *base; /* what KFD registers */
	uint64_t size; /* bytes of the BO */
	bool own_view; /* base is a view of our own (munmap it) */
	uint32_t n;    /* pieces */
	struct host_alias_piece p[VKFD_MAX_USERPTR_PIECES];
};

struct host_queue {
	uint64_t handle;
	uint32_t queue_id; /* kernel id, never leaves the host */
	uint32_t gpu;
	uint32_t slot; /* u64 index in the shadow doorbell page */
	uint32_t relay_slot;
	/* for the relay's ring (queue_ring): the device's gpu id, the context */
	uint32_t gpu_id;
	struct vkfd_host_context *ctx;
};

struct host_event {
	uint32_t id;
	uint32_t type;
};

struct host_resource {
	uint32_t res_id;
	int fd;
	uint64_t size;
};

struct host_gpu_state {
	int render_fd; /* -1 until ACQUIRE_VM */
	bool vm_acquired;
	struct kfd_process_device_apertures ap;
	bool have_ap;
	struct shmem_region shadow_db;   /* guest-visible doorbell page */
	volatile uint64_t *real_db;      /* device doorbell slice (mmap of kfd fd) */
	struct shmem_region shadow_mmio; /* guest-visible HDP page (writes ignored) */
	volatile uint32_t *real_mmio;
	uint32_t n_queues;
};

struct exec_item {
	struct exec_item *next;
	uint64_t seq; /* 1-based submit number */
	size_t size;
	size_t cost; /* host bytes charged to queued_bytes */
	uint8_t data[];
};

/* Host bytes a queued batch of `size` payload bytes occupies. */
static inline size_t host_batch_cost(size_t size)
{
	return ((sizeof(struct exec_item) + size + 15u) & ~(size_t)15u) + HOST_MALLOC_OVERHEAD;
}

struct blob_entry {
	uint64_t blob_id;
	struct host_bo *bo;       /* or NULL: the id names an arena */
	struct host_arena *arena; /* CREATE_ARENA's blob, or NULL */
	bool exported;            /* one export per blob id */
	struct blob_entry *hnext; /* hash chain */
	struct blob_entry *bnext; /* next id of the same BO */
};

/* Per-ring wait bookkeeping, under ctx->lock (host_wait_ring.c). */
struct ring_wait_state {
	uint64_t queued;   /* waits framed at submit time (fence targets) */
	uint64_t next_k;   /* waits dispatched by the executor */
	uint64_t active_k; /* index of the wait in flight, 0 = none */
	uint64_t rejected_max;
	uint64_t done;
};

struct vkfd_host_context {
	struct vkfd_host_context *next_ctx;
	uint32_t ctx_id;
	char name[64];
	void *cookie;
	const struct vkfd_device_ops *ops;
	void *dev;
	int kfd_fd;

	/* ctx->lock guards: the submit queue (q_head to queued_bytes), the blob
	 * table, the wait rings and waits_inflight, the resource list, the
	 * object tables' and the VA map's membership, and each BO's freeing
	 * flag. The executor alone mutates objects, so it reads tables without
	 * the lock and takes it only to add or remove; other threads
	 * (get_blob, submit) read under it. Functions that expect it held end
	 * in _locked and call host_assert_held (host_lock.h). */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* executor wake-up */
	pthread_t exec_thread;
	bool exec_started;
	/* Set once, under `lock`, with an atomic store; read under `lock` or
	 * with an atomic load (wait threads read it without the lock). */
	bool stopping;
	uint32_t lost; /* VKFD_ASYNC_ERR_* once lost */
	struct exec_item *q_head, *q_tail;
	/* a batch is running (the executor's, or one run inline by its
	 * submitter); under `lock` */
	bool running;
	bool no_inline;          /* VKFD_HOST_NO_INLINE=1 (set before the executor starts) */
	uint64_t inline_batches; /* batches run by their submitter (atomic; tests) */
	uint64_t submitted;      /* batches queued (ring 0 fence points) */
	/* seqno of the last request run (atomic, the executor's): what the
	 * relay's map barrier compares with, instead of the header's copy
	 * the guest can overwrite */
	uint32_t exec_seqno;
	/* seqno of the last MAP_MEMORY_ASYNC run (atomic, seq_cst) */
	uint32_t async_map_done;
	uint64_t submit_hint;  /* atomic copy of submitted: the executor's spin */
	uint32_t exec_spin_ns; /* atomic; vkfd_host_context_set_exec_spin */
	/* VKFD_HOST_WAIT_THREAD=1: every WAIT_EVENTS on a wait thread, even
	 * one KFD answers at once (the baseline of cmd_event.c's try; tests
	 * set it too). Atomic. */
	bool wait_always_thread;
	size_t queued_bytes; /* host_batch_cost() of each queued batch */

	struct shmem_region shmem;
	bool shmem_created;
	/* Serialises response writes (a leaf lock): the executor and the wait
	 * threads may write the same guest-chosen response slot, e.g. a guest
	 * that reuses the slot of a wait it read by spinning while the wait
	 * thread that answered it has just returned; the guest orders those
	 * writes only in its own process, which the host cannot see. */
	pthread_mutex_t reply_lock;

	/* blob ids (host_blob.c), bound at submit time; under lock */
	struct blob_entry **blob_buckets;
	uint32_t n_buckets, n_blobs;
	uint64_t blob_key; /* secret hash key: guest ids cannot collide at will */

	struct fence_state fences;                    /* its own locks (fence.h) */
	struct ring_wait_state rings[VKFD_NUM_RINGS]; /* under lock (host_wait_ring.c) */
	struct wait_pool *waits;                      /* its own lock (wait_pool.c) */
	uint32_t waits_inflight;                      /* under lock */
	struct wait_order wait_order;                 /* its own lock (wait_order.h) */

	struct obj_table bos, queues; /* membership under lock */
	struct va_map va;             /* membership under lock */
	/* the executor's alone (and teardown's, after it stopped) */
	struct host_event *events; /* sorted by id */
	uint32_t n_events, cap_events;
	bool have_event_page;
	struct host_resource *res; /* under lock (get_blob's thread adds) */
	uint32_t n_res;

	struct host_gpu_state gpu[HOST_MAX_GPUS];
	uint32_t n_gpus;
	uint64_t gpu_active_mask; /* GPUs on which this context holds a slot */
	struct doorbell_relay *relay;
	bool relay_lazy; /* VKFD_HOST_RELAY_LAZY=1: no hot window, no poke */
	uint8_t relay_used[HOST_QUEUE_SLOTS / 8];

	uint64_t vram_used, gtt_used;
	/* the executor's alone: arenas[id - 1] (host_arena.c) */
	struct host_arena *arenas[VKFD_MAX_ARENAS];
	bool kfd_secondary; /* its KFD process is a secondary one */
	/* GTT allocation requests the executor has processed: the budget
	 * words' count (docs/protocol.md 14.2); the executor's alone */
	uint32_t gtt_allocs;
	uint32_t proto_version;
	/* VKFD_FEAT_* granted by the last HELLO; written by the executor,
	 * read by submit_cmd's thread too: atomic */
	uint64_t features;
	int32_t xnack;

	uint8_t *rsp_buf;         /* private response buffer of the executor */
	void *req_buf;            /* the executor's decoded request (run_one) */
	struct host_stats *stats; /* handling times (host_executor.c) */
};

/* ---- core (host_core.c): what handlers call down into ---- */
int host_kfd_ioctl(struct vkfd_host_context *ctx, unsigned long req, void *arg);
/* AMDKFD_IOC_WAIT_EVENTS that calls registered(arg) once KFD registered
 * the waiters (the device seam's wait_events, or right before the ioctl) */
int host_kfd_wait_events(struct vkfd_host_context *ctx, struct kfd_ioctl_wait_events_args *a,
			 void (*registered)(void *), void *arg);
/* exported GPU index of a guest gpu_id, or -EINVAL */
int host_gpu_index(struct vkfd_host_context *ctx, uint32_t gpu_id);
/* same, and the VM must have been acquired */
int host_gpu_index_vm(struct vkfd_host_context *ctx, uint32_t gpu_id);
/* Bytes of memory behind a BO, which is what anything that reaches it by
 * size (the kernel's event page, a host mapping, a blob export) may touch.
 * Not its VA span: an AQL_QUEUE_MEM BO is half as much memory mapped twice;
 * DOORBELL and MMIO_REMAP BOs are the host's shadow page(s). */
static inline uint64_t host_bo_backing_bytes(const struct host_bo *bo)
{
	return bo->blob_size;
}
/* does [va, va+size) lie inside one BO mapped on GPU g? */
bool host_range_mapped(struct vkfd_host_context *ctx, uint64_t va, uint64_t size, uint32_t g);
/* Was this 1.1 feature granted to the context by its last HELLO? */
static inline bool host_ctx_has(const struct vkfd_host_context *ctx, uint64_t feat)
{
	return (__atomic_load_n(&ctx->features, __ATOMIC_ACQUIRE) & feat) == feat;
}
/* Publish the asynchronous-allocation budget words (after HELLO, every
 * allocation request and every free). */
void host_budget_publish(struct vkfd_host_context *ctx);
/* Arm or disarm the relay's map barrier after HELLO (VKFD_FEAT_ASYNC_MAP). */
void host_map_barrier_publish(struct vkfd_host_context *ctx);
/* First call wins: refuse further work, tell the guest, complete every fence. */
void host_context_mark_lost(struct vkfd_host_context *ctx, uint32_t why);
/* Write a response into the request's slot of the shared response area. */
void host_reply(struct vkfd_host_context *ctx, const struct vkfd_cmd_view *v, void *rsp,
		uint32_t len);
/* VKFD_FEAT_* the host offers on this device (HELLO, the capset) */
uint64_t host_features(void);
/* The environment variable `name` is "1" (the tests' and baselines' knobs). */
bool host_env_on(const char *name);
uint64_t host_features_for(const struct vkfd_device_caps *caps, uint32_t host_flags);
/* Does the device do this (VKFD_DEVICE_CAP_*)? Set once by vkfd_host_init. */
static inline bool host_device_can(uint32_t cap)
{
	return (host_g.caps.flags & cap) == cap;
}
/* Wait rings (host_wait_ring.c): every change to ctx->rings[] and
 * ctx->waits_inflight. The _locked ones expect ctx->lock held. */
void host_ring_wait_count_locked(struct vkfd_host_context *ctx, uint32_t ring);
uint64_t host_ring_fence_target_locked(struct vkfd_host_context *ctx, uint32_t ring);
/* index k of the next wait dispatched on ring (1 <= ring < VKFD_NUM_RINGS) */
uint64_t host_ring_wait_next(struct vkfd_host_context *ctx, uint32_t ring);
/* k becomes ring's wait in flight and holds a wait thread; -EBUSY if one is */
int host_ring_wait_activate(struct vkfd_host_context *ctx, uint32_t ring, uint64_t k);
/* the wait thread taken by host_ring_wait_activate was given back */
void host_ring_wait_release_thread(struct vkfd_host_context *ctx);
/* a wait framed on ring finished (accepted or rejected): the fence advances */
void host_ring_wait_finished(struct vkfd_host_context *ctx, uint32_t ring, uint64_t k);
/* blob table (host_blob.c), under ctx->lock */
/* drop every blob id bound to bo */
void host_blob_unbind_bo_locked(struct vkfd_host_context *ctx, struct host_bo *bo);
/* submit_cmd's BIND_BLOB; a refused bind is only logged */
void host_blob_bind_at_submit_locked(struct vkfd_host_context *ctx,
				     const struct vkfd_req_bind_blob *r);
/* teardown: no other thread is left */
void host_blob_table_fini(struct vkfd_host_context *ctx);
/* A new host fd of a MEMORY or IMPORT BO's memory: a dup of its render-node
 * dmabuf, or EXPORT_DMABUF (kfdsim: its memfd), or of its arena's memfd.
 * *offset gets where the BO's memory starts in that fd. -errno otherwise. */
int host_bo_memory_fd(struct vkfd_host_context *ctx, const struct host_bo *bo, uint64_t *offset);
/* CREATE_ARENA's blob id; -EEXIST (bound), -ENOMEM (blob-id limit). */
int host_blob_bind_arena_locked(struct vkfd_host_context *ctx, struct host_arena *a);
void host_blob_unbind_arena_locked(struct vkfd_host_context *ctx, struct host_arena *a);
/* arenas (host_arena.c), on the executor */
/* live arena `id` of ctx, or NULL (out of range or not live) */
struct host_arena *host_arena_get(struct vkfd_host_context *ctx, uint32_t id);
/* a zeroed, sealed, host-mapped arena; -EINVAL (size), -ENOMEM, -errno */
int host_arena_new(uint32_t id, uint64_t size, struct host_arena **out);
void host_arena_free(struct host_arena *a);
/* Is [off, off + size) page aligned, inside a and held by no live BO? */
bool host_arena_range_free(const struct host_arena *a, uint64_t off, uint64_t size);
/* Take a free range for a new BO: zero it if `zero` (no BO sees a previous
 * BO's bytes; an ALLOC_MEMORY_ASYNC's range the guest zeroed itself, and
 * may have written since), mark it held. -EINVAL if not
 * host_arena_range_free. */
int host_arena_claim(struct host_arena *a, uint64_t off, uint64_t size, bool zero);
/* Give back what host_arena_claim took. */
void host_arena_release(struct host_arena *a, uint64_t off, uint64_t size);
/* ALLOC_USERPTR_PIECES' memory: check every piece (a live arena of ctx,
 * page-aligned, inside it, sizes summing to size, no page held 65535
 * times), zero the pages no BO holds yet, hold every page once more and
 * make the host view. 0, -EINVAL (a bad piece), -EBUSY (a page's count
 * full), -ENOMEM/-errno (the view). */
int host_alias_create(struct vkfd_host_context *ctx, const struct vkfd_userptr_piece *pieces,
		      uint32_t n, uint64_t size, struct host_alias **out);
/* Drop the view and the holds (after KFD freed the BO). */
void host_alias_destroy(struct host_alias *al);
/* executor (host_executor.c): dispatches to the handlers (host_cmd.h) */
int host_executor_start(struct vkfd_host_context *ctx);
void host_executor_stop(struct vkfd_host_context *ctx);
/* A batch the submitting thread may run itself (host_executor.c, "Inline
 * batches"): claims the executor's turn when true. ctx->lock held. */
bool host_executor_claim_inline_locked(struct vkfd_host_context *ctx, const uint8_t *data,
				       size_t size);
/* Runs a claimed batch (without ctx->lock) and gives the turn back. */
void host_executor_run_inline(struct vkfd_host_context *ctx, const uint8_t *data, size_t size,
			      uint64_t seq);
/* context lifecycle (host_context.c) */
void host_contexts_destroy_all(void);

/* render-node allocation for kernels without EXPORT_DMABUF (render_alloc.c) */
bool host_render_alloc_needed(uint32_t flags);
int host_render_alloc(struct vkfd_host_context *ctx, uint32_t g, uint64_t va, uint64_t size,
		      uint32_t flags, uint64_t *kfd_handle, int *dmabuf_fd);

/* device-level helpers (host_device.c) */
/* device-level state in host_g, under host_g.lock */
int host_device_open_locked(const struct vkfd_host_config *cfg);
void host_device_close_locked(void);
/* What host_device_open would find, without opening it (the capset before
 * vkfd_host_init). */
int host_device_probe_caps(struct vkfd_device_caps *caps, uint32_t *n_gpus);

#endif
