/* SPDX-License-Identifier: MIT */
/*
 * Private header of the shim's "vkfd" backend (docs/guest-vkfd-backend.md):
 * the state every part shares, its locks, and the functions one part calls
 * in another. Nothing here is API; only backend_vkfd*.c and the backend's
 * tests include it.
 *
 * The parts, one concern each:
 *   backend_vkfd.c           shim entry points, the file table, init/open/close/fork
 *   backend_vkfd_conn.c      connections, protocol calls, guest memory access, log
 *   backend_vkfd_ioctl.c     the KFD ioctl table, its one copy-in/out, process ioctls
 *   backend_vkfd_memory.c    BOs: alloc/free/map ioctls, blobs, mmap
 *   backend_vkfd_budget.c    protocol 1.1: guest-chosen handles, the async-alloc budget
 *   backend_vkfd_userptr.c   USERPTR ranges: conversion to blobs and back
 *   backend_vkfd_userptr_share.c  registrations that share arena pages
 *   backend_vkfd_svm.c       AMDKFD_IOC_SVM: attribute ranges, host-backed pieces
 *   backend_vkfd_ipc.c       dmabuf export/import between processes of one guest
 *   backend_vkfd_queue.c     queue ioctls
 *   backend_vkfd_events.c    event ioctls, waits, SMI events
 *   backend_vkfd_topo.c      the topology export and the guest's tree built from it
 *   backend_vkfd_topo_tree.c writing that tree (sysfs layout, CPU node, links)
 *   backend_vkfd_drm.c       render-node ioctls (DRM/AMDGPU queries)
 *
 * Locks, when nested always taken in this order: bk_mem_lock, then a
 * connection's alloc_lock, then bk_lock; a connection's ev_lock is a leaf
 * (nothing is taken under it).
 * What each guards is written next to the data below. A function that
 * expects a lock held ends in _locked and asserts it (BK_ASSERT_*).
 */
#ifndef VKFD_BACKEND_VKFD_INTERNAL_H
#define VKFD_BACKEND_VKFD_INTERNAL_H

#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "vkfd/guest.h"
#include "../proto/vkfd_protocol.h"
#include "shim/shim_backend.h"

/* The KFD UAPI, written once for every part of vkfd: the system header
 * and what newer KFDs added (both sizes of each grown struct). */
#include "kfd_uapi_ext.h"
#include "kfd_dbg_trap.h"

/* These are one library's insides: never exported from, or interposed
 * into, the preload (gcc and clang both honour this pragma). */
#pragma GCC visibility push(hidden)

#define BK_MAX_FILES  256
#define BK_MAX_QUEUES 1024
/* libhsakmt masks doorbell offsets with its 8 KiB SOC15 slice size */
#define BK_DOORBELL_SLOTS 1024u
#define BK_COOKIE_SHIFT   24 /* 16 MiB apart: page aligned, fits off_t */
/* The newest KFD minor version the guest serves completely: 1.14. 1.15
 * promises GEM_VA on the render node in the compute VM, and the guest does
 * not carry GEM ioctls (docs/kfd-uapi.md); 1.16's flag and 1.17's
 * SDMA_BY_ENG_ID are still served to callers that use them. */
#define BK_KFD_MINOR_MAX 14u
/* Protocol 1.1 (backend_vkfd_budget.c): guest-chosen handle indices kept
 * at most (the host's max_bos is clamped to it), and the GTT allocation
 * sizes remembered for the budget sum. */
#define BK_MAX_GUEST_HANDLES (1u << 20)
#define BK_BUDGET_RING       1024u

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */

struct bk_gpu {
	uint32_t gpu_id;
	int render_minor;
};

struct bk_conn;
struct bk_svm;

/* Arenas (VKFD_FEAT_ARENAS, docs/guest-vkfd-backend.md "Arenas"): small
 * CPU-visible GTT BOs are sub-allocated from 64 MiB host arenas, one blob
 * each, instead of a blob per BO. */
#define BK_ARENA_SIZE   (64ull << 20)
#define BK_ARENA_MAX_BO (2ull << 20) /* larger BOs keep a blob of their own */
#define BK_ARENA_PAGE   4096ull      /* arena page */

/* One arena: its id, its blob (created with the arena) and how many live
 * BOs hold each page (USERPTR registrations may share pages:
 * backend_vkfd_userptr.c). Under bk_mem_lock. */
struct bk_arena {
	uint32_t id; /* 1..VKFD_MAX_ARENAS */
	uint64_t size;
	struct vkfd_guest_blob blob;
	uint16_t *refs; /* per page */
	uint32_t n_bos; /* holds of ranges in it */
	uint64_t hint;  /* page where the next search starts */
};

/* A BO of one KFD process. `handle` is the protocol's opaque handle; the
 * guest sees it verbatim as the KFD handle. The list links and fields set
 * at creation are under bk_lock; the blob and the USERPTR mapping state
 * change under bk_mem_lock (userptr_mapped is also cleared under bk_lock
 * by munmap notification). */
/* One arena range of a USERPTR BO, at CPU address cpu_va. */
struct bk_uptr_piece {
	uint64_t cpu_va, len;
	struct bk_arena *arena;
	uint64_t off;
};

struct bk_bo {
	struct bk_bo *next;
	uint64_t handle;
	uint64_t va, size; /* as the guest asked */
	uint64_t blob_size;
	uint32_t gpu_id, kfd_flags, map_info, map_flags;
	uint64_t cookie; /* render-fd mmap offset, 0 if none */
	bool has_blob;
	struct vkfd_guest_blob blob;
	bool userptr;           /* converted guest USERPTR range */
	uint64_t cpu_va;        /* its CPU address (mmap_offset); va is the GPU's */
	uint64_t uptr_len;      /* bytes of it backed by the blob */
	bool userptr_mapped;    /* the range still holds our blob mapping */
	bool event_page;        /* given to CREATE_EVENT: FREE -> EPERM */
	bool async_alloc;       /* made by ALLOC_MEMORY_ASYNC: its MAP waits */
	bool svm;               /* a piece under SVM ranges (backend_vkfd_svm.c):
				 * the application has no handle of it */
	struct bk_arena *arena; /* memory is a slice of this arena's blob */
	uint64_t arena_offset;
	/* a USERPTR range registered over pages another registration had
	 * converted (ALLOC_USERPTR_PIECES): its arena ranges in CPU order,
	 * each held once by it; arena is NULL then */
	struct bk_uptr_piece *pieces;
	uint32_t n_pieces;
	/* IPC (backend_vkfd_ipc.c), under bk_mem_lock: the SHAREABLE blob
	 * an EXPORT_DMABUF made; imported is set at creation */
	bool has_share;
	struct vkfd_guest_blob share;
	bool imported; /* made by IMPORT_DMABUF */
	int import_fd; /* imported: a dup of the fd it came from */
};

struct bk_queue {
	bool used;
	uint64_t handle;
	uint32_t gpu_id;
	uint32_t doorbell_index;
};

/* Event hint bookkeeping (docs/guest-vkfd-backend.md, "Events"). */
struct bk_ev {
	uint64_t table_seen; /* shmem table value when the host said TIMEOUT */
	uint64_t age;        /* last age the host reported */
	bool quiet;          /* last real answer was TIMEOUT and nothing since */
	bool exists;         /* created by this process and not destroyed */
	uint8_t type;        /* KFD event type */
};

/* An SMI event client (KFD 1.3): this side of the socket whose other end
 * the application holds. */
struct bk_smi {
	int fd;
	uint32_t gpu_id;
	uint64_t events; /* the mask the client wrote last */
	struct bk_smi *next;
};

/* One KFD process: a guest library connection to one host context. */
struct bk_conn {
	/* set at creation, then read-only */
	struct vkfd_guest *g;
	pid_t pid;
	uint64_t features;
	/* under bk_lock */
	int kfd_fd;
	unsigned int refs;  /* files pointing at it */
	unsigned int users; /* render-node calls borrowing it */
	bool closed;        /* last file gone while users > 0 */
	bool dead;          /* inherited over fork: unusable (set in the child) */
	struct bk_bo *bos;
	/* under bk_mem_lock: SVM ranges and pieces (backend_vkfd_svm.c) */
	struct bk_svm *svm;
	/* under bk_mem_lock: freed USERPTR BOs of libhsakmt's own host memory
	 * whose copy-back is deferred (backend_vkfd_userptr.c) */
	struct bk_bo *uptr_freed;
	/* under bk_mem_lock: arenas[id - 1], created on demand */
	struct bk_arena *arenas[VKFD_MAX_ARENAS];
	struct bk_queue queues[BK_MAX_QUEUES];
	unsigned int n_queues;       /* used entries of queues[] */
	int acquired[VKFD_MAX_GPUS]; /* render fd acquired per GPU, -1 none */
	/* the GPUVM aperture per GPU, from the host's last answer to
	 * GET_PROCESS_APERTURES (the strict ALLOC rule, docs/protocol.md 14.6) */
	bool ap_tried; /* GET_PROCESS_APERTURES sent once (bk_apertures_known) */
	bool have_ap[VKFD_MAX_GPUS];
	uint64_t gpuvm_base[VKFD_MAX_GPUS], gpuvm_limit[VKFD_MAX_GPUS];
	/* ev_lock guards the event bookkeeping, the SMI clients and the
	 * clock rebasing below (a short, leaf lock: nothing else is taken
	 * while it is held, and no protocol call is made under it) */
	pthread_mutex_t ev_lock;
	struct bk_ev ev[KFD_SIGNAL_EVENT_LIMIT];
	struct bk_smi *smi;
	unsigned int local_answers;
	struct {
		bool have;
		bool have_rate;
		uint64_t gpu0, host_sys0, guest_sys0;
		double rate;
	} clk[VKFD_MAX_GPUS]; /* clock rebasing per GPU */
	/* alloc_lock guards the protocol 1.1 allocation state below and is
	 * held from choosing a handle or the async form to sending the
	 * request (backend_vkfd_budget.c) */
	pthread_mutex_t alloc_lock;
	uint32_t *hgen;  /* next generation per index 1..hmax, NULL: host chooses */
	uint32_t *hfree; /* released indices */
	uint32_t hmax, hnext, hn_free;
	uint32_t gtt_sent; /* GTT allocation requests sent */
	uint64_t gtt_ring[BK_BUDGET_RING];
	/* requests sent, with and without a reply awaited (atomic; what the
	 * benchmark reports as round trips) */
	uint64_t n_sync, n_async;
	uint64_t n_blobs; /* BO blobs created (atomic) */
	/* threads of this process inside a WAIT_EVENTS that went to the
	 * host (atomic, seq_cst; backend_vkfd_events.c: when SET_EVENT must
	 * be flushed) */
	uint32_t n_host_waits;
	bool set_flush_always; /* VKFD_GUEST_SET_FLUSH=1: the old rule (baseline) */
};

enum bk_kind { BK_KFD = 1, BK_RENDER = 2 };

struct bk_file {
	int fd;
	enum bk_kind kind;
	pid_t pid;
	struct bk_conn *conn;     /* BK_KFD */
	int gpu;                  /* BK_RENDER: index into bk.gpus */
	struct bk_conn *vm_owner; /* BK_RENDER: conn that acquired it */
};

/* The backend's process-wide state, under bk_lock except where noted. */
struct bk_state {
	bool inited;
	pid_t pid;
	char root[PATH_MAX]; /* what sysfs_root() returns; set by init */
	bool root_ours;
	unsigned int n_gpus; /* set by init (topology), then read-only */
	struct bk_gpu gpus[VKFD_MAX_GPUS];
	struct bk_conn *spare; /* topology connection, reused by open_kfd */
	/* The kernel keeps one KFD process per mm until exit: the connection
	 * whose last kfd fd was closed stays here (with its host context and
	 * every object in it) and the next open_kfd of this pid gets it
	 * back. Released at exit when the transport closes. */
	struct bk_conn *kept;
	struct bk_file files[BK_MAX_FILES];
	uint64_t next_cookie;
};
extern struct bk_state bk;

/* ------------------------------------------------------------------ */
/* Locks                                                               */
/* ------------------------------------------------------------------ */

/* Table lock: bk (files, GPUs, spare/kept), each connection's BO list,
 * queues, acquired VMs and reference counts. Held only for short, local
 * work (and over init, which builds the topology). */
extern pthread_mutex_t bk_lock;
/* Memory lock: serialises blob creation, USERPTR conversion, FREE and IPC
 * imports (backend_vkfd_ipc.c) so that a BO cannot disappear while it is
 * being mapped or exported, and guards the
 * freed USERPTR ranges whose copy-back is deferred (taken by the munmap,
 * madvise/mremap and fork notifications only while there are such ranges).
 * Taken before bk_lock, never while holding it. */
extern pthread_mutex_t bk_mem_lock;

/*
 * Who holds what, for the _locked assertions: a per-thread record set by
 * the lock wrappers below. A per-thread variable (not an owner field in
 * the mutex, nor pthread_mutex_trylock) because it answers "does THIS
 * thread hold it" exactly, is never read by another thread (so no data
 * race for TSan to report), and needs no compiler extension. Checked by
 * assert(), so NDEBUG builds pay nothing. A thread holds at most one
 * connection's ev_lock at a time.
 */
extern _Thread_local unsigned int bk_lock_depth;
extern _Thread_local unsigned int bk_mem_lock_depth;
extern _Thread_local const struct bk_conn *bk_ev_lock_holder;
extern _Thread_local const struct bk_conn *bk_alloc_lock_holder;

void bk_table_lock(void);
void bk_table_unlock(void);
void bk_mem_lock_take(void);
void bk_mem_lock_release(void);
void bk_ev_lock(struct bk_conn *c);
void bk_ev_unlock(struct bk_conn *c);
void bk_alloc_lock(struct bk_conn *c);
void bk_alloc_unlock(struct bk_conn *c);
/* after fork, in the child: fresh, unheld locks */
void bk_locks_reset_child(void);

#define BK_ASSERT_TABLE_LOCKED()     assert(bk_lock_depth > 0)
#define BK_ASSERT_MEM_LOCKED()       assert(bk_mem_lock_depth > 0)
#define BK_ASSERT_EV_LOCKED(conn)    assert(bk_ev_lock_holder == (conn))
#define BK_ASSERT_ALLOC_LOCKED(conn) assert(bk_alloc_lock_holder == (conn))

/* ------------------------------------------------------------------ */
/* backend_vkfd_conn.c: log, guest memory, protocol calls, connections */
/* ------------------------------------------------------------------ */

/* VKFD_DEBUG set and not "0": -1 until the first bk_log */
extern int bk_debug;
void bk_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t bk_clock_ns(clockid_t id);
pid_t bk_self_pid(void);

/* Copies from/to the application's memory: -EFAULT, never a crash. */
int bk_read_user(void *dst, uint64_t src, size_t len);
int bk_write_user(uint64_t dst, const void *src, size_t len);

int bk_errno(int r);
int bk_transport_err(int r);
int bk_call(struct bk_conn *c, uint32_t cmd, void *req, size_t req_len, void *rsp, size_t rsp_len);
int bk_call_async(struct bk_conn *c, uint32_t cmd, void *req, size_t req_len);
int bk_call_async_barrier(struct bk_conn *c, uint32_t cmd, void *req, size_t req_len);

struct bk_conn *bk_conn_new(int *err);
void bk_conn_free(struct bk_conn *c);

/* ------------------------------------------------------------------ */
/* backend_vkfd.c: the file table and lookups (bk_lock held)           */
/* ------------------------------------------------------------------ */

struct bk_file *bk_file_get_locked(int fd);
/* End the kept KFD process (see struct bk_state's kept). */
void bk_release_kept(void);
int bk_gpu_index_locked(uint32_t gpu_id);
struct bk_bo *bk_bo_find_locked(struct bk_conn *c, uint64_t handle);
struct bk_bo *bk_bo_by_cookie_locked(uint64_t cookie, struct bk_conn **owner);

/* ------------------------------------------------------------------ */
/* KFD ioctls                                                          */
/* ------------------------------------------------------------------ */

/* One handler per ioctl: arg is the kernel-sized, zero-extended copy of
 * the caller's struct; usize the size the caller declared. */
typedef int (*bk_handler)(struct bk_conn *c, void *arg, uint32_t usize);

/* backend_vkfd_ioctl.c */
int bk_kfd_ioctl(struct bk_conn *c, unsigned long request, void *arg);

/* backend_vkfd_memory.c */
int bk_ioctl_alloc_memory_of_gpu(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_free_memory_of_gpu(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_map_memory_to_gpu(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_unmap_memory_from_gpu(struct bk_conn *c, void *arg, uint32_t usize);
int bk_bind_new_blob_locked(struct bk_conn *c, const struct bk_bo *b, uint32_t flags,
			    struct vkfd_guest_blob *out);
int bk_bo_blob_locked(struct bk_conn *c, struct bk_bo *b);
void *bk_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
struct vkfd_rsp_alloc_memory;
/* ALLOC_MEMORY (or ALLOC_MEMORY_ASYNC for an arena range, then
 * *sent_async is set) of one BO */
int bk_alloc_host(struct bk_conn *c, uint64_t va, uint64_t size, uint32_t gpu_id, uint32_t flags,
		  const struct bk_arena *arena, uint64_t arena_offset,
		  struct vkfd_rsp_alloc_memory *rsp, bool *sent_async);
/* FREE_MEMORY, sent without a reply; the handle index is released */
int bk_send_free(struct bk_conn *c, uint64_t handle);

/* backend_vkfd_stats.c: counters (relaxed atomics), reported at exit */
struct bk_stats {
	uint64_t replies;    /* sync calls: replies waited for */
	uint64_t waits;      /* fenced WAIT_EVENTS calls */
	uint64_t blobs;      /* blobs created (per-BO and arena blobs) */
	uint64_t arena_bos;  /* BOs placed in an arena */
	uint64_t maps_scans; /* USERPTR conversions that read /proc/self/maps */
};
extern struct bk_stats bk_stats;
void bk_stats_count(uint64_t *counter);
/* VKFD_SHIM_STATS=<file>: append this process's counters (atexit) */
void bk_stats_report(void);

/* VKFD_SHIM_PROFILE=<file>: where the shim's time goes, per KFD ioctl, per
 * synchronous protocol command and per costly local step (count and
 * wall time); appended at exit. Off (no clock read) without the variable. */
enum bk_prof_op {
	BK_PROF_BLOB_CREATE,    /* BIND_BLOB + blob create (a transport call) */
	BK_PROF_BLOB_DESTROY,   /* a BO's blob released */
	BK_PROF_UPTR_COPY_IN,   /* a USERPTR conversion's copy and remap */
	BK_PROF_UPTR_RESTORE,   /* a converted range copied back */
	BK_PROF_MUNMAP_NOTIFY,  /* the shim's munmap / MAP_FIXED notification */
	BK_PROF_UPTR_MAPS_SCAN, /* a conversion's /proc/self/maps scan */
	BK_PROF_OP_COUNT_,
};
uint64_t bk_prof_begin(void);
void bk_prof_ioctl(unsigned int nr, uint64_t t0);
void bk_prof_cmd(uint32_t cmd, uint64_t t0);
void bk_prof_op(enum bk_prof_op op, uint64_t t0);
void bk_prof_report(void);

/* backend_vkfd_ioctl.c: ask the host for the apertures once per
 * connection if nothing asked yet (the strict ALLOC rule checks VAs
 * against them); 0 or -errno of that call */
int bk_apertures_known(struct bk_conn *c);

/* backend_vkfd_procmap.c: 1 if [va, va+len) lies entirely in readable
 * private anonymous mappings (no file, no name but the heap's), 0 if not,
 * -1 if the kernel cannot tell without reading /proc/self/maps */
int bk_procmap_anon_private(uint64_t va, uint64_t len);

/* backend_vkfd_arena.c (bk_mem_lock held) */
/* VKFD_ARENAS is not "0": ask the host for arenas */
bool bk_arenas_enabled(void);
/* Should this allocation come from an arena? */
/* flags: as sent to the host (a USERPTR conversion's are GTT already) */
bool bk_arena_wanted(const struct bk_conn *c, uint32_t flags, uint64_t va, uint64_t size,
		     bool userptr);
/* A free, zero-checked range of `size` bytes in some arena (created if
 * none has room): 0, or -errno when no arena can be made. */
int bk_arena_take_locked(struct bk_conn *c, uint64_t size, struct bk_arena **out, uint64_t *offset);
/* Give back a range bk_arena_take_locked handed out, or one hold that
 * bk_arena_hold_locked added: a page is free when no BO holds it. */
void bk_arena_put_locked(struct bk_arena *a, uint64_t offset, uint64_t size);
/* One more hold of a range live BOs hold: 0, or -EBUSY if a page's count
 * is full. */
int bk_arena_hold_locked(struct bk_arena *a, uint64_t offset, uint64_t size);
/* How many BOs hold the arena page at offset. */
unsigned int bk_arena_refs(const struct bk_arena *a, uint64_t offset);
/* Forget every arena (connection teardown; `send` false after fork). */
void bk_arenas_free(struct bk_conn *c, bool send);

/* backend_vkfd_budget.c: after HELLO (reads max_bos), and at free */
void bk_alloc_state_init(struct bk_conn *c);
void bk_alloc_state_fini(struct bk_conn *c);
/* A handle for the next ALLOC (0: let the host choose). */
uint64_t bk_handle_take_locked(struct bk_conn *c);
/* The ALLOC that named it failed: the index is free at the same generation. */
void bk_handle_untake_locked(struct bk_conn *c, uint64_t handle);
/* Its FREE_MEMORY was sent: the index is free at the next generation. */
void bk_handle_release(struct bk_conn *c, uint64_t handle);
void bk_handle_claim_locked(struct bk_conn *c, uint64_t handle);
/* Does a GTT allocation of size fit the published budget now? */
bool bk_budget_fits_locked(struct bk_conn *c, uint64_t size);
/* A GTT allocation request of size is being sent (sync or async). */
void bk_budget_count_locked(struct bk_conn *c, uint64_t size);

/* backend_vkfd_userptr.c */
bool bk_userptr_len(struct bk_bo *b);
int bk_userptr_overlap_locked(uint64_t s, uint64_t e);
/* backend_vkfd_userptr_share.c. Can b (a new USERPTR BO of c) share the
 * pages of the converted ranges it overlaps (all arena ranges of c, VKFD_FEAT_USERPTR_PIECES)? With
 * bk_lock and bk_mem_lock. */
bool bk_userptr_shareable_locked(const struct bk_conn *c, const struct bk_bo *b);
/* Make b (no host BO yet) a BO over the pages it shares with other
 * registrations plus new arena ranges for the rest, converted: 0 or
 * -errno. With bk_mem_lock. */
int bk_userptr_share_locked(struct bk_conn *c, struct bk_bo *b, uint32_t flags);
/* FREE_MEMORY of handle, sent without a reply (backend_vkfd_memory.c). */
int bk_send_free(struct bk_conn *c, uint64_t handle);
int bk_userptr_convert_locked(struct bk_conn *c, struct bk_bo *b);
void bk_userptr_restore_locked(struct bk_bo *b);
bool bk_userptr_release_locked(struct bk_conn *c, struct bk_bo *b);
void bk_userptr_conn_free_locked(struct bk_conn *c);
/* Copy the CPU range [va, +len) into dst (zero-filled): of private
 * anonymous memory only the pages that hold data. */
int bk_userptr_copy_in(uint8_t *dst, uint64_t va, uint64_t len);
/* [cpu_va, +len), arena pages of a mapped there, back as private
 * anonymous memory with the same contents. With bk_mem_lock. */
void bk_arena_run_restore_locked(const struct bk_arena *a, uint64_t cpu_va, uint64_t len);
/* Restore the deferred ranges (freed, not yet given back) in [s, e). With
 * bk_mem_lock. */
void bk_userptr_settle_locked(uint64_t s, uint64_t e);
void bk_munmap_notify(void *addr, size_t len);
void bk_remap_notify(void *addr, size_t len);
void bk_atfork_prepare(void);

/* backend_vkfd_svm.c: AMDKFD_IOC_SVM with the caller's argument and
 * ioctl size; the shim's munmap/MAP_FIXED notification (USERPTR's first);
 * the connection's SVM state freed (bk_mem_lock, or unreachable) */
int bk_svm_ioctl(struct bk_conn *c, uint64_t uarg, uint32_t usize);
void bk_svm_munmap_notify(void *addr, size_t len);
void bk_svm_conn_free_locked(struct bk_conn *c);
/* SET_XNACK_MODE answered mode: new SVM pages' default access follows */
void bk_svm_note_xnack(struct bk_conn *c, int32_t mode);

/* backend_vkfd_ipc.c */
int bk_ioctl_export_dmabuf(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_import_dmabuf(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_get_dmabuf_info(struct bk_conn *c, void *arg, uint32_t usize);
/* the BO is being freed (or its connection): drop its shareable blob or
 * the fd of its import; bk_mem_lock held, or the connection unreachable */
void bk_ipc_bo_release(struct bk_conn *c, struct bk_bo *b);

/* backend_vkfd_queue.c */
int bk_ioctl_create_queue(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_destroy_queue(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_update_queue(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_set_cu_mask(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_alloc_queue_gws(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_get_queue_wave_state(struct bk_conn *c, void *arg, uint32_t usize);

/* backend_vkfd_events.c */
int bk_ioctl_create_event(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_destroy_event(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_set_event(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_reset_event(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_wait_events(struct bk_conn *c, void *arg, uint32_t usize);
int bk_ioctl_smi_events(struct bk_conn *c, void *arg, uint32_t usize);

/* ------------------------------------------------------------------ */
/* backend_vkfd_topo.c, backend_vkfd_topo_tree.c: topology            */
/* ------------------------------------------------------------------ */

#define BK_TOPO_SUBDIR   "/sys/devices/virtual/kfd/kfd/topology"
#define BK_TOPO_MAX_PATH 512

/* Fetch the host's export on c and build the guest's tree from it in a
 * new temporary directory (bk.root); fills bk.gpus. bk_lock held. */
int bk_topo_materialise_locked(struct bk_conn *c);
/* Build the tree under troot from an export buffer; bk_lock held. */
int bk_topo_build_locked(const char *troot, const uint8_t *buf, size_t len);
/* Value of "key N" in a properties text, or -1. */
long long bk_prop(const char *text, size_t len, const char *key);
/* Remove the tree bk_topo_materialise_locked made (atexit). */
void bk_cleanup_tree(void);

int bk_topo_mkdirs(const char *root, const char *rel);
bool bk_topo_rel_ok(const char *rel, size_t len);
int bk_topo_write(const char *root, const char *rel, const void *data, size_t len);
int bk_topo_writef(const char *root, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int bk_topo_cpu_node(const char *root, unsigned int node, unsigned int first_gpu,
		     unsigned int n_gpus);
bool bk_topo_renumber_path(const char *in, unsigned int shift, unsigned int *node_out, char *out,
			   size_t out_size);
ssize_t bk_topo_fix_links(const char *in, size_t len, unsigned int shift, unsigned int n_nodes,
			  char *out, size_t out_size);
ssize_t bk_topo_set_location(const char *in, size_t len, char *out, size_t out_size,
			     unsigned int node);
ssize_t bk_topo_set_link_counts(const char *in, size_t len, char *out, size_t out_size,
				unsigned int io_links, unsigned int p2p_links);
int bk_topo_link_of(const char *rel, unsigned long *link, const char **tail);
int bk_topo_gpu_cpu_link(const char *root, unsigned int node, unsigned long link,
			 unsigned int cpu_node);
void bk_topo_remove(const char *dir);

/* ------------------------------------------------------------------ */
/* backend_vkfd_drm.c: render-node ioctls                              */
/* ------------------------------------------------------------------ */

int bk_render_ioctl(int fd, unsigned long request, void *arg);

#pragma GCC visibility pop

#endif
