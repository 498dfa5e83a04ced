/* SPDX-License-Identifier: MIT */
/*
 * The table of device file descriptors (virtual /dev/kfd and render nodes).
 *
 * A shim_devfile stands for one open device "file"; several fd numbers can
 * refer to it after dup(). It is reference counted like a kernel struct file:
 * the backend closes it when the last fd is closed and no call on it is in
 * flight.
 */
#ifndef VKFD_SHIM_FDTABLE_H
#define VKFD_SHIM_FDTABLE_H

#include <stdbool.h>

enum shim_fd_kind {
	SHIM_FD_KFD = 1,
	SHIM_FD_RENDER = 2,
};

struct shim_devfile {
	int backend_fd; /* the fd the backend returned */
	enum shim_fd_kind kind;
	int minor;           /* render nodes: the DRM minor opened */
	int refs;            /* fd numbers + calls in flight */
	unsigned generation; /* process generation (bumped in fork children) */
};

/* Most fds are not device fds; this check needs no lock. */
bool shim_fd_any(void);

/* Register a new device file for backend_fd (which is also the fd the
 * application sees); minor is the render node's (ignored for KFD). 0 or
 * -errno (-EMFILE when the table is full). */
int shim_fd_register(int backend_fd, enum shim_fd_kind kind, int minor);

/* Register fd as another number for f (after a successful real dup). */
int shim_fd_register_dup(int fd, struct shim_devfile *f);

/* Look up fd; takes a reference that shim_fd_put() drops. NULL if fd is not
 * a device fd. */
struct shim_devfile *shim_fd_get(int fd);

/* Remove fd from the table; the table's reference is handed to the caller
 * (drop it with shim_fd_put()). NULL if fd is not a device fd. */
struct shim_devfile *shim_fd_remove(int fd);

/* Drop a reference; the last one closes the device file. */
void shim_fd_put(struct shim_devfile *f);

/* True when f belongs to this process (not inherited through fork). */
bool shim_fd_current(const struct shim_devfile *f);

/* In the child after fork(): every entry becomes a dead, inherited file. */
void shim_fd_atfork_child(void);

#endif
