/* SPDX-License-Identifier: MIT */
/*
 * KFD UAPI pieces newer than the build machine's <linux/kfd_ioctl.h>
 * (Debian 12 ships KFD 1.11), written from the documented ABI, plus the
 * kernel-internal constants user space depends on (mmap offset layout,
 * handle layout).
 */
#ifndef KFDSIM_KFD_COMPAT_H
#define KFDSIM_KFD_COMPAT_H

#include <stdint.h>
#include <linux/kfd_ioctl.h>

/* 1.12: export a BO as a dmabuf. */
struct kfdsim_export_dmabuf_args {
	__u64 handle;
	__u32 flags;
	__u32 dmabuf_fd;
};
#ifndef AMDKFD_IOC_EXPORT_DMABUF
#define AMDKFD_IOC_EXPORT_DMABUF AMDKFD_IOWR(0x24, struct kfdsim_export_dmabuf_args)
#endif

/* 1.13: runtime enable. */
struct kfdsim_runtime_enable_args {
	__u64 r_debug;
	__u32 mode_mask;
	__u32 capabilities_mask;
};
#ifndef AMDKFD_IOC_RUNTIME_ENABLE
#define AMDKFD_IOC_RUNTIME_ENABLE AMDKFD_IOWR(0x25, struct kfdsim_runtime_enable_args)
#endif
#ifndef KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK
#define KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK    1
#define KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK 2
#endif

/* 6.12 (1.17) CREATE_QUEUE grew sdma_engine_id; the size is 96 bytes. */
struct kfdsim_create_queue_args {
	struct kfd_ioctl_create_queue_args base;
	__u32 sdma_engine_id;
	__u32 pad;
};

/* 1.14: the first 8 bytes of kfd_event_data carry last_event_age for
 * signal events (in and out). */
#define KFDSIM_EVENT_AGE_MINOR 14

#ifndef KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT
#define KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT (1 << 24)
#endif
#ifndef KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS
#define KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS (1 << 23)
#endif

/* The header spells this bit as (1 << 31), undefined behaviour in C. */
#define KFDSIM_FLAG_WRITABLE 0x80000000u

/* Kernel-internal layout of mmap offsets on /dev/kfd (kfd_priv.h). */
#define KFDSIM_MMAP_TYPE_SHIFT        62
#define KFDSIM_MMAP_TYPE_MASK         (0x3ULL << KFDSIM_MMAP_TYPE_SHIFT)
#define KFDSIM_MMAP_TYPE_DOORBELL     (0x3ULL << KFDSIM_MMAP_TYPE_SHIFT)
#define KFDSIM_MMAP_TYPE_EVENTS       (0x2ULL << KFDSIM_MMAP_TYPE_SHIFT)
#define KFDSIM_MMAP_TYPE_RESERVED_MEM (0x1ULL << KFDSIM_MMAP_TYPE_SHIFT)
#define KFDSIM_MMAP_TYPE_MMIO         (0x0ULL << KFDSIM_MMAP_TYPE_SHIFT)
#define KFDSIM_MMAP_GPU_ID_SHIFT      46
#define KFDSIM_MMAP_GPU_ID(id)        (((uint64_t)(id)&0xffffULL) << KFDSIM_MMAP_GPU_ID_SHIFT)
#define KFDSIM_MMAP_GET_GPU_ID(off)   ((uint32_t)(((off) >> KFDSIM_MMAP_GPU_ID_SHIFT) & 0xffffULL))

/* BO handle = gpu_id << 32 | idr id. */
#define KFDSIM_MAKE_HANDLE(gpu_id, idr) (((uint64_t)(gpu_id) << 32) | (uint32_t)(idr))
#define KFDSIM_HANDLE_GPU_ID(h)         ((uint32_t)((h) >> 32))
#define KFDSIM_HANDLE_IDR(h)            ((uint32_t)((h)&0xffffffffULL))

/* Event ids (kfd_events.c). */
#define KFDSIM_FIRST_NONSIGNAL_EVENT_ID 0x40000000u
#define KFDSIM_LAST_NONSIGNAL_EVENT_ID  0xffffffffu
#define KFDSIM_UNSIGNALED_EVENT_SLOT    UINT64_MAX
#define KFDSIM_EVENT_TIMEOUT_IMMEDIATE  0u
#define KFDSIM_EVENT_TIMEOUT_INFINITE   0xffffffffu

/* The kernel-internal ENOTSUPP reaches user space unchanged. */
#define KFDSIM_ENOTSUPP 524

#endif
