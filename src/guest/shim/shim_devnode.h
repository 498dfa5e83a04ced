/* SPDX-License-Identifier: MIT */
/*
 * Identities of the virtual GPU device files: the character device numbers
 * of /dev/dri/renderD<N> and /dev/dri/card<N> (and of fds opened from them),
 * and the sysfs tree libdrm follows from a device number
 * (/sys/dev/char/226:<N> -> the PCI device directory with drm/, uevent,
 * vendor/device ids, subsystem links). The tree is written once per process
 * from the backend's KFD topology (drm_render_minor, location_id, domain,
 * vendor_id, device_id of each GPU node), so libdrm's answers agree with
 * the topology.
 */
#ifndef VKFD_SHIM_DEVNODE_H
#define VKFD_SHIM_DEVNODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SHIM_DRM_MAJOR 226

/* What stat reports for a virtual device node. */
struct shim_devid {
	unsigned rdev_major, rdev_minor; /* 0:0 for /dev/kfd (no real number) */
	unsigned long ino;
};

/* The device node at path (/dev/kfd, or /dev/dri/renderD<N> or
 * /dev/dri/card<N> of a GPU the backend models): true and *id filled.
 * Initialises the backend for those paths only. */
bool shim_devnode_path(const char *path, struct shim_devid *id);

/* The same for a device fd of this process. */
bool shim_devnode_fd(int fd, struct shim_devid *id);

/* The node name of a device fd ("/dev/kfd", "/dev/dri/renderD128") into
 * buf: its length, or -1 when fd is not a device fd. */
int shim_devnode_fd_name(int fd, char *buf, size_t len);

/* For the path interposers: 1 and the path in the private tree in buf when
 * path is one of the modelled device paths (/sys/dev/char/226:<N>/...,
 * /sys/class/drm/{card,renderD}<N>/..., /sys/bus/pci/devices/<slot>/...,
 * /sys/devices/pci<dom>:<bus>/<slot>/..., the /dev/dri directory); 0 when it
 * is not; -errno when the tree cannot be written. */
int shim_devnode_map(const char *path, char *buf, size_t len);

#endif
