// SPDX-License-Identifier: MIT
/*
 * A guest whose transport dies while its threads use it: the vkfd-server
 * worker serving the connection is SIGKILLed at a random moment while
 * threads are blocked in WAIT_EVENTS, make synchronous calls and queue
 * asynchronous ones. Every thread must come back with an error (no hang:
 * the test's timeout would catch one), none may crash or touch freed
 * memory (ASan, TSan), and the owner then disconnects once every thread
 * has returned, which is the lifetime rule of struct vkfd_guest.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <vkfd/guest.h>

#include "server_harness.h"
#include "vkfd_protocol.h"

#define T_EVENT_HW_EXCEPTION 3
#define ROUNDS               6
#define WAITERS              6
#define CALLERS              3

static struct test_server srv;
static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int create_event(struct vkfd_guest *g, uint32_t *id)
{
	struct vkfd_req_create_event req;
	struct vkfd_rsp_create_event rsp;
	int r;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_CREATE_EVENT;
	req.event_type = T_EVENT_HW_EXCEPTION;
	r = vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	*id = rsp.event_id;
	return rsp.hdr.ret;
}

struct user {
	struct vkfd_guest *g;
	pthread_barrier_t *bar;
	uint32_t ev;
	bool waiter;
	unsigned ok_calls; /* calls that succeeded before the transport died */
	int last;          /* the error that ended the loop */
};

/* Calls until one fails: waiters block in WAIT_EVENTS (an event nobody
 * signals, a long timeout), callers make sync calls and queue async ones. */
static void *user_main(void *arg)
{
	struct user *u = arg;
	int r;

	pthread_barrier_wait(u->bar);
	do {
		if (u->waiter) {
			struct vkfd_req_wait_events req;
			struct vkfd_rsp_wait_events rsp;

			memset(&req, 0, sizeof(req));
			req.hdr.cmd = VKFD_CMD_WAIT_EVENTS;
			req.num_events = 1;
			req.timeout_ms = 20000;
			req.events[0].event_id = u->ev;
			r = vkfd_guest_call_wait(u->g, &req, VKFD_REQ_WAIT_EVENTS_LEN(1), &rsp,
						 VKFD_RSP_WAIT_EVENTS_LEN(1));
		} else {
			struct vkfd_req_get_version req;
			struct vkfd_rsp_get_version rsp;
			struct vkfd_req_event noop;

			/* destroying an event that does not exist changes nothing */
			memset(&noop, 0, sizeof(noop));
			noop.hdr.cmd = VKFD_CMD_DESTROY_EVENT_ASYNC;
			noop.event_id = 0x7ff00000u;
			r = vkfd_guest_call_async(u->g, &noop, sizeof(noop));
			if (r)
				break;
			memset(&req, 0, sizeof(req));
			req.hdr.cmd = VKFD_CMD_GET_VERSION;
			r = vkfd_guest_call(u->g, &req, sizeof(req), &rsp, sizeof(rsp));
		}
		if (!r)
			u->ok_calls++;
	} while (!r);
	u->last = r;
	return NULL;
}

static pid_t our_worker(void)
{
	pid_t worker = 0;

	/* workers of earlier rounds end and are reaped: ours remains */
	for (int i = 0; i < 1000 && harness_children(srv.pid, NULL) != 1; i++)
		usleep(10000);
	assert_int_equal(harness_children(srv.pid, &worker), 1);
	return worker;
}

static void test_worker_killed_under_threads(void **state)
{
	(void)state;
	rnd_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
	for (unsigned round = 0; round < ROUNDS; round++) {
		struct vkfd_guest *g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, srv.sock);
		struct user u[WAITERS + CALLERS];
		pthread_t th[WAITERS + CALLERS];
		pthread_barrier_t bar;
		struct timespec pause = {0, (long)(rnd() % 30000000)};
		uint32_t ev = 0;
		pid_t worker;

		assert_non_null(g);
		assert_int_equal(create_event(g, &ev), 0);
		worker = our_worker();
		pthread_barrier_init(&bar, NULL, WAITERS + CALLERS + 1);
		for (unsigned i = 0; i < WAITERS + CALLERS; i++) {
			u[i] = (struct user){.g = g, .bar = &bar, .ev = ev, .waiter = i < WAITERS};
			assert_int_equal(pthread_create(&th[i], NULL, user_main, &u[i]), 0);
		}
		pthread_barrier_wait(&bar);
		nanosleep(&pause, NULL);
		assert_int_equal(kill(worker, SIGKILL), 0);
		for (unsigned i = 0; i < WAITERS + CALLERS; i++) {
			assert_int_equal(pthread_join(th[i], NULL), 0);
			/* a lost host is an error, never a hang or a success */
			assert_true(u[i].last < 0);
		}
		/* the connection stays dead for later calls too */
		{
			struct vkfd_req_get_version req;
			struct vkfd_rsp_get_version rsp;

			memset(&req, 0, sizeof(req));
			req.hdr.cmd = VKFD_CMD_GET_VERSION;
			assert_true(vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)) < 0);
		}
		pthread_barrier_destroy(&bar);
		/* the owner frees it once no thread uses it */
		vkfd_guest_disconnect(g);
	}
	/* the server itself lives on and serves a new guest */
	{
		struct vkfd_guest *g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, srv.sock);
		uint32_t ev;

		assert_non_null(g);
		assert_int_equal(create_event(g, &ev), 0);
		vkfd_guest_disconnect(g);
	}
}

static int setup(void **state)
{
	(void)state;
	return harness_start(&srv, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return harness_stop(&srv) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worker_killed_under_threads),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-vkfd-server\n", argv[0]);
		return 2;
	}
	harness_set_server_bin(argv[1]);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
