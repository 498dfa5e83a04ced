// SPDX-License-Identifier: MIT
/*
 * KFD processes (one per kfd fd) and the small per-process ioctls:
 * apertures, ACQUIRE_VM, memory policy, clocks, scratch, trap handler,
 * XNACK mode, available memory, tile config, runtime enable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_priv.h"

/* kfd_flat_memory.c, GFX9+ apertures */
#define LDS_APP_BASE_V9      (0x1ULL << 48)
#define SCRATCH_APP_BASE_V9  (0x2ULL << 48)
#define APP_LIMIT(base)      (((base)&0xFFFFFFFF00000000ULL) | 0xFFFFFFFFULL)
#define APE1_FIXED_BITS_MASK 0xFFFF80000000FFFFULL
#define APE1_LIMIT_ALIGNMENT 0xFFFFULL

struct sim_process *sim_process_create(struct kfdsim *sim)
{
	struct sim_process *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->sim = sim;
	p->refs = 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->ev_lock, NULL);
	pthread_mutex_init(&p->q_lock, NULL);
	pthread_cond_init(&p->q_cv, NULL);
	pthread_cond_init(&p->dbg_cv, NULL);
	p->dbg_ev_fd = -1;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->ev_cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	for (unsigned i = 0; i < sim->ngpus; i++) {
		struct sim_pdd *pdd = &p->pdd[i];

		pdd->proc = p;
		pdd->gpu = &sim->gpus[i];
		pthread_rwlock_init(&pdd->vm_lock, NULL);
		sim_env_init(pdd);
	}
	return p;
}

/* The fd was closed: nothing may wait on it any longer. */
void sim_process_close(struct sim_process *p)
{
	pthread_mutex_lock(&p->ev_lock);
	p->closed = true;
	pthread_mutex_unlock(&p->ev_lock);
	sim_events_cancel_waits(p);
	/* a RUNTIME_ENABLE waiting for a debugger gives up */
	pthread_mutex_lock(&p->lock);
	pthread_cond_broadcast(&p->dbg_cv);
	pthread_mutex_unlock(&p->lock);
}

void sim_process_destroy(struct sim_process *p)
{
	struct kfdsim *sim = p->sim;

	/* engines first: they call back into memory and events */
	sim_queues_release(p);
	sim_events_release(p);
	for (unsigned i = 0; i < sim->ngpus; i++) {
		struct sim_pdd *pdd = &p->pdd[i];

		sim_pdd_release_memory(pdd);
		pthread_mutex_lock(&sim->lock);
		if (pdd->render) {
			pdd->render->owner = NULL;
			sim_render_put_locked(sim, pdd->render);
			pdd->render = NULL;
		}
		pthread_mutex_unlock(&sim->lock);
		pthread_rwlock_destroy(&pdd->vm_lock);
	}
	sim_debug_release(p);
	sim_svm_release(p);
	pthread_cond_destroy(&p->ev_cv);
	pthread_cond_destroy(&p->q_cv);
	pthread_cond_destroy(&p->dbg_cv);
	pthread_mutex_destroy(&p->q_lock);
	pthread_mutex_destroy(&p->ev_lock);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct sim_pdd *sim_pdd_by_id(struct sim_process *p, uint32_t gpu_id)
{
	if (gpu_id == 0)
		return NULL;
	for (unsigned i = 0; i < p->sim->ngpus; i++)
		if (p->pdd[i].gpu->gpu_id == gpu_id)
			return &p->pdd[i];
	return NULL;
}

/* kfd_bind_process_to_device: the VM must have been acquired. */
int sim_pdd_bind(struct sim_pdd *pdd)
{
	return pdd->render ? 0 : -ENODEV;
}

uint64_t sim_gpu_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) /
	       (1000000000ULL / SIM_GPU_CLOCK_HZ);
}

int sim_ioctl_get_version(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_version_args *a = args;

	a->major_version = 1;
	a->minor_version = p->sim->cfg.kfd_minor;
	return 0;
}

void sim_fill_apertures(struct sim_process *p, struct sim_pdd *pdd,
			struct kfd_process_device_apertures *ap)
{
	memset(ap, 0, sizeof(*ap));
	ap->gpu_id = pdd->gpu->gpu_id;
	ap->lds_base = LDS_APP_BASE_V9;
	ap->lds_limit = APP_LIMIT(LDS_APP_BASE_V9);
	ap->scratch_base = SCRATCH_APP_BASE_V9;
	ap->scratch_limit = APP_LIMIT(SCRATCH_APP_BASE_V9);
	/* SVM_USER_BASE, raised to AMDGPU_VA_RESERVED_BOTTOM in 2024 kernels */
	ap->gpuvm_base = p->sim->cfg.kfd_minor >= 16 ? 0x10000 : 0x4000;
	ap->gpuvm_limit = SIM_GPUVM_LIMIT - 1;
}

int sim_ioctl_get_apertures(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_process_apertures_args *a = args;
	unsigned n = 0;

	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->sim->ngpus && n < NUM_OF_SUPPORTED_GPUS; i++)
		sim_fill_apertures(p, &p->pdd[i], &a->process_apertures[n++]);
	a->num_of_nodes = n;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int sim_ioctl_get_apertures_new(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_process_apertures_new_args *a = args;
	struct kfd_process_device_apertures pa[KFDSIM_MAX_GPUS];
	unsigned n;

	if (a->num_of_nodes == 0) {
		/* a size query */
		a->num_of_nodes = p->sim->ngpus;
		return 0;
	}
	n = a->num_of_nodes < p->sim->ngpus ? a->num_of_nodes : p->sim->ngpus;
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < n; i++)
		sim_fill_apertures(p, &p->pdd[i], &pa[i]);
	pthread_mutex_unlock(&p->lock);
	a->num_of_nodes = n;
	return sim_copy_to_user(a->kfd_process_device_apertures_ptr, pa, n * sizeof(pa[0]));
}

int sim_ioctl_acquire_vm(struct sim_process *p, void *args)
{
	struct kfd_ioctl_acquire_vm_args *a = args;
	struct kfdsim *sim = p->sim;
	struct sim_render *r;
	struct sim_pdd *pdd;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	pthread_mutex_lock(&sim->lock);
	r = sim_render_lookup(sim, (int)a->drm_fd);
	if (!r) {
		/* fget failed or not an amdgpu file */
		ret = -EINVAL;
		goto out;
	}
	pdd = sim_pdd_by_id(p, a->gpu_id);
	if (!pdd) {
		ret = -EINVAL;
		goto out;
	}
	if (pdd->render) {
		ret = pdd->render == r ? 0 : -EBUSY;
		goto out;
	}
	/* render node of another GPU, or already a compute VM elsewhere */
	if (r->gpu != pdd->gpu->index || r->owner) {
		ret = -EINVAL;
		goto out;
	}
	/* the mappings GEM_VA made in the file's VM stay (KFD 1.15) */
	ret = sim_render_vm_adopt(r, pdd);
	if (ret)
		goto out;
	r->refs++;
	r->owner = p;
	pdd->render = r;
out:
	pthread_mutex_unlock(&sim->lock);
	pthread_mutex_unlock(&p->lock);
	return ret;
}

int sim_ioctl_set_memory_policy(struct sim_process *p, void *args)
{
	struct kfd_ioctl_set_memory_policy_args *a = args;
	struct sim_pdd *pdd;
	int ret = 0;

	if (a->default_policy != KFD_IOC_CACHE_POLICY_COHERENT &&
	    a->default_policy != KFD_IOC_CACHE_POLICY_NONCOHERENT)
		return -EINVAL;
	if (a->alternate_policy != KFD_IOC_CACHE_POLICY_COHERENT &&
	    a->alternate_policy != KFD_IOC_CACHE_POLICY_NONCOHERENT)
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, a->gpu_id);
	if (!pdd) {
		ret = -EINVAL;
		goto out;
	}
	if (sim_pdd_bind(pdd)) {
		ret = -ESRCH;
		goto out;
	}
	if (a->alternate_aperture_size) {
		/* set_cache_memory_policy: APE1 base/limit alignment */
		uint64_t base = a->alternate_aperture_base;
		uint64_t limit = base + a->alternate_aperture_size - 1;

		if (limit <= base || (base & APE1_FIXED_BITS_MASK) != 0 ||
		    (limit & APE1_FIXED_BITS_MASK) != APE1_LIMIT_ALIGNMENT) {
			ret = -EINVAL;
			goto out;
		}
	}
	pdd->default_policy = a->default_policy;
	pdd->alternate_policy = a->alternate_policy;
	pdd->ape1_base = a->alternate_aperture_base;
	pdd->ape1_size = a->alternate_aperture_size;
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int sim_ioctl_get_clock_counters(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_clock_counters_args *a = args;

	/* a node without GPU resources reads 0, like the kernel */
	a->gpu_clock_counter = sim_pdd_by_id(p, a->gpu_id) ? sim_gpu_clock() : 0;
	a->cpu_clock_counter = clock_ns(CLOCK_MONOTONIC_RAW);
	a->system_clock_counter = clock_ns(CLOCK_BOOTTIME);
	a->system_clock_freq = 1000000000ULL;
	return 0;
}

int sim_ioctl_set_scratch_backing_va(struct sim_process *p, void *args)
{
	struct kfd_ioctl_set_scratch_backing_va_args *a = args;
	struct sim_pdd *pdd;
	int ret;

	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, a->gpu_id);
	ret = pdd ? sim_pdd_bind(pdd) : -EINVAL;
	if (!ret)
		pdd->scratch_va = a->va_addr;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

int sim_ioctl_set_trap_handler(struct sim_process *p, void *args)
{
	struct kfd_ioctl_set_trap_handler_args *a = args;
	struct sim_pdd *pdd;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, a->gpu_id);
	if (!pdd)
		ret = -EINVAL;
	else if (sim_pdd_bind(pdd))
		ret = -ESRCH;
	if (!ret) {
		/* engine threads read them when a wave error happens */
		__atomic_store_n(&pdd->tba, a->tba_addr, __ATOMIC_RELEASE);
		__atomic_store_n(&pdd->tma, a->tma_addr, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

int sim_ioctl_set_xnack_mode(struct sim_process *p, void *args)
{
	struct kfd_ioctl_set_xnack_mode_args *a = args;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	if (a->xnack_enabled >= 0) {
		bool capable = true;

		for (unsigned i = 0; i < p->sim->ngpus; i++)
			capable &= p->pdd[i].gpu->t->xnack_capable;
		if (p->nqueues)
			ret = -EBUSY;
		else if (p->xnack == a->xnack_enabled)
			ret = 0;
		else if (a->xnack_enabled && !capable)
			ret = -EPERM;
		else
			p->xnack = a->xnack_enabled;
	} else {
		a->xnack_enabled = p->xnack;
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

int sim_ioctl_available_memory(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_available_memory_args *a = args;
	struct sim_pdd *pdd = sim_pdd_by_id(p, a->gpu_id);
	uint64_t used, total;

	if (!pdd)
		return -EINVAL;
	total = p->sim->cfg.vram_size;
	pthread_mutex_lock(&p->sim->lock);
	used = pdd->gpu->vram_used;
	pthread_mutex_unlock(&p->sim->lock);
	/* amdgpu reports it aligned down to 2 MiB */
	a->available = (used < total ? total - used : 0) & ~((2ULL << 20) - 1);
	return 0;
}

int sim_ioctl_get_tile_config(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_tile_config_args *a = args;
	/* GFX9+ have no tiling tables; the kernel hands out zeroed arrays */
	static const uint32_t tile[32], macro[16];
	struct sim_pdd *pdd = sim_pdd_by_id(p, a->gpu_id);
	uint32_t g;

	if (!pdd)
		return -EINVAL;
	g = pdd->gpu->t->gb_addr_config;
	a->gb_addr_config = g;
	a->num_banks = 1u << ((g >> 12) & 3);
	a->num_ranks = 1u << ((g >> 19) & 1);
	if (a->num_tile_configs > 32)
		a->num_tile_configs = 32;
	if (sim_copy_to_user(a->tile_config_ptr, tile, a->num_tile_configs * 4u)) {
		a->num_tile_configs = 0;
		return -EFAULT;
	}
	if (a->num_macro_tile_configs > 16)
		a->num_macro_tile_configs = 16;
	if (sim_copy_to_user(a->macro_tile_config_ptr, macro, a->num_macro_tile_configs * 4u)) {
		a->num_macro_tile_configs = 0;
		return -EFAULT;
	}
	return 0;
}

/* Not modelled: -ENOTTY, except that a secondary process is refused
 * first, as the kernel does (-EOPNOTSUPP). */
int sim_ioctl_primary_only(struct sim_process *p, void *args)
{
	(void)args;
	return p->secondary ? -EOPNOTSUPP : -ENOTTY;
}

/* CRIU_OP (KFD 1.7) is flagged KFD_IOC_FLAG_CHECKPOINT_RESTORE: kfd_ioctl
 * refuses callers without CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN with
 * -EACCES before the handler runs. kfdsim serves every caller as such an
 * unprivileged process (checkpointing a kfdsim process is not modelled). */
int sim_ioctl_criu(struct sim_process *p, void *args)
{
	(void)p;
	(void)args;
	return -EACCES;
}

/* Removed debugger ioctls 0x0D-0x10 answer -EPERM (kfd_chardev.c 6.x). */
int sim_ioctl_dbg_deprecated(struct sim_process *p, void *args)
{
	(void)p;
	(void)args;
	return -EPERM;
}
