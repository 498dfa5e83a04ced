/* SPDX-License-Identifier: MIT */
/*
 * The LD_PRELOAD shim's backend interface. The interposition layer
 * (shim_*.c) decides which paths and fds belong to the virtual KFD device and
 * hands the operations to one backend: "native" (kfdsim in-process, the
 * baseline) or "vkfd" (the vkfd protocol to a host context).
 */
#ifndef VKFD_SHIM_BACKEND_H
#define VKFD_SHIM_BACKEND_H

#include <stddef.h>
#include <sys/types.h>

struct shim_backend {
	const char *name;
	/* Called once, lazily, on the first access to a virtual path or fd.
	 * 0 or -errno. */
	int (*init)(void);
	/* Directory holding the KFD topology tree as
	 * <root>/sys/devices/virtual/kfd/kfd/topology/... */
	const char *(*sysfs_root)(void);
	int (*open_kfd)(int flags);                             /* fd or -errno */
	int (*open_render)(int minor, int flags);               /* fd or -errno */
	int (*ioctl)(int fd, unsigned long request, void *arg); /* 0 / -errno */
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd,
		      off_t off); /* MAP_FAILED + errno */
	/* Told before the application unmaps [addr, addr+len) (so USERPTR
	 * conversions and blob mappings can be tracked); may be NULL. */
	void (*munmap_notify)(void *addr, size_t len);
	/* Told before the application changes [addr, addr+len) in place
	 * (madvise, or mremap moving it away); may be NULL. */
	void (*remap_notify)(void *addr, size_t len);
	int (*close)(int fd); /* 0 / -errno; the fd is closed by the backend */
	/* In the parent before fork(); may be NULL. */
	void (*atfork_prepare)(void);
	/* In the child after fork(): inherited device state is dead. */
	void (*atfork_child)(void);
};

/* Backends; selected by VKFD_BACKEND=native|vkfd (vkfd-run sets it). */
extern const struct shim_backend shim_backend_native;
extern const struct shim_backend shim_backend_vkfd;

#endif
