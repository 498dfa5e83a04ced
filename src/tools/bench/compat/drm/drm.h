/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: <linux/kfd_ioctl.h> includes <drm/drm.h> only for the kernel
 * integer types and ioctl macros; Debian keeps the DRM UAPI headers under
 * /usr/include/libdrm, so the benchmark brings this stand-in.
 */
#ifndef VKFD_BENCH_COMPAT_DRM_H
#define VKFD_BENCH_COMPAT_DRM_H
#include <linux/ioctl.h>
#include <linux/types.h>
#endif
