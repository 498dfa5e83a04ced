/* SPDX-License-Identifier: MIT */
/*
 * The virtio-gpu DRM UAPI the virtgpu transport needs, defined from the
 * documented Linux ABI (include/uapi/drm/virtgpu_drm.h, Linux >= 5.16):
 * Debian 12's libdrm copy predates blobs and CONTEXT_INIT, so nothing here
 * comes from a system header. Names carry a vgu_ prefix to never clash
 * with a newer system header included elsewhere.
 */
#ifndef VKFD_VIRTGPU_UAPI_H
#define VKFD_VIRTGPU_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#define VGU_DRM_BASE         'd'
#define VGU_DRM_COMMAND_BASE 0x40

struct vgu_drm_version {
	int version_major;
	int version_minor;
	int version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct vgu_gem_close {
	uint32_t handle;
	uint32_t pad;
};

/* DRM core's PRIME ioctls (flags: O_CLOEXEC, O_RDWR) */
struct vgu_prime_handle {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
};

struct vgu_resource_info {
	uint32_t bo_handle;
	uint32_t res_handle; /* out */
	uint32_t size;       /* out */
	uint32_t blob_mem;   /* out */
};

struct vgu_map {
	uint64_t offset; /* for mmap on the DRM fd */
	uint32_t handle;
	uint32_t pad;
};

#define VGU_EXECBUF_FENCE_FD_IN  0x01
#define VGU_EXECBUF_FENCE_FD_OUT 0x02
#define VGU_EXECBUF_RING_IDX     0x04
struct vgu_execbuffer {
	uint32_t flags;
	uint32_t size;
	uint64_t command; /* user pointer */
	uint64_t bo_handles;
	uint32_t num_bo_handles;
	int32_t fence_fd;
	uint32_t ring_idx;
	uint32_t pad;
};

#define VGU_PARAM_3D_FEATURES          1
#define VGU_PARAM_RESOURCE_BLOB        3
#define VGU_PARAM_HOST_VISIBLE         4
#define VGU_PARAM_CONTEXT_INIT         6
#define VGU_PARAM_SUPPORTED_CAPSET_IDS 7
struct vgu_getparam {
	uint64_t param;
	uint64_t value; /* user pointer to an int */
};

struct vgu_get_caps {
	uint32_t cap_set_id;
	uint32_t cap_set_ver;
	uint64_t addr;
	uint32_t size;
	uint32_t pad;
};

#define VGU_BLOB_MEM_HOST3D            0x0002
#define VGU_BLOB_FLAG_USE_MAPPABLE     0x0001
#define VGU_BLOB_FLAG_USE_SHAREABLE    0x0002
#define VGU_BLOB_FLAG_USE_CROSS_DEVICE 0x0004
struct vgu_resource_create_blob {
	uint32_t blob_mem;
	uint32_t blob_flags;
	uint32_t bo_handle;  /* out */
	uint32_t res_handle; /* out */
	uint64_t size;
	uint32_t pad;
	uint32_t cmd_size;
	uint64_t cmd;
	uint64_t blob_id;
};

#define VGU_CONTEXT_PARAM_CAPSET_ID       0x0001
#define VGU_CONTEXT_PARAM_NUM_RINGS       0x0002
#define VGU_CONTEXT_PARAM_POLL_RINGS_MASK 0x0003
struct vgu_context_set_param {
	uint64_t param;
	uint64_t value;
};
struct vgu_context_init {
	uint32_t num_params;
	uint32_t pad;
	uint64_t ctx_set_params; /* user pointer */
};

_Static_assert(sizeof(struct vgu_map) == 16, "vgu_map");
_Static_assert(sizeof(struct vgu_prime_handle) == 12, "vgu_prime_handle");
_Static_assert(sizeof(struct vgu_resource_info) == 16, "vgu_resource_info");
_Static_assert(sizeof(struct vgu_execbuffer) == 40, "vgu_execbuffer");
_Static_assert(sizeof(struct vgu_get_caps) == 24, "vgu_get_caps");
_Static_assert(sizeof(struct vgu_resource_create_blob) == 48, "vgu_resource_create_blob");
_Static_assert(sizeof(struct vgu_context_init) == 16, "vgu_context_init");

#define VGU_IOCTL_VERSION              _IOWR(VGU_DRM_BASE, 0x00, struct vgu_drm_version)
#define VGU_IOCTL_GEM_CLOSE            _IOW(VGU_DRM_BASE, 0x09, struct vgu_gem_close)
#define VGU_IOCTL_PRIME_HANDLE_TO_FD   _IOWR(VGU_DRM_BASE, 0x2d, struct vgu_prime_handle)
#define VGU_IOCTL_PRIME_FD_TO_HANDLE   _IOWR(VGU_DRM_BASE, 0x2e, struct vgu_prime_handle)
#define VGU_IOC(nr, type)              _IOWR(VGU_DRM_BASE, VGU_DRM_COMMAND_BASE + (nr), type)
#define VGU_IOCTL_MAP                  VGU_IOC(0x01, struct vgu_map)
#define VGU_IOCTL_EXECBUFFER           VGU_IOC(0x02, struct vgu_execbuffer)
#define VGU_IOCTL_GETPARAM             VGU_IOC(0x03, struct vgu_getparam)
#define VGU_IOCTL_RESOURCE_INFO        VGU_IOC(0x05, struct vgu_resource_info)
#define VGU_IOCTL_GET_CAPS             VGU_IOC(0x09, struct vgu_get_caps)
#define VGU_IOCTL_RESOURCE_CREATE_BLOB VGU_IOC(0x0a, struct vgu_resource_create_blob)
#define VGU_IOCTL_CONTEXT_INIT         VGU_IOC(0x0b, struct vgu_context_init)

#endif
