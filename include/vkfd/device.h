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

/* What a device does that the host adapts to. Each device answers for itself
 * (query_caps); host code asks for a capability, never which device it is. */
enum vkfd_device_cap {
	/* AMDKFD_IOC_EXPORT_DMABUF works (KFD >= 1.12; kfdsim at every version):
	 * without it, blob memory comes from the render node (render_alloc.c) */
	VKFD_DEVICE_CAP_EXPORT_DMABUF = 1u << 0,
	/* WAIT_EVENTS returns each signal event's last_event_age (KFD >= 1.14) */
	VKFD_DEVICE_CAP_EVENT_AGES = 1u << 1,
	/* every open_kfd is a KFD process of its own, so one host process may
	 * hold several contexts without CREATE_PROCESS (kfdsim) */
	VKFD_DEVICE_CAP_PROCESS_PER_OPEN = 1u << 2,
	/* GPU memory is coherent host memory in memfds: an exported fd is
	 * shared memory, CPU mappings are cached, HDP needs no flush (kfdsim) */
	VKFD_DEVICE_CAP_COHERENT_MEMFD = 1u << 3,
	/* a model, not hardware (guests see VKFD_FEAT_SIM_DEVICE) */
	VKFD_DEVICE_CAP_SIMULATED = 1u << 4,
};

struct kfd_ioctl_wait_events_args;

struct vkfd_device_caps {
	uint32_t kfd_major, kfd_minor; /* what AMDKFD_IOC_GET_VERSION reports */
	uint32_t flags;                /* VKFD_DEVICE_CAP_* */
};

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

	/* Fill *caps: the KFD version and the VKFD_DEVICE_CAP_* flags. 0 or
	 * -errno. The host refuses a device without it (devices that only a
	 * guest library uses may leave it NULL). */
	int (*query_caps)(void *dev, struct vkfd_device_caps *caps);

	/* Ring a doorbell: store `value` into `slot`, the 64-bit doorbell at
	 * byte `offset` of the doorbell slice of GPU `gpu_id` that mmap above
	 * mapped from kfd fd `fd` (offset: CREATE_QUEUE's doorbell_offset
	 * modulo the slice size). The real device does the plain store (the
	 * hardware watches the page); kfdsim stores and then wakes the engine
	 * serving that doorbell, which would otherwise see the store only at
	 * its next poll. A store by someone else (ROCr on the mapped page)
	 * still works: the engine polls as well. NULL: the caller stores. */
	void (*ring_doorbell)(void *dev, int fd, uint32_t gpu_id, uint32_t offset,
			      volatile uint64_t *slot, uint64_t value);

	/* AMDKFD_IOC_WAIT_EVENTS on kfd fd `fd` that calls registered(arg)
	 * exactly once: as soon as the wait's waiters are registered with
	 * their events (before it sleeps), or before it returns if it failed
	 * earlier. The host lets a later SET_EVENT of the same guest reach
	 * the device only after that point, as the kernel orders a SET after
	 * a wait that had entered the ioctl. NULL: the host calls
	 * registered(arg) just before `ioctl`, and the kernel registers the
	 * waiters at the ioctl's start. */
	int (*wait_events)(void *dev, int fd, struct kfd_ioctl_wait_events_args *args,
			   void (*registered)(void *arg), void *arg);
};

/* The real /dev/kfd backend (dev argument is ignored; pass NULL). */
const struct vkfd_device_ops *vkfd_real_device_ops(void);

#ifdef __cplusplus
}
#endif
#endif
