// SPDX-License-Identifier: MIT
/*
 * Guest library failure paths against a scripted fake vtest server (no host
 * library needed): no common version, old vtest protocol, missing capset,
 * mis-framed or truncated replies and a silent server all end in an error
 * with errno set, never in a hang; a host that loses the context under a
 * waiting thread without retiring its fence ends that wait with EIO. Also the virtgpu transport's
 * node selection on a machine without virtio-gpu.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <vkfd/guest.h>

#include "vkfd_codec.h"
#include "vkfd_protocol.h"
#include "vtest_io.h"
#include "vtest_wire.h"

enum fake_mode {
	FAKE_BAD_VERSION,
	FAKE_OLD_VTEST,
	FAKE_NO_CAPSET,
	FAKE_WRONG_CMD,
	FAKE_TRUNCATE,
	FAKE_SILENT,
	FAKE_FEW_TIMELINES,
	FAKE_LOST_AT_WAIT, /* a working host that loses the context at WAIT_EVENTS */
};

struct fake {
	enum fake_mode mode;
	int listen_fd;
	char path[108];
	pthread_t thread;
};

static int reply(int c, uint32_t cmd, const uint32_t *p, uint32_t n)
{
	uint32_t h[2] = {n, cmd};

	if (vtio_write_full(c, h, 8))
		return -1;
	return n ? vtio_write_full(c, p, n * 4) : 0;
}

/* FAKE_LOST_AT_WAIT: enough of a host for vkfd_guest_connect() (shared
 * memory, HELLO, ring-0 fences), which then sets the async error word when
 * a WAIT_EVENTS arrives and never retires that wait's fence nor closes the
 * connection: only the guest's own liveness check can end the wait. */
struct fake_host {
	uint8_t *shmem;
	uint64_t sync_value[8]; /* by sync id - 1 */
	uint32_t n_syncs;
	struct {
		int fd;
		uint32_t id;
		uint64_t value;
	} waits[64];
	uint32_t n_waits;
};

static void fake_host_signal(struct fake_host *h, uint32_t id, uint64_t value)
{
	uint64_t one = 1;

	if (!id || id > h->n_syncs)
		return;
	if (value > h->sync_value[id - 1])
		h->sync_value[id - 1] = value;
	for (uint32_t i = 0; i < h->n_waits;) {
		if (h->waits[i].id == id && h->sync_value[id - 1] >= h->waits[i].value) {
			assert_int_equal(write(h->waits[i].fd, &one, 8), 8);
			close(h->waits[i].fd);
			h->waits[i] = h->waits[--h->n_waits];
			continue;
		}
		i++;
	}
}

/* Runs a batch; returns false when it held a WAIT_EVENTS (context lost). */
static bool fake_host_run(struct fake_host *h, const void *cmd, size_t size)
{
	struct vkfd_shmem_hdr *sh = vkfd_shmem_hdr(h->shmem);
	struct vkfd_cmd_view v;
	struct vkfd_iter it;
	bool ok = true;

	vkfd_iter_init(&it, cmd, size, VKFD_RSP_AREA_SIZE);
	while (vkfd_iter_next(&it, &v) == 1) {
		if (v.hdr.cmd == VKFD_CMD_WAIT_EVENTS) {
			__atomic_store_n(&sh->async_error, VKFD_ASYNC_ERR_PROTOCOL,
					 __ATOMIC_RELEASE);
			ok = false;
			break;
		}
		if (v.hdr.cmd == VKFD_CMD_HELLO) {
			struct vkfd_rsp_hello *r =
			    (void *)(h->shmem + VKFD_SHMEM_RSP_OFF + v.hdr.rsp_off);

			memset(r, 0, sizeof(*r));
			r->hdr.len = sizeof(*r);
			r->version = VKFD_PROTO_VERSION;
			__atomic_store_n(&r->hdr.seqno, v.hdr.seqno, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&sh->seqno, v.hdr.seqno, __ATOMIC_RELEASE);
	}
	return ok;
}

/* One host command of FAKE_LOST_AT_WAIT; false ends the connection. */
static bool fake_host_cmd(struct fake_host *h, int c, uint32_t cmd, const uint32_t *p, uint32_t ndw)
{
	switch (cmd) {
	case VTW_CMD_CONTEXT_INIT:
	case VTW_CMD_RESOURCE_UNREF:
	case VTW_CMD_SYNC_UNREF:
		return true;
	case VTW_CMD_SYNC_CREATE: {
		uint32_t id = ++h->n_syncs;

		assert_true(id <= 8);
		return !reply(c, VTW_CMD_SYNC_CREATE, &id, 1);
	}
	case VTW_CMD_RESOURCE_CREATE_BLOB: {
		uint32_t res = 1;
		int fd = memfd_create("fake-shmem", MFD_CLOEXEC);

		assert_true(fd >= 0 && !h->shmem);
		assert_int_equal(ftruncate(fd, VKFD_SHMEM_SIZE), 0);
		h->shmem = mmap(NULL, VKFD_SHMEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		assert_true(h->shmem != MAP_FAILED);
		assert_int_equal(vkfd_shmem_init(h->shmem, VKFD_SHMEM_SIZE, VKFD_PROTO_VERSION, 0),
				 0);
		bool ok = !reply(c, VTW_CMD_RESOURCE_CREATE_BLOB, &res, 1) && !vtio_send_fd(c, fd);

		close(fd);
		return ok;
	}
	case VTW_CMD_SUBMIT_CMD2: {
		const uint32_t *b = p + 1;
		const uint32_t *sy = p + b[VTW_BATCH_SYNC_OFFSET];

		assert_true(ndw >= 1 + VTW_BATCH_DWORDS && p[0] == 1);
		assert_true(b[VTW_BATCH_CMD_OFFSET] + b[VTW_BATCH_CMD_SIZE] <= ndw);
		if (fake_host_run(h, p + b[VTW_BATCH_CMD_OFFSET], b[VTW_BATCH_CMD_SIZE] * 4u))
			for (uint32_t i = 0; i < b[VTW_BATCH_SYNC_COUNT]; i++)
				fake_host_signal(h, sy[3 * i],
						 sy[3 * i + 1] | (uint64_t)sy[3 * i + 2] << 32);
		return true;
	}
	case VTW_CMD_SYNC_WAIT: {
		int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		assert_true(fd >= 0 && ndw == 5 && h->n_waits < 64);
		if (reply(c, VTW_CMD_SYNC_WAIT, NULL, 0) || vtio_send_fd(c, fd)) {
			close(fd);
			return false;
		}
		h->waits[h->n_waits].fd = fd;
		h->waits[h->n_waits].id = p[2];
		h->waits[h->n_waits].value = p[3] | (uint64_t)p[4] << 32;
		h->n_waits++;
		fake_host_signal(h, p[2], 0);
		return true;
	}
	}
	return false;
}

static void serve(struct fake *f, int c)
{
	struct fake_host host;
	uint32_t hdr[2], buf[4096];
	bool first = true;

	memset(&host, 0, sizeof(host));
	for (;;) {
		if (vtio_read_full(c, hdr, 8, -1, NULL))
			goto out;
		uint32_t bytes = first ? hdr[0] : hdr[0] * 4;

		first = false;
		if (bytes > sizeof(buf) || vtio_read_full(c, buf, bytes, -1, NULL))
			goto out;
		if (f->mode == FAKE_SILENT)
			continue;
		switch (hdr[1]) {
		case VTW_CMD_CREATE_RENDERER:
			break;
		case VTW_CMD_PING_PROTOCOL_VERSION:
			if (f->mode == FAKE_TRUNCATE) {
				uint32_t half = 0;

				vtio_write_full(c, &half, 4); /* half a header */
				return;
			}
			if (f->mode == FAKE_WRONG_CMD) {
				reply(c, VTW_CMD_GET_CAPS, NULL, 0);
				break;
			}
			reply(c, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
			break;
		case VTW_CMD_PROTOCOL_VERSION: {
			uint32_t v = f->mode == FAKE_OLD_VTEST ? 2 : 3;

			reply(c, VTW_CMD_PROTOCOL_VERSION, &v, 1);
			break;
		}
		case VTW_CMD_GET_PARAM: {
			uint32_t out[2] = {1, f->mode == FAKE_FEW_TIMELINES ? 8 : 64};

			reply(c, VTW_CMD_GET_PARAM, out, 2);
			break;
		}
		case VTW_CMD_GET_CAPSET: {
			uint32_t out[1 + sizeof(struct vkfd_capset) / 4];
			struct vkfd_capset cs;

			memset(out, 0, sizeof(out));
			if (f->mode == FAKE_NO_CAPSET) {
				reply(c, VTW_CMD_GET_CAPSET, out, 1);
				break;
			}
			memset(&cs, 0, sizeof(cs));
			if (f->mode == FAKE_LOST_AT_WAIT) {
				vkfd_capset_init(&cs);
				cs.num_gpus = 1;
				out[0] = 1;
				memcpy(out + 1, &cs, sizeof(cs));
				reply(c, VTW_CMD_GET_CAPSET, out, 1 + sizeof(cs) / 4);
				break;
			}
			cs.wire_format = VKFD_WIRE_FORMAT;
			cs.version_min = 90;
			cs.version_max = 99;
			cs.context_type = VKFD_CONTEXT_TYPE_AMDKFD;
			cs.shmem_size = VKFD_SHMEM_SIZE;
			cs.num_rings = VKFD_NUM_RINGS;
			cs.max_batch_size = VKFD_MAX_BATCH_SIZE;
			out[0] = 1;
			memcpy(out + 1, &cs, sizeof(cs));
			reply(c, VTW_CMD_GET_CAPSET, out, 1 + sizeof(cs) / 4);
			break;
		}
		default:
			/* only FAKE_LOST_AT_WAIT lets the guest get this far */
			if (f->mode != FAKE_LOST_AT_WAIT ||
			    !fake_host_cmd(&host, c, hdr[1], buf, hdr[0]))
				goto out;
		}
	}
out:
	for (uint32_t i = 0; i < host.n_waits; i++)
		close(host.waits[i].fd);
	if (host.shmem)
		munmap(host.shmem, VKFD_SHMEM_SIZE);
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	int c = accept(f->listen_fd, NULL, NULL);

	if (c >= 0) {
		serve(f, c);
		close(c);
	}
	return NULL;
}

static void fake_start(struct fake *f, enum fake_mode mode)
{
	struct sockaddr_un a;

	memset(f, 0, sizeof(*f));
	f->mode = mode;
	snprintf(f->path, sizeof(f->path), "/tmp/vkfd-fake-%d-%d.sock", (int)getpid(), mode);
	unlink(f->path);
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strcpy(a.sun_path, f->path);
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(f->listen_fd >= 0);
	assert_int_equal(bind(f->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(f->listen_fd, 1), 0);
	assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
}

static void fake_stop(struct fake *f)
{
	/* The fake returns once the guest closes its end. */
	pthread_join(f->thread, NULL);
	close(f->listen_fd);
	unlink(f->path);
}

static int connect_errno(struct fake *f)
{
	struct vkfd_guest *g;

	errno = 0;
	g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, f->path);
	int e = errno;

	assert_null(g);
	return e;
}

static void test_no_common_version(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_BAD_VERSION);
	assert_int_equal(connect_errno(&f), EPROTO);
	fake_stop(&f);
}

static void test_old_vtest_protocol(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_OLD_VTEST);
	assert_int_equal(connect_errno(&f), EPROTO);
	fake_stop(&f);
}

static void test_too_few_timelines(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_FEW_TIMELINES);
	assert_int_equal(connect_errno(&f), EPROTO);
	fake_stop(&f);
}

static void test_no_capset(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_NO_CAPSET);
	assert_int_equal(connect_errno(&f), ENODEV);
	fake_stop(&f);
}

static void test_wrong_reply(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_WRONG_CMD);
	assert_int_equal(connect_errno(&f), EPROTO);
	fake_stop(&f);
}

static void test_truncated_reply(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_TRUNCATE);
	assert_int_equal(connect_errno(&f), EPIPE);
	fake_stop(&f);
}

static void test_silent_server_times_out(void **state)
{
	struct fake f;
	struct timespec a, b;

	(void)state;
	setenv("VKFD_VTEST_TIMEOUT_MS", "200", 1);
	fake_start(&f, FAKE_SILENT);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(connect_errno(&f), ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 10); /* bounded, not a hang */
	unsetenv("VKFD_VTEST_TIMEOUT_MS");
	fake_stop(&f);
}

struct lost_wait {
	struct vkfd_guest *g;
	int ret;
};

static void *lost_wait_main(void *arg)
{
	struct lost_wait *w = arg;
	struct vkfd_req_wait_events req;
	struct vkfd_rsp_wait_events rsp;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_WAIT_EVENTS;
	req.num_events = 1;
	req.timeout_ms = 0xffffffffu;
	req.events[0].event_id = 1;
	w->ret = vkfd_guest_call_wait(w->g, &req, VKFD_REQ_WAIT_EVENTS_LEN(1), &rsp,
				      VKFD_RSP_WAIT_EVENTS_LEN(1));
	return NULL;
}

/* The host loses the context while a thread waits with no timeout, but
 * neither retires the wait's fence nor closes the connection (a VMM that
 * keeps a dead worker's fences): the guest's liveness check sees the async
 * error word and ends the wait with EIO, and later calls fail too. The
 * 10 s bound is far above the 250 ms check; a hang fails it. */
static void test_lost_context_ends_wait(void **state)
{
	struct vkfd_req_get_version gv;
	struct vkfd_rsp_get_version gr;
	struct lost_wait w;
	struct timespec dl;
	struct fake f;
	pthread_t th;

	(void)state;
	fake_start(&f, FAKE_LOST_AT_WAIT);
	memset(&w, 0, sizeof(w));
	w.g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, f.path);
	assert_non_null(w.g);
	assert_int_equal(pthread_create(&th, NULL, lost_wait_main, &w), 0);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 10;
	assert_int_equal(pthread_timedjoin_np(th, NULL, &dl), 0);
	assert_int_equal(w.ret, -EIO);
	memset(&gv, 0, sizeof(gv));
	gv.hdr.cmd = VKFD_CMD_GET_VERSION;
	assert_int_equal(vkfd_guest_call(w.g, &gv, sizeof(gv), &gr, sizeof(gr)), -EIO);
	vkfd_guest_disconnect(w.g);
	fake_stop(&f);
}

static void test_no_server(void **state)
{
	(void)state;
	errno = 0;
	assert_null(vkfd_guest_connect(VKFD_TRANSPORT_VTEST, "/tmp/vkfd-no-such-socket"));
	assert_int_equal(errno, ENOENT);
	unsetenv("VKFD_SOCKET");
	errno = 0;
	assert_null(vkfd_guest_connect(VKFD_TRANSPORT_VTEST, NULL));
	assert_int_equal(errno, EINVAL);
}

static void test_bad_transport_env(void **state)
{
	(void)state;
	setenv("VKFD_TRANSPORT", "carrier-pigeon", 1);
	errno = 0;
	assert_null(vkfd_guest_connect(VKFD_TRANSPORT_AUTO, NULL));
	assert_int_equal(errno, EINVAL);
	unsetenv("VKFD_TRANSPORT");
}

static void test_virtgpu_not_a_drm_node(void **state)
{
	(void)state;
	errno = 0;
	assert_null(vkfd_guest_connect(VKFD_TRANSPORT_VIRTGPU, "/dev/null"));
	assert_int_equal(errno, ENOTTY);
	errno = 0;
	assert_null(vkfd_guest_connect(VKFD_TRANSPORT_VIRTGPU, "/nonexistent/renderD128"));
	assert_int_equal(errno, ENOENT);
}

static void test_virtgpu_scan_finds_nothing(void **state)
{
	char dir[] = "/tmp/vkfd-dri-XXXXXX";
	char node[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* a "render node" that is no DRM device must be skipped */
	snprintf(node, sizeof(node), "%s/renderD128", dir);
	FILE *fp = fopen(node, "w");

	assert_non_null(fp);
	fclose(fp);
	setenv("VKFD_DRI_DIR", dir, 1);
	errno = 0;
	assert_null(vkfd_guest_connect(VKFD_TRANSPORT_VIRTGPU, NULL));
	assert_int_equal(errno, ENODEV);
	unsetenv("VKFD_DRI_DIR");
	unlink(node);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_common_version),
	    cmocka_unit_test(test_old_vtest_protocol),
	    cmocka_unit_test(test_too_few_timelines),
	    cmocka_unit_test(test_no_capset),
	    cmocka_unit_test(test_wrong_reply),
	    cmocka_unit_test(test_truncated_reply),
	    cmocka_unit_test(test_silent_server_times_out),
	    cmocka_unit_test(test_lost_context_ends_wait),
	    cmocka_unit_test(test_no_server),
	    cmocka_unit_test(test_bad_transport_env),
	    cmocka_unit_test(test_virtgpu_not_a_drm_node),
	    cmocka_unit_test(test_virtgpu_scan_finds_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
