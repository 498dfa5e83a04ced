/* SPDX-License-Identifier: MIT */
/*
 * vkfd wire protocol, version 1. Normative description: docs/protocol.md.
 *
 * Every structure here crosses the guest/host boundary: little-endian,
 * naturally aligned, 8-byte multiple sizes, no pointers, no host fds, no
 * host addresses. Sizes and key offsets are checked at compile time and
 * against the tables in docs/protocol.md by tests/unit.
 *
 * Compatibility rule: fields are only ever appended to a structure. A
 * request shorter than the structure a peer knows is zero-extended, a longer
 * one has its tail ignored (vkfd_req_copy() in vkfd_codec.h).
 */
#ifndef VKFD_PROTOCOL_H
#define VKFD_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "vkfd protocol structs are little-endian; big-endian hosts are not supported"
#endif

#ifdef __cplusplus
#define VKFD_STATIC_ASSERT(e, m) static_assert(e, m)
#else
#define VKFD_STATIC_ASSERT(e, m) _Static_assert(e, m)
#endif
#define VKFD_ASSERT_SIZE(type, n) VKFD_STATIC_ASSERT(sizeof(type) == (n), #type " size")
#define VKFD_ASSERT_OFF(type, field, n)                                                            \
	VKFD_STATIC_ASSERT(offsetof(type, field) == (n), #type "." #field " offset")

/* ------------------------------------------------------------------ */
/* Capset                                                              */
/* ------------------------------------------------------------------ */

/* Provisional: 1-9 are taken by the virtio spec or rutabaga (8 is both
 * AMD's HSAKMT attempt and rutabaga's gfxstream-gles). */
#define VIRTIO_GPU_CAPSET_AMDKFD 10

#define VKFD_WIRE_FORMAT         1 /* layout family of this header */
#define VKFD_PROTO_VERSION_MIN   1
#define VKFD_PROTO_VERSION_MAX   1
#define VKFD_PROTO_VERSION       1
#define VKFD_CONTEXT_TYPE_AMDKFD 1

/* Capset feature bits (vkfd_capset.features). */
#define VKFD_FEAT_EVENT_HINTS     (1ull << 0) /* host maintains the event-state table */
#define VKFD_FEAT_EVENT_AGES      (1ull << 1) /* host KFD reports event ages (>= 1.14) */
#define VKFD_FEAT_VRAM_EXPORT     (1ull << 2) /* VRAM BOs can become blobs */
#define VKFD_FEAT_IMPORT_RESOURCE (1ull << 3) /* IMPORT_RESOURCE / GET_RESOURCE_INFO */
#define VKFD_FEAT_AMDGPU_QUERY    (1ull << 4) /* AMDGPU_QUERY answered */
#define VKFD_FEAT_DOORBELL_RELAY  (1ull << 5) /* shadow doorbell pages are relayed */
#define VKFD_FEAT_MULTI_CONTEXT   (1ull << 6) /* several contexts per host process */
#define VKFD_FEAT_SIM_DEVICE      (1ull << 7) /* device is kfdsim, not a real GPU */
#define VKFD_FEAT_ALL_V1          ((1ull << 8) - 1)
/* Protocol 1.1 (docs/protocol.md section 14, docs/design-protocol-1.1.md);
 * each feature is negotiated alone. */
#define VKFD_FEAT_GUEST_HANDLES (1ull << 8)  /* ALLOC_MEMORY.new_handle: guest names BOs */
#define VKFD_FEAT_ASYNC_ALLOC   (1ull << 9)  /* budget words, ALLOC_MEMORY_ASYNC */
#define VKFD_FEAT_ASYNC_MAP     (1ull << 10) /* MAP_MEMORY_ASYNC, the map barrier word */
#define VKFD_FEAT_ARENAS        (1ull << 11) /* CREATE_ARENA, ALLOC_MEMORY from an arena */
/* ALLOC_USERPTR_PIECES: one BO over several arena ranges (user memory
 * registered twice); needs VKFD_FEAT_ARENAS */
#define VKFD_FEAT_USERPTR_PIECES (1ull << 12)
/* every ALLOC_MEMORY_ASYNC passed the guest's own check of what the host
 * checks: a failed one loses the context (no deferred errors), and the
 * guest may map such BOs with MAP_MEMORY_ASYNC; needs VKFD_FEAT_ASYNC_ALLOC */
#define VKFD_FEAT_STRICT_ALLOC (1ull << 13)

#define VKFD_KERNEL_VERSION(a, b, c) (((uint32_t)(a) << 16) | ((uint32_t)(b) << 8) | (uint32_t)(c))

struct vkfd_capset {
	uint32_t wire_format;  /* VKFD_WIRE_FORMAT */
	uint32_t version_min;  /* lowest protocol version the host speaks */
	uint32_t version_max;  /* highest protocol version the host speaks */
	uint32_t context_type; /* VKFD_CONTEXT_TYPE_AMDKFD */
	uint64_t features;     /* VKFD_FEAT_* */
	uint32_t kfd_major;    /* host KFD ioctl version in use */
	uint32_t kfd_minor;
	uint32_t min_kfd_major; /* lowest host KFD version this host build supports */
	uint32_t min_kfd_minor;
	uint32_t min_kernel_version; /* VKFD_KERNEL_VERSION() of the lowest host kernel */
	uint32_t shmem_size;         /* VKFD_SHMEM_SIZE */
	uint32_t num_rings;          /* VKFD_NUM_RINGS */
	uint32_t max_batch_size;     /* VKFD_MAX_BATCH_SIZE */
	uint32_t num_gpus;           /* GPUs in the topology export */
	uint32_t reserved;           /* zero */
};
VKFD_ASSERT_SIZE(struct vkfd_capset, 64);
VKFD_ASSERT_OFF(struct vkfd_capset, features, 16);
VKFD_ASSERT_OFF(struct vkfd_capset, kfd_major, 24);
VKFD_ASSERT_OFF(struct vkfd_capset, min_kernel_version, 40);
VKFD_ASSERT_OFF(struct vkfd_capset, num_gpus, 56);

/* ------------------------------------------------------------------ */
/* Limits                                                              */
/* ------------------------------------------------------------------ */

#define VKFD_ALIGN                   8u
#define VKFD_MAX_REQ_SIZE            4096u          /* one request, header included */
#define VKFD_MAX_BATCH_SIZE          (128u * 1024u) /* one SUBMIT_3D payload */
#define VKFD_NUM_RINGS               64u            /* ring 0 + 63 wait rings */
#define VKFD_MAX_GPUS                16u            /* apertures, topology nodes */
#define VKFD_MAX_MAP_DEVICES         64u            /* gpu ids per MAP/UNMAP */
#define VKFD_MAX_WAIT_EVENTS         64u            /* events per WAIT_EVENTS */
#define VKFD_MAX_CU_MASK_BITS        1024u          /* SET_CU_MASK */
#define VKFD_MAX_CU_MASK_WORDS       (VKFD_MAX_CU_MASK_BITS / 32u)
#define VKFD_MAX_TILE_CONFIGS        32u
#define VKFD_MAX_MACRO_TILE_CONFIGS  16u
#define VKFD_MAX_METADATA            256u            /* GET_RESOURCE_INFO metadata bytes */
#define VKFD_MAX_AMDGPU_QUERY        1024u           /* AMDGPU_QUERY payload bytes */
#define VKFD_MAX_MMR_REGS            16u             /* READ_MMR_REG count */
#define VKFD_TOPOLOGY_MAX_CHUNK      (32u * 1024u)   /* GET_TOPOLOGY max_len */
#define VKFD_TOPOLOGY_MAX_SIZE       (1024u * 1024u) /* whole serialized export */
#define VKFD_TOPOLOGY_MAX_PATH       255u
#define VKFD_TOPOLOGY_MAX_FILE       (16u * 1024u)
#define VKFD_SIGNAL_EVENT_SLOTS      4096u /* signal page slots, ids 0..4095 */
#define VKFD_EVENT_ID_NONSIGNAL_BASE 0x40000000u
#define VKFD_EVENT_HINT_MAX_LOCAL    64u /* local answers before a real round trip */
#define VKFD_MAX_ARENAS              64u /* arena ids 1..64 per context */
#define VKFD_MAX_ARENA_SIZE          (256u * 1024u * 1024u) /* bytes of one arena */
#define VKFD_MAX_USERPTR_PIECES      16u /* arena ranges of one ALLOC_USERPTR_PIECES */

/* ------------------------------------------------------------------ */
/* Shared memory (blob id 0)                                           */
/* ------------------------------------------------------------------ */

#define VKFD_SHMEM_BLOB_ID     0u
#define VKFD_SHMEM_MAGIC       0x3144464bu /* "KFD1" little-endian */
#define VKFD_SHMEM_SIZE        (256u * 1024u)
#define VKFD_SHMEM_HDR_SIZE    4096u
#define VKFD_SHMEM_EVENT_OFF   4096u
#define VKFD_SHMEM_EVENT_COUNT VKFD_SIGNAL_EVENT_SLOTS
#define VKFD_SHMEM_RSP_OFF     (64u * 1024u)
#define VKFD_RSP_AREA_SIZE     (VKFD_SHMEM_SIZE - VKFD_SHMEM_RSP_OFF)

/* vkfd_shmem_hdr.async_error: non-zero = context lost. */
#define VKFD_ASYNC_ERR_NONE        0u
#define VKFD_ASYNC_ERR_PROTOCOL    1u /* framing violation in a batch */
#define VKFD_ASYNC_ERR_NO_MEMORY   2u /* host could not queue a batch */
#define VKFD_ASYNC_ERR_DEVICE_LOST 3u /* GPU reset or device gone */
#define VKFD_ASYNC_ERR_WORKER_DIED 4u /* host worker process ended */
#define VKFD_ASYNC_ERR_DESTROYED   5u /* context is being destroyed */
#define VKFD_ASYNC_ERR_BUDGET      6u /* an ALLOC_MEMORY_ASYNC inside the budget failed */
#define VKFD_ASYNC_ERR_MAP         7u /* a MAP_MEMORY_ASYNC failed (no deferred error) */
#define VKFD_ASYNC_ERR_ALLOC       8u /* an ALLOC_MEMORY_ASYNC failed under VKFD_FEAT_STRICT_ALLOC */

/* vkfd_shmem_hdr.flags */
#define VKFD_SHMEM_FLAG_EVENT_HINTS (1u << 0) /* event-state table is maintained */

struct vkfd_shmem_hdr {
	uint32_t magic;       /* VKFD_SHMEM_MAGIC, host writes once */
	uint32_t version;     /* negotiated protocol version */
	uint32_t size;        /* VKFD_SHMEM_SIZE */
	uint32_t flags;       /* VKFD_SHMEM_FLAG_* */
	uint32_t seqno;       /* last processed request seqno (host: release) */
	uint32_t async_error; /* VKFD_ASYNC_ERR_* (host: release) */
	uint32_t rsp_off;     /* VKFD_SHMEM_RSP_OFF */
	uint32_t rsp_size;    /* VKFD_RSP_AREA_SIZE */
	uint32_t event_off;   /* VKFD_SHMEM_EVENT_OFF */
	uint32_t event_count; /* VKFD_SHMEM_EVENT_COUNT */
	/* VKFD_FEAT_ASYNC_ALLOC granted, else zero (docs/protocol.md 14.2) */
	uint32_t max_bos;       /* BO handle indices are 1..max_bos */
	uint32_t budget_allocs; /* GTT allocation requests processed (host: release) */
	uint64_t budget_bytes;  /* GTT bytes guaranteed after budget_allocs */
	/* VKFD_FEAT_ASYNC_MAP: the one word the GUEST writes (store-release):
	 * seqno of its last MAP_MEMORY_ASYNC. The host's doorbell relay rings
	 * nothing it read after it until that request has run (protocol 14.5). */
	uint32_t map_barrier;
	uint32_t reserved; /* zero */
};
VKFD_ASSERT_SIZE(struct vkfd_shmem_hdr, 64);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, max_bos, 40);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, budget_allocs, 44);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, budget_bytes, 48);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, map_barrier, 56);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, seqno, 16);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, async_error, 20);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, rsp_off, 24);
VKFD_ASSERT_OFF(struct vkfd_shmem_hdr, event_off, 32);

/* Event-state table entry: index = signal event id (slot). age 0 = no hint
 * yet. Host writes with release, guest reads with acquire. */
struct vkfd_event_state {
	uint64_t age;
};
VKFD_ASSERT_SIZE(struct vkfd_event_state, 8);

/* ------------------------------------------------------------------ */
/* Framing                                                             */
/* ------------------------------------------------------------------ */

struct vkfd_req_hdr {
	uint32_t cmd;     /* VKFD_CMD_* */
	uint32_t len;     /* whole request incl. header, multiple of 8, >= 16 */
	uint32_t seqno;   /* guest-chosen, increasing by one per request */
	uint32_t rsp_off; /* sync: response slot offset in the response area */
};
VKFD_ASSERT_SIZE(struct vkfd_req_hdr, 16);
VKFD_ASSERT_OFF(struct vkfd_req_hdr, len, 4);
VKFD_ASSERT_OFF(struct vkfd_req_hdr, seqno, 8);
VKFD_ASSERT_OFF(struct vkfd_req_hdr, rsp_off, 12);

struct vkfd_rsp_hdr {
	int32_t ret;    /* 0 or -errno (Linux values) */
	uint32_t len;   /* bytes of response written incl. header */
	uint32_t seqno; /* seqno of the request; written last (release) */
	uint32_t reserved;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_hdr, 16);
VKFD_ASSERT_OFF(struct vkfd_rsp_hdr, len, 4);
VKFD_ASSERT_OFF(struct vkfd_rsp_hdr, seqno, 8);

/* ------------------------------------------------------------------ */
/* Handles                                                             */
/* ------------------------------------------------------------------ */

/* Opaque per-context handle: generation << 32 | index; 0 is never valid. */
#define VKFD_HANDLE(index, gen) (((uint64_t)(uint32_t)(gen) << 32) | (uint32_t)(index))
#define VKFD_HANDLE_INDEX(h)    ((uint32_t)((uint64_t)(h)&0xffffffffu))
#define VKFD_HANDLE_GEN(h)      ((uint32_t)((uint64_t)(h) >> 32))
#define VKFD_HANDLE_INVALID     0ull

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

enum vkfd_cmd {
	/* session and process */
	VKFD_CMD_HELLO = 0x01,
	VKFD_CMD_GET_VERSION = 0x02,
	VKFD_CMD_GET_TOPOLOGY = 0x03,
	VKFD_CMD_GET_PROCESS_APERTURES = 0x04,
	VKFD_CMD_ACQUIRE_VM = 0x05,
	VKFD_CMD_SET_MEMORY_POLICY = 0x06,
	VKFD_CMD_SET_SCRATCH_BACKING_VA = 0x07,
	VKFD_CMD_SET_TRAP_HANDLER = 0x08,
	VKFD_CMD_SET_XNACK_MODE = 0x09,
	VKFD_CMD_GET_CLOCK_COUNTERS = 0x0a,
	VKFD_CMD_AVAILABLE_MEMORY = 0x0b,
	VKFD_CMD_RUNTIME_ENABLE = 0x0c,
	VKFD_CMD_GET_TILE_CONFIG = 0x0d,
	VKFD_CMD_AMDGPU_QUERY = 0x0e,
	/* memory */
	VKFD_CMD_ALLOC_MEMORY = 0x10,
	VKFD_CMD_FREE_MEMORY = 0x11, /* async */
	VKFD_CMD_MAP_MEMORY = 0x12,
	VKFD_CMD_UNMAP_MEMORY = 0x13,
	VKFD_CMD_UNMAP_MEMORY_ASYNC = 0x14, /* async */
	VKFD_CMD_BIND_BLOB = 0x15,          /* async */
	VKFD_CMD_IMPORT_RESOURCE = 0x16,
	VKFD_CMD_GET_RESOURCE_INFO = 0x17,
	VKFD_CMD_ALLOC_MEMORY_ASYNC = 0x18,   /* async, VKFD_FEAT_ASYNC_ALLOC */
	VKFD_CMD_MAP_MEMORY_ASYNC = 0x19,     /* async, VKFD_FEAT_ASYNC_MAP */
	VKFD_CMD_CREATE_ARENA = 0x1a,         /* VKFD_FEAT_ARENAS */
	VKFD_CMD_DESTROY_ARENA = 0x1b,        /* VKFD_FEAT_ARENAS */
	VKFD_CMD_ALLOC_USERPTR_PIECES = 0x1c, /* VKFD_FEAT_USERPTR_PIECES */
	/* queues */
	VKFD_CMD_CREATE_QUEUE = 0x20,
	VKFD_CMD_DESTROY_QUEUE = 0x21,
	VKFD_CMD_UPDATE_QUEUE = 0x22,
	VKFD_CMD_SET_CU_MASK = 0x23,
	VKFD_CMD_ALLOC_QUEUE_GWS = 0x24,
	VKFD_CMD_DOORBELL_NOTIFY = 0x25, /* async */
	VKFD_CMD_HDP_FLUSH = 0x26,       /* async */
	/* events */
	VKFD_CMD_CREATE_EVENT = 0x30,
	VKFD_CMD_DESTROY_EVENT = 0x31,
	VKFD_CMD_SET_EVENT = 0x32,
	VKFD_CMD_RESET_EVENT = 0x33,
	VKFD_CMD_WAIT_EVENTS = 0x34,         /* sync, fenced on ring 1..63 */
	VKFD_CMD_DESTROY_EVENT_ASYNC = 0x35, /* async */
	VKFD_CMD_SET_EVENT_ASYNC = 0x36,     /* async */
	VKFD_CMD_RESET_EVENT_ASYNC = 0x37,   /* async */

	VKFD_CMD_COUNT_ = 0x38, /* one past the highest id, not a command */
};

/* --- HELLO (sync): negotiate the protocol version ------------------- */
struct vkfd_req_hello {
	struct vkfd_req_hdr hdr;
	uint32_t version_min; /* guest's range */
	uint32_t version_max;
	uint64_t features; /* VKFD_FEAT_* the guest wants to use */
};
VKFD_ASSERT_SIZE(struct vkfd_req_hello, 32);
struct vkfd_rsp_hello {
	struct vkfd_rsp_hdr hdr;
	uint32_t version; /* chosen version */
	uint32_t pad;
	uint64_t features; /* granted: requested & offered */
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_hello, 32);

/* --- GET_VERSION (sync) --------------------------------------------- */
struct vkfd_req_get_version {
	struct vkfd_req_hdr hdr;
};
VKFD_ASSERT_SIZE(struct vkfd_req_get_version, 16);
struct vkfd_rsp_get_version {
	struct vkfd_rsp_hdr hdr;
	uint32_t major; /* KFD ioctl version the guest should report */
	uint32_t minor;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_get_version, 24);

/* --- GET_TOPOLOGY (sync, paged) ------------------------------------- */
struct vkfd_req_get_topology {
	struct vkfd_req_hdr hdr;
	uint64_t offset;  /* into the serialized export, multiple of 8 */
	uint32_t max_len; /* 8..VKFD_TOPOLOGY_MAX_CHUNK, multiple of 8 */
	uint32_t flags;   /* 0 */
};
VKFD_ASSERT_SIZE(struct vkfd_req_get_topology, 32);
/* chunk_len bytes of the serialized export follow the structure. */
struct vkfd_rsp_get_topology {
	struct vkfd_rsp_hdr hdr;
	uint64_t total_len;  /* size of the whole serialized export */
	uint32_t chunk_len;  /* bytes of data[] that follow */
	uint32_t generation; /* export generation; restart if it changes */
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_get_topology, 32);

/* Topology record: {path_len, data_len, path bytes, data bytes}, the whole
 * record padded with zeroes to a multiple of 8. */
struct vkfd_topo_record {
	uint32_t path_len; /* 1..VKFD_TOPOLOGY_MAX_PATH, no NUL */
	uint32_t data_len; /* 0..VKFD_TOPOLOGY_MAX_FILE */
};
VKFD_ASSERT_SIZE(struct vkfd_topo_record, 8);

/* --- GET_PROCESS_APERTURES (sync) ----------------------------------- */
struct vkfd_aperture {
	uint64_t lds_base;
	uint64_t lds_limit;
	uint64_t scratch_base;
	uint64_t scratch_limit;
	uint64_t gpuvm_base;
	uint64_t gpuvm_limit;
	uint32_t gpu_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_aperture, 56);
struct vkfd_req_get_process_apertures {
	struct vkfd_req_hdr hdr;
	uint32_t max_nodes; /* 1..VKFD_MAX_GPUS */
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_get_process_apertures, 24);
struct vkfd_rsp_get_process_apertures {
	struct vkfd_rsp_hdr hdr;
	uint32_t num_nodes; /* entries filled, <= max_nodes */
	uint32_t pad;
	struct vkfd_aperture apertures[VKFD_MAX_GPUS];
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_get_process_apertures, 920);
VKFD_ASSERT_OFF(struct vkfd_rsp_get_process_apertures, apertures, 24);

/* --- requests that carry only a gpu id ------------------------------ */
/* ACQUIRE_VM, AVAILABLE_MEMORY, GET_CLOCK_COUNTERS, HDP_FLUSH */
struct vkfd_req_gpu {
	struct vkfd_req_hdr hdr;
	uint32_t gpu_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_gpu, 24);
#define vkfd_req_acquire_vm         vkfd_req_gpu
#define vkfd_req_available_memory   vkfd_req_gpu
#define vkfd_req_get_clock_counters vkfd_req_gpu
#define vkfd_req_hdp_flush          vkfd_req_gpu

/* Response carrying nothing but the header. */
struct vkfd_rsp_empty {
	struct vkfd_rsp_hdr hdr;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_empty, 16);

/* --- SET_MEMORY_POLICY (sync) --------------------------------------- */
struct vkfd_req_set_memory_policy {
	struct vkfd_req_hdr hdr;
	uint64_t alternate_aperture_base;
	uint64_t alternate_aperture_size;
	uint32_t gpu_id;
	uint32_t default_policy;   /* KFD_IOC_CACHE_POLICY_* (0, 1) */
	uint32_t alternate_policy; /* KFD_IOC_CACHE_POLICY_* (0, 1) */
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_set_memory_policy, 48);

/* --- SET_SCRATCH_BACKING_VA (sync) ---------------------------------- */
struct vkfd_req_set_scratch_backing_va {
	struct vkfd_req_hdr hdr;
	uint64_t va_addr; /* as the kernel's: scratch VA >> 16 in practice */
	uint32_t gpu_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_set_scratch_backing_va, 32);

/* --- SET_TRAP_HANDLER (sync) ---------------------------------------- */
struct vkfd_req_set_trap_handler {
	struct vkfd_req_hdr hdr;
	uint64_t tba_addr;
	uint64_t tma_addr;
	uint32_t gpu_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_set_trap_handler, 40);

/* --- SET_XNACK_MODE (sync) ------------------------------------------ */
struct vkfd_req_set_xnack_mode {
	struct vkfd_req_hdr hdr;
	int32_t xnack_enabled; /* -1 query, 0 off, 1 on */
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_set_xnack_mode, 24);
struct vkfd_rsp_set_xnack_mode {
	struct vkfd_rsp_hdr hdr;
	int32_t xnack_enabled; /* current mode */
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_set_xnack_mode, 24);

/* --- GET_CLOCK_COUNTERS (sync), request vkfd_req_gpu ----------------- */
struct vkfd_rsp_get_clock_counters {
	struct vkfd_rsp_hdr hdr;
	uint64_t gpu_clock_counter;
	uint64_t cpu_clock_counter;    /* host CLOCK_MONOTONIC_RAW ns */
	uint64_t system_clock_counter; /* host CLOCK_BOOTTIME ns */
	uint64_t system_clock_freq;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_get_clock_counters, 48);

/* --- AVAILABLE_MEMORY (sync), request vkfd_req_gpu ------------------- */
struct vkfd_rsp_available_memory {
	struct vkfd_rsp_hdr hdr;
	uint64_t available;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_available_memory, 24);

/* --- RUNTIME_ENABLE (sync) ------------------------------------------ */
struct vkfd_req_runtime_enable {
	struct vkfd_req_hdr hdr;
	uint64_t r_debug; /* guest value; recorded, never dereferenced */
	uint32_t mode_mask;
	uint32_t capabilities_mask;
};
VKFD_ASSERT_SIZE(struct vkfd_req_runtime_enable, 32);
struct vkfd_rsp_runtime_enable {
	struct vkfd_rsp_hdr hdr;
	uint32_t capabilities_mask;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_runtime_enable, 24);

/* --- GET_TILE_CONFIG (sync) ----------------------------------------- */
struct vkfd_req_get_tile_config {
	struct vkfd_req_hdr hdr;
	uint32_t gpu_id;
	uint32_t num_tile_configs;       /* capacity, <= VKFD_MAX_TILE_CONFIGS */
	uint32_t num_macro_tile_configs; /* capacity, <= VKFD_MAX_MACRO_TILE_CONFIGS */
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_get_tile_config, 32);
struct vkfd_rsp_get_tile_config {
	struct vkfd_rsp_hdr hdr;
	uint32_t num_tile_configs;
	uint32_t num_macro_tile_configs;
	uint32_t gb_addr_config;
	uint32_t num_banks;
	uint32_t num_ranks;
	uint32_t pad;
	uint32_t tile_config[VKFD_MAX_TILE_CONFIGS];
	uint32_t macro_tile_config[VKFD_MAX_MACRO_TILE_CONFIGS];
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_get_tile_config, 232);
VKFD_ASSERT_OFF(struct vkfd_rsp_get_tile_config, tile_config, 40);

/* --- AMDGPU_QUERY (sync) -------------------------------------------- */
enum vkfd_amdgpu_query {
	VKFD_AMDGPU_QUERY_DRM_VERSION = 1,   /* struct vkfd_amdgpu_drm_version */
	VKFD_AMDGPU_QUERY_ACCEL_WORKING = 2, /* uint32_t */
	VKFD_AMDGPU_QUERY_DEV_INFO = 3,      /* struct drm_amdgpu_info_device bytes */
	VKFD_AMDGPU_QUERY_READ_MMR_REG = 4,  /* uint32_t[count] */
	VKFD_AMDGPU_QUERY_VRAM_GTT = 5,      /* struct drm_amdgpu_info_vram_gtt */
	VKFD_AMDGPU_QUERY_MEMORY = 6,        /* struct drm_amdgpu_memory_info */
	VKFD_AMDGPU_QUERY_FW_VERSION = 7,    /* struct drm_amdgpu_info_firmware */
	VKFD_AMDGPU_QUERY_HW_IP_INFO = 8,    /* struct drm_amdgpu_info_hw_ip */
	VKFD_AMDGPU_QUERY_HW_IP_COUNT = 9,   /* uint32_t */
	VKFD_AMDGPU_QUERY_COUNT_ = 10,
};
struct vkfd_req_amdgpu_query {
	struct vkfd_req_hdr hdr;
	uint32_t gpu_id;
	uint32_t query;    /* enum vkfd_amdgpu_query */
	uint32_t out_size; /* 1..VKFD_MAX_AMDGPU_QUERY */
	uint32_t pad;
	/* READ_MMR_REG: param0 = dword offset, param1 = count | instance << 32
	 * FW_VERSION: param0 = fw type, param1 = ip instance | index << 32
	 * HW_IP_INFO / HW_IP_COUNT: param0 = ip type, param1 = ip instance */
	uint64_t param0;
	uint64_t param1;
};
VKFD_ASSERT_SIZE(struct vkfd_req_amdgpu_query, 48);
struct vkfd_rsp_amdgpu_query {
	struct vkfd_rsp_hdr hdr;
	uint32_t size; /* payload bytes written, <= out_size */
	uint32_t pad;
	/* uint8_t data[out_size rounded up to 8] follows */
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_amdgpu_query, 24);
struct vkfd_amdgpu_drm_version {
	uint32_t major;
	uint32_t minor;
	uint32_t patchlevel;
	uint32_t pad;
	char name[16]; /* NUL-terminated, "amdgpu" */
};
VKFD_ASSERT_SIZE(struct vkfd_amdgpu_drm_version, 32);

/* --- ALLOC_MEMORY (sync) -------------------------------------------- */
/* Cache mode the guest must use for the blob (matches vkfd_blob_map). */
#define VKFD_MAP_CACHED   1u
#define VKFD_MAP_UNCACHED 2u
#define VKFD_MAP_WC       3u
/* vkfd_rsp_alloc_memory.map_flags */
#define VKFD_ALLOC_MAP_MIRRORED (1u << 0) /* map the blob twice back to back */
#define VKFD_ALLOC_MAP_SHADOW   (1u << 1) /* doorbell/MMIO: blob is a shadow page */
#define VKFD_ALLOC_MAP_NONE     (1u << 2) /* cannot be CPU mapped */
#define VKFD_ALLOC_MAP_ARENA    (1u << 3) /* CPU mapping: a slice of the arena's blob */
/* vkfd_req_alloc_memory.alloc_flags */
#define VKFD_ALLOC_ARENA (1u << 0) /* memory from arena_id at arena_offset */
struct vkfd_req_alloc_memory {
	struct vkfd_req_hdr hdr;
	uint64_t va; /* guest-chosen GPU VA (= guest CPU VA) */
	uint64_t size;
	uint32_t gpu_id;
	uint32_t flags; /* KFD_IOC_ALLOC_MEM_FLAGS_*, USERPTR refused */
	/* protocol 1.1 (zero-extended for a 1.0 guest) */
	/* VKFD_FEAT_GUEST_HANDLES: the handle the guest chose, 0 = host
	 * chooses (1.0); required by ALLOC_MEMORY_ASYNC */
	uint64_t new_handle;
	uint64_t arena_offset; /* VKFD_ALLOC_ARENA: page-aligned byte offset */
	uint32_t arena_id;     /* VKFD_ALLOC_ARENA: 1..VKFD_MAX_ARENAS, else 0 */
	uint32_t alloc_flags;  /* VKFD_ALLOC_* */
};
VKFD_ASSERT_SIZE(struct vkfd_req_alloc_memory, 64);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_memory, va, 16);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_memory, flags, 36);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_memory, new_handle, 40);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_memory, arena_offset, 48);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_memory, alloc_flags, 60);
struct vkfd_rsp_alloc_memory {
	struct vkfd_rsp_hdr hdr;
	uint64_t handle;    /* opaque BO handle */
	uint64_t blob_size; /* size of the blob a BIND_BLOB exports */
	uint32_t map_info;  /* VKFD_MAP_* */
	uint32_t map_flags; /* VKFD_ALLOC_MAP_* */
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_alloc_memory, 40);

/* --- requests that carry only a handle ------------------------------ */
/* FREE_MEMORY, DESTROY_QUEUE, DOORBELL_NOTIFY */
struct vkfd_req_handle {
	struct vkfd_req_hdr hdr;
	uint64_t handle;
};
VKFD_ASSERT_SIZE(struct vkfd_req_handle, 24);
#define vkfd_req_free_memory     vkfd_req_handle
#define vkfd_req_destroy_queue   vkfd_req_handle
#define vkfd_req_doorbell_notify vkfd_req_handle

/* --- MAP_MEMORY / UNMAP_MEMORY / UNMAP_MEMORY_ASYNC ------------------ */
/* Variable length: len = VKFD_REQ_MAP_MEMORY_LEN(n_devices). */
struct vkfd_req_map_memory {
	struct vkfd_req_hdr hdr;
	uint64_t handle;
	uint32_t n_devices; /* 1..VKFD_MAX_MAP_DEVICES */
	uint32_t n_success; /* devices already done, < n_devices */
	uint32_t device_ids[VKFD_MAX_MAP_DEVICES];
};
VKFD_ASSERT_SIZE(struct vkfd_req_map_memory, 288);
VKFD_ASSERT_OFF(struct vkfd_req_map_memory, device_ids, 32);
#define vkfd_req_unmap_memory      vkfd_req_map_memory
#define VKFD_REQ_MAP_MEMORY_LEN(n) ((uint32_t)((32u + 4u * (uint32_t)(n) + 7u) & ~7u))
struct vkfd_rsp_map_memory {
	struct vkfd_rsp_hdr hdr;
	uint32_t n_success;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_map_memory, 24);
#define vkfd_rsp_unmap_memory vkfd_rsp_map_memory

/* --- BIND_BLOB (async) ---------------------------------------------- */
struct vkfd_req_bind_blob {
	struct vkfd_req_hdr hdr;
	uint64_t handle;  /* BO handle */
	uint64_t blob_id; /* guest-chosen, != 0, unused in this context */
};
VKFD_ASSERT_SIZE(struct vkfd_req_bind_blob, 32);

/* --- IMPORT_RESOURCE (sync) ----------------------------------------- */
struct vkfd_req_import_resource {
	struct vkfd_req_hdr hdr;
	uint64_t va;     /* GPU VA to import at */
	uint32_t res_id; /* VMM resource attached to this context */
	uint32_t gpu_id;
};
VKFD_ASSERT_SIZE(struct vkfd_req_import_resource, 32);
struct vkfd_rsp_import_resource {
	struct vkfd_rsp_hdr hdr;
	uint64_t handle;
	uint64_t size;
	uint32_t flags; /* KFD_IOC_ALLOC_MEM_FLAGS_* of the import */
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_import_resource, 40);

/* --- GET_RESOURCE_INFO (sync): GET_DMABUF_INFO of an attached resource */
struct vkfd_req_get_resource_info {
	struct vkfd_req_hdr hdr;
	uint32_t res_id;
	uint32_t metadata_size; /* capacity, <= VKFD_MAX_METADATA */
};
VKFD_ASSERT_SIZE(struct vkfd_req_get_resource_info, 24);
struct vkfd_rsp_get_resource_info {
	struct vkfd_rsp_hdr hdr;
	uint64_t size;
	uint32_t gpu_id; /* 0 when the resource is not GPU memory */
	uint32_t flags;
	uint32_t metadata_size; /* actual size; may exceed capacity */
	uint32_t pad;
	uint8_t metadata[VKFD_MAX_METADATA];
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_get_resource_info, 296);
VKFD_ASSERT_OFF(struct vkfd_rsp_get_resource_info, metadata, 40);

/* --- CREATE_ARENA (sync): one sealed memory object, one blob -------- */
struct vkfd_req_create_arena {
	struct vkfd_req_hdr hdr;
	uint64_t size;     /* page multiple, 1 page..VKFD_MAX_ARENA_SIZE */
	uint64_t blob_id;  /* guest-chosen, != 0, unused in this context */
	uint32_t arena_id; /* guest-chosen, 1..VKFD_MAX_ARENAS, not live */
	uint32_t flags;    /* 0 */
};
VKFD_ASSERT_SIZE(struct vkfd_req_create_arena, 40);
VKFD_ASSERT_OFF(struct vkfd_req_create_arena, blob_id, 24);
VKFD_ASSERT_OFF(struct vkfd_req_create_arena, arena_id, 32);

/* --- ALLOC_USERPTR_PIECES (sync, VKFD_FEAT_USERPTR_PIECES) ----------- */
/* One GTT BO whose memory is a list of arena page ranges, in order: the
 * host registers them with KFD as one USERPTR range (docs/protocol.md
 * 9.4.2). A page may be named by several BOs; it lives while one does. */
struct vkfd_userptr_piece {
	uint64_t arena_offset; /* page-aligned byte offset in the arena */
	uint32_t arena_id;     /* 1..VKFD_MAX_ARENAS, a live arena */
	uint32_t pages;        /* >= 1; the range lies inside the arena */
};
VKFD_ASSERT_SIZE(struct vkfd_userptr_piece, 16);
struct vkfd_req_alloc_userptr_pieces {
	struct vkfd_req_hdr hdr;
	uint64_t va;         /* GPU VA */
	uint64_t size;       /* = 4096 * sum of pieces[].pages */
	uint64_t new_handle; /* as ALLOC_MEMORY's; 0 = host chooses */
	uint32_t gpu_id;
	uint32_t flags;    /* KFD_IOC_ALLOC_MEM_FLAGS_*: GTT, no AQL_QUEUE_MEM */
	uint32_t n_pieces; /* 1..VKFD_MAX_USERPTR_PIECES */
	uint32_t pad;      /* 0 */
	struct vkfd_userptr_piece pieces[VKFD_MAX_USERPTR_PIECES];
};
VKFD_ASSERT_SIZE(struct vkfd_req_alloc_userptr_pieces, 312);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_userptr_pieces, gpu_id, 40);
VKFD_ASSERT_OFF(struct vkfd_req_alloc_userptr_pieces, pieces, 56);
/* answered with struct vkfd_rsp_alloc_memory (map_flags VKFD_ALLOC_MAP_ARENA) */

/* --- DESTROY_ARENA (sync): -EBUSY while a BO lives in it ------------- */
struct vkfd_req_destroy_arena {
	struct vkfd_req_hdr hdr;
	uint32_t arena_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_destroy_arena, 24);

/* --- CREATE_QUEUE (sync) -------------------------------------------- */
struct vkfd_req_create_queue {
	struct vkfd_req_hdr hdr;
	uint64_t ring_base_address;
	uint64_t write_pointer_address;
	uint64_t read_pointer_address;
	uint64_t eop_buffer_address;
	uint64_t eop_buffer_size;
	uint64_t ctx_save_restore_address;
	uint32_t ring_size;
	uint32_t gpu_id;
	uint32_t queue_type; /* KFD_IOC_QUEUE_TYPE_* */
	uint32_t queue_percentage;
	uint32_t queue_priority;
	uint32_t ctx_save_restore_size;
	uint32_t ctl_stack_size;
	uint32_t sdma_engine_id;
};
VKFD_ASSERT_SIZE(struct vkfd_req_create_queue, 96);
VKFD_ASSERT_OFF(struct vkfd_req_create_queue, ring_size, 64);
VKFD_ASSERT_OFF(struct vkfd_req_create_queue, sdma_engine_id, 92);
struct vkfd_rsp_create_queue {
	struct vkfd_rsp_hdr hdr;
	uint64_t queue;          /* opaque queue handle */
	uint32_t doorbell_index; /* u64 slot in the GPU's shadow doorbell page */
	uint32_t ring_size;      /* possibly clamped by the kernel */
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_create_queue, 32);

/* --- UPDATE_QUEUE (sync) -------------------------------------------- */
struct vkfd_req_update_queue {
	struct vkfd_req_hdr hdr;
	uint64_t queue;
	uint64_t ring_base_address;
	uint32_t ring_size;
	uint32_t queue_percentage;
	uint32_t queue_priority;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_update_queue, 48);

/* --- SET_CU_MASK (sync), variable length ---------------------------- */
struct vkfd_req_set_cu_mask {
	struct vkfd_req_hdr hdr;
	uint64_t queue;
	uint32_t num_cu_mask; /* bits, multiple of 32, 32..VKFD_MAX_CU_MASK_BITS */
	uint32_t pad;
	uint32_t cu_mask[VKFD_MAX_CU_MASK_WORDS];
};
VKFD_ASSERT_SIZE(struct vkfd_req_set_cu_mask, 160);
VKFD_ASSERT_OFF(struct vkfd_req_set_cu_mask, cu_mask, 32);
#define VKFD_REQ_SET_CU_MASK_LEN(bits)                                                             \
	((uint32_t)((32u + 4u * (((uint32_t)(bits) + 31u) / 32u) + 7u) & ~7u))

/* --- ALLOC_QUEUE_GWS (sync) ----------------------------------------- */
struct vkfd_req_alloc_queue_gws {
	struct vkfd_req_hdr hdr;
	uint64_t queue;
	uint32_t num_gws;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_alloc_queue_gws, 32);
struct vkfd_rsp_alloc_queue_gws {
	struct vkfd_rsp_hdr hdr;
	uint32_t first_gws;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_alloc_queue_gws, 24);

/* --- CREATE_EVENT (sync) -------------------------------------------- */
struct vkfd_req_create_event {
	struct vkfd_req_hdr hdr;
	uint64_t event_page; /* BO handle of the guest's event page, or 0 */
	uint32_t event_type; /* KFD_IOC_EVENT_* */
	uint32_t auto_reset; /* 0 or 1 */
	uint32_t node_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_create_event, 40);
struct vkfd_rsp_create_event {
	struct vkfd_rsp_hdr hdr;
	uint32_t event_id;
	uint32_t event_slot_index;
	uint32_t event_trigger_data;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_create_event, 32);

/* --- DESTROY/SET/RESET_EVENT (sync and async variants) -------------- */
struct vkfd_req_event {
	struct vkfd_req_hdr hdr;
	uint32_t event_id;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_req_event, 24);
#define vkfd_req_destroy_event vkfd_req_event
#define vkfd_req_set_event     vkfd_req_event
#define vkfd_req_reset_event   vkfd_req_event

/* --- WAIT_EVENTS (sync, fenced on ring_idx), variable length --------- */
struct vkfd_wait_event {
	uint32_t event_id;
	uint32_t pad;
	uint64_t last_event_age; /* 0 = none */
};
VKFD_ASSERT_SIZE(struct vkfd_wait_event, 16);
struct vkfd_req_wait_events {
	struct vkfd_req_hdr hdr;
	uint32_t ring_idx;     /* 1..VKFD_NUM_RINGS-1 */
	uint32_t num_events;   /* 1..VKFD_MAX_WAIT_EVENTS */
	uint32_t wait_for_all; /* 0 or 1 */
	uint32_t timeout_ms;   /* 0 poll, 0xffffffff infinite */
	struct vkfd_wait_event events[VKFD_MAX_WAIT_EVENTS];
};
VKFD_ASSERT_SIZE(struct vkfd_req_wait_events, 1056);
VKFD_ASSERT_OFF(struct vkfd_req_wait_events, events, 32);
#define VKFD_REQ_WAIT_EVENTS_LEN(n) ((uint32_t)(32u + 16u * (uint32_t)(n)))

/* vkfd_event_data.kind */
#define VKFD_EVENT_DATA_NONE   0u
#define VKFD_EVENT_DATA_MEMORY 1u /* memory exception fields valid */
#define VKFD_EVENT_DATA_HW     2u /* hw exception fields valid */
struct vkfd_event_data {
	uint32_t event_id;
	uint32_t kind;      /* VKFD_EVENT_DATA_* */
	uint64_t event_age; /* 0 when the host KFD has no ages */
	/* memory exception */
	uint64_t va;
	uint32_t gpu_id;
	uint32_t error_type;
	uint32_t not_present;
	uint32_t read_only;
	uint32_t no_execute;
	uint32_t imprecise;
	/* hw exception (gpu_id above) */
	uint32_t reset_type;
	uint32_t reset_cause;
	uint32_t memory_lost;
	uint32_t pad;
};
VKFD_ASSERT_SIZE(struct vkfd_event_data, 64);
VKFD_ASSERT_OFF(struct vkfd_event_data, va, 16);
VKFD_ASSERT_OFF(struct vkfd_event_data, reset_type, 48);
struct vkfd_rsp_wait_events {
	struct vkfd_rsp_hdr hdr;
	uint32_t wait_result; /* KFD_IOC_WAIT_RESULT_* */
	uint32_t num_events;
	struct vkfd_event_data events[VKFD_MAX_WAIT_EVENTS];
};
VKFD_ASSERT_SIZE(struct vkfd_rsp_wait_events, 4120);
VKFD_ASSERT_OFF(struct vkfd_rsp_wait_events, events, 24);
#define VKFD_RSP_WAIT_EVENTS_LEN(n) ((uint32_t)(24u + 64u * (uint32_t)(n)))

#ifdef __cplusplus
}
#endif
#endif
