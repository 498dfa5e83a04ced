/* SPDX-License-Identifier: MIT */
/*
 * kfdsim core internals shared by its files: the machine, processes (one per
 * kfd fd), per-GPU process data, BOs, GPU mappings, events and queues.
 *
 * Lock order: sim->lock may be taken alone or after proc->lock; proc->lock
 * (ioctl serialisation) before pdd->vm_lock / proc->ev_lock / proc->q_lock.
 * Engine callbacks take only vm_lock, ev_lock and q_lock, never proc->lock,
 * so an ioctl may join an engine thread while holding proc->lock.
 * sim->kick_lock comes after sim->lock; a doorbell ring takes it (read)
 * before proc->q_lock and never takes sim->lock.
 */
#ifndef KFDSIM_SIM_PRIV_H
#define KFDSIM_SIM_PRIV_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vkfd/kfdsim.h"
#include "kfdsim_test_hooks.h"
#include "sim_kfd_internal.h"
#include "engine/sim_engine.h"
#include "svm_ranges.h"

#define SIM_PAGE_SIZE        4096ULL
#define SIM_DOORBELL_SLICE   8192u                    /* SOC15 process doorbell slice */
#define SIM_DOORBELLS        (SIM_DOORBELL_SLICE / 8) /* 8-byte doorbells */
#define SIM_MAX_QUEUES       1024u                    /* KFD_MAX_NUM_OF_QUEUES_PER_PROCESS */
#define SIM_MAX_OTHER_EVENTS 4096u                    /* kfdsim bound, see docs */
#define SIM_MAX_WAIT_EVENTS  65536u                   /* kfdsim bound, see docs */
#define SIM_MAX_CU_MASK_BITS 1024u
#define SIM_TASK_SIZE        0x7ffffffff000ULL /* x86-64 user VA limit */
#define SIM_GPUVM_LIMIT      (1ULL << 47)      /* GPUVM end below the hole */
/* the GMC hole of 48-bit GPUVMs: addresses above it are the VM's upper half */
#define SIM_GMC_HOLE_START    0x0000800000000000ULL
#define SIM_GMC_HOLE_END      0xffff800000000000ULL
#define SIM_GMC_HOLE_MASK     0x0000ffffffffffffULL
#define SIM_GPU_CLOCK_HZ      100000000ULL
#define SIM_EOP_BUFFER_SIZE   4096u /* node eop_buffer_size, GFX9+ */
#define SIM_MAX_KFD_MINOR     19
#define SIM_NR_CREATE_PROCESS 0x27

/* A GPU address as the VM sees it (amdgpu folds the upper half). */
static inline uint64_t sim_gpuvm_fold(uint64_t va)
{
	return va >= SIM_GMC_HOLE_END ? va & SIM_GMC_HOLE_MASK : va;
}

struct sim_target {
	const char *name; /* gfx90a */
	const char *asic; /* node "name" file */
	uint32_t gfx_target_version;
	uint32_t gc_ip; /* GC IP version: major << 16 | minor << 8 | revision */
	uint32_t device_id;
	uint32_t cu_count;
	uint32_t simd_per_cu;
	uint32_t wave_front_size;
	uint32_t max_waves_per_simd;
	uint32_t array_count;
	uint32_t simd_arrays_per_engine;
	uint32_t cu_per_simd_array;
	uint32_t lds_kb;
	uint32_t gds_kb;
	uint32_t num_gws;
	uint32_t max_slots_scratch_cu;
	uint32_t num_sdma;
	uint32_t num_sdma_xgmi;
	uint32_t sdma_queues_per_engine;
	/* SDMA IP version: selects the packet format (sim_sdma_format_for_ip) */
	uint8_t sdma_ip_major, sdma_ip_minor;
	uint32_t num_cp_queues;
	uint32_t max_clk_mhz;
	uint32_t fw_version;
	uint32_t sdma_fw_version;
	uint32_t l1_kb;
	uint32_t l2_kb;
	uint64_t debug_prop;
	uint32_t capability;
	uint32_t vram_width;   /* bits, mem_banks "width" */
	uint32_t vram_clk_mhz; /* mem_banks "mem_clk_max" */
	uint32_t gb_addr_config;
	bool xnack_capable;
};

const struct sim_target *sim_target_find(const char *name);

struct sim_gpu {
	unsigned index;
	uint32_t gpu_id;
	uint32_t node_id;
	const struct sim_target *t;
	uint32_t location_id;
	uint64_t unique_id;
	uint64_t vram_used; /* under sim->lock */
	/* SDMA queue slots in use (all processes), one bit per slot of each
	 * engine class, under sim->lock (sdma_slots.c) */
	uint64_t sdma_slots;
	uint64_t xgmi_slots;
};

struct sim_process;
struct sim_backing;

struct sim_bo;

struct sim_mapping {
	uint64_t start, end; /* GPU VA, end exclusive */
	uint8_t *host;
	bool writable;
	struct sim_bo *bo;           /* KFD BO (MAP_MEMORY_TO_GPU), or NULL */
	struct sim_backing *backing; /* the memory (GEM_VA matches BOs by it) */
	bool gem;                    /* made by GEM_VA on the render fd */
	bool svm;                    /* an SVM range's CPU pages (svm.c) */
};

/* A GPU VM's mappings, sorted by start, no overlap. */
struct sim_vm {
	struct sim_mapping *maps;
	size_t nmaps, maps_cap;
};

/* An SMI event client (smi.c): kfdsim's end of the client's socket. */
struct sim_smi_client {
	int fd;
	uint64_t events; /* the mask the client wrote last */
	struct sim_smi_client *next;
};

enum sim_file_kind { SIM_FILE_KFD = 1, SIM_FILE_RENDER = 2 };

struct sim_gem;

/* A render file (drm_file): its GEM handles and, until a KFD process
 * acquires it, its own VM (render_gem.c). All under sim->lock. */
struct sim_render {
	unsigned refs;             /* under sim->lock */
	unsigned gpu;              /* GPU index */
	struct sim_process *owner; /* process whose VM uses it, sim->lock */
	struct sim_gem **gems;     /* handle h is gems[h - 1] */
	uint32_t gems_cap;
	struct sim_vm vm; /* GEM_VA mappings made before ACQUIRE_VM */
};

struct sim_file {
	int fd;
	dev_t dev;
	ino_t ino;
	enum sim_file_kind kind;
	struct sim_process *proc;
	struct sim_render *render;
};

struct sim_export {
	dev_t dev;
	ino_t ino;
	/* strong (PRIME exports of GEM objects): a reference, as a dmabuf
	 * holds its BO, dropped once no fd of the process shows the dmabuf
	 * any more; weak (KFD EXPORT_DMABUF): removed when the backing dies */
	struct sim_backing *backing;
	bool strong;
	uint32_t gpu_id;
	uint32_t flags;
};

struct kfdsim {
	struct kfdsim_config cfg;
	unsigned ngpus;
	struct sim_gpu gpus[KFDSIM_MAX_GPUS];
	char root[PATH_MAX];
	bool root_private;
	int root_lock_fd; /* flock held on the private tree's owner file */
	/* 6.12's exact queue buffer sizes; VKFDSIM_QUEUE_BUFFERS=contain: off */
	bool exact_queue_buffers;

	pthread_mutex_t lock;
	pthread_cond_t latch_cv;
	/* WAIT_EVENTS calls asleep now, all processes (a test hook reads it) */
	atomic_uint blocked_waits;
	struct sim_file **files; /* indexed by fd */
	size_t files_cap;
	/* The process of each kfd fd, for doorbell rings (sim_ring_doorbell),
	 * which take neither sim->lock nor a reference: written under
	 * sim->lock and kick_lock (write) while the file holds its process,
	 * read under kick_lock (read). Cleared before the file lets go. */
	pthread_rwlock_t kick_lock;
	struct sim_process **kick_procs; /* indexed by fd */
	size_t kick_cap;
	uint64_t gtt_used;
	uint64_t bytes_allocated;
	uint64_t next_fake_offset;
	struct sim_export *exports;
	size_t nexports, exports_cap;
	/* SMI event clients per GPU index (smi.c), under smi_lock */
	pthread_mutex_t smi_lock;
	struct sim_smi_client *smi[KFDSIM_MAX_GPUS];
	struct {
		unsigned nth;
		int err;
	} inject[256];
	struct {
		bool on;
		unsigned parked;
	} latch[256];
};

/* Memory shared by BOs (an imported BO shares its exporter's backing). */
struct sim_backing {
	struct kfdsim *sim;
	unsigned refs; /* atomic */
	int memfd;
	uint64_t size;
	uint8_t *host;
	dev_t dev;
	ino_t ino;
	bool counted; /* BO memory (kfdsim_bytes_allocated), not internal pages */
};

struct sim_bo {
	struct sim_pdd *pdd;
	uint32_t id;
	uint64_t handle;
	uint32_t flags;
	uint64_t va;
	uint64_t size;       /* as requested */
	uint64_t alloc_size; /* backing bytes (half for AQL queue memory) */
	uint64_t mmap_offset;
	uint64_t acct; /* bytes charged to VRAM / GTT */
	struct sim_backing *backing;
	uint8_t *userptr;
	bool imported;
	uint32_t mapped_mask; /* GPU indexes whose VM maps it */
	/* queues (per GPU VM) using it as ring/rptr/wptr/EOP (KFD 1.17) */
	unsigned queue_refs[KFDSIM_MAX_GPUS];
};

struct sim_grave {
	void *addr;
	size_t len;
};

struct sim_pdd {
	struct sim_process *proc;
	struct sim_gpu *gpu;
	struct sim_render *render; /* acquired VM, holds a reference */

	struct sim_bo **bos; /* idr: index = handle id */
	uint32_t bos_cap;

	pthread_rwlock_t vm_lock;
	struct sim_vm vm;        /* the acquired render file's VM */
	struct sim_grave *grave; /* host mappings retired while queues ran */
	size_t ngrave, grave_cap;

	struct sim_backing *doorbells; /* lazily created slice */
	uint8_t doorbell_used[SIM_DOORBELLS / 8];
	/* the queue id + 1 of each doorbell index's queue, 0 for none: what
	 * a ring kicks (sim_queues_doorbell_rung); under proc->q_lock */
	uint16_t doorbell_qid[SIM_DOORBELLS];
	struct sim_backing *mmio; /* HDP flush page (zeros) */

	uint64_t scratch_va;
	uint64_t tba, tma;
	uint32_t default_policy, alternate_policy;
	uint64_t ape1_base, ape1_size;
	bool gws_assigned;
	struct sim_gpu_env env;
	/* debugger (debug_trap.c), under proc->lock */
	uint64_t exception_status;
	uint32_t watch_ids; /* address watch ids in use, one bit each */
	uint64_t watch_addr[4];
};

struct sim_event;
struct sim_waiter {
	struct sim_event *ev; /* NULL once the event is destroyed */
	bool activated;
	bool age_enabled;
	struct sim_waiter *next;     /* ev->waiters: not yet activated */
	struct sim_waiter *next_all; /* ev->all_waiters: every waiter */
};

struct sim_event {
	uint32_t id;
	uint32_t type;
	bool auto_reset;
	bool signaled;
	uint64_t age;
	struct sim_waiter *waiters;
	/* every waiter that names the event, activated or not: destroy clears
	 * their ev, so none is left pointing at the freed event */
	struct sim_waiter *all_waiters;
	struct kfd_hsa_memory_exception_data mem_data;
	struct kfd_hsa_hw_exception_data hw_data;
};

/* An SDMA queue slot (sdma_slots.c): class, slot bit, engine id. */
struct sim_sdma_slot {
	bool xgmi;
	uint8_t slot;
	uint32_t engine; /* ordinary engines first, then xGMI ones */
};

struct sim_queue {
	uint32_t id;
	struct sim_pdd *pdd;
	uint32_t type; /* KFD_IOC_QUEUE_TYPE_* */
	uint64_t ring, ring_size, rptr, wptr;
	uint32_t percent, priority;
	unsigned doorbell_id;
	bool active;
	bool evicted;
	bool gws;
	uint32_t cu_mask_count;
	unsigned evict_refs;    /* evictions in flight, under q_lock */
	struct sim_bo *bufs[4]; /* BOs referenced by kfd_queue_acquire_buffers */
	struct sim_engine_queue *eng;
	bool has_sdma_slot;
	struct sim_sdma_slot sdma_slot;
	/* debugger: raised exceptions (under q_lock) and suspension (set
	 * under proc->lock and q_lock) */
	uint64_t exception_status;
	bool suspended;
};

struct sim_process {
	struct kfdsim *sim;
	unsigned refs; /* under sim->lock */
	bool closed;
	pthread_mutex_t lock;
	struct sim_pdd pdd[KFDSIM_MAX_GPUS];
	int32_t xnack;
	bool runtime_enabled;
	bool secondary;        /* made by AMDKFD_IOC_CREATE_PROCESS (KFD 1.19) */
	struct svm_ranges svm; /* SVM ranges (svm.c), under lock */

	/* runtime enable and debugger state (debug_trap.c), under lock */
	uint64_t r_debug;
	bool ttmp_setup;
	bool debug_trap_enabled;
	bool runtime_unblock; /* the debugger answered EC_PROCESS_RUNTIME */
	int dbg_ev_fd;        /* dup of ENABLE's dbg_fd, -1 when off */
	uint64_t exception_enable_mask;
	uint64_t exception_status; /* process exceptions */
	uint32_t launch_mode, trap_override_mask, dbg_flags;
	pthread_cond_t dbg_cv; /* with lock: RUNTIME_ENABLE and DESTROY_QUEUE wait */

	/* events, under ev_lock */
	pthread_mutex_t ev_lock;
	pthread_cond_t ev_cv;
	struct sim_event *sig[KFD_SIGNAL_EVENT_LIMIT];
	unsigned sig_count;
	uint64_t *slots;                /* signal page, NULL until set */
	uint64_t signal_mapped;         /* bytes user space mapped */
	uint64_t signal_handle;         /* BO handle of a user event page */
	struct sim_backing *signal_own; /* kernel-allocated page */
	struct sim_event **other;       /* non-signal events, sorted by id */
	size_t nother, other_cap;

	/* queues, pointers under q_lock (engine callbacks read them) */
	pthread_mutex_t q_lock;
	pthread_cond_t q_cv;
	struct sim_queue *queues[SIM_MAX_QUEUES];
	unsigned nqueues;
};

/* uaccess.c: copies to and from caller pointers that fail with -EFAULT. */
int sim_copy_from_user(void *dst, uint64_t src, size_t len);
int sim_copy_to_user(uint64_t dst, const void *src, size_t len);
int sim_check_user_range(uint64_t addr, uint64_t len);

/* sim.c */
int sim_memfd(const char *name, uint64_t size, dev_t *dev, ino_t *ino);
void sim_process_get(struct sim_process *p);
void sim_process_put(struct sim_process *p);
struct sim_render *sim_render_lookup(struct kfdsim *sim, int fd);
/* DRM/amdgpu ioctls on a render fd of GPU index gpu (render_ioctl.c). */
int sim_render_ioctl(struct kfdsim *sim, struct sim_render *r, unsigned long request, void *arg);
void sim_render_put_locked(struct kfdsim *sim, struct sim_render *r);

/* topology.c */
int sim_topology_init(struct kfdsim *sim);
int sim_topology_write(struct kfdsim *sim);
/* the node's "capability" as reported at KFD minor version kfd_minor */
uint32_t sim_topology_capability(const struct sim_target *t, uint32_t kfd_minor);
uint64_t sim_topology_debug_prop(const struct sim_target *t, uint32_t kfd_minor);
/* sim_root.c: the private sysfs tree in $TMPDIR and its owner lock. */
int sim_root_create(struct kfdsim *sim);
void sim_root_release(struct kfdsim *sim);

/* process.c */
struct sim_process *sim_process_create(struct kfdsim *sim);
void sim_process_destroy(struct sim_process *p);
void sim_process_close(struct sim_process *p);
struct sim_pdd *sim_pdd_by_id(struct sim_process *p, uint32_t gpu_id);
void sim_fill_apertures(struct sim_process *p, struct sim_pdd *pdd,
			struct kfd_process_device_apertures *ap);
int sim_pdd_bind(struct sim_pdd *pdd);
uint64_t sim_gpu_clock(void);

/* memory.c */
struct sim_backing *sim_backing_new(struct kfdsim *sim, const char *name, uint64_t size);
void sim_backing_get(struct sim_backing *b);
void sim_backing_put(struct sim_backing *b, struct sim_pdd *grave);
struct sim_bo *sim_bo_lookup(struct sim_pdd *pdd, uint64_t handle);
void sim_pdd_release_memory(struct sim_pdd *pdd);
void *sim_translate(void *ctx, uint64_t va, uint64_t len, bool write);
int sim_vm_lookup(struct sim_pdd *pdd, uint64_t va, bool *writable);
struct sim_bo *sim_bo_by_offset(struct sim_pdd *pdd, uint64_t off, uint64_t len);
int sim_doorbells_get(struct sim_pdd *pdd);
/* A doorbell of this process was rung through the device seam
 * (ring_doorbell): kick the engine of the queue that owns it, if any. */
void sim_queues_doorbell_rung(struct sim_process *p, uint32_t gpu_id, unsigned doorbell_id);
int sim_mmio_get(struct sim_pdd *pdd);
struct sim_mapping *sim_mapping_find(struct sim_pdd *pdd, uint64_t va);
/* The VM primitives GEM_VA shares with MAP_MEMORY_TO_GPU: insert (page
 * aligned, no wrap, below `limit`, no overlap: -EINVAL), and remove or
 * split whatever lies in [start, end). */
int sim_vm_insert(struct sim_vm *vm, const struct sim_mapping *m, uint64_t limit);
int sim_vm_clear(struct sim_vm *vm, uint64_t start, uint64_t end);
void sim_vm_free(struct sim_vm *vm);
void sim_backing_put_locked(struct sim_backing *b);
/* dmabufs kfdsim exported (KFD EXPORT_DMABUF, PRIME_HANDLE_TO_FD): register
 * a backing, find one by fd (-EBADF bad fd, -EINVAL not an export). */
/* memory.c: a new BO's handle in its GPU's table (p->lock held) */
int sim_bo_idr_alloc(struct sim_pdd *pdd, struct sim_bo *bo);
/* dmabuf.c */
int sim_export_register(struct kfdsim *sim, struct sim_backing *b, uint32_t gpu_id, uint32_t flags,
			bool strong);
int sim_export_lookup(struct kfdsim *sim, int fd, struct sim_export *out, bool take_ref);
/* The memfd name of a KFD BO's memory: what another kfdsim (another
 * process's) reads from a dmabuf it did not export (dmabuf.c). */
#define SIM_DMABUF_NAME_MAX 48
void sim_dmabuf_name(char *name, bool vram, bool public_, uint32_t gpu_id);
void sim_exports_release(struct kfdsim *sim); /* kfdsim_destroy */
/* drop the exports no descriptor shows any more (sim->lock held) */
void sim_exports_prune_locked(struct kfdsim *sim);

/* render_gem.c: GEM objects, GEM_VA and PRIME on render fds. The ioctl
 * numbers (drm.h, amdgpu_drm.h: DRM_COMMAND_BASE 0x40 + DRM_AMDGPU_*). */
#define SIM_RNR_GEM_CLOSE          0x09
#define SIM_RNR_PRIME_HANDLE_TO_FD 0x2d
#define SIM_RNR_PRIME_FD_TO_HANDLE 0x2e
#define SIM_RNR_GEM_CREATE         0x40
#define SIM_RNR_GEM_MMAP           0x41
#define SIM_RNR_GEM_VA             0x48
size_t sim_render_gem_arg_size(unsigned nr); /* 0: not a GEM ioctl */
uint64_t sim_va_reserved_bottom(const struct kfdsim *sim);
uint64_t sim_va_reserved_top(const struct kfdsim *sim);
int sim_render_gem_ioctl(struct kfdsim *sim, struct sim_render *r, unsigned nr, void *args);
/* ACQUIRE_VM: the render file's VM becomes the pdd's (sim->lock held). */
int sim_render_vm_adopt(struct sim_render *r, struct sim_pdd *pdd);
/* The render file's last reference is gone (sim->lock held). */
void sim_render_gem_release_locked(struct kfdsim *sim, struct sim_render *r);
struct sim_backing *sim_render_gem_by_offset(struct sim_render *r, uint64_t off, uint64_t len,
					     uint64_t *rel);

/* events.c */
void sim_events_release(struct sim_process *p);
void sim_events_interrupt(struct sim_process *p, uint32_t id, unsigned valid_bits);
void sim_events_vm_fault(struct sim_process *p, struct sim_gpu *gpu, uint64_t va, bool present,
			 bool write);
void sim_events_hw_exception(struct sim_process *p, struct sim_gpu *gpu, bool reset);
void sim_events_cancel_waits(struct sim_process *p);
bool sim_event_page_is(struct sim_process *p, uint64_t handle);

/* queues.c */
void sim_queues_release(struct sim_process *p);
void sim_queues_evict(struct sim_process *p, struct sim_pdd *pdd);
/* sdma_slots.c: take a slot for an SDMA queue of `queue_type` (SDMA,
 * SDMA_XGMI, or SDMA_BY_ENG_ID on `engine_id`); -EINVAL for an engine the
 * GPU does not have, -ENOMEM when the class / engine is full. */
int sim_sdma_slot_get(struct kfdsim *sim, struct sim_gpu *g, uint32_t queue_type,
		      uint32_t engine_id, struct sim_sdma_slot *out);
void sim_sdma_slot_put(struct kfdsim *sim, struct sim_gpu *g, const struct sim_sdma_slot *s);
unsigned sim_pdd_queue_count(struct sim_pdd *pdd);
/* Re-evaluate a queue's engine activity (after suspend/resume). */
void sim_queue_refresh_active(struct sim_queue *q);

/* smi.c */
void sim_smi_vmfault(struct kfdsim *sim, struct sim_gpu *gpu);
void sim_smi_release(struct kfdsim *sim);

/* debug_trap.c */
void sim_debug_queue_new(struct sim_process *p, uint32_t qid);
void sim_debug_release(struct sim_process *p);

/* env.c */
void sim_env_init(struct sim_pdd *pdd);

/* ioctl handlers: args point at a zero-extended copy of the user struct. */
typedef int (*sim_ioctl_fn)(struct sim_process *p, void *args);
int sim_ioctl_get_version(struct sim_process *p, void *args);
int sim_ioctl_get_apertures(struct sim_process *p, void *args);
int sim_ioctl_get_apertures_new(struct sim_process *p, void *args);
int sim_ioctl_acquire_vm(struct sim_process *p, void *args);
int sim_ioctl_set_memory_policy(struct sim_process *p, void *args);
int sim_ioctl_get_clock_counters(struct sim_process *p, void *args);
int sim_ioctl_set_scratch_backing_va(struct sim_process *p, void *args);
int sim_ioctl_set_trap_handler(struct sim_process *p, void *args);
int sim_ioctl_set_xnack_mode(struct sim_process *p, void *args);
int sim_ioctl_available_memory(struct sim_process *p, void *args);
int sim_ioctl_get_tile_config(struct sim_process *p, void *args);
int sim_ioctl_runtime_enable(struct sim_process *p, void *args);
int sim_ioctl_dbg_trap(struct sim_process *p, void *args);
int sim_ioctl_smi_events(struct sim_process *p, void *args);
int sim_ioctl_dbg_deprecated(struct sim_process *p, void *args);
int sim_ioctl_primary_only(struct sim_process *p, void *args);
int sim_ioctl_svm(struct sim_process *p, void *args);
/* svm.c: the SVM argument holds the nattr attributes it names */
bool sim_svm_args_fit(const void *args, size_t usize);
void sim_svm_release(struct sim_process *p);
int sim_ioctl_criu(struct sim_process *p, void *args);
int sim_ioctl_get_queue_wave_state(struct sim_process *p, void *args);

int sim_ioctl_alloc_memory(struct sim_process *p, void *args);
int sim_ioctl_free_memory(struct sim_process *p, void *args);
int sim_ioctl_map_memory(struct sim_process *p, void *args);
int sim_ioctl_unmap_memory(struct sim_process *p, void *args);
int sim_ioctl_export_dmabuf(struct sim_process *p, void *args);
int sim_ioctl_import_dmabuf(struct sim_process *p, void *args);
int sim_ioctl_get_dmabuf_info(struct sim_process *p, void *args);

int sim_ioctl_create_event(struct sim_process *p, void *args);
int sim_ioctl_destroy_event(struct sim_process *p, void *args);
int sim_ioctl_set_event(struct sim_process *p, void *args);
int sim_ioctl_reset_event(struct sim_process *p, void *args);
int sim_ioctl_wait_events(struct sim_process *p, void *args);
/* The calling thread's next WAIT_EVENTS calls fn(arg) once its waiters are
 * registered; sim_events_registered_now calls it if that has not happened
 * (an earlier failure) and forgets it (the device seam's wait_events). */
void sim_events_hook_registered(void (*fn)(void *), void *arg);
void sim_events_registered_now(void);

int sim_ioctl_create_queue(struct sim_process *p, void *args);
int sim_ioctl_destroy_queue(struct sim_process *p, void *args);
int sim_ioctl_update_queue(struct sim_process *p, void *args);
int sim_ioctl_set_cu_mask(struct sim_process *p, void *args);
int sim_ioctl_alloc_queue_gws(struct sim_process *p, void *args);

/* ioctl.c */
int sim_ioctl_dispatch(struct kfdsim *sim, struct sim_process *p, unsigned long request, void *arg);

#endif
