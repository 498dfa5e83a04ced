// SPDX-License-Identifier: MIT
/* Events, waits on rings 1..63, fences, event-state hints, cancellation. */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfd_uapi_ext.h"
#include "kfdsim_test_hooks.h"

#define GTT        (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define PAGE_BYTES (4096 * 8)

struct ev_state {
	struct harness h;
	uint64_t page;
	uint32_t ev;  /* auto-reset signal event */
	uint32_t ev2; /* manual-reset signal event */
};

static int setup(void **state)
{
	static struct ev_state s;

	if (h_lib_init(0, NULL) || h_open(&s.h, 1))
		return -1;
	s.page = h_gtt(&s.h, PAGE_BYTES, NULL);
	if (!s.page)
		return -1;
	*state = &s;
	return 0;
}

static int teardown(void **state)
{
	struct ev_state *s = *state;

	h_close(&s->h);
	h_lib_fini();
	return 0;
}

/* Retire fences (POLL mode) until (ring, id) retired or ~2 s. */
static bool retire_until(struct harness *h, uint32_t ring, uint64_t id, int ms)
{
	for (int i = 0; i < ms; i++) {
		vkfd_host_context_retire_fences(h->ctx);
		if (h_fence_retired(h->ctx_id, ring, id))
			return true;
		usleep(1000);
	}
	return false;
}

static uint64_t wait_age = 1;

static uint32_t add_wait(struct harness *h, uint32_t ring, const uint32_t *ids, uint32_t n,
			 uint32_t timeout, uint32_t *rsp_off)
{
	struct vkfd_req_wait_events r;

	memset(&r, 0, sizeof(r));
	r.ring_idx = ring;
	r.num_events = n;
	r.timeout_ms = timeout;
	for (uint32_t i = 0; i < n; i++) {
		r.events[i].event_id = ids[i];
		/* a non-zero age asks KFD (>= 1.14) to report the event's age;
		 * events start at age 1 */
		r.events[i].last_event_age = wait_age;
	}
	return h_add(h, VKFD_CMD_WAIT_EVENTS, &r, VKFD_REQ_WAIT_EVENTS_LEN(n), rsp_off);
}

static void set_event(struct harness *h, uint32_t id)
{
	struct vkfd_req_event r;

	memset(&r, 0, sizeof(r));
	r.event_id = id;
	assert_int_equal(h_call(h, VKFD_CMD_SET_EVENT, &r, sizeof(r), NULL, 0), 0);
}

static void test_create_event_page_rules(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	uint64_t small, other, aql;
	uint32_t id;

	/* the first signal event must carry the guest's page */
	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_SIGNAL, 1, &id), -EINVAL);
	small = h_gtt(h, 4096, NULL);
	assert_int_equal(h_create_event(h, small, KFD_IOC_EVENT_SIGNAL, 1, &id), -EINVAL);
	/* an AQL_QUEUE_MEM BO spanning a page's worth of VA is half a page of
	 * memory: the kernel would write past it */
	aql = h_va(h, PAGE_BYTES);
	assert_int_equal(
	    h_alloc(h, aql, PAGE_BYTES, GTT | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, &small, NULL),
	    0);
	assert_int_equal(h_create_event(h, small, KFD_IOC_EVENT_SIGNAL, 1, &id), -EINVAL);
	assert_int_equal(h_create_event(h, s->page, 9, 1, &id), -EINVAL);
	assert_int_equal(h_create_event(h, s->page, KFD_IOC_EVENT_SIGNAL, 2, &id), -EINVAL);
	assert_int_equal(h_create_event(h, s->page, KFD_IOC_EVENT_SIGNAL, 1, &s->ev), 0);
	/* signal ids are slots (KFD allocates from slot 0) */
	assert_true(s->ev < 4096);
	/* later: 0 or the same page; never another page */
	other = h_gtt(h, PAGE_BYTES, NULL);
	assert_int_equal(h_create_event(h, other, KFD_IOC_EVENT_SIGNAL, 1, &id), -EINVAL);
	assert_int_equal(h_create_event(h, s->page, KFD_IOC_EVENT_SIGNAL, 0, &s->ev2), 0);
	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_MEMORY, 0, &id), 0);
	assert_true(id >= VKFD_EVENT_ID_NONSIGNAL_BASE);
	/* the event page cannot be freed */
	h_free(h, s->page);
	assert_int_equal(h_create_event(h, s->page, KFD_IOC_EVENT_SIGNAL, 1, &id), 0);
}

static void test_poll_and_signal(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	struct vkfd_rsp_wait_events *rsp;
	struct vkfd_event_state *table = vkfd_shmem_events(h->shmem);
	uint32_t off, seq;
	uint64_t age;

	/* zero timeout on an unsignalled event: TIMEOUT, fence on ring 1 */
	seq = add_wait(h, 1, &s->ev, 1, 0, &off);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 1, 501), 0);
	assert_true(retire_until(h, 1, 501, 2000));
	rsp = h_rsp(h, off);
	assert_int_equal(rsp->hdr.seqno, seq);
	assert_int_equal(rsp->hdr.ret, 0);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	assert_int_equal(rsp->num_events, 1);
	assert_int_equal(rsp->events[0].event_id, s->ev);

	set_event(h, s->ev);
	seq = add_wait(h, 1, &s->ev, 1, 1000, &off);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 1, 502), 0);
	assert_true(retire_until(h, 1, 502, 2000));
	rsp = h_rsp(h, off);
	assert_int_equal(rsp->hdr.seqno, seq);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	age = rsp->events[0].event_age;
	assert_true(age > 1);
	/* the host published what it saw; the first event is id 0, whose
	 * entry is used like any other */
	assert_int_equal(s->ev, 0);
	assert_int_equal(vkfd_load_acquire_u64(&table[s->ev].age), age);
	assert_true(((struct vkfd_shmem_hdr *)h->shmem)->flags & VKFD_SHMEM_FLAG_EVENT_HINTS);
	/* auto-reset consumed the signal; the guest now knows age `age` */
	wait_age = age;
	add_wait(h, 1, &s->ev, 1, 0, &off);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 1, 503), 0);
	assert_true(retire_until(h, 1, 503, 2000));
	assert_int_equal(((struct vkfd_rsp_wait_events *)h_rsp(h, off))->wait_result,
			 KFD_IOC_WAIT_RESULT_TIMEOUT);
	/* SET_EVENT advances the hint */
	set_event(h, s->ev);
	assert_true(vkfd_load_acquire_u64(&table[s->ev].age) > age);
	wait_age = 1;
	/* each fence retired exactly once */
	vkfd_host_context_retire_fences(h->ctx);
	assert_int_equal(h_fence_count(h->ctx_id, 1, 501), 1);
	assert_int_equal(h_fence_count(h->ctx_id, 1, 502), 1);
}

static void test_bad_waits(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	struct vkfd_req_wait_events r;
	struct vkfd_rsp_wait_events rsp;

	memset(&r, 0, sizeof(r));
	r.num_events = 1;
	r.events[0].event_id = s->ev;
	r.ring_idx = 0;
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, sizeof(r), &rsp, 24), -EINVAL);
	r.ring_idx = 64;
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, sizeof(r), &rsp, 24), -EINVAL);
	r.ring_idx = 3;
	r.events[0].event_id = 4000; /* not this context's */
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, sizeof(r), &rsp, 24), -EINVAL);
	r.events[0].event_id = s->ev;
	r.num_events = 0;
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, sizeof(r), &rsp, 24), -EINVAL);
	r.num_events = 65;
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, sizeof(r), &rsp, 24), -EINVAL);
	r.num_events = 2; /* more events than len carries */
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, VKFD_REQ_WAIT_EVENTS_LEN(1), &rsp, 24),
			 -EINVAL);
	r.num_events = 1;
	r.wait_for_all = 2;
	assert_int_equal(h_call(h, VKFD_CMD_WAIT_EVENTS, &r, sizeof(r), &rsp, 24), -EINVAL);
	/* rejected waits still retire their ring's fence */
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 3, 601), 0);
	assert_true(retire_until(h, 3, 601, 2000));
}

static void test_busy_ring_and_order(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	uint32_t off1, off2, seq1, seq2;

	/* an infinite wait occupies ring 2 */
	seq1 = add_wait(h, 2, &s->ev2, 1, 0xffffffff, &off1);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 2, 701), 0);
	seq2 = add_wait(h, 2, &s->ev2, 1, 0, &off2);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 2, 702), 0);
	assert_int_equal(h_wait_slot(h, off2, seq2, 2000), 0);
	assert_int_equal(((struct vkfd_rsp_hdr *)h_rsp(h, off2))->ret, -EBUSY);
	/* neither fence may retire while the first wait is pending */
	usleep(50000);
	vkfd_host_context_retire_fences(h->ctx);
	assert_false(h_fence_retired(h->ctx_id, 2, 701));
	assert_false(h_fence_retired(h->ctx_id, 2, 702));
	/* other rings and ring 0 keep going */
	{
		struct vkfd_req_get_version gv;

		memset(&gv, 0, sizeof(gv));
		assert_int_equal(h_call(h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL, 0), 0);
		assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 0, 703), 0);
		assert_true(retire_until(h, 0, 703, 2000));
	}
	set_event(h, s->ev2);
	assert_true(retire_until(h, 2, 702, 2000));
	assert_true(h_fence_retired(h->ctx_id, 2, 701));
	assert_int_equal(h_wait_slot(h, off1, seq1, 100), 0);
	assert_int_equal(((struct vkfd_rsp_wait_events *)h_rsp(h, off1))->wait_result,
			 KFD_IOC_WAIT_RESULT_COMPLETE);
	/* manual reset: stays signalled until reset */
	{
		struct vkfd_req_event r;

		memset(&r, 0, sizeof(r));
		r.event_id = s->ev2;
		assert_int_equal(h_call(h, VKFD_CMD_RESET_EVENT, &r, sizeof(r), NULL, 0), 0);
	}
}

/* A wait that comes before a SET in the command stream is woken by it, as
 * a thread blocked in KFD before another thread's SET_EVENT is; a wait that
 * comes after the SET does not take the signal from it (auto-reset: one
 * waiter consumes a set that found no waiter). The waits carry no event
 * age (ROCr before 6.x), so KFD cannot tell them apart by age either.
 * ROCr's queue destruction depends on this: it sets the queue's event for
 * its event thread, which waits on it, then waits on the same event
 * itself until the thread's handler has run. */
static uint32_t add_ageless_wait(struct harness *h, uint32_t ring, uint32_t id, uint32_t *off)
{
	struct vkfd_req_wait_events w;

	memset(&w, 0, sizeof(w));
	w.num_events = 1;
	w.events[0].event_id = id;
	w.timeout_ms = 0xffffffff;
	w.ring_idx = ring;
	return h_add(h, VKFD_CMD_WAIT_EVENTS, &w, VKFD_REQ_WAIT_EVENTS_LEN(1), off);
}

/* [WAIT ring 5, SET, WAIT ring 6] in one batch; with `latch`, ring 5's
 * wait thread is held at the ioctl until the rest had time to run. */
static void wait_set_wait(struct harness *h, uint64_t f, bool latch)
{
	struct vkfd_req_event e;
	uint32_t id, off1, seq1;

	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_SIGNAL, 1, &id), 0);
	memset(&e, 0, sizeof(e));
	e.event_id = id;
	if (latch) {
		/* the latch is for the wait thread: the executor's own
		 * zero-timeout try (cmd_event.c) would park on it instead */
		__atomic_store_n(&h->ctx->wait_always_thread, true, __ATOMIC_RELAXED);
		kfdsim_latch_ioctl(host_g.sim, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS));
	}
	seq1 = add_ageless_wait(h, 5, id, &off1);
	h_add(h, VKFD_CMD_SET_EVENT_ASYNC, &e, sizeof(e), NULL);
	add_ageless_wait(h, 6, id, NULL);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 5, f), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 6, f + 1), 0);
	if (latch) {
		unsigned nr = _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), parked;

		for (int i = 0; i < 5000 && kfdsim_latch_parked(host_g.sim, nr) == 0; i++)
			usleep(1000);
		assert_int_equal(kfdsim_latch_parked(host_g.sim, nr), 1);
		/* the executor holds the SET back, so ring 6's wait cannot
		 * have started however long this pause is */
		usleep(20000);
		parked = kfdsim_latch_parked(host_g.sim, nr);
		kfdsim_latch_release(host_g.sim, nr);
		assert_int_equal(parked, 1);
	}
	assert_true(retire_until(h, 5, f, 2000));
	__atomic_store_n(&h->ctx->wait_always_thread, false, __ATOMIC_RELAXED);
	assert_int_equal(h_wait_slot(h, off1, seq1, 100), 0);
	assert_int_equal(((struct vkfd_rsp_wait_events *)h_rsp(h, off1))->wait_result,
			 KFD_IOC_WAIT_RESULT_COMPLETE);
	/* the later wait sleeps until the next SET */
	vkfd_host_context_retire_fences(h->ctx);
	assert_false(h_fence_retired(h->ctx_id, 6, f + 1));
	set_event(h, id);
	assert_true(retire_until(h, 6, f + 1, 2000));
	assert_int_equal(h_call(h, VKFD_CMD_DESTROY_EVENT, &e, sizeof(e), NULL, 0), 0);
}

static void test_wait_before_set_keeps_stream_order(void **state)
{
	struct ev_state *s = *state;

	/* the real device can only say "about to enter the ioctl": the
	 * registration inside it can still come after the SET (the kernel's
	 * system-call entry, here the preload's whole path to kfdsim), so
	 * the order is exact on kfdsim only (docs/architecture.md) */
	H_SIM_ONLY("registration is reported exactly by kfdsim only");
	for (uint32_t i = 0; i < 20; i++)
		wait_set_wait(&s->h, 1100 + 2 * (uint64_t)i, false);
	wait_set_wait(&s->h, 1200, true);
}

/*
 * A batch of only SET/RESET_EVENT runs on its submitter's thread when the
 * executor is idle (host_executor.c, "Inline batches"): done when
 * submit_cmd returns. Behind a busy executor it queues: a SET must never
 * overtake an earlier request, here a wait the executor is still trying.
 */
static uint64_t inline_count(struct harness *h)
{
	return __atomic_load_n(&h->ctx->inline_batches, __ATOMIC_RELAXED);
}

static void test_set_runs_inline_when_idle(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	volatile uint32_t *done = &((struct vkfd_shmem_hdr *)h->shmem)->seqno;
	struct vkfd_req_event e;
	struct vkfd_req_get_version gv;
	unsigned nr = _IOC_NR(AMDKFD_IOC_WAIT_EVENTS);
	uint64_t n0;
	uint32_t seq, off, id;

	H_SIM_ONLY("the busy executor is held with a kfdsim latch");
	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_SIGNAL, 1, &id), 0);
	memset(&e, 0, sizeof(e));
	e.event_id = id;
	n0 = inline_count(h);
	seq = h_add(h, VKFD_CMD_SET_EVENT_ASYNC, &e, sizeof(e), NULL);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(inline_count(h), n0 + 1);
	assert_int_equal(__atomic_load_n(done, __ATOMIC_ACQUIRE), seq); /* already run */
	/* anything else in the batch: the executor's */
	memset(&gv, 0, sizeof(gv));
	h_add(h, VKFD_CMD_RESET_EVENT_ASYNC, &e, sizeof(e), NULL);
	seq = h_add(h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(h_wait_u32(done, seq, 2000), seq);
	assert_int_equal(inline_count(h), n0 + 1);

	/* the executor parks in its zero-timeout try of a wait on `id` */
	kfdsim_latch_ioctl(host_g.sim, nr);
	add_ageless_wait(h, 7, id, &off);
	assert_int_equal(h_flush(h), 0);
	for (int i = 0; i < 5000 && kfdsim_latch_parked(host_g.sim, nr) == 0; i++)
		usleep(1000);
	assert_int_equal(kfdsim_latch_parked(host_g.sim, nr), 1);
	seq = h_add(h, VKFD_CMD_SET_EVENT_ASYNC, &e, sizeof(e), NULL);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(inline_count(h), n0 + 1);
	usleep(20000);
	assert_true(__atomic_load_n(done, __ATOMIC_ACQUIRE) != seq);
	kfdsim_latch_release(host_g.sim, nr);
	/* the wait was tried before the SET, went to a thread, and the SET
	 * behind it woke it */
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 7, 7001), 0);
	assert_true(retire_until(h, 7, 7001, 5000));
	assert_int_equal(((struct vkfd_rsp_wait_events *)h_rsp(h, off))->wait_result,
			 KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(h_wait_u32(done, seq, 2000), seq);
	assert_int_equal(h_call(h, VKFD_CMD_DESTROY_EVENT, &e, sizeof(e), NULL, 0), 0);
}

static void test_wait_on_destroyed_event(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	struct vkfd_rsp_wait_events *rsp;
	struct vkfd_req_event d;
	uint32_t id, off, seq;

	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_SIGNAL, 1, &id), 0);
	seq = add_wait(h, 4, &id, 1, 0xffffffff, &off);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 4, 801), 0);
	/* destroy only once the wait thread sleeps in WAIT_EVENTS: kfdsim
	 * counts those; the real device cannot be asked, so there the test
	 * pauses and also accepts a wait that began after the destroy */
	if (host_g.sim) {
		for (int i = 0; i < 10000 && !kfdsim_blocked_waits(host_g.sim); i++)
			usleep(1000);
		assert_int_equal(kfdsim_blocked_waits(host_g.sim), 1);
	} else {
		usleep(20000);
	}
	memset(&d, 0, sizeof(d));
	d.event_id = id;
	assert_int_equal(h_call(h, VKFD_CMD_DESTROY_EVENT, &d, sizeof(d), NULL, 0), 0);
	assert_true(retire_until(h, 4, 801, 2000));
	assert_int_equal(h_wait_slot(h, off, seq, 100), 0);
	rsp = h_rsp(h, off);
	if (host_g.sim || rsp->hdr.ret != -EINVAL)
		assert_int_equal(rsp->hdr.ret, -EIO);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_FAIL);
	/* the id is gone from the context */
	assert_int_equal(h_call(h, VKFD_CMD_DESTROY_EVENT, &d, sizeof(d), NULL, 0), -EINVAL);
	assert_int_equal(h_call(h, VKFD_CMD_SET_EVENT, &d, sizeof(d), NULL, 0), -EINVAL);
}

static void test_destroy_cancels_waits(void **state)
{
	struct ev_state *s = *state;
	struct harness h;
	uint64_t page;
	uint32_t ev;

	/* the real device has one KFD process per host process: the suite's
	 * context steps aside for this one and comes back afterwards */
	if (h_real_device()) {
		h_close(&s->h);
		s->h.shmem_fd = -1;
	}
	assert_int_equal(h_open(&h, 9), 0);
	page = h_gtt(&h, PAGE_BYTES, NULL);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	for (uint32_t r = 1; r <= 8; r++) {
		add_wait(&h, r, &ev, 1, 0xffffffff, NULL);
		assert_int_equal(h_flush(&h), 0);
		assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, r, 900 + r), 0);
	}
	usleep(20000);
	vkfd_host_context_retire_fences(h.ctx);
	assert_false(h_fence_retired(9, 1, 901));
	h_close(&h); /* returns: every blocked wait is cancelled */
	/* fences pending at destroy are dropped, not retired (host.h) */
	for (uint32_t r = 1; r <= 8; r++)
		assert_int_equal(h_fence_count(9, r, 900 + r), 0);
	if (h_real_device()) {
		assert_int_equal(h_open(&s->h, 1), 0);
		s->page = h_gtt(&s->h, PAGE_BYTES, NULL);
		assert_true(s->page != 0);
	}
}

static void test_ring0_fence_after_execution(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	struct pollfd pfd;
	int efd = vkfd_host_context_get_fencing_fd(h->ctx);

	assert_true(efd >= 0);
	for (int i = 0; i < 20; i++) {
		struct vkfd_req_get_version gv;

		memset(&gv, 0, sizeof(gv));
		h_add(h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL);
	}
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 0, 1001), 0);
	pfd.fd = efd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 2000), 1); /* POLL mode: fd becomes readable */
	assert_true(retire_until(h, 0, 1001, 2000));
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 64, 1002), -EINVAL);
}

/*
 * A wait KFD answers at once is answered on the executor (cmd_event.c,
 * wait_job_try_now): with the context's only wait thread blocked, such a
 * wait still completes (through a thread it would be -EBUSY: the quota is
 * used up), and a zero-timeout poll gets its TIMEOUT. A wait-for-all over
 * several events is never tried that way: KFD consumes the signalled
 * auto-reset events of a wait that then times out, so a try would lose
 * them; here one of two is signalled before the wait and the other after
 * it, and the wait must complete.
 */
static int setup_one_thread(void **state)
{
	static struct ev_state s;
	struct vkfd_host_quota q;

	memset(&q, 0, sizeof(q));
	q.max_pending_waits = 1;
	if (h_lib_init(0, &q) || h_open(&s.h, 1))
		return -1;
	s.page = h_gtt(&s.h, PAGE_BYTES, NULL);
	if (!s.page || h_create_event(&s.h, s.page, KFD_IOC_EVENT_SIGNAL, 1, &s.ev) ||
	    h_create_event(&s.h, 0, KFD_IOC_EVENT_SIGNAL, 0, &s.ev2))
		return -1;
	*state = &s;
	return 0;
}

static struct vkfd_rsp_wait_events *wait_done(struct harness *h, uint32_t ring, uint64_t f,
					      uint32_t off, uint32_t seq)
{
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, ring, f), 0);
	assert_true(retire_until(h, ring, f, 5000));
	assert_int_equal(h_wait_slot(h, off, seq, 100), 0);
	return h_rsp(h, off);
}

static void test_satisfied_wait_needs_no_thread(void **state)
{
	struct ev_state *s = *state;
	struct harness *h = &s->h;
	struct vkfd_req_event e;
	struct vkfd_rsp_wait_events *rsp;
	uint32_t off, seq, other, both[2];

	/* ring 1 takes the only wait thread until ev2 is set */
	add_ageless_wait(h, 1, s->ev2, NULL);
	memset(&e, 0, sizeof(e));
	e.event_id = s->ev;
	h_add(h, VKFD_CMD_SET_EVENT_ASYNC, &e, sizeof(e), NULL);
	seq = add_ageless_wait(h, 2, s->ev, &off);
	assert_int_equal(h_flush(h), 0);
	rsp = wait_done(h, 2, 2001, off, seq);
	assert_int_equal(rsp->hdr.ret, 0);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	/* consumed (auto-reset): a zero-timeout poll without an age (an
	 * older age would report the SET again) times out, also without a
	 * thread */
	wait_age = 0;
	seq = add_wait(h, 3, &s->ev, 1, 0, &off);
	wait_age = 1;
	assert_int_equal(h_flush(h), 0);
	rsp = wait_done(h, 3, 3001, off, seq);
	assert_int_equal(rsp->hdr.ret, 0);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	/* a wait that must block still needs the thread */
	seq = add_ageless_wait(h, 4, s->ev, &off);
	assert_int_equal(h_flush(h), 0);
	rsp = wait_done(h, 4, 4001, off, seq);
	assert_int_equal(rsp->hdr.ret, -EBUSY);

	/* free the thread: ev2 is manual-reset and stays set */
	set_event(h, s->ev2);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 1, 1001), 0);
	assert_true(retire_until(h, 1, 1001, 5000));
	{
		struct vkfd_req_event r;

		memset(&r, 0, sizeof(r));
		r.event_id = s->ev2;
		assert_int_equal(h_call(h, VKFD_CMD_RESET_EVENT, &r, sizeof(r), NULL, 0), 0);
	}

	/* wait for all of {ev, other}: ev set before, other after */
	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_SIGNAL, 1, &other), 0);
	set_event(h, s->ev);
	both[0] = s->ev;
	both[1] = other;
	{
		struct vkfd_req_wait_events w;

		memset(&w, 0, sizeof(w));
		w.num_events = 2;
		w.wait_for_all = 1;
		w.events[0].event_id = both[0];
		w.events[1].event_id = both[1];
		w.timeout_ms = 10000;
		w.ring_idx = 5;
		seq = h_add(h, VKFD_CMD_WAIT_EVENTS, &w, VKFD_REQ_WAIT_EVENTS_LEN(2), &off);
	}
	assert_int_equal(h_flush(h), 0);
	set_event(h, other);
	rsp = wait_done(h, 5, 5001, off, seq);
	assert_int_equal(rsp->hdr.ret, 0);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
}

int main(void)
{
	const struct CMUnitTest one_thread[] = {
	    cmocka_unit_test(test_satisfied_wait_needs_no_thread),
	};
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_event_page_rules),
	    cmocka_unit_test(test_poll_and_signal),
	    cmocka_unit_test(test_bad_waits),
	    cmocka_unit_test(test_busy_ring_and_order),
	    cmocka_unit_test(test_wait_before_set_keeps_stream_order),
	    cmocka_unit_test(test_set_runs_inline_when_idle),
	    cmocka_unit_test(test_wait_on_destroyed_event),
	    cmocka_unit_test(test_destroy_cancels_waits),
	    cmocka_unit_test(test_ring0_fence_after_execution),
	};

	int r = cmocka_run_group_tests(tests, setup, teardown);

	return r + cmocka_run_group_tests(one_thread, setup_one_thread, teardown);
}
