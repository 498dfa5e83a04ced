// SPDX-License-Identifier: MIT
/*
 * Queue commands. Every address the guest gives (ring, read/write pointer,
 * EOP, CWSR) must lie inside a BO of this context mapped on that GPU, and
 * have the buffer shape Linux 6.12 requires, checked before KFD sees it. The device doorbell offset
 * never reaches the guest: it gets a slot index in its shadow doorbell page. The relay rings the
 * real doorbell from the queue's write pointer, read through a host mapping of the BO that holds
 * it (docs/protocol.md section 11).
 */
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#define QUEUE_PAGE 4096ull

/*
 * The buffer shape Linux 6.12 requires (kfd_queue_buffer_get): the page of
 * va must start a GPU mapping and, when expected is a page or more, that
 * mapping must be exactly expected rounded down to pages long. Applied on
 * every host kernel so a guest sees one rule. A BO allocated with
 * AQL_QUEUE_MEM is two mappings of half its size each. Containment was
 * checked before (the va map holds page-aligned BOs).
 */
static bool buffer_shape_ok(struct vkfd_host_context *ctx, uint64_t va, uint64_t expected,
			    uint32_t g)
{
	uint64_t page = va & ~(QUEUE_PAGE - 1), pages = expected / QUEUE_PAGE, start, len;
	const struct va_range *r = va_map_find(&ctx->va, page, 1);
	const struct host_bo *bo;

	if (!r)
		return false;
	bo = r->owner;
	if (!((bo->mapped_mask >> g) & 1))
		return false;
	start = r->start;
	len = r->end - r->start;
	if (bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM) {
		len /= 2;
		if (page >= start + len)
			start += len;
	}
	return page == start && (!pages || len == pages * QUEUE_PAGE);
}

static bool is_compute(uint32_t type)
{
	return type == KFD_IOC_QUEUE_TYPE_COMPUTE || type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
}

/* An optional buffer is absent as (0, 0); otherwise it must be mapped. */
static bool optional_range_ok(struct vkfd_host_context *ctx, uint64_t va, uint64_t size, uint32_t g)
{
	if (va == 0 && size == 0)
		return true;
	return host_range_mapped(ctx, va, size, g);
}

/* Claim one of the GPU's active-context slots for this context. */
static int gpu_slot_get(struct vkfd_host_context *ctx, uint32_t g)
{
	uint32_t limit = host_g.cfg.max_active_contexts_per_gpu
			     ? host_g.cfg.max_active_contexts_per_gpu
			     : HOST_DEFAULT_CONTEXTS_PER_GPU;
	int ret = 0;

	if ((ctx->gpu_active_mask >> g) & 1)
		return 0;
	pthread_mutex_lock(&host_g.lock);
	if (host_g.gpu_active[g] >= limit) {
		ret = -EBUSY;
	} else {
		host_g.gpu_active[g]++;
		ctx->gpu_active_mask |= 1ull << g;
	}
	pthread_mutex_unlock(&host_g.lock);
	if (ret)
		vkfd_warn("ctx %u: GPU %u already runs queues of %u contexts (limit)", ctx->ctx_id,
			  g, limit);
	return ret;
}

static void gpu_slot_put(struct vkfd_host_context *ctx, uint32_t g)
{
	if (!((ctx->gpu_active_mask >> g) & 1))
		return;
	pthread_mutex_lock(&host_g.lock);
	host_g.gpu_active[g]--;
	ctx->gpu_active_mask &= ~(1ull << g);
	pthread_mutex_unlock(&host_g.lock);
}

static int map_real_doorbells(struct vkfd_host_context *ctx, uint32_t g)
{
	struct host_gpu_state *gs = &ctx->gpu[g];
	uint64_t off =
	    VKFD_KFD_MMAP_TYPE_DOORBELL | VKFD_KFD_MMAP_GPU_ID(host_g.topo.gpus[g].gpu_id);
	void *p;
	int ret;

	if (!gs->shadow_db.map) {
		ret = shmem_region_create(&gs->shadow_db, "vkfd-doorbell", VKFD_KFD_DOORBELL_SLICE);
		if (ret)
			return ret;
	}
	if (gs->real_db)
		return 0;
	p = ctx->ops->mmap(ctx->dev, NULL, VKFD_KFD_DOORBELL_SLICE, PROT_READ | PROT_WRITE,
			   MAP_SHARED, ctx->kfd_fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	gs->real_db = p;
	return 0;
}

/*
 * Let the relay read the queue's write pointer: map, read-only, the page of
 * the BO that holds it (create_queue checked that the 8 bytes lie inside a
 * BO mapped on the GPU). The mapping holds its own reference on the memory,
 * so even if the guest frees that BO while the queue lives, the relay reads
 * pages that still exist (and that only this guest can write). Fills q's
 * value/map; -errno if the BO's memory cannot be mapped on this host.
 */
static int map_write_pointer(struct vkfd_host_context *ctx, uint64_t wptr_va,
			     struct doorbell_relay_queue *q)
{
	const struct va_range *r = va_map_find(&ctx->va, wptr_va, 8);
	const struct host_bo *bo;
	uint64_t off, mem_off;
	uint8_t *p;
	int fd;

	if (!r || (wptr_va & 7))
		return -EINVAL;
	bo = r->owner;
	off = wptr_va - bo->va;
	/* AQL_QUEUE_MEM: the second half of the VA shows the first again */
	if (host_bo_backing_bytes(bo) && host_bo_backing_bytes(bo) < bo->size)
		off %= host_bo_backing_bytes(bo);
	fd = host_bo_memory_fd(ctx, bo, &mem_off);
	if (fd < 0)
		return fd;
	off += mem_off; /* an arena BO starts inside its arena's memfd */
	p = mmap(NULL, QUEUE_PAGE, PROT_READ, MAP_SHARED, fd, (off_t)(off & ~(QUEUE_PAGE - 1)));
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	q->map = p;
	q->map_len = QUEUE_PAGE;
	q->value = (const volatile uint64_t *)(p + (off & (QUEUE_PAGE - 1)));
	return 0;
}

static enum doorbell_relay_src relay_src(uint32_t queue_type)
{
	/* ROCr on gfx9+ stores an AQL packet index into the doorbell; SDMA
	 * and PM4 queues get the write pointer itself */
	return queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL ? RELAY_SRC_WPTR_AQL
							    : RELAY_SRC_WPTR_RAW;
}

/* The relay's ring of this queue's real doorbell: through the device seam,
 * so that kfdsim wakes the queue's engine (include/vkfd/device.h). */
static void queue_ring(void *arg, volatile uint64_t *real_db, uint64_t value)
{
	const struct host_queue *q = arg;
	struct vkfd_host_context *ctx = q->ctx;

	if (ctx->ops->ring_doorbell)
		ctx->ops->ring_doorbell(ctx->dev, ctx->kfd_fd, q->gpu_id, q->slot * 8u, real_db,
					value);
	else
		__atomic_store_n(real_db, value, __ATOMIC_RELEASE);
}

static void queue_forget(struct vkfd_host_context *ctx, struct host_queue *q)
{
	if (ctx->relay)
		doorbell_relay_remove(ctx->relay, q->relay_slot);
	pthread_mutex_lock(&ctx->lock);
	obj_table_remove(&ctx->queues, q->handle);
	pthread_mutex_unlock(&ctx->lock);
	if (--ctx->gpu[q->gpu].n_queues == 0)
		gpu_slot_put(ctx, q->gpu);
	free(q);
}

static int destroy_kfd_queue(struct vkfd_host_context *ctx, uint32_t queue_id)
{
	struct kfd_ioctl_destroy_queue_args a;

	memset(&a, 0, sizeof(a));
	a.queue_id = queue_id;
	return host_kfd_ioctl(ctx, AMDKFD_IOC_DESTROY_QUEUE, &a);
}

int cmd_create_queue(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_create_queue *rsp = (void *)c->rsp;
	struct vkfd_kfd_create_queue_args a;
	const struct vkfd_req_create_queue *r = CMD_REQ(c, struct vkfd_req_create_queue);
	struct doorbell_relay_queue rq;
	struct host_queue *q;
	uint64_t handle;
	uint32_t slot;
	int g, ret;

	g = host_gpu_index_vm(ctx, r->gpu_id);
	if (g < 0)
		return g;
	if ((r->queue_percentage & 0xff) > 100 || r->queue_priority > 15)
		return -EINVAL;
	if (!is_pow2(r->ring_size))
		return -EINVAL;
	/* the control stack is the start of the save area */
	if (r->ctl_stack_size > r->ctx_save_restore_size)
		return -EINVAL;
	/* recent kernels clamp rings below 1 KiB up to 1 KiB: check what the
	 * GPU will really read */
	if (!host_range_mapped(ctx, r->ring_base_address, r->ring_size < 1024 ? 1024 : r->ring_size,
			       (uint32_t)g) ||
	    !host_range_mapped(ctx, r->read_pointer_address, 8, (uint32_t)g) ||
	    !host_range_mapped(ctx, r->write_pointer_address, 8, (uint32_t)g) ||
	    !optional_range_ok(ctx, r->eop_buffer_address, r->eop_buffer_size, (uint32_t)g) ||
	    !optional_range_ok(ctx, r->ctx_save_restore_address, r->ctx_save_restore_size,
			       (uint32_t)g))
		return -EFAULT;
	/* 6.12: rptr and wptr pages one-page mappings, the ring a mapping of
	 * its size, EOP (compute) of its size; CWSR only starts a mapping
	 * because its full size (debugger area, XCC count) is the kernel's */
	if (!buffer_shape_ok(ctx, r->write_pointer_address, QUEUE_PAGE, (uint32_t)g) ||
	    !buffer_shape_ok(ctx, r->read_pointer_address, QUEUE_PAGE, (uint32_t)g) ||
	    !buffer_shape_ok(ctx, r->ring_base_address, r->ring_size, (uint32_t)g) ||
	    (is_compute(r->queue_type) && r->eop_buffer_address &&
	     !buffer_shape_ok(ctx, r->eop_buffer_address, r->eop_buffer_size, (uint32_t)g)) ||
	    (r->ctx_save_restore_address &&
	     !buffer_shape_ok(ctx, r->ctx_save_restore_address, 0, (uint32_t)g)))
		return -EINVAL;
	if (ctx->queues.count >= ctx->queues.max)
		return -ENOMEM;
	ret = gpu_slot_get(ctx, (uint32_t)g);
	if (ret)
		return ret;
	q = calloc(1, sizeof(*q));
	if (!q) {
		ret = -ENOMEM;
		goto fail_slot;
	}

	memset(&a, 0, sizeof(a));
	a.base.ring_base_address = r->ring_base_address;
	a.base.write_pointer_address = r->write_pointer_address;
	a.base.read_pointer_address = r->read_pointer_address;
	a.base.ring_size = r->ring_size;
	a.base.gpu_id = r->gpu_id;
	a.base.queue_type = r->queue_type;
	a.base.queue_percentage = r->queue_percentage;
	a.base.queue_priority = r->queue_priority;
	a.base.eop_buffer_address = r->eop_buffer_address;
	a.base.eop_buffer_size = r->eop_buffer_size;
	a.base.ctx_save_restore_address = r->ctx_save_restore_address;
	a.base.ctx_save_restore_size = r->ctx_save_restore_size;
	a.base.ctl_stack_size = r->ctl_stack_size;
	a.sdma_engine_id = r->sdma_engine_id;
	ret = host_kfd_ioctl(ctx, VKFD_KFD_IOC_CREATE_QUEUE, &a);
	if (ret)
		goto fail_free;
	ret = map_real_doorbells(ctx, (uint32_t)g);
	if (ret)
		goto fail_destroy;
	/* SOC15: the low bits are the byte offset inside the process slice */
	slot = (uint32_t)((a.base.doorbell_offset & (VKFD_KFD_DOORBELL_SLICE - 1)) / 8);
	q->queue_id = a.base.queue_id;
	q->gpu = (uint32_t)g;
	q->slot = slot;
	q->relay_slot = (uint32_t)g * VKFD_KFD_DOORBELL_SLICE_SLOTS + slot;
	memset(&rq, 0, sizeof(rq));
	rq.real_db = ctx->gpu[g].real_db + slot;
	q->ctx = ctx;
	q->gpu_id = r->gpu_id;
	rq.ring = queue_ring;
	rq.ring_arg = q;
	rq.src = relay_src(r->queue_type);
	ret = map_write_pointer(ctx, r->write_pointer_address, &rq);
	if (ret) {
		/* e.g. a KFD 1.11 host and a wptr in AQL_QUEUE_MEM: relay the
		 * guest's stores instead (no VMM trap may drop them) */
		vkfd_warn("ctx %u: queue write pointer not mappable (%d): relaying the shadow slot",
			  ctx->ctx_id, ret);
		rq.src = RELAY_SRC_SHADOW;
		rq.value = (volatile uint64_t *)ctx->gpu[g].shadow_db.map + slot;
	}
	ret = doorbell_relay_add_queue(ctx->relay, q->relay_slot, &rq);
	if (ret) {
		if (rq.map)
			munmap(rq.map, rq.map_len);
		goto fail_destroy;
	}
	pthread_mutex_lock(&ctx->lock);
	ret = obj_table_add(&ctx->queues, q, &handle);
	pthread_mutex_unlock(&ctx->lock);
	if (ret) {
		doorbell_relay_remove(ctx->relay, q->relay_slot);
		goto fail_destroy;
	}
	q->handle = handle;
	ctx->gpu[g].n_queues++;
	rsp->queue = handle;
	rsp->doorbell_index = slot;
	rsp->ring_size = a.base.ring_size;
	c->rsp_len = sizeof(*rsp);
	return 0;

fail_destroy:
	destroy_kfd_queue(ctx, a.base.queue_id);
fail_free:
	free(q);
fail_slot:
	if (ctx->gpu[g].n_queues == 0)
		gpu_slot_put(ctx, (uint32_t)g);
	return ret;
}

int cmd_destroy_queue(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_handle *r = CMD_REQ(c, struct vkfd_req_handle);
	struct host_queue *q;
	int ret;

	q = obj_table_get(&ctx->queues, r->handle);
	if (!q)
		return -EINVAL;
	ret = destroy_kfd_queue(ctx, q->queue_id);
	/* the handle is invalid afterwards even if the kernel failed */
	queue_forget(ctx, q);
	return ret;
}

int cmd_update_queue(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct kfd_ioctl_update_queue_args a;
	const struct vkfd_req_update_queue *r = CMD_REQ(c, struct vkfd_req_update_queue);
	struct host_queue *q;

	q = obj_table_get(&ctx->queues, r->queue);
	if (!q)
		return -EINVAL;
	if ((r->queue_percentage & 0xff) > 100 || r->queue_priority > 15)
		return -EINVAL;
	if (r->ring_size && !is_pow2(r->ring_size))
		return -EINVAL;
	if ((r->ring_base_address == 0) != (r->ring_size == 0))
		return -EINVAL;
	if (r->ring_base_address &&
	    !host_range_mapped(ctx, r->ring_base_address, r->ring_size < 1024 ? 1024 : r->ring_size,
			       q->gpu))
		return -EFAULT;
	if (r->ring_base_address &&
	    !buffer_shape_ok(ctx, r->ring_base_address, r->ring_size, q->gpu))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.ring_base_address = r->ring_base_address;
	a.queue_id = q->queue_id;
	a.ring_size = r->ring_size;
	a.queue_percentage = r->queue_percentage;
	a.queue_priority = r->queue_priority;
	return host_kfd_ioctl(ctx, AMDKFD_IOC_UPDATE_QUEUE, &a);
}

int cmd_set_cu_mask(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct kfd_ioctl_set_cu_mask_args a;
	uint32_t mask[VKFD_MAX_CU_MASK_WORDS];
	const struct vkfd_req_set_cu_mask *r = CMD_REQ(c, struct vkfd_req_set_cu_mask);
	struct host_queue *q;

	q = obj_table_get(&ctx->queues, r->queue);
	if (!q)
		return -EINVAL;
	if (r->num_cu_mask == 0 || r->num_cu_mask % 32 || r->num_cu_mask > VKFD_MAX_CU_MASK_BITS ||
	    32u + r->num_cu_mask / 8 > c->v->hdr.len)
		return -EINVAL;
	memcpy(mask, r->cu_mask, sizeof(mask));
	memset(&a, 0, sizeof(a));
	a.queue_id = q->queue_id;
	a.num_cu_mask = r->num_cu_mask;
	a.cu_mask_ptr = (uint64_t)(uintptr_t)mask;
	return host_kfd_ioctl(ctx, AMDKFD_IOC_SET_CU_MASK, &a);
}

int cmd_alloc_queue_gws(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_alloc_queue_gws *rsp = (void *)c->rsp;
	struct kfd_ioctl_alloc_queue_gws_args a;
	const struct vkfd_req_alloc_queue_gws *r = CMD_REQ(c, struct vkfd_req_alloc_queue_gws);
	struct host_queue *q;
	int ret;

	q = obj_table_get(&ctx->queues, r->queue);
	if (!q)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.queue_id = q->queue_id;
	a.num_gws = r->num_gws;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_ALLOC_QUEUE_GWS, &a);
	if (ret)
		return ret;
	rsp->first_gws = a.first_gws;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_doorbell_notify(struct cmd_ctx *c)
{
	const struct vkfd_req_handle *r = CMD_REQ(c, struct vkfd_req_handle);
	struct host_queue *q;

	q = obj_table_get(&c->ctx->queues, r->handle);
	if (!q)
		return -EINVAL;
	/* this queue's doorbell only: a batch of notifies costs O(its length) */
	doorbell_relay_flush_slot(c->ctx->relay, q->relay_slot);
	return 0;
}

int cmd_hdp_flush(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_gpu *r = CMD_REQ(c, struct vkfd_req_gpu);
	int g;

	g = host_gpu_index_vm(ctx, r->gpu_id);
	if (g < 0)
		return g;
	/* coherent memfd memory (kfdsim): nothing to flush */
	if (host_device_can(VKFD_DEVICE_CAP_COHERENT_MEMFD))
		return 0;
	if (!ctx->gpu[g].real_mmio) {
		uint64_t off = VKFD_KFD_MMAP_TYPE_MMIO | VKFD_KFD_MMAP_GPU_ID(r->gpu_id);
		void *p = ctx->ops->mmap(ctx->dev, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
					 ctx->kfd_fd, (off_t)off);

		if (p == MAP_FAILED)
			return -errno;
		ctx->gpu[g].real_mmio = p;
	}
	/* HDP_MEM_FLUSH_CNTL sits at offset 0 of the remapped page */
	__atomic_store_n(&ctx->gpu[g].real_mmio[0], 1u, __ATOMIC_RELEASE);
	return 0;
}

void host_queues_release(struct vkfd_host_context *ctx)
{
	struct host_queue *q;
	uint32_t pos = 0;

	while ((q = obj_table_next(&ctx->queues, &pos, NULL))) {
		destroy_kfd_queue(ctx, q->queue_id);
		queue_forget(ctx, q);
	}
}
