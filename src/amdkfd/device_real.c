// SPDX-License-Identifier: MIT
/*
 * The real device backend: thin syscalls on /dev/kfd and the amdgpu render
 * nodes. Nothing is cached or translated here; validation is the host
 * context's job and the kernel's.
 */
#include "vkfd/device.h"
#include "host_export.h"
#include "kfd_uapi_ext.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int real_open_kfd(void *dev)
{
	int fd;

	(void)dev;
	fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int real_open_render(void *dev, int minor)
{
	char path[64];
	int fd;

	(void)dev;
	if (minor < 128 || minor > 255)
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int real_ioctl(void *dev, int fd, unsigned long request, void *arg)
{
	int ret;

	(void)dev;
	ret = ioctl(fd, request, arg);
	return ret < 0 ? -errno : 0;
}

static void *real_mmap(void *dev, void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	(void)dev;
	return mmap(addr, len, prot, flags, fd, offset);
}

static int real_munmap(void *dev, void *addr, size_t len)
{
	(void)dev;
	return munmap(addr, len) < 0 ? -errno : 0;
}

static int real_close(void *dev, int fd)
{
	(void)dev;
	return close(fd) < 0 ? -errno : 0;
}

static const char *real_sysfs_root(void *dev)
{
	(void)dev;
	return "";
}

/* The kernel's KFD answers by its ioctl version: EXPORT_DMABUF arrived in
 * 1.12, last_event_age in 1.14. One KFD process per host process (keyed on
 * the mm), memory behind real mappings. */
static int real_query_caps(void *dev, struct vkfd_device_caps *caps)
{
	struct kfd_ioctl_get_version_args v;
	int fd, ret;

	memset(&v, 0, sizeof(v));
	fd = real_open_kfd(dev);
	if (fd < 0)
		return fd;
	ret = real_ioctl(dev, fd, AMDKFD_IOC_GET_VERSION, &v);
	real_close(dev, fd);
	if (ret)
		return ret;
	memset(caps, 0, sizeof(*caps));
	caps->kfd_major = v.major_version;
	caps->kfd_minor = v.minor_version;
	if (v.minor_version >= 12)
		caps->flags |= VKFD_DEVICE_CAP_EXPORT_DMABUF;
	if (v.minor_version >= 14)
		caps->flags |= VKFD_DEVICE_CAP_EVENT_AGES;
	return 0;
}

/* The GPU's doorbell page: the store is the ring. */
static void real_ring_doorbell(void *dev, int fd, uint32_t gpu_id, uint32_t offset,
			       volatile uint64_t *slot, uint64_t value)
{
	(void)dev;
	(void)fd;
	(void)gpu_id;
	(void)offset;
	__atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

static const struct vkfd_device_ops real_ops = {
    .name = "kfd",
    .open_kfd = real_open_kfd,
    .open_render = real_open_render,
    .ioctl = real_ioctl,
    .mmap = real_mmap,
    .munmap = real_munmap,
    .close = real_close,
    .sysfs_root = real_sysfs_root,
    .query_caps = real_query_caps,
    .ring_doorbell = real_ring_doorbell,
};

VKFD_EXPORT const struct vkfd_device_ops *vkfd_real_device_ops(void)
{
	return &real_ops;
}
