// SPDX-License-Identifier: MIT
/*
 * Memory objects (kfd_chardev.c ALLOC/FREE/MAP/UNMAP) and the per-process,
 * per-GPU VM that engines translate through. Dmabufs: dmabuf.c.
 *
 * VRAM and GTT BOs are memfds; a BO's render-fd mmap offset is a fake
 * offset unique in the machine (like a GEM offset). USERPTR BOs are the
 * caller's own memory. GPU VA is checked for overlap when a BO is mapped
 * into a VM, which is where amdgpu_vm_bo_map rejects it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_priv.h"

#define DOMAIN_FLAGS                                                                               \
	(KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |                              \
	 KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |                      \
	 KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)
#define SIM_MAX_BOS (1u << 20)

static uint64_t page_align(uint64_t v)
{
	return (v + SIM_PAGE_SIZE - 1) & ~(SIM_PAGE_SIZE - 1);
}

struct sim_backing *sim_backing_new(struct kfdsim *sim, const char *name, uint64_t size)
{
	struct sim_backing *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->sim = sim;
	b->refs = 1;
	b->size = size;
	b->memfd = sim_memfd(name, size, &b->dev, &b->ino);
	if (b->memfd < 0) {
		free(b);
		return NULL;
	}
	b->host = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b->memfd, 0);
	if (b->host == MAP_FAILED) {
		close(b->memfd);
		free(b);
		return NULL;
	}
	return b;
}

void sim_backing_get(struct sim_backing *b)
{
	atomic_fetch_add((_Atomic unsigned *)&b->refs, 1);
}

static void grave_add(struct sim_pdd *pdd, void *addr, size_t len)
{
	if (pdd->ngrave == pdd->grave_cap) {
		size_t cap = pdd->grave_cap ? pdd->grave_cap * 2 : 16;
		struct sim_grave *n = realloc(pdd->grave, cap * sizeof(*n));

		if (!n)
			return; /* keep the stale mapping rather than fault */
		pdd->grave = n;
		pdd->grave_cap = cap;
	}
	pdd->grave[pdd->ngrave].addr = addr;
	pdd->grave[pdd->ngrave].len = len;
	pdd->ngrave++;
}

/* `grave`: a pdd whose engines may still hold pointers into this memory;
 * the host range is then replaced by zero pages and unmapped when that
 * process goes away, so a late engine access can never fault the host. */
void sim_backing_put(struct sim_backing *b, struct sim_pdd *grave)
{
	struct kfdsim *sim;

	if (!b || atomic_fetch_sub((_Atomic unsigned *)&b->refs, 1) != 1)
		return;
	sim = b->sim;
	pthread_mutex_lock(&sim->lock);
	for (size_t i = 0; i < sim->nexports; i++) {
		if (sim->exports[i].backing == b) {
			sim->exports[i] = sim->exports[--sim->nexports];
			break;
		}
	}
	if (b->counted)
		sim->bytes_allocated -= b->size;
	pthread_mutex_unlock(&sim->lock);
	if (grave && mmap(b->host, b->size, PROT_READ | PROT_WRITE,
			  MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
		grave_add(grave, b->host, b->size);
	else
		munmap(b->host, b->size);
	close(b->memfd);
	free(b);
}

/* The same with sim->lock held; only for memory no engine can reach (its
 * VM is gone). */
void sim_backing_put_locked(struct sim_backing *b)
{
	struct kfdsim *sim;

	if (!b || atomic_fetch_sub((_Atomic unsigned *)&b->refs, 1) != 1)
		return;
	sim = b->sim;
	for (size_t i = 0; i < sim->nexports; i++) {
		if (sim->exports[i].backing == b) {
			sim->exports[i] = sim->exports[--sim->nexports];
			break;
		}
	}
	if (b->counted)
		sim->bytes_allocated -= b->size;
	munmap(b->host, b->size);
	close(b->memfd);
	free(b);
}

int sim_doorbells_get(struct sim_pdd *pdd)
{
	if (!pdd->doorbells) {
		pdd->doorbells =
		    sim_backing_new(pdd->proc->sim, "kfdsim-doorbells", SIM_DOORBELL_SLICE);
		if (!pdd->doorbells)
			return -ENOMEM;
	}
	return 0;
}

int sim_mmio_get(struct sim_pdd *pdd)
{
	if (!pdd->mmio) {
		pdd->mmio = sim_backing_new(pdd->proc->sim, "kfdsim-mmio", SIM_PAGE_SIZE);
		if (!pdd->mmio)
			return -ENOMEM;
	}
	return 0;
}

struct sim_bo *sim_bo_lookup(struct sim_pdd *pdd, uint64_t handle)
{
	uint32_t id = KFDSIM_HANDLE_IDR(handle);

	if (!pdd || KFDSIM_HANDLE_GPU_ID(handle) != pdd->gpu->gpu_id || id >= pdd->bos_cap)
		return NULL;
	return pdd->bos[id];
}

int sim_bo_idr_alloc(struct sim_pdd *pdd, struct sim_bo *bo)
{
	uint32_t id;

	for (id = 0; id < pdd->bos_cap; id++)
		if (!pdd->bos[id])
			break;
	if (id == pdd->bos_cap) {
		uint32_t cap = pdd->bos_cap ? pdd->bos_cap * 2 : 64;
		struct sim_bo **n;

		if (cap > SIM_MAX_BOS)
			return -ENOMEM;
		n = realloc(pdd->bos, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + pdd->bos_cap, 0, (cap - pdd->bos_cap) * sizeof(*n));
		pdd->bos = n;
		pdd->bos_cap = cap;
	}
	pdd->bos[id] = bo;
	bo->id = id;
	bo->handle = KFDSIM_MAKE_HANDLE(pdd->gpu->gpu_id, id);
	return 0;
}

/* ---- the GPU VM of one process on one GPU ---- */

static size_t map_lower_bound(const struct sim_vm *vm, uint64_t va)
{
	size_t lo = 0, hi = vm->nmaps;

	/* first mapping whose end is above va */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (vm->maps[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct sim_mapping *sim_mapping_find(struct sim_pdd *pdd, uint64_t va)
{
	size_t i = map_lower_bound(&pdd->vm, va);

	if (i < pdd->vm.nmaps && pdd->vm.maps[i].start <= va)
		return &pdd->vm.maps[i];
	return NULL;
}

static int vm_reserve(struct sim_vm *vm, size_t more)
{
	size_t cap = vm->maps_cap ? vm->maps_cap : 64;
	struct sim_mapping *n;

	while (cap < vm->nmaps + more)
		cap *= 2;
	if (cap == vm->maps_cap)
		return 0;
	n = realloc(vm->maps, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	vm->maps = n;
	vm->maps_cap = cap;
	return 0;
}

int sim_vm_insert(struct sim_vm *vm, const struct sim_mapping *m, uint64_t limit)
{
	uint64_t start = m->start, len = m->end - m->start;
	size_t i;

	/* amdgpu_vm_bo_map: page aligned, no wrap, below the VM end, no overlap */
	if ((start | m->end) & (SIM_PAGE_SIZE - 1) || m->end <= start || m->end > limit)
		return -EINVAL;
	i = map_lower_bound(vm, start);
	if (i < vm->nmaps && vm->maps[i].start < start + len)
		return -EINVAL;
	if (vm_reserve(vm, 1))
		return -ENOMEM;
	memmove(&vm->maps[i + 1], &vm->maps[i], (vm->nmaps - i) * sizeof(vm->maps[0]));
	vm->maps[i] = *m;
	vm->nmaps++;
	return 0;
}

/* amdgpu_vm_bo_clear_mappings: mappings inside go, mappings that straddle
 * an edge keep the part outside. */
int sim_vm_clear(struct sim_vm *vm, uint64_t start, uint64_t end)
{
	size_t i = map_lower_bound(vm, start), j;

	/* one mapping may straddle both edges and become two */
	if (vm_reserve(vm, 1))
		return -ENOMEM;
	if (i < vm->nmaps && vm->maps[i].start < start && vm->maps[i].end > end) {
		struct sim_mapping tail = vm->maps[i];

		tail.host += end - tail.start;
		tail.start = end;
		vm->maps[i].end = start;
		memmove(&vm->maps[i + 2], &vm->maps[i + 1],
			(vm->nmaps - i - 1) * sizeof(vm->maps[0]));
		vm->maps[i + 1] = tail;
		vm->nmaps++;
		return 0;
	}
	if (i < vm->nmaps && vm->maps[i].start < start) {
		vm->maps[i].end = start;
		i++;
	}
	for (j = i; j < vm->nmaps && vm->maps[j].end <= end; j++)
		;
	if (j < vm->nmaps && vm->maps[j].start < end) {
		vm->maps[j].host += end - vm->maps[j].start;
		vm->maps[j].start = end;
	}
	memmove(&vm->maps[i], &vm->maps[j], (vm->nmaps - j) * sizeof(vm->maps[0]));
	vm->nmaps -= j - i;
	return 0;
}

void sim_vm_free(struct sim_vm *vm)
{
	free(vm->maps);
	vm->maps = NULL;
	vm->nmaps = vm->maps_cap = 0;
}

static int vm_insert(struct sim_pdd *pdd, uint64_t start, uint64_t len, uint8_t *host,
		     bool writable, struct sim_bo *bo)
{
	struct sim_mapping m = {.start = start,
				.end = start + len,
				.host = host,
				.writable = writable,
				.bo = bo,
				.backing = bo->backing};

	if (start + len < start)
		return -EINVAL;
	return sim_vm_insert(&pdd->vm, &m, SIM_GPUVM_LIMIT);
}

static void vm_remove_bo(struct sim_pdd *pdd, struct sim_bo *bo)
{
	size_t j = 0;

	for (size_t i = 0; i < pdd->vm.nmaps; i++)
		if (pdd->vm.maps[i].bo != bo)
			pdd->vm.maps[j++] = pdd->vm.maps[i];
	pdd->vm.nmaps = j;
}

static uint8_t *bo_host(struct sim_bo *bo)
{
	return bo->backing ? bo->backing->host : bo->userptr;
}

static int vm_map_bo(struct sim_pdd *peer, struct sim_bo *bo)
{
	bool wr = bo->flags & VKFD_KFD_ALLOC_WRITABLE;
	bool aql = bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;
	int r;

	if (bo->mapped_mask & (1u << peer->gpu->index))
		return 0; /* already mapped: nothing to do */
	pthread_rwlock_wrlock(&peer->vm_lock);
	r = vm_insert(peer, bo->va, bo->alloc_size, bo_host(bo), wr, bo);
	if (!r && aql) {
		/* AQL queue memory: the same pages again right behind */
		r = vm_insert(peer, bo->va + bo->alloc_size, bo->alloc_size, bo_host(bo), wr, bo);
		if (r)
			vm_remove_bo(peer, bo);
	}
	pthread_rwlock_unlock(&peer->vm_lock);
	if (!r)
		bo->mapped_mask |= 1u << peer->gpu->index;
	return r;
}

static void vm_unmap_bo(struct sim_pdd *peer, struct sim_bo *bo)
{
	pthread_rwlock_wrlock(&peer->vm_lock);
	vm_remove_bo(peer, bo);
	pthread_rwlock_unlock(&peer->vm_lock);
	bo->mapped_mask &= ~(1u << peer->gpu->index);
}

void *sim_translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
	struct sim_pdd *pdd = ctx;
	struct sim_mapping *m;
	void *host = NULL;

	if (len == 0 || va + len < va)
		return NULL;
	va = sim_gpuvm_fold(va);
	pthread_rwlock_rdlock(&pdd->vm_lock);
	m = sim_mapping_find(pdd, va);
	if (m && va + len <= m->end && (!write || m->writable))
		host = m->host + (va - m->start);
	pthread_rwlock_unlock(&pdd->vm_lock);
	return host;
}

/* 0: mapped (writable tells how), -EFAULT: not mapped */
int sim_vm_lookup(struct sim_pdd *pdd, uint64_t va, bool *writable)
{
	struct sim_mapping *m;
	int r = -EFAULT;

	va = sim_gpuvm_fold(va);
	pthread_rwlock_rdlock(&pdd->vm_lock);
	m = sim_mapping_find(pdd, va);
	if (m) {
		*writable = m->writable;
		r = 0;
	}
	pthread_rwlock_unlock(&pdd->vm_lock);
	return r;
}

struct sim_bo *sim_bo_by_offset(struct sim_pdd *pdd, uint64_t off, uint64_t len)
{
	for (uint32_t i = 0; i < pdd->bos_cap; i++) {
		struct sim_bo *bo = pdd->bos[i];

		if (!bo ||
		    !(bo->flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT)))
			continue;
		if (off >= bo->mmap_offset && len <= bo->alloc_size &&
		    off - bo->mmap_offset <= bo->alloc_size - len)
			return bo;
	}
	return NULL;
}

/* ---- ioctls ---- */

static void bo_destroy(struct sim_pdd *pdd, struct sim_bo *bo, bool engines_live)
{
	struct kfdsim *sim = pdd->proc->sim;

	pdd->bos[bo->id] = NULL;
	pthread_mutex_lock(&sim->lock);
	if (bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
		pdd->gpu->vram_used -= bo->acct;
	else
		sim->gtt_used -= bo->acct;
	if (bo->userptr)
		sim->bytes_allocated -= bo->alloc_size;
	pthread_mutex_unlock(&sim->lock);
	sim_backing_put(bo->backing, engines_live ? pdd : NULL);
	free(bo);
}

int sim_ioctl_alloc_memory(struct sim_process *p, void *args)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args *a = args;
	struct kfdsim *sim = p->sim;
	uint32_t flags = a->flags;
	struct sim_pdd *pdd;
	struct sim_bo *bo = NULL;
	uint64_t size, offset = 0;
	int r;

	if (a->size == 0)
		return -EINVAL;
	if (p->secondary && (flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, a->gpu_id);
	if (!pdd) {
		r = -EINVAL;
		goto out;
	}
	r = sim_pdd_bind(pdd);
	if (r)
		goto out;
	if (!(flags & DOMAIN_FLAGS)) {
		r = -EINVAL;
		goto out;
	}
	/* more than any memory limit (and safe to page-align) */
	if (a->size > (1ULL << 48) &&
	    (flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |
		      KFD_IOC_ALLOC_MEM_FLAGS_USERPTR))) {
		r = -ENOMEM;
		goto out;
	}
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		r = -ENOMEM;
		goto out;
	}
	bo->pdd = pdd;
	bo->flags = flags;
	bo->va = a->va_addr;
	bo->size = a->size;
	size = a->size;
	if (flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM)
		size >>= 1;
	size = page_align(size);
	bo->alloc_size = size;

	if (flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM || flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT) {
		bool vram = flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM;

		pthread_mutex_lock(&sim->lock);
		if (vram ? pdd->gpu->vram_used + size > sim->cfg.vram_size
			 : sim->gtt_used + size > sim->cfg.gtt_size)
			r = -ENOMEM;
		else if (vram)
			pdd->gpu->vram_used += size;
		else
			sim->gtt_used += size;
		pthread_mutex_unlock(&sim->lock);
		if (r)
			goto out;
		{
			char name[SIM_DMABUF_NAME_MAX];

			sim_dmabuf_name(name, vram, flags & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC,
					pdd->gpu->gpu_id);
			bo->backing = sim_backing_new(sim, name, size);
		}
		pthread_mutex_lock(&sim->lock);
		if (!bo->backing) {
			if (vram)
				pdd->gpu->vram_used -= size;
			else
				sim->gtt_used -= size;
			r = -ENOMEM;
		} else {
			bo->acct = size;
			bo->backing->counted = true;
			sim->bytes_allocated += size;
			offset = sim->next_fake_offset;
			sim->next_fake_offset += size;
		}
		pthread_mutex_unlock(&sim->lock);
		if (r)
			goto out;
	} else if (flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
		uint64_t addr = a->mmap_offset;

		if (addr & (SIM_PAGE_SIZE - 1)) {
			r = -EINVAL;
			goto out;
		}
		r = sim_check_user_range(addr, size);
		if (r)
			goto out;
		bo->userptr = (uint8_t *)(uintptr_t)addr;
		offset = addr;
		pthread_mutex_lock(&sim->lock);
		sim->bytes_allocated += size;
		pthread_mutex_unlock(&sim->lock);
	} else if (flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) {
		if (a->size != SIM_DOORBELL_SLICE) {
			r = -EINVAL;
			goto out;
		}
		r = sim_doorbells_get(pdd);
		if (r)
			goto out;
		sim_backing_get(pdd->doorbells);
		bo->backing = pdd->doorbells;
		/* never a bus address: the kfd-fd offset of the slice */
		offset = VKFD_KFD_MMAP_TYPE_DOORBELL | VKFD_KFD_MMAP_GPU_ID(pdd->gpu->gpu_id);
	} else {
		if (a->size != SIM_PAGE_SIZE) {
			r = -EINVAL;
			goto out;
		}
		r = sim_mmio_get(pdd);
		if (r)
			goto out;
		sim_backing_get(pdd->mmio);
		bo->backing = pdd->mmio;
		offset = VKFD_KFD_MMAP_TYPE_MMIO | VKFD_KFD_MMAP_GPU_ID(pdd->gpu->gpu_id);
	}
	bo->mmap_offset = offset;
	r = sim_bo_idr_alloc(pdd, bo);
	if (r) {
		pthread_mutex_lock(&sim->lock);
		if (flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
			pdd->gpu->vram_used -= bo->acct;
		else
			sim->gtt_used -= bo->acct;
		if (bo->userptr)
			sim->bytes_allocated -= bo->alloc_size;
		pthread_mutex_unlock(&sim->lock);
		sim_backing_put(bo->backing, NULL);
		free(bo);
		bo = NULL;
		goto out;
	}
	a->handle = bo->handle;
	a->mmap_offset = offset;
	bo = NULL;
out:
	free(bo);
	pthread_mutex_unlock(&p->lock);
	return r;
}

int sim_ioctl_free_memory(struct sim_process *p, void *args)
{
	struct kfd_ioctl_free_memory_of_gpu_args *a = args;
	struct sim_pdd *pdd;
	struct sim_bo *bo;
	int r = 0;

	pthread_mutex_lock(&p->lock);
	if (sim_event_page_is(p, a->handle)) {
		r = -EPERM; /* the signal page is freed with the process */
		goto out;
	}
	pdd = sim_pdd_by_id(p, KFDSIM_HANDLE_GPU_ID(a->handle));
	bo = pdd ? sim_bo_lookup(pdd, a->handle) : NULL;
	if (!bo) {
		r = -EINVAL;
		goto out;
	}
	if (bo->mapped_mask) {
		r = -EBUSY; /* amdgpu_amdkfd_gpuvm_free_memory_of_gpu */
		goto out;
	}
	bo_destroy(pdd, bo, p->nqueues > 0);
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

static int map_common(struct sim_process *p, struct kfd_ioctl_map_memory_to_gpu_args *a, bool map)
{
	uint32_t *ids;
	struct sim_pdd *pdd;
	struct sim_bo *bo;
	int r = 0;

	if (!a->n_devices || a->n_success > a->n_devices)
		return -EINVAL;
	if (a->n_devices > 65536)
		return -ENOMEM;
	ids = calloc(a->n_devices, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	if (sim_copy_from_user(ids, a->device_ids_array_ptr, a->n_devices * sizeof(*ids))) {
		free(ids);
		return -EFAULT;
	}
	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, KFDSIM_HANDLE_GPU_ID(a->handle));
	if (!pdd) {
		r = -EINVAL;
		goto out;
	}
	if (map) {
		r = sim_pdd_bind(pdd);
		if (r)
			goto out;
	}
	bo = sim_bo_lookup(pdd, a->handle);
	if (!bo) {
		r = -ENOMEM; /* kfd_chardev.c answers a bad handle so */
		goto out;
	}
	for (uint32_t i = a->n_success; i < a->n_devices; i++) {
		struct sim_pdd *peer = sim_pdd_by_id(p, ids[i]);

		if (!peer) {
			r = -EINVAL;
			goto out;
		}
		if (map) {
			r = sim_pdd_bind(peer);
			if (!r)
				r = vm_map_bo(peer, bo);
		} else if (!(bo->mapped_mask & (1u << peer->gpu->index))) {
			r = -EINVAL; /* not mapped on that VM */
		} else if (bo->queue_refs[peer->gpu->index]) {
			r = -EBUSY; /* a queue still uses it (6.12 queue_refcount) */
		} else {
			vm_unmap_bo(peer, bo);
		}
		if (r)
			goto out;
		a->n_success = i + 1;
	}
out:
	pthread_mutex_unlock(&p->lock);
	free(ids);
	return r;
}

int sim_ioctl_map_memory(struct sim_process *p, void *args)
{
	return map_common(p, args, true);
}

int sim_ioctl_unmap_memory(struct sim_process *p, void *args)
{
	/* the unmap args have the same layout as the map args */
	return map_common(p, args, false);
}

void sim_pdd_release_memory(struct sim_pdd *pdd)
{
	for (uint32_t i = 0; i < pdd->bos_cap; i++)
		if (pdd->bos[i])
			bo_destroy(pdd, pdd->bos[i], false);
	free(pdd->bos);
	pdd->bos = NULL;
	pdd->bos_cap = 0;
	sim_vm_free(&pdd->vm);
	sim_backing_put(pdd->doorbells, NULL);
	sim_backing_put(pdd->mmio, NULL);
	pdd->doorbells = pdd->mmio = NULL;
	for (size_t i = 0; i < pdd->ngrave; i++)
		munmap(pdd->grave[i].addr, pdd->grave[i].len);
	free(pdd->grave);
	pdd->grave = NULL;
	pdd->ngrave = pdd->grave_cap = 0;
}
