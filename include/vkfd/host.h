/* SPDX-License-Identifier: MIT */
/*
 * vkfd host API: what a VMM-side renderer (virglrenderer's vkfd context type,
 * or vkfd-server) calls. Shaped one-to-one after virglrenderer's
 * struct virgl_context so that the adapter is a thin forwarder.
 *
 * Threading: every call may be made from the VMM thread; none of them waits
 * for the GPU. Handlers run on a per-context executor thread.
 */
#ifndef VKFD_HOST_H
#define VKFD_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VKFD_HOST_API_VERSION 1

/* Capset id under which vkfd registers (provisional, see docs/protocol.md). */
#define VKFD_CAPSET_ID 10

struct vkfd_host_context;

/* Fence retirement callback: called at most once per submitted fence, in
 * order per ring, from a library thread (ASYNC mode) or from
 * vkfd_host_context_retire_fences() (POLL mode). Every fence retires unless
 * its context is destroyed first: once vkfd_host_context_destroy() (or
 * vkfd_host_reset()) has begun, no callback starts for that context, one
 * already running on a library thread has returned before destroy goes on,
 * and fences still pending are dropped without a callback, as
 * virglrenderer's context types do. So a VMM may free its per-fence state
 * before calling destroy. The callback must not destroy its own context. */
typedef void (*vkfd_fence_retire_fn)(void *cookie, uint32_t ctx_id, uint32_t ring_idx,
				     uint64_t fence_id);

enum vkfd_host_device {
	VKFD_DEVICE_AUTO = 0, /* real /dev/kfd when usable, else kfdsim */
	VKFD_DEVICE_REAL = 1,
	VKFD_DEVICE_SIM = 2,
};

#define VKFD_HOST_FLAG_ASYNC_FENCES (1u << 0) /* retire from library threads */
/* Apply the real device's rule "one KFD process per host process" to kfdsim
 * too: a second context is refused with -EBUSY unless the device offers
 * secondary KFD processes. Always in force for the real device. */
#define VKFD_HOST_FLAG_ONE_KFD_PROCESS (1u << 1)
/* Do not offer VKFD_FEAT_ARENAS: a guest then maps every CPU-visible BO
 * through a blob of its own, as with a host that predates arenas (tests,
 * comparisons). */
#define VKFD_HOST_FLAG_NO_ARENAS (1u << 2)

struct vkfd_host_quota {
	uint64_t vram_bytes; /* 0 = unlimited (device limit) */
	uint64_t gtt_bytes;
	uint32_t max_bos;
	uint32_t max_queues;
	uint32_t max_events;
	uint32_t max_pending_waits;
};

struct vkfd_host_config {
	uint32_t api_version; /* VKFD_HOST_API_VERSION */
	uint32_t flags;       /* VKFD_HOST_FLAG_* */
	enum vkfd_host_device device;
	vkfd_fence_retire_fn retire_fence;
	struct vkfd_host_quota quota; /* per context */
	/* Optional: restrict the GPUs exposed to contexts (host node ids, 0 =
	 * all). */
	uint32_t gpu_mask;
	/* Contexts that may hold queues on one GPU at the same time (the
	 * hardware schedules about 8 KFD processes at once); 0 = 8. A
	 * CREATE_QUEUE beyond it fails with -EBUSY. */
	uint32_t max_active_contexts_per_gpu;
};

/* Library lifetime. init returns 0 or -errno. */
int vkfd_host_init(const struct vkfd_host_config *cfg);
void vkfd_host_fini(void);
/* Destroy every context, keep the configuration. */
void vkfd_host_reset(void);

/* Capset: callable before vkfd_host_init (VMMs query at realize time).
 * Returns the capset size for `version`, 0 if unsupported. */
size_t vkfd_host_capset_size(uint32_t version);
/* Fill `buf` (size bytes) with the capset; returns bytes written or -errno. */
int vkfd_host_capset_fill(uint32_t version, void *buf, size_t size);

/* Contexts. Returns 0 or -errno (-EBUSY: this process already holds a KFD
 * context and the device offers no secondary processes). */
int vkfd_host_context_create(uint32_t ctx_id, const char *debug_name, void *cookie,
			     struct vkfd_host_context **out);
/* Joins the context's threads and releases everything it holds; pending
 * fences are dropped, not retired (see vkfd_fence_retire_fn). */
void vkfd_host_context_destroy(struct vkfd_host_context *ctx);

/* Queue a command batch (docs/protocol.md). Checks framing and copies; the
 * commands run later on the context's executor. 0 or -errno. */
int vkfd_host_context_submit_cmd(struct vkfd_host_context *ctx, const void *buf, size_t size);

enum vkfd_blob_fd_type {
	VKFD_BLOB_FD_DMABUF = 1,
	VKFD_BLOB_FD_OPAQUE = 2,
	VKFD_BLOB_FD_SHM = 3,
};
enum vkfd_blob_map {
	VKFD_BLOB_MAP_CACHED = 1,
	VKFD_BLOB_MAP_UNCACHED = 2,
	VKFD_BLOB_MAP_WC = 3,
};
/* Blob flags as virtio-gpu's: MAPPABLE 1, SHAREABLE 2, CROSS_DEVICE 4. */
struct vkfd_blob {
	int fd; /* owned by the caller after success */
	enum vkfd_blob_fd_type fd_type;
	enum vkfd_blob_map map_info;
	uint32_t info; /* VKFD_BLOB_INFO_* (was padding: layout unchanged) */
	uint64_t size;
};
/* The blob is a shadow doorbell page: every naturally aligned 8-byte word of
 * it is one queue's doorbell, and a guest store into it is a doorbell ring.
 * The stored value does not matter (the relay reads the queue's write
 * pointer), so a VMM may back the guest mapping with a trapping region that
 * drops stores and signals vkfd_host_context_get_doorbell_fd() instead, e.g.
 * with ioeventfds. */
#define VKFD_BLOB_INFO_DOORBELL (1u << 0)
#define VKFD_BLOB_DOORBELL_SLOT 8u
/* Export blob `blob_id` (0 = the context's shared memory). Waits only until
 * the submit that created blob_id has been executed. 0 or -errno. */
int vkfd_host_context_get_blob(struct vkfd_host_context *ctx, uint32_t res_id, uint64_t blob_id,
			       uint64_t size, uint32_t blob_flags, struct vkfd_blob *out);

/* Resources of the VMM attached to / detached from the context; an attached
 * resource may be imported by the guest (IMPORT command). fd < 0 when the
 * resource has no exportable memory. The fd is duplicated. */
int vkfd_host_context_attach_resource(struct vkfd_host_context *ctx, uint32_t res_id, int fd,
				      uint64_t size);
void vkfd_host_context_detach_resource(struct vkfd_host_context *ctx, uint32_t res_id);

/* Fences. ring 0 retires once every submit before it has executed;
 * rings 1..63 retire when the wait queued on that ring returns. */
int vkfd_host_context_submit_fence(struct vkfd_host_context *ctx, uint32_t flags, uint32_t ring_idx,
				   uint64_t fence_id);
/* POLL mode: an eventfd readable when fences are ready to retire, and the
 * call that retires them (invokes the callback on the caller's thread). */
int vkfd_host_context_get_fencing_fd(struct vkfd_host_context *ctx);
void vkfd_host_context_retire_fences(struct vkfd_host_context *ctx);

/* Doorbell relay: an eventfd the VMM may wire to an ioeventfd on the
 * context's shadow doorbell page; writing it wakes the relay at once. */
int vkfd_host_context_get_doorbell_fd(struct vkfd_host_context *ctx);

/* Let the context's executor poll for the next batch for up to spin_ns
 * (at most 1 ms; 0, the default, = off) before it sleeps, adapting the
 * budget to the gaps it sees. It saves the submitter a thread wake-up per
 * batch when the submitter is the guest's own thread (in-process guests),
 * and costs a CPU while it spins: see docs/performance.md before enabling
 * it for a VMM. VKFD_EXEC_SPIN_US in the environment overrides it.
 * 0 or -EINVAL. */
int vkfd_host_context_set_exec_spin(struct vkfd_host_context *ctx, uint32_t spin_ns);

/* Handling-time statistics (docs/performance.md). The executor times every
 * request it runs (CLOCK_MONOTONIC, from the start of the handler until its
 * response is written or it is handed to a wait thread) and counts it under
 * its protocol command number; numbers the protocol does not define count
 * under 0. Histogram bucket b holds times t with
 * vkfd_host_stats_bucket(t) == b: exact below 8 ns, then 8 buckets per
 * power of two (each at most 1/8 of its lower bound wide); the last bucket
 * also holds everything above it. Counts saturate. With the environment
 * variable VKFD_HOST_STATS_DIR set, a context writes its statistics as a
 * text file into that directory when it is destroyed. */
#define VKFD_HOST_STATS_BUCKETS 256
#define VKFD_HOST_STATS_CMDS    64 /* command numbers counted: 0..63 */
#define VKFD_HOST_STATS_ALL     0xffffffffu
struct vkfd_host_cmd_stats {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	/* Executor thread's CPU time in the handler (CLOCK_THREAD_CPUTIME_ID):
	 * tells a slow handler from a descheduled one. Measured only when the
	 * context was created with VKFD_HOST_STATS_CPU=1 in the environment
	 * (two more system calls per request), else 0. */
	uint64_t cpu_sum_ns;
	uint64_t cpu_max_ns;
	uint32_t hist[VKFD_HOST_STATS_BUCKETS];
};
/* Statistics of command number cmd (< VKFD_HOST_STATS_CMDS) or, for
 * VKFD_HOST_STATS_ALL, of every command. 0 or -EINVAL. */
int vkfd_host_context_get_stats(struct vkfd_host_context *ctx, uint32_t cmd,
				struct vkfd_host_cmd_stats *out);
unsigned vkfd_host_stats_bucket(uint64_t ns);
/* Smallest and largest time (ns) bucket b holds (the last: UINT64_MAX). */
uint64_t vkfd_host_stats_bucket_min_ns(unsigned b);
uint64_t vkfd_host_stats_bucket_max_ns(unsigned b);

#ifdef __cplusplus
}
#endif
#endif
