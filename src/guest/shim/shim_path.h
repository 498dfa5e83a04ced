/* SPDX-License-Identifier: MIT */
/*
 * Which paths belong to the virtual KFD device, and where its sysfs tree
 * really lives.
 */
#ifndef VKFD_SHIM_PATH_H
#define VKFD_SHIM_PATH_H

#include <stddef.h>

enum shim_path_kind {
	SHIM_PATH_OTHER = 0,
	SHIM_PATH_SYSFS,  /* /sys/devices/virtual/kfd/kfd/..., /sys/class/kfd/kfd/... */
	SHIM_PATH_KFD,    /* /dev/kfd */
	SHIM_PATH_RENDER, /* /dev/dri/renderD<N> */
};

/* Classify an absolute path (relative paths are always OTHER). For SYSFS,
 * *rest is set to what follows the "kfd/kfd" prefix ("" or "/..."); for
 * RENDER, *minor to N. Pure string work, no I/O. */
enum shim_path_kind shim_path_classify(const char *path, const char **rest, int *minor);

/* Build <backend sysfs root>/sys/devices/virtual/kfd/kfd<rest> into buf.
 * Initialises the backend if needed. 0 or -errno. */
int shim_path_sysfs(const char *rest, char *buf, size_t len);

/* For the path-only interposers (stat, access, readlink, opendir, ...):
 * sets *out to path itself when it is not a virtual sysfs path, or to buf
 * holding the redirected path when it is. 0, or -1 with errno set. */
int shim_path_map(const char *path, char *buf, size_t len, const char **out);

#endif
