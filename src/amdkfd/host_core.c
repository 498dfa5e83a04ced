// SPDX-License-Identifier: MIT
/*
 * The core every command handler calls down into: the KFD ioctl path, GPU
 * index lookup, VA checks, the response writer, context loss and the
 * protocol features the device supports. Nothing here calls a handler, the
 * executor or the context lifecycle (docs/architecture.md, "Host library
 * layers").
 */
#include "host_internal.h"
#include "host_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int host_kfd_ioctl(struct vkfd_host_context *ctx, unsigned long req, void *arg)
{
	return ctx->ops->ioctl(ctx->dev, ctx->kfd_fd, req, arg);
}

int host_kfd_wait_events(struct vkfd_host_context *ctx, struct kfd_ioctl_wait_events_args *a,
			 void (*registered)(void *), void *arg)
{
	if (ctx->ops->wait_events)
		return ctx->ops->wait_events(ctx->dev, ctx->kfd_fd, a, registered, arg);
	/* the kernel registers the waiters at the ioctl's start: what is
	 * left is the system call's entry */
	registered(arg);
	return ctx->ops->ioctl(ctx->dev, ctx->kfd_fd, AMDKFD_IOC_WAIT_EVENTS, a);
}

int host_gpu_index(struct vkfd_host_context *ctx, uint32_t gpu_id)
{
	int g = topo_export_find_gpu(&host_g.topo, gpu_id);

	(void)ctx;
	return g < 0 ? -EINVAL : g;
}

int host_gpu_index_vm(struct vkfd_host_context *ctx, uint32_t gpu_id)
{
	int g = host_gpu_index(ctx, gpu_id);

	if (g >= 0 && !ctx->gpu[g].vm_acquired)
		return -EINVAL;
	return g;
}

bool host_range_mapped(struct vkfd_host_context *ctx, uint64_t va, uint64_t size, uint32_t g)
{
	const struct va_range *r = va_map_find(&ctx->va, va, size);
	const struct host_bo *bo;

	if (!r)
		return false;
	bo = r->owner;
	return (bo->mapped_mask >> g) & 1;
}

bool host_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

uint64_t host_features_for(const struct vkfd_device_caps *caps, uint32_t host_flags)
{
	/* kfdsim models the render-node queries (render_ioctl.c) */
	uint64_t f = VKFD_FEAT_IMPORT_RESOURCE | VKFD_FEAT_DOORBELL_RELAY | VKFD_FEAT_AMDGPU_QUERY;
	bool v11 = !host_env_on("VKFD_HOST_PROTO_1_0");

	/* protocol 1.1 features, unless a test asks for a 1.0 host */
	if (v11)
		f |= VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC | VKFD_FEAT_ASYNC_MAP |
		     VKFD_FEAT_STRICT_ALLOC;

	if (caps->flags & VKFD_DEVICE_CAP_EVENT_AGES)
		f |= VKFD_FEAT_EVENT_AGES | VKFD_FEAT_EVENT_HINTS;
	if (caps->flags & VKFD_DEVICE_CAP_EXPORT_DMABUF)
		f |= VKFD_FEAT_VRAM_EXPORT;
	if (caps->flags & VKFD_DEVICE_CAP_SIMULATED)
		f |= VKFD_FEAT_SIM_DEVICE;
	if ((caps->flags & VKFD_DEVICE_CAP_PROCESS_PER_OPEN) &&
	    !(host_flags & VKFD_HOST_FLAG_ONE_KFD_PROCESS))
		f |= VKFD_FEAT_MULTI_CONTEXT;
	if (v11 && !(host_flags & VKFD_HOST_FLAG_NO_ARENAS))
		f |= VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES;
	return f;
}

uint64_t host_features(void)
{
	return host_features_for(&host_g.caps, host_g.cfg.flags);
}

/*
 * The asynchronous-allocation budget (docs/protocol.md 14.2): GTT bytes the
 * guest may allocate without waiting, guaranteed to succeed after the
 * budget_allocs-th GTT allocation request. The window bounds what a
 * context takes ahead of its executor; a GTT quota caps it at its
 * headroom, so that near the quota every allocation is synchronous and
 * -ENOMEM exact. Bytes first, count last (release): a guest that reads a
 * count then the bytes sees bytes at least as new, which only makes its
 * sum more conservative.
 */
void host_budget_publish(struct vkfd_host_context *ctx)
{
	struct vkfd_shmem_hdr *sh;
	uint64_t quota = host_g.cfg.quota.gtt_bytes, bytes = HOST_ASYNC_GTT_WINDOW;
	bool on = host_ctx_has(ctx, VKFD_FEAT_ASYNC_ALLOC);

	if (!ctx->shmem.map)
		return;
	sh = vkfd_shmem_hdr(ctx->shmem.map);
	if (quota && quota - (ctx->gtt_used < quota ? ctx->gtt_used : quota) < bytes)
		bytes = quota - (ctx->gtt_used < quota ? ctx->gtt_used : quota);
	__atomic_store_n(&sh->max_bos, on ? ctx->bos.max : 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sh->budget_bytes, on ? bytes : 0, __ATOMIC_RELEASE);
	__atomic_store_n(&sh->budget_allocs, on ? ctx->gtt_allocs : 0, __ATOMIC_RELEASE);
}

/* After HELLO: the relay honours the guest's map barrier word exactly while
 * VKFD_FEAT_ASYNC_MAP is granted (docs/protocol.md 14.5). */
void host_map_barrier_publish(struct vkfd_host_context *ctx)
{
	struct doorbell_relay_barrier b;

	if (!ctx->relay)
		return;
	if (!ctx->shmem.map || !host_ctx_has(ctx, VKFD_FEAT_ASYNC_MAP)) {
		doorbell_relay_set_barrier(ctx->relay, NULL);
		return;
	}
	b.guest_word = &vkfd_shmem_hdr(ctx->shmem.map)->map_barrier;
	b.done = &ctx->async_map_done;
	b.processed = &ctx->exec_seqno;
	doorbell_relay_set_barrier(ctx->relay, &b);
}

void host_reply(struct vkfd_host_context *ctx, const struct vkfd_cmd_view *v, void *rsp,
		uint32_t len)
{
	int r;

	if (len < sizeof(struct vkfd_rsp_hdr))
		len = sizeof(struct vkfd_rsp_hdr);
	pthread_mutex_lock(&ctx->reply_lock);
	r = vkfd_rsp_write(ctx->shmem.map, v->hdr.rsp_off, rsp, len, v->hdr.seqno);
	pthread_mutex_unlock(&ctx->reply_lock);
	if (r)
		vkfd_dbg("ctx %u: %s seqno %u: response slot out of the area, dropped", ctx->ctx_id,
			 vkfd_cmd_name(v->hdr.cmd), v->hdr.seqno);
}

void host_context_mark_lost(struct vkfd_host_context *ctx, uint32_t why)
{
	uint32_t expected = 0;

	if (!__atomic_compare_exchange_n(&ctx->lost, &expected, why, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	vkfd_err("ctx %u (%s): context lost (reason %u); it refuses further work", ctx->ctx_id,
		 ctx->name, why);
	if (ctx->shmem.map)
		vkfd_store_release_u32(&vkfd_shmem_hdr(ctx->shmem.map)->async_error, why);
	/* no fence may stay pending forever: the guest learns the loss from
	 * the async error word after its fence */
	fence_state_complete_all(&ctx->fences);
}
