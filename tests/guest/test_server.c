// SPDX-License-Identifier: MIT
/*
 * vkfd-server from outside, speaking raw vtest: handshake, params, capset,
 * CONTEXT_INIT, the shmem blob's fd, a GET_VERSION round trip through
 * SUBMIT_CMD2 and a sync, hostile messages, a client killed mid-command,
 * --max-clients, SIGTERM and CLI errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "server_harness.h"
#include "vkfd_codec.h"
#include "vtest_io.h"
#include "vtest_wire.h"

#define IO_TIMEOUT 30000

static struct test_server srv;
static const char *test_server_bin;
static int baseline_fds;

static int vt_connect(const char *path)
{
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strcpy(a.sun_path, path);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void vt_send(int fd, uint32_t cmd, const void *p, uint32_t ndw)
{
	uint32_t h[2] = {ndw, cmd};

	assert_int_equal(vtio_write_full(fd, h, 8), 0);
	if (ndw)
		assert_int_equal(vtio_write_full(fd, p, ndw * 4), 0);
}

/* For messages the server is expected to refuse: it may close the
 * connection before the payload is written, so write errors are fine. */
static void hostile_send(int fd, uint32_t cmd, const void *p, uint32_t ndw)
{
	uint32_t h[2] = {ndw, cmd};

	if (vtio_write_full(fd, h, 8) == 0 && ndw)
		(void)vtio_write_full(fd, p, ndw * 4);
}

static void vt_recv(int fd, uint32_t cmd, void *p, uint32_t ndw)
{
	uint32_t h[2];

	assert_int_equal(vtio_read_full(fd, h, 8, IO_TIMEOUT, NULL), 0);
	assert_int_equal(h[1], cmd);
	assert_int_equal(h[0], ndw);
	if (ndw)
		assert_int_equal(vtio_read_full(fd, p, ndw * 4, IO_TIMEOUT, NULL), 0);
}

static int vt_handshake(void)
{
	int fd = vt_connect(srv.sock);
	const char name[8] = "test";
	uint32_t h[2] = {sizeof(name), VTW_CMD_CREATE_RENDERER}, v = 3;

	assert_int_equal(vtio_write_full(fd, h, 8), 0);
	assert_int_equal(vtio_write_full(fd, name, sizeof(name)), 0);
	vt_send(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	vt_recv(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	vt_send(fd, VTW_CMD_PROTOCOL_VERSION, &v, 1);
	vt_recv(fd, VTW_CMD_PROTOCOL_VERSION, &v, 1);
	assert_int_equal(v, 3);
	return fd;
}

/* The server ended this connection: EOF within the timeout. */
static void assert_dropped(int fd)
{
	uint8_t b[64];
	struct pollfd p = {.fd = fd, .events = POLLIN};

	for (;;) {
		assert_int_equal(poll(&p, 1, IO_TIMEOUT), 1);
		ssize_t n = read(fd, b, sizeof(b));

		if (n <= 0)
			break;
	}
	close(fd);
}

static void context_init(int fd)
{
	uint32_t capset = VIRTIO_GPU_CAPSET_AMDKFD;

	vt_send(fd, VTW_CMD_CONTEXT_INIT, &capset, 1);
}

static int create_blob(int fd, uint64_t id, uint64_t size, uint32_t flags, uint32_t *res_id)
{
	uint32_t req[6] = {VTW_BLOB_TYPE_HOST3D,   flags,        (uint32_t)size,
			   (uint32_t)(size >> 32), (uint32_t)id, (uint32_t)(id >> 32)};

	vt_send(fd, VTW_CMD_RESOURCE_CREATE_BLOB, req, 6);
	vt_recv(fd, VTW_CMD_RESOURCE_CREATE_BLOB, res_id, 1);
	if (!*res_id)
		return -1;
	return vtio_recv_fd(fd, IO_TIMEOUT);
}

static int setup(void **state)
{
	(void)state;
	if (harness_start(&srv, NULL))
		return -1;
	baseline_fds = harness_fd_count(srv.pid);
	return baseline_fds > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	struct stat st;
	int rc = harness_stop(&srv);

	if (rc != 0)
		return -1;
	/* clean shutdown removes the socket */
	return stat(srv.sock, &st) == 0 ? -1 : 0;
}

static void test_params_and_capset(void **state)
{
	int fd = vt_handshake();
	uint32_t p = VTW_PARAM_MAX_TIMELINE_COUNT, out[2];
	uint32_t cs[1 + sizeof(struct vkfd_capset) / 4];
	struct vkfd_capset c;

	(void)state;
	vt_send(fd, VTW_CMD_GET_PARAM, &p, 1);
	vt_recv(fd, VTW_CMD_GET_PARAM, out, 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 64);
	p = 12345;
	vt_send(fd, VTW_CMD_GET_PARAM, &p, 1);
	vt_recv(fd, VTW_CMD_GET_PARAM, out, 2);
	assert_int_equal(out[0], 0);

	uint32_t q[2] = {VIRTIO_GPU_CAPSET_AMDKFD, VKFD_PROTO_VERSION};

	vt_send(fd, VTW_CMD_GET_CAPSET, q, 2);
	vt_recv(fd, VTW_CMD_GET_CAPSET, cs, 1 + sizeof(c) / 4);
	assert_int_equal(cs[0], 1);
	memcpy(&c, cs + 1, sizeof(c));
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), 0);
	assert_int_equal(c.shmem_size, VKFD_SHMEM_SIZE);
	assert_int_equal(c.reserved, 0);

	q[0] = 4; /* venus: not ours */
	vt_send(fd, VTW_CMD_GET_CAPSET, q, 2);
	vt_recv(fd, VTW_CMD_GET_CAPSET, out, 1);
	assert_int_equal(out[0], 0);
	/* versions we do not speak: "not available", one dword, no payload */
	q[0] = VIRTIO_GPU_CAPSET_AMDKFD;
	for (uint32_t v = 0; v < 3; v += 2) {
		q[1] = v;
		vt_send(fd, VTW_CMD_GET_CAPSET, q, 2);
		vt_recv(fd, VTW_CMD_GET_CAPSET, out, 1);
		assert_int_equal(out[0], 0);
	}
	close(fd);
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

/* SUBMIT_CMD2 with one batch on `ring` signalling (sync, value). */
static void submit(int fd, const void *cmd, uint32_t bytes, uint32_t ring, uint32_t sync,
		   uint64_t value)
{
	uint32_t ndw = 1 + 8 + bytes / 4 + 3;
	uint32_t *p = calloc(ndw, 4);

	assert_non_null(p);
	p[0] = 1;
	p[1 + VTW_BATCH_FLAGS] = VTW_SUBMIT_FLAG_RING_IDX;
	p[1 + VTW_BATCH_CMD_OFFSET] = 9;
	p[1 + VTW_BATCH_CMD_SIZE] = bytes / 4;
	p[1 + VTW_BATCH_SYNC_OFFSET] = 9 + bytes / 4;
	p[1 + VTW_BATCH_SYNC_COUNT] = 1;
	p[1 + VTW_BATCH_RING_IDX] = ring;
	memcpy(p + 9, cmd, bytes);
	p[9 + bytes / 4] = sync;
	p[10 + bytes / 4] = (uint32_t)value;
	p[11 + bytes / 4] = (uint32_t)(value >> 32);
	vt_send(fd, VTW_CMD_SUBMIT_CMD2, p, ndw);
	free(p);
}

static void wait_sync(int fd, uint32_t sync, uint64_t value)
{
	uint32_t w[5] = {0, 5000, sync, (uint32_t)value, (uint32_t)(value >> 32)};

	vt_send(fd, VTW_CMD_SYNC_WAIT, w, 5);
	vt_recv(fd, VTW_CMD_SYNC_WAIT, NULL, 0);
	int efd = vtio_recv_fd(fd, IO_TIMEOUT);

	assert_true(efd >= 0);
	struct pollfd p = {.fd = efd, .events = POLLIN};

	assert_int_equal(poll(&p, 1, 5000), 1);
	close(efd);
}

static void test_context_shmem_roundtrip(void **state)
{
	int fd = vt_handshake();
	uint32_t res = 0, sync = 0, zero[2] = {0, 0};
	struct stat st;

	(void)state;
	context_init(fd);
	int shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE, &res);

	assert_true(shm >= 0);
	assert_int_not_equal(res, 0);
	assert_int_equal(fstat(shm, &st), 0);
	assert_true(st.st_size >= (off_t)VKFD_SHMEM_SIZE);
	uint8_t *m = mmap(NULL, VKFD_SHMEM_SIZE, PROT_READ, MAP_SHARED, shm, 0);

	assert_true(m != MAP_FAILED);
	assert_int_equal(vkfd_shmem_check(m, VKFD_SHMEM_SIZE), 0);

	vt_send(fd, VTW_CMD_SYNC_CREATE, zero, 2);
	vt_recv(fd, VTW_CMD_SYNC_CREATE, &sync, 1);
	assert_int_not_equal(sync, 0);

	/* HELLO then GET_VERSION, one batch */
	uint64_t batch[64];
	struct vkfd_builder b;
	struct vkfd_req_hello hello;
	struct vkfd_req_get_version gv;
	uint32_t seq;

	memset(&hello, 0, sizeof(hello));
	hello.version_min = hello.version_max = VKFD_PROTO_VERSION;
	memset(&gv, 0, sizeof(gv));
	vkfd_builder_init(&b, batch, sizeof(batch), 1);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_HELLO, &hello, sizeof(hello), 0, NULL), 0);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), 256, &seq), 0);
	submit(fd, batch, (uint32_t)b.len, 0, sync, 1);
	wait_sync(fd, sync, 1);

	uint32_t val[2];

	vt_send(fd, VTW_CMD_SYNC_READ, &sync, 1);
	vt_recv(fd, VTW_CMD_SYNC_READ, val, 2);
	assert_int_equal(val[0], 1);
	/* the ring-0 fence retired only after both requests ran */
	const struct vkfd_shmem_hdr *h = (const void *)m;

	assert_true(vkfd_seqno_passed(h->seqno, seq));
	struct vkfd_rsp_get_version rsp;

	memcpy(&rsp, m + VKFD_SHMEM_RSP_OFF + 256, sizeof(rsp));
	assert_int_equal(rsp.hdr.seqno, seq);
	assert_int_equal(rsp.hdr.ret, 0);
	assert_int_equal(rsp.major, 1);

	vt_send(fd, VTW_CMD_RESOURCE_UNREF, &res, 1);
	munmap(m, VKFD_SHMEM_SIZE);
	close(shm);
	close(fd);
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

static void test_sync_write_wakes_wait(void **state)
{
	int fd = vt_handshake();
	uint32_t sync, zero[2] = {0, 0};

	(void)state;
	vt_send(fd, VTW_CMD_SYNC_CREATE, zero, 2);
	vt_recv(fd, VTW_CMD_SYNC_CREATE, &sync, 1);
	uint32_t w[5] = {0, 5000, sync, 7, 0};

	vt_send(fd, VTW_CMD_SYNC_WAIT, w, 5);
	vt_recv(fd, VTW_CMD_SYNC_WAIT, NULL, 0);
	int efd = vtio_recv_fd(fd, IO_TIMEOUT);

	assert_true(efd >= 0);
	struct pollfd p = {.fd = efd, .events = POLLIN};

	assert_int_equal(poll(&p, 1, 0), 0);
	uint32_t wr[3] = {sync, 7, 0};

	vt_send(fd, VTW_CMD_SYNC_WRITE, wr, 3);
	assert_int_equal(poll(&p, 1, 5000), 1);
	close(efd);
	vt_send(fd, VTW_CMD_SYNC_UNREF, &sync, 1);
	close(fd);
}

/* Each hostile message ends its connection, and only that one. */
static void test_hostile_messages(void **state)
{
	int keeper = vt_handshake(); /* an innocent client, served throughout */
	uint32_t junk[16];
	int fd;

	(void)state;
	memset(junk, 0xab, sizeof(junk));

	fd = vt_connect(srv.sock); /* not starting with CREATE_RENDERER */
	hostile_send(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	assert_dropped(fd);

	fd = vt_connect(srv.sock); /* renderer name far too long */
	{
		uint32_t h[2] = {1u << 30, VTW_CMD_CREATE_RENDERER};

		(void)vtio_write_full(fd, h, 8);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* unknown command */
	hostile_send(fd, 999, junk, 4);
	assert_dropped(fd);

	fd = vt_handshake(); /* legacy command we do not serve */
	hostile_send(fd, VTW_CMD_RESOURCE_CREATE, junk, 10);
	assert_dropped(fd);

	fd = vt_handshake(); /* 16 GiB payload announced */
	{
		uint32_t h[2] = {0xffffffffu, VTW_CMD_SUBMIT_CMD2};

		(void)vtio_write_full(fd, h, 8);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* fixed-size command with the wrong size */
	hostile_send(fd, VTW_CMD_GET_CAPSET, junk, 5);
	assert_dropped(fd);

	fd = vt_handshake(); /* submit before CONTEXT_INIT */
	{
		uint32_t p[9] = {1};

		hostile_send(fd, VTW_CMD_SUBMIT_CMD2, p, 9);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* batch count larger than the message */
	context_init(fd);
	{
		uint32_t p[9] = {1000};

		hostile_send(fd, VTW_CMD_SUBMIT_CMD2, p, 9);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* batch pointing past the message */
	context_init(fd);
	{
		uint32_t p[9] = {1, 0, 5, 0xfffffff0u, 0, 0, 0, 0, 0};

		hostile_send(fd, VTW_CMD_SUBMIT_CMD2, p, 9);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* ring out of range */
	context_init(fd);
	{
		uint32_t p[9] = {1, VTW_SUBMIT_FLAG_RING_IDX, 9, 0, 9, 0, 64, 0, 0};

		hostile_send(fd, VTW_CMD_SUBMIT_CMD2, p, 9);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* wait on a sync that does not exist */
	{
		uint32_t w[5] = {0, 10, 4242, 1, 0};

		hostile_send(fd, VTW_CMD_SYNC_WAIT, w, 5);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* second CONTEXT_INIT, wrong capset */
	{
		uint32_t c = 4;

		hostile_send(fd, VTW_CMD_CONTEXT_INIT, &c, 1);
	}
	assert_dropped(fd);

	fd = vt_handshake(); /* blob of an absurd size: refused, connection kept */
	context_init(fd);
	{
		uint32_t res = 1;

		assert_int_equal(create_blob(fd, 77, 1ull << 50, VTW_BLOB_FLAG_MAPPABLE, &res), -1);
		assert_int_equal(res, 0);
		/* unknown blob id: refused as well */
		assert_int_equal(create_blob(fd, 78, 4096, VTW_BLOB_FLAG_MAPPABLE, &res), -1);
		vt_send(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
		vt_recv(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	}
	close(fd);

	fd = vt_handshake(); /* fds smuggled with a message are closed */
	{
		int p[2];

		assert_int_equal(pipe(p), 0);
		assert_int_equal(vtio_send_fd(fd, p[0]), 0); /* one stray byte... */
		/* ...then garbage framing: the byte is the start of a header */
		close(p[0]);
		close(p[1]);
	}
	(void)vtio_write_full(fd, junk, 7);
	assert_dropped(fd);

	/* the innocent client never noticed */
	vt_send(keeper, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	vt_recv(keeper, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	close(keeper);
	assert_int_equal(kill(srv.pid, 0), 0);
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

/* A zero-length renderer name is legal (and once tripped UBSan). */
/* RESOURCE_IMPORT_FD (docs/server.md, "Shared resources"): files that
 * are not a shareable blob of this server are answered res_id 0 and the
 * client is served on; a malformed message ends the client. */
static void test_import_fd_messages(void **state)
{
	uint32_t rep[VTW_IMPORT_FD_REPLY_DWORDS], res = 0, one = 1;
	int fd, shm, mfd, nul;

	(void)state;
	fd = vt_handshake();
	/* the server says it serves the command */
	{
		uint32_t param = VTW_PARAM_VKFD_IMPORT_FD, out[2];

		vt_send(fd, VTW_CMD_GET_PARAM, &param, 1);
		vt_recv(fd, VTW_CMD_GET_PARAM, out, 2);
		assert_int_equal(out[0], 1);
		assert_int_equal(out[1], 1);
	}
	context_init(fd);
	/* the context's own shared memory, even asked SHAREABLE, is never
	 * shared; a memfd and /dev/null are not blobs at all */
	shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE | VTW_BLOB_FLAG_SHAREABLE,
			  &res);
	if (shm < 0) /* the host may refuse SHAREABLE on blob 0 */
		shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE, &res);
	assert_true(shm >= 0);
	mfd = memfd_create("not-a-blob", MFD_CLOEXEC);
	assert_true(mfd >= 0);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(nul >= 0);
	const int fds[] = {shm, mfd, nul, fd};

	for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		vt_send(fd, VTW_CMD_RESOURCE_IMPORT_FD, NULL, 0);
		assert_int_equal(vtio_send_fd(fd, fds[i]), 0);
		vt_recv(fd, VTW_CMD_RESOURCE_IMPORT_FD, rep, VTW_IMPORT_FD_REPLY_DWORDS);
		assert_int_equal(rep[0], 0);
		assert_int_equal(rep[1], 0);
		assert_int_equal(rep[2], 0);
	}
	/* still served */
	vt_send(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	vt_recv(fd, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	close(fd);

	/* before CONTEXT_INIT */
	fd = vt_handshake();
	hostile_send(fd, VTW_CMD_RESOURCE_IMPORT_FD, NULL, 0);
	(void)vtio_send_fd(fd, mfd);
	assert_dropped(fd);
	/* a payload where none belongs */
	fd = vt_handshake();
	context_init(fd);
	hostile_send(fd, VTW_CMD_RESOURCE_IMPORT_FD, &one, 1);
	assert_dropped(fd);
	/* the byte arrives without an fd */
	fd = vt_handshake();
	context_init(fd);
	hostile_send(fd, VTW_CMD_RESOURCE_IMPORT_FD, NULL, 0);
	assert_int_equal(vtio_write_full(fd, "x", 1), 0);
	assert_dropped(fd);

	close(nul);
	close(mfd);
	close(shm);
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

static void test_empty_renderer_name(void **state)
{
	int fd = vt_connect(srv.sock);
	uint32_t h[2] = {0, VTW_CMD_CREATE_RENDERER}, v = 3;

	(void)state;
	assert_int_equal(vtio_write_full(fd, h, 8), 0);
	vt_send(fd, VTW_CMD_PROTOCOL_VERSION, &v, 1);
	vt_recv(fd, VTW_CMD_PROTOCOL_VERSION, &v, 1);
	assert_int_equal(v, 3);
	close(fd);
}

/* Seeded garbage after a valid handshake (and with none): whatever a
 * worker makes of it, the server survives and releases everything. */
static void test_random_garbage(void **state)
{
	unsigned seed = 12345;
	uint8_t buf[1024];

	(void)state;
	for (int i = 0; i < 90; i++) {
		/* pace: stay well below --max-clients on a slow machine */
		for (int k = 0; k < 2000 && harness_children(srv.pid, NULL) > 8; k++)
			usleep(10000);
		int fd = (i % 3 == 0) ? vt_connect(srv.sock) : vt_handshake();
		size_t len = 1 + (size_t)rand_r(&seed) % sizeof(buf);

		for (size_t k = 0; k < len; k++)
			buf[k] = (uint8_t)rand_r(&seed);
		/* small command ids and lengths reach the real handlers */
		if (i % 2 == 0 && len >= 8) {
			uint32_t h[2] = {(uint32_t)rand_r(&seed) % 16,
					 1 + (uint32_t)rand_r(&seed) % 24};

			memcpy(buf, h, sizeof(h));
		}
		/* the worker may already have dropped us: ignore EPIPE */
		(void)vtio_write_full(fd, buf, len);
		close(fd);
	}
	assert_true(harness_settle(srv.pid, baseline_fds, 60000));
	int fd = vt_handshake();

	close(fd);
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

/* Well-framed vtest carrying random vkfd batches (some with valid request
 * headers): the host decodes garbage, the batch's fence still retires, and
 * the worker releases everything when the client goes. */
static void test_random_batches(void **state)
{
	unsigned seed = 777;

	(void)state;
	for (int i = 0; i < 16; i++) {
		int fd = vt_handshake();
		uint32_t res = 0, sync = 0, zero[2] = {0, 0};
		uint32_t batch[512];

		context_init(fd);
		int shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE, &res);

		assert_true(shm >= 0);
		vt_send(fd, VTW_CMD_SYNC_CREATE, zero, 2);
		vt_recv(fd, VTW_CMD_SYNC_CREATE, &sync, 1);
		uint32_t ndw = 4 + (uint32_t)rand_r(&seed) % (512 - 4);

		for (uint32_t k = 0; k < ndw; k++)
			batch[k] = (uint32_t)rand_r(&seed);
		if (i % 2 == 0) {
			/* a plausible header: known command, length within the batch */
			batch[0] = 1 + (uint32_t)rand_r(&seed) % VKFD_CMD_COUNT_;
			batch[1] = 16 + 8 * ((uint32_t)rand_r(&seed) % ((ndw * 4 - 16) / 8 + 1));
			batch[3] = 8 * ((uint32_t)rand_r(&seed) % 64);
		}
		submit(fd, batch, ndw * 4, 0, sync, 1);
		wait_sync(fd, sync, 1);
		close(shm);
		close(fd);
	}
	assert_true(harness_settle(srv.pid, baseline_fds, 60000));
}

static void test_client_killed_mid_command(void **state)
{
	int ready[2];
	char c;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = vt_handshake();
		uint32_t res;

		context_init(fd);
		int shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE, &res);

		if (shm < 0)
			_exit(1);
		/* half a SUBMIT_CMD2, then die */
		uint32_t h[4] = {100, VTW_CMD_SUBMIT_CMD2, 1, 0};

		if (vtio_write_full(fd, h, sizeof(h)))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	pid_t worker = 0;

	assert_int_equal(harness_children(srv.pid, &worker), 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* the worker tears down and exits; the parent reaps it */
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
	assert_int_not_equal(kill(worker, 0), 0);

	/* and the server still serves */
	int fd = vt_handshake();
	uint32_t res = 0;

	context_init(fd);
	int shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE, &res);

	assert_true(shm >= 0);
	close(shm);
	close(fd);
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

static void test_many_clients_sequentially(void **state)
{
	(void)state;
	for (int i = 0; i < 20; i++) {
		int fd = vt_handshake();
		uint32_t res = 0;

		context_init(fd);
		int shm = create_blob(fd, 0, VKFD_SHMEM_SIZE, VTW_BLOB_FLAG_MAPPABLE, &res);

		assert_true(shm >= 0);
		close(shm);
		close(fd);
	}
	assert_true(harness_settle(srv.pid, baseline_fds, 30000));
}

static void test_max_clients_and_sigterm(void **state)
{
	struct test_server s2 = {0};
	const char *const extra[] = {"--max-clients", "1", NULL};
	struct test_server saved = srv;
	struct stat st;

	(void)state;
	assert_int_equal(harness_start(&s2, extra), 0);
	srv = s2;
	int a = vt_handshake();

	context_init(a);
	/* the second client is refused (closed at once) */
	int b = vt_connect(s2.sock);

	assert_dropped(b);
	/* SIGTERM with a live client: the worker is stopped, the socket
	 * file removed, the client sees the end of the stream */
	assert_int_equal(harness_stop(&s2), 0);
	assert_int_not_equal(stat(s2.sock, &st), 0);
	assert_dropped(a);
	srv = saved;
}

static void test_cli_errors(void **state)
{
	struct test_server s2 = {0};
	const char *const bad_dev[] = {"--device", "gpu9000", NULL};
	const char *const bad_num[] = {"--max-clients", "-3", NULL};

	(void)state;
	assert_int_not_equal(harness_start(&s2, bad_dev), 0);
	assert_int_not_equal(harness_start(&s2, bad_num), 0);
	/* a second server on a live socket refuses to start */
	{
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			int devnull = open("/dev/null", O_WRONLY);

			dup2(devnull, 2);
			execl(test_server_bin, test_server_bin, "--socket", srv.sock, (char *)NULL);
			_exit(127);
		}
		int status;

		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 1);
	}
	/* a leftover socket file nobody listens on is replaced */
	{
		struct test_server s3;
		struct sockaddr_un a;
		int lfd = socket(AF_UNIX, SOCK_STREAM, 0);

		memset(&s3, 0, sizeof(s3));
		snprintf(s3.sock, sizeof(s3.sock), "/tmp/vkfd-test-stale-%d.sock", (int)getpid());
		unlink(s3.sock);
		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		strcpy(a.sun_path, s3.sock);
		assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
		close(lfd); /* the file stays */
		s3.keep_path = true;
		assert_int_equal(harness_start(&s3, NULL), 0);
		struct test_server saved = srv;

		srv = s3;
		close(vt_handshake());
		srv = saved;
		assert_int_equal(harness_stop(&s3), 0);
	}
	/* the first server is untouched */
	int fd = vt_handshake();

	close(fd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_params_and_capset),
	    cmocka_unit_test(test_context_shmem_roundtrip),
	    cmocka_unit_test(test_sync_write_wakes_wait),
	    cmocka_unit_test(test_hostile_messages),
	    cmocka_unit_test(test_import_fd_messages),
	    cmocka_unit_test(test_empty_renderer_name),
	    cmocka_unit_test(test_random_garbage),
	    cmocka_unit_test(test_random_batches),
	    cmocka_unit_test(test_client_killed_mid_command),
	    cmocka_unit_test(test_many_clients_sequentially),
	    cmocka_unit_test(test_max_clients_and_sigterm),
	    cmocka_unit_test(test_cli_errors),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-vkfd-server\n", argv[0]);
		return 2;
	}
	test_server_bin = argv[1];
	harness_set_server_bin(argv[1]);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
