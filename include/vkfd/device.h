/* SPDX-License-Identifier: MIT */
/*
 * The device seam: the only way host code reaches a KFD device.
 *
 * Two implementations exist: the real backend (thin syscalls on /dev/kfd and
 * /dev/dri/renderD*) and kfdsim (an in-process model of amdkfd with the same
 * ioctl numbers, structs from <linux/kfd_ioctl.h> and errno values). The host
 * context's code path is identical for both.
 *
 * File descriptors returned by a device are real descriptors of the calling
 * process (kfdsim backs them with anonymous files) so that they can be polled,
 * closed and counted like any other; they must only be used with the ops of
 * the device that returned them.
 */
#ifndef VKFD_DEVICE_H
#define VKFD_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vkfd_device_ops {
	const char *name; /* "kfd" or "kfdsim" */

	/* Open the KFD node. A new open from another KFD "process" identity
	 * (kfdsim: every open) gets its own process and GPU VM. Returns an fd
	 * or -errno. */
	int (*open_kfd)(void *dev);

	/* Open the render node /dev/dri/renderD<minor>. Returns fd or -errno. */
	int (*open_render)(void *dev, int minor);

	/* Issue an ioctl on an fd returned above. `request` is the full
	 * _IOC() value; the size is taken from it as the kernel does.
	 * Returns 0 or -errno. `arg` is read and written in place. */
	int (*ioctl)(void *dev, int fd, unsigned long request, void *arg);

	/* mmap(2) semantics on a device fd. Returns MAP_FAILED and sets errno
	 * on failure. */
	void *(*mmap)(void *dev, void *addr, size_t len, int prot, int flags, int fd, off_t offset);

	/* munmap(2) of a mapping made through mmap above. */
	int (*munmap)(void *dev, void *addr, size_t len);

	/* Close a device fd; 0 or -errno. */
	int (*close)(void *dev, int fd);

	/* Directory that stands for "/" when reading the KFD topology:
	 * "" for the real device (files under /sys/devices/virtual/kfd/kfd/
	 * topology), or the directory kfdsim materialised its tree in. */
	const char *(*sysfs_root)(void *dev);
};

/* The real /dev/kfd backend (dev argument is ignored; pass NULL). */
const struct vkfd_device_ops *vkfd_real_device_ops(void);

#ifdef __cplusplus
}
#endif
#endif
