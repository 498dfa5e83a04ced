/* SPDX-License-Identifier: MIT */
/*
 * The debugger ABI of KFD 1.13 (AMDKFD_IOC_DBG_TRAP, nr 0x26), absent from
 * the build machine's <linux/kfd_ioctl.h> (KFD 1.11). Written from the
 * documented layout of include/uapi/linux/kfd_ioctl.h; every name carries
 * a vkfd prefix so a newer system header can be included alongside.
 */
#ifndef VKFD_KFD_DBG_TRAP_H
#define VKFD_KFD_DBG_TRAP_H

#include <stdint.h>

#include "kfd_uapi_ext.h"

/* Operations (kfd_dbg_trap_operations). */
enum {
	VKFD_DBG_TRAP_ENABLE = 0,
	VKFD_DBG_TRAP_DISABLE = 1,
	VKFD_DBG_TRAP_SEND_RUNTIME_EVENT = 2,
	VKFD_DBG_TRAP_SET_EXCEPTIONS_ENABLED = 3,
	VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE = 4, /* the DBG_HW_OPs: 4-9 */
	VKFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE = 5,
	VKFD_DBG_TRAP_SUSPEND_QUEUES = 6,
	VKFD_DBG_TRAP_RESUME_QUEUES = 7,
	VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH = 8,
	VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH = 9,
	VKFD_DBG_TRAP_SET_FLAGS = 10,
	VKFD_DBG_TRAP_QUERY_DEBUG_EVENT = 11,
	VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO = 12,
	VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT = 13,
	VKFD_DBG_TRAP_GET_DEVICE_SNAPSHOT = 14,
};

/* Exception codes and their mask bit (KFD_EC_MASK). */
#define VKFD_EC_QUEUE_NEW               31
#define VKFD_EC_DEVICE_QUEUE_DELETE     32
#define VKFD_EC_DEVICE_MEMORY_VIOLATION 33
#define VKFD_EC_DEVICE_NEW              36
#define VKFD_EC_PROCESS_RUNTIME         48
#define VKFD_EC_MAX                     50
#define VKFD_EC_MASK(ec)                (1ULL << ((ec)-1))
/* Codes 1-31 are per queue, 32-47 per device, 48-63 per process. */
#define VKFD_EC_MASK_QUEUE   0x000000007fffffffULL
#define VKFD_EC_MASK_DEVICE  0x00007fff80000000ULL
#define VKFD_EC_MASK_PROCESS 0x7fff800000000000ULL

/* kfd_dbg_runtime_state */
#define VKFD_DEBUG_RUNTIME_STATE_DISABLED 0
#define VKFD_DEBUG_RUNTIME_STATE_ENABLED  1

/* Suspend/resume per-queue status bits written back into the id array. */
#define VKFD_DBG_QUEUE_ERROR_MASK   (1u << 30)
#define VKFD_DBG_QUEUE_INVALID_MASK (1u << 31)

#define VKFD_DBG_TRAP_OVERRIDE_OR             0
#define VKFD_DBG_TRAP_OVERRIDE_REPLACE        1
#define VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL 0
#define VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT   1
#define VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG  3
#define VKFD_DBG_TRAP_ADDRESS_WATCH_MODE_ALL  3
#define VKFD_DBG_TRAP_FLAG_SINGLE_MEM_OP      1u

struct vkfd_kfd_runtime_info {
	uint64_t r_debug;
	uint32_t runtime_state;
	uint32_t ttmp_setup;
};

struct vkfd_kfd_queue_snapshot_entry {
	uint64_t exception_status;
	uint64_t ring_base_address;
	uint64_t write_pointer_address;
	uint64_t read_pointer_address;
	uint64_t ctx_save_restore_address;
	uint32_t queue_id;
	uint32_t gpu_id;
	uint32_t ring_size;
	uint32_t queue_type;
	uint32_t ctx_save_restore_area_size;
	uint32_t reserved;
};
_Static_assert(sizeof(struct vkfd_kfd_queue_snapshot_entry) == 64, "queue snapshot entry");

struct vkfd_kfd_dbg_device_info_entry {
	uint64_t exception_status;
	uint64_t lds_base;
	uint64_t lds_limit;
	uint64_t scratch_base;
	uint64_t scratch_limit;
	uint64_t gpuvm_base;
	uint64_t gpuvm_limit;
	uint32_t gpu_id;
	uint32_t location_id;
	uint32_t vendor_id;
	uint32_t device_id;
	uint32_t revision_id;
	uint32_t subsystem_vendor_id;
	uint32_t subsystem_device_id;
	uint32_t fw_version;
	uint32_t gfx_target_version;
	uint32_t simd_count;
	uint32_t max_waves_per_simd;
	uint32_t array_count;
	uint32_t simd_arrays_per_engine;
	uint32_t num_xcc;
	uint32_t capability;
	uint32_t debug_prop;
};
_Static_assert(sizeof(struct vkfd_kfd_dbg_device_info_entry) == 120, "device info entry");

struct vkfd_kfd_dbg_trap_args {
	uint32_t pid;
	uint32_t op;
	union {
		struct {
			uint64_t exception_mask;
			uint64_t rinfo_ptr;
			uint32_t rinfo_size;
			uint32_t dbg_fd;
		} enable;
		struct {
			uint64_t exception_mask;
			uint32_t gpu_id;
			uint32_t queue_id;
		} send_runtime_event;
		struct {
			uint64_t exception_mask;
		} set_exceptions_enabled;
		struct {
			uint32_t override_mode;
			uint32_t enable_mask;
			uint32_t support_request_mask;
			uint32_t pad;
		} launch_override;
		struct {
			uint32_t launch_mode;
			uint32_t pad;
		} launch_mode;
		struct {
			uint64_t exception_mask;
			uint64_t queue_array_ptr;
			uint32_t num_queues;
			uint32_t grace_period;
		} suspend_queues;
		struct {
			uint64_t queue_array_ptr;
			uint32_t num_queues;
			uint32_t pad;
		} resume_queues;
		struct {
			uint64_t address;
			uint32_t mode;
			uint32_t mask;
			uint32_t gpu_id;
			uint32_t id;
		} set_node_address_watch;
		struct {
			uint32_t gpu_id;
			uint32_t id;
		} clear_node_address_watch;
		struct {
			uint32_t flags;
			uint32_t pad;
		} set_flags;
		struct {
			uint64_t exception_mask;
			uint32_t gpu_id;
			uint32_t queue_id;
		} query_debug_event;
		struct {
			uint64_t info_ptr;
			uint32_t info_size;
			uint32_t source_id;
			uint32_t exception_code;
			uint32_t clear_exception;
		} query_exception_info;
		struct {
			uint64_t exception_mask;
			uint64_t snapshot_buf_ptr;
			uint32_t num_queues;
			uint32_t entry_size;
		} queue_snapshot;
		struct {
			uint64_t exception_mask;
			uint64_t snapshot_buf_ptr;
			uint32_t num_devices;
			uint32_t entry_size;
		} device_snapshot;
	};
};
_Static_assert(sizeof(struct vkfd_kfd_dbg_trap_args) == 32, "dbg_trap args");

#define VKFD_KFD_IOC_DBG_TRAP VKFD_KFD_IOWR(0x26, sizeof(struct vkfd_kfd_dbg_trap_args))

#endif
