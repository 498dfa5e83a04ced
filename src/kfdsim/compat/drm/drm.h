/* SPDX-License-Identifier: MIT */
/*
 * <linux/kfd_ioctl.h> includes <drm/drm.h> only for the __u32 types and the
 * _IOC macros. Debian installs the DRM UAPI under /usr/include/libdrm, so
 * kfdsim (which must build without libdrm) uses this stand-in.
 */
#ifndef KFDSIM_COMPAT_DRM_H
#define KFDSIM_COMPAT_DRM_H
#include <linux/ioctl.h>
#include <linux/types.h>
#endif
