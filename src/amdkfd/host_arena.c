// SPDX-License-Identifier: MIT
/*
 * Arenas (docs/protocol.md 9.4.1): one sealed memfd per arena, mapped in
 * the host, exported as one blob; its page ranges back small GTT BOs, and
 * lists of them back ALLOC_USERPTR_PIECES BOs (9.4.2). This file keeps the
 * arena's memory, how many BOs hold each page, and the host views of piece
 * lists; the commands that
 * create and destroy arenas are in cmd_arena.c, the BO side in
 * cmd_memory.c, the blob side in host_blob.c.
 */
#include "host_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_PAGE 4096ull

struct host_arena *host_arena_get(struct vkfd_host_context *ctx, uint32_t id)
{
	if (id < 1 || id > VKFD_MAX_ARENAS)
		return NULL;
	return ctx->arenas[id - 1];
}

int host_arena_new(uint32_t id, uint64_t size, struct host_arena **out)
{
	struct host_arena *a;
	uint64_t pages = size / ARENA_PAGE;
	int ret;

	*out = NULL;
	if (size == 0 || size % ARENA_PAGE || size > VKFD_MAX_ARENA_SIZE)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->refs = calloc(pages, sizeof(uint16_t));
	if (!a->refs) {
		free(a);
		return -ENOMEM;
	}
	/* fresh memfd: reads as zero; sealed so that neither side can make
	 * the other's mapping fault by resizing it */
	ret = shmem_region_create(&a->mem, "vkfd-arena", size);
	if (ret) {
		free(a->refs);
		free(a);
		return ret;
	}
	a->id = id;
	a->size = size;
	*out = a;
	return 0;
}

void host_arena_free(struct host_arena *a)
{
	if (!a)
		return;
	shmem_region_destroy(&a->mem);
	free(a->refs);
	free(a);
}

bool host_arena_range_free(const struct host_arena *a, uint64_t off, uint64_t size)
{
	/* size <= a->size first, so that off + size cannot wrap */
	if (size == 0 || off % ARENA_PAGE || size % ARENA_PAGE || size > a->size ||
	    off > a->size - size)
		return false;
	for (uint64_t p = off / ARENA_PAGE; p < (off + size) / ARENA_PAGE; p++)
		if (a->refs[p])
			return false;
	return true;
}

/* Punch [off, off + size) (its pages read as zero again and go back to
 * the host); a filesystem without hole punching gets the bytes cleared. */
static void zero_range(struct host_arena *a, uint64_t off, uint64_t size)
{
	if (fallocate(a->mem.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)size) != 0)
		memset((uint8_t *)a->mem.map + off, 0, size);
}

int host_arena_claim(struct host_arena *a, uint64_t off, uint64_t size, bool zero)
{
	if (!host_arena_range_free(a, off, size))
		return -EINVAL;
	/* zeroed before the BO exists: no BO sees a previous BO's bytes */
	if (zero)
		zero_range(a, off, size);
	for (uint64_t p = off / ARENA_PAGE; p < (off + size) / ARENA_PAGE; p++)
		a->refs[p] = 1;
	a->n_bos++;
	return 0;
}

void host_arena_release(struct host_arena *a, uint64_t off, uint64_t size)
{
	for (uint64_t p = off / ARENA_PAGE; p < (off + size) / ARENA_PAGE; p++)
		if (a->refs[p])
			a->refs[p]--;
	a->n_bos--;
}

/* One piece as the guest named it: inside a live arena, page-aligned, no
 * page's count full. Its byte size in *bytes. */
static struct host_arena *piece_check(struct vkfd_host_context *ctx,
				      const struct vkfd_userptr_piece *pc, uint64_t *bytes)
{
	struct host_arena *a = host_arena_get(ctx, pc->arena_id);
	uint64_t len = (uint64_t)pc->pages * ARENA_PAGE; /* pages < 2^32: no wrap */

	if (!a || pc->pages == 0 || pc->arena_offset % ARENA_PAGE || len > a->size ||
	    pc->arena_offset > a->size - len)
		return NULL;
	*bytes = len;
	return a;
}

/* Hold [off, off + size) once more; the pages nobody held are zeroed
 * first (the range is new memory, as for host_arena_claim). */
static void piece_hold(struct host_arena *a, uint64_t off, uint64_t size)
{
	uint64_t first = off / ARENA_PAGE, end = (off + size) / ARENA_PAGE;

	for (uint64_t p = first; p < end;) {
		uint64_t q = p;

		while (q < end && a->refs[q] == 0)
			q++;
		if (q > p)
			zero_range(a, p * ARENA_PAGE, (q - p) * ARENA_PAGE);
		for (; q < end && a->refs[q]; q++)
			;
		p = q;
	}
	for (uint64_t p = first; p < end; p++)
		a->refs[p]++;
	a->n_bos++;
}

int host_alias_create(struct vkfd_host_context *ctx, const struct vkfd_userptr_piece *pieces,
		      uint32_t n, uint64_t size, struct host_alias **out)
{
	struct host_arena *arenas[VKFD_MAX_USERPTR_PIECES];
	uint64_t lens[VKFD_MAX_USERPTR_PIECES], total = 0;
	struct host_alias *al;

	*out = NULL;
	if (n < 1 || n > VKFD_MAX_USERPTR_PIECES)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		arenas[i] = piece_check(ctx, &pieces[i], &lens[i]);
		/* each piece is at most VKFD_MAX_ARENA_SIZE: the sum cannot wrap */
		if (!arenas[i])
			return -EINVAL;
		total += lens[i];
	}
	if (total != size)
		return -EINVAL;
	/* every count must take up to n more (a page the list names twice
	 * counts twice): a bound, not exact, which costs a page 15 holds */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t first = pieces[i].arena_offset / ARENA_PAGE;

		for (uint64_t p = first; p < first + lens[i] / ARENA_PAGE; p++)
			if (arenas[i]->refs[p] > UINT16_MAX - n)
				return -EBUSY;
	}
	al = calloc(1, sizeof(*al));
	if (!al)
		return -ENOMEM;
	al->size = size;
	al->n = n;
	if (n == 1) {
		al->base = (uint8_t *)arenas[0]->mem.map + pieces[0].arena_offset;
	} else {
		/* reserve the span, then each piece's memfd range over it */
		void *v =
		    mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		uint64_t at = 0;

		if (v == MAP_FAILED) {
			free(al);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < n; i++) {
			if (mmap((uint8_t *)v + at, lens[i], PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED, arenas[i]->mem.fd,
				 (off_t)pieces[i].arena_offset) == MAP_FAILED) {
				munmap(v, size);
				free(al);
				return -ENOMEM;
			}
			at += lens[i];
		}
		al->base = v;
		al->own_view = true;
	}
	for (uint32_t i = 0; i < n; i++) {
		al->p[i].arena = arenas[i];
		al->p[i].off = pieces[i].arena_offset;
		al->p[i].size = lens[i];
		piece_hold(arenas[i], pieces[i].arena_offset, lens[i]);
	}
	*out = al;
	return 0;
}

void host_alias_destroy(struct host_alias *al)
{
	if (!al)
		return;
	if (al->own_view)
		munmap(al->base, al->size);
	for (uint32_t i = 0; i < al->n; i++)
		host_arena_release(al->p[i].arena, al->p[i].off, al->p[i].size);
	free(al);
}
