// SPDX-License-Identifier: MIT
/*
 * vkfd backend: connections (one per KFD process, each a guest library
 * connection to one host context), the protocol calls made on them, copies
 * from and to the application's memory, and the backend's log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"
#include "vkfd_log.h"

int bk_debug = -1;

uint64_t bk_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bk_log(const char *fmt, ...)
{
	va_list ap;

	/* per-call tracing: VKFD_DEBUG=debug (src/log/vkfd_log.h) */
	if (bk_debug < 0)
		bk_debug = vkfd_log_env_level(VKFD_LOG_ERROR) >= VKFD_LOG_DEBUG;
	if (!bk_debug)
		return;
	va_start(ap, fmt);
	vkfd_log_vwrite("vkfd-backend", VKFD_LOG_DEBUG, fmt, ap);
	va_end(ap);
}

int bk_read_user(void *dst, uint64_t src, size_t len)
{
	struct iovec l = {dst, len};
	struct iovec r = {(void *)(uintptr_t)src, len};
	ssize_t n;

	if (!len)
		return 0;
	if (!src)
		return -EFAULT;
	n = process_vm_readv(bk_self_pid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy(dst, (const void *)(uintptr_t)src, len);
		return 0;
	}
	return -EFAULT;
}

int bk_write_user(uint64_t dst, const void *src, size_t len)
{
	struct iovec l = {(void *)src, len};
	struct iovec r = {(void *)(uintptr_t)dst, len};
	ssize_t n;

	if (!len)
		return 0;
	if (!dst)
		return -EFAULT;
	n = process_vm_writev(bk_self_pid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy((void *)(uintptr_t)dst, src, len);
		return 0;
	}
	return -EFAULT;
}

int bk_errno(int r)
{
	/* a host answer outside the errno range is treated as an I/O error */
	if (r > 0 || r < -4095)
		return -EIO;
	return r;
}

/* Transport failures (host gone, context lost) look like a dead device. */
int bk_transport_err(int r)
{
	bk_log("transport error %d", r);
	if (r == -EINTR || r == -EAGAIN)
		return r; /* libhsakmt restarts these */
	return r == -EMSGSIZE || r == -EINVAL ? -EINVAL : -EIO;
}

int bk_call(struct bk_conn *c, uint32_t cmd, void *req, size_t req_len, void *rsp, size_t rsp_len)
{
	struct vkfd_req_hdr *h = req;
	uint64_t t0 = bk_prof_begin();
	int r;

	h->cmd = cmd;
	h->len = (uint32_t)req_len;
	memset(rsp, 0, rsp_len);
	bk_stats_count(&bk_stats.replies);
	__atomic_fetch_add(&c->n_sync, 1, __ATOMIC_RELAXED);
	r = vkfd_guest_call(c->g, req, req_len, rsp, rsp_len);
	bk_prof_cmd(cmd, t0);
	if (r)
		return bk_transport_err(r);
	return bk_errno(((struct vkfd_rsp_hdr *)rsp)->ret);
}

int bk_call_async(struct bk_conn *c, uint32_t cmd, void *req, size_t req_len)
{
	struct vkfd_req_hdr *h = req;
	int r;

	h->cmd = cmd;
	h->len = (uint32_t)req_len;
	__atomic_fetch_add(&c->n_async, 1, __ATOMIC_RELAXED);
	r = vkfd_guest_call_async(c->g, req, req_len);
	return r ? bk_transport_err(r) : 0;
}

/* An asynchronous request that becomes the map barrier (MAP_MEMORY_ASYNC):
 * its seqno is in the shared memory before this returns. */
int bk_call_async_barrier(struct bk_conn *c, uint32_t cmd, void *req, size_t req_len)
{
	struct vkfd_req_hdr *h = req;
	int r;

	h->cmd = cmd;
	h->len = (uint32_t)req_len;
	__atomic_fetch_add(&c->n_async, 1, __ATOMIC_RELAXED);
	r = vkfd_guest_call_async_barrier(c->g, req, req_len);
	return r ? bk_transport_err(r) : 0;
}

static bool bk_env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

/* VKFD_TRANSPORT if set; else vtest when VKFD_SOCKET names a socket (what
 * vkfd-run sets up); else the library's choice (virtgpu in a VM). */
static enum vkfd_transport bk_transport(void)
{
	const char *t = getenv("VKFD_TRANSPORT");
	const char *s = getenv("VKFD_SOCKET");

	if (t && !strcmp(t, "direct"))
		return VKFD_TRANSPORT_DIRECT;
	if (t && !strcmp(t, "virtgpu"))
		return VKFD_TRANSPORT_VIRTGPU;
	if ((t && !strcmp(t, "vtest")) || (s && *s))
		return VKFD_TRANSPORT_VTEST;
	return VKFD_TRANSPORT_AUTO;
}

struct bk_conn *bk_conn_new(int *err)
{
	struct bk_conn *c = calloc(1, sizeof(*c));
	struct vkfd_req_hello req;
	struct vkfd_rsp_hello rsp;
	int r;

	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	c->g = vkfd_guest_connect(bk_transport(), NULL);
	if (!c->g) {
		*err = -(errno ? errno : EIO);
		bk_log("connect failed: %s", strerror(-*err));
		free(c);
		return NULL;
	}
	c->pid = bk_self_pid();
	c->kfd_fd = -1;
	for (unsigned int i = 0; i < VKFD_MAX_GPUS; i++)
		c->acquired[i] = -1;
	pthread_mutex_init(&c->ev_lock, NULL);

	memset(&req, 0, sizeof(req));
	req.version_min = VKFD_PROTO_VERSION_MIN;
	req.version_max = VKFD_PROTO_VERSION_MAX;
	req.features = VKFD_FEAT_ALL_V1 |
		       (bk_arenas_enabled() ? VKFD_FEAT_ARENAS | VKFD_FEAT_USERPTR_PIECES : 0);
	/* protocol 1.1 allocation, unless a test asks for a 1.0 guest */
	if (!bk_env_is("VKFD_GUEST_PROTO_1_0", "1"))
		req.features |= VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC;
	/* asynchronous MAP, unless 1.0 or a measurement's baseline asks for
	 * synchronous maps (VKFD_GUEST_SYNC_MAP=1) */
	if (!bk_env_is("VKFD_GUEST_PROTO_1_0", "1") && !bk_env_is("VKFD_GUEST_SYNC_MAP", "1"))
		req.features |= VKFD_FEAT_ASYNC_MAP;
	/* the strict rule for asynchronous ALLOCs, which lets their MAPs go
	 * without a reply too, unless 1.0 or a measurement's baseline asks
	 * for the deferred errors (VKFD_GUEST_DEFERRED_ALLOC=1) */
	if (!bk_env_is("VKFD_GUEST_PROTO_1_0", "1") && !bk_env_is("VKFD_GUEST_DEFERRED_ALLOC", "1"))
		req.features |= VKFD_FEAT_STRICT_ALLOC;
	r = bk_call(c, VKFD_CMD_HELLO, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r) {
		bk_log("HELLO failed: %d", r);
		vkfd_guest_disconnect(c->g);
		free(c);
		*err = r == -ENOTTY ? -EPROTO : r;
		return NULL;
	}
	c->features = rsp.features;
	c->set_flush_always = bk_env_is("VKFD_GUEST_SET_FLUSH", "1");
	bk_alloc_state_init(c);
	return c;
}

void bk_conn_free(struct bk_conn *c)
{
	struct bk_bo *b, *n;

	if (!c)
		return;
	bk_userptr_conn_free_locked(c);
	bk_svm_conn_free_locked(c);
	for (b = c->bos; b; b = n) {
		n = b->next;
		if (b->has_blob && !c->dead)
			vkfd_guest_blob_destroy(c->g, &b->blob);
		bk_ipc_bo_release(c, b);
		free(b->pieces);
		free(b);
	}
	bk_arenas_free(c, !c->dead);
	/* A connection inherited over fork belongs to the parent: never send
	 * anything on it, only forget it. */
	if (!c->dead)
		vkfd_guest_disconnect(c->g);
	while (c->smi) {
		struct bk_smi *s = c->smi;

		c->smi = s->next;
		close(s->fd);
		free(s);
	}
	pthread_mutex_destroy(&c->ev_lock);
	bk_alloc_state_fini(c);
	free(c);
}
