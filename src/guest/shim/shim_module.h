/* SPDX-License-Identifier: MIT */
/*
 * The amdgpu kernel module's sysfs files a guest has no module for. ROCm
 * 6.x rocminfo reads /sys/module/amdgpu/initstate and stops unless it says
 * "live"; while the shim's backend works, the shim answers it.
 */
#ifndef VKFD_SHIM_MODULE_H
#define VKFD_SHIM_MODULE_H

#include <stdbool.h>

/* True for a path the shim answers itself (pure string work). */
bool shim_module_path(const char *path);

/* Open the virtual file read-only: a fd of a sealed-size memory file with
 * its content, or -1 with errno set (EACCES for a write, ENODEV when no
 * backend works). */
int shim_module_open(const char *path, int flags);

#endif
