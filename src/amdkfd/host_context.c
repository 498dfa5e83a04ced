// SPDX-License-Identifier: MIT
/*
 * Context lifetime, command submission and fences. Nothing here waits for
 * the GPU: submit_cmd checks framing, copies and queues; the executor
 * (host_executor.c) runs the commands.
 */
#include "host_export.h"
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void ctx_list_add_locked(struct vkfd_host_context *ctx)
{
	host_assert_held(&host_g.lock);
	ctx->next_ctx = host_g.contexts;
	host_g.contexts = ctx;
	host_g.n_contexts++;
}

static void ctx_list_del_locked(struct vkfd_host_context *ctx)
{
	host_assert_held(&host_g.lock);
	for (struct vkfd_host_context **p = &host_g.contexts; *p; p = &(*p)->next_ctx) {
		if (*p == ctx) {
			*p = ctx->next_ctx;
			host_g.n_contexts--;
			return;
		}
	}
}

/* One KFD process per context: the real KFD keys processes on the host mm,
 * so a second context in this process needs a secondary KFD process. */
static int ctx_open_kfd(struct vkfd_host_context *ctx, bool need_secondary)
{
	int fd = ctx->ops->open_kfd(ctx->dev), ret;

	if (fd < 0)
		return fd;
	if (need_secondary) {
		ret = ctx->ops->ioctl(ctx->dev, fd, VKFD_KFD_IOC_CREATE_PROCESS, NULL);
		if (ret) {
			ctx->ops->close(ctx->dev, fd);
			vkfd_err(
			    "ctx %u: refused: this host process already runs a KFD context and "
			    "the device offers no secondary KFD processes (%s); run one context "
			    "per worker process (render server / vkfd-server)",
			    ctx->ctx_id, strerror(-ret));
			return -EBUSY;
		}
	}
	ctx->kfd_fd = fd;
	ctx->kfd_secondary = need_secondary;
	return 0;
}

static int ctx_query_apertures(struct vkfd_host_context *ctx)
{
	struct kfd_process_device_apertures ap[HOST_MAX_GPUS * 2];
	struct kfd_ioctl_get_process_apertures_new_args a;
	int ret;

	memset(ap, 0, sizeof(ap));
	memset(&a, 0, sizeof(a));
	a.kfd_process_device_apertures_ptr = (uint64_t)(uintptr_t)ap;
	a.num_of_nodes = HOST_MAX_GPUS * 2;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < a.num_of_nodes && i < HOST_MAX_GPUS * 2; i++) {
		int g = topo_export_find_gpu(&host_g.topo, ap[i].gpu_id);

		if (g >= 0) {
			ctx->gpu[g].ap = ap[i];
			ctx->gpu[g].have_ap = true;
		}
	}
	return 0;
}

static void ctx_free(struct vkfd_host_context *ctx)
{
	for (uint32_t g = 0; g < HOST_MAX_GPUS; g++) {
		struct host_gpu_state *gs = &ctx->gpu[g];

		if (gs->real_db)
			ctx->ops->munmap(ctx->dev, (void *)gs->real_db, VKFD_KFD_DOORBELL_SLICE);
		if (gs->real_mmio)
			ctx->ops->munmap(ctx->dev, (void *)gs->real_mmio, 4096);
		if (gs->render_fd >= 0)
			ctx->ops->close(ctx->dev, gs->render_fd);
		shmem_region_destroy(&gs->shadow_db);
		shmem_region_destroy(&gs->shadow_mmio);
	}
	if (ctx->kfd_fd >= 0)
		ctx->ops->close(ctx->dev, ctx->kfd_fd);
	for (uint32_t i = 0; i < ctx->n_res; i++)
		if (ctx->res[i].fd >= 0)
			close(ctx->res[i].fd);
	free(ctx->res);
	shmem_region_destroy(&ctx->shmem);
	fence_state_fini(&ctx->fences);
	obj_table_fini(&ctx->bos);
	obj_table_fini(&ctx->queues);
	va_map_fini(&ctx->va);
	free(ctx->events);
	host_blob_table_fini(ctx);
	free(ctx->rsp_buf);
	free(ctx->req_buf);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->reply_lock);
	pthread_cond_destroy(&ctx->cond);
	wait_order_fini(&ctx->wait_order);
	free(ctx);
}

static void ctx_teardown(struct vkfd_host_context *ctx)
{
	/* From here on no retire callback starts, and one running on a library
	 * thread has returned: a VMM frees its fence bookkeeping around destroy
	 * (virglrenderer's vtest before it, with fences pending), so fences
	 * still pending are dropped, not retired (include/vkfd/host.h). */
	fence_state_close(&ctx->fences);
	host_executor_stop(ctx);
	/* wake and join every wait thread: destroying the events completes
	 * their KFD waits; no response is written once stopping is set */
	host_events_cancel(ctx);
	if (ctx->waits)
		wait_pool_destroy(ctx->waits);
	ctx->waits = NULL;
	doorbell_relay_stop(ctx->relay);
	ctx->relay = NULL;
	host_queues_release(ctx);
	host_bos_release(ctx);
	host_arenas_release(ctx);
	pthread_mutex_lock(&host_g.lock);
	for (uint32_t g = 0; g < HOST_MAX_GPUS; g++)
		if ((ctx->gpu_active_mask >> g) & 1)
			host_g.gpu_active[g]--;
	pthread_mutex_unlock(&host_g.lock);
	ctx_free(ctx);
}

VKFD_EXPORT int vkfd_host_context_create(uint32_t ctx_id, const char *debug_name, void *cookie,
					 struct vkfd_host_context **out)
{
	const struct vkfd_host_quota *q = &host_g.cfg.quota;
	struct vkfd_host_context *ctx;
	bool need_secondary;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->ctx_id = ctx_id;
	snprintf(ctx->name, sizeof(ctx->name), "%s", debug_name ? debug_name : "");
	ctx->cookie = cookie;
	ctx->kfd_fd = -1;
	ctx->xnack = -1;
	ctx->shmem.fd = -1;
	for (uint32_t g = 0; g < HOST_MAX_GPUS; g++) {
		ctx->gpu[g].render_fd = -1;
		ctx->gpu[g].shadow_db.fd = -1;
		ctx->gpu[g].shadow_mmio.fd = -1;
	}
	pthread_mutex_init(&ctx->lock, NULL);
	pthread_mutex_init(&ctx->reply_lock, NULL);
	pthread_cond_init(&ctx->cond, NULL);
	wait_order_init(&ctx->wait_order);
	obj_table_init(&ctx->bos, q->max_bos ? q->max_bos : HOST_DEFAULT_MAX_BOS);
	obj_table_init(&ctx->queues, q->max_queues ? q->max_queues : HOST_DEFAULT_MAX_QUEUES);
	va_map_init(&ctx->va);
	ret = fence_state_init(&ctx->fences, host_g.cfg.flags & VKFD_HOST_FLAG_ASYNC_FENCES,
			       host_g.cfg.retire_fence, cookie, ctx_id);
	if (ret) {
		ctx->fences.efd = -1;
		goto fail_free;
	}

	pthread_mutex_lock(&host_g.lock);
	if (!host_g.inited) {
		pthread_mutex_unlock(&host_g.lock);
		ret = -ENODEV;
		goto fail_free;
	}
	ctx->ops = host_g.ops;
	ctx->dev = host_g.dev;
	ctx->n_gpus = host_g.topo.n_gpus;
	need_secondary =
	    host_g.n_contexts > 0 && (!host_device_can(VKFD_DEVICE_CAP_PROCESS_PER_OPEN) ||
				      (host_g.cfg.flags & VKFD_HOST_FLAG_ONE_KFD_PROCESS));
	ret = ctx_open_kfd(ctx, need_secondary);
	if (!ret)
		ctx_list_add_locked(ctx);
	pthread_mutex_unlock(&host_g.lock);
	if (ret)
		goto fail_free;

	ret = ctx_query_apertures(ctx);
	if (ret)
		goto fail;
	ret = wait_pool_create(&ctx->waits, q->max_pending_waits ? q->max_pending_waits
								 : HOST_DEFAULT_MAX_WAITS);
	if (ret)
		goto fail;
	ret = doorbell_relay_start(&ctx->relay, HOST_QUEUE_SLOTS);
	if (ret)
		goto fail;
	/* the baseline of the relay's hot window and WAIT_EVENTS poke
	 * (docs/testing.md) */
	ctx->relay_lazy = host_env_on("VKFD_HOST_RELAY_LAZY");
	if (ctx->relay_lazy)
		doorbell_relay_set_poll(
		    ctx->relay,
		    &(struct doorbell_relay_poll){RELAY_POLL_MIN_US, RELAY_POLL_MAX_US, 0, 0});
	ret = host_executor_start(ctx);
	if (ret)
		goto fail;
	vkfd_info("ctx %u (%s): created on %s", ctx_id, ctx->name, ctx->ops->name);
	*out = ctx;
	return 0;
fail:
	pthread_mutex_lock(&host_g.lock);
	ctx_list_del_locked(ctx);
	pthread_mutex_unlock(&host_g.lock);
	ctx_teardown(ctx);
	return ret;
fail_free:
	ctx_free(ctx);
	return ret;
}

VKFD_EXPORT void vkfd_host_context_destroy(struct vkfd_host_context *ctx)
{
	if (!ctx)
		return;
	pthread_mutex_lock(&host_g.lock);
	ctx_list_del_locked(ctx);
	pthread_mutex_unlock(&host_g.lock);
	vkfd_info("ctx %u (%s): destroyed", ctx->ctx_id, ctx->name);
	ctx_teardown(ctx);
}

void host_contexts_destroy_all(void)
{
	for (;;) {
		struct vkfd_host_context *ctx;

		pthread_mutex_lock(&host_g.lock);
		ctx = host_g.contexts;
		if (ctx)
			ctx_list_del_locked(ctx);
		pthread_mutex_unlock(&host_g.lock);
		if (!ctx)
			return;
		ctx_teardown(ctx);
	}
}

/* Bind blob ids (get_blob must not wait for the executor) and count the
 * waits later fences depend on. O(1) per request. */
static void scan_batch_locked(struct vkfd_host_context *ctx, const uint8_t *data, size_t size)
{
	struct vkfd_cmd_view v;
	struct vkfd_iter it;

	host_assert_held(&ctx->lock);
	vkfd_iter_init(&it, data, size, VKFD_RSP_AREA_SIZE);
	while (vkfd_iter_next(&it, &v) == 1) {
		if (v.hdr.cmd == VKFD_CMD_BIND_BLOB) {
			struct vkfd_req_bind_blob r;

			vkfd_cmd_decode(&v, &r, sizeof(r));
			host_blob_bind_at_submit_locked(ctx, &r);
		} else if (v.hdr.cmd == VKFD_CMD_WAIT_EVENTS) {
			struct vkfd_req_wait_events r;

			vkfd_cmd_decode(&v, &r, sizeof(r));
			host_ring_wait_count_locked(ctx, r.ring_idx);
		}
	}
}

VKFD_EXPORT int vkfd_host_context_submit_cmd(struct vkfd_host_context *ctx, const void *buf,
					     size_t size)
{
	enum vkfd_frame_error ferr = VKFD_FRAME_OK;
	struct exec_item *it;
	size_t eoff = 0;

	if (!ctx || (!buf && size))
		return -EINVAL;
	if (__atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
		return -EIO;
	if (!__atomic_load_n(&ctx->shmem_created, __ATOMIC_ACQUIRE)) {
		vkfd_dbg("ctx %u: submit before the shared memory exists", ctx->ctx_id);
		return -EINVAL;
	}
	if (size == 0)
		return 0;
	if (size > VKFD_MAX_BATCH_SIZE) {
		vkfd_err("ctx %u: batch of %zu bytes exceeds %u", ctx->ctx_id, size,
			 VKFD_MAX_BATCH_SIZE);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_PROTOCOL);
		return -EINVAL;
	}
	/* check the private copy, never the caller's buffer (TOCTOU) */
	it = malloc(sizeof(*it) + size);
	if (!it) {
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_NO_MEMORY);
		return -ENOMEM;
	}
	memcpy(it->data, buf, size);
	it->size = size;
	it->cost = host_batch_cost(size);
	it->next = NULL;
	if (vkfd_batch_check(it->data, size, VKFD_RSP_AREA_SIZE, &ferr, &eoff) < 0) {
		vkfd_err("ctx %u: framing error at offset %zu: %s", ctx->ctx_id, eoff,
			 vkfd_frame_error_str(ferr));
		free(it);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_PROTOCOL);
		return -EINVAL;
	}
	pthread_mutex_lock(&ctx->lock);
	if (ctx->stopping) {
		pthread_mutex_unlock(&ctx->lock);
		free(it);
		return -ESHUTDOWN;
	}
	if (ctx->queued_bytes + it->cost > HOST_MAX_QUEUED_BYTES) {
		pthread_mutex_unlock(&ctx->lock);
		free(it);
		vkfd_err("ctx %u: more than %u bytes of batches waiting for the executor",
			 ctx->ctx_id, HOST_MAX_QUEUED_BYTES);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_NO_MEMORY);
		return -ENOMEM;
	}
	it->seq = ctx->submitted + 1;
	scan_batch_locked(ctx, it->data, size);
	ctx->submitted = it->seq;
	if (host_executor_claim_inline_locked(ctx, it->data, size)) {
		pthread_mutex_unlock(&ctx->lock);
		host_executor_run_inline(ctx, it->data, size, it->seq);
		free(it);
		return 0;
	}
	ctx->queued_bytes += it->cost;
	if (ctx->q_tail)
		ctx->q_tail->next = it;
	else
		ctx->q_head = it;
	ctx->q_tail = it;
	__atomic_store_n(&ctx->submit_hint, it->seq, __ATOMIC_RELEASE);
	pthread_cond_signal(&ctx->cond);
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

VKFD_EXPORT int vkfd_host_context_submit_fence(struct vkfd_host_context *ctx, uint32_t flags,
					       uint32_t ring_idx, uint64_t fence_id)
{
	uint64_t target;

	(void)flags;
	if (!ctx || ring_idx >= VKFD_NUM_RINGS)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	target = host_ring_fence_target_locked(ctx, ring_idx);
	pthread_mutex_unlock(&ctx->lock);
	return fence_state_submit(&ctx->fences, ring_idx, fence_id, target);
}

VKFD_EXPORT int vkfd_host_context_get_fencing_fd(struct vkfd_host_context *ctx)
{
	if (!ctx || ctx->fences.async)
		return -EINVAL;
	return ctx->fences.efd;
}

VKFD_EXPORT void vkfd_host_context_retire_fences(struct vkfd_host_context *ctx)
{
	if (ctx && !ctx->fences.async)
		fence_state_retire(&ctx->fences);
}

VKFD_EXPORT int vkfd_host_context_get_doorbell_fd(struct vkfd_host_context *ctx)
{
	if (!ctx || !ctx->relay)
		return -EINVAL;
	return doorbell_relay_efd(ctx->relay);
}
