// SPDX-License-Identifier: MIT
/*
 * CREATE_ARENA and DESTROY_ARENA (docs/protocol.md 9.4.1). The guest names
 * the arena id and its blob id; the host charges the arena's size to the
 * context's GTT quota (every byte of it is host memory the guest can touch
 * through the blob), binds the blob id and refuses to destroy an arena a
 * BO still lives in.
 */
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>

static int arena_feature(const struct vkfd_host_context *ctx)
{
	return host_ctx_has(ctx, VKFD_FEAT_ARENAS) ? 0 : -EOPNOTSUPP;
}

int cmd_create_arena(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_create_arena *r = CMD_REQ(c, struct vkfd_req_create_arena);
	const struct vkfd_host_quota *q = &host_g.cfg.quota;
	struct host_arena *a;
	int ret;

	ret = arena_feature(ctx);
	if (ret)
		return ret;
	if (r->arena_id < 1 || r->arena_id > VKFD_MAX_ARENAS || r->flags ||
	    r->blob_id == VKFD_SHMEM_BLOB_ID)
		return -EINVAL;
	if (host_arena_get(ctx, r->arena_id))
		return -EEXIST;
	if (r->size == 0 || r->size % 4096u || r->size > VKFD_MAX_ARENA_SIZE)
		return -EINVAL;
	if (q->gtt_bytes && ctx->gtt_used + r->size > q->gtt_bytes)
		return -ENOMEM;
	ret = host_arena_new(r->arena_id, r->size, &a);
	if (ret)
		return ret;
	a->blob_id = r->blob_id;
	pthread_mutex_lock(&ctx->lock);
	ret = host_blob_bind_arena_locked(ctx, a);
	pthread_mutex_unlock(&ctx->lock);
	if (ret) {
		host_arena_free(a);
		return ret == -EEXIST ? -EINVAL : ret;
	}
	ctx->arenas[r->arena_id - 1] = a;
	ctx->gtt_used += a->size;
	return 0;
}

static void arena_destroy(struct vkfd_host_context *ctx, struct host_arena *a)
{
	/* get_blob finds the memfd only through the table: unbind first */
	pthread_mutex_lock(&ctx->lock);
	host_blob_unbind_arena_locked(ctx, a);
	pthread_mutex_unlock(&ctx->lock);
	ctx->arenas[a->id - 1] = NULL;
	ctx->gtt_used -= a->size;
	host_arena_free(a);
}

int cmd_destroy_arena(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_destroy_arena *r = CMD_REQ(c, struct vkfd_req_destroy_arena);
	struct host_arena *a;
	int ret;

	ret = arena_feature(ctx);
	if (ret)
		return ret;
	a = host_arena_get(ctx, r->arena_id);
	if (!a)
		return -EINVAL;
	if (a->n_bos)
		return -EBUSY; /* its BOs' memory (and KFD's USERPTR pins) */
	arena_destroy(ctx, a);
	return 0;
}

void host_arenas_release(struct vkfd_host_context *ctx)
{
	for (uint32_t i = 0; i < VKFD_MAX_ARENAS; i++) {
		struct host_arena *a = ctx->arenas[i];

		if (!a)
			continue;
		/* after host_bos_release; a BO KFD refused to free keeps
		 * nothing of the arena but the memory its pins hold */
		if (a->n_bos)
			vkfd_dbg("ctx %u: arena %u destroyed with %u BOs KFD kept", ctx->ctx_id,
				 a->id, a->n_bos);
		arena_destroy(ctx, a);
	}
}
