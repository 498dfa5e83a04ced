/* SPDX-License-Identifier: MIT */
/*
 * vkfd guest library: connects a guest process to a vkfd host context over
 * a transport (virtgpu in a VM, vtest socket; direct in-process only in the
 * tests' and vkfd-bench's libvkfd-guest-direct) and carries protocol
 * commands (docs/protocol.md).
 *
 * Requests passed to this library are complete protocol requests (request
 * header first, see src/proto/vkfd_protocol.h). The library owns the
 * header's sequence number and response offset: it fills them in its own
 * copy; whatever the caller put there is ignored.
 *
 * Thread safety: every call may be made from any thread of the process,
 * except vkfd_guest_disconnect, which must not overlap any other call on
 * the same connection. A connection must not be used in a child after
 * fork(); connect again. The library runs one thread per connection (the
 * asynchronous-request flusher), with every signal blocked.
 */
#ifndef VKFD_GUEST_H
#define VKFD_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VKFD_GUEST_API_VERSION 1

/* The library is built with hidden visibility; these are its exports. */
#if defined(__GNUC__)
#define VKFD_GUEST_PUBLIC __attribute__((visibility("default")))
#else
#define VKFD_GUEST_PUBLIC
#endif

struct vkfd_guest;

enum vkfd_transport {
	VKFD_TRANSPORT_AUTO = 0, /* VKFD_TRANSPORT env, else virtgpu, else vtest */
	VKFD_TRANSPORT_VIRTGPU = 1,
	VKFD_TRANSPORT_VTEST = 2,
	VKFD_TRANSPORT_DIRECT = 3, /* host in process: libvkfd-guest fails with ENOTSUP */
};

/* Connect. `target` is the vtest socket path for VTEST (NULL: VKFD_SOCKET
 * env), the render node path for VIRTGPU (NULL: scan /dev/dri), unused for
 * DIRECT. VKFD_TRANSPORT env accepts "virtgpu", "vtest" or "direct".
 * Connecting reads the capset, negotiates the wire version (fails with
 * EPROTO when host and guest share none) and maps the shared memory.
 * Returns NULL and sets errno on failure. */
VKFD_GUEST_PUBLIC struct vkfd_guest *vkfd_guest_connect(enum vkfd_transport transport,
							const char *target);
VKFD_GUEST_PUBLIC void vkfd_guest_disconnect(struct vkfd_guest *g);

/* The transport actually in use (never AUTO) and its name. */
VKFD_GUEST_PUBLIC enum vkfd_transport vkfd_guest_transport(const struct vkfd_guest *g);
VKFD_GUEST_PUBLIC const char *vkfd_guest_transport_name(const struct vkfd_guest *g);

/* The capset as the host sent it (layout: struct vkfd_capset in
 * vkfd_protocol.h). Copies min(size, capset size) bytes; returns the capset
 * size or -errno. */
VKFD_GUEST_PUBLIC int vkfd_guest_capset(struct vkfd_guest *g, void *buf, size_t size);
/* Negotiated wire protocol version. */
VKFD_GUEST_PUBLIC uint32_t vkfd_guest_wire_version(const struct vkfd_guest *g);

/* Synchronous call: flushes pending asynchronous requests and `req` in one
 * submit, waits until the host has processed it and copies up to rsp_len
 * bytes of the response to rsp (zero-filled past what the host wrote).
 * Returns 0 or -errno for transport failures (-EPIPE: host gone, -EIO:
 * context lost, -EMSGSIZE: request or response too large, -EINVAL: not a
 * well-formed request). The command's own result is in the response. */
VKFD_GUEST_PUBLIC int vkfd_guest_call(struct vkfd_guest *g, const void *req, size_t req_len,
				      void *rsp, size_t rsp_len);

/* Asynchronous request (no response): queued and sent with the next
 * synchronous call, when the queue exceeds a size bound, or at the latest
 * about 1 ms after it was queued. 0 or -errno. */
VKFD_GUEST_PUBLIC int vkfd_guest_call_async(struct vkfd_guest *g, const void *req, size_t req_len);
/* Asynchronous request that the host's doorbell relay must see run before
 * it rings any doorbell the caller stores afterwards (MAP_MEMORY_ASYNC,
 * VKFD_FEAT_ASYNC_MAP): queued like vkfd_guest_call_async, and its seqno
 * is stored into the shared memory's map_barrier word before this returns
 * (docs/protocol.md 14.5). 0 or -errno. */
VKFD_GUEST_PUBLIC int vkfd_guest_call_async_barrier(struct vkfd_guest *g, const void *req,
						    size_t req_len);
/* Transport submits made so far (batches and fence requests; statistics). */
VKFD_GUEST_PUBLIC uint64_t vkfd_guest_submit_count(struct vkfd_guest *g);
/* Send every queued asynchronous request now (does not wait). */
VKFD_GUEST_PUBLIC int vkfd_guest_flush(struct vkfd_guest *g);

/* Fenced call for requests that block on the host (WAIT_EVENTS): takes a
 * free ring 1..63, submits `req` naming it, spins briefly (VKFD_SPIN_US,
 * as vkfd_guest_call) on the reply slot, and only if the reply has not come
 * submits that ring's fence and sleeps until the host retires it; then
 * copies the response like vkfd_guest_call. Only one
 * wait is pending per ring; when all 63 rings are busy the caller sleeps
 * until one is released. 0 or -errno. */
VKFD_GUEST_PUBLIC int vkfd_guest_call_wait(struct vkfd_guest *g, const void *req, size_t req_len,
					   void *rsp, size_t rsp_len);

/* Blob ids: fresh, non-zero, unique per connection (0 is the shmem). */
VKFD_GUEST_PUBLIC uint64_t vkfd_guest_blob_id_alloc(struct vkfd_guest *g);

/* Blob flags as virtio-gpu's. */
#define VKFD_GUEST_BLOB_MAPPABLE  (1u << 0)
#define VKFD_GUEST_BLOB_SHAREABLE (1u << 1)

struct vkfd_guest_blob {
	uint64_t blob_id;
	uint64_t size;
	uint32_t res_id; /* transport resource id */
	int fd;          /* mmap-able fd owned by the blob, or -1 (virtgpu) */
	uint32_t handle; /* transport private (virtgpu GEM handle) */
};

/* Create the blob resource for `blob_id` (the object the host created for
 * that id with an earlier request; pending asynchronous requests are flushed
 * first). size and flags must match the object. 0 or -errno. */
VKFD_GUEST_PUBLIC int vkfd_guest_blob_create(struct vkfd_guest *g, uint64_t blob_id, uint64_t size,
					     uint32_t flags, struct vkfd_guest_blob *out);
/* Map len bytes of the blob at `offset`. addr != NULL maps MAP_FIXED there
 * (GPU VA = CPU VA); MAP_SHARED always. Returns the address or MAP_FAILED
 * with errno set. Unmap with munmap(). */
VKFD_GUEST_PUBLIC void *vkfd_guest_blob_map(struct vkfd_guest *g, const struct vkfd_guest_blob *b,
					    void *addr, size_t len, uint64_t offset, int prot);
/* Release the resource (closes the fd; existing mappings stay valid). */
VKFD_GUEST_PUBLIC void vkfd_guest_blob_destroy(struct vkfd_guest *g, struct vkfd_guest_blob *b);

/* Sharing a blob with another process of the same guest (IPC,
 * docs/guest-vkfd-backend.md "IPC"). export_fd gives a new fd for a blob
 * created SHAREABLE (virtio-gpu: its PRIME fd; vtest: a duplicate of the
 * server's fd); fd_flags may hold O_CLOEXEC. fd or -errno (-EOPNOTSUPP:
 * the transport cannot share). */
VKFD_GUEST_PUBLIC int vkfd_guest_blob_export_fd(struct vkfd_guest *g,
						const struct vkfd_guest_blob *b, int fd_flags);
/* A resource of this connection's host context made from such an fd. */
struct vkfd_guest_resource {
	uint32_t res_id; /* for IMPORT_RESOURCE / GET_RESOURCE_INFO */
	uint32_t handle; /* transport private (virtgpu GEM handle), 0 if none */
};
/* Attach the resource behind an fd another process exported to this
 * connection's context. 0 or -errno (-EINVAL: not a resource this guest
 * shares; -EOPNOTSUPP: the transport cannot share). */
VKFD_GUEST_PUBLIC int vkfd_guest_resource_import(struct vkfd_guest *g, int fd,
						 struct vkfd_guest_resource *out);
/* Detach it (a BO imported from it stays valid). */
VKFD_GUEST_PUBLIC void vkfd_guest_resource_release(struct vkfd_guest *g,
						   struct vkfd_guest_resource *r);

/* The shared memory page(s) the host writes (read-only for the guest).
 * Layout: struct vkfd_shmem in vkfd_protocol.h. */
VKFD_GUEST_PUBLIC const volatile void *vkfd_guest_shmem(struct vkfd_guest *g, size_t *size);
/* Event-state table in the shmem (a hint, see docs/protocol.md): pointer to
 * its first entry and the number of entries, or NULL. */
VKFD_GUEST_PUBLIC const volatile void *vkfd_guest_event_table(struct vkfd_guest *g,
							      uint32_t *count);
/* Non-zero once the host marked the context lost (async error word). */
VKFD_GUEST_PUBLIC uint32_t vkfd_guest_async_error(struct vkfd_guest *g);

#ifdef __cplusplus
}
#endif
#endif
