// SPDX-License-Identifier: MIT
/*
 * Memory commands. The guest picks the GPU VA (= its CPU VA); the host checks
 * it against the GPU's aperture and the context's VA map before KFD sees it,
 * accounts it against the quota, and hands out an opaque handle. The KFD
 * handle and mmap offset (for DOORBELL a bus address) never leave the host.
 */
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096ull

#define DOMAIN_FLAGS                                                                               \
	(KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |                              \
	 KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |                      \
	 KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)
#define ATTR_FLAGS                                                                                 \
	(VKFD_KFD_ALLOC_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE |                            \
	 KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE |                  \
	 KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM | KFD_IOC_ALLOC_MEM_FLAGS_COHERENT |                \
	 KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT)

static uint32_t count_domains(uint32_t flags)
{
	return (uint32_t)__builtin_popcount(flags & DOMAIN_FLAGS);
}

/* Shadow page the guest maps instead of a device page (doorbell, HDP). */
static int ensure_shadow(struct shmem_region *r, const char *name, size_t size)
{
	if (r->map)
		return 0;
	return shmem_region_create(r, name, size);
}

/* async: an ALLOC_MEMORY_ASYNC, whose arena range the guest zeroed before
 * it sent the request and may have written since (docs/protocol.md 14.3);
 * pc: an ALLOC_USERPTR_PIECES, whose memory is its arena pieces (9.4.2) */
static int alloc_memory(struct cmd_ctx *c, const struct vkfd_req_alloc_memory *r, bool async,
			const struct vkfd_req_alloc_userptr_pieces *pc, struct host_bo **out)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_host_quota *q = &host_g.cfg.quota;
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	struct kfd_ioctl_free_memory_of_gpu_args fa;
	struct host_arena *arena = NULL;
	struct host_alias *alias = NULL;
	struct host_bo *bo;
	uint64_t charge, handle;
	int g, ret;

	/* a guest-chosen handle: its index in 1..max_bos, its slot free in
	 * stream order, its generation the slot's next (no ABA) */
	if (r->new_handle && (!host_ctx_has(ctx, VKFD_FEAT_GUEST_HANDLES) ||
			      !obj_table_can_add_at(&ctx->bos, r->new_handle)))
		return -EINVAL;
	g = host_gpu_index_vm(ctx, r->gpu_id);
	if (g < 0)
		return g;
	if (r->alloc_flags & ~VKFD_ALLOC_ARENA)
		return -EINVAL;
	if (!(r->alloc_flags & VKFD_ALLOC_ARENA) && (r->arena_id || r->arena_offset))
		return -EINVAL;
	if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR)
		return -EINVAL; /* the guest converts USERPTR to GTT (docs/security.md) */
	if ((r->flags & ~(DOMAIN_FLAGS | ATTR_FLAGS)) || count_domains(r->flags) != 1)
		return -EINVAL;
	if (r->size == 0 || r->size % PAGE || r->va % PAGE || r->va + r->size < r->va)
		return -EINVAL;
	if ((r->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM) && (r->size % (2 * PAGE)))
		return -EINVAL;
	if ((r->flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) && r->size != VKFD_KFD_DOORBELL_SLICE)
		return -EINVAL;
	if ((r->flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) && r->size != PAGE)
		return -EINVAL;
	/* VA 0 is KFD's "no GPU mapping" (VRAM for export only) */
	if (r->va == 0 && !(r->flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM))
		return -EINVAL;
	if (r->alloc_flags & VKFD_ALLOC_ARENA) {
		/* GTT, not mapped twice (AQL); the attributes (UNCACHED,
		 * COHERENT, ...) go to KFD with the user memory */
		if (!host_ctx_has(ctx, VKFD_FEAT_ARENAS) ||
		    (r->flags & (DOMAIN_FLAGS | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM)) !=
			KFD_IOC_ALLOC_MEM_FLAGS_GTT)
			return -EINVAL;
		arena = host_arena_get(ctx, r->arena_id);
		if (!arena || !host_arena_range_free(arena, r->arena_offset, r->size))
			return -EINVAL;
	}
	/* the pieces are checked where they are held (host_alias_create) */
	if (pc && (!host_ctx_has(ctx, VKFD_FEAT_USERPTR_PIECES) ||
		   (r->flags & (DOMAIN_FLAGS | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM)) !=
		       KFD_IOC_ALLOC_MEM_FLAGS_GTT))
		return -EINVAL;
	if (r->va) {
		const struct kfd_process_device_apertures *ap = &ctx->gpu[g].ap;

		if (ctx->gpu[g].have_ap &&
		    (r->va < ap->gpuvm_base || r->va + r->size - 1 > ap->gpuvm_limit))
			return -EINVAL;
		if (va_map_overlaps(&ctx->va, r->va, r->size))
			return -EADDRINUSE;
	}
	/* AQL queue memory is allocated at half size and mapped twice */
	charge = (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM) ? r->size / 2 : r->size;
	if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) {
		if (q->vram_bytes && ctx->vram_used + charge > q->vram_bytes)
			return -ENOMEM;
	} else if (arena || pc) {
		charge = 0; /* CREATE_ARENA charged the whole arena */
	} else if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT) {
		if (q->gtt_bytes && ctx->gtt_used + charge > q->gtt_bytes)
			return -ENOMEM;
	} else {
		charge = 0;
	}
	if (ctx->bos.count >= ctx->bos.max)
		return -ENOMEM;

	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	bo->dmabuf_fd = -1;
	if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) {
		bo->kind = BO_DOORBELL;
		ret =
		    ensure_shadow(&ctx->gpu[g].shadow_db, "vkfd-doorbell", VKFD_KFD_DOORBELL_SLICE);
	} else if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) {
		bo->kind = BO_MMIO;
		ret = ensure_shadow(&ctx->gpu[g].shadow_mmio, "vkfd-mmio", PAGE);
	} else {
		ret = 0;
	}
	if (ret) {
		free(bo);
		return ret;
	}

	memset(&a, 0, sizeof(a));
	a.va_addr = r->va;
	a.size = r->size;
	a.gpu_id = r->gpu_id;
	a.flags = r->flags;
	if (arena) {
		/* zeroed (by the guest if async) and held before KFD sees it;
		 * KFD registers the host's own mapping of the range as user
		 * memory */
		ret = host_arena_claim(arena, r->arena_offset, r->size, !async);
		if (ret) {
			free(bo);
			return ret;
		}
		a.flags =
		    (r->flags & ~KFD_IOC_ALLOC_MEM_FLAGS_GTT) | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
		a.mmap_offset = (uint64_t)(uintptr_t)((uint8_t *)arena->mem.map + r->arena_offset);
		ret = host_kfd_ioctl(ctx, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
		if (ret)
			host_arena_release(arena, r->arena_offset, r->size);
	} else if (pc) {
		/* KFD registers the host's view of the pieces as user memory */
		ret = host_alias_create(ctx, pc->pieces, pc->n_pieces, r->size, &alias);
		if (!ret) {
			a.flags = (r->flags & ~KFD_IOC_ALLOC_MEM_FLAGS_GTT) |
				  KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
			a.mmap_offset = (uint64_t)(uintptr_t)alias->base;
			ret = host_kfd_ioctl(ctx, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
			if (ret)
				host_alias_destroy(alias);
		}
	} else if (host_render_alloc_needed(r->flags)) {
		uint64_t kh = 0;

		ret = host_render_alloc(ctx, (uint32_t)g, r->va, r->size, r->flags, &kh,
					&bo->dmabuf_fd);
		a.handle = kh;
	} else
		ret = host_kfd_ioctl(ctx, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
	if (ret) {
		free(bo);
		return ret;
	}
	bo->kfd_handle = a.handle;
	bo->va = r->va;
	bo->size = r->size;
	bo->flags = r->flags;
	bo->gpu = (uint32_t)g;
	bo->quota_bytes = charge;
	bo->blob_size = (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM) ? r->size / 2 : r->size;
	bo->arena = arena;
	bo->arena_offset = arena ? r->arena_offset : 0;
	bo->alias = alias;
	if (arena || alias) {
		bo->map_info = VKFD_MAP_CACHED; /* the arena's memfd pages */
		bo->map_flags = VKFD_ALLOC_MAP_ARENA;
	} else if (bo->kind != BO_MEMORY) {
		bo->map_info = VKFD_MAP_CACHED;
		bo->map_flags = VKFD_ALLOC_MAP_SHADOW;
	} else if (host_device_can(VKFD_DEVICE_CAP_COHERENT_MEMFD)) {
		bo->map_info = VKFD_MAP_CACHED; /* memfd: ordinary coherent memory */
	} else if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) {
		bo->map_info = VKFD_MAP_WC;
	} else {
		bo->map_info = (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED) ? VKFD_MAP_UNCACHED
									     : VKFD_MAP_CACHED;
	}
	if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM)
		bo->map_flags |= VKFD_ALLOC_MAP_MIRRORED;

	pthread_mutex_lock(&ctx->lock);
	if (r->new_handle) {
		handle = r->new_handle;
		ret = obj_table_add_at(&ctx->bos, handle, bo);
	} else {
		ret = obj_table_add(&ctx->bos, bo, &handle);
	}
	if (!ret && r->va) {
		ret = va_map_insert(&ctx->va, r->va, r->size, bo);
		if (ret)
			obj_table_remove(&ctx->bos, handle);
		else
			bo->in_va_map = true;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (ret) {
		memset(&fa, 0, sizeof(fa));
		fa.handle = a.handle;
		host_kfd_ioctl(ctx, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &fa);
		if (bo->dmabuf_fd >= 0)
			close(bo->dmabuf_fd);
		if (arena)
			host_arena_release(arena, r->arena_offset, r->size);
		host_alias_destroy(alias);
		free(bo);
		return ret == -EADDRINUSE ? ret : -ENOMEM;
	}
	bo->handle = handle;
	if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
		ctx->vram_used += charge;
	else if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT)
		ctx->gtt_used += charge;
	*out = bo;
	return 0;
}

/* Every GTT allocation request counts, whatever its outcome: the guest
 * counts what it sent (docs/protocol.md 14.2). */
static void budget_count(struct vkfd_host_context *ctx, const struct vkfd_req_alloc_memory *r)
{
	if (r->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT)
		ctx->gtt_allocs++;
	host_budget_publish(ctx);
}

/* The answer to a synchronous allocation: what the guest needs to map it. */
static void alloc_answer(struct cmd_ctx *c, const struct host_bo *bo)
{
	struct vkfd_rsp_alloc_memory *rsp = (void *)c->rsp;

	rsp->handle = bo->handle;
	rsp->blob_size = bo->blob_size;
	rsp->map_info = bo->map_info;
	rsp->map_flags = bo->map_flags;
	c->rsp_len = sizeof(*rsp);
}

int cmd_alloc_memory(struct cmd_ctx *c)
{
	const struct vkfd_req_alloc_memory *r = CMD_REQ(c, struct vkfd_req_alloc_memory);
	struct host_bo *bo = NULL;
	int ret = alloc_memory(c, r, false, NULL, &bo);

	budget_count(c->ctx, r);
	if (ret)
		return ret;
	alloc_answer(c, bo);
	return 0;
}

/*
 * ALLOC_USERPTR_PIECES (VKFD_FEAT_USERPTR_PIECES, docs/protocol.md 9.4.2):
 * ALLOC_MEMORY of a GTT BO whose memory is a list of arena ranges the
 * guest already holds or takes now (user memory registered twice shares
 * pages). Counted as a GTT allocation request, as ALLOC_MEMORY is.
 */
int cmd_alloc_userptr_pieces(struct cmd_ctx *c)
{
	const struct vkfd_req_alloc_userptr_pieces *r =
	    CMD_REQ(c, struct vkfd_req_alloc_userptr_pieces);
	struct vkfd_req_alloc_memory am;
	struct host_bo *bo = NULL;
	int ret;

	memset(&am, 0, sizeof(am));
	am.va = r->va;
	am.size = r->size;
	am.gpu_id = r->gpu_id;
	am.flags = r->flags;
	am.new_handle = r->new_handle;
	if (!host_ctx_has(c->ctx, VKFD_FEAT_USERPTR_PIECES))
		return -ENOTTY; /* unknown to this context, as to an older host */
	if (r->pad || r->n_pieces < 1 || r->n_pieces > VKFD_MAX_USERPTR_PIECES)
		ret = -EINVAL;
	else
		ret = alloc_memory(c, &am, false, r, &bo);
	budget_count(c->ctx, &am);
	if (ret)
		return ret;
	alloc_answer(c, bo);
	return 0;
}

/* The plain GTT allocations a budget covers (what the guest sends async). */
#define ASYNC_ALLOC_FLAGS                                                                          \
	(KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE |                                   \
	 KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC |                     \
	 KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE | KFD_IOC_ALLOC_MEM_FLAGS_COHERENT |                \
	 KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT)

/*
 * ALLOC_MEMORY without a reply (VKFD_FEAT_ASYNC_ALLOC; without it the command
 * is unknown to the context, as to a 1.0 host). No slot to report
 * in: a handle that cannot name a new BO (out of range, live, wrong
 * generation) loses the context; a request the guest got wrong otherwise
 * (flags, VA) leaves its errno in the handle's slot, reported at the
 * handle's next synchronous use and cleared by FREE_MEMORY, or, under
 * VKFD_FEAT_STRICT_ALLOC, loses the context (VKFD_ASYNC_ERR_ALLOC); running
 * out of memory inside the budget loses the context (VKFD_ASYNC_ERR_BUDGET). It may
 * carry the arena fields (VKFD_ALLOC_ARENA): such a BO takes no budget
 * bytes (its arena was charged) and its range is not zeroed here (the guest
 * did, before it could write it). No BIND_BLOB may name the new BO before
 * this has run: that bind is refused at submit (host_blob.c).
 */
int cmd_alloc_memory_async(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_alloc_memory *r = CMD_REQ(c, struct vkfd_req_alloc_memory);
	struct host_bo *bo = NULL;
	int ret;

	/* not granted: an unknown command to this context (logged, ignored) */
	if (!host_ctx_has(ctx, VKFD_FEAT_ASYNC_ALLOC))
		return -ENOTTY;
	if (!obj_table_can_add_at(&ctx->bos, r->new_handle)) {
		vkfd_err("ctx %u: ALLOC_MEMORY_ASYNC names handle %#llx, which cannot be new",
			 ctx->ctx_id, (unsigned long long)r->new_handle);
		budget_count(ctx, r);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_PROTOCOL);
		return -EINVAL;
	}
	if ((r->flags & ~ASYNC_ALLOC_FLAGS) || !(r->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT))
		ret = -EINVAL; /* only plain GTT memory is covered by the budget */
	else
		ret = alloc_memory(c, r, true, NULL, &bo);
	budget_count(ctx, r);
	if (ret == -ENOMEM) {
		vkfd_err("ctx %u: ALLOC_MEMORY_ASYNC of %llu bytes failed inside the budget",
			 ctx->ctx_id, (unsigned long long)r->size);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_BUDGET);
	} else if (ret && host_ctx_has(ctx, VKFD_FEAT_STRICT_ALLOC)) {
		/* the guest promised to send only what passes every check
		 * above (docs/protocol.md 14.6), and may have mapped the BO
		 * without a reply: there is no use left to report it at */
		vkfd_err("ctx %u: ALLOC_MEMORY_ASYNC at %#llx (%llu bytes) failed (%d) under the "
			 "strict rule",
			 ctx->ctx_id, (unsigned long long)r->va, (unsigned long long)r->size, ret);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_ALLOC);
	} else if (ret) {
		pthread_mutex_lock(&ctx->lock);
		obj_table_set_error(&ctx->bos, r->new_handle, ret);
		pthread_mutex_unlock(&ctx->lock);
	}
	return ret;
}

static void bo_forget(struct vkfd_host_context *ctx, struct host_bo *bo)
{
	pthread_mutex_lock(&ctx->lock);
	obj_table_remove(&ctx->bos, bo->handle);
	if (bo->in_va_map)
		va_map_remove(&ctx->va, bo->va, bo);
	host_blob_unbind_bo_locked(ctx, bo);
	pthread_mutex_unlock(&ctx->lock);
	if (bo->dmabuf_fd >= 0)
		close(bo->dmabuf_fd);
	if (bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
		ctx->vram_used -= bo->quota_bytes;
	else if (bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT)
		ctx->gtt_used -= bo->quota_bytes;
	/* the range is free for the next BO, which the claim zeroes first */
	if (bo->arena)
		host_arena_release(bo->arena, bo->arena_offset, bo->size);
	host_alias_destroy(bo->alias);
	free(bo);
}

static void unmap_everywhere(struct vkfd_host_context *ctx, struct host_bo *bo)
{
	for (uint32_t g = 0; g < ctx->n_gpus; g++) {
		struct kfd_ioctl_unmap_memory_from_gpu_args ua;
		uint32_t id = host_g.topo.gpus[g].gpu_id;

		if (!((bo->mapped_mask >> g) & 1))
			continue;
		memset(&ua, 0, sizeof(ua));
		ua.handle = bo->kfd_handle;
		ua.device_ids_array_ptr = (uint64_t)(uintptr_t)&id;
		ua.n_devices = 1;
		if (!host_kfd_ioctl(ctx, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &ua))
			bo->mapped_mask &= ~(1ull << g);
	}
}

int cmd_free_memory(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct kfd_ioctl_free_memory_of_gpu_args a;
	const struct vkfd_req_handle *r = CMD_REQ(c, struct vkfd_req_handle);
	struct host_bo *bo;
	int ret;

	bo = obj_table_get(&ctx->bos, r->handle);
	if (!bo) {
		bool cleared;

		/* a handle whose asynchronous ALLOC failed: freeing it is how
		 * the guest gives the slot back */
		pthread_mutex_lock(&ctx->lock);
		cleared = obj_table_clear_error(&ctx->bos, r->handle);
		pthread_mutex_unlock(&ctx->lock);
		return cleared ? 0 : -EINVAL;
	}
	if (bo->event_page)
		return -EPERM; /* as KFD: the signal page lives as long as the process */
	/* keep get_blob away while KFD frees it, without holding the lock */
	pthread_mutex_lock(&ctx->lock);
	bo->freeing = true;
	pthread_mutex_unlock(&ctx->lock);
	unmap_everywhere(ctx, bo);
	memset(&a, 0, sizeof(a));
	a.handle = bo->kfd_handle;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
	if (ret) {
		pthread_mutex_lock(&ctx->lock);
		bo->freeing = false;
		pthread_mutex_unlock(&ctx->lock);
		return ret;
	}
	bo_forget(ctx, bo);
	host_budget_publish(ctx);
	return 0;
}

static int map_common(struct cmd_ctx *c, bool map)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_map_memory *rsp = (void *)c->rsp;
	struct kfd_ioctl_map_memory_to_gpu_args a;
	uint32_t ids[VKFD_MAX_MAP_DEVICES];
	uint32_t gidx[VKFD_MAX_MAP_DEVICES];
	const struct vkfd_req_map_memory *r = CMD_REQ(c, struct vkfd_req_map_memory);
	struct host_bo *bo;
	uint32_t n_ok;
	int ret;

	c->rsp_len = sizeof(*rsp);
	rsp->n_success = r->n_success;
	bo = obj_table_get(&ctx->bos, r->handle);
	/* a handle whose asynchronous ALLOC failed reports that error here */
	if (!bo && obj_table_error(&ctx->bos, r->handle))
		return obj_table_error(&ctx->bos, r->handle);
	/* a BO without a GPU VA (ALLOC at va 0) passed no VA check and holds
	 * no range in the VA map: it must never get a GPU mapping */
	if (!bo || !bo->in_va_map)
		return -EINVAL;
	if (r->n_devices < 1 || r->n_devices > VKFD_MAX_MAP_DEVICES ||
	    r->n_success > r->n_devices || 32u + 4u * r->n_devices > c->v->hdr.len)
		return -EINVAL;
	/* the kernel stops at the first bad id: do the same, host-side */
	for (n_ok = r->n_success; n_ok < r->n_devices; n_ok++) {
		int g = host_gpu_index_vm(ctx, r->device_ids[n_ok]);

		if (g < 0)
			break;
		gidx[n_ok] = (uint32_t)g;
	}
	for (uint32_t i = 0; i < n_ok; i++)
		ids[i] = r->device_ids[i];
	if (n_ok == r->n_success)
		return n_ok == r->n_devices ? 0 : -EINVAL;
	memset(&a, 0, sizeof(a));
	a.handle = bo->kfd_handle;
	a.device_ids_array_ptr = (uint64_t)(uintptr_t)ids;
	a.n_devices = n_ok;
	a.n_success = r->n_success;
	ret = host_kfd_ioctl(
	    ctx, map ? AMDKFD_IOC_MAP_MEMORY_TO_GPU : AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &a);
	if (a.n_success > n_ok || a.n_success < r->n_success)
		a.n_success = ret ? r->n_success : n_ok;
	for (uint32_t i = r->n_success; i < a.n_success; i++) {
		if (map)
			bo->mapped_mask |= 1ull << gidx[i];
		else
			bo->mapped_mask &= ~(1ull << gidx[i]);
	}
	rsp->n_success = a.n_success;
	if (!ret && n_ok < r->n_devices)
		ret = -EINVAL;
	return ret;
}

int cmd_map_memory(struct cmd_ctx *c)
{
	return map_common(c, true);
}

int cmd_unmap_memory(struct cmd_ctx *c)
{
	return map_common(c, false);
}

/*
 * MAP_MEMORY without a reply (VKFD_FEAT_ASYNC_MAP; without it the command is
 * unknown to the context, -ENOTTY). The guest sends it only where it would
 * not look at the answer (docs/protocol.md 14.5), so a failure cannot be
 * reported: it loses the context (VKFD_ASYNC_ERR_MAP), unless the handle
 * carries the deferred error of its asynchronous ALLOC, which the guest
 * learns at the handle's next synchronous use. Either way the map barrier
 * moves past it: the relay's doorbells wait for this request to have run,
 * not for it to have succeeded.
 */
int cmd_map_memory_async(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_map_memory *r = CMD_REQ(c, struct vkfd_req_map_memory);
	int ret;

	if (!host_ctx_has(ctx, VKFD_FEAT_ASYNC_MAP))
		return -ENOTTY;
	ret = map_common(c, true);
	if (ret && !(!obj_table_get(&ctx->bos, r->handle) &&
		     obj_table_error(&ctx->bos, r->handle) == ret)) {
		vkfd_err("ctx %u: MAP_MEMORY_ASYNC of %#llx failed (%d)", ctx->ctx_id,
			 (unsigned long long)r->handle, ret);
		host_context_mark_lost(ctx, VKFD_ASYNC_ERR_MAP);
	}
	__atomic_store_n(&ctx->async_map_done, c->v->hdr.seqno, __ATOMIC_SEQ_CST);
	doorbell_relay_barrier_progress(ctx->relay);
	return ret;
}

/* Bound when its batch was submitted (host_blob_bind_at_submit_locked): by the
 * time the executor reaches it there is nothing left to do. A BO an
 * ALLOC_MEMORY_ASYNC had not created by then was refused there: binding it
 * here would make get_blob wait on guest work (docs/security.md). */
int cmd_bind_blob(struct cmd_ctx *c)
{
	(void)c;
	return 0;
}

/* A private duplicate of an attached resource's fd (attach/detach run on
 * the VMM thread). -ENOENT: not attached; -EINVAL: no exportable memory. */
static int resource_fd(struct vkfd_host_context *ctx, uint32_t res_id, uint64_t *size)
{
	int fd = -ENOENT;

	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->n_res; i++) {
		if (ctx->res[i].res_id != res_id)
			continue;
		if (ctx->res[i].fd < 0) {
			fd = -EINVAL;
		} else {
			fd = fcntl(ctx->res[i].fd, F_DUPFD_CLOEXEC, 0);
			if (fd < 0)
				fd = -errno;
			if (size)
				*size = ctx->res[i].size;
		}
		break;
	}
	pthread_mutex_unlock(&ctx->lock);
	return fd;
}

int cmd_import_resource(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_import_resource *rsp = (void *)c->rsp;
	struct kfd_ioctl_get_dmabuf_info_args info;
	struct kfd_ioctl_import_dmabuf_args a;
	struct kfd_ioctl_free_memory_of_gpu_args fa;
	const struct vkfd_req_import_resource *r = CMD_REQ(c, struct vkfd_req_import_resource);
	struct host_bo *bo;
	uint64_t handle, size = 0;
	int g, fd, ret;

	g = host_gpu_index_vm(ctx, r->gpu_id);
	if (g < 0)
		return g;
	if (r->va == 0 || r->va % PAGE)
		return -EINVAL;
	if (ctx->bos.count >= ctx->bos.max)
		return -ENOMEM;
	fd = resource_fd(ctx, r->res_id, &size);
	if (fd < 0)
		return fd;
	/* the real size comes from the exporter, not from the VMM's word */
	memset(&info, 0, sizeof(info));
	info.dmabuf_fd = (uint32_t)fd;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_GET_DMABUF_INFO, &info);
	if (ret) {
		close(fd);
		return -EINVAL; /* not GPU memory this device can import */
	}
	size = (info.size + PAGE - 1) & ~(PAGE - 1);
	if (!size || r->va + size < r->va) {
		close(fd);
		return -EINVAL;
	}
	if (ctx->gpu[g].have_ap &&
	    (r->va < ctx->gpu[g].ap.gpuvm_base || r->va + size - 1 > ctx->gpu[g].ap.gpuvm_limit)) {
		close(fd);
		return -EINVAL;
	}
	if (va_map_overlaps(&ctx->va, r->va, size)) {
		close(fd);
		return -EADDRINUSE;
	}
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		close(fd);
		return -ENOMEM;
	}
	bo->dmabuf_fd = -1;
	memset(&a, 0, sizeof(a));
	a.va_addr = r->va;
	a.gpu_id = r->gpu_id;
	a.dmabuf_fd = (uint32_t)fd;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_IMPORT_DMABUF, &a);
	close(fd); /* KFD holds its own reference */
	if (ret) {
		free(bo);
		return ret;
	}
	bo->kind = BO_IMPORT;
	bo->kfd_handle = a.handle;
	bo->va = r->va;
	bo->size = size;
	bo->blob_size = size;
	bo->flags = info.flags;
	bo->gpu = (uint32_t)g;
	bo->map_info = host_device_can(VKFD_DEVICE_CAP_COHERENT_MEMFD) ? VKFD_MAP_CACHED
		       : (info.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)   ? VKFD_MAP_WC
								       : VKFD_MAP_CACHED;
	pthread_mutex_lock(&ctx->lock);
	ret = obj_table_add(&ctx->bos, bo, &handle);
	if (!ret) {
		ret = va_map_insert(&ctx->va, r->va, size, bo);
		if (ret)
			obj_table_remove(&ctx->bos, handle);
		else
			bo->in_va_map = true;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (ret) {
		memset(&fa, 0, sizeof(fa));
		fa.handle = a.handle;
		host_kfd_ioctl(ctx, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &fa);
		free(bo);
		return ret == -EADDRINUSE ? ret : -ENOMEM;
	}
	bo->handle = handle;
	rsp->handle = handle;
	rsp->size = size;
	rsp->flags = info.flags;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_get_resource_info(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_get_resource_info *rsp = (void *)c->rsp;
	struct kfd_ioctl_get_dmabuf_info_args info;
	uint8_t meta[VKFD_MAX_METADATA];
	const struct vkfd_req_get_resource_info *r = CMD_REQ(c, struct vkfd_req_get_resource_info);
	int fd, ret;

	if (r->metadata_size > VKFD_MAX_METADATA)
		return -EINVAL;
	fd = resource_fd(ctx, r->res_id, NULL);
	if (fd < 0)
		return fd;
	memset(meta, 0, sizeof(meta));
	memset(&info, 0, sizeof(info));
	info.dmabuf_fd = (uint32_t)fd;
	info.metadata_ptr = (uint64_t)(uintptr_t)meta;
	info.metadata_size = r->metadata_size;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_GET_DMABUF_INFO, &info);
	close(fd);
	if (ret)
		return -EINVAL; /* not GPU memory */
	rsp->size = info.size;
	/* only ids of the export reach the guest */
	rsp->gpu_id = topo_export_find_gpu(&host_g.topo, info.gpu_id) >= 0 ? info.gpu_id : 0;
	rsp->flags = info.flags;
	rsp->metadata_size = info.metadata_size;
	if (info.metadata_size <= r->metadata_size)
		memcpy(rsp->metadata, meta, info.metadata_size);
	c->rsp_len = sizeof(*rsp);
	return 0;
}

void host_bos_release(struct vkfd_host_context *ctx)
{
	struct host_bo *bo;
	uint32_t pos = 0;

	/* the real KFD process outlives its fd (it is tied to the mm), so free
	 * explicitly: unmap from every GPU, then free */
	while ((bo = obj_table_next(&ctx->bos, &pos, NULL))) {
		struct kfd_ioctl_free_memory_of_gpu_args fa;

		unmap_everywhere(ctx, bo);
		memset(&fa, 0, sizeof(fa));
		fa.handle = bo->kfd_handle;
		if (!bo->event_page)
			host_kfd_ioctl(ctx, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &fa);
		bo_forget(ctx, bo);
	}
}
