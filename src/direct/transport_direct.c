// SPDX-License-Identifier: MIT
/*
 * direct transport: the host context lives in this process (vkfd_host_*),
 * for tests and for measuring the protocol without a socket or a VM. Fences
 * retire from the host library's threads. The host library allows one
 * context per process unless the device offers secondary KFD processes.
 */
#include "guest_log.h"
#include "guest_transport.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <vkfd/host.h>
#include "vkfd_protocol.h"

struct gt_direct {
	struct guest_transport base;
	struct vkfd_host_context *ctx;
	pthread_mutex_t submit_lock; /* submit + fence order per ring */
	pthread_mutex_t lock;        /* done[], cond; never held into the host */
	pthread_cond_t cond;
	uint64_t seq[GT_NUM_RINGS];
	uint64_t done[GT_NUM_RINGS];
	uint32_t next_res;
};

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned host_users;
static uint32_t next_ctx_id = 1;

static struct gt_direct *to_d(struct guest_transport *t)
{
	return (struct gt_direct *)t;
}

static void retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence)
{
	struct gt_direct *d = cookie;

	(void)ctx_id;
	if (!d || ring >= GT_NUM_RINGS)
		return;
	pthread_mutex_lock(&d->lock);
	if (fence > d->done[ring])
		d->done[ring] = fence;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

static int host_get(void)
{
	int r = 0;

	pthread_mutex_lock(&host_lock);
	if (host_users == 0) {
		struct vkfd_host_config cfg;
		const char *dev = getenv("VKFD_DIRECT_DEVICE");
		const char *no_arenas = getenv("VKFD_DIRECT_NO_ARENAS");

		memset(&cfg, 0, sizeof(cfg));
		cfg.api_version = VKFD_HOST_API_VERSION;
		cfg.flags = VKFD_HOST_FLAG_ASYNC_FENCES;
		/* a host without arenas, as one that predates them (tests) */
		if (no_arenas && !strcmp(no_arenas, "1"))
			cfg.flags |= VKFD_HOST_FLAG_NO_ARENAS;
		cfg.device = VKFD_DEVICE_SIM;
		if (dev && !strcmp(dev, "real"))
			cfg.device = VKFD_DEVICE_REAL;
		else if (dev && !strcmp(dev, "auto"))
			cfg.device = VKFD_DEVICE_AUTO;
		cfg.retire_fence = retire;
		r = vkfd_host_init(&cfg);
	}
	if (!r)
		host_users++;
	pthread_mutex_unlock(&host_lock);
	return r;
}

static void host_put(void)
{
	pthread_mutex_lock(&host_lock);
	if (host_users && --host_users == 0)
		vkfd_host_fini();
	pthread_mutex_unlock(&host_lock);
}

static int d_get_capset(struct guest_transport *t, uint32_t version, void *buf, size_t cap)
{
	size_t size = vkfd_host_capset_size(version);
	int r;

	(void)t;
	if (!size)
		return -ENOENT;
	uint8_t *tmp = calloc(1, size);

	if (!tmp)
		return -ENOMEM;
	r = vkfd_host_capset_fill(version, tmp, size);
	if (r >= 0) {
		size_t n = (size_t)r < cap ? (size_t)r : cap;

		memcpy(buf, tmp, n);
		r = (int)n;
	}
	free(tmp);
	return r;
}

static int d_context_init(struct guest_transport *t)
{
	struct gt_direct *d = to_d(t);
	uint32_t id;

	if (d->ctx)
		return -EALREADY;
	pthread_mutex_lock(&host_lock);
	id = next_ctx_id++;
	pthread_mutex_unlock(&host_lock);
	return vkfd_host_context_create(id, "vkfd-guest-direct", d, &d->ctx);
}

static int d_blob_create(struct guest_transport *t, uint64_t blob_id, uint64_t size, uint32_t flags,
			 struct vkfd_guest_blob *out)
{
	struct gt_direct *d = to_d(t);
	struct vkfd_blob blob;
	uint32_t res_id;
	int r;

	if (!d->ctx)
		return -EINVAL;
	memset(&blob, 0, sizeof(blob));
	pthread_mutex_lock(&d->lock);
	res_id = ++d->next_res;
	pthread_mutex_unlock(&d->lock);
	r = vkfd_host_context_get_blob(d->ctx, res_id, blob_id, size, flags, &blob);
	if (r)
		return r;
	if (blob.fd < 0)
		return -EIO;
	r = vkfd_host_context_attach_resource(d->ctx, res_id, blob.fd, size);
	if (r)
		guest_log(GUEST_LOG_DEBUG, "attach of res %u: %d", res_id, r);
	memset(out, 0, sizeof(*out));
	out->blob_id = blob_id;
	out->size = size;
	out->res_id = res_id;
	out->fd = blob.fd;
	return 0;
}

static void *d_blob_map(struct guest_transport *t, const struct vkfd_guest_blob *b, void *addr,
			size_t len, uint64_t offset, int prot)
{
	(void)t;
	if (b->fd < 0 || len == 0 || offset > b->size || len > b->size - offset) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return mmap(addr, len, prot, MAP_SHARED | (addr ? MAP_FIXED : 0), b->fd, (off_t)offset);
}

static void d_blob_destroy(struct guest_transport *t, struct vkfd_guest_blob *b)
{
	struct gt_direct *d = to_d(t);

	if (b->res_id && d->ctx)
		vkfd_host_context_detach_resource(d->ctx, b->res_id);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	b->res_id = 0;
}

static int d_submit(struct guest_transport *t, const void *cmd, size_t size, uint32_t ring,
		    uint64_t *fence)
{
	struct gt_direct *d = to_d(t);
	int r = 0;

	if (!d->ctx || ring >= GT_NUM_RINGS)
		return -EINVAL;
	pthread_mutex_lock(&d->submit_lock);
	if (size)
		r = vkfd_host_context_submit_cmd(d->ctx, cmd, size);
	if (!r && fence) {
		uint64_t v = ++d->seq[ring];

		r = vkfd_host_context_submit_fence(d->ctx, 0, ring, v);
		if (!r)
			*fence = v;
		else
			d->seq[ring]--;
	}
	pthread_mutex_unlock(&d->submit_lock);
	return r;
}

static int d_wait(struct guest_transport *t, uint32_t ring, uint64_t value, int timeout_ms)
{
	struct gt_direct *d = to_d(t);
	struct timespec dl;
	int r = 0;

	if (ring >= GT_NUM_RINGS)
		return -EINVAL;
	if (timeout_ms >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &dl);
		dl.tv_sec += timeout_ms / 1000;
		dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&d->lock);
	while (d->done[ring] < value && !r) {
		if (timeout_ms < 0)
			pthread_cond_wait(&d->cond, &d->lock);
		else if (pthread_cond_timedwait(&d->cond, &d->lock, &dl) == ETIMEDOUT)
			r = d->done[ring] >= value ? 0 : -ETIMEDOUT;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
}

static void d_destroy(struct guest_transport *t)
{
	struct gt_direct *d = to_d(t);

	if (d->ctx)
		vkfd_host_context_destroy(d->ctx);
	host_put();
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	pthread_mutex_destroy(&d->submit_lock);
	free(d);
}

static const struct guest_transport_ops d_ops = {
    .name = "direct",
    .type = VKFD_TRANSPORT_DIRECT,
    .get_capset = d_get_capset,
    .context_init = d_context_init,
    .blob_create = d_blob_create,
    .blob_map = d_blob_map,
    .blob_destroy = d_blob_destroy,
    .submit = d_submit,
    .wait = d_wait,
    .destroy = d_destroy,
};

struct guest_transport *gt_direct_open(void)
{
	struct gt_direct *d = calloc(1, sizeof(*d));
	pthread_condattr_t ca;
	int r;

	if (!d)
		return NULL;
	r = host_get();
	if (r) {
		free(d);
		errno = -r;
		return NULL;
	}
	d->base.ops = &d_ops;
	pthread_mutex_init(&d->lock, NULL);
	pthread_mutex_init(&d->submit_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->cond, &ca);
	pthread_condattr_destroy(&ca);
	return &d->base;
}
