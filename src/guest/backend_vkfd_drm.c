// SPDX-License-Identifier: MIT
/*
 * vkfd backend: render-node ioctls, the DRM/AMDGPU subset that
 * libdrm_amdgpu's amdgpu_device_initialize, amdgpu_query_info,
 * amdgpu_query_gpu_info and amdgpu_read_mm_registers issue, answered with
 * the protocol's AMDGPU_QUERY. Layouts written from the documented DRM UAPI
 * (drm.h, amdgpu_drm.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

static struct bk_conn *bk_any_conn_locked(void)
{
	BK_ASSERT_TABLE_LOCKED();
	for (unsigned int i = 0; i < BK_MAX_FILES; i++)
		if (bk.files[i].kind == BK_KFD && bk.files[i].conn && !bk.files[i].conn->dead &&
		    bk.files[i].pid == bk_self_pid())
			return bk.files[i].conn;
	return bk.spare && !bk.spare->dead ? bk.spare : NULL;
}

static int bk_amdgpu_query(struct bk_conn *c, uint32_t gpu_id, uint32_t query, uint64_t p0,
			   uint64_t p1, void *out, uint32_t out_size, uint32_t *got)
{
	struct vkfd_req_amdgpu_query req;
	uint8_t rspbuf[sizeof(struct vkfd_rsp_amdgpu_query) + VKFD_MAX_AMDGPU_QUERY];
	struct vkfd_rsp_amdgpu_query *rsp = (void *)rspbuf;
	int r;

	if (out_size == 0 || out_size > VKFD_MAX_AMDGPU_QUERY)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.gpu_id = gpu_id;
	req.query = query;
	req.out_size = out_size;
	req.param0 = p0;
	req.param1 = p1;
	r = bk_call(c, VKFD_CMD_AMDGPU_QUERY, &req, sizeof(req), rspbuf,
		    sizeof(*rsp) + ((out_size + 7u) & ~7u));
	if (r)
		return r;
	if (rsp->size > out_size)
		return -EIO;
	memset(out, 0, out_size);
	memcpy(out, rsp + 1, rsp->size);
	*got = rsp->size;
	return 0;
}

#define BK_DRM_TYPE           'd'
#define BK_DRM_NR_VERSION     0x00
#define BK_DRM_NR_GET_CLIENT  0x05
#define BK_DRM_COMMAND_BASE   0x40
#define BK_DRM_NR_AMDGPU_INFO (BK_DRM_COMMAND_BASE + 0x05)

/* struct drm_version (LP64) */
struct bk_drm_version {
	int32_t major, minor, patchlevel, pad;
	uint64_t name_len, name;
	uint64_t date_len, date;
	uint64_t desc_len, desc;
};
_Static_assert(sizeof(struct bk_drm_version) == 64, "abi");

/* struct drm_client (LP64) */
struct bk_drm_client {
	int32_t idx, auth;
	uint64_t pid, uid, magic, iocs;
};
_Static_assert(sizeof(struct bk_drm_client) == 40, "abi");

/* struct drm_amdgpu_info */
struct bk_amdgpu_info {
	uint64_t return_pointer;
	uint32_t return_size;
	uint32_t query;
	uint32_t u[4]; /* per-query parameters */
};
_Static_assert(sizeof(struct bk_amdgpu_info) == 32, "abi");

#define BK_AMDGPU_INFO_ACCEL_WORKING 0x00
#define BK_AMDGPU_INFO_HW_IP_INFO    0x02
#define BK_AMDGPU_INFO_HW_IP_COUNT   0x03
#define BK_AMDGPU_INFO_FW_VERSION    0x0e
#define BK_AMDGPU_INFO_VRAM_GTT      0x14
#define BK_AMDGPU_INFO_READ_MMR_REG  0x15
#define BK_AMDGPU_INFO_DEV_INFO      0x16
#define BK_AMDGPU_INFO_MEMORY        0x19

/* drm_copy_field(): copy at most *len bytes, report the full length */
static int bk_drm_field(uint64_t *len, uint64_t ptr, const char *val)
{
	size_t l = strlen(val), n = l < *len ? l : (size_t)*len;
	int r = 0;

	if (n && ptr)
		r = bk_write_user(ptr, val, n);
	*len = l;
	return r;
}

static int bk_drm_version(struct bk_conn *c, uint32_t gpu_id, void *arg)
{
	struct vkfd_amdgpu_drm_version v;
	struct bk_drm_version a;
	uint32_t got = 0;
	int r;

	r = bk_read_user(&a, (uintptr_t)arg, sizeof(a));
	if (r)
		return r;
	memset(&v, 0, sizeof(v));
	r = bk_amdgpu_query(c, gpu_id, VKFD_AMDGPU_QUERY_DRM_VERSION, 0, 0, &v, sizeof(v), &got);
	if (r)
		return r;
	v.name[sizeof(v.name) - 1] = '\0';
	a.major = (int32_t)v.major;
	a.minor = (int32_t)v.minor;
	a.patchlevel = (int32_t)v.patchlevel;
	r = bk_drm_field(&a.name_len, a.name, v.name);
	if (!r)
		r = bk_drm_field(&a.date_len, a.date, "20150101");
	if (!r)
		r = bk_drm_field(&a.desc_len, a.desc, "AMD GPU (vkfd)");
	if (!r)
		r = bk_write_user((uintptr_t)arg, &a, sizeof(a));
	return r;
}

static int bk_drm_amdgpu_info(struct bk_conn *c, uint32_t gpu_id, void *arg)
{
	uint8_t out[VKFD_MAX_AMDGPU_QUERY];
	struct bk_amdgpu_info a;
	uint32_t q, size, got = 0;
	uint64_t p0 = 0, p1 = 0;
	int r;

	r = bk_read_user(&a, (uintptr_t)arg, sizeof(a));
	if (r)
		return r;
	if (!a.return_size || !a.return_pointer)
		return -EINVAL;
	size = a.return_size < VKFD_MAX_AMDGPU_QUERY ? a.return_size : VKFD_MAX_AMDGPU_QUERY;
	switch (a.query) {
	case BK_AMDGPU_INFO_ACCEL_WORKING:
		q = VKFD_AMDGPU_QUERY_ACCEL_WORKING;
		break;
	case BK_AMDGPU_INFO_DEV_INFO:
		q = VKFD_AMDGPU_QUERY_DEV_INFO;
		break;
	case BK_AMDGPU_INFO_VRAM_GTT:
		q = VKFD_AMDGPU_QUERY_VRAM_GTT;
		break;
	case BK_AMDGPU_INFO_MEMORY:
		q = VKFD_AMDGPU_QUERY_MEMORY;
		break;
	case BK_AMDGPU_INFO_READ_MMR_REG:
		/* u: dword_offset, count, instance, flags */
		if (a.u[1] == 0 || a.u[1] > VKFD_MAX_MMR_REGS)
			return -EINVAL;
		q = VKFD_AMDGPU_QUERY_READ_MMR_REG;
		p0 = a.u[0];
		p1 = a.u[1] | ((uint64_t)a.u[2] << 32);
		if (size > a.u[1] * 4u)
			size = a.u[1] * 4u;
		break;
	case BK_AMDGPU_INFO_FW_VERSION:
		/* u: type, ip_instance, index */
		q = VKFD_AMDGPU_QUERY_FW_VERSION;
		p0 = a.u[0];
		p1 = a.u[1] | ((uint64_t)a.u[2] << 32);
		break;
	case BK_AMDGPU_INFO_HW_IP_INFO:
	case BK_AMDGPU_INFO_HW_IP_COUNT:
		/* u: type, ip_instance */
		q = a.query == BK_AMDGPU_INFO_HW_IP_INFO ? VKFD_AMDGPU_QUERY_HW_IP_INFO
							 : VKFD_AMDGPU_QUERY_HW_IP_COUNT;
		p0 = a.u[0];
		p1 = a.u[1];
		break;
	default:
		return -EINVAL; /* the kernel's answer to an unknown query */
	}
	r = bk_amdgpu_query(c, gpu_id, q, p0, p1, out, size, &got);
	if (r)
		return r;
	return bk_write_user(a.return_pointer, out, got < size ? got : size);
}

/* drm_getclient: only index 0, the caller itself. libdrm_amdgpu asks it
 * when fstat does not show a render node; render clients need no
 * authentication, so the answer is local. */
static int bk_drm_get_client(void *arg)
{
	struct bk_drm_client cl;
	int r;

	r = bk_read_user(&cl, (uintptr_t)arg, sizeof(cl));
	if (r)
		return r;
	if (cl.idx != 0)
		return -EINVAL;
	cl.auth = 1;
	cl.pid = (uint64_t)bk_self_pid();
	cl.uid = 65534; /* the kernel reports overflowuid */
	cl.magic = 0;
	cl.iocs = 0;
	return bk_write_user((uintptr_t)arg, &cl, sizeof(cl));
}

static int bk_drm_ioctl(struct bk_conn *c, uint32_t gpu_id, unsigned long request, void *arg)
{
	if (_IOC_TYPE(request) != BK_DRM_TYPE)
		return -ENOTTY;
	switch (_IOC_NR(request)) {
	case BK_DRM_NR_VERSION:
		if (_IOC_SIZE(request) != sizeof(struct bk_drm_version))
			return -EINVAL;
		return bk_drm_version(c, gpu_id, arg);
	case BK_DRM_NR_GET_CLIENT:
		if (_IOC_SIZE(request) != sizeof(struct bk_drm_client))
			return -EINVAL;
		return bk_drm_get_client(arg);
	case BK_DRM_NR_AMDGPU_INFO:
		if (_IOC_SIZE(request) < sizeof(struct bk_amdgpu_info))
			return -EINVAL;
		return bk_drm_amdgpu_info(c, gpu_id, arg);
	default:
		/* GEM, CS and the rest of the render node are not remoted */
		return -ENOTTY;
	}
}

int bk_render_ioctl(int fd, unsigned long request, void *arg)
{
	struct bk_conn *c = NULL;
	struct bk_file *f;
	uint32_t gpu_id = 0;
	bool free_it;
	int r;

	bk_table_lock();
	f = bk_file_get_locked(fd);
	if (f && f->kind == BK_RENDER) {
		/* the VM owner if any; else any KFD process of ours (the
		 * queries are read-only); borrowed for the call */
		c = f->vm_owner && !f->vm_owner->dead ? f->vm_owner : bk_any_conn_locked();
		gpu_id = f->gpu >= 0 ? bk.gpus[f->gpu].gpu_id : 0;
		if (c)
			c->users++;
	}
	bk_table_unlock();
	if (!c)
		return f ? -ENODEV : -EBADF;
	r = bk_drm_ioctl(c, gpu_id, request, arg);
	bk_table_lock();
	free_it = --c->users == 0 && c->closed;
	bk_table_unlock();
	if (free_it) {
		bk_mem_lock_take();
		bk_conn_free(c);
		bk_mem_lock_release();
	}
	return r;
}
