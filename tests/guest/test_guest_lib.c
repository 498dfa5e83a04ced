// SPDX-License-Identifier: MIT
/*
 * The guest library against a real host: over the vtest transport to a
 * vkfd-server started here, and over the direct (in-process) transport.
 * Covers connection state, synchronous round trips, asynchronous batching
 * (order, size bound, time bound), fenced waits on rings 1..63 including a
 * 64th concurrent waiter, BO blobs mapped at a fixed VA, and what happens
 * when the server disappears.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <vkfd/guest.h>

#include "server_harness.h"
#include "vkfd_codec.h"

/* From the KFD UAPI (linux/kfd_ioctl.h needs <drm/drm.h>, absent here). */
#define T_EVENT_HW_EXCEPTION  3
#define T_WAIT_RESULT_TIMEOUT 1
#define T_ALLOC_GTT           (1u << 1)
#define T_ALLOC_WRITABLE      (1u << 31)

static struct test_server srv;
static struct vkfd_guest *g;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint32_t shm_seqno(void)
{
	const volatile struct vkfd_shmem_hdr *h = vkfd_guest_shmem(g, NULL);

	return __atomic_load_n(&h->seqno, __ATOMIC_ACQUIRE);
}

static void get_version(void)
{
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_GET_VERSION;
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)), 0);
	assert_int_equal(rsp.hdr.ret, 0);
	assert_int_equal(rsp.major, 1);
}

static void async_noop(uint32_t id)
{
	/* destroying an event that does not exist changes nothing */
	struct vkfd_req_event req;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_DESTROY_EVENT_ASYNC;
	req.event_id = 0x7ff00000u + id;
	assert_int_equal(vkfd_guest_call_async(g, &req, sizeof(req)), 0);
}

static int setup_vtest(void **state)
{
	(void)state;
	if (harness_start(&srv, NULL))
		return -1;
	g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, srv.sock);
	return g ? 0 : -1;
}

static int teardown_vtest(void **state)
{
	(void)state;
	vkfd_guest_disconnect(g);
	g = NULL;
	return harness_stop(&srv) == 0 ? 0 : -1;
}

static int setup_direct(void **state)
{
	(void)state;
	g = vkfd_guest_connect(VKFD_TRANSPORT_DIRECT, NULL);
	return g ? 0 : -1;
}

static int teardown_direct(void **state)
{
	(void)state;
	vkfd_guest_disconnect(g);
	g = NULL;
	return 0;
}

static void test_connection_state(void **state)
{
	struct vkfd_capset c;
	size_t size = 0;
	uint32_t n = 0;

	(void)state;
	assert_true(vkfd_guest_transport(g) == VKFD_TRANSPORT_VTEST ||
		    vkfd_guest_transport(g) == VKFD_TRANSPORT_DIRECT);
	assert_non_null(vkfd_guest_transport_name(g));
	assert_int_equal(vkfd_guest_capset(g, &c, sizeof(c)), (int)sizeof(c));
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), 0);
	assert_int_equal(vkfd_guest_wire_version(g), VKFD_PROTO_VERSION);
	assert_non_null(vkfd_guest_shmem(g, &size));
	assert_int_equal(size, VKFD_SHMEM_SIZE);
	if (c.features & VKFD_FEAT_EVENT_HINTS) {
		assert_non_null(vkfd_guest_event_table(g, &n));
		assert_int_equal(n, VKFD_SHMEM_EVENT_COUNT);
	}
	assert_int_equal(vkfd_guest_async_error(g), 0);
	uint64_t a = vkfd_guest_blob_id_alloc(g), b = vkfd_guest_blob_id_alloc(g);

	assert_int_not_equal(a, 0);
	assert_int_not_equal(a, b);
}

static void test_sync_roundtrip(void **state)
{
	struct vkfd_req_get_version req;
	uint8_t rsp[64];

	(void)state;
	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_GET_VERSION;
	req.hdr.seqno = 0xdeadbeef; /* ignored: the library owns it */
	memset(rsp, 0xff, sizeof(rsp));
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), rsp, sizeof(rsp)), 0);
	struct vkfd_rsp_get_version v;

	memcpy(&v, rsp, sizeof(v));
	assert_int_equal(v.hdr.ret, 0);
	assert_int_equal(v.hdr.len, sizeof(v));
	assert_int_equal(v.major, 1);
	/* nothing past the response leaks into the caller's buffer */
	for (size_t i = sizeof(v); i < sizeof(rsp); i++)
		assert_int_equal(rsp[i], 0);
	assert_true(vkfd_seqno_passed(shm_seqno(), v.hdr.seqno));
}

static void test_bad_requests(void **state)
{
	struct vkfd_req_get_version req;
	static uint8_t big[VKFD_MAX_REQ_SIZE + 8];
	uint8_t rsp[32];

	(void)state;
	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_GET_VERSION;
	assert_int_equal(vkfd_guest_call(g, &req, 8, rsp, sizeof(rsp)), -EINVAL);
	assert_int_equal(vkfd_guest_call(g, NULL, 16, rsp, sizeof(rsp)), -EINVAL);
	assert_int_equal(vkfd_guest_call(g, big, sizeof(big), rsp, sizeof(rsp)), -EMSGSIZE);
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), NULL, 16), -EINVAL);
	req.hdr.cmd = 0;
	assert_int_equal(vkfd_guest_call_async(g, &req, sizeof(req)), -EINVAL);
	/* a command the host does not know: an errno in the response */
	req.hdr.cmd = 0x7e;
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), rsp, sizeof(rsp)), 0);
	struct vkfd_rsp_hdr h;

	memcpy(&h, rsp, sizeof(h));
	assert_true(h.ret < 0);
	/* and the connection is fine afterwards */
	get_version();
	assert_int_equal(vkfd_guest_async_error(g), 0);
}

static void test_async_batched_with_next_call(void **state)
{
	(void)state;
	get_version();
	uint32_t s0 = shm_seqno();

	for (uint32_t i = 0; i < 3; i++)
		async_noop(i);
	get_version();
	/* the three async requests went in the same submit, before it */
	assert_int_equal(shm_seqno(), s0 + 4);
}

static void test_async_time_bound(void **state)
{
	(void)state;
	get_version();
	uint32_t s0 = shm_seqno();
	uint64_t t0 = now_ms();

	async_noop(0);
	while (shm_seqno() == s0 && now_ms() - t0 < 5000)
		usleep(200);
	/* sent by the library on its own, no further call needed */
	assert_int_equal(shm_seqno(), s0 + 1);
}

static void test_async_size_bound(void **state)
{
	const uint32_t n = 4000; /* 4000 x 24 B > the 64 KiB bound */

	(void)state;
	get_version();
	uint32_t s0 = shm_seqno();

	for (uint32_t i = 0; i < n; i++)
		async_noop(i);
	/* at least one batch left without a sync call (or the 1 ms bound) */
	uint64_t t0 = now_ms();

	while (shm_seqno() == s0 && now_ms() - t0 < 5000)
		usleep(200);
	assert_true(shm_seqno() != s0);
	get_version();
	assert_int_equal(shm_seqno(), s0 + n + 1);
	assert_int_equal(vkfd_guest_flush(g), 0);
}

static uint32_t create_event(void)
{
	struct vkfd_req_create_event req;
	struct vkfd_rsp_create_event rsp;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_CREATE_EVENT;
	req.event_type = T_EVENT_HW_EXCEPTION;
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)), 0);
	assert_int_equal(rsp.hdr.ret, 0);
	return rsp.event_id;
}

static void destroy_event(uint32_t id)
{
	struct vkfd_req_event req;
	struct vkfd_rsp_empty rsp;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_DESTROY_EVENT;
	req.event_id = id;
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)), 0);
	assert_int_equal(rsp.hdr.ret, 0);
}

static int wait_event(uint32_t id, uint32_t timeout_ms, uint32_t *result)
{
	struct vkfd_req_wait_events req;
	struct vkfd_rsp_wait_events rsp;
	int r;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_WAIT_EVENTS;
	req.num_events = 1;
	req.timeout_ms = timeout_ms;
	req.events[0].event_id = id;
	r = vkfd_guest_call_wait(g, &req, VKFD_REQ_WAIT_EVENTS_LEN(1), &rsp,
				 VKFD_RSP_WAIT_EVENTS_LEN(1));
	if (r)
		return r;
	if (rsp.hdr.ret)
		return rsp.hdr.ret;
	*result = rsp.wait_result;
	return 0;
}

static void test_fenced_wait(void **state)
{
	uint32_t ev, res = 99;

	(void)state;
	ev = create_event();
	assert_int_equal(wait_event(ev, 0, &res), 0);
	assert_int_equal(res, T_WAIT_RESULT_TIMEOUT);
	uint64_t t0 = now_ms();

	assert_int_equal(wait_event(ev, 200, &res), 0);
	assert_int_equal(res, T_WAIT_RESULT_TIMEOUT);
	assert_true(now_ms() - t0 >= 190);
	destroy_event(ev);
}

struct waiter {
	pthread_barrier_t *bar;
	uint32_t ev;
	uint32_t timeout;
	int ret;
	uint32_t result;
	int *done;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	pthread_barrier_wait(w->bar);
	w->ret = wait_event(w->ev, w->timeout, &w->result);
	__atomic_add_fetch(w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* 63 rings carry waits; a 64th waiter sleeps until one is free. Calls on
 * ring 0 go on meanwhile. */
static void test_64_concurrent_waiters(void **state)
{
	enum { N = 64 };
	const uint32_t timeout = 2500;
	pthread_t th[N];
	struct waiter w[N];
	pthread_barrier_t bar;
	int done = 0;
	uint32_t ev;

	(void)state;
	ev = create_event();
	pthread_barrier_init(&bar, NULL, N + 1);
	for (int i = 0; i < N; i++) {
		w[i] = (struct waiter){.bar = &bar, .ev = ev, .timeout = timeout, .done = &done};
		assert_int_equal(pthread_create(&th[i], NULL, waiter_main, &w[i]), 0);
	}
	uint64_t t0 = now_ms();

	pthread_barrier_wait(&bar);
	/* the waits do not hold up synchronous calls */
	usleep(100000);
	get_version();
	/* No wait can end before t0 + timeout (nothing signals the event), so
	 * while that has not passed every wait is certainly still pending. A
	 * machine slow enough to pass it makes this check say nothing, rather
	 * than fail (it did under TSan with the machine loaded). */
	if (now_ms() - t0 < timeout)
		assert_int_equal(__atomic_load_n(&done, __ATOMIC_ACQUIRE), 0);
	else
		print_message(
		    "sync call returned after the waits' timeout: pending check skipped\n");
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].ret, 0);
		assert_int_equal(w[i].result, T_WAIT_RESULT_TIMEOUT);
	}
	/* the 64th had to wait for a ring, then for its own timeout */
	assert_true(now_ms() - t0 >= 2 * timeout - 20);
	pthread_barrier_destroy(&bar);
	destroy_event(ev);
}

static uint32_t first_gpu(uint64_t *vm_base, uint64_t *vm_limit)
{
	struct vkfd_req_get_process_apertures req;
	struct vkfd_rsp_get_process_apertures rsp;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_GET_PROCESS_APERTURES;
	req.max_nodes = VKFD_MAX_GPUS;
	assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)), 0);
	assert_int_equal(rsp.hdr.ret, 0);
	assert_true(rsp.num_nodes >= 1);
	*vm_base = rsp.apertures[0].gpuvm_base;
	*vm_limit = rsp.apertures[0].gpuvm_limit;
	return rsp.apertures[0].gpu_id;
}

static void test_bo_blob_at_fixed_va(void **state)
{
	const size_t size = 2u << 20;
	uint64_t base, limit;
	uint32_t gpu;

	(void)state;
	gpu = first_gpu(&base, &limit);
	{
		struct vkfd_req_gpu req;
		struct vkfd_rsp_empty rsp;

		memset(&req, 0, sizeof(req));
		req.hdr.cmd = VKFD_CMD_ACQUIRE_VM;
		req.gpu_id = gpu;
		assert_int_equal(vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)), 0);
		assert_true(rsp.hdr.ret == 0 || rsp.hdr.ret == -EBUSY);
	}
	/* GPU VA = CPU VA: reserve the range as libhsakmt does */
	uint8_t *va =
	    mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	assert_true(va != MAP_FAILED);
	assert_true((uint64_t)(uintptr_t)va >= base && (uint64_t)(uintptr_t)va + size - 1 <= limit);

	struct vkfd_req_alloc_memory al;
	struct vkfd_rsp_alloc_memory ar;

	memset(&al, 0, sizeof(al));
	al.hdr.cmd = VKFD_CMD_ALLOC_MEMORY;
	al.va = (uint64_t)(uintptr_t)va;
	al.size = size;
	al.gpu_id = gpu;
	al.flags = T_ALLOC_GTT | T_ALLOC_WRITABLE;
	assert_int_equal(vkfd_guest_call(g, &al, sizeof(al), &ar, sizeof(ar)), 0);
	assert_int_equal(ar.hdr.ret, 0);
	assert_int_not_equal(ar.handle, 0);
	assert_int_equal(ar.blob_size, size);

	/* BIND_BLOB is asynchronous; blob creation flushes it first */
	struct vkfd_req_bind_blob bb;

	memset(&bb, 0, sizeof(bb));
	bb.hdr.cmd = VKFD_CMD_BIND_BLOB;
	bb.handle = ar.handle;
	bb.blob_id = vkfd_guest_blob_id_alloc(g);
	assert_int_equal(vkfd_guest_call_async(g, &bb, sizeof(bb)), 0);

	struct vkfd_guest_blob blob;

	assert_int_equal(
	    vkfd_guest_blob_create(g, bb.blob_id, size, VKFD_GUEST_BLOB_MAPPABLE, &blob), 0);
	assert_true(blob.fd >= 0);
	uint8_t *m = vkfd_guest_blob_map(g, &blob, va, size, 0, PROT_READ | PROT_WRITE);

	assert_ptr_equal(m, va);
	for (size_t i = 0; i < size; i += 4096)
		m[i] = (uint8_t)(i >> 12);
	/* a second mapping of the same blob sees the same memory */
	uint8_t *m2 = vkfd_guest_blob_map(g, &blob, NULL, size, 0, PROT_READ);

	assert_true(m2 != MAP_FAILED);
	for (size_t i = 0; i < size; i += 4096)
		assert_int_equal(m2[i], (uint8_t)(i >> 12));
	/* out of range mappings are refused */
	assert_true(vkfd_guest_blob_map(g, &blob, NULL, size + 4096, 0, PROT_READ) == MAP_FAILED);
	assert_true(vkfd_guest_blob_map(g, &blob, NULL, 4096, size, PROT_READ) == MAP_FAILED);
	munmap(m2, size);
	munmap(m, size);

	/* a blob id nobody bound is refused */
	struct vkfd_guest_blob none;

	assert_true(vkfd_guest_blob_create(g, vkfd_guest_blob_id_alloc(g), 4096,
					   VKFD_GUEST_BLOB_MAPPABLE, &none) < 0);
	assert_int_equal(vkfd_guest_blob_create(g, 0, 4096, VKFD_GUEST_BLOB_MAPPABLE, &none),
			 -EINVAL);

	vkfd_guest_blob_destroy(g, &blob);
	struct vkfd_req_handle fr;

	memset(&fr, 0, sizeof(fr));
	fr.hdr.cmd = VKFD_CMD_FREE_MEMORY;
	fr.handle = ar.handle;
	assert_int_equal(vkfd_guest_call_async(g, &fr, sizeof(fr)), 0);
	get_version();
	assert_int_equal(vkfd_guest_async_error(g), 0);
}

/* IPC (docs/server.md, "Shared resources"): a BO of one connection
 * shared with another connection of the same server through the blob's
 * fd; never with a connection of another server, nor through an fd that
 * is not a live shareable blob. */
static uint64_t t_call_alloc(struct vkfd_guest *c, uint32_t gpu, uint64_t va, uint64_t size)
{
	struct vkfd_req_gpu aq;
	struct vkfd_rsp_empty ae;
	struct vkfd_req_alloc_memory al;
	struct vkfd_rsp_alloc_memory ar;

	memset(&aq, 0, sizeof(aq));
	aq.hdr.cmd = VKFD_CMD_ACQUIRE_VM;
	aq.gpu_id = gpu;
	assert_int_equal(vkfd_guest_call(c, &aq, sizeof(aq), &ae, sizeof(ae)), 0);
	assert_true(ae.hdr.ret == 0 || ae.hdr.ret == -EBUSY);
	memset(&al, 0, sizeof(al));
	al.hdr.cmd = VKFD_CMD_ALLOC_MEMORY;
	al.va = va;
	al.size = size;
	al.gpu_id = gpu;
	al.flags = T_ALLOC_GTT | T_ALLOC_WRITABLE;
	assert_int_equal(vkfd_guest_call(c, &al, sizeof(al), &ar, sizeof(ar)), 0);
	assert_int_equal(ar.hdr.ret, 0);
	return ar.handle;
}

static void t_bind_blob(struct vkfd_guest *c, uint64_t handle, uint64_t size, uint32_t flags,
			struct vkfd_guest_blob *blob)
{
	struct vkfd_req_bind_blob bb;

	memset(&bb, 0, sizeof(bb));
	bb.hdr.cmd = VKFD_CMD_BIND_BLOB;
	bb.handle = handle;
	bb.blob_id = vkfd_guest_blob_id_alloc(c);
	assert_int_equal(vkfd_guest_call_async(c, &bb, sizeof(bb)), 0);
	assert_int_equal(vkfd_guest_blob_create(c, bb.blob_id, size, flags, blob), 0);
}

static void test_ipc_between_clients(void **state)
{
	const uint64_t size = 64 * 1024;
	struct vkfd_guest_blob blob, priv, blob4;
	struct vkfd_guest_resource res;
	struct vkfd_req_get_resource_info gi;
	struct vkfd_rsp_get_resource_info gr;
	struct vkfd_req_import_resource im;
	struct vkfd_rsp_import_resource ir;
	struct test_server other;
	struct vkfd_guest *c2, *c3, *c4;
	uint64_t base, limit, h, hp, h4;
	uint32_t gpu;
	int fd, fdp, fd4, mfd;
	uint8_t *va =
	    mmap(NULL, 4 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	(void)state;
	assert_true(va != MAP_FAILED);
	gpu = first_gpu(&base, &limit);
	h = t_call_alloc(g, gpu, (uintptr_t)va, size);
	t_bind_blob(g, h, size, VKFD_GUEST_BLOB_MAPPABLE | VKFD_GUEST_BLOB_SHAREABLE, &blob);
	fd = vkfd_guest_blob_export_fd(g, &blob, O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(vkfd_guest_blob_export_fd(g, &blob, O_APPEND), -EINVAL);
	/* a blob of another BO that was not made SHAREABLE (a second blob of
	 * an exported BO is the same file, so it would be the same share) */
	hp = t_call_alloc(g, gpu, (uintptr_t)va + 3 * size, size);
	t_bind_blob(g, hp, size, VKFD_GUEST_BLOB_MAPPABLE, &priv);
	fdp = vkfd_guest_blob_export_fd(g, &priv, O_CLOEXEC);
	assert_true(fdp >= 0);

	/* a second client of the same server imports it */
	c2 = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, srv.sock);
	assert_non_null(c2);
	(void)t_call_alloc(c2, gpu, (uintptr_t)va + size, size); /* its VM */
	assert_int_equal(vkfd_guest_resource_import(c2, fd, &res), 0);
	assert_int_not_equal(res.res_id, 0);
	memset(&gi, 0, sizeof(gi));
	gi.hdr.cmd = VKFD_CMD_GET_RESOURCE_INFO;
	gi.res_id = res.res_id;
	assert_int_equal(vkfd_guest_call(c2, &gi, sizeof(gi), &gr, sizeof(gr)), 0);
	assert_int_equal(gr.hdr.ret, 0);
	assert_int_equal(gr.size, size);
	assert_int_equal(gr.gpu_id, gpu);
	memset(&im, 0, sizeof(im));
	im.hdr.cmd = VKFD_CMD_IMPORT_RESOURCE;
	im.va = (uintptr_t)va + 2 * size;
	im.res_id = res.res_id;
	im.gpu_id = gpu;
	assert_int_equal(vkfd_guest_call(c2, &im, sizeof(im), &ir, sizeof(ir)), 0);
	assert_int_equal(ir.hdr.ret, 0);
	assert_int_equal(ir.size, size);
	vkfd_guest_resource_release(c2, &res);
	assert_int_equal(res.res_id, 0);
	/* the released id is gone from the context */
	gi.res_id = im.res_id;
	assert_int_equal(vkfd_guest_call(c2, &gi, sizeof(gi), &gr, sizeof(gr)), 0);
	assert_int_equal(gr.hdr.ret, -ENOENT);

	/* not importable: the non-shareable blob, a memfd, an fd of nothing */
	assert_int_equal(vkfd_guest_resource_import(c2, fdp, &res), -EINVAL);
	mfd = memfd_create("t", MFD_CLOEXEC);
	assert_true(mfd >= 0);
	assert_int_equal(vkfd_guest_resource_import(c2, mfd, &res), -EINVAL);
	assert_int_equal(vkfd_guest_resource_import(c2, -1, &res), -EINVAL);
	/* the connection survives the refusals */
	assert_int_equal(vkfd_guest_resource_import(c2, fd, &res), 0);
	vkfd_guest_resource_release(c2, &res);

	/* another server is another guest: it never attaches our fd */
	memset(&other, 0, sizeof(other));
	assert_int_equal(harness_start(&other, NULL), 0);
	c3 = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, other.sock);
	assert_non_null(c3);
	assert_int_equal(vkfd_guest_resource_import(c3, fd, &res), -EINVAL);
	vkfd_guest_disconnect(c3);
	assert_int_equal(harness_stop(&other), 0);

	/* an exporter that is gone takes its share with it */
	c4 = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, srv.sock);
	assert_non_null(c4);
	h4 = t_call_alloc(c4, gpu, (uintptr_t)va, size);
	assert_int_not_equal(h4, 0);
	t_bind_blob(c4, h4, size, VKFD_GUEST_BLOB_MAPPABLE | VKFD_GUEST_BLOB_SHAREABLE, &blob4);
	fd4 = vkfd_guest_blob_export_fd(c4, &blob4, O_CLOEXEC);
	assert_true(fd4 >= 0);
	assert_int_equal(vkfd_guest_resource_import(c2, fd4, &res), 0);
	vkfd_guest_resource_release(c2, &res);
	vkfd_guest_blob_destroy(c4, &blob4);
	vkfd_guest_disconnect(c4);
	/* its worker has exited (and cleaned up) once only g's and c2's remain */
	for (int i = 0; i < 1000 && harness_children(srv.pid, NULL) != 2; i++)
		usleep(10000);
	assert_int_equal(harness_children(srv.pid, NULL), 2);
	assert_int_equal(vkfd_guest_resource_import(c2, fd4, &res), -EINVAL);

	vkfd_guest_disconnect(c2);
	close(fd4);
	close(mfd);
	close(fdp);
	close(fd);
	vkfd_guest_blob_destroy(g, &priv);
	vkfd_guest_blob_destroy(g, &blob);
	struct vkfd_req_handle fr;

	memset(&fr, 0, sizeof(fr));
	fr.hdr.cmd = VKFD_CMD_FREE_MEMORY;
	fr.handle = h;
	assert_int_equal(vkfd_guest_call_async(g, &fr, sizeof(fr)), 0);
	fr.handle = hp;
	assert_int_equal(vkfd_guest_call_async(g, &fr, sizeof(fr)), 0);
	get_version();
	assert_int_equal(vkfd_guest_async_error(g), 0);
	munmap(va, 4 * size);
}

/* The direct transport has no second process to share with. */
static void test_ipc_not_on_direct(void **state)
{
	struct vkfd_guest_resource res;
	struct vkfd_guest_blob b;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.fd = -1;
	assert_int_equal(vkfd_guest_resource_import(g, 0, &res), -EOPNOTSUPP);
	assert_int_equal(vkfd_guest_blob_export_fd(g, &b, 0), -EOPNOTSUPP);
}

static void *caller_main(void *arg)
{
	int *fails = arg;

	for (int i = 0; i < 200; i++) {
		struct vkfd_req_get_version req;
		struct vkfd_rsp_get_version rsp;

		memset(&req, 0, sizeof(req));
		req.hdr.cmd = VKFD_CMD_GET_VERSION;
		if (i % 4 == 0)
			async_noop((uint32_t)i);
		if (vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp)) || rsp.hdr.ret ||
		    rsp.major != 1 || rsp.hdr.len != sizeof(rsp))
			__atomic_add_fetch(fails, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Synchronous and asynchronous calls from many threads at once: every
 * call gets its own response, and every request is processed once. */
static void test_concurrent_threads(void **state)
{
	enum { T = 8 };
	pthread_t th[T];
	int fails = 0;

	(void)state;
	get_version();
	uint32_t s0 = shm_seqno();

	for (int i = 0; i < T; i++)
		assert_int_equal(pthread_create(&th[i], NULL, caller_main, &fails), 0);
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(fails, 0);
	get_version();
	/* 200 sync + 50 async per thread, plus the final call */
	assert_int_equal(shm_seqno(), s0 + T * 250 + 1);
}

/* TSan cannot follow a fork() of a multi-threaded process that then starts
 * threads (it reports the child's new library thread as a duplicate). */
#if defined(__SANITIZE_THREAD__)
#define T_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_UNDER_TSAN 1
#endif
#endif

/* One guest's session on its own connection: 0, or what failed. */
static int client_session(void)
{
	struct vkfd_guest *c = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, srv.sock);

	if (!c)
		return 2;
	for (int k = 0; k < 100; k++) {
		struct vkfd_req_get_version req;
		struct vkfd_rsp_get_version rsp;

		memset(&req, 0, sizeof(req));
		req.hdr.cmd = VKFD_CMD_GET_VERSION;
		if (vkfd_guest_call(c, &req, sizeof(req), &rsp, sizeof(rsp)) || rsp.hdr.ret) {
			vkfd_guest_disconnect(c);
			return 3;
		}
	}
	vkfd_guest_disconnect(c);
	return 0;
}

/* Several guests at once, each served by its own worker (own KFD process). */
static void test_concurrent_clients(void **state)
{
	enum { C = 4 };
	pid_t pids[C];

	(void)state;
#ifdef T_UNDER_TSAN
	print_message("skipped under TSan: fork() of a multi-threaded process "
		      "(test_concurrent_client_threads covers concurrent guests)\n");
	skip();
#endif
	for (int i = 0; i < C; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		/* the parent's connection is not usable here: connect again */
		if (pids[i] == 0)
			_exit(client_session());
	}
	for (int i = 0; i < C; i++) {
		int st;

		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	get_version();
}

static void *client_thread(void *arg)
{
	*(int *)arg = client_session();
	return NULL;
}

/* The same from threads of one process: connections, their library
 * threads and their workers live side by side. */
static void test_concurrent_client_threads(void **state)
{
	enum { C = 4 };
	pthread_t th[C];
	int rc[C];

	(void)state;
	for (int i = 0; i < C; i++)
		assert_int_equal(pthread_create(&th[i], NULL, client_thread, &rc[i]), 0);
	for (int i = 0; i < C; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(rc[i], 0);
	}
	get_version();
}

/* The library's thread never steals the application's signals. */
static void test_library_thread_blocks_signals(void **state)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int others = 0, blocked = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[300], line[256];

		if (de->d_name[0] == '.' || atoi(de->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", de->d_name);
		FILE *f = fopen(path, "r");

		if (!f)
			continue;
		others++;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long mask;

			/* every signal but SIGKILL, SIGSTOP (unblockable) and
			 * glibc's two internal ones (32, 33) */
			const unsigned long long allowed =
			    (1ull << 8) | (1ull << 18) | (1ull << 31) | (1ull << 32);

			if (sscanf(line, "SigBlk: %llx", &mask) == 1 && (mask | allowed) == ~0ull)
				blocked++;
		}
		fclose(f);
	}
	closedir(d);
	assert_true(others >= 1);
	assert_int_equal(blocked, others);
}

/* Join th, giving up after ms: 0, or ETIMEDOUT for a thread still blocked. */
static int join_within(pthread_t th, unsigned ms)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(th, NULL, &dl);
}

/* Last in the vtest group: the server's worker dies under the client while
 * threads wait (one forever, one with its own 60 s timeout): both waits end
 * with an error instead of blocking on the host forever, and the loss is
 * sticky. The bound is far above the library's liveness slice (250 ms),
 * so it never flakes; a hang fails it. */
static void test_server_gone(void **state)
{
	enum { N = 2 };
	const uint32_t timeouts[N] = {0xffffffffu, 60000};
	pthread_t th[N];
	struct waiter w[N];
	pthread_barrier_t bar;
	pid_t worker = 0;
	int done = 0;
	uint32_t ev;

	(void)state;
	ev = create_event();
	pthread_barrier_init(&bar, NULL, N + 1);
	for (int i = 0; i < N; i++) {
		w[i] =
		    (struct waiter){.bar = &bar, .ev = ev, .timeout = timeouts[i], .done = &done};
		assert_int_equal(pthread_create(&th[i], NULL, waiter_main, &w[i]), 0);
	}
	pthread_barrier_wait(&bar);
	/* workers of earlier clients end and are reaped: ours remains */
	for (int i = 0; i < 500 && harness_children(srv.pid, NULL) != 1; i++)
		usleep(10000);
	assert_int_equal(harness_children(srv.pid, &worker), 1);
	/* the waits reached the host (or are about to): none has returned */
	usleep(200000);
	assert_int_equal(__atomic_load_n(&done, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(kill(worker, SIGKILL), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(join_within(th[i], 10000), 0);
		assert_true(w[i].ret == -EPIPE || w[i].ret == -EIO);
	}
	pthread_barrier_destroy(&bar);
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;
	int r = 0;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_GET_VERSION;
	/* the first call may still be written into the socket buffer; it
	 * then fails waiting for its fence */
	for (int i = 0; i < 3 && r == 0; i++)
		r = vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp));
	assert_int_equal(r, -EPIPE);
	uint32_t res;

	assert_int_equal(wait_event(1, 0, &res), -EPIPE);
	struct vkfd_guest_blob b;

	assert_true(vkfd_guest_blob_create(g, 99, 4096, VKFD_GUEST_BLOB_MAPPABLE, &b) < 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest vtest_tests[] = {
	    cmocka_unit_test(test_connection_state),
	    cmocka_unit_test(test_sync_roundtrip),
	    cmocka_unit_test(test_bad_requests),
	    cmocka_unit_test(test_async_batched_with_next_call),
	    cmocka_unit_test(test_async_time_bound),
	    cmocka_unit_test(test_async_size_bound),
	    cmocka_unit_test(test_fenced_wait),
	    cmocka_unit_test(test_64_concurrent_waiters),
	    cmocka_unit_test(test_bo_blob_at_fixed_va),
	    cmocka_unit_test(test_ipc_between_clients),
	    cmocka_unit_test(test_library_thread_blocks_signals),
	    cmocka_unit_test(test_concurrent_threads),
	    cmocka_unit_test(test_concurrent_clients),
	    cmocka_unit_test(test_concurrent_client_threads),
	    cmocka_unit_test(test_server_gone),
	};
	const struct CMUnitTest direct_tests[] = {
	    cmocka_unit_test(test_connection_state),
	    cmocka_unit_test(test_sync_roundtrip),
	    cmocka_unit_test(test_async_batched_with_next_call),
	    cmocka_unit_test(test_fenced_wait),
	    cmocka_unit_test(test_bo_blob_at_fixed_va),
	    cmocka_unit_test(test_ipc_not_on_direct),
	};
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-vkfd-server\n", argv[0]);
		return 2;
	}
	harness_set_server_bin(argv[1]);
	signal(SIGPIPE, SIG_IGN);
	rc = cmocka_run_group_tests_name("vtest", vtest_tests, setup_vtest, teardown_vtest);
	rc |= cmocka_run_group_tests_name("direct", direct_tests, setup_direct, teardown_direct);
	return rc;
}
