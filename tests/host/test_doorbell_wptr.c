// SPDX-License-Identifier: MIT
/*
 * The doorbell relay forwards what the queue's write pointer says, not what
 * the guest stored into its shadow slot: first the relay alone over plain
 * memory, then a real queue through the host context (kfdsim, or the real
 * device backend over the shim), where the test reads the context's real
 * doorbell page.
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

#define GTT      (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define WAIT_MS  2000
#define AQL_SLOT 64

static void test_relay_aql_value_from_wptr(void **state)
{
	volatile uint64_t *page, real = 0, *wptr;
	struct doorbell_relay_queue q;
	struct doorbell_relay_stats st;
	struct doorbell_relay *r;
	uint64_t one = 1;

	(void)state;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	wptr = page + 7;
	assert_int_equal(doorbell_relay_start(&r, 4), 0);
	memset(&q, 0, sizeof(q));
	q.src = RELAY_SRC_WPTR_AQL;
	q.value = wptr;
	q.real_db = &real;
	/* misaligned write pointers and unknown sources are refused */
	q.value = (const volatile uint64_t *)((volatile uint8_t *)wptr + 4);
	assert_int_equal(doorbell_relay_add_queue(r, 1, &q), -EINVAL);
	q.value = wptr;
	q.src = (enum doorbell_relay_src)9;
	assert_int_equal(doorbell_relay_add_queue(r, 1, &q), -EINVAL);
	q.src = RELAY_SRC_WPTR_AQL;
	q.map = (void *)page;
	q.map_len = 4096;
	assert_int_equal(doorbell_relay_add_queue(r, 1, &q), 0);
	assert_int_equal(doorbell_relay_add_queue(r, 1, &q), -EBUSY);

	/* write_dispatch_id 5: ROCr would have rung packet index 4 */
	__atomic_store_n(wptr, 5, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real, 4, WAIT_MS), 4);
	/* a wake-up without a moved write pointer forwards nothing */
	doorbell_relay_get_stats(r, &st);
	assert_int_equal(st.copies, 1);
	__atomic_store_n(&real, 0x1234, __ATOMIC_RELEASE); /* would be overwritten */
	assert_int_equal(write(doorbell_relay_efd(r), &one, sizeof(one)), sizeof(one));
	assert_true(h_relay_settle(r, WAIT_MS));
	doorbell_relay_flush(r);
	assert_int_equal(__atomic_load_n(&real, __ATOMIC_ACQUIRE), 0x1234);
	doorbell_relay_get_stats(r, &st);
	assert_int_equal(st.copies, 1);
	assert_true(st.efd_wakeups >= 1);
	/* the next reservation is forwarded at once on an eventfd wake-up */
	__atomic_store_n(wptr, 6, __ATOMIC_RELEASE);
	assert_int_equal(write(doorbell_relay_efd(r), &one, sizeof(one)), sizeof(one));
	assert_int_equal(h_wait_u64(&real, 5, WAIT_MS), 5);

	/* removing the slot unmaps the page the relay owned */
	doorbell_relay_remove(r, 1);
	assert_int_equal(msync((void *)page, 4096, MS_ASYNC), -1);
	assert_int_equal(errno, ENOMEM);
	doorbell_relay_stop(r);
}

/* Wait until a relay whose polling is off has made the passes it was
 * kicked for (none for 10 ms). Best effort: a pass that comes later still
 * finds the write pointer moved, which only makes the test pass by luck. */
static void relay_quiesce(struct doorbell_relay *r)
{
	struct doorbell_relay_stats a, b;

	doorbell_relay_get_stats(r, &a);
	for (int i = 0; i < 200; i++) {
		usleep(10000);
		doorbell_relay_get_stats(r, &b);
		if (b.scans == a.scans)
			return;
		a = b;
	}
}

/* The polling policy: fastest after a move, then doubling, capped inside
 * the hot window; no timed poll at all when polling is off. */
static void test_relay_poll_policy(void **state)
{
	const struct doorbell_relay_poll p = {20, 1000, 2000, 80}, off = {20, 0, 0, 0};
	int i = 0, steps = 0;

	(void)state;
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 0, false, false), 20);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 640, true, true), 20);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 1000, true, false), 20);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 20, false, false), 40);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 640, false, false), 1000);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 1000, false, false), 1000);
	/* hot: the back-off stops at hot_max_us, also from a cold interval */
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 20, false, true), 40);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 40, false, true), 80);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 80, false, true), 80);
	assert_int_equal(doorbell_relay_next_sleep_us(&p, 1000, false, true), 80);
	while (i < 1000 && steps < 20) {
		int next = doorbell_relay_next_sleep_us(&p, i, false, false);

		assert_true(next > i && next <= 1000);
		i = next;
		steps++;
	}
	assert_int_equal(i, 1000);
	assert_int_equal(doorbell_relay_next_sleep_us(&off, 20, true, true), -1);
	assert_int_equal(doorbell_relay_next_sleep_us(&off, 0, false, false), -1);
}

/* A relay with the polling policy p over one SDMA-style queue in slot 0:
 * its write pointer is the first word of a fresh page the relay owns. */
static struct doorbell_relay *raw_relay(const struct doorbell_relay_poll *p,
					volatile uint64_t **page, volatile uint64_t *real)
{
	struct doorbell_relay_queue q;
	struct doorbell_relay *r;

	*page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(*page != MAP_FAILED);
	assert_int_equal(doorbell_relay_start(&r, 2), 0);
	doorbell_relay_set_poll(r, p);
	memset(&q, 0, sizeof(q));
	q.src = RELAY_SRC_WPTR_RAW;
	q.value = *page;
	q.real_db = real;
	q.map = (void *)*page;
	q.map_len = 4096;
	assert_int_equal(doorbell_relay_add_queue(r, 0, &q), 0);
	return r;
}

/* A poke forwards a moved write pointer on the caller's thread, before it
 * returns: with polling off nothing else would. */
static void test_relay_poke_forwards_now(void **state)
{
	const struct doorbell_relay_poll off = {20, 0, 0, 0};
	volatile uint64_t *page, real = 0;
	struct doorbell_relay_stats st;
	struct doorbell_relay *r;

	(void)state;
	r = raw_relay(&off, &page, &real);
	relay_quiesce(r); /* the add's own pass is over */
	__atomic_store_n(page, 64, __ATOMIC_RELEASE);
	doorbell_relay_poke(r);
	doorbell_relay_get_stats(r, &st); /* the relay's lock orders real */
	assert_int_equal(st.copies, 1);
	assert_int_equal(__atomic_load_n(&real, __ATOMIC_ACQUIRE), 64);
	assert_false(st.hot);   /* hot_us 0: there is no hot window */
	doorbell_relay_poke(r); /* nothing moved: nothing forwarded */
	doorbell_relay_get_stats(r, &st);
	assert_int_equal(st.copies, 1);
	doorbell_relay_stop(r);
}

/* A poke wakes a relay that backed off and keeps it at its fastest poll
 * for the hot window, although nothing moved. */
static void test_relay_poke_heats(void **state)
{
	const struct doorbell_relay_poll slow = {20, 10 * 1000 * 1000, 60 * 1000 * 1000, 80};
	volatile uint64_t *page, real = 0;
	struct doorbell_relay_stats st;
	struct doorbell_relay *r;

	(void)state;
	r = raw_relay(&slow, &page, &real);
	doorbell_relay_get_stats(r, &st);
	assert_false(st.hot); /* nothing moved yet */
	doorbell_relay_poke(r);
	for (int i = 0; i < WAIT_MS && !st.hot; i++) {
		usleep(1000);
		doorbell_relay_get_stats(r, &st);
	}
	assert_true(st.hot);
	/* hot: a store is forwarded by the relay's own polls */
	__atomic_store_n(page, 96, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real, 96, WAIT_MS), 96);
	doorbell_relay_stop(r);
}

struct ring_log {
	volatile uint64_t *real_db; /* the one the relay was given */
	uint64_t rings, last;       /* under the relay's lock */
	bool wrong_db;
};

static void log_ring(void *arg, volatile uint64_t *real_db, uint64_t value)
{
	struct ring_log *l = arg;

	l->wrong_db |= real_db != l->real_db;
	l->rings++;
	l->last = value;
	__atomic_store_n(real_db, value, __ATOMIC_RELEASE);
}

/* A queue with a ring function (the host's: the device seam) is rung
 * through it, once per moved value, with the value ROCr would store. */
static void test_relay_rings_through_device(void **state)
{
	volatile uint64_t *page, real = 0, *wptr;
	struct ring_log log = {.real_db = &real};
	struct doorbell_relay_queue q;
	struct doorbell_relay_stats st;
	struct doorbell_relay *r;

	(void)state;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	wptr = page + 3;
	assert_int_equal(doorbell_relay_start(&r, 2), 0);
	memset(&q, 0, sizeof(q));
	q.src = RELAY_SRC_WPTR_AQL;
	q.value = wptr;
	q.real_db = &real;
	q.ring = log_ring;
	q.ring_arg = &log;
	q.map = (void *)page;
	q.map_len = 4096;
	assert_int_equal(doorbell_relay_add_queue(r, 0, &q), 0);
	__atomic_store_n(wptr, 2, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real, 1, WAIT_MS), 1);
	__atomic_store_n(wptr, 7, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real, 6, WAIT_MS), 6);
	assert_true(h_relay_settle(r, WAIT_MS));
	doorbell_relay_get_stats(r, &st);
	doorbell_relay_remove(r, 0);
	doorbell_relay_stop(r);
	/* the relay thread joined: its writes to the log are visible */
	assert_false(log.wrong_db);
	assert_int_equal(log.last, 6);
	assert_int_equal(log.rings, st.copies);
	assert_int_equal(log.rings, 2);
}

static void test_relay_raw_wptr_and_shadow(void **state)
{
	volatile uint64_t wp = 0x100, shadow = 0, real[2] = {0, 0};
	struct doorbell_relay_queue q;
	struct doorbell_relay *r;

	(void)state;
	assert_int_equal(doorbell_relay_start(&r, 4), 0);
	memset(&q, 0, sizeof(q));
	q.src = RELAY_SRC_WPTR_RAW; /* SDMA: the byte offset itself */
	q.value = &wp;
	q.real_db = &real[0];
	assert_int_equal(doorbell_relay_add_queue(r, 0, &q), 0);
	/* the value present when the queue is added is not a ring */
	doorbell_relay_flush(r);
	assert_int_equal(real[0], 0);
	__atomic_store_n(&wp, 0x1a0, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real[0], 0x1a0, WAIT_MS), 0x1a0);
	/* fallback: a queue without a mappable write pointer relays its slot */
	assert_int_equal(doorbell_relay_add(r, 3, &shadow, &real[1]), 0);
	__atomic_store_n(&shadow, 0x77, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(&real[1], 0x77, WAIT_MS), 0x77);
	assert_int_equal(real[0], 0x1a0);
	doorbell_relay_stop(r); /* with slots still active */
}

/* --- through the host context --- */

/* A BO as the guest makes it; only the shadow doorbell page is marked as
 * one. */
static void bo_make(struct harness *h, struct h_bo *b, uint64_t size, uint32_t flags)
{
	assert_int_equal(h_bo_make(h, b, size, flags), 0);
	assert_int_equal(b->blob_info,
			 (flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) ? VKFD_BLOB_INFO_DOORBELL : 0);
}

static void notify(struct harness *h, uint64_t queue)
{
	struct vkfd_req_handle n;

	memset(&n, 0, sizeof(n));
	n.handle = queue;
	assert_int_equal(h_async(h, VKFD_CMD_DOORBELL_NOTIFY, &n, sizeof(n)), 0);
}

static void test_context_aql_queue(void **state)
{
	struct harness *h = *state;
	struct vkfd_rsp_create_queue rsp;
	struct h_bo ring, ctl, db;
	volatile uint64_t *wptr, *shadow, *real;
	struct doorbell_relay_stats st0, st1;

	bo_make(h, &ring, 4096, GTT);
	bo_make(h, &ctl, 4096, GTT);
	bo_make(h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	/* every packet INVALID: the engine waits, nothing is dispatched */
	for (unsigned i = 0; i < 4096 / AQL_SLOT; i++)
		*(uint16_t *)((uint8_t *)ring.cpu + i * AQL_SLOT) = 1;
	assert_int_equal(h_create_queue(h, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, ring.va, ctl.va,
					ctl.va + 0x80, 7, &rsp),
			 0);
	assert_true(rsp.doorbell_index < VKFD_KFD_DOORBELL_SLICE_SLOTS);
	wptr = (volatile uint64_t *)ctl.cpu;
	shadow = (volatile uint64_t *)db.cpu + rsp.doorbell_index;
	real = h_real_doorbell(h, rsp.doorbell_index);
	assert_non_null(real);

	/* the guest moves write_dispatch_id and stores nothing into the
	 * shadow page (a VMM dropped the store): the relay still rings */
	__atomic_store_n(wptr, 3, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(real, 2, WAIT_MS), 2);

	/* a shadow store alone, even with a notify, forwards nothing */
	doorbell_relay_get_stats(h->ctx->relay, &st0);
	__atomic_store_n(shadow, 0xdead, __ATOMIC_RELEASE);
	notify(h, rsp.queue);
	usleep(5000);
	notify(h, rsp.queue);
	doorbell_relay_get_stats(h->ctx->relay, &st1);
	assert_int_equal(__atomic_load_n(real, __ATOMIC_ACQUIRE), 2);
	assert_int_equal(st1.copies, st0.copies);
	assert_true(st1.scans > st0.scans);

	/* and the write pointer is what counts when both move */
	__atomic_store_n(wptr, 9, __ATOMIC_RELEASE);
	__atomic_store_n(shadow, 4, __ATOMIC_RELEASE);
	notify(h, rsp.queue);
	assert_int_equal(h_wait_u64(real, 8, WAIT_MS), 8);

	assert_int_equal(h_destroy_queue(h, rsp.queue), 0);
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&db);
}

static void test_context_sdma_queue(void **state)
{
	struct harness *h = *state;
	struct vkfd_rsp_create_queue rsp;
	struct h_bo ring, ctl, db;
	volatile uint64_t *wptr, *real;

	bo_make(h, &ring, 4096, GTT);
	bo_make(h, &ctl, 4096, GTT);
	bo_make(h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	assert_int_equal(
	    h_create_queue(h, KFD_IOC_QUEUE_TYPE_SDMA, ring.va, ctl.va, ctl.va + 0x80, 7, &rsp), 0);
	wptr = (volatile uint64_t *)ctl.cpu;
	real = h_real_doorbell(h, rsp.doorbell_index);
	assert_non_null(real);
	/* SDMA rings with the write pointer in bytes; a NOP-free advance of
	 * 0 bytes is no ring, and the ring is all zeros (NOPs) */
	__atomic_store_n(wptr, 32, __ATOMIC_RELEASE);
	assert_int_equal(h_wait_u64(real, 32, WAIT_MS), 32);
	assert_int_equal(h_destroy_queue(h, rsp.queue), 0);
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&db);
}

/* The guest frees the BO holding the write pointer while the queue lives
 * (where the kernel allows it): the relay keeps reading its own mapping. */
static void test_context_wptr_bo_freed(void **state)
{
	struct harness *h = *state;
	struct vkfd_rsp_create_queue rsp;
	struct h_bo ring, ctl, db;
	volatile uint64_t *real;
	int ret;

	bo_make(h, &ring, 4096, GTT);
	bo_make(h, &ctl, 4096, GTT);
	bo_make(h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	for (unsigned i = 0; i < 4096 / AQL_SLOT; i++)
		*(uint16_t *)((uint8_t *)ring.cpu + i * AQL_SLOT) = 1;
	assert_int_equal(h_create_queue(h, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, ring.va, ctl.va,
					ctl.va + 0x80, 7, &rsp),
			 0);
	real = h_real_doorbell(h, rsp.doorbell_index);
	assert_non_null(real);
	/* 6.12 (and kfdsim) refuse to unmap a BO a queue uses; older kernels
	 * let it go: either way nothing below may fault */
	ret = h_unmap(h, ctl.handle);
	if (!ret)
		h_free(h, ctl.handle);
	else
		assert_int_equal(ret, -EBUSY);
	__atomic_store_n((volatile uint64_t *)ctl.cpu, 2, __ATOMIC_RELEASE);
	notify(h, rsp.queue);
	assert_int_equal(h_wait_u64(real, 1, WAIT_MS), 1);
	assert_int_equal(h_destroy_queue(h, rsp.queue), 0);
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&db);
}

/* A guest's WAIT_EVENTS forwards its queues' moved write pointers before
 * it waits (the relay may have backed off): with the relay's polling off,
 * the doorbell has been rung when the wait's answer is there. */
static void test_context_wait_forwards_doorbell(void **state)
{
	const struct doorbell_relay_poll off = {RELAY_POLL_MIN_US, 0, 0, 0};
	const struct doorbell_relay_poll dflt = {RELAY_POLL_MIN_US, RELAY_POLL_MAX_US,
						 RELAY_POLL_HOT_US, RELAY_POLL_HOT_MAX_US};
	struct harness *h = *state;
	struct vkfd_rsp_create_queue rsp;
	struct h_bo ring, ctl, db;
	uint64_t page;
	uint32_t ev, seq, off_rsp;

	doorbell_relay_set_poll(h->ctx->relay, &off);
	bo_make(h, &ring, 4096, GTT);
	bo_make(h, &ctl, 4096, GTT);
	bo_make(h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
	page = h_gtt(h, 4096 * 8, NULL);
	assert_true(page != 0);
	assert_int_equal(h_create_event(h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	assert_int_equal(
	    h_create_queue(h, KFD_IOC_QUEUE_TYPE_SDMA, ring.va, ctl.va, ctl.va + 0x80, 7, &rsp), 0);
	assert_non_null(h_real_doorbell(h, rsp.doorbell_index));
	relay_quiesce(h->ctx->relay); /* the add's own pass is over */
	/* 64: a value no earlier test of this context rang */
	__atomic_store_n((volatile uint64_t *)ctl.cpu, 64, __ATOMIC_RELEASE);
	seq = h_add_wait_event(h, 1, ev, 0, &off_rsp);
	assert_true(seq != 0);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(h_wait_slot(h, off_rsp, seq, WAIT_MS), 0);
	/* h_real_doorbell takes the relay's lock: ordered after the ring */
	assert_int_equal(__atomic_load_n(h_real_doorbell(h, rsp.doorbell_index), __ATOMIC_ACQUIRE),
			 64);
	doorbell_relay_set_poll(h->ctx->relay, &dflt);
	assert_int_equal(h_destroy_queue(h, rsp.queue), 0);
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_relay_aql_value_from_wptr),
	    cmocka_unit_test(test_relay_raw_wptr_and_shadow),
	    cmocka_unit_test(test_relay_rings_through_device),
	    cmocka_unit_test(test_relay_poll_policy),
	    cmocka_unit_test(test_relay_poke_forwards_now),
	    cmocka_unit_test(test_relay_poke_heats),
	};
	const struct CMUnitTest ctx_tests[] = {
	    cmocka_unit_test(test_context_aql_queue),
	    cmocka_unit_test(test_context_sdma_queue),
	    cmocka_unit_test(test_context_wptr_bo_freed),
	    cmocka_unit_test(test_context_wait_forwards_doorbell),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return failed + cmocka_run_group_tests(ctx_tests, h_setup_lib_ctx, h_teardown_lib_ctx);
}
