// SPDX-License-Identifier: MIT
/*
 * Arenas (docs/protocol.md 9.4.1): one sealed memfd per arena, mapped in
 * the host, exported as one blob; its page ranges back small GTT BOs. This
 * file keeps the arena's memory and its page bitmap; the commands that
 * create and destroy arenas are in cmd_arena.c, the BO side in
 * cmd_memory.c, the blob side in host_blob.c.
 */
#include "host_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

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
	a->used = calloc((pages + 63) / 64, sizeof(uint64_t));
	if (!a->used) {
		free(a);
		return -ENOMEM;
	}
	/* fresh memfd: reads as zero; sealed so that neither side can make
	 * the other's mapping fault by resizing it */
	ret = shmem_region_create(&a->mem, "vkfd-arena", size);
	if (ret) {
		free(a->used);
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
	free(a->used);
	free(a);
}

static bool page_used(const struct host_arena *a, uint64_t p)
{
	return (a->used[p / 64] >> (p % 64)) & 1;
}

bool host_arena_range_free(const struct host_arena *a, uint64_t off, uint64_t size)
{
	/* size <= a->size first, so that off + size cannot wrap */
	if (size == 0 || off % ARENA_PAGE || size % ARENA_PAGE || size > a->size ||
	    off > a->size - size)
		return false;
	for (uint64_t p = off / ARENA_PAGE; p < (off + size) / ARENA_PAGE; p++)
		if (page_used(a, p))
			return false;
	return true;
}

int host_arena_claim(struct host_arena *a, uint64_t off, uint64_t size, bool zero)
{
	if (!host_arena_range_free(a, off, size))
		return -EINVAL;
	/* Zero before the BO exists: punching the range drops its pages (they
	 * read as zero again and the host's memory is returned); a filesystem
	 * without hole punching gets the bytes cleared instead. */
	if (zero && fallocate(a->mem.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)size) != 0)
		memset((uint8_t *)a->mem.map + off, 0, size);
	for (uint64_t p = off / ARENA_PAGE; p < (off + size) / ARENA_PAGE; p++)
		a->used[p / 64] |= 1ull << (p % 64);
	a->n_bos++;
	return 0;
}

void host_arena_release(struct host_arena *a, uint64_t off, uint64_t size)
{
	for (uint64_t p = off / ARENA_PAGE; p < (off + size) / ARENA_PAGE; p++)
		a->used[p / 64] &= ~(1ull << (p % 64));
	a->n_bos--;
}
