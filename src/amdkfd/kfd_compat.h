/* SPDX-License-Identifier: MIT */
/*
 * KFD UAPI pieces newer than the build machine's <linux/kfd_ioctl.h>
 * (Debian 12 ships KFD 1.11), written from the documented ABI. The kernel
 * keys ioctls on their number and zero-extends shorter argument structs, so
 * the larger layouts below are accepted by older kernels as well.
 */
#ifndef VKFD_KFD_COMPAT_H
#define VKFD_KFD_COMPAT_H

#include <linux/kfd_ioctl.h>
#include <stdint.h>
#include <sys/ioctl.h>

#define VKFD_KFD_IOWR(nr, size) _IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, (nr), (size))

/* CREATE_QUEUE with sdma_engine_id (KFD 1.16, 96 bytes). */
struct vkfd_kfd_create_queue_args {
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
	uint32_t sdma_engine_id;
	uint32_t pad;
};
_Static_assert(sizeof(struct vkfd_kfd_create_queue_args) == 96, "create_queue size");
#define VKFD_KFD_IOC_CREATE_QUEUE VKFD_KFD_IOWR(0x02, 96)

/* kfd_event_data with the signal-event age (KFD 1.14) in the union. */
struct vkfd_kfd_event_data {
	union {
		struct kfd_hsa_memory_exception_data memory_exception_data;
		struct kfd_hsa_hw_exception_data hw_exception_data;
		uint64_t last_event_age;
	};
	uint64_t kfd_event_data_ext;
	uint32_t event_id;
	uint32_t pad;
};
_Static_assert(sizeof(struct vkfd_kfd_event_data) == 48, "event data size");

/* EXPORT_DMABUF (KFD 1.12). */
struct vkfd_kfd_export_dmabuf_args {
	uint64_t handle;
	uint32_t flags;
	uint32_t dmabuf_fd;
};
#define VKFD_KFD_IOC_EXPORT_DMABUF VKFD_KFD_IOWR(0x24, sizeof(struct vkfd_kfd_export_dmabuf_args))

/* RUNTIME_ENABLE (KFD 1.13). */
struct vkfd_kfd_runtime_enable_args {
	uint64_t r_debug;
	uint32_t mode_mask;
	uint32_t capabilities_mask;
};
#define VKFD_KFD_IOC_RUNTIME_ENABLE VKFD_KFD_IOWR(0x25, sizeof(struct vkfd_kfd_runtime_enable_args))

/* AMDKFD_IOC_CREATE_PROCESS (nr 0x27): secondary KFD process on this fd. */
#define VKFD_KFD_IOC_CREATE_PROCESS _IOC(_IOC_NONE, AMDKFD_IOCTL_BASE, 0x27, 0)

/* The header spells WRITABLE as (1 << 31), undefined behaviour in C when
 * evaluated; use this unsigned spelling instead. */
#define VKFD_KFD_ALLOC_WRITABLE 0x80000000u

#ifndef KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT
#define KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT (1 << 24)
#endif

/* mmap offsets on the KFD fd (kernel-internal encoding, stable ABI). */
#define VKFD_KFD_MMAP_TYPE_SHIFT    62
#define VKFD_KFD_MMAP_TYPE_DOORBELL (3ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_TYPE_MMIO     (0ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_GPU_ID_SHIFT  46
#define VKFD_KFD_MMAP_GPU_ID(id)    ((uint64_t)(id) << VKFD_KFD_MMAP_GPU_ID_SHIFT)

/* Doorbell slice of one process on one SOC15 GPU (gfx9 and later). */
#define VKFD_KFD_DOORBELL_SLICE 8192u

#endif
