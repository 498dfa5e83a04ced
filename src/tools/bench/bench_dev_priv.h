/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: the per-path device behind bench_dev.h. The native and the
 * protocol implementation each provide an ops table.
 */
#ifndef VKFD_BENCH_DEV_PRIV_H
#define VKFD_BENCH_DEV_PRIV_H

#include "bench_dev.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE: the UAPI header spells it 1 << 31, an
 * int overflow that UBSan reports. */
#define BENCH_ALLOC_WRITABLE 0x80000000u

struct kfdsim;
struct vkfd_device_ops;
struct vkfd_guest;

struct bench_dev_ops {
	int (*open)(struct bench_dev *d, char *why, size_t why_len);
	void (*close)(struct bench_dev *d);
	int (*alloc)(struct bench_dev *d, enum bench_mem mem, uint64_t va, uint64_t size,
		     struct bench_bo *bo);
	int (*map)(struct bench_dev *d, struct bench_bo *bo);
	int (*cpu_map)(struct bench_dev *d, struct bench_bo *bo);
	int (*cpu_unmap)(struct bench_dev *d, struct bench_bo *bo);
	int (*unmap)(struct bench_dev *d, struct bench_bo *bo, bool async);
	int (*free)(struct bench_dev *d, struct bench_bo *bo, bool async);
	int (*event_create)(struct bench_dev *d, uint64_t page_handle, bool auto_reset,
			    uint32_t *id);
	int (*event_set)(struct bench_dev *d, uint32_t id, bool async);
	int (*event_reset)(struct bench_dev *d, uint32_t id, bool async);
	int (*event_wait)(struct bench_dev *d, uint32_t id, uint32_t timeout_ms, uint32_t *result);
	int (*clock)(struct bench_dev *d, uint64_t *gpu_clock);
	int (*sync)(struct bench_dev *d);
	int (*flush)(struct bench_dev *d);
	int (*hdp_flush)(struct bench_dev *d); /* NULL: no such command */
	/* the shared memory's processed-seqno word; NULL: no protocol */
	const volatile uint32_t *(*seqno_word)(struct bench_dev *d);
	int (*queue_create)(struct bench_dev *d, uint64_t ring_va, uint32_t ring_size,
			    uint64_t rptr_va, uint64_t wptr_va, struct bench_queue *q);
	int (*queue_destroy)(struct bench_dev *d, struct bench_queue *q);
};

/* How a KFD-level device (native kfdsim, or the shim's vkfd backend on the
 * direct and vtest paths) reaches its KFD: ioctl, mmap and munmap on its
 * fds. The KFD ioctl ops (bench_dev_native.c) call only these. */
struct bench_kfd_seam {
	int (*ioctl)(struct bench_dev *d, int fd, unsigned long req, void *arg);
	void *(*mmap)(struct bench_dev *d, void *addr, size_t len, int prot, int flags, int fd,
		      off_t off);
	int (*munmap)(struct bench_dev *d, void *addr, size_t len);
};

struct bench_dev {
	enum bench_path path;
	const struct bench_dev_ops *ops;
	struct bench_counts counts;
	uint32_t gpu_id;
	/* PROT_NONE reservation for GPU VA = CPU VA */
	uint8_t *va_base;
	uint64_t va_size;
	uint64_t va_next;
	/* event page (first signal event) */
	bool have_event_page;
	struct bench_bo event_page;
	/* doorbell BO (first queue) */
	bool have_doorbell;
	struct bench_bo doorbell;
	/* KFD-level (native, shim) */
	const struct bench_kfd_seam *seam;
	int kfd;
	int rfd;
	/* native */
	struct kfdsim *sim;
	const struct vkfd_device_ops *kops;
	/* protocol */
	struct vkfd_guest *g;
};

extern const struct bench_dev_ops bench_native_ops;
extern const struct bench_dev_ops bench_proto_ops;
/* The storm's direct and vtest paths: KFD ioctls through the shim's vkfd
 * backend (bench_dev_shim.c opens it; the ioctl ops are native's). */
extern const struct bench_dev_ops bench_shim_ops;
int bench_shim_open(struct bench_dev *d, char *why, size_t why_len);
void bench_shim_close(struct bench_dev *d);
int bench_shim_sync(struct bench_dev *d);

/* Put the BO's VA range back to PROT_NONE reserved memory. */
int bench_dev_va_release(struct bench_dev *d, uint64_t va, uint64_t size);

#endif
