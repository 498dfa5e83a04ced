// SPDX-License-Identifier: MIT
/*
 * AMDGPU_QUERY: the bounded subset of amdgpu render-node queries that
 * libdrm_amdgpu's device initialisation and ROCr issue, answered from the
 * host render node of the GPU. Register reads are limited to a whitelist of
 * configuration registers; everything returns into a private buffer of the
 * size the guest asked for (at most VKFD_MAX_AMDGPU_QUERY bytes). The
 * device seam carries the ioctls, so kfdsim's render fds answer them too.
 */
#include "host_cmd.h"
#include "host_log.h"

#include <amdgpu_drm.h>
#include <errno.h>
#include <string.h>

/* GB_ADDR_CONFIG, GB_TILE_MODE0..31, GB_MACROTILE_MODE0..15, MC_ARB_RAMCFG */
static bool mmr_allowed(uint32_t off, uint32_t count)
{
	uint64_t end = (uint64_t)off + count;

	if (off == 0x263e && count == 1)
		return true;
	if (off >= 0x2644 && end <= 0x2674)
		return true;
	if (off == 0x9d8 && count == 1)
		return true;
	return false;
}

static int render_fd(struct vkfd_host_context *ctx, uint32_t g)
{
	int fd;

	if (ctx->gpu[g].render_fd >= 0)
		return ctx->gpu[g].render_fd;
	fd = ctx->ops->open_render(ctx->dev, host_g.topo.gpus[g].render_minor);
	if (fd >= 0)
		ctx->gpu[g].render_fd = fd;
	return fd;
}

static int amdgpu_info(struct vkfd_host_context *ctx, int fd, struct drm_amdgpu_info *req)
{
	return ctx->ops->ioctl(ctx->dev, fd, DRM_IOCTL_AMDGPU_INFO, req);
}

static uint64_t cap(uint64_t v, uint64_t quota)
{
	return quota && quota < v ? quota : v;
}

/* Only static sizes, capped at the quota, and the context's own usage: the
 * kernel's usable size and largest allocation shrink with every process's
 * pinned memory, its usage counts every process's allocations. */
static void scale_heap(struct drm_amdgpu_heap_info *h, uint64_t quota, uint64_t used)
{
	h->total_heap_size = cap(h->total_heap_size, quota);
	h->usable_heap_size = h->total_heap_size;
	h->max_allocation = h->usable_heap_size / 4 * 3; /* the kernel's ratio */
	h->heap_usage = used;
}

/*
 * The whole struct is rewritten in a local copy, then only `size` bytes of
 * it go back, so a truncated answer stays a prefix of the scaled one.
 * VRAM_GTT's sizes are the kernel's totals less all pinned memory
 * (device-wide): they are replaced by the static heap totals of a MEMORY
 * query. 0 or -errno.
 */
static int scale_memory(struct vkfd_host_context *ctx, int fd, uint32_t query, uint8_t *out,
			uint32_t size)
{
	uint64_t vq = host_g.cfg.quota.vram_bytes, gq = host_g.cfg.quota.gtt_bytes;
	struct drm_amdgpu_memory_info m;

	memset(&m, 0, sizeof(m));
	if (query == VKFD_AMDGPU_QUERY_VRAM_GTT) {
		struct drm_amdgpu_info_vram_gtt vg;
		struct drm_amdgpu_info info;
		int ret;

		memset(&info, 0, sizeof(info));
		info.return_pointer = (uint64_t)(uintptr_t)&m;
		info.return_size = sizeof(m);
		info.query = AMDGPU_INFO_MEMORY;
		ret = amdgpu_info(ctx, fd, &info);
		if (ret)
			return ret;
		memset(&vg, 0, sizeof(vg));
		vg.vram_size = cap(m.vram.total_heap_size, vq);
		vg.vram_cpu_accessible_size = cap(m.cpu_accessible_vram.total_heap_size, vq);
		vg.gtt_size = cap(m.gtt.total_heap_size, gq);
		memcpy(out, &vg, size < sizeof(vg) ? size : sizeof(vg));
	} else {
		memcpy(&m, out, size < sizeof(m) ? size : sizeof(m));
		scale_heap(&m.vram, vq, ctx->vram_used);
		scale_heap(&m.cpu_accessible_vram, vq, ctx->vram_used);
		scale_heap(&m.gtt, gq, ctx->gtt_used);
		memcpy(out, &m, size < sizeof(m) ? size : sizeof(m));
	}
	return 0;
}

int cmd_amdgpu_query(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_amdgpu_query *rsp = (void *)c->rsp;
	uint8_t *out = c->rsp + sizeof(*rsp);
	const struct vkfd_req_amdgpu_query *r = CMD_REQ(c, struct vkfd_req_amdgpu_query);
	struct drm_amdgpu_info info;
	uint32_t size = 0;
	int g, fd, ret;

	if (!(host_features() & VKFD_FEAT_AMDGPU_QUERY))
		return -EOPNOTSUPP; /* docs/protocol.md: feature not offered */
	g = host_gpu_index(ctx, r->gpu_id);
	if (g < 0)
		return g;
	if (r->out_size < 1 || r->out_size > VKFD_MAX_AMDGPU_QUERY)
		return -EINVAL;
	fd = render_fd(ctx, (uint32_t)g);
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	info.return_pointer = (uint64_t)(uintptr_t)out;
	info.return_size = r->out_size;

	switch (r->query) {
	case VKFD_AMDGPU_QUERY_DRM_VERSION: {
		struct vkfd_amdgpu_drm_version dv;
		struct drm_version v;
		char name[16];

		if (r->out_size < sizeof(dv))
			return -EINVAL;
		memset(&v, 0, sizeof(v));
		memset(name, 0, sizeof(name));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		ret = ctx->ops->ioctl(ctx->dev, fd, DRM_IOCTL_VERSION, &v);
		if (ret)
			return ret;
		memset(&dv, 0, sizeof(dv));
		dv.major = (uint32_t)v.version_major;
		dv.minor = (uint32_t)v.version_minor;
		dv.patchlevel = (uint32_t)v.version_patchlevel;
		memcpy(dv.name, name, sizeof(dv.name) - 1);
		memcpy(out, &dv, sizeof(dv));
		size = sizeof(dv);
		break;
	}
	case VKFD_AMDGPU_QUERY_ACCEL_WORKING:
		info.query = AMDGPU_INFO_ACCEL_WORKING;
		size = 4;
		break;
	case VKFD_AMDGPU_QUERY_DEV_INFO:
		info.query = AMDGPU_INFO_DEV_INFO;
		size = r->out_size;
		break;
	case VKFD_AMDGPU_QUERY_VRAM_GTT:
		info.query = AMDGPU_INFO_VRAM_GTT;
		size = r->out_size;
		break;
	case VKFD_AMDGPU_QUERY_MEMORY:
		info.query = AMDGPU_INFO_MEMORY;
		size = r->out_size;
		break;
	case VKFD_AMDGPU_QUERY_READ_MMR_REG: {
		uint32_t count = (uint32_t)r->param1;

		if (count < 1 || count > VKFD_MAX_MMR_REGS || r->out_size < count * 4 ||
		    r->param0 > UINT32_MAX || !mmr_allowed((uint32_t)r->param0, count))
			return -EINVAL;
		info.query = AMDGPU_INFO_READ_MMR_REG;
		info.read_mmr_reg.dword_offset = (uint32_t)r->param0;
		info.read_mmr_reg.count = count;
		info.read_mmr_reg.instance = (uint32_t)(r->param1 >> 32);
		size = count * 4;
		break;
	}
	case VKFD_AMDGPU_QUERY_FW_VERSION:
		info.query = AMDGPU_INFO_FW_VERSION;
		info.query_fw.fw_type = (uint32_t)r->param0;
		info.query_fw.ip_instance = (uint32_t)r->param1;
		info.query_fw.index = (uint32_t)(r->param1 >> 32);
		size = r->out_size;
		break;
	case VKFD_AMDGPU_QUERY_HW_IP_INFO:
	case VKFD_AMDGPU_QUERY_HW_IP_COUNT:
		info.query = r->query == VKFD_AMDGPU_QUERY_HW_IP_INFO ? AMDGPU_INFO_HW_IP_INFO
								      : AMDGPU_INFO_HW_IP_COUNT;
		info.query_hw_ip.type = (uint32_t)r->param0;
		info.query_hw_ip.ip_instance = (uint32_t)r->param1;
		size = r->query == VKFD_AMDGPU_QUERY_HW_IP_COUNT ? 4 : r->out_size;
		break;
	default:
		return -EINVAL;
	}
	if (size > r->out_size)
		return -EINVAL;
	info.return_size = size;
	if (r->query != VKFD_AMDGPU_QUERY_DRM_VERSION) {
		ret = amdgpu_info(ctx, fd, &info);
		if (ret) {
			memset(out, 0, r->out_size);
			return ret;
		}
	}
	if (r->query == VKFD_AMDGPU_QUERY_VRAM_GTT || r->query == VKFD_AMDGPU_QUERY_MEMORY) {
		ret = scale_memory(ctx, fd, r->query, out, size);
		if (ret) {
			memset(out, 0, r->out_size);
			return ret;
		}
	}
	rsp->size = size;
	c->rsp_len = (uint32_t)((sizeof(*rsp) + size + 7) & ~7u);
	return 0;
}
