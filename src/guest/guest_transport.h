/* SPDX-License-Identifier: MIT */
/*
 * The guest library's transports behind one interface: how bytes and blobs
 * reach a host context and how ring fences come back. The request layer
 * (guest_call.c) never knows which transport it talks to.
 *
 * Thread safety: every op may be called concurrently; a transport serialises
 * internally what must be serialised. wait() never holds a lock while it
 * sleeps.
 */
#ifndef VKFD_GUEST_TRANSPORT_H
#define VKFD_GUEST_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include <vkfd/guest.h>

#define GT_NUM_RINGS 64

struct guest_transport;

struct guest_transport_ops {
	const char *name;
	enum vkfd_transport type;
	/* Raw capset bytes (id VIRTIO_GPU_CAPSET_AMDKFD). Returns the size copied
	 * (<= cap) or -errno (-ENOENT: the host does not offer it). */
	int (*get_capset)(struct guest_transport *t, uint32_t version, void *buf, size_t cap);
	/* Create the host context for our capset with GT_NUM_RINGS rings. */
	int (*context_init)(struct guest_transport *t);
	int (*blob_create)(struct guest_transport *t, uint64_t blob_id, uint64_t size,
			   uint32_t flags, struct vkfd_guest_blob *out);
	void *(*blob_map)(struct guest_transport *t, const struct vkfd_guest_blob *b, void *addr,
			  size_t len, uint64_t offset, int prot);
	void (*blob_destroy)(struct guest_transport *t, struct vkfd_guest_blob *b);
	/* IPC (NULL: not supported): a new fd for a SHAREABLE blob; the
	 * resource behind such an fd of another process, attached to our
	 * context; its release. */
	int (*blob_export_fd)(struct guest_transport *t, const struct vkfd_guest_blob *b,
			      int fd_flags);
	int (*resource_import)(struct guest_transport *t, int fd, struct vkfd_guest_resource *out);
	void (*resource_release)(struct guest_transport *t, struct vkfd_guest_resource *r);
	/* Submit a command batch. With fence != NULL a fence is queued on
	 * `ring` after it and its value (increasing per ring) stored. */
	int (*submit)(struct guest_transport *t, const void *cmd, size_t size, uint32_t ring,
		      uint64_t *fence);
	/* Sleep until `ring` retired fence `value`. timeout_ms < 0: forever.
	 * 0, -ETIMEDOUT, or -errno (-EPIPE: host gone). */
	int (*wait)(struct guest_transport *t, uint32_t ring, uint64_t value, int timeout_ms);
	void (*destroy)(struct guest_transport *t);
};

struct guest_transport {
	const struct guest_transport_ops *ops;
};

/* Constructors: NULL and errno on failure. */
struct guest_transport *gt_vtest_open(const char *socket_path);
/* The in-process host: src/direct/transport_direct.c in the tests' and
 * vkfd-bench's libvkfd-guest-direct; libvkfd-guest links
 * transport_direct_none.c instead, which fails with ENOTSUP. */
struct guest_transport *gt_direct_open(void);
struct guest_transport *gt_virtgpu_open(const char *node_path);

#endif
