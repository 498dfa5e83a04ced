// SPDX-License-Identifier: MIT
/*
 * vkfd backend: IPC. EXPORT_DMABUF, IMPORT_DMABUF and GET_DMABUF_INFO
 * between processes of one guest (docs/guest-vkfd-backend.md, "IPC"). An
 * exported BO gets a second, SHAREABLE blob whose transport fd is the
 * guest's dmabuf; an fd presented for import becomes a transport resource
 * of this process's host context, which IMPORT_RESOURCE turns into a BO.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

static bool bk_ipc_offered(const struct bk_conn *c)
{
	return c->features & VKFD_FEAT_IMPORT_RESOURCE;
}

/* A BO the host can bind to a shareable blob: memory with CPU access of
 * this process's own, not a doorbell/MMIO page, USERPTR range or arena
 * slice (the host binds no blob of its own to an arena BO; an import is
 * exported as the fd it came from). */
static bool bk_exportable(const struct bk_bo *b)
{
	return !b->userptr && !b->arena && !(b->map_flags & VKFD_ALLOC_MAP_NONE) &&
	       !(b->kfd_flags &
		 (KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP));
}

/* bk_mem_lock held: the BO's shareable blob, made on first export. */
static int bk_share_blob_locked(struct bk_conn *c, struct bk_bo *b)
{
	int r;

	BK_ASSERT_MEM_LOCKED();
	if (b->has_share)
		return 0;
	r = bk_bind_new_blob_locked(c, b, VKFD_GUEST_BLOB_MAPPABLE | VKFD_GUEST_BLOB_SHAREABLE,
				    &b->share);
	if (r) {
		bk_log("shareable blob for bo %#" PRIx64 ": %d", b->handle, r);
		/* the host refused the bind or the blob: the BO cannot be
		 * exported, as the kernel answers for such a BO; a lost
		 * transport is an I/O error */
		return r == -EPIPE || r == -ETIMEDOUT || r == -EPROTO ? -EIO : -EINVAL;
	}
	b->has_share = true;
	return 0;
}

int bk_ioctl_export_dmabuf(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct vkfd_kfd_export_dmabuf_args *a = arg;
	struct bk_bo *b;
	int r, fd;
	/* b may be freed by another thread once bk_mem_lock is released */
	const uint64_t handle = a->handle;

	(void)usize;
	if (!bk_ipc_offered(c))
		return -EINVAL;
	bk_mem_lock_take();
	bk_table_lock();
	b = bk_bo_find_locked(c, a->handle);
	bk_table_unlock();
	if (b && b->imported) {
		/* the kernel gives an imported BO's own dmabuf back */
		fd = fcntl(b->import_fd, (a->flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
		if (fd < 0)
			fd = -errno;
		bk_mem_lock_release();
		if (fd < 0)
			return fd;
		a->dmabuf_fd = (uint32_t)fd;
		return 0;
	}
	if (!b || !bk_exportable(b)) {
		bk_mem_lock_release();
		return -EINVAL;
	}
	r = bk_share_blob_locked(c, b);
	fd = r ? r : vkfd_guest_blob_export_fd(c->g, &b->share, (int)(a->flags & O_CLOEXEC));
	bk_mem_lock_release();
	if (fd < 0)
		return fd == -EOPNOTSUPP ? -EINVAL : fd;
	bk_log("export bo %#" PRIx64 " -> fd %d", handle, fd);
	a->dmabuf_fd = (uint32_t)fd;
	return 0;
}

/* The resource behind a dmabuf fd of the calling process. bk_mem_lock is
 * held from here to its release: on virtio-gpu two imports of one object
 * in one file share a GEM handle, so one must not close it under the
 * other. */
static int bk_resource_of_fd_locked(struct bk_conn *c, uint32_t ufd,
				    struct vkfd_guest_resource *res)
{
	int fd = (int)ufd, r;

	BK_ASSERT_MEM_LOCKED();
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF; /* dma_buf_get's answer */
	r = vkfd_guest_resource_import(c->g, fd, res);
	if (r == -EOPNOTSUPP || r == -EINVAL)
		return -EINVAL; /* not a dmabuf this guest shares */
	if (r == -EBADF || r == -ENOMEM)
		return r;
	return r ? bk_transport_err(r) : 0;
}

/* A virtio-gpu file has one GEM handle per object: importing a blob of our
 * own gives back that blob's handle, which must not be closed with the
 * resource. bk_mem_lock (the blobs) and bk_lock (the list) held. */
static void bk_keep_own_handle_locked(struct bk_conn *c, struct vkfd_guest_resource *res)
{
	BK_ASSERT_MEM_LOCKED();
	BK_ASSERT_TABLE_LOCKED();
	if (!res->handle)
		return;
	for (struct bk_bo *b = c->bos; b; b = b->next) {
		if ((b->has_blob && b->blob.handle == res->handle) ||
		    (b->has_share && b->share.handle == res->handle)) {
			res->handle = 0;
			return;
		}
	}
}

static void bk_resource_release_locked(struct bk_conn *c, struct vkfd_guest_resource *res)
{
	BK_ASSERT_MEM_LOCKED();
	bk_table_lock();
	bk_keep_own_handle_locked(c, res);
	bk_table_unlock();
	vkfd_guest_resource_release(c->g, res);
}

int bk_ioctl_import_dmabuf(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_import_dmabuf_args *a = arg;
	struct vkfd_req_import_resource req;
	struct vkfd_rsp_import_resource rsp;
	struct vkfd_guest_resource res;
	struct bk_bo *b;
	int gi, r;

	(void)usize;
	if (!bk_ipc_offered(c))
		return -EINVAL;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpu_id);
	bk_table_unlock();
	if (gi < 0)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	bk_mem_lock_take();
	r = bk_resource_of_fd_locked(c, a->dmabuf_fd, &res);
	if (r) {
		bk_mem_lock_release();
		free(b);
		return r;
	}
	/* kept for a re-export of the import (the kernel's answer) */
	b->import_fd = fcntl((int)a->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
	if (b->import_fd < 0) {
		r = -errno;
		bk_resource_release_locked(c, &res);
		bk_mem_lock_release();
		free(b);
		return r;
	}
	memset(&req, 0, sizeof(req));
	req.va = a->va_addr;
	req.res_id = res.res_id;
	req.gpu_id = a->gpu_id;
	/* the host chooses the import's handle: no guest-chosen handle may be
	 * sent until the guest's table knows it (protocol.md 14.1) */
	bk_alloc_lock(c);
	r = bk_call(c, VKFD_CMD_IMPORT_RESOURCE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		bk_handle_claim_locked(c, rsp.handle);
	bk_alloc_unlock(c);
	/* the host's KFD process holds the memory now (or failed): the
	 * transport resource is not needed either way */
	bk_resource_release_locked(c, &res);
	bk_mem_lock_release();
	if (r) {
		bk_log("import fd %u at %#" PRIx64 ": %d", a->dmabuf_fd, (uint64_t)a->va_addr, r);
		close(b->import_fd);
		free(b);
		return r == -ENOENT ? -EINVAL : r;
	}
	b->handle = rsp.handle;
	b->va = a->va_addr;
	b->size = rsp.size;
	b->gpu_id = a->gpu_id;
	b->kfd_flags = rsp.flags;
	/* no CPU mapping: the kernel gives an import no mmap offset either */
	b->map_flags = VKFD_ALLOC_MAP_NONE;
	b->imported = true;
	bk_table_lock();
	b->next = c->bos;
	c->bos = b;
	bk_table_unlock();
	bk_log("import fd %u at %#" PRIx64 " -> bo %#" PRIx64 " size %#" PRIx64, a->dmabuf_fd,
	       (uint64_t)a->va_addr, rsp.handle, rsp.size);
	a->handle = rsp.handle;
	return 0;
}

int bk_ioctl_get_dmabuf_info(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_dmabuf_info_args *a = arg;
	struct vkfd_req_get_resource_info req;
	struct vkfd_rsp_get_resource_info *rsp;
	struct vkfd_guest_resource res;
	uint32_t cap = 0;
	int r;

	(void)usize;
	if (!bk_ipc_offered(c))
		return -EINVAL;
	if (a->metadata_ptr)
		cap = a->metadata_size < VKFD_MAX_METADATA ? a->metadata_size : VKFD_MAX_METADATA;
	rsp = calloc(1, sizeof(*rsp));
	if (!rsp)
		return -ENOMEM;
	bk_mem_lock_take();
	r = bk_resource_of_fd_locked(c, a->dmabuf_fd, &res);
	if (r) {
		bk_mem_lock_release();
		free(rsp);
		return r;
	}
	memset(&req, 0, sizeof(req));
	req.res_id = res.res_id;
	req.metadata_size = cap;
	r = bk_call(c, VKFD_CMD_GET_RESOURCE_INFO, &req, sizeof(req), rsp, sizeof(*rsp));
	bk_resource_release_locked(c, &res);
	bk_mem_lock_release();
	if (r) {
		free(rsp);
		return r == -ENOENT ? -EINVAL : r;
	}
	/* as the kernel: metadata larger than the caller's buffer is -EINVAL */
	if (a->metadata_ptr && rsp->metadata_size > a->metadata_size) {
		free(rsp);
		return -EINVAL;
	}
	if (a->metadata_ptr && rsp->metadata_size) {
		if (rsp->metadata_size > cap) {
			free(rsp);
			return -EINVAL; /* more than the protocol carries */
		}
		r = bk_write_user(a->metadata_ptr, rsp->metadata, rsp->metadata_size);
		if (r) {
			free(rsp);
			return r;
		}
	}
	a->size = rsp->size;
	a->gpu_id = rsp->gpu_id;
	a->flags = rsp->flags;
	a->metadata_size = rsp->metadata_size;
	free(rsp);
	return 0;
}

void bk_ipc_bo_release(struct bk_conn *c, struct bk_bo *b)
{
	if (b->has_share && !c->dead)
		vkfd_guest_blob_destroy(c->g, &b->share);
	b->has_share = false;
	if (b->imported && b->import_fd >= 0)
		close(b->import_fd);
	b->import_fd = -1;
}
