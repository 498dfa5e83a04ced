// SPDX-License-Identifier: MIT
/*
 * vkfd backend: USERPTR registrations that share pages. A range registered
 * over pages another registration converted into an arena becomes one BO
 * over the arena ranges live BOs hold there plus new arena slices for the
 * rest (ALLOC_USERPTR_PIECES, docs/protocol.md 9.4.2): CPU and every GPU
 * view see the same bytes, as with the kernel's two USERPTR BOs over one
 * page. Each arena page counts the BOs that hold it (backend_vkfd_arena.c)
 * and goes back to private memory with the last (backend_vkfd_userptr.c).
 * docs/guest-vkfd-backend.md, "Overlapping registrations".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

/* An arena range some live converted BO of c holds at [s, e) of the CPU. */
struct bk_seg {
	uint64_t s, e;
	struct bk_arena *arena;
	uint64_t off;
};

bool bk_userptr_shareable_locked(const struct bk_conn *c, const struct bk_bo *b)
{
	uint64_t s = b->cpu_va, e = b->cpu_va + b->uptr_len;

	BK_ASSERT_TABLE_LOCKED();
	if (!(c->features & VKFD_FEAT_USERPTR_PIECES) || b->uptr_len != b->size ||
	    sysconf(_SC_PAGESIZE) != (long)BK_ARENA_PAGE)
		return false;
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		const struct bk_conn *o = bk.files[i].conn;

		if (bk.files[i].kind != BK_KFD || !o)
			continue;
		for (const struct bk_bo *x = o->bos; x; x = x->next) {
			if (!x->userptr) {
				if (s < x->va + x->size && x->va < e)
					return false; /* -EFAULT: another BO's VA */
				continue;
			}
			if (!x->userptr_mapped || !(s < x->cpu_va + x->uptr_len && x->cpu_va < e))
				continue;
			/* pages of another context, or of a blob of their own */
			if (o != c || !(x->arena || x->pieces))
				return false;
		}
	}
	return true;
}

/* The arena ranges live converted BOs of c hold in [s, e): a new array
 * (free it) of *n entries; NULL with *n 0 when none, and -ENOMEM in *err
 * when out of memory. With bk_lock. */
static struct bk_seg *bk_segs_locked(const struct bk_conn *c, uint64_t s, uint64_t e, size_t *n,
				     int *err)
{
	struct bk_seg *v = NULL;
	size_t cap = 0;

	*n = 0;
	*err = 0;
	for (const struct bk_bo *x = c->bos; x; x = x->next) {
		struct bk_uptr_piece one;
		const struct bk_uptr_piece *ps = x->pieces;
		uint32_t np = x->n_pieces;

		if (!x->userptr || !x->userptr_mapped)
			continue;
		if (x->arena) {
			one = (struct bk_uptr_piece){x->cpu_va, x->uptr_len, x->arena,
						     x->arena_offset};
			ps = &one;
			np = 1;
		}
		for (uint32_t i = 0; i < np; i++) {
			if (!(s < ps[i].cpu_va + ps[i].len && ps[i].cpu_va < e))
				continue;
			if (*n == cap) {
				struct bk_seg *nv =
				    realloc(v, (cap = cap ? 2 * cap : 8) * sizeof(*v));

				if (!nv) {
					free(v);
					*n = 0;
					*err = -ENOMEM;
					return NULL;
				}
				v = nv;
			}
			v[(*n)++] = (struct bk_seg){ps[i].cpu_va, ps[i].cpu_va + ps[i].len,
						    ps[i].arena, ps[i].off};
		}
	}
	return v;
}

/* Split [s, e) into pieces in CPU order: the arena ranges live BOs hold
 * (arena set; a page several of them hold is the same arena page for all)
 * and the gaps between them (arena NULL). -EBUSY beyond `max` pieces. */
static int bk_split(const struct bk_seg *segs, size_t nsegs, uint64_t s, uint64_t e,
		    struct bk_uptr_piece *out, uint32_t max, uint32_t *n)
{
	*n = 0;
	for (uint64_t cur = s; cur < e;) {
		const struct bk_seg *best = NULL;
		uint64_t next = e, len;
		struct bk_uptr_piece p;

		for (size_t i = 0; i < nsegs; i++) {
			if (segs[i].s <= cur && cur < segs[i].e) {
				if (!best || segs[i].e > best->e)
					best = &segs[i];
			} else if (segs[i].s > cur && segs[i].s < next) {
				next = segs[i].s;
			}
		}
		if (best) {
			len = (best->e < e ? best->e : e) - cur;
			p = (struct bk_uptr_piece){cur, len, best->arena,
						   best->off + (cur - best->s)};
		} else {
			len = next - cur;
			p = (struct bk_uptr_piece){cur, len, NULL, 0};
		}
		if (*n && p.arena && out[*n - 1].arena == p.arena &&
		    out[*n - 1].off + out[*n - 1].len == p.off) {
			out[*n - 1].len += len; /* one range of the same arena */
		} else {
			if (*n == max)
				return -EBUSY;
			out[(*n)++] = p;
		}
		cur += len;
	}
	return 0;
}

/* Copy the CPU range of each new piece into its arena range, then map
 * the arena over it. On failure the pieces already mapped go back to
 * private memory. */
static int bk_share_convert_locked(struct bk_conn *c, const struct bk_uptr_piece *ps,
				   const bool *fresh, uint32_t n)
{
	uint32_t i;
	int r = 0;

	for (i = 0; !r && i < n; i++) {
		void *tmp;

		if (!fresh[i])
			continue;
		tmp = vkfd_guest_blob_map(c->g, &ps[i].arena->blob, NULL, ps[i].len, ps[i].off,
					  PROT_READ | PROT_WRITE);
		if (tmp == MAP_FAILED)
			return -errno;
		r = bk_userptr_copy_in(tmp, ps[i].cpu_va, ps[i].len);
		munmap(tmp, ps[i].len);
	}
	for (i = 0; !r && i < n; i++)
		if (fresh[i] &&
		    vkfd_guest_blob_map(c->g, &ps[i].arena->blob, (void *)(uintptr_t)ps[i].cpu_va,
					ps[i].len, ps[i].off, PROT_READ | PROT_WRITE) == MAP_FAILED)
			r = -errno;
	if (r)
		while (i-- > 0)
			if (fresh[i])
				bk_arena_run_restore_locked(ps[i].arena, ps[i].cpu_va, ps[i].len);
	return r;
}

/* ALLOC_USERPTR_PIECES of b over ps (docs/protocol.md 9.4.2). */
static int bk_share_alloc_locked(struct bk_conn *c, const struct bk_bo *b, uint32_t flags,
				 const struct bk_uptr_piece *ps, uint32_t n,
				 struct vkfd_rsp_alloc_memory *rsp)
{
	struct vkfd_req_alloc_userptr_pieces req;
	int r;

	memset(&req, 0, sizeof(req));
	req.va = b->va;
	req.size = b->size;
	req.gpu_id = b->gpu_id;
	req.flags = flags;
	req.n_pieces = n;
	for (uint32_t i = 0; i < n; i++) {
		req.pieces[i].arena_id = ps[i].arena->id;
		req.pieces[i].arena_offset = ps[i].off;
		req.pieces[i].pages = (uint32_t)(ps[i].len / BK_ARENA_PAGE);
	}
	bk_alloc_lock(c);
	req.new_handle = bk_handle_take_locked(c);
	bk_budget_count_locked(c, 0); /* a GTT request; its arenas were charged */
	r = bk_call(c, VKFD_CMD_ALLOC_USERPTR_PIECES, &req, sizeof(req), rsp, sizeof(*rsp));
	if (!r && req.new_handle && rsp->handle != req.new_handle)
		r = -EIO; /* the host must use the handle it was given */
	if (r && req.new_handle)
		bk_handle_untake_locked(c, req.new_handle);
	bk_alloc_unlock(c);
	if (!r && (!(rsp->map_flags & VKFD_ALLOC_MAP_ARENA) || rsp->blob_size != b->size)) {
		bk_send_free(c, rsp->handle);
		r = -EPROTO; /* the host answered for another kind of BO */
	}
	return r;
}

int bk_userptr_share_locked(struct bk_conn *c, struct bk_bo *b, uint32_t flags)
{
	struct bk_uptr_piece ps[VKFD_MAX_USERPTR_PIECES];
	bool fresh[VKFD_MAX_USERPTR_PIECES], held[VKFD_MAX_USERPTR_PIECES];
	struct vkfd_rsp_alloc_memory rsp;
	uint64_t s = b->cpu_va, e = b->cpu_va + b->uptr_len;
	struct bk_seg *segs;
	size_t nsegs;
	uint32_t n = 0, i;
	int r;

	BK_ASSERT_MEM_LOCKED();
	/* a freed range not yet given back: its contents first */
	bk_userptr_settle_locked(s, e);
	bk_table_lock();
	segs = bk_segs_locked(c, s, e, &nsegs, &r);
	if (!r)
		r = bk_split(segs, nsegs, s, e, ps, VKFD_MAX_USERPTR_PIECES, &n);
	bk_table_unlock();
	free(segs);
	if (r)
		return r;
	memset(held, 0, sizeof(held));
	for (i = 0; !r && i < n; i++) {
		fresh[i] = ps[i].arena == NULL;
		if (!fresh[i])
			r = bk_arena_hold_locked(ps[i].arena, ps[i].off, ps[i].len);
		else if (!bk_arena_wanted(c, flags, ps[i].cpu_va, ps[i].len, true))
			r = -EBUSY; /* not arena memory: a documented difference */
		else
			r = bk_arena_take_locked(c, ps[i].len, &ps[i].arena, &ps[i].off);
		held[i] = !r;
	}
	if (!r)
		r = bk_share_alloc_locked(c, b, flags, ps, n, &rsp);
	if (!r) {
		b->handle = rsp.handle;
		b->blob_size = rsp.blob_size;
		b->map_info = rsp.map_info;
		b->map_flags = rsp.map_flags;
		b->pieces = malloc(n * sizeof(*ps));
		r = b->pieces ? bk_share_convert_locked(c, ps, fresh, n) : -ENOMEM;
		if (r) {
			free(b->pieces);
			b->pieces = NULL;
			bk_send_free(c, b->handle);
		}
	}
	if (r) {
		for (i = 0; i < n; i++)
			if (held[i])
				bk_arena_put_locked(ps[i].arena, ps[i].off, ps[i].len);
		return r;
	}
	memcpy(b->pieces, ps, n * sizeof(*ps));
	b->n_pieces = n;
	b->arena = NULL;
	b->userptr_mapped = true;
	bk_log("userptr %#" PRIx64 " at %#" PRIx64 ": %u pieces, shares pages", b->uptr_len,
	       b->cpu_va, n);
	return 0;
}
