// SPDX-License-Identifier: MIT
/*
 * Guest library failure paths against a scripted fake vtest server (no host
 * library needed): no common version, old vtest protocol, missing capset,
 * mis-framed or truncated replies and a silent server all end in an error
 * with errno set, never in a hang. Also the virtgpu transport's node
 * selection on a machine without virtio-gpu.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <vkfd/guest.h>

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

static void serve(struct fake *f, int c)
{
	uint32_t hdr[2], buf[4096];
	bool first = true;

	for (;;) {
		if (vtio_read_full(c, hdr, 8, -1, NULL))
			return;
		uint32_t bytes = first ? hdr[0] : hdr[0] * 4;

		first = false;
		if (bytes > sizeof(buf) || vtio_read_full(c, buf, bytes, -1, NULL))
			return;
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
			return; /* the guest must not get this far */
		}
	}
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
	    cmocka_unit_test(test_no_server),
	    cmocka_unit_test(test_bad_transport_env),
	    cmocka_unit_test(test_virtgpu_not_a_drm_node),
	    cmocka_unit_test(test_virtgpu_scan_finds_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
