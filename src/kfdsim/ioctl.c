// SPDX-License-Identifier: MIT
/*
 * The ioctl entry point, shaped like kfd_ioctl(): key on the nr, take the
 * user's size from the command, zero-extend to kfdsim's struct size, copy
 * back what the caller gave (even on error), answer -ENOTTY for numbers the
 * modelled KFD version does not have.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ioctl.h>

#include "kfd_dbg_trap.h"
#include "sim_priv.h"

struct ioctl_desc {
	unsigned long cmd; /* kfdsim's definition: direction and size */
	sim_ioctl_fn fn;
	uint32_t min_minor;
};

#define DEF(ioc, f, minor) [_IOC_NR(ioc)] = {.cmd = (ioc), .fn = (f), .min_minor = (minor)}

/* Deprecated debugger ioctls of 6.x kernels (they answer -EPERM). */
#define DBG_DEPRECATED(nr)                                                                         \
	[nr] = {.cmd = _IOWR('K', nr, struct kfd_ioctl_dbg_register_args),                         \
		.fn = sim_ioctl_dbg_deprecated,                                                    \
		.min_minor = 0}

#define AMDKFD_IOC_CREATE_QUEUE_V2 AMDKFD_IOWR(0x02, struct vkfd_kfd_create_queue_args)

static const struct ioctl_desc table[256] = {
    DEF(AMDKFD_IOC_GET_VERSION, sim_ioctl_get_version, 0),
    DEF(AMDKFD_IOC_CREATE_QUEUE_V2, sim_ioctl_create_queue, 0),
    DEF(AMDKFD_IOC_DESTROY_QUEUE, sim_ioctl_destroy_queue, 0),
    DEF(AMDKFD_IOC_SET_MEMORY_POLICY, sim_ioctl_set_memory_policy, 0),
    DEF(AMDKFD_IOC_GET_CLOCK_COUNTERS, sim_ioctl_get_clock_counters, 0),
    DEF(AMDKFD_IOC_GET_PROCESS_APERTURES, sim_ioctl_get_apertures, 0),
    DEF(AMDKFD_IOC_UPDATE_QUEUE, sim_ioctl_update_queue, 0),
    DEF(AMDKFD_IOC_CREATE_EVENT, sim_ioctl_create_event, 0),
    DEF(AMDKFD_IOC_DESTROY_EVENT, sim_ioctl_destroy_event, 0),
    DEF(AMDKFD_IOC_SET_EVENT, sim_ioctl_set_event, 0),
    DEF(AMDKFD_IOC_RESET_EVENT, sim_ioctl_reset_event, 0),
    DEF(AMDKFD_IOC_WAIT_EVENTS, sim_ioctl_wait_events, 0),
    DBG_DEPRECATED(0x0d),
    DBG_DEPRECATED(0x0e),
    DBG_DEPRECATED(0x0f),
    DBG_DEPRECATED(0x10),
    DEF(AMDKFD_IOC_SET_SCRATCH_BACKING_VA, sim_ioctl_set_scratch_backing_va, 0),
    DEF(AMDKFD_IOC_GET_TILE_CONFIG, sim_ioctl_get_tile_config, 0),
    DEF(AMDKFD_IOC_SET_TRAP_HANDLER, sim_ioctl_set_trap_handler, 0),
    DEF(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, sim_ioctl_get_apertures_new, 0),
    DEF(AMDKFD_IOC_ACQUIRE_VM, sim_ioctl_acquire_vm, 0),
    DEF(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, sim_ioctl_alloc_memory, 0),
    DEF(AMDKFD_IOC_FREE_MEMORY_OF_GPU, sim_ioctl_free_memory, 0),
    DEF(AMDKFD_IOC_MAP_MEMORY_TO_GPU, sim_ioctl_map_memory, 0),
    DEF(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, sim_ioctl_unmap_memory, 0),
    DEF(AMDKFD_IOC_SET_CU_MASK, sim_ioctl_set_cu_mask, 0),
    DEF(AMDKFD_IOC_GET_DMABUF_INFO, sim_ioctl_get_dmabuf_info, 0),
    DEF(AMDKFD_IOC_IMPORT_DMABUF, sim_ioctl_import_dmabuf, 0),
    DEF(AMDKFD_IOC_ALLOC_QUEUE_GWS, sim_ioctl_alloc_queue_gws, 0),
    DEF(AMDKFD_IOC_SMI_EVENTS, sim_ioctl_smi_events, 3),
    DEF(AMDKFD_IOC_SET_XNACK_MODE, sim_ioctl_set_xnack_mode, 0),
    DEF(AMDKFD_IOC_AVAILABLE_MEMORY, sim_ioctl_available_memory, 9),
    DEF(VKFD_KFD_IOC_EXPORT_DMABUF, sim_ioctl_export_dmabuf, 12),
    DEF(VKFD_KFD_IOC_RUNTIME_ENABLE, sim_ioctl_runtime_enable, 13),
    DEF(AMDKFD_IOC_GET_QUEUE_WAVE_STATE, sim_ioctl_get_queue_wave_state, 0),
    [0x20] = {.cmd = _IOWR('K', 0x20, struct kfd_ioctl_svm_args),
	      .fn = sim_ioctl_svm,
	      .min_minor = 5},
    [0x22] = {.cmd = _IOWR('K', 0x22, struct kfd_ioctl_criu_args),
	      .fn = sim_ioctl_criu,
	      .min_minor = 7},
    DEF(VKFD_KFD_IOC_DBG_TRAP, sim_ioctl_dbg_trap, 13),
};

/* Test hooks: injected errors and latches (parking) per nr. */
static int hooks(struct kfdsim *sim, unsigned nr)
{
	int err = 0;

	pthread_mutex_lock(&sim->lock);
	if (sim->inject[nr].nth && --sim->inject[nr].nth == 0)
		err = -sim->inject[nr].err;
	while (sim->latch[nr].on) {
		sim->latch[nr].parked++;
		pthread_cond_wait(&sim->latch_cv, &sim->lock);
		sim->latch[nr].parked--;
	}
	pthread_mutex_unlock(&sim->lock);
	return err;
}

int sim_ioctl_dispatch(struct kfdsim *sim, struct sim_process *p, unsigned long request, void *arg)
{
	unsigned nr = _IOC_NR(request);
	const struct ioctl_desc *d = &table[nr];
	size_t usize = _IOC_SIZE(request), ksize, asize;
	unsigned dir;
	uint64_t stack[64];
	void *kdata = stack;
	int r;

	if (!d->fn || sim->cfg.kfd_minor < d->min_minor)
		return -ENOTTY;
	ksize = _IOC_SIZE(d->cmd);
	dir = _IOC_DIR(d->cmd);
	asize = usize > ksize ? usize : ksize;
	if (asize > sizeof(stack)) {
		kdata = calloc(1, asize);
		if (!kdata)
			return -ENOMEM;
	} else {
		memset(stack, 0, sizeof(stack));
	}
	if ((dir & _IOC_WRITE) && sim_copy_from_user(kdata, (uint64_t)(uintptr_t)arg, usize)) {
		r = -EFAULT;
		goto out;
	}
	r = hooks(sim, nr);
	if (!r && nr == _IOC_NR(AMDKFD_IOC_SVM) && !sim_svm_args_fit(kdata, usize))
		r = -EINVAL;
	if (!r)
		r = d->fn(p, kdata);
	if ((dir & _IOC_READ) && sim_copy_to_user((uint64_t)(uintptr_t)arg, kdata, usize))
		r = -EFAULT;
out:
	if (kdata != stack)
		free(kdata);
	return r;
}
