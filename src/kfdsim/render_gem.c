// SPDX-License-Identifier: MIT
/*
 * GEM objects on kfdsim render fds (amdgpu_gem.c, drm_gem.c, drm_prime.c):
 * AMDGPU_GEM_CREATE, GEM_MMAP, GEM_VA, DRM GEM_CLOSE and PRIME import and
 * export. GEM_VA edits the render file's VM; once a KFD process acquired
 * that file (ACQUIRE_VM) it is the process's VM on that GPU, the one the
 * AQL/SDMA engines and the ISA interpreter translate through. This is what
 * KFD 1.15 promises: mappings of dmabufs exported from KFD, managed in the
 * compute VM with GEM_VA. Handles are per render file, as drm_file's idr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_priv.h"

/* amdgpu_drm.h */
#define GEM_DOMAIN_CPU  0x1u
#define GEM_DOMAIN_GTT  0x2u
#define GEM_DOMAIN_VRAM 0x4u
#define GEM_DOMAIN_GDS  0x8u
#define GEM_DOMAIN_GWS  0x10u
#define GEM_DOMAIN_OA   0x20u
#define GEM_DOMAIN_MASK 0x3fu /* 6.12 adds DOORBELL (0x40), which it refuses */

#define GEM_CREATE_NO_CPU_ACCESS   (1u << 1)
#define GEM_CREATE_VM_ALWAYS_VALID (1u << 6)
#define GEM_CREATE_ENCRYPTED       (1u << 10)
/* what amdgpu_gem_create_ioctl accepts (6.12): CPU_ACCESS_REQUIRED,
 * NO_CPU_ACCESS, CPU_GTT_USWC, VRAM_CLEARED, VM_ALWAYS_VALID, EXPLICIT_SYNC,
 * ENCRYPTED, DISCARDABLE */
#define GEM_CREATE_ALLOWED 0x14cfULL

#define VA_OP_MAP     1
#define VA_OP_UNMAP   2
#define VA_OP_CLEAR   3
#define VA_OP_REPLACE 4

#define VM_DELAY_UPDATE (1u << 0)
#define VM_PAGE_READ    (1u << 1)
#define VM_PAGE_WRITE   (1u << 2)
#define VM_PAGE_EXEC    (1u << 3)
#define VM_PAGE_PRT     (1u << 4)
#define VM_MTYPE_MASK   (0xfu << 5)
#define VM_PAGE_NOALLOC (1u << 9)
#define VM_VALID_FLAGS                                                                             \
	(VM_DELAY_UPDATE | VM_PAGE_READ | VM_PAGE_WRITE | VM_PAGE_EXEC | VM_MTYPE_MASK |           \
	 VM_PAGE_NOALLOC)
#define VM_PRT_FLAGS (VM_DELAY_UPDATE | VM_PAGE_PRT)

/* drm.h */
#define DRM_CLOEXEC_FLAG O_CLOEXEC
#define DRM_RDWR_FLAG    O_RDWR

#define SIM_VM_SIZE     (1ULL << 48) /* max_pfn * 4 KiB on gfx9 / gfx10.3 */
#define SIM_MAX_HANDLES (1u << 20)

struct sim_gem {
	struct sim_backing *backing;
	uint64_t size;   /* page aligned */
	uint32_t domain; /* where it lives: GEM_DOMAIN_VRAM, GTT or CPU */
	uint64_t flags;  /* creation flags */
	uint64_t offset; /* fake mmap offset on this render fd */
	uint64_t acct;   /* bytes charged to the domain */
	bool imported;
};

struct rsim_gem_create {
	union {
		struct {
			uint64_t bo_size, alignment, domains, domain_flags;
		} in;
		struct {
			uint32_t handle, pad;
		} out;
	};
};

struct rsim_gem_mmap {
	union {
		struct {
			uint32_t handle, pad;
		} in;
		struct {
			uint64_t addr_ptr;
		} out;
	};
};

struct rsim_gem_va {
	uint32_t handle, pad, operation, flags;
	uint64_t va_address, offset_in_bo, map_size;
};

struct rsim_gem_close {
	uint32_t handle, pad;
};

struct rsim_prime {
	uint32_t handle, flags;
	int32_t fd;
};

/* AMDGPU_VA_RESERVED_BOTTOM / _TOP of the kernel kfdsim models: Linux 6.1
 * (1 MiB each end) below KFD 1.16, 2024 kernels (64 KiB; trap, seq64 and
 * CSA areas at the top) from it, like the KFD GPUVM base. */
uint64_t sim_va_reserved_bottom(const struct kfdsim *sim)
{
	return sim->cfg.kfd_minor >= 16 ? 1ULL << 16 : 1ULL << 20;
}

uint64_t sim_va_reserved_top(const struct kfdsim *sim)
{
	return sim->cfg.kfd_minor >= 16 ? (2ULL << 12) + (2ULL << 20) + (2ULL << 20) : 1ULL << 20;
}

static struct sim_gem *gem_get(struct sim_render *r, uint32_t handle)
{
	if (handle == 0 || handle > r->gems_cap)
		return NULL;
	return r->gems[handle - 1];
}

/* idr_alloc(..., 1, 0): the lowest free handle from 1 */
static int handle_alloc(struct sim_render *r, struct sim_gem *g, uint32_t *handle)
{
	uint32_t i;

	for (i = 0; i < r->gems_cap; i++)
		if (!r->gems[i])
			break;
	if (i == r->gems_cap) {
		uint32_t cap = r->gems_cap ? r->gems_cap * 2 : 64;
		struct sim_gem **n;

		if (cap > SIM_MAX_HANDLES)
			return -ENOSPC;
		n = realloc(r->gems, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + r->gems_cap, 0, (cap - r->gems_cap) * sizeof(*n));
		r->gems = n;
		r->gems_cap = cap;
	}
	r->gems[i] = g;
	*handle = i + 1;
	return 0;
}

static void uncharge_locked(struct kfdsim *sim, struct sim_render *r, struct sim_gem *g)
{
	if (g->domain == GEM_DOMAIN_VRAM)
		sim->gpus[r->gpu].vram_used -= g->acct;
	else if (g->domain == GEM_DOMAIN_GTT)
		sim->gtt_used -= g->acct;
	g->acct = 0;
}

/* The VM a GEM_VA of this file edits, with the locks that guard it: the
 * acquiring process's (proc->lock, sim->lock, vm_lock) or the file's own
 * (sim->lock). */
struct vm_ref {
	struct sim_process *p;
	struct sim_pdd *pdd;
	struct sim_vm *vm;
};

static void vm_ref_lock(struct kfdsim *sim, struct sim_render *r, struct vm_ref *v)
{
	memset(v, 0, sizeof(*v));
	pthread_mutex_lock(&sim->lock);
	v->p = r->owner;
	/* a process whose last reference is gone is being destroyed: its
	 * VM is no longer this file's */
	if (v->p && v->p->refs == 0)
		v->p = NULL;
	if (v->p)
		v->p->refs++;
	pthread_mutex_unlock(&sim->lock);
	if (v->p)
		pthread_mutex_lock(&v->p->lock);
	pthread_mutex_lock(&sim->lock);
	if (v->p && r->owner == v->p) {
		v->pdd = &v->p->pdd[r->gpu];
		pthread_rwlock_wrlock(&v->pdd->vm_lock);
		v->vm = &v->pdd->vm;
	} else {
		v->vm = &r->vm; /* the process went away meanwhile */
	}
}

static void vm_ref_unlock(struct kfdsim *sim, struct vm_ref *v)
{
	if (v->pdd)
		pthread_rwlock_unlock(&v->pdd->vm_lock);
	pthread_mutex_unlock(&sim->lock);
	if (v->p) {
		pthread_mutex_unlock(&v->p->lock);
		sim_process_put(v->p);
	}
}

/* amdgpu_gem_create_ioctl */
static int gem_create(struct kfdsim *sim, struct sim_render *r, struct rsim_gem_create *a)
{
	uint64_t flags = a->in.domain_flags, domains = a->in.domains;
	uint64_t size = a->in.bo_size, aligned;
	struct sim_gem *g;
	uint32_t handle = 0, domain;
	int ret = 0;

	if (flags & ~GEM_CREATE_ALLOWED)
		return -EINVAL;
	if (domains & ~(uint64_t)GEM_DOMAIN_MASK)
		return -EINVAL;
	/* TMZ is off on dGPUs (amdgpu.tmz auto) */
	if (flags & GEM_CREATE_ENCRYPTED)
		return -EINVAL;
	/* GDS, GWS and OA partitions are for command submission, which kfdsim
	 * render nodes do not model */
	if (domains & (GEM_DOMAIN_GDS | GEM_DOMAIN_GWS | GEM_DOMAIN_OA))
		return -EINVAL;
	/* TTM refuses an empty object; amdgpu_bo_validate_size anything
	 * larger than the domain */
	if (size == 0)
		return -EINVAL;
	if (size > (1ULL << 48))
		return -ENOMEM;
	aligned = (size + SIM_PAGE_SIZE - 1) & ~(SIM_PAGE_SIZE - 1);

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->size = aligned;
	g->flags = flags;
	pthread_mutex_lock(&sim->lock);
	/* placement: VRAM first when allowed, then GTT; a VRAM-only request
	 * that does not fit is retried with GTT added, as the ioctl does.
	 * System memory (CPU domain) is bounded by the GTT size, as TTM
	 * bounds the pages it hands out */
	domain = GEM_DOMAIN_CPU;
	if (aligned > sim->cfg.gtt_size &&
	    (!(domains & GEM_DOMAIN_VRAM) || aligned > sim->cfg.vram_size))
		ret = -ENOMEM;
	if (ret) {
		/* larger than any heap */
	} else if ((domains & GEM_DOMAIN_VRAM) &&
		   sim->gpus[r->gpu].vram_used + aligned <= sim->cfg.vram_size) {
		domain = GEM_DOMAIN_VRAM;
		sim->gpus[r->gpu].vram_used += aligned;
	} else if ((domains & GEM_DOMAIN_GTT) || domains == GEM_DOMAIN_VRAM) {
		if (sim->gtt_used + aligned > sim->cfg.gtt_size) {
			ret = -ENOMEM;
		} else {
			domain = GEM_DOMAIN_GTT;
			sim->gtt_used += aligned;
		}
	}
	if (!ret) {
		g->domain = domain;
		g->acct = domain == GEM_DOMAIN_CPU ? 0 : aligned;
		g->offset = sim->next_fake_offset;
		sim->next_fake_offset += aligned;
	}
	pthread_mutex_unlock(&sim->lock);
	if (ret) {
		free(g);
		return ret;
	}
	g->backing = sim_backing_new(sim, "kfdsim-gem", aligned);
	pthread_mutex_lock(&sim->lock);
	if (!g->backing) {
		ret = -ENOMEM;
	} else {
		g->backing->counted = true;
		sim->bytes_allocated += aligned;
		ret = handle_alloc(r, g, &handle);
	}
	if (ret) {
		uncharge_locked(sim, r, g);
		sim_backing_put_locked(g->backing);
		free(g);
	}
	pthread_mutex_unlock(&sim->lock);
	if (ret)
		return ret;
	memset(a, 0, sizeof(*a));
	a->out.handle = handle;
	return 0;
}

/* amdgpu_mode_dumb_mmap */
static int gem_mmap(struct kfdsim *sim, struct sim_render *r, struct rsim_gem_mmap *a)
{
	struct sim_gem *g;
	int ret = 0;

	pthread_mutex_lock(&sim->lock);
	g = gem_get(r, a->in.handle);
	if (!g)
		ret = -ENOENT;
	else if (g->flags & GEM_CREATE_NO_CPU_ACCESS)
		ret = -EPERM;
	else
		a->out.addr_ptr = g->offset;
	pthread_mutex_unlock(&sim->lock);
	return ret;
}

/* amdgpu_vm_verify_parameters */
static int va_verify(uint64_t va, uint64_t offset, uint64_t size, const struct sim_gem *g)
{
	if ((va | offset | size) & (SIM_PAGE_SIZE - 1))
		return -EINVAL;
	if (va + size <= va || offset + size <= offset)
		return -EINVAL;
	if (g && offset + size > g->size)
		return -EINVAL;
	if (((va + size - 1) >> 12) >= SIM_VM_SIZE >> 12)
		return -EINVAL;
	return 0;
}

static int va_map(struct sim_vm *vm, const struct rsim_gem_va *a, const struct sim_gem *g)
{
	struct sim_mapping m = {.start = a->va_address,
				.end = a->va_address + a->map_size,
				.host = g->backing->host + a->offset_in_bo,
				.writable = (a->flags & VM_PAGE_WRITE) != 0,
				.backing = g->backing,
				.gem = true};

	return sim_vm_insert(vm, &m, SIM_VM_SIZE);
}

/* amdgpu_vm_bo_unmap: the mapping of this BO that starts at va */
static int va_unmap(struct sim_vm *vm, uint64_t va, const struct sim_gem *g)
{
	for (size_t i = 0; i < vm->nmaps; i++) {
		if (vm->maps[i].start == va && vm->maps[i].backing == g->backing) {
			memmove(&vm->maps[i], &vm->maps[i + 1],
				(vm->nmaps - i - 1) * sizeof(vm->maps[0]));
			vm->nmaps--;
			return 0;
		}
	}
	return -ENOENT;
}

/* amdgpu_gem_va_ioctl */
static int gem_va(struct kfdsim *sim, struct sim_render *r, struct rsim_gem_va *a)
{
	uint64_t vm_size = SIM_VM_SIZE - sim_va_reserved_top(sim);
	struct sim_gem *g = NULL;
	struct vm_ref v;
	int ret;

	if (a->va_address < sim_va_reserved_bottom(sim))
		return -EINVAL;
	if (a->va_address >= SIM_GMC_HOLE_START && a->va_address < SIM_GMC_HOLE_END)
		return -EINVAL;
	a->va_address &= SIM_GMC_HOLE_MASK;
	if (a->va_address > vm_size || a->map_size > vm_size - a->va_address)
		return -EINVAL;
	if ((a->flags & ~VM_VALID_FLAGS) && (a->flags & ~VM_PRT_FLAGS))
		return -EINVAL;
	if (a->operation < VA_OP_MAP || a->operation > VA_OP_REPLACE)
		return -EINVAL;
	/* PRT (partially resident) ranges have no BO behind them; kfdsim
	 * models no PTE that reads zero without memory (docs/kfd-uapi.md) */
	if (a->flags & VM_PAGE_PRT)
		return -EINVAL;

	vm_ref_lock(sim, r, &v);
	if (a->operation != VA_OP_CLEAR) {
		g = gem_get(r, a->handle);
		if (!g) {
			ret = -ENOENT;
			goto out;
		}
	}
	switch (a->operation) {
	case VA_OP_MAP:
		ret = va_verify(a->va_address, a->offset_in_bo, a->map_size, g);
		if (!ret)
			ret = va_map(v.vm, a, g);
		break;
	case VA_OP_UNMAP:
		ret = va_unmap(v.vm, a->va_address, g);
		break;
	case VA_OP_CLEAR:
		ret = va_verify(a->va_address, 0, a->map_size, NULL);
		if (!ret)
			ret = sim_vm_clear(v.vm, a->va_address, a->va_address + a->map_size);
		break;
	default: /* REPLACE */
		ret = va_verify(a->va_address, a->offset_in_bo, a->map_size, g);
		if (!ret)
			ret = sim_vm_clear(v.vm, a->va_address, a->va_address + a->map_size);
		if (!ret)
			ret = va_map(v.vm, a, g);
		break;
	}
out:
	vm_ref_unlock(sim, &v);
	return ret;
}

/* drm_gem_close_ioctl: the handle goes, and with it this file's mappings
 * of the object (amdgpu_gem_object_close -> amdgpu_vm_bo_del) */
static int gem_close(struct kfdsim *sim, struct sim_render *r, struct rsim_gem_close *a)
{
	struct sim_gem *g;
	struct vm_ref v;
	size_t j = 0;

	vm_ref_lock(sim, r, &v);
	g = gem_get(r, a->handle);
	if (!g) {
		vm_ref_unlock(sim, &v);
		return -EINVAL;
	}
	r->gems[a->handle - 1] = NULL;
	for (size_t i = 0; i < v.vm->nmaps; i++)
		if (!(v.vm->maps[i].gem && v.vm->maps[i].backing == g->backing))
			v.vm->maps[j++] = v.vm->maps[i];
	v.vm->nmaps = j;
	uncharge_locked(sim, r, g);
	if (v.pdd)
		pthread_rwlock_unlock(&v.pdd->vm_lock);
	pthread_mutex_unlock(&sim->lock);
	/* engines of the process may still hold pointers: keep zero pages
	 * there until it goes (sim_backing_put's grave) */
	sim_backing_put(g->backing, v.p && v.p->nqueues ? v.pdd : NULL);
	free(g);
	if (v.p) {
		pthread_mutex_unlock(&v.p->lock);
		sim_process_put(v.p);
	}
	return 0;
}

/* drm_gem_prime_fd_to_handle: one handle per dmabuf and file */
static int prime_import(struct kfdsim *sim, struct sim_render *r, struct rsim_prime *a)
{
	struct sim_export e;
	struct sim_gem *g;
	uint32_t handle;
	int ret;

	ret = sim_export_lookup(sim, a->fd, &e, true);
	if (ret)
		return ret;
	pthread_mutex_lock(&sim->lock);
	for (uint32_t i = 0; i < r->gems_cap; i++) {
		if (r->gems[i] && r->gems[i]->backing == e.backing) {
			a->handle = i + 1;
			pthread_mutex_unlock(&sim->lock);
			sim_backing_put(e.backing, NULL);
			return 0;
		}
	}
	g = calloc(1, sizeof(*g));
	ret = g ? 0 : -ENOMEM;
	if (g) {
		g->backing = e.backing;
		g->size = e.backing->size;
		g->domain =
		    (e.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) ? GEM_DOMAIN_VRAM : GEM_DOMAIN_GTT;
		g->imported = true;
		g->offset = sim->next_fake_offset;
		sim->next_fake_offset += g->size;
		ret = handle_alloc(r, g, &handle);
	}
	pthread_mutex_unlock(&sim->lock);
	if (ret) {
		free(g);
		sim_backing_put(e.backing, NULL);
		return ret;
	}
	a->handle = handle;
	return 0;
}

/* drm_gem_prime_handle_to_fd / amdgpu_gem_prime_export */
static int prime_export(struct kfdsim *sim, struct sim_render *r, struct rsim_prime *a)
{
	struct sim_gem *g;
	struct sim_backing *b;
	uint32_t kfd_flags;
	int fd, ret = 0;

	if (a->flags & ~(uint32_t)(DRM_CLOEXEC_FLAG | DRM_RDWR_FLAG))
		return -EINVAL;
	pthread_mutex_lock(&sim->lock);
	g = gem_get(r, a->handle);
	if (!g)
		ret = -ENOENT;
	else if (g->flags & GEM_CREATE_VM_ALWAYS_VALID)
		ret = -EPERM; /* its reservation is the VM's */
	if (ret) {
		pthread_mutex_unlock(&sim->lock);
		return ret;
	}
	b = g->backing;
	sim_backing_get(b);
	kfd_flags = g->domain == GEM_DOMAIN_VRAM ? KFD_IOC_ALLOC_MEM_FLAGS_VRAM
						 : KFD_IOC_ALLOC_MEM_FLAGS_GTT;
	pthread_mutex_unlock(&sim->lock);
	fd = fcntl(b->memfd, (a->flags & DRM_CLOEXEC_FLAG) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	if (fd < 0)
		ret = -errno;
	else
		ret = sim_export_register(sim, b, sim->gpus[r->gpu].gpu_id,
					  kfd_flags | VKFD_KFD_ALLOC_WRITABLE, true);
	if (ret && fd >= 0)
		close(fd);
	sim_backing_put(b, NULL);
	if (!ret)
		a->fd = fd;
	return ret;
}

int sim_render_gem_ioctl(struct kfdsim *sim, struct sim_render *r, unsigned nr, void *args)
{
	switch (nr) {
	case SIM_RNR_GEM_CLOSE:
		return gem_close(sim, r, args);
	case SIM_RNR_PRIME_HANDLE_TO_FD:
		return prime_export(sim, r, args);
	case SIM_RNR_PRIME_FD_TO_HANDLE:
		return prime_import(sim, r, args);
	case SIM_RNR_GEM_CREATE:
		return gem_create(sim, r, args);
	case SIM_RNR_GEM_MMAP:
		return gem_mmap(sim, r, args);
	case SIM_RNR_GEM_VA:
		return gem_va(sim, r, args);
	default:
		return -EINVAL;
	}
}

size_t sim_render_gem_arg_size(unsigned nr)
{
	switch (nr) {
	case SIM_RNR_GEM_CLOSE:
		return sizeof(struct rsim_gem_close);
	case SIM_RNR_PRIME_HANDLE_TO_FD:
	case SIM_RNR_PRIME_FD_TO_HANDLE:
		return sizeof(struct rsim_prime);
	case SIM_RNR_GEM_CREATE:
		return sizeof(struct rsim_gem_create);
	case SIM_RNR_GEM_MMAP:
		return sizeof(struct rsim_gem_mmap);
	case SIM_RNR_GEM_VA:
		return sizeof(struct rsim_gem_va);
	default:
		return 0;
	}
}

int sim_render_vm_adopt(struct sim_render *r, struct sim_pdd *pdd)
{
	/* amdgpu_vm_make_compute keeps the mappings the file made; nothing is
	 * mapped in the pdd's VM before ACQUIRE_VM */
	pthread_rwlock_wrlock(&pdd->vm_lock);
	if (pdd->vm.nmaps) {
		pthread_rwlock_unlock(&pdd->vm_lock);
		return -EINVAL;
	}
	sim_vm_free(&pdd->vm);
	pdd->vm = r->vm;
	memset(&r->vm, 0, sizeof(r->vm));
	pthread_rwlock_unlock(&pdd->vm_lock);
	return 0;
}

void sim_render_gem_release_locked(struct kfdsim *sim, struct sim_render *r)
{
	for (uint32_t i = 0; i < r->gems_cap; i++) {
		struct sim_gem *g = r->gems[i];

		if (!g)
			continue;
		uncharge_locked(sim, r, g);
		sim_backing_put_locked(g->backing);
		free(g);
	}
	free(r->gems);
	r->gems = NULL;
	r->gems_cap = 0;
	sim_vm_free(&r->vm);
}

struct sim_backing *sim_render_gem_by_offset(struct sim_render *r, uint64_t off, uint64_t len,
					     uint64_t *rel)
{
	for (uint32_t i = 0; i < r->gems_cap; i++) {
		struct sim_gem *g = r->gems[i];

		if (g && off >= g->offset && len <= g->size && off - g->offset <= g->size - len) {
			if (g->flags & GEM_CREATE_NO_CPU_ACCESS)
				return NULL;
			*rel = off - g->offset;
			return g->backing;
		}
	}
	return NULL;
}
