/* SPDX-License-Identifier: MIT */
/*
 * vkfd guest library: connects a guest process to a vkfd host context over
 * a transport (virtgpu in a VM, vtest socket, or direct in-process) and
 * carries protocol commands (docs/protocol.md).
 */
#ifndef VKFD_GUEST_H
#define VKFD_GUEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vkfd_guest;

enum vkfd_transport {
	VKFD_TRANSPORT_AUTO = 0,   /* VKFD_TRANSPORT env, else virtgpu, else vtest */
	VKFD_TRANSPORT_VIRTGPU = 1,
	VKFD_TRANSPORT_VTEST = 2,
	VKFD_TRANSPORT_DIRECT = 3,
};

/* Connect. `target` is the vtest socket path for VTEST (NULL: VKFD_SOCKET
 * env), unused otherwise. Returns NULL and sets errno on failure. */
struct vkfd_guest *vkfd_guest_connect(enum vkfd_transport transport,
				      const char *target);
void vkfd_guest_disconnect(struct vkfd_guest *g);

#ifdef __cplusplus
}
#endif
#endif
