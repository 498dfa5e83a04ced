// SPDX-License-Identifier: MIT
/*
 * The per-context executor: runs queued batches in order, one command at a
 * time. Each handler decodes a zero-extended private copy of its request
 * and builds its response in a private buffer, which is copied to the
 * shared response slot before the processed seqno is published (release).
 */
#include "host_internal.h"
#include "host_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cmd_fn)(struct cmd_ctx *c);

static const cmd_fn handlers[VKFD_CMD_COUNT_] = {
    [VKFD_CMD_HELLO] = cmd_hello,
    [VKFD_CMD_GET_VERSION] = cmd_get_version,
    [VKFD_CMD_GET_TOPOLOGY] = cmd_get_topology,
    [VKFD_CMD_GET_PROCESS_APERTURES] = cmd_get_process_apertures,
    [VKFD_CMD_ACQUIRE_VM] = cmd_acquire_vm,
    [VKFD_CMD_SET_MEMORY_POLICY] = cmd_set_memory_policy,
    [VKFD_CMD_SET_SCRATCH_BACKING_VA] = cmd_set_scratch_backing_va,
    [VKFD_CMD_SET_TRAP_HANDLER] = cmd_set_trap_handler,
    [VKFD_CMD_SET_XNACK_MODE] = cmd_set_xnack_mode,
    [VKFD_CMD_GET_CLOCK_COUNTERS] = cmd_get_clock_counters,
    [VKFD_CMD_AVAILABLE_MEMORY] = cmd_available_memory,
    [VKFD_CMD_RUNTIME_ENABLE] = cmd_runtime_enable,
    [VKFD_CMD_GET_TILE_CONFIG] = cmd_get_tile_config,
    [VKFD_CMD_AMDGPU_QUERY] = cmd_amdgpu_query,
    [VKFD_CMD_ALLOC_MEMORY] = cmd_alloc_memory,
    [VKFD_CMD_FREE_MEMORY] = cmd_free_memory,
    [VKFD_CMD_MAP_MEMORY] = cmd_map_memory,
    [VKFD_CMD_UNMAP_MEMORY] = cmd_unmap_memory,
    [VKFD_CMD_UNMAP_MEMORY_ASYNC] = cmd_unmap_memory,
    [VKFD_CMD_BIND_BLOB] = cmd_bind_blob,
    [VKFD_CMD_IMPORT_RESOURCE] = cmd_import_resource,
    [VKFD_CMD_GET_RESOURCE_INFO] = cmd_get_resource_info,
    [VKFD_CMD_CREATE_QUEUE] = cmd_create_queue,
    [VKFD_CMD_DESTROY_QUEUE] = cmd_destroy_queue,
    [VKFD_CMD_UPDATE_QUEUE] = cmd_update_queue,
    [VKFD_CMD_SET_CU_MASK] = cmd_set_cu_mask,
    [VKFD_CMD_ALLOC_QUEUE_GWS] = cmd_alloc_queue_gws,
    [VKFD_CMD_DOORBELL_NOTIFY] = cmd_doorbell_notify,
    [VKFD_CMD_HDP_FLUSH] = cmd_hdp_flush,
    [VKFD_CMD_CREATE_EVENT] = cmd_create_event,
    [VKFD_CMD_DESTROY_EVENT] = cmd_destroy_event,
    [VKFD_CMD_SET_EVENT] = cmd_set_event,
    [VKFD_CMD_RESET_EVENT] = cmd_reset_event,
    [VKFD_CMD_WAIT_EVENTS] = cmd_wait_events,
    [VKFD_CMD_DESTROY_EVENT_ASYNC] = cmd_destroy_event,
    [VKFD_CMD_SET_EVENT_ASYNC] = cmd_set_event,
    [VKFD_CMD_RESET_EVENT_ASYNC] = cmd_reset_event,
};

/* Largest response any command can need (GET_TOPOLOGY's chunk). */
#define HOST_RSP_BUF_SIZE (sizeof(struct vkfd_rsp_get_topology) + VKFD_TOPOLOGY_MAX_CHUNK)

void host_reply(struct vkfd_host_context *ctx, const struct vkfd_cmd_view *v, void *rsp,
		uint32_t len)
{
	if (len < sizeof(struct vkfd_rsp_hdr))
		len = sizeof(struct vkfd_rsp_hdr);
	if (vkfd_rsp_write(ctx->shmem.map, v->hdr.rsp_off, rsp, len, v->hdr.seqno))
		vkfd_dbg("ctx %u: %s seqno %u: response slot out of the area, dropped", ctx->ctx_id,
			 vkfd_cmd_name(v->hdr.cmd), v->hdr.seqno);
}

static void run_one(struct vkfd_host_context *ctx, const struct vkfd_cmd_view *v)
{
	struct cmd_ctx c = {.ctx = ctx, .v = v, .rsp = ctx->rsp_buf};
	uint32_t cap = v->known ? v->rsp_size : (uint32_t)sizeof(struct vkfd_rsp_hdr);
	bool answer = v->known ? v->sync : true;
	cmd_fn fn = v->hdr.cmd < VKFD_CMD_COUNT_ ? handlers[v->hdr.cmd] : NULL;
	struct vkfd_rsp_hdr *rh;
	int ret;

	if (cap < sizeof(struct vkfd_rsp_hdr))
		cap = sizeof(struct vkfd_rsp_hdr);
	if (cap > HOST_RSP_BUF_SIZE)
		cap = HOST_RSP_BUF_SIZE;
	memset(ctx->rsp_buf, 0, cap);
	c.rsp_len = sizeof(struct vkfd_rsp_hdr);
	ret = (v->known && fn) ? fn(&c) : -ENOTTY;
	if (ret)
		vkfd_dbg("ctx %u: %s seqno %u -> %d", ctx->ctx_id, vkfd_cmd_name(v->hdr.cmd),
			 v->hdr.seqno, ret);
	if (!answer || c.deferred)
		return;
	if (c.rsp_len > cap)
		c.rsp_len = cap; /* a handler bug must not overrun the slot */
	rh = (struct vkfd_rsp_hdr *)ctx->rsp_buf;
	rh->ret = ret;
	host_reply(ctx, v, ctx->rsp_buf, c.rsp_len);
}

static void run_batch(struct vkfd_host_context *ctx, const uint8_t *data, size_t size)
{
	struct vkfd_shmem_hdr *sh = vkfd_shmem_hdr(ctx->shmem.map);
	struct vkfd_cmd_view v;
	struct vkfd_iter it;

	vkfd_iter_init(&it, data, size, VKFD_RSP_AREA_SIZE);
	while (vkfd_iter_next(&it, &v) == 1) {
		if (__atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
			return;
		run_one(ctx, &v);
		vkfd_store_release_u32(&sh->seqno, v.hdr.seqno);
	}
}

static void *executor_main(void *arg)
{
	struct vkfd_host_context *ctx = arg;

	pthread_mutex_lock(&ctx->lock);
	for (;;) {
		struct exec_item *it;
		uint64_t seq;
		uint32_t i, j;

		while (!ctx->q_head && !ctx->stopping)
			pthread_cond_wait(&ctx->cond, &ctx->lock);
		if (ctx->stopping)
			break;
		it = ctx->q_head;
		ctx->q_head = it->next;
		if (!ctx->q_head)
			ctx->q_tail = NULL;
		ctx->queued_bytes -= it->size;
		pthread_mutex_unlock(&ctx->lock);

		if (!__atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
			run_batch(ctx, it->data, it->size);
		seq = it->seq;
		free(it);

		pthread_mutex_lock(&ctx->lock);
		ctx->executed = seq;
		/* bindings of this submit are now in the blob table or failed */
		for (i = 0, j = 0; i < ctx->n_binds; i++)
			if (ctx->binds[i].seq > seq)
				ctx->binds[j++] = ctx->binds[i];
		ctx->n_binds = j;
		pthread_cond_broadcast(&ctx->done_cond);
		pthread_mutex_unlock(&ctx->lock);
		fence_state_advance(&ctx->fences, 0, seq);
		pthread_mutex_lock(&ctx->lock);
	}
	pthread_mutex_unlock(&ctx->lock);
	return NULL;
}

int host_executor_start(struct vkfd_host_context *ctx)
{
	int ret;

	ctx->rsp_buf = calloc(1, HOST_RSP_BUF_SIZE);
	if (!ctx->rsp_buf)
		return -ENOMEM;
	ret = -pthread_create(&ctx->exec_thread, NULL, executor_main, ctx);
	if (ret)
		return ret;
	ctx->exec_started = true;
	return 0;
}

void host_executor_stop(struct vkfd_host_context *ctx)
{
	struct exec_item *it;

	pthread_mutex_lock(&ctx->lock);
	ctx->stopping = true;
	pthread_cond_broadcast(&ctx->cond);
	pthread_cond_broadcast(&ctx->done_cond);
	pthread_mutex_unlock(&ctx->lock);
	if (ctx->exec_started)
		pthread_join(ctx->exec_thread, NULL);
	ctx->exec_started = false;
	while ((it = ctx->q_head)) {
		ctx->q_head = it->next;
		free(it);
	}
	ctx->q_tail = NULL;
	free(ctx->rsp_buf);
	ctx->rsp_buf = NULL;
}
