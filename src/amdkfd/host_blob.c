// SPDX-License-Identifier: MIT
/*
 * Blobs: the context's shared memory (blob id 0) and lazy exports of BOs the
 * guest bound to a blob id. Ids are bound when the batch carrying BIND_BLOB
 * is submitted, so get_blob answers at once and never waits on the
 * executor.
 */
#include "host_export.h"
#include "host_internal.h"
#include "host_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define BLOB_FLAG_MAPPABLE     1u
#define BLOB_FLAG_SHAREABLE    2u
#define BLOB_FLAG_CROSS_DEVICE 4u

/*
 * The blob table: a hash of guest-chosen ids, keyed with a per-context
 * secret so that chosen ids cannot pile into one chain, plus a list per BO
 * so that freeing a BO drops its ids without scanning the table. Every
 * operation is O(1) expected: binds run on the VMM thread (submit_cmd).
 */
static uint64_t blob_hash(const struct vkfd_host_context *ctx, uint64_t blob_id)
{
	uint64_t x = blob_id ^ ctx->blob_key;

	/* splitmix64's finaliser */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static struct blob_entry **blob_slot(struct vkfd_host_context *ctx, uint64_t blob_id)
{
	struct blob_entry **p = &ctx->blob_buckets[blob_hash(ctx, blob_id) & (ctx->n_buckets - 1)];

	while (*p && (*p)->blob_id != blob_id)
		p = &(*p)->hnext;
	return p;
}

static struct blob_entry *blob_entry_find(struct vkfd_host_context *ctx, uint64_t blob_id)
{
	return ctx->n_buckets ? *blob_slot(ctx, blob_id) : NULL;
}

/* Keep chains short: as many buckets as entries (doubling, amortised O(1)). */
static int blob_table_grow(struct vkfd_host_context *ctx)
{
	uint32_t n = ctx->n_buckets ? ctx->n_buckets * 2 : 64;
	struct blob_entry **b;

	if (ctx->n_blobs < ctx->n_buckets)
		return 0;
	b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (!ctx->n_buckets) {
		/* unseen by the guest: ids it picks hash unpredictably */
		if (getrandom(&ctx->blob_key, sizeof(ctx->blob_key), GRND_NONBLOCK) !=
		    sizeof(ctx->blob_key)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			ctx->blob_key =
			    (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
		}
	}
	for (uint32_t i = 0; i < ctx->n_buckets; i++) {
		struct blob_entry *e = ctx->blob_buckets[i], *next;

		for (; e; e = next) {
			uint64_t h = blob_hash(ctx, e->blob_id) & (n - 1);

			next = e->hnext;
			e->hnext = b[h];
			b[h] = e;
		}
	}
	free(ctx->blob_buckets);
	ctx->blob_buckets = b;
	ctx->n_buckets = n;
	return 0;
}

static int blob_bind_locked(struct vkfd_host_context *ctx, uint64_t blob_id, struct host_bo *bo,
			    struct host_arena *arena)
{
	struct blob_entry *e, **head;
	int ret;

	host_assert_held(&ctx->lock);
	if (blob_entry_find(ctx, blob_id))
		return -EEXIST;
	/* a BO may carry several blob ids, but a context never holds more
	 * ids than its BO quota: host memory stays bounded */
	if (ctx->n_blobs >= ctx->bos.max)
		return -ENOMEM;
	ret = blob_table_grow(ctx);
	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->blob_id = blob_id;
	e->bo = bo;
	e->arena = arena;
	head = &ctx->blob_buckets[blob_hash(ctx, blob_id) & (ctx->n_buckets - 1)];
	e->hnext = *head;
	*head = e;
	if (bo) {
		e->bnext = bo->blob_ids;
		bo->blob_ids = e;
	}
	ctx->n_blobs++;
	return 0;
}

int host_blob_bind_arena_locked(struct vkfd_host_context *ctx, struct host_arena *a)
{
	host_assert_held(&ctx->lock);
	if (a->blob_id == VKFD_SHMEM_BLOB_ID)
		return -EINVAL;
	return blob_bind_locked(ctx, a->blob_id, NULL, a);
}

void host_blob_unbind_arena_locked(struct vkfd_host_context *ctx, struct host_arena *a)
{
	struct blob_entry **p, *e;

	host_assert_held(&ctx->lock);
	if (!ctx->n_buckets)
		return;
	p = blob_slot(ctx, a->blob_id);
	e = *p;
	if (!e || e->arena != a)
		return;
	*p = e->hnext;
	ctx->n_blobs--;
	free(e);
}

void host_blob_unbind_bo_locked(struct vkfd_host_context *ctx, struct host_bo *bo)
{
	struct blob_entry *e, *next;

	host_assert_held(&ctx->lock);
	for (e = bo->blob_ids; e; e = next) {
		struct blob_entry **p = blob_slot(ctx, e->blob_id);

		next = e->bnext;
		*p = e->hnext;
		ctx->n_blobs--;
		free(e);
	}
	bo->blob_ids = NULL;
}

void host_blob_table_fini(struct vkfd_host_context *ctx)
{
	for (uint32_t i = 0; i < ctx->n_buckets; i++) {
		struct blob_entry *e = ctx->blob_buckets[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			free(e);
		}
	}
	free(ctx->blob_buckets);
	ctx->blob_buckets = NULL;
	ctx->n_buckets = 0;
	ctx->n_blobs = 0;
}

/*
 * BIND_BLOB takes effect when its batch is submitted, on the VMM thread, so
 * that get_blob never waits for the executor (whose queue the guest fills
 * at will). The BO must exist then: a handle from an answered ALLOC_MEMORY
 * or IMPORT_RESOURCE names a BO that exists; one a guest chose for an
 * ALLOC_MEMORY_ASYNC the executor has not run yet does not, and its bind is
 * refused like any other (the guest syncs before such a bind, docs/protocol.md
 * 14.4). A bind the host refuses leaves the id unbound (get_blob -EINVAL at
 * once). ctx->lock held.
 */
void host_blob_bind_at_submit_locked(struct vkfd_host_context *ctx,
				     const struct vkfd_req_bind_blob *r)
{
	struct host_bo *bo = obj_table_get(&ctx->bos, r->handle);
	int ret;

	host_assert_held(&ctx->lock);
	/* an arena BO's CPU mapping is a slice of its arena's blob */
	if (!bo || bo->freeing || r->blob_id == VKFD_SHMEM_BLOB_ID ||
	    (bo->map_flags & (VKFD_ALLOC_MAP_NONE | VKFD_ALLOC_MAP_ARENA)))
		ret = -EINVAL;
	else
		ret = blob_bind_locked(ctx, r->blob_id, bo, NULL);
	if (ret)
		vkfd_dbg("ctx %u: BIND_BLOB %llu refused: %d", ctx->ctx_id,
			 (unsigned long long)r->blob_id, ret);
}

static int get_shmem(struct vkfd_host_context *ctx, uint64_t size, uint32_t flags,
		     struct vkfd_blob *out)
{
	uint32_t shflags = 0;
	int fd, ret;

	if (flags != BLOB_FLAG_MAPPABLE || size != VKFD_SHMEM_SIZE)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->shmem_created) {
		pthread_mutex_unlock(&ctx->lock);
		return -EINVAL; /* created exactly once */
	}
	ret = shmem_region_create(&ctx->shmem, "vkfd-shmem", VKFD_SHMEM_SIZE);
	if (!ret) {
		if (host_features() & VKFD_FEAT_EVENT_HINTS)
			shflags |= VKFD_SHMEM_FLAG_EVENT_HINTS;
		ret = vkfd_shmem_init(ctx->shmem.map, VKFD_SHMEM_SIZE, VKFD_PROTO_VERSION, shflags);
	}
	if (!ret) {
		fd = fcntl(ctx->shmem.fd, F_DUPFD_CLOEXEC, 0);
		ret = fd < 0 ? -errno : 0;
	}
	if (ret) {
		shmem_region_destroy(&ctx->shmem);
		pthread_mutex_unlock(&ctx->lock);
		return ret;
	}
	/* submit_cmd reads shmem_created without the lock: publish after init */
	__atomic_store_n(&ctx->shmem_created, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);
	out->fd = fd;
	out->fd_type = VKFD_BLOB_FD_SHM;
	out->map_info = VKFD_BLOB_MAP_CACHED;
	out->size = VKFD_SHMEM_SIZE;
	return 0;
}

int host_bo_memory_fd(struct vkfd_host_context *ctx, const struct host_bo *bo, uint64_t *offset)
{
	struct vkfd_kfd_export_dmabuf_args a;
	int ret;

	*offset = 0;
	/* several arena ranges are not one fd range */
	if ((bo->kind != BO_MEMORY && bo->kind != BO_IMPORT) || bo->alias)
		return -EINVAL;
	if (bo->arena) {
		ret = fcntl(bo->arena->mem.fd, F_DUPFD_CLOEXEC, 0);
		if (ret < 0)
			return -errno;
		*offset = bo->arena_offset;
		return ret;
	}
	if (bo->dmabuf_fd >= 0) {
		/* allocated through the render node (KFD < 1.12) */
		ret = fcntl(bo->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
		return ret < 0 ? -errno : ret;
	}
	if (!host_device_can(VKFD_DEVICE_CAP_EXPORT_DMABUF))
		return -EOPNOTSUPP; /* AQL memory or imports on KFD < 1.12 */
	memset(&a, 0, sizeof(a));
	a.handle = bo->kfd_handle;
	a.flags = O_CLOEXEC | O_RDWR;
	ret = host_kfd_ioctl(ctx, VKFD_KFD_IOC_EXPORT_DMABUF, &a);
	return ret ? ret : (int)a.dmabuf_fd;
}

/* Export a bound BO; ctx->lock held (FREE cannot run concurrently). */
static int export_bo_locked(struct vkfd_host_context *ctx, struct host_bo *bo,
			    struct vkfd_blob *out)
{
	struct shmem_region *shadow = NULL;
	uint64_t off;
	int fd;

	host_assert_held(&ctx->lock);
	if (bo->kind == BO_DOORBELL)
		shadow = &ctx->gpu[bo->gpu].shadow_db;
	else if (bo->kind == BO_MMIO)
		shadow = &ctx->gpu[bo->gpu].shadow_mmio;
	if (shadow) {
		fd = fcntl(shadow->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		out->fd = fd;
		out->fd_type = VKFD_BLOB_FD_SHM;
		out->map_info = VKFD_BLOB_MAP_CACHED;
		out->size = bo->blob_size;
		/* the VMM may trap it (ioeventfds): the relay reads write
		 * pointers, never these stores (docs/protocol.md section 11) */
		if (bo->kind == BO_DOORBELL)
			out->info = VKFD_BLOB_INFO_DOORBELL;
		return 0;
	}
	/* an arena BO is never bound (host_blob_bind_at_submit_locked) */
	if (bo->arena)
		return -EINVAL;
	fd = host_bo_memory_fd(ctx, bo, &off);
	if (fd < 0)
		return fd;
	out->fd = fd;
	/* a memfd device's export is its memfd; render-node allocations are dmabufs */
	out->fd_type = host_device_can(VKFD_DEVICE_CAP_COHERENT_MEMFD) && bo->dmabuf_fd < 0
			   ? VKFD_BLOB_FD_SHM
			   : VKFD_BLOB_FD_DMABUF;
	out->map_info = bo->map_info;
	out->size = bo->blob_size;
	return 0;
}

VKFD_EXPORT int vkfd_host_context_get_blob(struct vkfd_host_context *ctx, uint32_t res_id,
					   uint64_t blob_id, uint64_t size, uint32_t blob_flags,
					   struct vkfd_blob *out)
{
	struct blob_entry *e;
	struct host_bo *bo;
	int ret;

	(void)res_id;
	if (!ctx || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (blob_id == VKFD_SHMEM_BLOB_ID)
		return get_shmem(ctx, size, blob_flags, out);
	/* BO blobs: MAPPABLE, optionally SHAREABLE (protocol 7.5) */
	if (blob_flags != BLOB_FLAG_MAPPABLE &&
	    blob_flags != (BLOB_FLAG_MAPPABLE | BLOB_FLAG_SHAREABLE))
		return -EINVAL;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->stopping || __atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE)) {
		ret = -EIO;
		goto out;
	}
	/* bound at submit time: nothing to wait for */
	e = blob_entry_find(ctx, blob_id);
	if (e && e->arena) {
		/* an arena: its size, MAPPABLE only, exported once */
		if (e->exported || size != e->arena->size || blob_flags != BLOB_FLAG_MAPPABLE) {
			ret = -EINVAL;
			goto out;
		}
		ret = fcntl(e->arena->mem.fd, F_DUPFD_CLOEXEC, 0);
		if (ret < 0) {
			ret = -errno;
			goto out;
		}
		out->fd = ret;
		out->fd_type = VKFD_BLOB_FD_SHM;
		out->map_info = VKFD_BLOB_MAP_CACHED;
		out->size = e->arena->size;
		e->exported = true;
		ret = 0;
		goto out;
	}
	bo = e ? e->bo : NULL;
	/* unbound, freed, already exported (one export per id), or a size
	 * that does not match the BO's blob */
	if (!bo || bo->freeing || e->exported || size != bo->blob_size ||
	    (bo->map_flags & VKFD_ALLOC_MAP_NONE)) {
		ret = -EINVAL;
		goto out;
	}
	ret = export_bo_locked(ctx, bo, out);
	if (!ret)
		e->exported = true;
out:
	pthread_mutex_unlock(&ctx->lock);
	if (ret)
		vkfd_dbg("ctx %u: get_blob %llu failed: %d", ctx->ctx_id,
			 (unsigned long long)blob_id, ret);
	return ret;
}

VKFD_EXPORT int vkfd_host_context_attach_resource(struct vkfd_host_context *ctx, uint32_t res_id,
						  int fd, uint64_t size)
{
	struct host_resource *n;
	int dfd = -1;

	if (!ctx || !res_id)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->n_res; i++) {
		if (ctx->res[i].res_id == res_id) {
			pthread_mutex_unlock(&ctx->lock);
			return -EEXIST;
		}
	}
	if (ctx->n_res >= 4096) {
		pthread_mutex_unlock(&ctx->lock);
		return -ENOMEM;
	}
	n = realloc(ctx->res, (ctx->n_res + 1) * sizeof(*n));
	if (!n) {
		pthread_mutex_unlock(&ctx->lock);
		return -ENOMEM;
	}
	ctx->res = n;
	if (fd >= 0) {
		dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dfd < 0) {
			int err = -errno;

			pthread_mutex_unlock(&ctx->lock);
			return err;
		}
	}
	ctx->res[ctx->n_res++] = (struct host_resource){.res_id = res_id, .fd = dfd, .size = size};
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

VKFD_EXPORT void vkfd_host_context_detach_resource(struct vkfd_host_context *ctx, uint32_t res_id)
{
	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->n_res; i++) {
		if (ctx->res[i].res_id == res_id) {
			if (ctx->res[i].fd >= 0)
				close(ctx->res[i].fd);
			ctx->res[i] = ctx->res[--ctx->n_res];
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
}
