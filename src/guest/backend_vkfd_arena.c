// SPDX-License-Identifier: MIT
/*
 * vkfd backend: arenas (VKFD_FEAT_ARENAS, docs/protocol.md 9.4.1). Small
 * CPU-visible GTT BOs get their memory from a per-connection arena, one
 * host blob of BK_ARENA_SIZE, instead of a blob each: a model load then
 * creates a few blobs (in a VM, a few memory slots) instead of a thousand.
 * This file chooses the arena and the range (first fit over a page bitmap)
 * and creates arenas on demand; ALLOC, FREE and mmap use what it hands out
 * (backend_vkfd_memory.c). Everything here runs under bk_mem_lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_vkfd_internal.h"

#define ARENA_PAGE 4096ull

/* VKFD_ARENAS=0 keeps a blob per BO even where the host offers arenas
 * (comparisons; the HELLO then does not ask for the feature). */
bool bk_arenas_enabled(void)
{
	const char *e = getenv("VKFD_ARENAS");

	return !e || strcmp(e, "0") != 0;
}

bool bk_arena_wanted(const struct bk_conn *c, uint32_t flags, uint64_t va, uint64_t size,
		     bool userptr)
{
	const uint32_t domains = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |
				 KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
				 KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |
				 KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;

	if (!(c->features & VKFD_FEAT_ARENAS))
		return false;
	/* GTT (a USERPTR conversion is GTT here), not AQL memory (mapped
	 * twice). UNCACHED is the GPU's mapping attribute, which KFD keeps for
	 * user memory too. A GTT BO that is not a USERPTR conversion stays
	 * out when EXECUTABLE or UNCACHED: that marks libhsakmt's own buffers
	 * (hsakmt_allocate_exec_aligned_memory_gpu), among them the event
	 * page, which KFD maps into the kernel and so cannot be user memory
	 * (the host refuses an arena BO there): every libhsakmt version
	 * allocates it EXECUTABLE, newer ones also UNCACHED. libhsakmt's
	 * host memory is USERPTR, so converted ranges are what fill arenas. */
	if ((flags & domains) != KFD_IOC_ALLOC_MEM_FLAGS_GTT ||
	    (flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM))
		return false;
	if (!userptr &&
	    (flags & (KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE)))
		return false;
	return va != 0 && size != 0 && size % ARENA_PAGE == 0 && size <= BK_ARENA_MAX_BO;
}

static bool range_free(const struct bk_arena *a, uint64_t first, uint64_t n)
{
	for (uint64_t p = first; p < first + n; p++)
		if (a->refs[p])
			return false;
	return true;
}

/* First fit from the hint, then from the start: a page index or -1. */
static int64_t find_run(const struct bk_arena *a, uint64_t n)
{
	uint64_t pages = a->size / ARENA_PAGE;

	for (int pass = 0; pass < 2; pass++) {
		uint64_t start = pass ? 0 : a->hint;

		for (uint64_t p = start; p + n <= pages; p++) {
			if (a->refs[p])
				continue;
			if (range_free(a, p, n))
				return (int64_t)p;
		}
	}
	return -1;
}

static int arena_create_locked(struct bk_conn *c, uint32_t id, struct bk_arena **out)
{
	struct vkfd_req_create_arena req;
	struct vkfd_rsp_empty rsp;
	struct bk_arena *a;
	int r;

	BK_ASSERT_MEM_LOCKED();
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->refs = calloc(BK_ARENA_SIZE / ARENA_PAGE, sizeof(uint16_t));
	if (!a->refs) {
		free(a);
		return -ENOMEM;
	}
	a->id = id;
	a->size = BK_ARENA_SIZE;
	memset(&req, 0, sizeof(req));
	req.arena_id = id;
	req.size = a->size;
	req.blob_id = vkfd_guest_blob_id_alloc(c->g);
	r = bk_call(c, VKFD_CMD_CREATE_ARENA, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r) {
		bk_stats_count(&bk_stats.blobs);
		__atomic_fetch_add(&c->n_blobs, 1, __ATOMIC_RELAXED);
		r = vkfd_guest_blob_create(c->g, req.blob_id, a->size, VKFD_GUEST_BLOB_MAPPABLE,
					   &a->blob);
		if (r) {
			struct vkfd_req_destroy_arena d;

			bk_log("arena %u: blob create: %d", id, r);
			memset(&d, 0, sizeof(d));
			d.arena_id = id;
			bk_call(c, VKFD_CMD_DESTROY_ARENA, &d, sizeof(d), &rsp, sizeof(rsp));
			r = r < 0 ? r : -EIO;
		}
	}
	if (r) {
		free(a->refs);
		free(a);
		return r;
	}
	bk_log("arena %u: %" PRIu64 " MiB, blob %#" PRIx64, id, a->size >> 20, req.blob_id);
	*out = a;
	return 0;
}

int bk_arena_take_locked(struct bk_conn *c, uint64_t size, struct bk_arena **out, uint64_t *offset)
{
	uint64_t n = size / ARENA_PAGE;
	uint32_t free_id = 0;
	struct bk_arena *a;
	int64_t p = -1;
	int r;

	BK_ASSERT_MEM_LOCKED();
	for (uint32_t i = 0; i < VKFD_MAX_ARENAS; i++) {
		a = c->arenas[i];
		if (!a) {
			if (!free_id)
				free_id = i + 1;
			continue;
		}
		p = find_run(a, n);
		if (p >= 0)
			break;
	}
	if (p < 0) {
		if (!free_id)
			return -ENOMEM;
		r = arena_create_locked(c, free_id, &a);
		if (r)
			return r;
		c->arenas[free_id - 1] = a;
		p = 0;
	}
	for (uint64_t q = (uint64_t)p; q < (uint64_t)p + n; q++)
		a->refs[q] = 1;
	a->n_bos++;
	a->hint = (uint64_t)p + n;
	*out = a;
	*offset = (uint64_t)p * ARENA_PAGE;
	return 0;
}

void bk_arena_put_locked(struct bk_arena *a, uint64_t offset, uint64_t size)
{
	BK_ASSERT_MEM_LOCKED();
	for (uint64_t q = offset / ARENA_PAGE; q < (offset + size) / ARENA_PAGE; q++)
		if (a->refs[q])
			a->refs[q]--;
	a->n_bos--;
	if (offset / ARENA_PAGE < a->hint)
		a->hint = offset / ARENA_PAGE;
}

int bk_arena_hold_locked(struct bk_arena *a, uint64_t offset, uint64_t size)
{
	BK_ASSERT_MEM_LOCKED();
	for (uint64_t q = offset / ARENA_PAGE; q < (offset + size) / ARENA_PAGE; q++)
		if (a->refs[q] == UINT16_MAX)
			return -EBUSY;
	for (uint64_t q = offset / ARENA_PAGE; q < (offset + size) / ARENA_PAGE; q++)
		a->refs[q]++;
	a->n_bos++;
	return 0;
}

unsigned int bk_arena_refs(const struct bk_arena *a, uint64_t offset)
{
	return a->refs[offset / ARENA_PAGE];
}

void bk_arenas_free(struct bk_conn *c, bool send)
{
	/* the host destroys the arenas with the context; mappings the
	 * application still holds stay valid, as for BO blobs */
	for (uint32_t i = 0; i < VKFD_MAX_ARENAS; i++) {
		struct bk_arena *a = c->arenas[i];

		if (!a)
			continue;
		if (send)
			vkfd_guest_blob_destroy(c->g, &a->blob);
		free(a->refs);
		free(a);
		c->arenas[i] = NULL;
	}
}
