// SPDX-License-Identifier: MIT
/*
 * The wait-ring contract: one pending wait per ring, and a ring (with its
 * wait thread) is free once its fence retired. A guest resubmitting on a
 * ring the moment its fence retires must never be refused with -EBUSY.
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfd_uapi_ext.h"
#include "wait_pool.h"

#define GTT        (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define PAGE_BYTES (4096 * 8)
#define ROUNDS     400

/* What the retire callback saw: written by library threads (ASYNC mode). */
static struct {
	pthread_mutex_t lock;
	struct vkfd_host_context *ctx; /* context under test */
	uint32_t ring;                 /* ring whose fences are checked */
	uint64_t last_id;              /* highest fence retired on ring */
	uint32_t busy_at_retire_max;   /* wait-pool jobs still counted then */
	uint32_t active_at_retire;     /* retirements that saw the ring held */
} seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void on_retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	struct vkfd_host_context *ctx;
	uint32_t busy = 0, watched;
	bool held = false;

	(void)cookie;
	(void)ctx_id;
	pthread_mutex_lock(&seen.lock);
	ctx = seen.ctx;
	watched = seen.ring;
	pthread_mutex_unlock(&seen.lock);
	if (ctx && ring == watched) {
		busy = wait_pool_busy(ctx->waits);
		pthread_mutex_lock(&ctx->lock);
		held = ctx->rings[ring].active_k != 0;
		pthread_mutex_unlock(&ctx->lock);
	}
	pthread_mutex_lock(&seen.lock);
	if (ring == seen.ring) {
		if (fence_id > seen.last_id)
			seen.last_id = fence_id;
		if (busy > seen.busy_at_retire_max)
			seen.busy_at_retire_max = busy;
		if (held)
			seen.active_at_retire++;
	}
	pthread_mutex_unlock(&seen.lock);
}

static int lib_init(uint32_t max_waits)
{
	struct vkfd_host_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.flags = VKFD_HOST_FLAG_ASYNC_FENCES; /* retire on the wait thread */
	cfg.device = VKFD_DEVICE_SIM;
	cfg.retire_fence = on_retire;
	cfg.quota.max_pending_waits = max_waits;
	return vkfd_host_init(&cfg);
}

static void watch(struct vkfd_host_context *ctx, uint32_t ring)
{
	pthread_mutex_lock(&seen.lock);
	seen.ctx = ctx;
	seen.ring = ring;
	seen.last_id = 0;
	seen.busy_at_retire_max = 0;
	seen.active_at_retire = 0;
	pthread_mutex_unlock(&seen.lock);
}

static bool retired(uint64_t id)
{
	bool r;

	pthread_mutex_lock(&seen.lock);
	r = seen.last_id >= id;
	pthread_mutex_unlock(&seen.lock);
	return r;
}

/* Spin (no sleep: resubmit as early as a guest could) until id retired. */
static bool spin_retired(uint64_t id)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (retired(id))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return false;
		sched_yield();
	}
}

/*
 * Resubmit a zero-timeout wait on `ring` right after each fence retires,
 * ROUNDS times; every one must be accepted and answered TIMEOUT.
 */
static void resubmit_rounds(struct harness *h, uint32_t ring, uint32_t ev, uint64_t fence0)
{
	for (uint32_t i = 0; i < ROUNDS; i++) {
		struct vkfd_rsp_wait_events *rsp;
		uint32_t off, seq;

		seq = h_add_wait_event(h, ring, ev, 0, &off);
		assert_true(seq != 0);
		assert_int_equal(h_flush(h), 0);
		assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, ring, fence0 + i), 0);
		assert_true(spin_retired(fence0 + i));
		/* the answer is written before the fence retires */
		rsp = h_rsp(h, off);
		assert_int_equal(vkfd_load_acquire_u32(&rsp->hdr.seqno), seq);
		assert_int_not_equal(rsp->hdr.ret, -EBUSY);
		assert_int_equal(rsp->hdr.ret, 0);
		assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	}
}

/* A pool of one wait thread: the one slot must be free at every retire. */
static void test_slot_free_when_fence_retires(void **state)
{
	struct harness h;
	uint64_t page;
	uint32_t ev;

	(void)state;
	assert_int_equal(lib_init(1), 0);
	assert_int_equal(h_open(&h, 1), 0);
	page = h_gtt(&h, PAGE_BYTES, NULL);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	watch(h.ctx, 1);
	resubmit_rounds(&h, 1, ev, 1);
	pthread_mutex_lock(&seen.lock);
	assert_int_equal(seen.busy_at_retire_max, 0);
	assert_int_equal(seen.active_at_retire, 0);
	seen.ctx = NULL;
	pthread_mutex_unlock(&seen.lock);
	h_close(&h);
	vkfd_host_fini();
}

/* 62 rings hold infinite waits; ring 1 is reused at once, many times. */
static void test_resubmit_with_62_waits_pending(void **state)
{
	struct harness h;
	uint64_t page;
	uint32_t ev, never;

	(void)state;
	assert_int_equal(lib_init(0), 0); /* default: 63 wait threads */
	assert_int_equal(h_open(&h, 2), 0);
	page = h_gtt(&h, PAGE_BYTES, NULL);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &never), 0);
	watch(NULL, 1);
	for (uint32_t r = 2; r < VKFD_NUM_RINGS; r++) {
		h_add_wait_event(&h, r, never, 0xffffffff, NULL);
		assert_int_equal(h_flush(&h), 0);
	}
	/* let the executor hand all 62 to the pool */
	for (int i = 0; i < 5000 && wait_pool_busy(h.ctx->waits) < VKFD_NUM_RINGS - 2; i++)
		usleep(1000);
	assert_int_equal(wait_pool_busy(h.ctx->waits), VKFD_NUM_RINGS - 2);
	resubmit_rounds(&h, 1, ev, 1);
	h_close(&h); /* cancels the 62 blocked waits */
	vkfd_host_fini();
}

/* The pool itself: a job submitted from done() finds the slot released. */
static void noop_job(void *arg)
{
	(void)arg;
}

static struct wait_pool *chain_pool;
static int chain_results[8];
static int chain_n;

static void chain_done(void *arg)
{
	(void)arg;
	int i = __atomic_load_n(&chain_n, __ATOMIC_SEQ_CST);

	if (i < 8) {
		__atomic_store_n(&chain_n, i + 1, __ATOMIC_SEQ_CST);

		chain_results[i] = wait_pool_submit_done(chain_pool, noop_job, chain_done, NULL);
	}
}

static void test_pool_done_after_release(void **state)
{
	(void)state;
	chain_n = 0;
	memset(chain_results, 0x7f, sizeof(chain_results));
	assert_int_equal(wait_pool_create(&chain_pool, 1), 0);
	assert_int_equal(wait_pool_submit_done(chain_pool, noop_job, chain_done, NULL), 0);
	for (int i = 0; i < 5000 && __atomic_load_n(&chain_n, __ATOMIC_SEQ_CST) < 8; i++)
		usleep(1000);
	wait_pool_destroy(chain_pool);
	assert_int_equal(chain_n, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(chain_results[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pool_done_after_release),
	    cmocka_unit_test(test_slot_free_when_fence_retires),
	    cmocka_unit_test(test_resubmit_with_62_waits_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
