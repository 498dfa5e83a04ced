// SPDX-License-Identifier: MIT
/*
 * Protocol 1.1's MAP_MEMORY_ASYNC and the map barrier (docs/protocol.md
 * 14.5): first the relay alone over plain words, then through a host
 * context on kfdsim, where a queue's write pointer is visible to the relay
 * before the MAP its packet needs has even reached the host, and the
 * packet must not run before the MAP.
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

#include "doorbell_relay.h"
#include "host_harness.h"
#include "host_internal.h"

#define GTT     (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define WAIT_MS 2000
#define FEAT11  (VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC | VKFD_FEAT_ASYNC_MAP)

/* SDMA packets the model executes (docs/kfdsim-engines.md) */
#define SDMA_OP_FENCE 5u

static void sleep_ms(int ms)
{
	usleep((useconds_t)ms * 1000u);
}

/* Wait until the relay either held a moved write pointer back or rang
 * *real (bounded); which of the two happened is for the caller to check. */
static void wait_held_or_rung(struct doorbell_relay *r, uint64_t held0,
			      const volatile uint64_t *real, uint64_t real0)
{
	struct doorbell_relay_stats st;

	for (int i = 0; i < WAIT_MS; i++) {
		doorbell_relay_get_stats(r, &st);
		if (st.deferred > held0 || __atomic_load_n(real, __ATOMIC_ACQUIRE) != real0)
			return;
		sleep_ms(1);
	}
}

/* --- the relay alone --- */

static void test_relay_barrier_words(void **state)
{
	volatile uint64_t wp = 0, real = 0;
	uint32_t word = 0, done = 0, processed = 0;
	struct doorbell_relay_barrier b = {
	    .guest_word = &word, .done = &done, .processed = &processed};
	struct doorbell_relay_queue q;
	struct doorbell_relay_stats st;
	struct doorbell_relay *r;

	(void)state;
	assert_int_equal(doorbell_relay_start(&r, 2), 0);
	memset(&q, 0, sizeof(q));
	q.src = RELAY_SRC_WPTR_RAW;
	q.value = &wp;
	q.real_db = &real;
	assert_int_equal(doorbell_relay_add_queue(r, 0, &q), 0);
	doorbell_relay_set_barrier(r, &b);

	/* no async MAP yet (word == done == 0): rings as before */
	__atomic_store_n(&wp, 0x20, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real, 0x20, WAIT_MS), 0x20);

	/* the guest announced MAP seqno 7; the executor is at 6 */
	__atomic_store_n(&processed, 6, __ATOMIC_SEQ_CST);
	__atomic_store_n(&word, 7, __ATOMIC_RELEASE);
	__atomic_store_n(&wp, 0x40, __ATOMIC_RELEASE);
	wait_held_or_rung(r, 0, &real, 0x20);
	doorbell_relay_flush(r);
	doorbell_relay_get_stats(r, &st);
	assert_true(st.deferred > 0);
	assert_int_equal(__atomic_load_n(&real, __ATOMIC_ACQUIRE), 0x20);

	/* the executor ran it: the held write pointer goes out */
	__atomic_store_n(&processed, 7, __ATOMIC_SEQ_CST);
	__atomic_store_n(&done, 7, __ATOMIC_SEQ_CST);
	doorbell_relay_barrier_progress(r);
	assert_int_equal(h_wait_u64(&real, 0x40, WAIT_MS), 0x40);

	/* wrap-around: a barrier just past 2^32 is ahead of 0xfffffff0 */
	__atomic_store_n(&processed, 0xfffffff0u, __ATOMIC_SEQ_CST);
	__atomic_store_n(&word, 3, __ATOMIC_RELEASE);
	__atomic_store_n(&wp, 0x60, __ATOMIC_RELEASE);
	doorbell_relay_get_stats(r, &st);
	wait_held_or_rung(r, st.deferred, &real, 0x40);
	assert_int_equal(__atomic_load_n(&real, __ATOMIC_ACQUIRE), 0x40);
	/* the processed count passing it is enough (a MAP that was not one) */
	__atomic_store_n(&processed, 4, __ATOMIC_SEQ_CST);
	assert_int_equal(h_wait_u64(&real, 0x60, WAIT_MS), 0x60);

	/* disarmed (a later HELLO without the feature): the word is ignored */
	__atomic_store_n(&word, 1000, __ATOMIC_RELEASE);
	doorbell_relay_set_barrier(r, NULL);
	__atomic_store_n(&wp, 0x80, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real, 0x80, WAIT_MS), 0x80);
	doorbell_relay_stop(r);
}

/* --- through a host context on kfdsim --- */

static uint64_t hello(struct harness *h, uint64_t want)
{
	uint64_t granted = 0;

	assert_int_equal(h_hello(h, want, &granted), 0);
	return granted;
}

/* The guest's writable view of the header (the harness maps it read-only). */
static struct vkfd_shmem_hdr *guest_hdr(struct harness *h)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, h->shmem_fd, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static void bo_make(struct harness *h, struct h_bo *b, uint64_t size, uint32_t flags)
{
	assert_int_equal(h_bo_make(h, b, size, flags), 0);
}

/* A GTT BO with a CPU view, allocated but not mapped on the GPU. */
static void bo_make_unmapped(struct harness *h, struct h_bo *b, uint64_t size)
{
	struct vkfd_rsp_alloc_memory ar;
	struct vkfd_blob blob;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->size = size;
	b->va = h_va(h, size);
	assert_int_equal(h_alloc(h, b->va, size, GTT, &b->handle, &ar), 0);
	h_bind(h, b->handle, h->next_blob);
	assert_int_equal(
	    vkfd_host_context_get_blob(h->ctx, 1, h->next_blob, ar.blob_size, 1, &blob), 0);
	h->next_blob++;
	b->fd = blob.fd;
	b->cpu = mmap(NULL, blob.size, PROT_READ | PROT_WRITE, MAP_SHARED, blob.fd, 0);
	assert_true(b->cpu != MAP_FAILED);
}

static void map_req(struct vkfd_req_map_memory *m, struct harness *h, uint64_t handle)
{
	memset(m, 0, sizeof(*m));
	m->handle = handle;
	m->n_devices = 1;
	m->device_ids[0] = h->gpu_id;
}

static void sdma_fence(uint32_t *pk, uint64_t va, uint32_t value)
{
	pk[0] = SDMA_OP_FENCE;
	pk[1] = (uint32_t)va;
	pk[2] = (uint32_t)(va >> 32);
	pk[3] = value;
}

/*
 * An SDMA queue whose packet writes into a BO that only a MAP_MEMORY_ASYNC
 * not yet sent maps: the guest has announced the MAP (map_barrier) and
 * published the write pointer, as ROCr would after a map ioctl the guest
 * answered at once. The relay must hold the doorbell until the MAP has run
 * (without the barrier it rings, kfdsim runs the packet against an
 * unmapped VA and the queue faults), then the packet runs and sees the
 * mapping.
 */
static void test_dispatch_waits_for_async_map(void **state)
{
	struct harness h;
	struct vkfd_shmem_hdr *gh;
	struct vkfd_rsp_create_queue rsp;
	struct vkfd_req_map_memory m;
	struct h_bo ring, ctl, db, target;
	struct doorbell_relay_stats st;
	volatile uint64_t *real, *wptr;
	volatile uint32_t *done, *hit;
	uint32_t pk[8], s;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	assert_int_equal(hello(&h, FEAT11) & VKFD_FEAT_ASYNC_MAP, VKFD_FEAT_ASYNC_MAP);
	gh = guest_hdr(&h);
	bo_make(&h, &ring, 4096, GTT);
	bo_make(&h, &ctl, 4096, GTT);
	bo_make(&h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	bo_make_unmapped(&h, &target, 4096);
	assert_int_equal(
	    h_create_queue(&h, KFD_IOC_QUEUE_TYPE_SDMA, ring.va, ctl.va, ctl.va + 0x80, 7, &rsp),
	    0);
	real = h_real_doorbell(&h, rsp.doorbell_index);
	assert_non_null(real);
	wptr = (volatile uint64_t *)ctl.cpu;
	done = (volatile uint32_t *)((uint8_t *)ctl.cpu + 0x100);
	hit = (volatile uint32_t *)target.cpu;
	assert_int_equal(__atomic_load_n(real, __ATOMIC_ACQUIRE), 0);

	/* the MAP gets the next seqno; the guest announces it before it
	 * sends anything, the way a batch still in the guest's queue looks */
	s = h.b.seqno;
	__atomic_store_n(&gh->map_barrier, s, __ATOMIC_RELEASE);
	sdma_fence(pk, target.va, 0xabcd);
	sdma_fence(pk + 4, ctl.va + 0x100, 0x600d);
	memcpy(ring.cpu, pk, sizeof(pk));
	__atomic_store_n(wptr, sizeof(pk), __ATOMIC_RELEASE);

	/* the relay saw the write pointer move and held it */
	wait_held_or_rung(h.ctx->relay, 0, real, 0);
	assert_true(h_relay_settle(h.ctx->relay, WAIT_MS));
	doorbell_relay_get_stats(h.ctx->relay, &st);
	assert_int_equal(__atomic_load_n(real, __ATOMIC_ACQUIRE), 0);
	assert_true(st.deferred > 0);
	assert_int_equal(*done, 0);

	/* the MAP arrives and runs: the doorbell follows, and the packets
	 * see the mapping */
	map_req(&m, &h, target.handle);
	assert_int_equal(h_add(&h, VKFD_CMD_MAP_MEMORY_ASYNC, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL),
			 s);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(h_wait_u64(real, sizeof(pk), WAIT_MS), sizeof(pk));
	assert_int_equal(h_wait_u32(done, 0x600d, WAIT_MS), 0x600d);
	assert_int_equal(*hit, 0xabcd);
	assert_int_equal(gh->async_error, 0);

	/* later doorbells are not held: the barrier has run */
	sdma_fence(pk, ctl.va + 0x100, 0x700d);
	memcpy((uint8_t *)ring.cpu + 32, pk, 16);
	__atomic_store_n(wptr, 48, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(real, 48, WAIT_MS), 48);
	assert_int_equal(h_wait_u32(done, 0x700d, WAIT_MS), 0x700d);

	assert_int_equal(h_destroy_queue(&h, rsp.queue), 0);
	munmap(gh, 4096);
	h_bo_drop(&target);
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&db);
	h_close(&h);
}

/*
 * A barrier naming a request the guest never sends holds that context's
 * doorbells only: another context's queue rings meanwhile, and destroying
 * the stalled context returns.
 */
static void test_hostile_barrier_stalls_own_context_only(void **state)
{
	struct harness a, b;
	struct vkfd_shmem_hdr *gh;
	struct vkfd_rsp_create_queue ra, rb;
	struct h_bo ring_a, ctl_a, db_a, ring_b, ctl_b, db_b;
	volatile uint64_t *real_a, *real_b;
	struct doorbell_relay_stats st;

	(void)state;
	assert_int_equal(h_open(&a, 1), 0);
	assert_int_equal(h_open(&b, 2), 0);
	assert_int_equal(hello(&a, FEAT11) & VKFD_FEAT_ASYNC_MAP, VKFD_FEAT_ASYNC_MAP);
	assert_int_equal(hello(&b, FEAT11) & VKFD_FEAT_ASYNC_MAP, VKFD_FEAT_ASYNC_MAP);
	bo_make(&a, &ring_a, 4096, GTT);
	bo_make(&a, &ctl_a, 4096, GTT);
	bo_make(&a, &db_a, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	bo_make(&b, &ring_b, 4096, GTT);
	bo_make(&b, &ctl_b, 4096, GTT);
	bo_make(&b, &db_b, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	assert_int_equal(h_create_queue(&a, KFD_IOC_QUEUE_TYPE_SDMA, ring_a.va, ctl_a.va,
					ctl_a.va + 0x80, 7, &ra),
			 0);
	assert_int_equal(h_create_queue(&b, KFD_IOC_QUEUE_TYPE_SDMA, ring_b.va, ctl_b.va,
					ctl_b.va + 0x80, 7, &rb),
			 0);
	real_a = h_real_doorbell(&a, ra.doorbell_index);
	assert_non_null(real_a);
	real_b = h_real_doorbell(&b, rb.doorbell_index);
	assert_non_null(real_b);

	gh = guest_hdr(&a);
	__atomic_store_n(&gh->map_barrier, a.b.seqno + 1000u, __ATOMIC_RELEASE);
	/* an all-zero ring is NOPs */
	__atomic_store_n((volatile uint64_t *)ctl_a.cpu, 32, __ATOMIC_RELEASE);
	__atomic_store_n((volatile uint64_t *)ctl_b.cpu, 32, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(real_b, 32, WAIT_MS), 32);
	wait_held_or_rung(a.ctx->relay, 0, real_a, 0);
	doorbell_relay_get_stats(a.ctx->relay, &st);
	assert_true(st.deferred > 0);
	assert_int_equal(__atomic_load_n(real_a, __ATOMIC_ACQUIRE), 0);
	/* its synchronous requests still run */
	assert_int_equal(h_destroy_queue(&a, ra.queue), 0);
	munmap(gh, 4096);

	assert_int_equal(h_destroy_queue(&b, rb.queue), 0);
	h_bo_drop(&ring_a);
	h_bo_drop(&ctl_a);
	h_bo_drop(&db_a);
	h_bo_drop(&ring_b);
	h_bo_drop(&ctl_b);
	h_bo_drop(&db_b);
	h_close(&a);
	h_close(&b);
}

/* A MAP_MEMORY_ASYNC the host cannot run loses the context. */
static void test_failed_async_map_loses_context(void **state)
{
	struct harness h;
	struct vkfd_req_map_memory m;
	struct vkfd_shmem_hdr *hdr;
	struct h_bo bo;
	int ret;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	assert_int_equal(hello(&h, FEAT11) & VKFD_FEAT_ASYNC_MAP, VKFD_FEAT_ASYNC_MAP);
	bo_make_unmapped(&h, &bo, 4096);
	map_req(&m, &h, bo.handle);
	m.device_ids[0] = h.gpu_id ^ 0x5a5a; /* no such GPU */
	ret = h_async(&h, VKFD_CMD_MAP_MEMORY_ASYNC, &m, VKFD_REQ_MAP_MEMORY_LEN(1));
	assert_true(ret == 0 || ret == -EIO); /* its seqno may be published first */
	hdr = h.shmem;
	assert_int_equal(__atomic_load_n(&hdr->async_error, __ATOMIC_ACQUIRE), VKFD_ASYNC_ERR_MAP);
	h_bo_drop(&bo);
	h_close(&h);
}

/* The deferred error of an asynchronous ALLOC is not a MAP failure: the
 * context lives and the next synchronous use of the handle answers it. */
static void test_async_map_of_deferred_error_keeps_context(void **state)
{
	struct harness h;
	struct vkfd_req_alloc_memory a;
	struct vkfd_req_map_memory m;
	struct vkfd_rsp_map_memory mr;
	struct vkfd_shmem_hdr *hdr;
	uint64_t handle = 5ull | 1ull << 32;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	assert_int_equal(hello(&h, FEAT11), FEAT11);
	memset(&a, 0, sizeof(a));
	a.va = h_va(&h, 4096);
	a.size = 4096;
	a.gpu_id = h.gpu_id ^ 0x5a5a; /* a deferred -EINVAL */
	a.flags = GTT;
	a.new_handle = handle;
	assert_int_equal(h_async(&h, VKFD_CMD_ALLOC_MEMORY_ASYNC, &a, sizeof(a)), 0);
	map_req(&m, &h, handle);
	assert_int_equal(h_async(&h, VKFD_CMD_MAP_MEMORY_ASYNC, &m, VKFD_REQ_MAP_MEMORY_LEN(1)), 0);
	hdr = h.shmem;
	assert_int_equal(__atomic_load_n(&hdr->async_error, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(
	    h_call(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), &mr, sizeof(mr)),
	    -EINVAL);
	h_close(&h);
}

/* Not granted (a 1.0 or 1.1 guest that did not ask): the command is
 * unknown, nothing is mapped, the context lives and the relay ignores the
 * word. */
static void test_not_granted(void **state)
{
	struct harness h;
	struct vkfd_shmem_hdr *gh;
	struct vkfd_req_map_memory m;
	struct vkfd_rsp_create_queue rsp;
	struct h_bo bo, ring, ctl, db;
	volatile uint64_t *real;

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	assert_int_equal(
	    hello(&h, VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC) & VKFD_FEAT_ASYNC_MAP, 0);
	gh = guest_hdr(&h);
	bo_make_unmapped(&h, &bo, 4096);
	map_req(&m, &h, bo.handle);
	assert_int_equal(h_async(&h, VKFD_CMD_MAP_MEMORY_ASYNC, &m, VKFD_REQ_MAP_MEMORY_LEN(1)), 0);
	assert_int_equal(gh->async_error, 0);
	/* still unmapped: unmapping it fails */
	assert_int_equal(h_unmap(&h, bo.handle), -EINVAL);

	bo_make(&h, &ring, 4096, GTT);
	bo_make(&h, &ctl, 4096, GTT);
	bo_make(&h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	assert_int_equal(
	    h_create_queue(&h, KFD_IOC_QUEUE_TYPE_SDMA, ring.va, ctl.va, ctl.va + 0x80, 7, &rsp),
	    0);
	real = h_real_doorbell(&h, rsp.doorbell_index);
	assert_non_null(real);
	__atomic_store_n(&gh->map_barrier, h.b.seqno + 1000u, __ATOMIC_RELEASE);
	__atomic_store_n((volatile uint64_t *)ctl.cpu, 32, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(real, 32, WAIT_MS), 32);
	assert_int_equal(h_destroy_queue(&h, rsp.queue), 0);
	munmap(gh, 4096);
	h_bo_drop(&bo);
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&db);
	h_close(&h);
}

int main(void)
{
	const struct CMUnitTest relay_tests[] = {
	    cmocka_unit_test(test_relay_barrier_words),
	};
	const struct CMUnitTest ctx_tests[] = {
	    cmocka_unit_test(test_dispatch_waits_for_async_map),
	    cmocka_unit_test(test_hostile_barrier_stalls_own_context_only),
	    cmocka_unit_test(test_failed_async_map_loses_context),
	    cmocka_unit_test(test_async_map_of_deferred_error_keeps_context),
	    cmocka_unit_test(test_not_granted),
	};
	int failed = cmocka_run_group_tests(relay_tests, NULL, NULL);

	return failed + cmocka_run_group_tests(ctx_tests, h_setup_lib, h_teardown_lib);
}
