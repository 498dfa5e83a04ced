/* SPDX-License-Identifier: MIT */
/*
 * <linux/kfd_ioctl.h> includes <drm/drm.h> for the __u32/_IOWR basics only.
 * Debian installs the DRM UAPI headers under /usr/include/libdrm, not
 * /usr/include/drm, so this stand-in provides exactly what kfd_ioctl.h uses.
 */
#ifndef VKFD_COMPAT_DRM_H
#define VKFD_COMPAT_DRM_H
#include <linux/ioctl.h>
#include <linux/types.h>
#endif
