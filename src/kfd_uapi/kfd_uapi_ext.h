/* SPDX-License-Identifier: MIT */
/*
 * The KFD ABI vkfd needs beyond the build machine's <linux/kfd_ioctl.h>
 * (Debian 12 ships KFD 1.11), written from the documented ABI, and the
 * kernel-internal encodings user space depends on (mmap offsets, doorbell
 * slices). One copy for the host context, kfdsim and the guest front end
 * (src/guest/backend_vkfd*.c), which serves both sizes of every grown
 * struct: the system header's and the larger one below.
 *
 * The kernel keys ioctls on their number and zero-extends shorter argument
 * structs, so the larger layouts below are accepted by older kernels too.
 */
#ifndef VKFD_KFD_UAPI_EXT_H
#define VKFD_KFD_UAPI_EXT_H

#include <linux/kfd_ioctl.h>
#include <stdint.h>
#include <sys/ioctl.h>

#define VKFD_KFD_IOWR(nr, size) _IOC(_IOC_READ | _IOC_WRITE, AMDKFD_IOCTL_BASE, (nr), (size))

/* CREATE_QUEUE grew sdma_engine_id (Linux 6.12, KFD 1.17): 96 bytes. */
struct vkfd_kfd_create_queue_args {
	struct kfd_ioctl_create_queue_args base;
	uint32_t sdma_engine_id;
	uint32_t pad;
};
_Static_assert(sizeof(struct vkfd_kfd_create_queue_args) == 96, "create_queue size");
#ifndef KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID
#define KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID 0x4 /* KFD 1.17: on engine sdma_engine_id */
#endif
#define VKFD_KFD_IOC_CREATE_QUEUE VKFD_KFD_IOWR(0x02, sizeof(struct vkfd_kfd_create_queue_args))

/* kfd_event_data with the signal-event age (KFD 1.14) in the union: the
 * first 8 bytes carry last_event_age for signal events, in and out. */
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
#ifndef KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK
#define KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK    1
#define KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK 2
#endif

/* AMDKFD_IOC_CREATE_PROCESS (nr 0x27): secondary KFD process on this fd. */
#define VKFD_KFD_IOC_CREATE_PROCESS _IOC(_IOC_NONE, AMDKFD_IOCTL_BASE, 0x27, 0)

/* The header spells WRITABLE as (1 << 31), undefined behaviour in C when
 * evaluated; use this unsigned spelling instead. */
#define VKFD_KFD_ALLOC_WRITABLE 0x80000000u
#ifndef KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT
#define KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT (1 << 24)
#endif
#ifndef KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS
#define KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS (1 << 23)
#endif

/* mmap offsets on the KFD fd (kfd_priv.h's encoding, a stable ABI). */
#define VKFD_KFD_MMAP_TYPE_SHIFT        62
#define VKFD_KFD_MMAP_TYPE_MASK         (3ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_TYPE_DOORBELL     (3ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_TYPE_EVENTS       (2ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_TYPE_RESERVED_MEM (1ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_TYPE_MMIO         (0ull << VKFD_KFD_MMAP_TYPE_SHIFT)
#define VKFD_KFD_MMAP_GPU_ID_SHIFT      46
#define VKFD_KFD_MMAP_GPU_ID_MASK       (0xffffull << VKFD_KFD_MMAP_GPU_ID_SHIFT)
#define VKFD_KFD_MMAP_GPU_ID(id)        (((uint64_t)(id)&0xffffull) << VKFD_KFD_MMAP_GPU_ID_SHIFT)
#define VKFD_KFD_MMAP_GET_GPU_ID(off)                                                              \
	((uint32_t)(((off) >> VKFD_KFD_MMAP_GPU_ID_SHIFT) & 0xffffull))

/* Doorbell slice of one process on one SOC15 GPU (gfx9 and later). */
#define VKFD_KFD_DOORBELL_SLICE 8192u

/* The kernel-internal ENOTSUPP reaches user space unchanged. */
#define VKFD_KFD_ENOTSUPP 524

#endif
