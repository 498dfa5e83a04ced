// SPDX-License-Identifier: MIT
/*
 * Protocol 1.1 allocation (docs/protocol.md section 14): guest-chosen BO
 * handles, the budget words, ALLOC_MEMORY_ASYNC with its deferred errors
 * and lost-context cases, blobs of BOs that do not exist yet at submit
 * time (refused at once: get_blob never waits on guest work), and both
 * directions of 1.0 compatibility. Every guest-chosen value
 * is treated as hostile: range, reuse, generation, collision, flood.
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfd_uapi_ext.h"
#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"

#define GTT     (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define VRAM    (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE)
#define MAX_BOS 32u
#define FEAT11  (VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC)

static int setup(void **state)
{
	struct vkfd_host_quota q;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.vram_bytes = 64ull << 20;
	q.gtt_bytes = 96ull << 20;
	q.max_bos = MAX_BOS;
	return h_lib_init(0, &q);
}

static int teardown(void **state)
{
	(void)state;
	h_lib_fini();
	return 0;
}

static const volatile struct vkfd_shmem_hdr *hdr(struct harness *h)
{
	return h->shmem;
}

/* HELLO again, asking for `want`; returns what was granted. */
static uint64_t hello(struct harness *h, uint64_t want)
{
	uint64_t granted = 0;

	assert_int_equal(h_hello(h, want, &granted), 0);
	return granted;
}

static void open11(struct harness *h, uint32_t id)
{
	assert_int_equal(h_open(h, id), 0);
	assert_int_equal(hello(h, FEAT11), FEAT11);
}

static void alloc_req(struct vkfd_req_alloc_memory *r, struct harness *h, uint64_t va,
		      uint64_t size, uint32_t flags, uint64_t new_handle)
{
	memset(r, 0, sizeof(*r));
	r->va = va;
	r->size = size;
	r->gpu_id = h->gpu_id;
	r->flags = flags;
	r->new_handle = new_handle;
}

static int alloc_sync(struct harness *h, uint64_t va, uint64_t size, uint32_t flags,
		      uint64_t new_handle, uint64_t *got)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	int ret;

	alloc_req(&r, h, va, size, flags, new_handle);
	memset(&rsp, 0, sizeof(rsp));
	ret = h_call(h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp));
	if (got)
		*got = rsp.handle;
	return ret;
}

/* Queue an ALLOC_MEMORY_ASYNC without sending it. */
static void alloc_async_add(struct harness *h, uint64_t va, uint64_t size, uint32_t flags,
			    uint64_t new_handle)
{
	struct vkfd_req_alloc_memory r;

	alloc_req(&r, h, va, size, flags, new_handle);
	h_add(h, VKFD_CMD_ALLOC_MEMORY_ASYNC, &r, sizeof(r), NULL);
	assert_false(h->add_failed);
}

static int alloc_async(struct harness *h, uint64_t va, uint64_t size, uint32_t flags,
		       uint64_t new_handle)
{
	struct vkfd_req_alloc_memory r;

	alloc_req(&r, h, va, size, flags, new_handle);
	return h_async(h, VKFD_CMD_ALLOC_MEMORY_ASYNC, &r, sizeof(r));
}

/* An async request that loses the context: the harness may see the loss
 * before the request's seqno (both are published, in that order). */
static void alloc_async_lost(struct harness *h, uint64_t va, uint64_t size, uint32_t flags,
			     uint64_t new_handle, uint32_t why)
{
	int r = alloc_async(h, va, size, flags, new_handle);

	assert_true(r == 0 || r == -EIO);
	assert_int_equal(__atomic_load_n(&((const struct vkfd_shmem_hdr *)h->shmem)->async_error,
					 __ATOMIC_ACQUIRE),
			 why);
}

static uint32_t lost(struct harness *h)
{
	return __atomic_load_n(&hdr(h)->async_error, __ATOMIC_ACQUIRE);
}

static void test_budget_words(void **state)
{
	struct harness h;
	uint64_t a;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	/* a 1.0 guest (the harness's HELLO asks for nothing): words zero */
	assert_int_equal(hdr(&h)->max_bos, 0);
	assert_int_equal(hdr(&h)->budget_bytes, 0);
	assert_int_equal(hello(&h, FEAT11 | VKFD_FEAT_EVENT_HINTS) & FEAT11, FEAT11);
	assert_int_equal(hdr(&h)->max_bos, MAX_BOS);
	assert_int_equal(hdr(&h)->budget_allocs, 0);
	/* the window (64 MiB) is below the quota's headroom (96 MiB) */
	assert_int_equal(hdr(&h)->budget_bytes, 64ull << 20);
	/* every GTT request counts, a failed one too; VRAM does not */
	assert_int_equal(alloc_sync(&h, h_va(&h, 48 << 20), 48 << 20, GTT, 0, &a), 0);
	assert_int_equal(alloc_sync(&h, 1, 4096, GTT, 0, NULL), -EINVAL);
	assert_int_equal(alloc_sync(&h, h_va(&h, 4096), 4096, VRAM, 0, NULL), 0);
	assert_int_equal(hdr(&h)->budget_allocs, 2);
	/* near the quota the budget is its headroom */
	assert_int_equal(hdr(&h)->budget_bytes, 48ull << 20);
	h_free(&h, a);
	assert_int_equal(hdr(&h)->budget_bytes, 64ull << 20);
	/* a HELLO that drops the feature clears the words */
	assert_int_equal(hello(&h, 0), 0);
	assert_int_equal(hdr(&h)->max_bos, 0);
	assert_int_equal(hdr(&h)->budget_bytes, 0);
	h_close(&h);
}

static void test_guest_handles(void **state)
{
	struct harness h;
	uint64_t got, va = 0;

	(void)state;
	open11(&h, 2);
	va = h_va(&h, 1 << 20);
	/* the handle is the one asked for */
	assert_int_equal(alloc_sync(&h, va, 4096, GTT, VKFD_HANDLE(5, 1), &got), 0);
	assert_int_equal(got, VKFD_HANDLE(5, 1));
	assert_int_equal(h_map(&h, got), 0);
	/* hostile choices: live index, index 0, past max_bos, generation 0,
	 * a generation that is not the slot's next */
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(5, 1), NULL), -EINVAL);
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(5, 2), NULL), -EINVAL);
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(0, 1), NULL), -EINVAL);
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(MAX_BOS + 1, 1), NULL),
			 -EINVAL);
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(0xffffffffu, 1), NULL),
			 -EINVAL);
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(6, 0), NULL), -EINVAL);
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(6, 7), NULL), -EINVAL);
	/* the last index works */
	assert_int_equal(alloc_sync(&h, va + 8192, 4096, GTT, VKFD_HANDLE(MAX_BOS, 1), &got), 0);
	h_free(&h, got);
	/* free in stream order: FREE then ALLOC of the next generation in one
	 * batch */
	{
		struct vkfd_req_handle fr;
		struct vkfd_req_alloc_memory r;
		struct vkfd_rsp_alloc_memory *rsp;
		uint32_t off, s;

		memset(&fr, 0, sizeof(fr));
		fr.handle = VKFD_HANDLE(5, 1);
		h_add(&h, VKFD_CMD_FREE_MEMORY, &fr, sizeof(fr), NULL);
		alloc_req(&r, &h, va, 4096, GTT, VKFD_HANDLE(5, 2));
		s = h_add(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &off);
		assert_int_equal(h_flush(&h), 0);
		assert_int_equal(h_wait_slot(&h, off, s, 5000), 0);
		rsp = h_rsp(&h, off);
		assert_int_equal(rsp->hdr.ret, 0);
		assert_int_equal(rsp->handle, VKFD_HANDLE(5, 2));
	}
	/* the stale handle is dead, the new one lives */
	assert_int_equal(h_map(&h, VKFD_HANDLE(5, 1)), -EINVAL);
	assert_int_equal(h_map(&h, VKFD_HANDLE(5, 2)), 0);
	/* host-chosen handles never take a live guest-chosen slot */
	assert_int_equal(alloc_sync(&h, va + 16384, 4096, GTT, 0, &got), 0);
	assert_true(VKFD_HANDLE_INDEX(got) != 5);
	h_free(&h, got);
	h_free(&h, VKFD_HANDLE(5, 2));
	assert_int_equal(lost(&h), 0);
	h_close(&h);
}

static void test_guest_handles_not_granted(void **state)
{
	struct harness h;

	(void)state;
	assert_int_equal(h_open(&h, 3), 0);
	assert_int_equal(hello(&h, VKFD_FEAT_ASYNC_ALLOC), VKFD_FEAT_ASYNC_ALLOC);
	/* new_handle without VKFD_FEAT_GUEST_HANDLES */
	assert_int_equal(alloc_sync(&h, h_va(&h, 4096), 4096, GTT, VKFD_HANDLE(1, 1), NULL),
			 -EINVAL);
	/* a 1.0 guest's 40-byte request reads new_handle as 0 */
	{
		struct vkfd_req_alloc_memory r;
		struct vkfd_rsp_alloc_memory rsp;

		alloc_req(&r, &h, h_va(&h, 4096), 4096, GTT, 0);
		memset(&rsp, 0, sizeof(rsp));
		assert_int_equal(h_call(&h, VKFD_CMD_ALLOC_MEMORY, &r, 40, &rsp, sizeof(rsp)), 0);
		assert_true(rsp.handle != 0);
		h_free(&h, rsp.handle);
	}
	h_close(&h);
}

static void test_async_alloc_and_blob(void **state)
{
	struct harness h;
	struct vkfd_blob blob;
	uint64_t va;
	uint8_t *p;

	(void)state;
	open11(&h, 4);
	va = h_va(&h, 1 << 20);
	/* ALLOC_MEMORY_ASYNC and BIND_BLOB in one batch: the BO does not
	 * exist at submit time, so the bind is refused (get_blob never waits
	 * on the executor) and stays refused after the ALLOC ran */
	alloc_async_add(&h, va, 1 << 20, GTT, VKFD_HANDLE(3, 1));
	h_bind(&h, VKFD_HANDLE(3, 1), 77);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 77, 1 << 20, 1, &blob), -EINVAL);
	assert_int_equal(h_map(&h, VKFD_HANDLE(3, 1)), 0);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 77, 1 << 20, 1, &blob), -EINVAL);
	/* once an answered call shows the BO exists, a bind of it works */
	h_bind(&h, VKFD_HANDLE(3, 1), 79);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 79, 1 << 20, 1, &blob), 0);
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, blob.fd, 0);
	assert_true(p != MAP_FAILED);
	p[4096] = 0x5a;
	munmap(p, 1 << 20);
	close(blob.fd);
	assert_int_equal(hdr(&h)->budget_allocs, 1);
	/* a blob id bound to a handle no ALLOC creates is refused */
	h_bind(&h, VKFD_HANDLE(9, 1), 78);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 78, 4096, 1, &blob), -EINVAL);
	h_free(&h, VKFD_HANDLE(3, 1));
	assert_int_equal(lost(&h), 0);
	h_close(&h);
}

static void test_async_deferred_errors(void **state)
{
	struct harness h;
	struct vkfd_blob blob;
	uint64_t va, live;

	(void)state;
	open11(&h, 5);
	va = h_va(&h, 1 << 20);
	assert_int_equal(alloc_sync(&h, va, 1 << 20, GTT, VKFD_HANDLE(1, 1), &live), 0);
	/* overlapping VA: the handle carries -EADDRINUSE */
	assert_int_equal(alloc_async(&h, va + 4096, 4096, GTT, VKFD_HANDLE(2, 1)), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(2, 1)), -EADDRINUSE);
	assert_int_equal(h_unmap(&h, VKFD_HANDLE(2, 1)), -EADDRINUSE);
	/* its blob is refused */
	h_bind(&h, VKFD_HANDLE(2, 1), 90);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 90, 4096, 1, &blob), -EINVAL);
	/* the slot is taken until FREE_MEMORY gives it back */
	assert_int_equal(alloc_sync(&h, h_va(&h, 4096), 4096, GTT, VKFD_HANDLE(2, 1), NULL),
			 -EINVAL);
	h_free(&h, VKFD_HANDLE(2, 1));
	assert_int_equal(h_map(&h, VKFD_HANDLE(2, 1)), -EINVAL);
	/* flags the budget does not cover (VRAM, AQL) and bad alignment are
	 * deferred errors too, never an allocation */
	assert_int_equal(alloc_async(&h, h_va(&h, 4096), 4096, VRAM, VKFD_HANDLE(2, 2)), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(2, 2)), -EINVAL);
	h_free(&h, VKFD_HANDLE(2, 2));
	assert_int_equal(alloc_async(&h, h_va(&h, 8192), 8192,
				     GTT | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM,
				     VKFD_HANDLE(2, 3)),
			 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(2, 3)), -EINVAL);
	h_free(&h, VKFD_HANDLE(2, 3));
	assert_int_equal(alloc_async(&h, h_va(&h, 8192) + 1, 4096, GTT, VKFD_HANDLE(2, 4)), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(2, 4)), -EINVAL);
	h_free(&h, VKFD_HANDLE(2, 4));
	/* and the index works again at its next generation */
	assert_int_equal(alloc_async(&h, h_va(&h, 4096), 4096, GTT, VKFD_HANDLE(2, 5)), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(2, 5)), 0);
	h_free(&h, VKFD_HANDLE(2, 5));
	h_free(&h, live);
	assert_int_equal(lost(&h), 0);
	h_close(&h);
}

/* docs/security.md, "VMM thread blocked on guest work": with the executor
 * parked in a KFD call (a guest can keep it busy at will), a get_blob of
 * an id bound to a BO whose ALLOC_MEMORY_ASYNC has not run yet answers at
 * once with an error, whether the ALLOC is in the bind's batch or in an
 * earlier one still queued; the bind is not completed when the ALLOC runs. */
static void test_get_blob_of_unborn_bo_answers_at_once(void **state)
{
	struct vkfd_req_map_memory m;
	struct vkfd_blob b;
	struct harness h;
	uint64_t victim;

	(void)state;
	H_SIM_ONLY("needs kfdsim_latch_ioctl");
	open11(&h, 24);
	assert_int_equal(h_alloc(&h, h_va(&h, 4096), 4096, GTT, &victim, NULL), 0);
	kfdsim_latch_ioctl(host_g.sim, 0x18); /* AMDKFD_IOC_MAP_MEMORY_TO_GPU */
	memset(&m, 0, sizeof(m));
	m.handle = victim;
	m.n_devices = 1;
	m.device_ids[0] = h.gpu_id;
	h_add(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL);
	assert_int_equal(h_flush(&h), 0);
	for (int i = 0; i < 2000 && kfdsim_latch_parked(host_g.sim, 0x18) == 0; i++)
		usleep(1000);
	assert_int_equal(kfdsim_latch_parked(host_g.sim, 0x18), 1);
	/* the ALLOC in the bind's batch, and one in an earlier batch */
	alloc_async_add(&h, h_va(&h, 8192), 8192, GTT, VKFD_HANDLE(20, 1));
	h_bind(&h, VKFD_HANDLE(20, 1), 700);
	alloc_async_add(&h, h_va(&h, 8192), 8192, GTT, VKFD_HANDLE(21, 1));
	assert_int_equal(h_flush(&h), 0);
	h_bind(&h, VKFD_HANDLE(21, 1), 701);
	/* answered on this thread while the executor is still parked */
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 700, 8192, 1, &b), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 701, 8192, 1, &b), -EINVAL);
	assert_int_equal(kfdsim_latch_parked(host_g.sim, 0x18), 1); /* still parked */
	kfdsim_latch_release(host_g.sim, 0x18);
	/* both BOs exist now; their refused binds stay refused */
	assert_int_equal(h_map(&h, VKFD_HANDLE(20, 1)), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(21, 1)), 0);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 700, 8192, 1, &b), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 701, 8192, 1, &b), -EINVAL);
	h_free(&h, VKFD_HANDLE(20, 1));
	h_free(&h, VKFD_HANDLE(21, 1));
	h_free(&h, victim);
	assert_int_equal(lost(&h), 0);
	h_close(&h);
}

/* An arena BO allocated without a reply (VKFD_ALLOC_ARENA in
 * ALLOC_MEMORY_ASYNC): no budget bytes, the range not zeroed by the host
 * (the guest zeroed it and may write it before the ALLOC runs), range
 * errors deferred to the handle. */
static void test_async_arena_alloc(void **state)
{
	struct vkfd_req_create_arena ca;
	struct vkfd_req_alloc_memory r;
	struct vkfd_blob blob;
	struct harness h;
	uint64_t bytes;
	uint8_t *p;

	(void)state;
	assert_int_equal(h_open(&h, 25), 0);
	assert_int_equal(hello(&h, FEAT11 | VKFD_FEAT_ARENAS), FEAT11 | VKFD_FEAT_ARENAS);
	memset(&ca, 0, sizeof(ca));
	ca.size = 1 << 20;
	ca.blob_id = 800;
	ca.arena_id = 1;
	assert_int_equal(h_call(&h, VKFD_CMD_CREATE_ARENA, &ca, sizeof(ca), NULL, 0), 0);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 800, 1 << 20, 1, &blob), 0);
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, blob.fd, 0);
	close(blob.fd);
	assert_true(p != MAP_FAILED);
	bytes = hdr(&h)->budget_bytes;
	/* the guest writes its new BO before the host runs the ALLOC */
	alloc_req(&r, &h, h_va(&h, 8192), 8192, GTT, VKFD_HANDLE(4, 1));
	r.alloc_flags = VKFD_ALLOC_ARENA;
	r.arena_id = 1;
	r.arena_offset = 4096;
	h_add(&h, VKFD_CMD_ALLOC_MEMORY_ASYNC, &r, sizeof(r), NULL);
	memset(p + 4096, 0x3c, 8192);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(4, 1)), 0);
	assert_int_equal(p[4096], 0x3c);
	assert_int_equal(p[4096 + 8191], 0x3c);
	/* a GTT request counted, no budget bytes taken */
	assert_int_equal(hdr(&h)->budget_allocs, 1);
	assert_int_equal(hdr(&h)->budget_bytes, bytes);
	/* an arena BO never gets a blob of its own */
	h_bind(&h, VKFD_HANDLE(4, 1), 801);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 801, 8192, 1, &blob), -EINVAL);
	/* over the live range: a deferred error, the range untouched */
	alloc_req(&r, &h, h_va(&h, 4096), 4096, GTT, VKFD_HANDLE(5, 1));
	r.alloc_flags = VKFD_ALLOC_ARENA;
	r.arena_id = 1;
	r.arena_offset = 8192;
	assert_int_equal(h_async(&h, VKFD_CMD_ALLOC_MEMORY_ASYNC, &r, sizeof(r)), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(5, 1)), -EINVAL);
	assert_int_equal(p[8192], 0x3c);
	h_free(&h, VKFD_HANDLE(5, 1));
	h_free(&h, VKFD_HANDLE(4, 1));
	assert_int_equal(lost(&h), 0);
	munmap(p, 1 << 20);
	h_close(&h);
}

/* A handle that cannot name a new BO has no slot for an error. */
static void test_async_bad_handle_loses_context(void **state)
{
	static const struct {
		uint64_t handle;
		bool live_first;
	} cases[] = {
	    {VKFD_HANDLE(1, 1), true},            /* collides with a live BO */
	    {VKFD_HANDLE(0, 1), false},           /* index 0 */
	    {VKFD_HANDLE(MAX_BOS + 1, 1), false}, /* past max_bos */
	    {VKFD_HANDLE(4, 0), false},           /* generation 0 */
	    {VKFD_HANDLE(4, 2), false},           /* not the next generation */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct harness h;

		open11(&h, 10 + (uint32_t)i);
		if (cases[i].live_first)
			assert_int_equal(
			    alloc_sync(&h, h_va(&h, 4096), 4096, GTT, cases[i].handle, NULL), 0);
		alloc_async_lost(&h, h_va(&h, 4096), 4096, GTT, cases[i].handle,
				 VKFD_ASYNC_ERR_PROTOCOL);
		h_close(&h);
	}
	/* not granted: unknown to the context, as to a 1.0 host: ignored */
	{
		struct harness h;

		assert_int_equal(h_open(&h, 20), 0);
		assert_int_equal(alloc_async(&h, h_va(&h, 4096), 4096, GTT, VKFD_HANDLE(1, 1)), 0);
		assert_int_equal(lost(&h), 0);
		assert_int_equal(h_map(&h, VKFD_HANDLE(1, 1)), -EINVAL);
		h_close(&h);
	}
}

/* A guest that ignores the budget and runs out of memory loses the
 * context: -ENOMEM cannot be reported without a reply. */
static void test_async_over_budget_loses_context(void **state)
{
	struct harness h;

	(void)state;
	open11(&h, 21);
	alloc_async_lost(&h, h_va(&h, 128 << 20), 128 << 20, GTT, VKFD_HANDLE(1, 1),
			 VKFD_ASYNC_ERR_BUDGET);
	h_close(&h);
}

/* The strict rule (VKFD_FEAT_STRICT_ALLOC, docs/protocol.md 14.6): every
 * failure of an ALLOC_MEMORY_ASYNC loses the context, none is deferred to
 * the handle; a successful one is used as before. The rule needs
 * asynchronous ALLOC: alone it is not granted. */
static void test_strict_failure_loses_context(void **state)
{
	const uint64_t feat = FEAT11 | VKFD_FEAT_STRICT_ALLOC;
	enum { OVERLAP, VRAM_FLAGS, MISALIGNED, PAST_APERTURE, N_CASES };

	(void)state;
	for (int i = 0; i < N_CASES; i++) {
		struct harness h;
		uint64_t va;

		assert_int_equal(h_open(&h, 40 + (uint32_t)i), 0);
		assert_int_equal(hello(&h, feat), feat);
		va = h_va(&h, 1 << 20);
		/* a good one first: mapped, no loss */
		assert_int_equal(alloc_async(&h, va, 4096, GTT, VKFD_HANDLE(1, 1)), 0);
		assert_int_equal(h_map(&h, VKFD_HANDLE(1, 1)), 0);
		assert_int_equal(lost(&h), 0);
		switch (i) {
		case OVERLAP:
			alloc_async_lost(&h, va, 4096, GTT, VKFD_HANDLE(2, 1),
					 VKFD_ASYNC_ERR_ALLOC);
			break;
		case VRAM_FLAGS:
			alloc_async_lost(&h, va + 8192, 4096, VRAM, VKFD_HANDLE(2, 1),
					 VKFD_ASYNC_ERR_ALLOC);
			break;
		case MISALIGNED:
			alloc_async_lost(&h, va + 8192 + 1, 4096, GTT, VKFD_HANDLE(2, 1),
					 VKFD_ASYNC_ERR_ALLOC);
			break;
		case PAST_APERTURE:
			alloc_async_lost(&h, 1ull << 47, 4096, GTT, VKFD_HANDLE(2, 1),
					 VKFD_ASYNC_ERR_ALLOC);
			break;
		}
		h_close(&h);
	}
	/* running out of memory stays a budget loss */
	{
		struct harness h;

		assert_int_equal(h_open(&h, 45), 0);
		assert_int_equal(hello(&h, feat), feat);
		alloc_async_lost(&h, h_va(&h, 128 << 20), 128 << 20, GTT, VKFD_HANDLE(1, 1),
				 VKFD_ASYNC_ERR_BUDGET);
		h_close(&h);
	}
	/* not without asynchronous ALLOC */
	{
		struct harness h;

		assert_int_equal(h_open(&h, 46), 0);
		assert_int_equal(hello(&h, VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_STRICT_ALLOC),
				 VKFD_FEAT_GUEST_HANDLES);
		h_close(&h);
	}
}

/* A flood of asynchronous allocations: the BO quota bounds the table; the
 * first handle past it loses the context, host memory stays bounded. */
static void test_async_flood(void **state)
{
	struct harness h;
	uint64_t va;

	(void)state;
	open11(&h, 22);
	va = h_va(&h, (MAX_BOS + 1) * 4096ull);
	for (uint32_t i = 1; i <= MAX_BOS; i++)
		alloc_async_add(&h, va + (i - 1) * 4096ull, 4096, GTT, VKFD_HANDLE(i, 1));
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(h_map(&h, VKFD_HANDLE(MAX_BOS, 1)), 0);
	assert_int_equal(lost(&h), 0);
	/* every slot is taken: no index can name a new BO */
	alloc_async_lost(&h, va + MAX_BOS * 4096ull, 4096, GTT, VKFD_HANDLE(1, 2),
			 VKFD_ASYNC_ERR_PROTOCOL);
	h_close(&h);
}

/* A 1.0 host (VKFD_HOST_PROTO_1_0=1) offers none of the 1.1 features. */
static void test_host_1_0(void **state)
{
	struct harness h;

	(void)state;
	assert_int_equal(setenv("VKFD_HOST_PROTO_1_0", "1", 1), 0);
	assert_int_equal(h_open(&h, 23), 0);
	assert_int_equal(hello(&h, FEAT11), 0);
	assert_int_equal(hdr(&h)->max_bos, 0);
	assert_int_equal(hdr(&h)->budget_bytes, 0);
	assert_int_equal(alloc_sync(&h, h_va(&h, 4096), 4096, GTT, VKFD_HANDLE(1, 1), NULL),
			 -EINVAL);
	unsetenv("VKFD_HOST_PROTO_1_0");
	h_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_budget_words),
	    cmocka_unit_test(test_guest_handles),
	    cmocka_unit_test(test_guest_handles_not_granted),
	    cmocka_unit_test(test_async_alloc_and_blob),
	    cmocka_unit_test(test_async_deferred_errors),
	    cmocka_unit_test(test_get_blob_of_unborn_bo_answers_at_once),
	    cmocka_unit_test(test_async_arena_alloc),
	    cmocka_unit_test(test_async_bad_handle_loses_context),
	    cmocka_unit_test(test_async_over_budget_loses_context),
	    cmocka_unit_test(test_strict_failure_loses_context),
	    cmocka_unit_test(test_async_flood),
	    cmocka_unit_test(test_host_1_0),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
