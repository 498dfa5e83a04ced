// SPDX-License-Identifier: MIT
/* Session and process-level commands: version, topology, apertures, VM
 * acquisition, policies, clocks, and the amdgpu render-node query subset. */
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>
#include <string.h>

int cmd_hello(struct cmd_ctx *c)
{
	struct vkfd_rsp_hello *rsp = (void *)c->rsp;
	const struct vkfd_req_hello *r = CMD_REQ(c, struct vkfd_req_hello);
	uint32_t ver;
	int ret;

	ret = vkfd_version_negotiate(r->version_min, r->version_max, VKFD_PROTO_VERSION_MIN,
				     VKFD_PROTO_VERSION_MAX, &ver);
	if (ret)
		return ret;
	c->ctx->proto_version = ver;
	vkfd_shmem_hdr(c->ctx->shmem.map)->version = ver;
	rsp->version = ver;
	rsp->features = r->features & host_features();
	/* a secondary KFD process takes no user memory (kfdsim refuses it) */
	if (c->ctx->kfd_secondary)
		rsp->features &= ~VKFD_FEAT_ARENAS;
	/* pieces are arena ranges: never without arenas */
	if (!(rsp->features & VKFD_FEAT_ARENAS))
		rsp->features &= ~VKFD_FEAT_USERPTR_PIECES;
	/* a rule about ALLOC_MEMORY_ASYNC: nothing without it */
	if (!(rsp->features & VKFD_FEAT_ASYNC_ALLOC))
		rsp->features &= ~VKFD_FEAT_STRICT_ALLOC;
	__atomic_store_n(&c->ctx->features, rsp->features, __ATOMIC_RELEASE);
	host_budget_publish(c->ctx);
	host_map_barrier_publish(c->ctx);
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_get_version(struct cmd_ctx *c)
{
	struct vkfd_rsp_get_version *rsp = (void *)c->rsp;

	rsp->major = host_g.caps.kfd_major;
	rsp->minor = host_g.caps.kfd_minor;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_get_topology(struct cmd_ctx *c)
{
	struct vkfd_rsp_get_topology *rsp = (void *)c->rsp;
	const struct vkfd_req_get_topology *r = CMD_REQ(c, struct vkfd_req_get_topology);
	uint64_t left;
	uint32_t n;

	if (r->flags || r->offset % 8 || r->max_len < 8 || r->max_len > VKFD_TOPOLOGY_MAX_CHUNK ||
	    r->max_len % 8 || r->offset > host_g.topo_len)
		return -EINVAL;
	left = host_g.topo_len - r->offset;
	n = left < r->max_len ? (uint32_t)left : r->max_len;
	rsp->total_len = host_g.topo_len;
	rsp->chunk_len = n;
	rsp->generation = 1;
	memcpy(c->rsp + sizeof(*rsp), host_g.topo_blob + r->offset, n);
	c->rsp_len = (uint32_t)((sizeof(*rsp) + n + 7) & ~7u);
	return 0;
}

int cmd_get_process_apertures(struct cmd_ctx *c)
{
	struct vkfd_rsp_get_process_apertures *rsp = (void *)c->rsp;
	const struct vkfd_req_get_process_apertures *r =
	    CMD_REQ(c, struct vkfd_req_get_process_apertures);
	uint32_t n = 0;

	if (r->max_nodes > VKFD_MAX_GPUS)
		return -EINVAL;
	for (uint32_t g = 0; g < c->ctx->n_gpus && n < r->max_nodes; g++) {
		const struct kfd_process_device_apertures *a = &c->ctx->gpu[g].ap;

		if (!c->ctx->gpu[g].have_ap)
			continue;
		rsp->apertures[n] = (struct vkfd_aperture){
		    .lds_base = a->lds_base,
		    .lds_limit = a->lds_limit,
		    .scratch_base = a->scratch_base,
		    .scratch_limit = a->scratch_limit,
		    .gpuvm_base = a->gpuvm_base,
		    .gpuvm_limit = a->gpuvm_limit,
		    .gpu_id = host_g.topo.gpus[g].gpu_id,
		};
		n++;
	}
	rsp->num_nodes = n;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

static int ensure_render(struct vkfd_host_context *ctx, uint32_t g)
{
	int fd;

	if (ctx->gpu[g].render_fd >= 0)
		return 0;
	fd = ctx->ops->open_render(ctx->dev, host_g.topo.gpus[g].render_minor);
	if (fd < 0)
		return fd;
	ctx->gpu[g].render_fd = fd;
	return 0;
}

int cmd_acquire_vm(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct kfd_ioctl_acquire_vm_args a;
	const struct vkfd_req_gpu *r = CMD_REQ(c, struct vkfd_req_gpu);
	int g, ret;

	g = host_gpu_index(ctx, r->gpu_id);
	if (g < 0)
		return g;
	if (ctx->gpu[g].vm_acquired)
		return 0;
	ret = ensure_render(ctx, (uint32_t)g);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.drm_fd = (uint32_t)ctx->gpu[g].render_fd;
	a.gpu_id = r->gpu_id;
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_ACQUIRE_VM, &a);
	if (!ret)
		ctx->gpu[g].vm_acquired = true;
	return ret;
}

int cmd_set_memory_policy(struct cmd_ctx *c)
{
	struct kfd_ioctl_set_memory_policy_args a;
	const struct vkfd_req_set_memory_policy *r = CMD_REQ(c, struct vkfd_req_set_memory_policy);
	int g;

	g = host_gpu_index(c->ctx, r->gpu_id);
	if (g < 0)
		return g;
	if (r->default_policy > KFD_IOC_CACHE_POLICY_NONCOHERENT ||
	    r->alternate_policy > KFD_IOC_CACHE_POLICY_NONCOHERENT)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.alternate_aperture_base = r->alternate_aperture_base;
	a.alternate_aperture_size = r->alternate_aperture_size;
	a.gpu_id = r->gpu_id;
	a.default_policy = r->default_policy;
	a.alternate_policy = r->alternate_policy;
	return host_kfd_ioctl(c->ctx, AMDKFD_IOC_SET_MEMORY_POLICY, &a);
}

int cmd_set_scratch_backing_va(struct cmd_ctx *c)
{
	struct kfd_ioctl_set_scratch_backing_va_args a;
	const struct vkfd_req_set_scratch_backing_va *r =
	    CMD_REQ(c, struct vkfd_req_set_scratch_backing_va);
	int g;

	g = host_gpu_index(c->ctx, r->gpu_id);
	if (g < 0)
		return g;
	memset(&a, 0, sizeof(a));
	a.va_addr = r->va_addr;
	a.gpu_id = r->gpu_id;
	return host_kfd_ioctl(c->ctx, AMDKFD_IOC_SET_SCRATCH_BACKING_VA, &a);
}

int cmd_set_trap_handler(struct cmd_ctx *c)
{
	struct kfd_ioctl_set_trap_handler_args a;
	const struct vkfd_req_set_trap_handler *r = CMD_REQ(c, struct vkfd_req_set_trap_handler);
	int g;

	g = host_gpu_index(c->ctx, r->gpu_id);
	if (g < 0)
		return g;
	memset(&a, 0, sizeof(a));
	a.tba_addr = r->tba_addr;
	a.tma_addr = r->tma_addr;
	a.gpu_id = r->gpu_id;
	return host_kfd_ioctl(c->ctx, AMDKFD_IOC_SET_TRAP_HANDLER, &a);
}

int cmd_set_xnack_mode(struct cmd_ctx *c)
{
	struct vkfd_rsp_set_xnack_mode *rsp = (void *)c->rsp;
	struct kfd_ioctl_set_xnack_mode_args a;
	const struct vkfd_req_set_xnack_mode *r = CMD_REQ(c, struct vkfd_req_set_xnack_mode);
	int ret;

	if (r->xnack_enabled < -1 || r->xnack_enabled > 1)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.xnack_enabled = r->xnack_enabled;
	ret = host_kfd_ioctl(c->ctx, AMDKFD_IOC_SET_XNACK_MODE, &a);
	if (ret)
		return ret;
	rsp->xnack_enabled = a.xnack_enabled;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_get_clock_counters(struct cmd_ctx *c)
{
	struct vkfd_rsp_get_clock_counters *rsp = (void *)c->rsp;
	struct kfd_ioctl_get_clock_counters_args a;
	const struct vkfd_req_gpu *r = CMD_REQ(c, struct vkfd_req_gpu);
	int g, ret;

	g = host_gpu_index(c->ctx, r->gpu_id);
	if (g < 0)
		return g;
	memset(&a, 0, sizeof(a));
	a.gpu_id = r->gpu_id;
	ret = host_kfd_ioctl(c->ctx, AMDKFD_IOC_GET_CLOCK_COUNTERS, &a);
	if (ret)
		return ret;
	rsp->gpu_clock_counter = a.gpu_clock_counter;
	rsp->cpu_clock_counter = a.cpu_clock_counter;
	rsp->system_clock_counter = a.system_clock_counter;
	rsp->system_clock_freq = a.system_clock_freq;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

/*
 * The context's own budget, never the device's free memory: that would show
 * every other guest's allocations. The budget is the GPU's VRAM as the
 * topology export shows it (static, already capped by the quota), or the
 * quota; what the context has allocated is taken off.
 */
int cmd_available_memory(struct cmd_ctx *c)
{
	struct vkfd_rsp_available_memory *rsp = (void *)c->rsp;
	uint64_t quota = host_g.cfg.quota.vram_bytes, budget;
	const struct vkfd_req_gpu *r = CMD_REQ(c, struct vkfd_req_gpu);
	int g;

	g = host_gpu_index_vm(c->ctx, r->gpu_id);
	if (g < 0)
		return g;
	budget = host_g.topo.gpus[g].vram_size;
	if (quota && (!budget || quota < budget))
		budget = quota;
	rsp->available = budget > c->ctx->vram_used ? budget - c->ctx->vram_used : 0;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_runtime_enable(struct cmd_ctx *c)
{
	struct vkfd_rsp_runtime_enable *rsp = (void *)c->rsp;
	struct vkfd_kfd_runtime_enable_args a;
	const struct vkfd_req_runtime_enable *r = CMD_REQ(c, struct vkfd_req_runtime_enable);
	int ret;

	if (r->mode_mask & ~3u)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	/* r_debug is a guest address the kernel would hand to a debugger;
	 * host debuggers must not see guest pointers */
	a.r_debug = 0;
	a.mode_mask = r->mode_mask;
	ret = host_kfd_ioctl(c->ctx, VKFD_KFD_IOC_RUNTIME_ENABLE, &a);
	if (ret)
		return ret;
	rsp->capabilities_mask = a.capabilities_mask;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

int cmd_get_tile_config(struct cmd_ctx *c)
{
	struct vkfd_rsp_get_tile_config *rsp = (void *)c->rsp;
	uint32_t tiles[VKFD_MAX_TILE_CONFIGS], macro[VKFD_MAX_MACRO_TILE_CONFIGS];
	struct kfd_ioctl_get_tile_config_args a;
	const struct vkfd_req_get_tile_config *r = CMD_REQ(c, struct vkfd_req_get_tile_config);
	int g, ret;

	g = host_gpu_index(c->ctx, r->gpu_id);
	if (g < 0)
		return g;
	if (r->num_tile_configs > VKFD_MAX_TILE_CONFIGS ||
	    r->num_macro_tile_configs > VKFD_MAX_MACRO_TILE_CONFIGS)
		return -EINVAL;
	memset(tiles, 0, sizeof(tiles));
	memset(macro, 0, sizeof(macro));
	memset(&a, 0, sizeof(a));
	a.tile_config_ptr = (uint64_t)(uintptr_t)tiles;
	a.macro_tile_config_ptr = (uint64_t)(uintptr_t)macro;
	a.num_tile_configs = r->num_tile_configs;
	a.num_macro_tile_configs = r->num_macro_tile_configs;
	a.gpu_id = r->gpu_id;
	ret = host_kfd_ioctl(c->ctx, AMDKFD_IOC_GET_TILE_CONFIG, &a);
	if (ret)
		return ret;
	rsp->num_tile_configs =
	    a.num_tile_configs > r->num_tile_configs ? r->num_tile_configs : a.num_tile_configs;
	rsp->num_macro_tile_configs = a.num_macro_tile_configs > r->num_macro_tile_configs
					  ? r->num_macro_tile_configs
					  : a.num_macro_tile_configs;
	rsp->gb_addr_config = a.gb_addr_config;
	rsp->num_banks = a.num_banks;
	rsp->num_ranks = a.num_ranks;
	memcpy(rsp->tile_config, tiles, sizeof(tiles));
	memcpy(rsp->macro_tile_config, macro, sizeof(macro));
	c->rsp_len = sizeof(*rsp);
	return 0;
}
