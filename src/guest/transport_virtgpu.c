// SPDX-License-Identifier: MIT
/*
 * virtgpu transport: a guest in a VM talks to the host context through the
 * virtio-gpu DRM driver. Commands go through EXECBUFFER on a ring with an
 * out-fence (a sync_file) per fenced submit; blobs are HOST3D blob
 * resources mapped through the DRM fd. Cannot run without a VM exposing
 * our capset; only node selection and its failure paths run elsewhere.
 */
#include "guest_log.h"
#include "guest_transport.h"
#include "virtgpu_uapi.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vkfd_protocol.h"

struct gt_virtgpu {
	struct guest_transport base;
	int fd;
	pthread_mutex_t lock;
	uint64_t seq[GT_NUM_RINGS];
	int fence_fd[GT_NUM_RINGS]; /* out-fence of the newest fenced submit */
};

static struct gt_virtgpu *to_vg(struct guest_transport *t)
{
	return (struct gt_virtgpu *)t;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r < 0 ? -errno : 0;
}

static int getparam(int fd, uint64_t param, int *value)
{
	struct vgu_getparam gp = {.param = param, .value = (uint64_t)(uintptr_t)value};

	*value = 0;
	return xioctl(fd, VGU_IOCTL_GETPARAM, &gp);
}

/* 0 if fd is a virtio-gpu node offering our capset with context init and
 * mappable blobs. */
static int probe(int fd)
{
	char name[32];
	struct vgu_drm_version v;
	int val, r;

	memset(&v, 0, sizeof(v));
	memset(name, 0, sizeof(name));
	v.name = name;
	v.name_len = sizeof(name) - 1;
	/* Other drivers give DRM_COMMAND_BASE numbers other meanings: check
	 * the driver before any virtgpu ioctl. */
	if ((r = xioctl(fd, VGU_IOCTL_VERSION, &v)))
		return r;
	if (strcmp(name, "virtio_gpu"))
		return -ENODEV;
	if ((r = getparam(fd, VGU_PARAM_CONTEXT_INIT, &val)) || !val ||
	    (r = getparam(fd, VGU_PARAM_RESOURCE_BLOB, &val)) || !val ||
	    (r = getparam(fd, VGU_PARAM_HOST_VISIBLE, &val)) || !val)
		return r ? r : -ENODEV;
	if ((r = getparam(fd, VGU_PARAM_SUPPORTED_CAPSET_IDS, &val)))
		return r;
	return ((unsigned)val & (1u << VIRTIO_GPU_CAPSET_AMDKFD)) ? 0 : -ENODEV;
}

static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = probe(fd);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

static int scan_nodes(void)
{
	const char *dir = getenv("VKFD_DRI_DIR");
	struct dirent *de;
	DIR *d;
	int fd = -ENODEV;

	if (!dir)
		dir = "/dev/dri";
	d = opendir(dir);
	if (!d)
		return -ENODEV;
	while ((de = readdir(d))) {
		char path[512];

		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open_node(path);
		if (fd >= 0)
			break;
		fd = -ENODEV;
	}
	closedir(d);
	return fd;
}

static int vg_get_capset(struct guest_transport *t, uint32_t version, void *buf, size_t cap)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_get_caps gc;
	int r;

	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	memset(buf, 0, cap);
	memset(&gc, 0, sizeof(gc));
	gc.cap_set_id = VIRTIO_GPU_CAPSET_AMDKFD;
	gc.cap_set_ver = version;
	gc.addr = (uint64_t)(uintptr_t)buf;
	gc.size = (uint32_t)cap;
	r = xioctl(g->fd, VGU_IOCTL_GET_CAPS, &gc);
	/* The ioctl copies min(size, host capset size) and does not say how
	 * much: the capset's own fields (zero-extended) tell the caller. */
	return r ? r : (int)cap;
}

static int vg_context_init(struct guest_transport *t)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_context_set_param p[3] = {
	    {VGU_CONTEXT_PARAM_CAPSET_ID, VIRTIO_GPU_CAPSET_AMDKFD},
	    {VGU_CONTEXT_PARAM_NUM_RINGS, GT_NUM_RINGS},
	    /* Every ring is polled by the guest (fence fds), so no
	     * fence events are needed in the DRM event queue. */
	    {VGU_CONTEXT_PARAM_POLL_RINGS_MASK, 0},
	};
	struct vgu_context_init ci = {
	    .num_params = 3,
	    .ctx_set_params = (uint64_t)(uintptr_t)p,
	};

	return xioctl(g->fd, VGU_IOCTL_CONTEXT_INIT, &ci);
}

static int vg_blob_create(struct guest_transport *t, uint64_t blob_id, uint64_t size,
			  uint32_t flags, struct vkfd_guest_blob *out)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_resource_create_blob rc;
	int r;

	memset(&rc, 0, sizeof(rc));
	rc.blob_mem = VGU_BLOB_MEM_HOST3D;
	rc.blob_flags = flags & (VGU_BLOB_FLAG_USE_MAPPABLE | VGU_BLOB_FLAG_USE_SHAREABLE |
				 VGU_BLOB_FLAG_USE_CROSS_DEVICE);
	rc.size = size;
	rc.blob_id = blob_id;
	r = xioctl(g->fd, VGU_IOCTL_RESOURCE_CREATE_BLOB, &rc);
	if (r)
		return r;
	memset(out, 0, sizeof(*out));
	out->blob_id = blob_id;
	out->size = size;
	out->res_id = rc.res_handle;
	out->handle = rc.bo_handle;
	out->fd = -1;
	return 0;
}

/*
 * Linux's virtio-gpu maps a host-visible blob only whole and from its
 * start (virtio_gpu_vram_mmap rejects a length other than the blob's and
 * ignores the file offset, up to at least 6.12). A window [offset,
 * offset+len) is therefore cut out of a whole mapping: the rest is
 * unmapped, and a wanted address is reached with mremap, never with a
 * MAP_FIXED that would cover the caller's neighbouring pages.
 */
static void *map_window(int fd, uint64_t fake_off, size_t whole, void *addr, size_t len,
			uint64_t offset, int prot)
{
	uint8_t *p, *w;
	void *r;
	int err;

	p = mmap(NULL, whole, prot, MAP_SHARED, fd, (off_t)fake_off);
	if (p == MAP_FAILED)
		return MAP_FAILED;
	w = p + offset;
	if (offset)
		munmap(p, (size_t)offset);
	if (offset + len < whole)
		munmap(w + len, whole - (size_t)offset - len);
	if (!addr)
		return w;
	r = mremap(w, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, addr);
	if (r == MAP_FAILED) {
		err = errno;
		munmap(w, len);
		errno = err;
	}
	return r;
}

static void *vg_blob_map(struct guest_transport *t, const struct vkfd_guest_blob *b, void *addr,
			 size_t len, uint64_t offset, int prot)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_map m = {.handle = b->handle};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t whole;
	int r;

	if (!b->handle || len == 0 || offset > b->size || len > b->size - offset ||
	    (offset & (page - 1)) || ((uintptr_t)addr & (page - 1)) || b->size > SIZE_MAX - page) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	whole = (b->size + page - 1) & ~(uint64_t)(page - 1);
	len = (len + page - 1) & ~(page - 1);
	r = xioctl(g->fd, VGU_IOCTL_MAP, &m);
	if (r) {
		errno = -r;
		return MAP_FAILED;
	}
	if (offset == 0 && len == whole)
		return mmap(addr, len, prot, MAP_SHARED | (addr ? MAP_FIXED : 0), g->fd,
			    (off_t)m.offset);
	return map_window(g->fd, m.offset, (size_t)whole, addr, len, offset, prot);
}

static void vg_blob_destroy(struct guest_transport *t, struct vkfd_guest_blob *b)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_gem_close c = {.handle = b->handle};

	if (b->handle)
		xioctl(g->fd, VGU_IOCTL_GEM_CLOSE, &c);
	b->handle = 0;
	b->res_id = 0;
}

/* The blob's PRIME fd: what another process of this guest imports. */
static int vg_blob_export_fd(struct guest_transport *t, const struct vkfd_guest_blob *b,
			     int fd_flags)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_prime_handle ph = {.handle = b->handle, .flags = (uint32_t)fd_flags, .fd = -1};
	int r;

	if (!b->handle)
		return -EINVAL;
	r = xioctl(g->fd, VGU_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	return r ? r : ph.fd;
}

/* A PRIME fd of this VM's virtio-gpu becomes a GEM handle of our file; the
 * guest kernel attaches its resource to our context. An fd of anything
 * else is refused by the kernel (a dmabuf of another device would be
 * imported as a guest-memory object: refused here by its blob type). */
static int vg_resource_import(struct guest_transport *t, int fd, struct vkfd_guest_resource *out)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_prime_handle ph = {.fd = fd};
	struct vgu_resource_info ri;
	struct vgu_gem_close c;
	int r;

	r = xioctl(g->fd, VGU_IOCTL_PRIME_FD_TO_HANDLE, &ph);
	if (r)
		return r == -EBADF ? -EBADF : -EINVAL;
	memset(&ri, 0, sizeof(ri));
	ri.bo_handle = ph.handle;
	r = xioctl(g->fd, VGU_IOCTL_RESOURCE_INFO, &ri);
	if (r || ri.blob_mem != VGU_BLOB_MEM_HOST3D || !ri.res_handle) {
		c.handle = ph.handle;
		c.pad = 0;
		xioctl(g->fd, VGU_IOCTL_GEM_CLOSE, &c);
		return -EINVAL;
	}
	out->res_id = ri.res_handle;
	out->handle = ph.handle;
	return 0;
}

static void vg_resource_release(struct guest_transport *t, struct vkfd_guest_resource *res)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_gem_close c = {.handle = res->handle};

	if (res->handle)
		xioctl(g->fd, VGU_IOCTL_GEM_CLOSE, &c);
}

static int vg_submit(struct guest_transport *t, const void *cmd, size_t size, uint32_t ring,
		     uint64_t *fence)
{
	struct gt_virtgpu *g = to_vg(t);
	struct vgu_execbuffer eb;
	int r;

	if (ring >= GT_NUM_RINGS || size > VKFD_MAX_BATCH_SIZE)
		return -EINVAL;
	memset(&eb, 0, sizeof(eb));
	eb.flags = VGU_EXECBUF_RING_IDX | (fence ? VGU_EXECBUF_FENCE_FD_OUT : 0);
	eb.size = (uint32_t)size;
	eb.command = (uint64_t)(uintptr_t)cmd;
	eb.ring_idx = ring;
	eb.fence_fd = -1;
	pthread_mutex_lock(&g->lock);
	r = xioctl(g->fd, VGU_IOCTL_EXECBUFFER, &eb);
	if (!r && fence) {
		if (eb.fence_fd < 0) {
			r = -EIO;
		} else {
			if (g->fence_fd[ring] >= 0)
				close(g->fence_fd[ring]);
			g->fence_fd[ring] = eb.fence_fd;
			*fence = ++g->seq[ring];
		}
	}
	pthread_mutex_unlock(&g->lock);
	return r;
}

static int vg_wait(struct guest_transport *t, uint32_t ring, uint64_t value, int timeout_ms)
{
	struct gt_virtgpu *g = to_vg(t);
	int fd = -1, r = -EINVAL;

	if (ring >= GT_NUM_RINGS)
		return -EINVAL;
	pthread_mutex_lock(&g->lock);
	/* Fences on one ring retire in order: the newest covers `value`. */
	if (value <= g->seq[ring] && g->fence_fd[ring] >= 0) {
		fd = fcntl(g->fence_fd[ring], F_DUPFD_CLOEXEC, 0);
		r = fd < 0 ? -errno : 0;
	}
	pthread_mutex_unlock(&g->lock);
	if (fd < 0)
		return r;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	r = r > 0 ? 0 : r == 0 ? -ETIMEDOUT : -errno;
	close(fd);
	return r;
}

static void vg_destroy(struct guest_transport *t)
{
	struct gt_virtgpu *g = to_vg(t);

	for (int i = 0; i < GT_NUM_RINGS; i++)
		if (g->fence_fd[i] >= 0)
			close(g->fence_fd[i]);
	if (g->fd >= 0)
		close(g->fd);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static const struct guest_transport_ops vg_ops = {
    .name = "virtgpu",
    .type = VKFD_TRANSPORT_VIRTGPU,
    .get_capset = vg_get_capset,
    .context_init = vg_context_init,
    .blob_create = vg_blob_create,
    .blob_map = vg_blob_map,
    .blob_destroy = vg_blob_destroy,
    .blob_export_fd = vg_blob_export_fd,
    .resource_import = vg_resource_import,
    .resource_release = vg_resource_release,
    .submit = vg_submit,
    .wait = vg_wait,
    .destroy = vg_destroy,
};

struct guest_transport *gt_virtgpu_open(const char *node_path)
{
	struct gt_virtgpu *g;
	int fd = node_path ? open_node(node_path) : scan_nodes();

	if (fd < 0) {
		guest_log(GUEST_LOG_INFO, "virtgpu: no node with capset %u (%s)",
			  VIRTIO_GPU_CAPSET_AMDKFD, strerror(-fd));
		errno = -fd;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		close(fd);
		return NULL;
	}
	g->base.ops = &vg_ops;
	g->fd = fd;
	for (int i = 0; i < GT_NUM_RINGS; i++)
		g->fence_fd[i] = -1;
	pthread_mutex_init(&g->lock, NULL);
	return &g->base;
}
