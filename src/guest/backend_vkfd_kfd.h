/* SPDX-License-Identifier: MIT */
/*
 * KFD ioctl argument layouts as the vkfd backend sees them.
 *
 * Written from the documented amdkfd UAPI (linux/kfd_ioctl.h, KFD 1.17).
 * Debian 12's <linux/kfd_ioctl.h> includes <drm/drm.h>, which Debian only
 * ships as <libdrm/drm.h>, so it cannot be included as is; these private
 * mirrors are used instead and checked against the system header whenever it
 * is usable. Only layouts, no code. Names carry a bk_ prefix so they never
 * clash with the system header.
 */
#ifndef VKFD_BACKEND_VKFD_KFD_H
#define VKFD_BACKEND_VKFD_KFD_H

#include <stddef.h>
#include <stdint.h>

/* ioctl numbers (_IOC_NR) */
enum bk_kfd_nr {
	BK_NR_GET_VERSION = 0x01,
	BK_NR_CREATE_QUEUE = 0x02,
	BK_NR_DESTROY_QUEUE = 0x03,
	BK_NR_SET_MEMORY_POLICY = 0x04,
	BK_NR_GET_CLOCK_COUNTERS = 0x05,
	BK_NR_GET_PROCESS_APERTURES = 0x06,
	BK_NR_UPDATE_QUEUE = 0x07,
	BK_NR_CREATE_EVENT = 0x08,
	BK_NR_DESTROY_EVENT = 0x09,
	BK_NR_SET_EVENT = 0x0a,
	BK_NR_RESET_EVENT = 0x0b,
	BK_NR_WAIT_EVENTS = 0x0c,
	BK_NR_DBG_REGISTER_DEPRECATED = 0x0d,
	BK_NR_DBG_WAVE_CONTROL_DEPRECATED = 0x10,
	BK_NR_SET_SCRATCH_BACKING_VA = 0x11,
	BK_NR_GET_TILE_CONFIG = 0x12,
	BK_NR_SET_TRAP_HANDLER = 0x13,
	BK_NR_GET_PROCESS_APERTURES_NEW = 0x14,
	BK_NR_ACQUIRE_VM = 0x15,
	BK_NR_ALLOC_MEMORY_OF_GPU = 0x16,
	BK_NR_FREE_MEMORY_OF_GPU = 0x17,
	BK_NR_MAP_MEMORY_TO_GPU = 0x18,
	BK_NR_UNMAP_MEMORY_FROM_GPU = 0x19,
	BK_NR_SET_CU_MASK = 0x1a,
	BK_NR_GET_QUEUE_WAVE_STATE = 0x1b,
	BK_NR_GET_DMABUF_INFO = 0x1c,
	BK_NR_IMPORT_DMABUF = 0x1d,
	BK_NR_ALLOC_QUEUE_GWS = 0x1e,
	BK_NR_SMI_EVENTS = 0x1f,
	BK_NR_SVM = 0x20,
	BK_NR_SET_XNACK_MODE = 0x21,
	BK_NR_CRIU_OP = 0x22,
	BK_NR_AVAILABLE_MEMORY = 0x23,
	BK_NR_EXPORT_DMABUF = 0x24,
	BK_NR_RUNTIME_ENABLE = 0x25,
	BK_NR_DBG_TRAP = 0x26,
	BK_NR_CREATE_PROCESS = 0x27,
};

#define BK_ALLOC_VRAM          (1u << 0)
#define BK_ALLOC_GTT           (1u << 1)
#define BK_ALLOC_USERPTR       (1u << 2)
#define BK_ALLOC_DOORBELL      (1u << 3)
#define BK_ALLOC_MMIO_REMAP    (1u << 4)
#define BK_ALLOC_AQL_QUEUE_MEM (1u << 27)

#define BK_EVENT_SIGNAL       0u
#define BK_EVENT_DEBUG        5u
#define BK_EVENT_MEMORY       8u
#define BK_WAIT_COMPLETE      0u
#define BK_WAIT_TIMEOUT       1u
#define BK_WAIT_FAIL          2u
#define BK_SIGNAL_EVENT_LIMIT 4096u

/* mmap offsets on the kfd fd: type << 62 | gpu_id << 46 | low bits */
#define BK_MMAP_TYPE_SHIFT        62
#define BK_MMAP_TYPE_MASK         (3ull << BK_MMAP_TYPE_SHIFT)
#define BK_MMAP_TYPE_DOORBELL     (3ull << BK_MMAP_TYPE_SHIFT)
#define BK_MMAP_TYPE_EVENTS       (2ull << BK_MMAP_TYPE_SHIFT)
#define BK_MMAP_TYPE_RESERVED_MEM (1ull << BK_MMAP_TYPE_SHIFT)
#define BK_MMAP_TYPE_MMIO         (0ull << BK_MMAP_TYPE_SHIFT)
#define BK_MMAP_GPU_ID_SHIFT      46
#define BK_MMAP_GPU_ID_MASK       (0xffffull << BK_MMAP_GPU_ID_SHIFT)

struct bk_get_version {
	uint32_t major, minor;
};

struct bk_create_queue {
	uint64_t ring_base_address;
	uint64_t write_pointer_address;
	uint64_t read_pointer_address;
	uint64_t doorbell_offset;
	uint32_t ring_size;
	uint32_t gpu_id;
	uint32_t queue_type;
	uint32_t queue_percentage;
	uint32_t queue_priority;
	uint32_t queue_id;
	uint64_t eop_buffer_address;
	uint64_t eop_buffer_size;
	uint64_t ctx_save_restore_address;
	uint32_t ctx_save_restore_size;
	uint32_t ctl_stack_size;
	uint32_t sdma_engine_id; /* KFD 1.17 */
	uint32_t pad;
};
#define BK_CREATE_QUEUE_SIZE_OLD 88u

struct bk_destroy_queue {
	uint32_t queue_id, pad;
};

struct bk_update_queue {
	uint64_t ring_base_address;
	uint32_t queue_id, ring_size, queue_percentage, queue_priority;
};

struct bk_set_cu_mask {
	uint32_t queue_id, num_cu_mask;
	uint64_t cu_mask_ptr;
};

struct bk_set_memory_policy {
	uint64_t alternate_aperture_base, alternate_aperture_size;
	uint32_t gpu_id, default_policy, alternate_policy, pad;
};

struct bk_clock_counters {
	uint64_t gpu_clock_counter, cpu_clock_counter;
	uint64_t system_clock_counter, system_clock_freq;
	uint32_t gpu_id, pad;
};

struct bk_aperture {
	uint64_t lds_base, lds_limit, scratch_base, scratch_limit;
	uint64_t gpuvm_base, gpuvm_limit;
	uint32_t gpu_id, pad;
};
#define BK_OLD_APERTURES 7u
struct bk_get_apertures_old {
	struct bk_aperture ap[BK_OLD_APERTURES];
	uint32_t num_of_nodes, pad;
};
struct bk_get_apertures_new {
	uint64_t apertures_ptr;
	uint32_t num_of_nodes, pad;
};

struct bk_create_event {
	uint64_t event_page_offset;
	uint32_t event_trigger_data, event_type, auto_reset, node_id;
	uint32_t event_id, event_slot_index;
};
struct bk_event_id {
	uint32_t event_id, pad;
}; /* destroy / set / reset */

struct bk_event_data {
	/* union: memory-exception data (32 B), hw-exception data (16 B) or,
	 * for signal events (KFD >= 1.14), last_event_age (u64 at 0) */
	uint8_t exception[32];
	uint64_t ext; /* kfd_event_data_ext (unused) */
	uint32_t event_id, pad;
};
struct bk_wait_events {
	uint64_t events_ptr;
	uint32_t num_events, wait_for_all, timeout, wait_result;
};

struct bk_scratch_va {
	uint64_t va_addr;
	uint32_t gpu_id, pad;
};

struct bk_tile_config {
	uint64_t tile_config_ptr, macro_tile_config_ptr;
	uint32_t num_tile_configs, num_macro_tile_configs;
	uint32_t gpu_id, gb_addr_config, num_banks, num_ranks;
};

struct bk_trap_handler {
	uint64_t tba_addr, tma_addr;
	uint32_t gpu_id, pad;
};

struct bk_acquire_vm {
	uint32_t drm_fd, gpu_id;
};

struct bk_alloc_memory {
	uint64_t va_addr, size, handle, mmap_offset;
	uint32_t gpu_id, flags;
};
struct bk_free_memory {
	uint64_t handle;
};
struct bk_map_memory {
	uint64_t handle, device_ids_array_ptr;
	uint32_t n_devices, n_success;
};

struct bk_queue_gws {
	uint32_t queue_id, num_gws, first_gws, pad;
};

struct bk_get_dmabuf_info {
	uint64_t size, metadata_ptr;
	uint32_t metadata_size, gpu_id, flags, dmabuf_fd;
};
struct bk_import_dmabuf {
	uint64_t va_addr, handle;
	uint32_t gpu_id, dmabuf_fd;
};
struct bk_export_dmabuf {
	uint64_t handle;
	uint32_t flags, dmabuf_fd;
};

struct bk_smi_events {
	uint32_t gpuid, anon_fd;
};
struct bk_svm {
	uint64_t start_addr, size;
	uint32_t op, nattr;
};
struct bk_xnack {
	int32_t xnack_enabled;
};
struct bk_available_memory {
	uint64_t available;
	uint32_t gpu_id, pad;
};
struct bk_runtime_enable {
	uint64_t r_debug;
	uint32_t mode_mask, capabilities_mask;
};

_Static_assert(sizeof(struct bk_get_version) == 8, "abi");
_Static_assert(sizeof(struct bk_create_queue) == 96, "abi");
_Static_assert(offsetof(struct bk_create_queue, sdma_engine_id) == 88, "abi");

/* The newest KFD minor version the guest serves completely: 1.14. 1.15
 * promises GEM_VA on the render node in the compute VM, and the guest does
 * not carry GEM ioctls (docs/kfd-uapi.md); 1.16's flag and 1.17's
 * SDMA_BY_ENG_ID are still served to callers that use them. */
#define BK_KFD_MINOR_MAX 14u

/* GET_QUEUE_WAVE_STATE (0x1b) */
struct bk_queue_wave_state {
	uint64_t ctl_stack_address;
	uint32_t ctl_stack_used_size;
	uint32_t save_area_used_size;
	uint32_t queue_id;
	uint32_t pad;
};
_Static_assert(sizeof(struct bk_queue_wave_state) == 24, "abi");
_Static_assert(sizeof(struct bk_destroy_queue) == 8, "abi");
_Static_assert(sizeof(struct bk_update_queue) == 24, "abi");
_Static_assert(sizeof(struct bk_set_cu_mask) == 16, "abi");
_Static_assert(sizeof(struct bk_set_memory_policy) == 32, "abi");
_Static_assert(sizeof(struct bk_clock_counters) == 40, "abi");
_Static_assert(sizeof(struct bk_aperture) == 56, "abi");
_Static_assert(sizeof(struct bk_get_apertures_old) == 400, "abi");
_Static_assert(sizeof(struct bk_get_apertures_new) == 16, "abi");
_Static_assert(sizeof(struct bk_create_event) == 32, "abi");
_Static_assert(sizeof(struct bk_event_data) == 48, "abi");
_Static_assert(sizeof(struct bk_wait_events) == 24, "abi");
_Static_assert(sizeof(struct bk_scratch_va) == 16, "abi");
_Static_assert(sizeof(struct bk_tile_config) == 40, "abi");
_Static_assert(sizeof(struct bk_trap_handler) == 24, "abi");
_Static_assert(sizeof(struct bk_acquire_vm) == 8, "abi");
_Static_assert(sizeof(struct bk_alloc_memory) == 40, "abi");
_Static_assert(sizeof(struct bk_free_memory) == 8, "abi");
_Static_assert(sizeof(struct bk_map_memory) == 24, "abi");
_Static_assert(sizeof(struct bk_queue_gws) == 16, "abi");
_Static_assert(sizeof(struct bk_get_dmabuf_info) == 32, "abi");
_Static_assert(sizeof(struct bk_import_dmabuf) == 24, "abi");
_Static_assert(sizeof(struct bk_export_dmabuf) == 16, "abi");
_Static_assert(sizeof(struct bk_smi_events) == 8, "abi");
_Static_assert(sizeof(struct bk_svm) == 24, "abi");
_Static_assert(sizeof(struct bk_xnack) == 4, "abi");
_Static_assert(sizeof(struct bk_available_memory) == 16, "abi");
_Static_assert(sizeof(struct bk_runtime_enable) == 16, "abi");

#if defined(__has_include)
#if __has_include(<drm/drm.h>)
#include <linux/kfd_ioctl.h>
#define BK_SAME(a, b) _Static_assert(sizeof(struct a) == sizeof(struct b), #a)
BK_SAME(bk_alloc_memory, kfd_ioctl_alloc_memory_of_gpu_args);
BK_SAME(bk_wait_events, kfd_ioctl_wait_events_args);
BK_SAME(bk_event_data, kfd_event_data);
BK_SAME(bk_create_event, kfd_ioctl_create_event_args);
BK_SAME(bk_aperture, kfd_process_device_apertures);
BK_SAME(bk_tile_config, kfd_ioctl_get_tile_config_args);
_Static_assert(offsetof(struct kfd_ioctl_alloc_memory_of_gpu_args, flags) ==
		   offsetof(struct bk_alloc_memory, flags),
	       "abi");
_Static_assert(offsetof(struct kfd_ioctl_create_queue_args, ctl_stack_size) ==
		   offsetof(struct bk_create_queue, ctl_stack_size),
	       "abi");
#undef BK_SAME
#endif
#endif

#endif
