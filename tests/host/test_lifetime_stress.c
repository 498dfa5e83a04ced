// SPDX-License-Identifier: MIT
/*
 * Host context lifetime under concurrency: contexts destroyed at random
 * moments while their executor runs batches, wait threads return from
 * short WAIT_EVENTS timeouts, SET_EVENT wakes them, queues (with their
 * kfdsim engine threads) are created, updated and destroyed, and fences
 * are pending on several rings. The sanitizer builds check that no thread
 * touches the context after or during its destruction (the TSan finding
 * of #12 item 9: `stopping` written plainly while wait threads read it);
 * the assertions check that no fence retires twice (those pending at
 * destroy are dropped) and that
 * each destroy returns every fd and every byte of kfdsim memory.
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"

/* The harness records at most 4096 retirements: 900 lives x 4 fences. */
#define ITER_MAX         900
#define FENCES_PER_LIFE  4
#define STRESS_BUDGET_NS 3000000000ull /* bounds the loop, never asserted */
#define CTX_ID_BASE      1000

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* None, a yield, or up to 300 us: destroy lands anywhere in the work. */
static void rnd_pause(void)
{
	uint64_t r = rnd() % 6;
	struct timespec ts = {0, (long)(rnd() % 300000)};

	if (r < 2)
		return;
	if (r < 4)
		sched_yield();
	else
		nanosleep(&ts, NULL);
}

static void add_set_event(struct harness *h, uint32_t ev)
{
	struct vkfd_req_event r;

	memset(&r, 0, sizeof(r));
	r.event_id = ev;
	h_add(h, VKFD_CMD_SET_EVENT_ASYNC, &r, sizeof(r), NULL);
}

static void add_update_queue(struct harness *h, uint64_t queue, uint64_t ring, bool on)
{
	struct vkfd_req_update_queue u;

	memset(&u, 0, sizeof(u));
	u.queue = queue;
	u.ring_base_address = ring;
	u.ring_size = 4096;
	u.queue_percentage = on ? 100 : 0;
	h_add(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL);
}

static void add_destroy_queue(struct harness *h, uint64_t queue)
{
	struct vkfd_req_handle d;

	memset(&d, 0, sizeof(d));
	d.handle = queue;
	h_add(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL);
}

/* An AQL queue with its kfdsim engine thread; 0 if kfdsim refused it. */
static uint64_t make_queue(struct harness *h, uint64_t *ring_out)
{
	struct vkfd_rsp_create_queue rsp;
	uint64_t ring, ctl, db;

	h_gtt(h, 4096, &ring);
	h_gtt(h, 4096, &ctl);
	assert_int_equal(
	    h_alloc(h, h_va(h, 8192), 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, &db, NULL), 0);
	assert_int_equal(
	    h_create_queue(h, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, ring, ctl, ctl + 8, 0, &rsp), 0);
	*ring_out = ring;
	return rsp.queue;
}

/* One context's life, destroyed at a random point of its work. Returns
 * the number of fences it submitted (ids 1..n on rings 1..n). */
static void one_life(uint32_t ctx_id)
{
	struct harness h;
	uint64_t page, queue = 0, ring = 0;
	unsigned fences = 1 + (unsigned)(rnd() % FENCES_PER_LIFE);
	uint32_t ev;

	assert_int_equal(h_open(&h, ctx_id), 0);
	page = h_gtt(&h, 4096 * 8, NULL);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	if (rnd() % 2)
		queue = make_queue(&h, &ring);
	for (unsigned f = 1; f <= fences; f++) {
		/* ring f: a wait that times out soon, is woken, or outlives
		 * the context; its fence is the ring's retirement */
		uint64_t kind = rnd() % 3;

		h_add_wait_event(&h, f, ev,
				 kind == 0   ? 0
				 : kind == 1 ? 1 + (uint32_t)(rnd() % 3)
					     : 60000,
				 NULL);
		if (rnd() % 2)
			add_set_event(&h, ev);
		if (queue && rnd() % 2)
			add_update_queue(&h, queue, ring, rnd() % 2);
		assert_int_equal(h_flush(&h), 0);
		assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, f, f), 0);
		rnd_pause();
		if (rnd() % 3 == 0)
			vkfd_host_context_retire_fences(h.ctx);
	}
	if (queue && rnd() % 2) {
		add_destroy_queue(&h, queue);
		assert_int_equal(h_flush(&h), 0);
	}
	/* ring 0 fences too: everything queued before them must run */
	assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, 0, 1), 0);
	rnd_pause();
	h_close(&h);
	/* no fence retired twice; those still pending when destroy began
	 * were dropped, never retired into the VMM (include/vkfd/host.h) */
	for (unsigned f = 1; f <= fences; f++)
		assert_true(h_fence_count(ctx_id, f, f) <= 1);
	assert_true(h_fence_count(ctx_id, 0, 1) <= 1);
}

static void test_destroy_at_random_moments(void **state)
{
	uint64_t base_bytes = kfdsim_bytes_allocated(host_g.sim);
	int base_fds = h_fd_count();
	uint64_t t0 = now_ns();
	unsigned iter;

	(void)state;
	rnd_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
	printf("# seed %llu\n", (unsigned long long)rnd_state);
	for (iter = 0; iter < ITER_MAX && now_ns() - t0 < STRESS_BUDGET_NS; iter++) {
		one_life(CTX_ID_BASE + iter);
		/* counts return to where they were */
		assert_int_equal(kfdsim_bytes_allocated(host_g.sim), base_bytes);
		assert_int_equal(h_fd_count(), base_fds);
	}
	printf("# %u context lives\n", iter);
	assert_true(iter > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_destroy_at_random_moments),
	};

	return cmocka_run_group_tests(tests, h_setup_lib, h_teardown_lib);
}
