/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: one KFD "device" per path with the operations the scenarios
 * use. native issues raw KFD ioctls on kfdsim through its device seam;
 * direct and vtest send vkfd protocol commands through the guest library.
 * Every call returns 0 or -errno.
 */
#ifndef VKFD_BENCH_DEV_H
#define VKFD_BENCH_DEV_H

#include "bench.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bench_mem {
	BENCH_MEM_VRAM,
	BENCH_MEM_GTT,
	/* GTT as libhsakmt allocates the event page: EXECUTABLE and UNCACHED
	 * (KFD maps it into the kernel, so it is never user memory: the vkfd
	 * shim keeps such a BO out of its arenas) */
	BENCH_MEM_EVENT_PAGE,
	BENCH_MEM_DOORBELL,
};

struct bench_bo {
	uint64_t va;
	uint64_t size;
	uint64_t handle;      /* KFD handle (native) or protocol handle */
	uint64_t mmap_offset; /* native: render/kfd fd offset */
	uint64_t blob_size;   /* protocol: size to give the blob */
	uint32_t map_flags;   /* protocol: VKFD_ALLOC_MAP_* */
	bool gpu_mapped;
	bool cpu_mapped;
	bool doorbell;
	/* protocol: the blob backing the CPU mapping (struct vkfd_guest_blob) */
	void *blob;
};

struct bench_counts {
	/* protocol commands or KFD ioctls issued; added to atomically (the
	 * fence scenario's waiter thread issues commands too) */
	uint64_t commands;
	uint64_t blob_creates; /* protocol blobs created */
	uint64_t cpu_maps;     /* blob maps / render-fd mmaps */
	uint64_t cpu_unmaps;
	/* the blob steps of the last operation, ns (0: none): protocol blob
	 * creation (with its BIND_BLOB), the blob's CPU mapping, its unmap and
	 * destruction */
	uint64_t last_blob_create_ns;
	uint64_t last_blob_map_ns;
	uint64_t last_blob_destroy_ns;
};

struct bench_queue {
	uint64_t handle;             /* queue id (native) / handle (protocol) */
	volatile uint64_t *doorbell; /* CPU address of this queue's doorbell */
};

struct bench_dev;

/* Open a device on path p. On failure returns NULL and writes why. */
struct bench_dev *bench_dev_open(enum bench_path p, char *why, size_t why_len);
/* The same, at the KFD level: native kfdsim, or on direct and vtest the
 * shim's vkfd backend with the same KFD ioctls (bench_dev_shim.c). */
struct bench_dev *bench_dev_open_kfd(enum bench_path p, char *why, size_t why_len);
/* Through the shim's backend: protocol requests sent with a reply awaited
 * (sync) and without (async), blobs created, transport submits (batches
 * and fence requests). -EOPNOTSUPP otherwise. */
int bench_shim_backend_counts(struct bench_dev *d, uint64_t *sync, uint64_t *async, uint64_t *blobs,
			      uint64_t *submits);
void bench_dev_close(struct bench_dev *d);
enum bench_path bench_dev_path(const struct bench_dev *d);
struct bench_counts *bench_dev_counts(struct bench_dev *d);

/* A VA range reserved PROT_NONE for GPU VA = CPU VA. */
uint64_t bench_dev_va(struct bench_dev *d, uint64_t size);

int bench_dev_alloc(struct bench_dev *d, enum bench_mem mem, uint64_t va, uint64_t size,
		    struct bench_bo *bo);
int bench_dev_map(struct bench_dev *d, struct bench_bo *bo);
/* CPU-map the BO at its VA (MAP_FIXED). */
int bench_dev_cpu_map(struct bench_dev *d, struct bench_bo *bo);
int bench_dev_cpu_unmap(struct bench_dev *d, struct bench_bo *bo);
/* async: the protocol's asynchronous form (native: the same ioctl). */
int bench_dev_unmap(struct bench_dev *d, struct bench_bo *bo, bool async);
int bench_dev_free(struct bench_dev *d, struct bench_bo *bo, bool async);

/* Signal events; the first creates and maps the event page. */
int bench_dev_event_create(struct bench_dev *d, bool auto_reset, uint32_t *id);
int bench_dev_event_set(struct bench_dev *d, uint32_t id, bool async);
int bench_dev_event_reset(struct bench_dev *d, uint32_t id, bool async);
/* One event, wait-any; *result = KFD_IOC_WAIT_RESULT_*. */
int bench_dev_event_wait(struct bench_dev *d, uint32_t id, uint32_t timeout_ms, uint32_t *result);

int bench_dev_clock(struct bench_dev *d, uint64_t *gpu_clock);
/* Protocol: send queued async requests and wait until processed; native:
 * nothing. */
int bench_dev_sync(struct bench_dev *d);
/* Protocol: send queued async requests now, without waiting; native:
 * nothing. */
int bench_dev_flush(struct bench_dev *d);
/* Protocol only: asynchronous HDP_FLUSH, which on kfdsim the host decodes,
 * validates and answers without a device call (-EOPNOTSUPP on native). */
int bench_dev_hdp_flush_async(struct bench_dev *d);
/* Protocol only: the host's "last processed request" sequence number in
 * the shared memory (read-only), NULL on native. Requests get consecutive
 * sequence numbers in the order they are issued; counts.commands counts
 * them, so after a synchronous call the k-th later request is word + k. */
const volatile uint32_t *bench_dev_seqno_word(struct bench_dev *d);

/* An AQL queue on ring/ptrs (all GPU- and CPU-mapped BOs). */
int bench_dev_queue_create(struct bench_dev *d, uint64_t ring_va, uint32_t ring_size,
			   uint64_t rptr_va, uint64_t wptr_va, struct bench_queue *q);
int bench_dev_queue_destroy(struct bench_dev *d, struct bench_queue *q);

#endif
