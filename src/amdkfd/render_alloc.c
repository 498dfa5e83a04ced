// SPDX-License-Identifier: MIT
/*
 * Blob-capable memory on kernels without AMDKFD_IOC_EXPORT_DMABUF (KFD <
 * 1.12, e.g. Debian 12's 6.1): allocate the BO through the amdgpu render
 * node, export it as a dmabuf and import that into the context's KFD process
 * at the guest's VA. The dmabuf stays with the host BO and becomes the blob.
 *
 * Only used with the real device; it has not been run against hardware here.
 * Test run host-real-memory-kfd-1.11 runs it on kfdsim's render-node GEM
 * objects through the real-device backend.
 */
#include "host_internal.h"
#include "host_log.h"

#include <amdgpu_drm.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

bool host_render_alloc_needed(uint32_t flags)
{
	if (host_device_can(VKFD_DEVICE_CAP_EXPORT_DMABUF))
		return false;
	/* AQL_QUEUE_MEM's double mapping exists only in KFD's own ALLOC */
	if (flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM)
		return false;
	return flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT);
}

int host_render_alloc(struct vkfd_host_context *ctx, uint32_t g, uint64_t va, uint64_t size,
		      uint32_t flags, uint64_t *kfd_handle, int *dmabuf_fd)
{
	int rfd = ctx->gpu[g].render_fd;
	union drm_amdgpu_gem_create gc;
	struct drm_prime_handle ph;
	struct drm_gem_close cl;
	struct kfd_ioctl_import_dmabuf_args im;
	int ret;

	if (rfd < 0)
		return -EINVAL;
	memset(&gc, 0, sizeof(gc));
	gc.in.bo_size = size;
	gc.in.alignment = 4096;
	if (flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) {
		gc.in.domains = AMDGPU_GEM_DOMAIN_VRAM;
		/* the guest maps it; a new BO must not show old contents */
		gc.in.domain_flags =
		    AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED | AMDGPU_GEM_CREATE_VRAM_CLEARED;
	} else {
		gc.in.domains = AMDGPU_GEM_DOMAIN_GTT;
	}
	ret = ctx->ops->ioctl(ctx->dev, rfd, DRM_IOCTL_AMDGPU_GEM_CREATE, &gc);
	if (ret)
		return ret;

	memset(&ph, 0, sizeof(ph));
	ph.handle = gc.out.handle;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	ret = ctx->ops->ioctl(ctx->dev, rfd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	/* the dmabuf (if any) holds the BO from here on */
	memset(&cl, 0, sizeof(cl));
	cl.handle = gc.out.handle;
	ctx->ops->ioctl(ctx->dev, rfd, DRM_IOCTL_GEM_CLOSE, &cl);
	if (ret)
		return ret;

	memset(&im, 0, sizeof(im));
	im.va_addr = va;
	im.gpu_id = host_g.topo.gpus[g].gpu_id;
	im.dmabuf_fd = (uint32_t)ph.fd;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_IMPORT_DMABUF, &im);
	if (ret) {
		close(ph.fd);
		return ret;
	}
	*kfd_handle = im.handle;
	*dmabuf_fd = ph.fd;
	return 0;
}
