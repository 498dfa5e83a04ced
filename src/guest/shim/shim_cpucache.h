/* SPDX-License-Identifier: MIT */
/*
 * CPU cache topology for hosts whose sysfs lacks it.
 *
 * libhsakmt builds the CPU node's cache list from
 * /sys/devices/system/node/nodeX/cpuY/cache/indexZ/ and gives up on the whole
 * topology when a CPU has no cache directory. Some sandboxed kernels (and
 * containers with a reduced sysfs) do not have those directories, although a
 * real kernel always does. Only when the host has no
 * /sys/devices/system/cpu/cpu0/cache at all, the shim serves these paths from
 * a tree it writes from the CPU's own cache parameters (CPUID, through
 * sysconf(_SC_LEVEL*_CACHE_*)).
 */
#ifndef VKFD_SHIM_CPUCACHE_H
#define VKFD_SHIM_CPUCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* If path is a CPU cache sysfs path that must be served by the shim, write
 * the redirected path into buf and return 1; 0 when path is left alone;
 * -errno when it should be redirected but cannot be. */
int shim_cpucache_map(const char *path, char *buf, size_t len);

#endif
