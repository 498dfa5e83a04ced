// SPDX-License-Identifier: MIT
/*
 * vkfd backend: the KFD ioctl table and its dispatcher (one table, one
 * copy-in and copy-out zero-extended to the size this side knows, one
 * handler per ioctl), and the handlers of process-wide ioctls: version,
 * apertures, VM acquisition, policies, clocks, tile config, and the ioctls
 * answered in the guest as a kernel without the feature would.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

static int bk_ioctl_get_version(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_version_args *a = arg;
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	r = bk_call(c, VKFD_CMD_GET_VERSION, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	a->major_version = rsp.major;
	/* never a version whose additions the guest does not serve: 1.18's
	 * misc_process_flag and 1.19's CREATE_PROCESS are not carried
	 * (docs/kfd-uapi.md) */
	a->minor_version = rsp.minor < BK_KFD_MINOR_MAX ? rsp.minor : BK_KFD_MINOR_MAX;
	return 0;
}

static int bk_get_apertures(struct bk_conn *c, struct vkfd_rsp_get_process_apertures *rsp)
{
	struct vkfd_req_get_process_apertures req;
	int r;

	memset(&req, 0, sizeof(req));
	req.max_nodes = VKFD_MAX_GPUS;
	r = bk_call(c, VKFD_CMD_GET_PROCESS_APERTURES, &req, sizeof(req), rsp, sizeof(*rsp));
	if (!r && rsp->num_nodes > VKFD_MAX_GPUS)
		r = -EIO;
	if (r)
		return r;
	/* what the host checks an allocation's VA against */
	bk_table_lock();
	for (uint32_t i = 0; i < rsp->num_nodes; i++) {
		int gi = bk_gpu_index_locked(rsp->apertures[i].gpu_id);

		if (gi < 0)
			continue;
		c->gpuvm_base[gi] = rsp->apertures[i].gpuvm_base;
		c->gpuvm_limit[gi] = rsp->apertures[i].gpuvm_limit;
		c->have_ap[gi] = true;
	}
	bk_table_unlock();
	return 0;
}

int bk_apertures_known(struct bk_conn *c)
{
	struct vkfd_rsp_get_process_apertures rsp;
	bool tried;

	bk_table_lock();
	tried = c->ap_tried;
	c->ap_tried = true;
	bk_table_unlock();
	/* once per connection; libhsakmt asks for them at open anyway */
	return tried ? 0 : bk_get_apertures(c, &rsp);
}

static void bk_ap_copy(struct kfd_process_device_apertures *d, const struct vkfd_aperture *s)
{
	memset(d, 0, sizeof(*d));
	d->lds_base = s->lds_base;
	d->lds_limit = s->lds_limit;
	d->scratch_base = s->scratch_base;
	d->scratch_limit = s->scratch_limit;
	d->gpuvm_base = s->gpuvm_base;
	d->gpuvm_limit = s->gpuvm_limit;
	d->gpu_id = s->gpu_id;
}

static int bk_ioctl_get_process_apertures(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_process_apertures_args *a = arg;
	struct vkfd_rsp_get_process_apertures rsp;
	uint32_t n;
	int r;

	(void)usize;
	r = bk_get_apertures(c, &rsp);
	if (r)
		return r;
	n = rsp.num_nodes < NUM_OF_SUPPORTED_GPUS ? rsp.num_nodes : NUM_OF_SUPPORTED_GPUS;
	memset(a, 0, sizeof(*a));
	for (uint32_t i = 0; i < n; i++)
		bk_ap_copy(&a->process_apertures[i], &rsp.apertures[i]);
	a->num_of_nodes = n;
	return 0;
}

static int bk_ioctl_get_process_apertures_new(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_process_apertures_new_args *a = arg;
	struct vkfd_rsp_get_process_apertures rsp;
	struct kfd_process_device_apertures ap[VKFD_MAX_GPUS];
	uint32_t n;
	int r;

	(void)usize;
	r = bk_get_apertures(c, &rsp);
	if (r)
		return r;
	if (a->num_of_nodes == 0) {
		/* the kernel answers the count first */
		a->num_of_nodes = rsp.num_nodes;
		return 0;
	}
	n = a->num_of_nodes < rsp.num_nodes ? a->num_of_nodes : rsp.num_nodes;
	for (uint32_t i = 0; i < n; i++)
		bk_ap_copy(&ap[i], &rsp.apertures[i]);
	a->num_of_nodes = n;
	return bk_write_user(a->kfd_process_device_apertures_ptr, ap, n * sizeof(ap[0]));
}

static int bk_ioctl_acquire_vm(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_acquire_vm_args *a = arg;
	struct vkfd_req_gpu req;
	struct vkfd_rsp_empty rsp;
	struct bk_file *f;
	int gi, r;

	(void)usize;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpu_id);
	f = bk_file_get_locked((int)a->drm_fd);
	if (gi < 0) {
		r = -EINVAL;
	} else if (!f || f->kind != BK_RENDER || f->pid != bk_self_pid()) {
		r = -EINVAL; /* kernel: fget/not a DRM file */
	} else if (f->gpu != gi) {
		r = -EINVAL; /* a render node of another GPU */
	} else if (c->acquired[gi] >= 0) {
		r = c->acquired[gi] == (int)a->drm_fd ? 0 : -EBUSY;
		bk_table_unlock();
		return r;
	} else if (f->vm_owner && f->vm_owner != c) {
		r = -EBUSY; /* another KFD process owns this file's VM */
	} else {
		r = 1;
	}
	bk_table_unlock();
	if (r <= 0)
		return r;
	memset(&req, 0, sizeof(req));
	req.gpu_id = a->gpu_id;
	r = bk_call(c, VKFD_CMD_ACQUIRE_VM, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	bk_table_lock();
	f = bk_file_get_locked((int)a->drm_fd);
	if (f && f->kind == BK_RENDER) {
		f->vm_owner = c;
		c->acquired[gi] = (int)a->drm_fd;
	}
	bk_table_unlock();
	return 0;
}

static int bk_ioctl_set_memory_policy(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_set_memory_policy_args *a = arg;
	struct vkfd_req_set_memory_policy req;
	struct vkfd_rsp_empty rsp;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.alternate_aperture_base = a->alternate_aperture_base;
	req.alternate_aperture_size = a->alternate_aperture_size;
	req.gpu_id = a->gpu_id;
	req.default_policy = a->default_policy;
	req.alternate_policy = a->alternate_policy;
	return bk_call(c, VKFD_CMD_SET_MEMORY_POLICY, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int bk_ioctl_set_scratch_backing_va(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_set_scratch_backing_va_args *a = arg;
	struct vkfd_req_set_scratch_backing_va req;
	struct vkfd_rsp_empty rsp;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.va_addr = a->va_addr;
	req.gpu_id = a->gpu_id;
	return bk_call(c, VKFD_CMD_SET_SCRATCH_BACKING_VA, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int bk_ioctl_set_trap_handler(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_set_trap_handler_args *a = arg;
	struct vkfd_req_set_trap_handler req;
	struct vkfd_rsp_empty rsp;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.tba_addr = a->tba_addr;
	req.tma_addr = a->tma_addr;
	req.gpu_id = a->gpu_id;
	return bk_call(c, VKFD_CMD_SET_TRAP_HANDLER, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int bk_ioctl_set_xnack_mode(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_set_xnack_mode_args *a = arg;
	struct vkfd_req_set_xnack_mode req;
	struct vkfd_rsp_set_xnack_mode rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.xnack_enabled = a->xnack_enabled;
	r = bk_call(c, VKFD_CMD_SET_XNACK_MODE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r) {
		a->xnack_enabled = rsp.xnack_enabled;
		bk_svm_note_xnack(c, rsp.xnack_enabled);
	}
	return r;
}

static int bk_ioctl_available_memory(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_available_memory_args *a = arg;
	struct vkfd_req_gpu req;
	struct vkfd_rsp_available_memory rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.gpu_id = a->gpu_id;
	r = bk_call(c, VKFD_CMD_AVAILABLE_MEMORY, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		a->available = rsp.available;
	return r;
}

static int bk_ioctl_runtime_enable(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct vkfd_kfd_runtime_enable_args *a = arg;
	struct vkfd_req_runtime_enable req;
	struct vkfd_rsp_runtime_enable rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.r_debug = a->r_debug;
	req.mode_mask = a->mode_mask;
	req.capabilities_mask = a->capabilities_mask;
	r = bk_call(c, VKFD_CMD_RUNTIME_ENABLE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		a->capabilities_mask = rsp.capabilities_mask;
	return r;
}

/* The guest's own CPU clocks; the GPU counter is the host's, sampled once
 * (twice, to learn its rate) and then extrapolated with the guest's
 * boottime clock. */
static int bk_ioctl_get_clock_counters(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_clock_counters_args *a = arg;
	struct vkfd_req_gpu req;
	struct vkfd_rsp_get_clock_counters rsp;
	uint64_t now;
	int gi, r;

	(void)usize;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpu_id);
	bk_table_unlock();
	if (gi < 0) {
		/* the kernel: a node without GPU (ROCr asks for node 0, the
		 * CPU) gets gpu counter 0 and the CPU clocks, no error */
		a->gpu_clock_counter = 0;
		goto cpu;
	}
	bk_ev_lock(c);
	if (!c->clk[gi].have_rate) {
		memset(&req, 0, sizeof(req));
		req.gpu_id = a->gpu_id;
		bk_ev_unlock(c);
		r = bk_call(c, VKFD_CMD_GET_CLOCK_COUNTERS, &req, sizeof(req), &rsp, sizeof(rsp));
		if (r)
			return r;
		now = bk_clock_ns(CLOCK_BOOTTIME);
		bk_ev_lock(c);
		if (!c->clk[gi].have) {
			c->clk[gi].have = true;
			c->clk[gi].gpu0 = rsp.gpu_clock_counter;
			c->clk[gi].host_sys0 = rsp.system_clock_counter;
			c->clk[gi].guest_sys0 = now;
		} else if (!c->clk[gi].have_rate &&
			   rsp.system_clock_counter > c->clk[gi].host_sys0 + 1000000ull) {
			c->clk[gi].rate = (double)(rsp.gpu_clock_counter - c->clk[gi].gpu0) /
					  (double)(rsp.system_clock_counter - c->clk[gi].host_sys0);
			c->clk[gi].gpu0 = rsp.gpu_clock_counter;
			c->clk[gi].guest_sys0 = now;
			c->clk[gi].have_rate = true;
		}
		bk_ev_unlock(c);
		a->gpu_clock_counter = rsp.gpu_clock_counter;
	} else {
		now = bk_clock_ns(CLOCK_BOOTTIME);
		a->gpu_clock_counter =
		    c->clk[gi].gpu0 +
		    (uint64_t)((double)(now - c->clk[gi].guest_sys0) * c->clk[gi].rate);
		bk_ev_unlock(c);
	}
cpu:
	a->cpu_clock_counter = bk_clock_ns(CLOCK_MONOTONIC_RAW);
	a->system_clock_counter = bk_clock_ns(CLOCK_BOOTTIME);
	a->system_clock_freq = 1000000000ull;
	return 0;
}

static int bk_ioctl_get_tile_config(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_get_tile_config_args *a = arg;
	struct vkfd_req_get_tile_config req;
	struct vkfd_rsp_get_tile_config rsp;
	uint32_t nt, nm;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.gpu_id = a->gpu_id;
	req.num_tile_configs = a->num_tile_configs < VKFD_MAX_TILE_CONFIGS ? a->num_tile_configs
									   : VKFD_MAX_TILE_CONFIGS;
	req.num_macro_tile_configs = a->num_macro_tile_configs < VKFD_MAX_MACRO_TILE_CONFIGS
					 ? a->num_macro_tile_configs
					 : VKFD_MAX_MACRO_TILE_CONFIGS;
	r = bk_call(c, VKFD_CMD_GET_TILE_CONFIG, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	nt = rsp.num_tile_configs < req.num_tile_configs ? rsp.num_tile_configs
							 : req.num_tile_configs;
	nm = rsp.num_macro_tile_configs < req.num_macro_tile_configs ? rsp.num_macro_tile_configs
								     : req.num_macro_tile_configs;
	a->gb_addr_config = rsp.gb_addr_config;
	a->num_banks = rsp.num_banks;
	a->num_ranks = rsp.num_ranks;
	a->num_tile_configs = nt;
	a->num_macro_tile_configs = nm;
	r = bk_write_user(a->tile_config_ptr, rsp.tile_config, nt * 4u);
	if (!r)
		r = bk_write_user(a->macro_tile_config_ptr, rsp.macro_tile_config, nm * 4u);
	return r;
}

/* DBG_TRAP (KFD 1.13) is not carried: the host's KFD process is shared by
 * every context of a server on a real device, so its snapshots, queue
 * suspension and exception state would reach across guests, and the
 * notification fd is a guest fd. The guest answers every op as a kernel
 * that cannot debug its queues (sched_policy=2, no hardware scheduler):
 * -EINVAL before the pid is even looked up (docs/security.md). */
static int bk_ioctl_dbg_trap(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EINVAL;
}

/* CRIU_OP for a caller without CAP_CHECKPOINT_RESTORE: a guest process
 * never checkpoints through vkfd */
static int bk_ioctl_criu_op(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EACCES;
}

#define BK_IN  1u
#define BK_OUT 2u

/* One entry per served ioctl, keyed on its number; the size is the one
 * the ioctl's definition in src/kfd_uapi (or the system header it extends)
 * carries, the larger one for a grown struct. */
#define BK_IOCTL(ioctl, dir, fn) [_IOC_NR(ioctl)] = {_IOC_SIZE(ioctl), (dir), (fn)}

struct bk_ioctl_desc {
	uint32_t size; /* the struct this side knows */
	uint32_t dir;  /* the kernel's direction, not the caller's */
	bk_handler fn;
};

static const struct bk_ioctl_desc bk_ioctls[] = {
    BK_IOCTL(AMDKFD_IOC_GET_VERSION, BK_OUT, bk_ioctl_get_version),
    BK_IOCTL(VKFD_KFD_IOC_CREATE_QUEUE, BK_IN | BK_OUT, bk_ioctl_create_queue),
    BK_IOCTL(AMDKFD_IOC_DESTROY_QUEUE, BK_IN | BK_OUT, bk_ioctl_destroy_queue),
    BK_IOCTL(AMDKFD_IOC_SET_MEMORY_POLICY, BK_IN, bk_ioctl_set_memory_policy),
    BK_IOCTL(AMDKFD_IOC_GET_CLOCK_COUNTERS, BK_IN | BK_OUT, bk_ioctl_get_clock_counters),
    BK_IOCTL(AMDKFD_IOC_GET_PROCESS_APERTURES, BK_OUT, bk_ioctl_get_process_apertures),
    BK_IOCTL(AMDKFD_IOC_UPDATE_QUEUE, BK_IN, bk_ioctl_update_queue),
    BK_IOCTL(AMDKFD_IOC_CREATE_EVENT, BK_IN | BK_OUT, bk_ioctl_create_event),
    BK_IOCTL(AMDKFD_IOC_DESTROY_EVENT, BK_IN, bk_ioctl_destroy_event),
    BK_IOCTL(AMDKFD_IOC_SET_EVENT, BK_IN, bk_ioctl_set_event),
    BK_IOCTL(AMDKFD_IOC_RESET_EVENT, BK_IN, bk_ioctl_reset_event),
    BK_IOCTL(AMDKFD_IOC_WAIT_EVENTS, BK_IN | BK_OUT, bk_ioctl_wait_events),
    /* 0x0d..0x10, the deprecated debugger ioctls (docs/protocol.md
     * section 12), and CREATE_PROCESS (0x27, KFD 1.19, not served) have
     * no entry: -ENOTTY without reading the argument */
    BK_IOCTL(AMDKFD_IOC_SET_SCRATCH_BACKING_VA, BK_IN | BK_OUT, bk_ioctl_set_scratch_backing_va),
    BK_IOCTL(AMDKFD_IOC_GET_TILE_CONFIG, BK_IN | BK_OUT, bk_ioctl_get_tile_config),
    BK_IOCTL(AMDKFD_IOC_SET_TRAP_HANDLER, BK_IN, bk_ioctl_set_trap_handler),
    BK_IOCTL(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, BK_IN | BK_OUT,
	     bk_ioctl_get_process_apertures_new),
    BK_IOCTL(AMDKFD_IOC_ACQUIRE_VM, BK_IN, bk_ioctl_acquire_vm),
    BK_IOCTL(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, BK_IN | BK_OUT, bk_ioctl_alloc_memory_of_gpu),
    BK_IOCTL(AMDKFD_IOC_FREE_MEMORY_OF_GPU, BK_IN, bk_ioctl_free_memory_of_gpu),
    BK_IOCTL(AMDKFD_IOC_MAP_MEMORY_TO_GPU, BK_IN | BK_OUT, bk_ioctl_map_memory_to_gpu),
    BK_IOCTL(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, BK_IN | BK_OUT, bk_ioctl_unmap_memory_from_gpu),
    BK_IOCTL(AMDKFD_IOC_SET_CU_MASK, BK_IN, bk_ioctl_set_cu_mask),
    BK_IOCTL(AMDKFD_IOC_GET_QUEUE_WAVE_STATE, BK_IN | BK_OUT, bk_ioctl_get_queue_wave_state),
    BK_IOCTL(AMDKFD_IOC_GET_DMABUF_INFO, BK_IN | BK_OUT, bk_ioctl_get_dmabuf_info),
    BK_IOCTL(AMDKFD_IOC_IMPORT_DMABUF, BK_IN | BK_OUT, bk_ioctl_import_dmabuf),
    BK_IOCTL(AMDKFD_IOC_ALLOC_QUEUE_GWS, BK_IN | BK_OUT, bk_ioctl_alloc_queue_gws),
    BK_IOCTL(AMDKFD_IOC_SMI_EVENTS, BK_IN | BK_OUT, bk_ioctl_smi_events),
    /* AMDKFD_IOC_SVM: bk_svm_ioctl, with the caller's own argument */
    BK_IOCTL(AMDKFD_IOC_SET_XNACK_MODE, BK_IN | BK_OUT, bk_ioctl_set_xnack_mode),
    BK_IOCTL(AMDKFD_IOC_CRIU_OP, BK_IN | BK_OUT, bk_ioctl_criu_op),
    BK_IOCTL(AMDKFD_IOC_AVAILABLE_MEMORY, BK_IN | BK_OUT, bk_ioctl_available_memory),
    BK_IOCTL(VKFD_KFD_IOC_EXPORT_DMABUF, BK_IN | BK_OUT, bk_ioctl_export_dmabuf),
    BK_IOCTL(VKFD_KFD_IOC_RUNTIME_ENABLE, BK_IN | BK_OUT, bk_ioctl_runtime_enable),
    BK_IOCTL(VKFD_KFD_IOC_DBG_TRAP, BK_IN | BK_OUT, bk_ioctl_dbg_trap),
};

#define BK_ARG_MAX 400

int bk_kfd_ioctl(struct bk_conn *c, unsigned long request, void *arg)
{
	const struct bk_ioctl_desc *d;
	unsigned int nr = _IOC_NR(request);
	uint32_t usize = _IOC_SIZE(request);
	uint64_t buf[BK_ARG_MAX / 8];
	uint64_t t0 = bk_prof_begin();
	uint32_t n;
	int r, w;

	if (_IOC_TYPE(request) != 'K')
		return -ENOTTY;
	if ((nr >= sizeof(bk_ioctls) / sizeof(bk_ioctls[0]) || !bk_ioctls[nr].fn) &&
	    nr != _IOC_NR(AMDKFD_IOC_SVM))
		return -ENOTTY; /* includes the out-of-tree 0x80..0x85 */
	/* the attributes follow the header, sized by the ioctl */
	if (nr == _IOC_NR(AMDKFD_IOC_SVM))
		return bk_svm_ioctl(c, (uintptr_t)arg, usize);
	d = &bk_ioctls[nr];
	memset(buf, 0, sizeof(buf));
	/* the kernel copies what the caller declared and zero-extends */
	n = usize < d->size ? usize : d->size;
	if ((d->dir & BK_IN) && n) {
		r = bk_read_user(buf, (uintptr_t)arg, n);
		if (r)
			return r;
	}
	r = d->fn(c, buf, usize);
	if ((d->dir & BK_OUT) && n) {
		w = bk_write_user((uintptr_t)arg, buf, n);
		if (w && !r)
			r = w;
	}
	bk_prof_ioctl(nr, t0);
	return r;
}
