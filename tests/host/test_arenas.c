// SPDX-License-Identifier: MIT
/*
 * Arenas (docs/protocol.md 9.4.1, docs/security.md "Arenas"): a guest's
 * CREATE_ARENA, ALLOC_MEMORY from an arena, its blob and DESTROY_ARENA,
 * and what a hostile guest tries with them: overlapping BOs, offsets near
 * overflow, destroying an arena its BOs live in, reading a previous BO's
 * bytes, exporting a BO of an arena, using one as the event page, more
 * arenas than the limit, the quota, and a host that does not offer them;
 * ALLOC_USERPTR_PIECES (9.4.2): BOs over several arena ranges whose pages
 * other BOs hold too, and every bound on what the guest names.
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "kfd_uapi_ext.h"

#define PAGE           4096ull
#define GTT            (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define ARENA_BLOB(id) (0x4152000000000000ull | (id))

/* HELLO again asking for `features`; returns the granted set. */
static uint64_t hello(struct harness *h, uint64_t features)
{
	uint64_t granted = 0;

	assert_int_equal(h_hello(h, features, &granted), 0);
	return granted;
}

static int create_arena(struct harness *h, uint32_t id, uint64_t size, uint64_t blob_id)
{
	struct vkfd_req_create_arena r;
	struct vkfd_rsp_empty rsp;

	memset(&r, 0, sizeof(r));
	r.arena_id = id;
	r.size = size;
	r.blob_id = blob_id;
	return h_call(h, VKFD_CMD_CREATE_ARENA, &r, sizeof(r), &rsp, sizeof(rsp));
}

static int destroy_arena(struct harness *h, uint32_t id)
{
	struct vkfd_req_destroy_arena r;
	struct vkfd_rsp_empty rsp;

	memset(&r, 0, sizeof(r));
	r.arena_id = id;
	return h_call(h, VKFD_CMD_DESTROY_ARENA, &r, sizeof(r), &rsp, sizeof(rsp));
}

static int alloc_in(struct harness *h, uint32_t arena, uint64_t off, uint64_t va, uint64_t size,
		    uint32_t flags, uint64_t *handle, struct vkfd_rsp_alloc_memory *out)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&rsp, 0, sizeof(rsp));
	r.va = va;
	r.size = size;
	r.gpu_id = h->gpu_id;
	r.flags = flags;
	r.alloc_flags = VKFD_ALLOC_ARENA;
	r.arena_id = arena;
	r.arena_offset = off;
	ret = h_call(h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp));
	if (handle)
		*handle = rsp.handle;
	if (out)
		*out = rsp;
	return ret;
}

/* The arena's blob, exported and mapped (size bytes). */
static uint8_t *map_arena(struct harness *h, uint64_t blob_id, uint64_t size, int *fd)
{
	struct vkfd_blob b;
	void *p;

	assert_int_equal(vkfd_host_context_get_blob(h->ctx, 1, blob_id, size, 1, &b), 0);
	assert_int_equal(b.size, size);
	assert_int_equal(b.map_info, VKFD_BLOB_MAP_CACHED);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
	assert_true(p != MAP_FAILED);
	*fd = b.fd;
	return p;
}

/* Wait until everything submitted so far has run (FREE is async). */
static void sync_stream(struct harness *h)
{
	struct vkfd_req_get_version gv;
	struct vkfd_rsp_get_version rsp;

	memset(&gv, 0, sizeof(gv));
	assert_int_equal(h_call(h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), &rsp, sizeof(rsp)), 0);
}

/* Offered by default, granted only when asked for; without the grant the
 * commands and the ALLOC flag are refused. */
static void test_feature_negotiated(void **state)
{
	struct harness h;
	uint64_t va;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	va = h_va(&h, PAGE);
	assert_int_equal(create_arena(&h, 1, 1 << 20, ARENA_BLOB(1)), -EOPNOTSUPP);
	assert_int_equal(destroy_arena(&h, 1), -EOPNOTSUPP);
	assert_int_equal(alloc_in(&h, 1, 0, va, PAGE, GTT, NULL, NULL), -EINVAL);
	assert_true(hello(&h, VKFD_FEAT_ALL_V1 | VKFD_FEAT_ARENAS) & VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 1 << 20, ARENA_BLOB(1)), 0);
	assert_int_equal(alloc_in(&h, 1, 0, va, PAGE, GTT, NULL, NULL), 0);
	h_close(&h);
}

/* BOs from an arena: the response, their memory as the arena's slice, the
 * checks on offset and size, and no export of their own. */
static void test_alloc_from_arena(void **state)
{
	struct vkfd_rsp_alloc_memory ar;
	struct vkfd_blob b;
	struct harness h;
	uint64_t va, handle, other;
	uint8_t *p;
	int fd;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 3, 1 << 20, ARENA_BLOB(3)), 0);
	p = map_arena(&h, ARENA_BLOB(3), 1 << 20, &fd);
	/* exported once, with its own size and MAPPABLE only */
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, ARENA_BLOB(3), 1 << 20, 1, &b),
			 -EINVAL);
	va = h_va(&h, 2 * PAGE);
	assert_int_equal(alloc_in(&h, 3, 8 * PAGE, va, 2 * PAGE, GTT, &handle, &ar), 0);
	assert_int_equal(ar.map_flags, VKFD_ALLOC_MAP_ARENA);
	assert_int_equal(ar.map_info, VKFD_MAP_CACHED);
	assert_int_equal(ar.blob_size, 2 * PAGE);
	assert_int_equal(h_map(&h, handle), 0);
	/* the same range again, and every overlap of it */
	other = h_va(&h, 4 * PAGE);
	assert_int_equal(alloc_in(&h, 3, 8 * PAGE, other, 2 * PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 7 * PAGE, other, 2 * PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 9 * PAGE, other, PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 6 * PAGE, other, 4 * PAGE, GTT, NULL, NULL), -EINVAL);
	/* outside the arena, wrapping, unaligned */
	assert_int_equal(alloc_in(&h, 3, (1 << 20) - PAGE, other, 2 * PAGE, GTT, NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 1 << 20, other, PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, 3, ~0ull & ~(PAGE - 1), other, 2 * PAGE, GTT, NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 0, other, 2ull << 20, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 100, other, PAGE, GTT, NULL, NULL), -EINVAL);
	/* not plain GTT */
	assert_int_equal(alloc_in(&h, 3, 0, other, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_in(&h, 3, 0, other, 2 * PAGE,
				  GTT | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, NULL, NULL),
			 -EINVAL);
	/* a GPU mapping attribute, kept for user memory too */
	assert_int_equal(alloc_in(&h, 3, 12 * PAGE, h_va(&h, PAGE), PAGE,
				  GTT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED, NULL, NULL),
			 0);
	/* arenas that do not exist */
	assert_int_equal(alloc_in(&h, 0, 0, other, PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, 2, 0, other, PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_in(&h, VKFD_MAX_ARENAS + 1, 0, other, PAGE, GTT, NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_in(&h, 0xffffffffu, 0, other, PAGE, GTT, NULL, NULL), -EINVAL);
	/* the usual VA rules still hold: overlapping another BO's VA */
	assert_int_equal(alloc_in(&h, 3, 0, va + PAGE, PAGE, GTT, NULL, NULL), -EADDRINUSE);
	/* neighbours on both sides fit */
	assert_int_equal(alloc_in(&h, 3, 6 * PAGE, other, 2 * PAGE, GTT, NULL, NULL), 0);
	assert_int_equal(alloc_in(&h, 3, 10 * PAGE, other + 2 * PAGE, PAGE, GTT, NULL, NULL), 0);
	/* an arena BO has no blob of its own */
	h_bind(&h, handle, 77);
	sync_stream(&h);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 77, 2 * PAGE, 1, &b), -EINVAL);
	munmap(p, 1 << 20);
	close(fd);
	h_close(&h);
}

/* Fields of a 1.1 ALLOC that do not belong together are refused. */
static void test_alloc_fields_checked(void **state)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	struct harness h;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 1 << 20, ARENA_BLOB(1)), 0);
	memset(&r, 0, sizeof(r));
	r.va = h_va(&h, PAGE);
	r.size = PAGE;
	r.gpu_id = h.gpu_id;
	r.flags = GTT;
	r.arena_id = 1; /* without VKFD_ALLOC_ARENA */
	assert_int_equal(h_call(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	r.arena_id = 0;
	r.arena_offset = PAGE;
	assert_int_equal(h_call(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	r.arena_offset = 0;
	r.alloc_flags = 1u << 5;
	assert_int_equal(h_call(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	r.alloc_flags = 0;
	r.new_handle = 5; /* guest-chosen handles are not offered by this host */
	assert_int_equal(h_call(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	r.new_handle = 0;
	assert_int_equal(h_call(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
	h_close(&h);
}

/* A freed BO's range reads as zero for the next BO there, even through a
 * mapping of the arena that stayed in place. */
static void test_range_zeroed_before_reuse(void **state)
{
	struct harness h;
	uint64_t va, handle;
	uint8_t *p;
	int fd;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 64 * PAGE, ARENA_BLOB(1)), 0);
	p = map_arena(&h, ARENA_BLOB(1), 64 * PAGE, &fd);
	va = h_va(&h, 4 * PAGE);
	assert_int_equal(alloc_in(&h, 1, 4 * PAGE, va, 4 * PAGE, GTT, &handle, NULL), 0);
	memset(p + 4 * PAGE, 0xa5, 4 * PAGE);
	h_free(&h, handle);
	sync_stream(&h);
	/* the next BO over part of it, at another VA */
	va = h_va(&h, 2 * PAGE);
	assert_int_equal(alloc_in(&h, 1, 5 * PAGE, va, 2 * PAGE, GTT, &handle, NULL), 0);
	for (size_t i = 0; i < 2 * PAGE; i++)
		assert_int_equal(p[5 * PAGE + i], 0);
	/* outside the new BO the guest's own bytes are its business */
	assert_int_equal(p[4 * PAGE], 0xa5);
	munmap(p, 64 * PAGE);
	close(fd);
	h_close(&h);
}

/* Destroy: -EBUSY while a BO lives in it; afterwards the id and the blob
 * id are free, a mapping made before stays valid, the blob cannot be
 * exported again. */
static void test_destroy_arena(void **state)
{
	struct vkfd_blob b;
	struct harness h;
	uint64_t va, handle, second;
	uint8_t *p;
	int fd;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(destroy_arena(&h, 1), -EINVAL);
	assert_int_equal(destroy_arena(&h, 0), -EINVAL);
	assert_int_equal(destroy_arena(&h, VKFD_MAX_ARENAS + 1), -EINVAL);
	assert_int_equal(create_arena(&h, 1, 16 * PAGE, ARENA_BLOB(1)), 0);
	p = map_arena(&h, ARENA_BLOB(1), 16 * PAGE, &fd);
	va = h_va(&h, PAGE);
	assert_int_equal(alloc_in(&h, 1, 0, va, PAGE, GTT, &handle, NULL), 0);
	assert_int_equal(h_map(&h, handle), 0);
	assert_int_equal(destroy_arena(&h, 1), -EBUSY);
	/* nothing changed: the arena still takes BOs */
	assert_int_equal(alloc_in(&h, 1, PAGE, h_va(&h, PAGE), PAGE, GTT, &second, NULL), 0);
	h_free(&h, handle);
	assert_int_equal(destroy_arena(&h, 1), -EBUSY);
	/* closing the context with the arena busy and mapped */
	h_close(&h);
	(void)second;
	/* the mapping outlives the context and the arena */
	p[0] = 1;
	assert_int_equal(p[0], 1);
	munmap(p, 16 * PAGE);
	close(fd);

	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 16 * PAGE, ARENA_BLOB(1)), 0);
	p = map_arena(&h, ARENA_BLOB(1), 16 * PAGE, &fd);
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, PAGE), PAGE, GTT, &handle, NULL), 0);
	h_free(&h, handle);
	assert_int_equal(destroy_arena(&h, 1), 0);
	assert_int_equal(destroy_arena(&h, 1), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, ARENA_BLOB(1), 16 * PAGE, 1, &b),
			 -EINVAL);
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, PAGE), PAGE, GTT, NULL, NULL), -EINVAL);
	p[PAGE] = 7; /* the VMM's mapping stays valid, as for BO blobs */
	assert_int_equal(p[PAGE], 7);
	munmap(p, 16 * PAGE);
	close(fd);
	/* id and blob id are free again; the new arena is a new, zeroed memfd */
	assert_int_equal(create_arena(&h, 1, 16 * PAGE, ARENA_BLOB(1)), 0);
	p = map_arena(&h, ARENA_BLOB(1), 16 * PAGE, &fd);
	assert_int_equal(p[0], 0);
	assert_int_equal(p[PAGE], 0);
	munmap(p, 16 * PAGE);
	close(fd);
	h_close(&h);
}

/* CREATE_ARENA's own checks: ids, sizes, flags, blob ids, the limit. */
static void test_create_checks_and_limit(void **state)
{
	struct harness h;
	uint64_t va, handle;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 0, PAGE, ARENA_BLOB(0)), -EINVAL);
	assert_int_equal(create_arena(&h, VKFD_MAX_ARENAS + 1, PAGE, 9), -EINVAL);
	assert_int_equal(create_arena(&h, 0xffffffffu, PAGE, 9), -EINVAL);
	assert_int_equal(create_arena(&h, 1, 0, 9), -EINVAL);
	assert_int_equal(create_arena(&h, 1, PAGE + 1, 9), -EINVAL);
	assert_int_equal(create_arena(&h, 1, (uint64_t)VKFD_MAX_ARENA_SIZE + PAGE, 9), -EINVAL);
	assert_int_equal(create_arena(&h, 1, ~0ull & ~(PAGE - 1), 9), -EINVAL);
	assert_int_equal(create_arena(&h, 1, PAGE, VKFD_SHMEM_BLOB_ID), -EINVAL);
	{
		struct vkfd_req_create_arena r;
		struct vkfd_rsp_empty rsp;

		memset(&r, 0, sizeof(r));
		r.arena_id = 1;
		r.size = PAGE;
		r.blob_id = 9;
		r.flags = 1;
		assert_int_equal(
		    h_call(&h, VKFD_CMD_CREATE_ARENA, &r, sizeof(r), &rsp, sizeof(rsp)), -EINVAL);
	}
	/* a blob id a BO holds cannot name an arena, nor one arena's another's */
	va = h_va(&h, PAGE);
	assert_int_equal(h_alloc(&h, va, PAGE, GTT, &handle, NULL), 0);
	h_bind(&h, handle, 9);
	sync_stream(&h);
	assert_int_equal(create_arena(&h, 1, PAGE, 9), -EINVAL);
	assert_int_equal(create_arena(&h, 1, PAGE, 10), 0);
	assert_int_equal(create_arena(&h, 1, PAGE, 11), -EEXIST);
	assert_int_equal(create_arena(&h, 2, PAGE, 10), -EINVAL);
	/* every id up to the limit, one page each; then nothing more fits */
	for (uint32_t id = 2; id <= VKFD_MAX_ARENAS; id++)
		assert_int_equal(create_arena(&h, id, PAGE, 100 + id), 0);
	for (uint32_t id = 1; id <= VKFD_MAX_ARENAS; id++)
		assert_int_equal(create_arena(&h, id, PAGE, 1000 + id), -EEXIST);
	/* one BO in the last arena; teardown takes both down */
	assert_int_equal(alloc_in(&h, VKFD_MAX_ARENAS, 0, h_va(&h, PAGE), PAGE, GTT, NULL, NULL),
			 0);
	h_close(&h);
}

/* A BO of an arena is user memory to KFD: never the event page. */
static void test_not_event_page(void **state)
{
	struct harness h;
	uint64_t handle;
	uint32_t id;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 1 << 20, ARENA_BLOB(1)), 0);
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, 8 * PAGE), 8 * PAGE, GTT, &handle, NULL), 0);
	assert_int_equal(h_create_event(&h, handle, KFD_IOC_EVENT_SIGNAL, 1, &id), -EINVAL);
	h_close(&h);
}

/* A context destroyed with arenas, BOs in them and exported blobs gives
 * back every fd. */
static void test_teardown_releases(void **state)
{
	struct harness h;
	uint8_t *p;
	int base, fd;

	(void)state;
	base = h_fd_count();
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	for (uint32_t id = 1; id <= 4; id++) {
		uint64_t handle;

		assert_int_equal(create_arena(&h, id, 32 * PAGE, ARENA_BLOB(id)), 0);
		for (uint64_t off = 0; off < 32 * PAGE; off += 4 * PAGE) {
			assert_int_equal(
			    alloc_in(&h, id, off, h_va(&h, 4 * PAGE), 4 * PAGE, GTT, &handle, NULL),
			    0);
			assert_int_equal(h_map(&h, handle), 0);
		}
	}
	p = map_arena(&h, ARENA_BLOB(2), 32 * PAGE, &fd);
	munmap(p, 32 * PAGE);
	close(fd);
	h_close(&h);
	assert_int_equal(h_fd_count(), base);
}

/* The arena's size counts against the GTT quota when it is created. */
static void test_gtt_quota(void **state)
{
	struct vkfd_host_quota q;
	struct harness h;
	uint64_t handle;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.gtt_bytes = 1 << 20;
	assert_int_equal(h_lib_init(0, &q), 0);
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 2 << 20, ARENA_BLOB(1)), -ENOMEM);
	assert_int_equal(create_arena(&h, 1, 768 << 10, ARENA_BLOB(1)), 0);
	/* what is left of the quota, for arenas and ordinary GTT BOs alike */
	assert_int_equal(create_arena(&h, 2, 512 << 10, ARENA_BLOB(2)), -ENOMEM);
	assert_int_equal(h_alloc(&h, h_va(&h, 512 << 10), 512 << 10, GTT, NULL, NULL), -ENOMEM);
	assert_int_equal(h_alloc(&h, h_va(&h, 256 << 10), 256 << 10, GTT, &handle, NULL), 0);
	/* BOs inside the arena were paid for by the arena */
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, 768 << 10), 768 << 10, GTT, NULL, NULL), 0);
	h_free(&h, handle);
	assert_int_equal(create_arena(&h, 2, 256 << 10, ARENA_BLOB(2)), 0);
	assert_int_equal(destroy_arena(&h, 2), 0);
	h_close(&h);
	h_lib_fini();
}

/* A host that does not offer arenas (VKFD_HOST_FLAG_NO_ARENAS, as one that
 * predates them): not in the capset, not granted, commands refused. */
static void test_host_without_arenas(void **state)
{
	struct vkfd_capset cs;
	struct harness h;

	(void)state;
	assert_int_equal(h_lib_init(VKFD_HOST_FLAG_NO_ARENAS, NULL), 0);
	assert_int_equal(vkfd_host_capset_fill(1, &cs, sizeof(cs)), (int)sizeof(cs));
	assert_false(cs.features & (VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES));
	assert_int_equal(h_open(&h, 1), 0);
	assert_false(hello(&h, VKFD_FEAT_ALL_V1 | VKFD_FEAT_ARENAS) & VKFD_FEAT_ARENAS);
	assert_int_equal(create_arena(&h, 1, 1 << 20, ARENA_BLOB(1)), -EOPNOTSUPP);
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, PAGE), PAGE, GTT, NULL, NULL), -EINVAL);
	h_close(&h);
	h_lib_fini();
	assert_int_equal(h_lib_init(0, NULL), 0);
	assert_int_equal(vkfd_host_capset_fill(1, &cs, sizeof(cs)), (int)sizeof(cs));
	assert_true(cs.features & VKFD_FEAT_ARENAS);
	h_lib_fini();
}

/* ALLOC_USERPTR_PIECES of the pieces (arena, offset, pages) at va. */
static int alloc_pieces(struct harness *h, uint64_t va, uint64_t size, uint32_t flags,
			const struct vkfd_userptr_piece *pc, uint32_t n, uint64_t *handle,
			struct vkfd_rsp_alloc_memory *out)
{
	struct vkfd_req_alloc_userptr_pieces r;
	struct vkfd_rsp_alloc_memory rsp;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&rsp, 0, sizeof(rsp));
	r.va = va;
	r.size = size;
	r.gpu_id = h->gpu_id;
	r.flags = flags;
	r.n_pieces = n;
	for (uint32_t i = 0; i < n && i < VKFD_MAX_USERPTR_PIECES; i++)
		r.pieces[i] = pc[i];
	ret = h_call(h, VKFD_CMD_ALLOC_USERPTR_PIECES, &r, sizeof(r), &rsp, sizeof(rsp));
	if (handle)
		*handle = rsp.handle;
	if (out)
		*out = rsp;
	return ret;
}

/* Mappings of arena memory in this process (the host views included). */
static int arena_mappings(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "vkfd-arena"))
			n++;
	fclose(f);
	return n;
}

/* A BO over pieces of two arenas: granted only when asked for; pages no
 * BO held are zeroed, held pages keep their bytes and stay held while a
 * BO names them (no ALLOC of them, no DESTROY_ARENA); the BO's GPU view
 * is the pieces back to back (kfdsim reads through the host view). */
static void test_userptr_pieces(void **state)
{
	struct vkfd_userptr_piece pc[2] = {{PAGE, 1, 1}, {0, 2, 1}};
	struct vkfd_rsp_alloc_memory ar;
	struct harness h;
	uint64_t a, pb, va2;
	uint8_t *p1, *p2;
	int fd1, fd2;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	assert_false(hello(&h, VKFD_FEAT_ARENAS) & VKFD_FEAT_USERPTR_PIECES);
	assert_int_equal(create_arena(&h, 1, 1 << 20, ARENA_BLOB(1)), 0);
	assert_int_equal(create_arena(&h, 2, 1 << 20, ARENA_BLOB(2)), 0);
	va2 = h_va(&h, 2 * PAGE);
	assert_int_equal(alloc_pieces(&h, va2, 2 * PAGE, GTT, pc, 2, NULL, NULL), -ENOTTY);
	assert_true(hello(&h, VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES) &
		    VKFD_FEAT_USERPTR_PIECES);
	p1 = map_arena(&h, ARENA_BLOB(1), 1 << 20, &fd1);
	p2 = map_arena(&h, ARENA_BLOB(2), 1 << 20, &fd2);
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, 2 * PAGE), 2 * PAGE, GTT, &a, NULL), 0);
	memset(p1, 0x11, 2 * PAGE);
	memset(p2, 0x22, PAGE); /* a page no BO holds */
	assert_int_equal(alloc_pieces(&h, va2, 2 * PAGE, GTT, pc, 2, &pb, &ar), 0);
	assert_int_equal(ar.map_flags, VKFD_ALLOC_MAP_ARENA);
	assert_int_equal(ar.map_info, VKFD_MAP_CACHED);
	assert_int_equal(ar.blob_size, 2 * PAGE);
	assert_int_equal(h_map(&h, pb), 0);
	assert_int_equal(p1[PAGE], 0x11); /* held: kept */
	assert_int_equal(p2[0], 0);       /* new: zeroed */
	/* held pages are not free for an ALLOC, nor their arenas for DESTROY */
	assert_int_equal(alloc_in(&h, 2, 0, h_va(&h, PAGE), PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(destroy_arena(&h, 2), -EBUSY);
	/* the arena BO goes: the page the pieces hold stays, with its bytes */
	h_free(&h, a);
	assert_int_equal(alloc_in(&h, 1, PAGE, h_va(&h, PAGE), PAGE, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(p1[PAGE], 0x11);
	assert_int_equal(destroy_arena(&h, 1), -EBUSY);
	/* no blob, no export, no event page */
	h_bind(&h, pb, 78);
	sync_stream(&h);
	{
		struct vkfd_blob b;

		assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 78, 2 * PAGE, 1, &b),
				 -EINVAL);
	}
	assert_int_equal(h_unmap(&h, pb), 0);
	h_free(&h, pb);
	sync_stream(&h);
	assert_int_equal(destroy_arena(&h, 2), 0);
	assert_int_equal(destroy_arena(&h, 1), 0);
	munmap(p1, 1 << 20);
	munmap(p2, 1 << 20);
	close(fd1);
	close(fd2);
	h_close(&h);
}

/* What a hostile guest names: every piece bounded, the sum exact, the
 * count capped, the flags plain GTT; nothing is held after a refusal. */
static void test_userptr_pieces_checked(void **state)
{
	struct vkfd_userptr_piece pc[VKFD_MAX_USERPTR_PIECES + 1];
	struct vkfd_req_alloc_userptr_pieces r;
	struct vkfd_rsp_alloc_memory rsp;
	struct harness h;
	uint64_t va, handle;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES);
	assert_int_equal(create_arena(&h, 1, 64 * PAGE, ARENA_BLOB(1)), 0);
	va = h_va(&h, 64 * PAGE);
	for (uint32_t i = 0; i <= VKFD_MAX_USERPTR_PIECES; i++)
		pc[i] = (struct vkfd_userptr_piece){i * PAGE, 1, 1};
	/* counts */
	assert_int_equal(alloc_pieces(&h, va, 0, GTT, pc, 0, NULL, NULL), -EINVAL);
	memset(&r, 0, sizeof(r));
	r.va = va;
	r.size = 17 * PAGE;
	r.gpu_id = h.gpu_id;
	r.flags = GTT;
	r.n_pieces = VKFD_MAX_USERPTR_PIECES + 1;
	assert_int_equal(
	    h_call(&h, VKFD_CMD_ALLOC_USERPTR_PIECES, &r, sizeof(r), &rsp, sizeof(rsp)), -EINVAL);
	r.n_pieces = 0xffffffffu;
	assert_int_equal(
	    h_call(&h, VKFD_CMD_ALLOC_USERPTR_PIECES, &r, sizeof(r), &rsp, sizeof(rsp)), -EINVAL);
	r.n_pieces = 1;
	r.size = PAGE;
	r.pieces[0] = pc[0];
	r.pad = 1;
	assert_int_equal(
	    h_call(&h, VKFD_CMD_ALLOC_USERPTR_PIECES, &r, sizeof(r), &rsp, sizeof(rsp)), -EINVAL);
	/* pieces: arena not live, unaligned, empty, outside, wrapping */
	assert_int_equal(
	    alloc_pieces(&h, va, PAGE, GTT, &(struct vkfd_userptr_piece){0, 0, 1}, 1, NULL, NULL),
	    -EINVAL);
	assert_int_equal(
	    alloc_pieces(&h, va, PAGE, GTT, &(struct vkfd_userptr_piece){0, 2, 1}, 1, NULL, NULL),
	    -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, PAGE, GTT,
				      &(struct vkfd_userptr_piece){0, VKFD_MAX_ARENAS + 1, 1}, 1,
				      NULL, NULL),
			 -EINVAL);
	assert_int_equal(
	    alloc_pieces(&h, va, PAGE, GTT, &(struct vkfd_userptr_piece){100, 1, 1}, 1, NULL, NULL),
	    -EINVAL);
	assert_int_equal(
	    alloc_pieces(&h, va, 0, GTT, &(struct vkfd_userptr_piece){0, 1, 0}, 1, NULL, NULL),
	    -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, PAGE, GTT,
				      &(struct vkfd_userptr_piece){64 * PAGE, 1, 1}, 1, NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, 2 * PAGE, GTT,
				      &(struct vkfd_userptr_piece){63 * PAGE, 1, 2}, 1, NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, PAGE, GTT,
				      &(struct vkfd_userptr_piece){~0ull & ~(PAGE - 1), 1, 1}, 1,
				      NULL, NULL),
			 -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, 0xffffffffull * PAGE, GTT,
				      &(struct vkfd_userptr_piece){0, 1, 0xffffffffu}, 1, NULL,
				      NULL),
			 -EINVAL);
	/* sizes that do not add up */
	assert_int_equal(alloc_pieces(&h, va, 3 * PAGE, GTT, pc, 2, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, PAGE, GTT, pc, 2, NULL, NULL), -EINVAL);
	/* flags: not GTT, AQL, USERPTR */
	assert_int_equal(
	    alloc_pieces(&h, va, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, pc, 1, NULL, NULL), -EINVAL);
	assert_int_equal(alloc_pieces(&h, va, PAGE, GTT | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, pc,
				      1, NULL, NULL),
			 -EINVAL);
	assert_int_equal(
	    alloc_pieces(&h, va, PAGE, GTT | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, pc, 1, NULL, NULL),
	    -EINVAL);
	/* VA 0 */
	assert_int_equal(alloc_pieces(&h, 0, PAGE, GTT, pc, 1, NULL, NULL), -EINVAL);
	/* nothing was held by the refusals: the whole arena is free */
	assert_int_equal(alloc_in(&h, 1, 0, h_va(&h, 64 * PAGE), 64 * PAGE, GTT, &handle, NULL), 0);
	h_free(&h, handle);
	/* the same page twice in one list, and all sixteen pieces */
	assert_int_equal(alloc_pieces(&h, va, 2 * PAGE, GTT,
				      (struct vkfd_userptr_piece[]){{0, 1, 1}, {0, 1, 1}}, 2,
				      &handle, NULL),
			 0);
	assert_int_equal(alloc_pieces(&h, va + 2 * PAGE, 16 * PAGE, GTT, pc, 16, NULL, NULL), 0);
	h_close(&h);
}

/* Closing the context with pieces BOs alive leaves no host view, arena
 * mapping or fd behind. */
static void test_userptr_pieces_teardown(void **state)
{
	struct vkfd_userptr_piece pc[3] = {{0, 1, 1}, {4 * PAGE, 1, 2}, {0, 2, 1}};
	struct harness h;
	int fds, maps;

	(void)state;
	fds = h_fd_count();
	maps = arena_mappings();
	assert_int_equal(h_open(&h, 1), 0);
	hello(&h, VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES);
	assert_int_equal(create_arena(&h, 1, 32 * PAGE, ARENA_BLOB(1)), 0);
	assert_int_equal(create_arena(&h, 2, 32 * PAGE, ARENA_BLOB(2)), 0);
	for (int i = 0; i < 8; i++) {
		uint64_t handle;

		assert_int_equal(
		    alloc_pieces(&h, h_va(&h, 4 * PAGE), 4 * PAGE, GTT, pc, 3, &handle, NULL), 0);
		assert_int_equal(h_map(&h, handle), 0);
	}
	assert_true(arena_mappings() > maps);
	h_close(&h);
	assert_int_equal(arena_mappings(), maps);
	assert_int_equal(h_fd_count(), fds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_feature_negotiated),
	    cmocka_unit_test(test_alloc_from_arena),
	    cmocka_unit_test(test_alloc_fields_checked),
	    cmocka_unit_test(test_range_zeroed_before_reuse),
	    cmocka_unit_test(test_destroy_arena),
	    cmocka_unit_test(test_create_checks_and_limit),
	    cmocka_unit_test(test_not_event_page),
	    cmocka_unit_test(test_teardown_releases),
	    cmocka_unit_test(test_userptr_pieces),
	    cmocka_unit_test(test_userptr_pieces_checked),
	    cmocka_unit_test(test_userptr_pieces_teardown),
	};
	const struct CMUnitTest own_lib[] = {
	    cmocka_unit_test(test_gtt_quota),
	    cmocka_unit_test(test_host_without_arenas),
	};
	int fails;

	fails = cmocka_run_group_tests_name("arenas", tests, h_setup_lib, h_teardown_lib);
	fails += cmocka_run_group_tests_name("arenas-config", own_lib, NULL, NULL);
	return fails;
}
