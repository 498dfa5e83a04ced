// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: path-independent part of the device: the VA reservation
 * (GPU VA = CPU VA, as libhsakmt does it), the event page and the doorbell
 * BO, and dispatch to the native or protocol ops.
 */
#include "bench_dev_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Enough for a 16 GB model's worth of BOs with 2 MiB alignment. */
#define BENCH_VA_SIZE   (64ull << 30)
#define BENCH_VA_ALIGN  (2ull << 20)
#define EVENT_PAGE_SIZE (4096u * 8u)
#define DOORBELL_SIZE   8192u

static struct bench_dev *dev_open(enum bench_path p, const struct bench_dev_ops *ops, char *why,
				  size_t why_len)
{
	struct bench_dev *d = calloc(1, sizeof(*d));
	void *va;
	int r;

	if (!d) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	d->path = p;
	d->kfd = -1;
	d->rfd = -1;
	d->ops = ops;
	va = mmap(NULL, BENCH_VA_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		  0);
	if (va == MAP_FAILED) {
		snprintf(why, why_len, "cannot reserve %llu GiB of VA: %s",
			 (unsigned long long)(BENCH_VA_SIZE >> 30), strerror(errno));
		free(d);
		return NULL;
	}
	d->va_base = va;
	d->va_size = BENCH_VA_SIZE;
	d->va_next = ((uintptr_t)va + BENCH_VA_ALIGN - 1) & ~(BENCH_VA_ALIGN - 1);
	r = d->ops->open(d, why, why_len);
	if (r) {
		munmap(d->va_base, d->va_size);
		free(d);
		return NULL;
	}
	return d;
}

struct bench_dev *bench_dev_open(enum bench_path p, char *why, size_t why_len)
{
	return dev_open(p, p == BENCH_NATIVE ? &bench_native_ops : &bench_proto_ops, why, why_len);
}

struct bench_dev *bench_dev_open_kfd(enum bench_path p, char *why, size_t why_len)
{
	return dev_open(p, p == BENCH_NATIVE ? &bench_native_ops : &bench_shim_ops, why, why_len);
}

void bench_dev_close(struct bench_dev *d)
{
	if (!d)
		return;
	d->ops->close(d);
	munmap(d->va_base, d->va_size);
	free(d);
}

enum bench_path bench_dev_path(const struct bench_dev *d)
{
	return d->path;
}

struct bench_counts *bench_dev_counts(struct bench_dev *d)
{
	return &d->counts;
}

uint64_t bench_dev_va(struct bench_dev *d, uint64_t size)
{
	uint64_t va = d->va_next;
	uint64_t end = (uintptr_t)d->va_base + d->va_size;

	size = (size + BENCH_VA_ALIGN - 1) & ~(BENCH_VA_ALIGN - 1);
	/* a guard gap between BOs, as libhsakmt leaves */
	if (va >= end || size > end - va || BENCH_VA_ALIGN > end - va - size)
		return 0;
	d->va_next = va + size + BENCH_VA_ALIGN;
	return va;
}

int bench_dev_va_release(struct bench_dev *d, uint64_t va, uint64_t size)
{
	void *p;

	(void)d;
	p = mmap((void *)(uintptr_t)va, size, PROT_NONE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? -errno : 0;
}

int bench_dev_alloc(struct bench_dev *d, enum bench_mem mem, uint64_t va, uint64_t size,
		    struct bench_bo *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->va = va;
	bo->size = size;
	bo->doorbell = mem == BENCH_MEM_DOORBELL;
	return d->ops->alloc(d, mem, va, size, bo);
}

int bench_dev_map(struct bench_dev *d, struct bench_bo *bo)
{
	int r = d->ops->map(d, bo);

	if (!r)
		bo->gpu_mapped = true;
	return r;
}

int bench_dev_cpu_map(struct bench_dev *d, struct bench_bo *bo)
{
	int r = d->ops->cpu_map(d, bo);

	if (!r) {
		bo->cpu_mapped = true;
		d->counts.cpu_maps++;
	}
	return r;
}

int bench_dev_cpu_unmap(struct bench_dev *d, struct bench_bo *bo)
{
	int r;

	if (!bo->cpu_mapped)
		return 0;
	r = d->ops->cpu_unmap(d, bo);
	bo->cpu_mapped = false;
	d->counts.cpu_unmaps++;
	return r;
}

int bench_dev_unmap(struct bench_dev *d, struct bench_bo *bo, bool async)
{
	int r = d->ops->unmap(d, bo, async);

	bo->gpu_mapped = false;
	return r;
}

int bench_dev_free(struct bench_dev *d, struct bench_bo *bo, bool async)
{
	int r = 0;

	if (bo->cpu_mapped)
		r = bench_dev_cpu_unmap(d, bo);
	if (!r)
		r = d->ops->free(d, bo, async);
	else
		d->ops->free(d, bo, async);
	return r;
}

/* The first signal event needs the event page: a GTT BO of 4096 slots,
 * GPU- and CPU-mapped, with libhsakmt's flags on a dGPU. */
static int event_page(struct bench_dev *d, uint64_t *handle)
{
	struct bench_bo *bo = &d->event_page;
	uint64_t va;
	int r;

	if (d->have_event_page) {
		*handle = 0;
		return 0;
	}
	va = bench_dev_va(d, EVENT_PAGE_SIZE);
	if (!va)
		return -ENOMEM;
	r = bench_dev_alloc(d, BENCH_MEM_EVENT_PAGE, va, EVENT_PAGE_SIZE, bo);
	if (r)
		return r;
	r = bench_dev_map(d, bo);
	if (!r)
		r = bench_dev_cpu_map(d, bo);
	if (r) {
		bench_dev_free(d, bo, false);
		return r;
	}
	d->have_event_page = true;
	*handle = bo->handle;
	return 0;
}

int bench_dev_event_create(struct bench_dev *d, bool auto_reset, uint32_t *id)
{
	uint64_t page = 0;
	int r = event_page(d, &page);

	if (r)
		return r;
	return d->ops->event_create(d, page, auto_reset, id);
}

int bench_dev_event_set(struct bench_dev *d, uint32_t id, bool async)
{
	return d->ops->event_set(d, id, async);
}

int bench_dev_event_reset(struct bench_dev *d, uint32_t id, bool async)
{
	return d->ops->event_reset(d, id, async);
}

int bench_dev_event_wait(struct bench_dev *d, uint32_t id, uint32_t timeout_ms, uint32_t *result)
{
	return d->ops->event_wait(d, id, timeout_ms, result);
}

int bench_dev_clock(struct bench_dev *d, uint64_t *gpu_clock)
{
	return d->ops->clock(d, gpu_clock);
}

int bench_dev_sync(struct bench_dev *d)
{
	return d->ops->sync(d);
}

int bench_dev_flush(struct bench_dev *d)
{
	return d->ops->flush(d);
}

int bench_dev_hdp_flush_async(struct bench_dev *d)
{
	return d->ops->hdp_flush ? d->ops->hdp_flush(d) : -EOPNOTSUPP;
}

const volatile uint32_t *bench_dev_seqno_word(struct bench_dev *d)
{
	return d->ops->seqno_word ? d->ops->seqno_word(d) : NULL;
}

/* The first queue needs the process doorbell slice mapped at a VA. */
static int doorbell_bo(struct bench_dev *d)
{
	struct bench_bo *bo = &d->doorbell;
	uint64_t va;
	int r;

	if (d->have_doorbell)
		return 0;
	va = bench_dev_va(d, DOORBELL_SIZE);
	if (!va)
		return -ENOMEM;
	r = bench_dev_alloc(d, BENCH_MEM_DOORBELL, va, DOORBELL_SIZE, bo);
	if (r)
		return r;
	r = bench_dev_map(d, bo);
	if (!r)
		r = bench_dev_cpu_map(d, bo);
	if (r) {
		bench_dev_free(d, bo, false);
		return r;
	}
	d->have_doorbell = true;
	return 0;
}

int bench_dev_queue_create(struct bench_dev *d, uint64_t ring_va, uint32_t ring_size,
			   uint64_t rptr_va, uint64_t wptr_va, struct bench_queue *q)
{
	int r = doorbell_bo(d);

	memset(q, 0, sizeof(*q));
	if (r)
		return r;
	return d->ops->queue_create(d, ring_va, ring_size, rptr_va, wptr_va, q);
}

int bench_dev_queue_destroy(struct bench_dev *d, struct bench_queue *q)
{
	return d->ops->queue_destroy(d, q);
}
