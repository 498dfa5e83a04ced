// SPDX-License-Identifier: MIT
/*
 * vtest transport: the client side of vkfd-server's (or a vkfd-enabled
 * virgl_test_server's) vtest socket protocol. One socket, requests and
 * replies serialised by a mutex; one timeline sync per ring, created on
 * first use, carries the ring's fences.
 */
#include "guest_log.h"
#include "guest_transport.h"
#include "vtest_io.h"
#include "vtest_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vkfd_protocol.h"

#define DEFAULT_REPLY_TIMEOUT_MS 60000
#define MAX_CAPSET_DWORDS        16384
/* SUBMIT_CMD2 framing around one batch: count, batch, one sync triple. */
#define SUBMIT_OVERHEAD_DW (1 + VTW_BATCH_DWORDS + 3)

struct gt_vtest {
	struct guest_transport base;
	int sock;
	int reply_timeout_ms;
	pthread_mutex_t lock;
	bool dead;
	bool import_fd;                 /* the server serves RESOURCE_IMPORT_FD */
	uint32_t sync_id[GT_NUM_RINGS]; /* 0: not created yet */
	uint64_t seq[GT_NUM_RINGS];
	uint32_t *tx;
	size_t tx_cap; /* dwords */
};

static struct gt_vtest *to_vt(struct guest_transport *t)
{
	return (struct gt_vtest *)t;
}

/* Any I/O failure leaves the stream mis-framed: the connection is dead. */
static int fail(struct gt_vtest *v, int err)
{
	if (!v->dead)
		guest_log(GUEST_LOG_WARN, "vtest transport lost: %s", strerror(-err));
	v->dead = true;
	return err == -ETIMEDOUT || err == -EPROTO ? err : -EPIPE;
}

static int send_cmd(struct gt_vtest *v, uint32_t cmd, const uint32_t *p, uint32_t ndw)
{
	uint32_t hdr[VTW_HDR_DWORDS] = {ndw, cmd};
	int r;

	if (v->dead)
		return -EPIPE;
	r = vtio_write_full(v->sock, hdr, sizeof(hdr));
	if (!r && ndw)
		r = vtio_write_full(v->sock, p, ndw * 4u);
	return r ? fail(v, r) : 0;
}

/* Read a reply header for `cmd`; returns its payload length in dwords. */
static int recv_hdr(struct gt_vtest *v, uint32_t cmd, uint32_t max_dw)
{
	uint32_t hdr[VTW_HDR_DWORDS];
	int r = vtio_read_full(v->sock, hdr, sizeof(hdr), v->reply_timeout_ms, NULL);

	if (r)
		return fail(v, r);
	if (hdr[VTW_HDR_CMD] != cmd || hdr[VTW_HDR_LEN] > max_dw) {
		guest_log(GUEST_LOG_ERROR, "vtest: reply {%u, %u} to command %u", hdr[0], hdr[1],
			  cmd);
		return fail(v, -EPROTO);
	}
	return (int)hdr[VTW_HDR_LEN];
}

static int recv_exact(struct gt_vtest *v, uint32_t cmd, uint32_t *p, uint32_t ndw)
{
	int n = recv_hdr(v, cmd, ndw);

	if (n < 0)
		return n;
	if ((uint32_t)n != ndw)
		return fail(v, -EPROTO);
	int r = ndw ? vtio_read_full(v->sock, p, ndw * 4u, v->reply_timeout_ms, NULL) : 0;

	return r ? fail(v, r) : 0;
}

static int handshake(struct gt_vtest *v)
{
	char name[64];
	uint32_t ver = VTW_PROTOCOL_VERSION, out[2];
	int r;

	snprintf(name, sizeof(name), "vkfd-guest-%d", (int)getpid());
	uint32_t hdr[VTW_HDR_DWORDS] = {(uint32_t)strlen(name) + 1, VTW_CMD_CREATE_RENDERER};

	r = vtio_write_full(v->sock, hdr, sizeof(hdr));
	if (!r)
		r = vtio_write_full(v->sock, name, strlen(name) + 1);
	if (r)
		return fail(v, r);
	if ((r = send_cmd(v, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0)) ||
	    (r = recv_exact(v, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0)) ||
	    (r = send_cmd(v, VTW_CMD_PROTOCOL_VERSION, &ver, 1)) ||
	    (r = recv_exact(v, VTW_CMD_PROTOCOL_VERSION, &ver, 1)))
		return r;
	if (ver < VTW_PROTOCOL_VERSION) {
		guest_log(GUEST_LOG_ERROR, "vtest server speaks protocol %u, need %u", ver,
			  VTW_PROTOCOL_VERSION);
		return -EPROTO;
	}
	uint32_t param = VTW_PARAM_MAX_TIMELINE_COUNT;

	if ((r = send_cmd(v, VTW_CMD_GET_PARAM, &param, 1)) ||
	    (r = recv_exact(v, VTW_CMD_GET_PARAM, out, 2)))
		return r;
	if (!out[0] || out[1] < GT_NUM_RINGS) {
		guest_log(GUEST_LOG_ERROR, "vtest server offers %u timelines, need %u",
			  out[0] ? out[1] : 0, GT_NUM_RINGS);
		return -EPROTO;
	}
	/* vkfd-server's sharing; other vtest servers answer "invalid" */
	param = VTW_PARAM_VKFD_IMPORT_FD;
	if ((r = send_cmd(v, VTW_CMD_GET_PARAM, &param, 1)) ||
	    (r = recv_exact(v, VTW_CMD_GET_PARAM, out, 2)))
		return r;
	v->import_fd = out[0] && out[1];
	return 0;
}

static int vt_get_capset(struct guest_transport *t, uint32_t version, void *buf, size_t cap)
{
	struct gt_vtest *v = to_vt(t);
	uint32_t req[2] = {VIRTIO_GPU_CAPSET_AMDKFD, version}, valid;
	uint32_t *data = NULL;
	int n, r;

	pthread_mutex_lock(&v->lock);
	r = send_cmd(v, VTW_CMD_GET_CAPSET, req, 2);
	if (r)
		goto out;
	n = recv_hdr(v, VTW_CMD_GET_CAPSET, MAX_CAPSET_DWORDS);
	if (n < 1) {
		r = n < 0 ? n : fail(v, -EPROTO);
		goto out;
	}
	r = vtio_read_full(v->sock, &valid, 4, v->reply_timeout_ms, NULL);
	if (r) {
		r = fail(v, r);
		goto out;
	}
	data = calloc((size_t)n, 4);
	if (!data) {
		r = fail(v, -ENOMEM); /* cannot drain the reply */
		goto out;
	}
	if (n > 1) {
		r = vtio_read_full(v->sock, data, (size_t)(n - 1) * 4, v->reply_timeout_ms, NULL);
		if (r) {
			r = fail(v, r);
			goto out;
		}
	}
	if (!valid) {
		r = -ENOENT;
		goto out;
	}
	size_t size = (size_t)(n - 1) * 4;

	if (size > cap)
		size = cap;
	memcpy(buf, data, size);
	r = (int)size;
out:
	pthread_mutex_unlock(&v->lock);
	free(data);
	return r;
}

/* Caller holds the lock. */
static int ring_sync(struct gt_vtest *v, uint32_t ring)
{
	uint32_t init[2] = {0, 0}, id;
	int r;

	if (v->sync_id[ring])
		return 0;
	if ((r = send_cmd(v, VTW_CMD_SYNC_CREATE, init, 2)) ||
	    (r = recv_exact(v, VTW_CMD_SYNC_CREATE, &id, 1)))
		return r;
	if (!id)
		return fail(v, -EPROTO);
	v->sync_id[ring] = id;
	v->seq[ring] = 0;
	return 0;
}

static int vt_context_init(struct guest_transport *t)
{
	struct gt_vtest *v = to_vt(t);
	uint32_t capset = VIRTIO_GPU_CAPSET_AMDKFD;
	int r;

	pthread_mutex_lock(&v->lock);
	r = send_cmd(v, VTW_CMD_CONTEXT_INIT, &capset, 1);
	if (!r)
		r = ring_sync(v, 0);
	pthread_mutex_unlock(&v->lock);
	return r;
}

static int vt_blob_create(struct guest_transport *t, uint64_t blob_id, uint64_t size,
			  uint32_t flags, struct vkfd_guest_blob *out)
{
	struct gt_vtest *v = to_vt(t);
	uint32_t req[VTW_CREATE_BLOB_DWORDS] = {
	    VTW_BLOB_TYPE_HOST3D, flags,
	    (uint32_t)size,       (uint32_t)(size >> 32),
	    (uint32_t)blob_id,    (uint32_t)(blob_id >> 32),
	};
	uint32_t res_id = 0;
	int r, fd = -1;

	pthread_mutex_lock(&v->lock);
	if ((r = send_cmd(v, VTW_CMD_RESOURCE_CREATE_BLOB, req, VTW_CREATE_BLOB_DWORDS)) ||
	    (r = recv_exact(v, VTW_CMD_RESOURCE_CREATE_BLOB, &res_id, 1)))
		goto out;
	if (!res_id) {
		/* The server refused; its log says why. */
		r = -EINVAL;
		goto out;
	}
	fd = vtio_recv_fd(v->sock, v->reply_timeout_ms);
	if (fd < 0) {
		r = fail(v, fd);
		goto out;
	}
out:
	pthread_mutex_unlock(&v->lock);
	if (r)
		return r;
	memset(out, 0, sizeof(*out));
	out->blob_id = blob_id;
	out->size = size;
	out->res_id = res_id;
	out->fd = fd;
	return 0;
}

static void *vt_blob_map(struct guest_transport *t, const struct vkfd_guest_blob *b, void *addr,
			 size_t len, uint64_t offset, int prot)
{
	(void)t;
	if (b->fd < 0 || len == 0 || offset > b->size || len > b->size - offset) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return mmap(addr, len, prot, MAP_SHARED | (addr ? MAP_FIXED : 0), b->fd, (off_t)offset);
}

static void vt_blob_destroy(struct guest_transport *t, struct vkfd_guest_blob *b)
{
	struct gt_vtest *v = to_vt(t);

	if (b->res_id) {
		pthread_mutex_lock(&v->lock);
		send_cmd(v, VTW_CMD_RESOURCE_UNREF, &b->res_id, 1);
		pthread_mutex_unlock(&v->lock);
	}
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	b->res_id = 0;
}

static int vt_blob_export_fd(struct guest_transport *t, const struct vkfd_guest_blob *b,
			     int fd_flags)
{
	int fd;

	(void)t;
	if (b->fd < 0)
		return -EINVAL;
	fd = fcntl(b->fd, (fd_flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	return fd < 0 ? -errno : fd;
}

/* vkfd-server's RESOURCE_IMPORT_FD: the fd follows the header. */
static int vt_resource_import(struct guest_transport *t, int fd, struct vkfd_guest_resource *out)
{
	struct gt_vtest *v = to_vt(t);
	uint32_t rep[VTW_IMPORT_FD_REPLY_DWORDS];
	int r;

	if (!v->import_fd)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&v->lock);
	r = send_cmd(v, VTW_CMD_RESOURCE_IMPORT_FD, NULL, 0);
	if (!r) {
		r = vtio_send_fd(v->sock, fd);
		if (r)
			r = fail(v, r);
	}
	if (!r)
		r = recv_exact(v, VTW_CMD_RESOURCE_IMPORT_FD, rep, VTW_IMPORT_FD_REPLY_DWORDS);
	pthread_mutex_unlock(&v->lock);
	if (r)
		return r;
	if (!rep[0])
		return -EINVAL; /* not a blob this server shares; its log says why */
	out->res_id = rep[0];
	out->handle = 0;
	return 0;
}

static void vt_resource_release(struct guest_transport *t, struct vkfd_guest_resource *res)
{
	struct gt_vtest *v = to_vt(t);

	pthread_mutex_lock(&v->lock);
	send_cmd(v, VTW_CMD_RESOURCE_UNREF, &res->res_id, 1);
	pthread_mutex_unlock(&v->lock);
}

static int vt_submit(struct guest_transport *t, const void *cmd, size_t size, uint32_t ring,
		     uint64_t *fence)
{
	struct gt_vtest *v = to_vt(t);
	uint32_t cmd_dw = (uint32_t)(size / 4);
	int r;

	if (size % 4 || size > VKFD_MAX_BATCH_SIZE || ring >= GT_NUM_RINGS)
		return -EINVAL;
	pthread_mutex_lock(&v->lock);
	if (fence && (r = ring_sync(v, ring)))
		goto out;
	uint32_t *p = v->tx + VTW_HDR_DWORDS;
	uint32_t ndw = 1 + VTW_BATCH_DWORDS + cmd_dw + (fence ? 3 : 0);

	memset(v->tx, 0, (VTW_HDR_DWORDS + 1 + VTW_BATCH_DWORDS) * 4);
	v->tx[VTW_HDR_LEN] = ndw;
	v->tx[VTW_HDR_CMD] = VTW_CMD_SUBMIT_CMD2;
	p[0] = 1;
	uint32_t *b = p + 1;

	b[VTW_BATCH_FLAGS] = VTW_SUBMIT_FLAG_RING_IDX;
	b[VTW_BATCH_CMD_OFFSET] = 1 + VTW_BATCH_DWORDS;
	b[VTW_BATCH_CMD_SIZE] = cmd_dw;
	b[VTW_BATCH_SYNC_OFFSET] = 1 + VTW_BATCH_DWORDS + cmd_dw;
	b[VTW_BATCH_SYNC_COUNT] = fence ? 1 : 0;
	b[VTW_BATCH_RING_IDX] = ring;
	memcpy(p + 1 + VTW_BATCH_DWORDS, cmd, size);
	if (fence) {
		uint64_t val = ++v->seq[ring];
		uint32_t *s = p + 1 + VTW_BATCH_DWORDS + cmd_dw;

		s[0] = v->sync_id[ring];
		s[1] = (uint32_t)val;
		s[2] = (uint32_t)(val >> 32);
		*fence = val;
	}
	if (v->dead) {
		r = -EPIPE;
		goto out;
	}
	r = vtio_write_full(v->sock, v->tx, (VTW_HDR_DWORDS + ndw) * 4u);
	if (r)
		r = fail(v, r);
out:
	pthread_mutex_unlock(&v->lock);
	return r;
}

static int vt_wait(struct guest_transport *t, uint32_t ring, uint64_t value, int timeout_ms)
{
	struct gt_vtest *v = to_vt(t);
	uint32_t req[5];
	int r, fd = -1;

	if (ring >= GT_NUM_RINGS)
		return -EINVAL;
	pthread_mutex_lock(&v->lock);
	if (!v->sync_id[ring]) {
		r = -EINVAL;
		goto out;
	}
	req[0] = 0;
	req[1] = (uint32_t)(timeout_ms < 0 ? -1 : timeout_ms);
	req[2] = v->sync_id[ring];
	req[3] = (uint32_t)value;
	req[4] = (uint32_t)(value >> 32);
	if ((r = send_cmd(v, VTW_CMD_SYNC_WAIT, req, 5)) ||
	    (r = recv_exact(v, VTW_CMD_SYNC_WAIT, NULL, 0)))
		goto out;
	fd = vtio_recv_fd(v->sock, v->reply_timeout_ms);
	if (fd < 0)
		r = fail(v, fd);
out:
	pthread_mutex_unlock(&v->lock);
	if (r)
		return r;
	/* Also watch the socket: a server that dies never fires the fd. */
	struct pollfd p[2] = {
	    {.fd = fd, .events = POLLIN},
	    {.fd = v->sock, .events = POLLRDHUP},
	};
	struct timespec start, now;
	int left = timeout_ms;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int n = poll(p, 2, left);

		if (n > 0 && (p[0].revents & POLLIN)) {
			r = 0;
			break;
		}
		if (n > 0 && (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR))) {
			r = -EPIPE;
			break;
		}
		if (n == 0) {
			r = -ETIMEDOUT;
			break;
		}
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (timeout_ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			long el = (now.tv_sec - start.tv_sec) * 1000 +
				  (now.tv_nsec - start.tv_nsec) / 1000000;

			left = el >= timeout_ms ? 0 : timeout_ms - (int)el;
		}
	}
	close(fd);
	return r;
}

static void vt_destroy(struct guest_transport *t)
{
	struct gt_vtest *v = to_vt(t);

	if (v->sock >= 0)
		close(v->sock);
	pthread_mutex_destroy(&v->lock);
	free(v->tx);
	free(v);
}

static const struct guest_transport_ops vt_ops = {
    .name = "vtest",
    .type = VKFD_TRANSPORT_VTEST,
    .get_capset = vt_get_capset,
    .context_init = vt_context_init,
    .blob_create = vt_blob_create,
    .blob_map = vt_blob_map,
    .blob_destroy = vt_blob_destroy,
    .blob_export_fd = vt_blob_export_fd,
    .resource_import = vt_resource_import,
    .resource_release = vt_resource_release,
    .submit = vt_submit,
    .wait = vt_wait,
    .destroy = vt_destroy,
};

struct guest_transport *gt_vtest_open(const char *path)
{
	struct sockaddr_un addr;
	struct gt_vtest *v;
	const char *env;
	int r;

	if (!path)
		path = getenv("VKFD_SOCKET");
	if (!path || !*path) {
		errno = EINVAL;
		return NULL;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(addr.sun_path, path);
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->base.ops = &vt_ops;
	v->reply_timeout_ms = DEFAULT_REPLY_TIMEOUT_MS;
	env = getenv("VKFD_VTEST_TIMEOUT_MS");
	if (env && atoi(env) > 0)
		v->reply_timeout_ms = atoi(env);
	pthread_mutex_init(&v->lock, NULL);
	v->tx_cap = VTW_HDR_DWORDS + SUBMIT_OVERHEAD_DW + VKFD_MAX_BATCH_SIZE / 4;
	v->tx = calloc(v->tx_cap, 4);
	v->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!v->tx || v->sock < 0)
		goto fail_errno;
	if (connect(v->sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		goto fail_errno;
	r = handshake(v);
	if (r) {
		vt_destroy(&v->base);
		errno = -r;
		return NULL;
	}
	return &v->base;
fail_errno:
	r = errno;
	vt_destroy(&v->base);
	errno = r;
	return NULL;
}
