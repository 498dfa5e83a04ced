// SPDX-License-Identifier: MIT
/*
 * A guest that waits on the host forever: connects over vtest to SOCKET,
 * creates an event nobody signals, prints "waiting" and blocks in
 * WAIT_EVENTS (no timeout); nothing else is sent meanwhile, so only the
 * host can end the wait. A script then kills the host side of the context
 * (vkfd-server's worker, virgl_render_server's context worker); this
 * program exits 0 once the wait and then a call returned an error (the
 * lost context reached the guest), and prints how long the wait took.
 * It never exits 0 while the host keeps answering; run it under a timeout.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vkfd/guest.h>

#include "vkfd_protocol.h"

#define EVENT_HW_EXCEPTION 3 /* KFD_IOC_EVENT_HW_EXCEPTION */

static struct vkfd_guest *g;
static uint32_t ev;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *waiter(void *arg)
{
	struct vkfd_req_wait_events req;
	struct vkfd_rsp_wait_events rsp;
	int *ret = arg;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_WAIT_EVENTS;
	req.num_events = 1;
	req.timeout_ms = 0xffffffffu;
	req.events[0].event_id = ev;
	*ret = vkfd_guest_call_wait(g, &req, VKFD_REQ_WAIT_EVENTS_LEN(1), &rsp,
				    VKFD_RSP_WAIT_EVENTS_LEN(1));
	if (!*ret)
		*ret = rsp.hdr.ret ? rsp.hdr.ret : 1; /* 1: the wait completed */
	return NULL;
}

int main(int argc, char **argv)
{
	struct vkfd_req_create_event ce;
	struct vkfd_rsp_create_event cr;
	struct vkfd_req_get_version gv;
	struct vkfd_rsp_get_version gr;
	pthread_t th;
	int wret = 0, cret = 0;
	double t0 = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
		return 2;
	}
	g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, argv[1]);
	if (!g) {
		fprintf(stderr, "connect: %s\n", strerror(errno));
		return 2;
	}
	memset(&ce, 0, sizeof(ce));
	ce.hdr.cmd = VKFD_CMD_CREATE_EVENT;
	ce.event_type = EVENT_HW_EXCEPTION;
	if (vkfd_guest_call(g, &ce, sizeof(ce), &cr, sizeof(cr)) || cr.hdr.ret) {
		fprintf(stderr, "CREATE_EVENT failed\n");
		return 2;
	}
	ev = cr.event_id;
	if (pthread_create(&th, NULL, waiter, &wret))
		return 2;
	t0 = now_s();
	printf("waiting\n");
	fflush(stdout);
	pthread_join(th, NULL);
	printf("wait: %s after %.3f s\n", wret > 0 ? "completed" : strerror(-wret), now_s() - t0);
	memset(&gv, 0, sizeof(gv));
	gv.hdr.cmd = VKFD_CMD_GET_VERSION;
	cret = vkfd_guest_call(g, &gv, sizeof(gv), &gr, sizeof(gr));
	printf("next call: %s\n", cret ? strerror(-cret) : "succeeded");
	vkfd_guest_disconnect(g);
	return wret < 0 && cret < 0 ? 0 : 1;
}
