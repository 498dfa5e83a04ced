// SPDX-License-Identifier: MIT
/*
 * Connection setup: pick a transport, read and check the capset, negotiate
 * the wire version, create the context, map the shared memory (blob 0) and
 * say HELLO. Also the blob and shmem accessors of the public API.
 */
#include "guest_internal.h"
#include "guest_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct guest_transport *open_transport(enum vkfd_transport tr, const char *target)
{
	if (tr == VKFD_TRANSPORT_AUTO) {
		const char *env = getenv("VKFD_TRANSPORT");

		if (env && !strcmp(env, "virtgpu"))
			tr = VKFD_TRANSPORT_VIRTGPU;
		else if (env && !strcmp(env, "vtest"))
			tr = VKFD_TRANSPORT_VTEST;
		else if (env && !strcmp(env, "direct"))
			tr = VKFD_TRANSPORT_DIRECT;
		else if (env && *env) {
			guest_log(GUEST_LOG_ERROR, "unknown VKFD_TRANSPORT '%s'", env);
			errno = EINVAL;
			return NULL;
		}
	}
	switch (tr) {
	case VKFD_TRANSPORT_VIRTGPU:
		return gt_virtgpu_open(target);
	case VKFD_TRANSPORT_VTEST:
		return gt_vtest_open(target);
	case VKFD_TRANSPORT_DIRECT:
		return gt_direct_open();
	case VKFD_TRANSPORT_AUTO: {
		struct guest_transport *t = gt_virtgpu_open(NULL);

		return t ? t : gt_vtest_open(target);
	}
	}
	errno = EINVAL;
	return NULL;
}

static int read_capset(struct vkfd_guest *g)
{
	uint8_t buf[256];
	int n, r;

	memset(buf, 0, sizeof(buf));
	n = g->t->ops->get_capset(g->t, VKFD_WIRE_FORMAT, buf, sizeof(buf));
	if (n < 0) {
		guest_log(GUEST_LOG_ERROR, "host offers no capset %u: %s", VIRTIO_GPU_CAPSET_AMDKFD,
			  strerror(-n));
		return n == -ENOENT ? -ENODEV : n;
	}
	/* Shorter capsets from older hosts are zero-extended. */
	memset(&g->capset, 0, sizeof(g->capset));
	memcpy(&g->capset, buf, (size_t)n < sizeof(g->capset) ? (size_t)n : sizeof(g->capset));
	g->capset_size = (size_t)n;
	uint32_t v;

	/* Versions first: that failure deserves the clearest message. */
	r = vkfd_version_negotiate(VKFD_PROTO_VERSION_MIN, VKFD_PROTO_VERSION_MAX,
				   g->capset.version_min, g->capset.version_max, &v);
	if (r) {
		guest_log(
		    GUEST_LOG_ERROR,
		    "no common protocol version: host speaks %u..%u, this guest library %u..%u",
		    g->capset.version_min, g->capset.version_max, VKFD_PROTO_VERSION_MIN,
		    VKFD_PROTO_VERSION_MAX);
		return -EPROTO;
	}
	r = vkfd_capset_check(&g->capset, sizeof(g->capset));
	if (r) {
		guest_log(
		    GUEST_LOG_ERROR,
		    "capset rejected (wire format %u, context type %u, shmem %u, rings %u): %s",
		    g->capset.wire_format, g->capset.context_type, g->capset.shmem_size,
		    g->capset.num_rings, strerror(-r));
		return -EPROTO;
	}
	g->version = v;
	return 0;
}

static int map_shmem(struct vkfd_guest *g)
{
	int r;

	if (g->capset.shmem_size && g->capset.shmem_size != VKFD_SHMEM_SIZE) {
		guest_log(GUEST_LOG_ERROR, "host shmem of %u bytes, expected %u",
			  g->capset.shmem_size, VKFD_SHMEM_SIZE);
		return -EPROTO;
	}
	r = g->t->ops->blob_create(g->t, VKFD_SHMEM_BLOB_ID, VKFD_SHMEM_SIZE,
				   VKFD_GUEST_BLOB_MAPPABLE, &g->shmem_blob);
	if (r) {
		guest_log(GUEST_LOG_ERROR, "shmem blob: %s", strerror(-r));
		return r;
	}
	/* writable for the one guest-written word, map_barrier (protocol 5.1) */
	void *p = g->t->ops->blob_map(g->t, &g->shmem_blob, NULL, VKFD_SHMEM_SIZE, 0,
				      PROT_READ | PROT_WRITE);

	if (p == MAP_FAILED) {
		r = -errno;
		guest_log(GUEST_LOG_ERROR, "shmem map: %s", strerror(-r));
		return r;
	}
	g->shmem = p;
	g->shmem_size = VKFD_SHMEM_SIZE;
	r = vkfd_shmem_check(g->shmem, g->shmem_size);
	if (r)
		guest_log(GUEST_LOG_ERROR, "shmem header invalid");
	return r;
}

struct vkfd_guest *vkfd_guest_connect(enum vkfd_transport transport, const char *target)
{
	struct vkfd_guest *g = calloc(1, sizeof(*g));
	int r;

	if (!g)
		return NULL;
	g->shmem_blob.fd = -1;
	g->next_blob_id = 1;
	g->t = open_transport(transport, target);
	if (!g->t) {
		r = errno ? -errno : -ENODEV;
		goto fail;
	}
	if ((r = read_capset(g)) || (r = g->t->ops->context_init(g->t)) || (r = map_shmem(g)) ||
	    (r = guest_calls_init(g)) || (r = guest_hello(g)))
		goto fail;
	guest_log(GUEST_LOG_INFO, "connected over %s, protocol %u", g->t->ops->name, g->version);
	return g;
fail:
	vkfd_guest_disconnect(g);
	errno = -r;
	return NULL;
}

void vkfd_guest_disconnect(struct vkfd_guest *g)
{
	if (!g)
		return;
	guest_calls_fini(g);
	if (g->shmem)
		munmap(g->shmem, g->shmem_size);
	if (g->t) {
		if (g->shmem_blob.res_id || g->shmem_blob.fd >= 0 || g->shmem_blob.handle)
			g->t->ops->blob_destroy(g->t, &g->shmem_blob);
		g->t->ops->destroy(g->t);
	}
	free(g);
}

enum vkfd_transport vkfd_guest_transport(const struct vkfd_guest *g)
{
	return g->t->ops->type;
}

const char *vkfd_guest_transport_name(const struct vkfd_guest *g)
{
	return g->t->ops->name;
}

int vkfd_guest_capset(struct vkfd_guest *g, void *buf, size_t size)
{
	size_t n = sizeof(g->capset);

	if (!g || (size && !buf))
		return -EINVAL;
	if (size < n)
		n = size;
	memcpy(buf, &g->capset, n);
	return (int)sizeof(g->capset);
}

uint32_t vkfd_guest_wire_version(const struct vkfd_guest *g)
{
	return g->version;
}

uint64_t vkfd_guest_blob_id_alloc(struct vkfd_guest *g)
{
	return __atomic_fetch_add(&g->next_blob_id, 1, __ATOMIC_RELAXED);
}

int vkfd_guest_blob_create(struct vkfd_guest *g, uint64_t blob_id, uint64_t size, uint32_t flags,
			   struct vkfd_guest_blob *out)
{
	int r;

	if (!g || !out || blob_id == VKFD_SHMEM_BLOB_ID || size == 0 ||
	    (flags & ~(VKFD_GUEST_BLOB_MAPPABLE | VKFD_GUEST_BLOB_SHAREABLE)))
		return -EINVAL;
	/* The request that created blob_id may still be queued. */
	r = vkfd_guest_flush(g);
	if (r)
		return r;
	return g->t->ops->blob_create(g->t, blob_id, size, flags, out);
}

void *vkfd_guest_blob_map(struct vkfd_guest *g, const struct vkfd_guest_blob *b, void *addr,
			  size_t len, uint64_t offset, int prot)
{
	if (!g || !b) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return g->t->ops->blob_map(g->t, b, addr, len, offset, prot);
}

void vkfd_guest_blob_destroy(struct vkfd_guest *g, struct vkfd_guest_blob *b)
{
	if (g && b)
		g->t->ops->blob_destroy(g->t, b);
}

int vkfd_guest_blob_export_fd(struct vkfd_guest *g, const struct vkfd_guest_blob *b, int fd_flags)
{
	if (!g || !b || (fd_flags & ~O_CLOEXEC))
		return -EINVAL;
	if (!g->t->ops->blob_export_fd)
		return -EOPNOTSUPP;
	return g->t->ops->blob_export_fd(g->t, b, fd_flags);
}

int vkfd_guest_resource_import(struct vkfd_guest *g, int fd, struct vkfd_guest_resource *out)
{
	if (!g || !out || fd < 0)
		return -EINVAL;
	if (!g->t->ops->resource_import)
		return -EOPNOTSUPP;
	memset(out, 0, sizeof(*out));
	return g->t->ops->resource_import(g->t, fd, out);
}

void vkfd_guest_resource_release(struct vkfd_guest *g, struct vkfd_guest_resource *r)
{
	if (g && r && r->res_id && g->t->ops->resource_release)
		g->t->ops->resource_release(g->t, r);
	if (r)
		memset(r, 0, sizeof(*r));
}

const volatile void *vkfd_guest_shmem(struct vkfd_guest *g, size_t *size)
{
	if (size)
		*size = g ? g->shmem_size : 0;
	return g ? g->shmem : NULL;
}

const volatile void *vkfd_guest_event_table(struct vkfd_guest *g, uint32_t *count)
{
	const struct vkfd_shmem_hdr *h;
	uint32_t n;

	if (count)
		*count = 0;
	if (!g || !g->shmem)
		return NULL;
	h = (const struct vkfd_shmem_hdr *)g->shmem;
	if (!(h->flags & VKFD_SHMEM_FLAG_EVENT_HINTS) || h->event_off != VKFD_SHMEM_EVENT_OFF)
		return NULL;
	n = h->event_count < VKFD_SHMEM_EVENT_COUNT ? h->event_count : VKFD_SHMEM_EVENT_COUNT;
	if (count)
		*count = n;
	return g->shmem + VKFD_SHMEM_EVENT_OFF;
}

uint32_t vkfd_guest_async_error(struct vkfd_guest *g)
{
	if (!g || !g->shmem)
		return 0;
	return vkfd_load_acquire_u32(&((const struct vkfd_shmem_hdr *)g->shmem)->async_error);
}
