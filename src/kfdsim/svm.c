// SPDX-License-Identifier: MIT
/*
 * SVM ranges (AMDKFD_IOC_SVM, KFD 1.5), modelled on kfd_svm.c of 6.x
 * kernels for a process with XNACK off: SET_ATTR splits the process's
 * ranges at the edges of the request, gives new pages the default
 * attributes and applies the request; every GPU a range grants access to
 * (ACCESS or ACCESS_IN_PLACE) gets a GPU mapping of the CPU pages at the
 * same address right away, read-only where the CPU mapping is or with
 * GPU_RO. GET_ATTR intersects the attributes of the ranges in the
 * request. The memory never moves: kfdsim's "VRAM" is host memory too, so
 * a prefetch or preferred location is recorded and reported, nothing more
 * (docs/kfdsim.md, "SVM"). The attribute intervals themselves (splitting,
 * defaults, GET_ATTR's intersection) are src/svm/svm_ranges.c, which the
 * guest's vkfd backend shares.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proc_maps.h"
#include "sim_priv.h"

#define SVM_CLR_FLAGS_MINOR 6 /* 1.6: GET_ATTR reports CLR_FLAGS */

/* The CPU mappings that overlap [s, e), in address order, in *out
 * (malloc'ed); returns their number or -errno. Without /proc the range
 * cannot be checked: -EFAULT. */
static ssize_t svm_vmas(uint64_t s, uint64_t e, struct proc_maps_vma **out)
{
	ssize_t n = proc_maps_overlapping(s, e, out);

	return n < 0 && n != -ENOMEM ? -EFAULT : n;
}

/* svm_range_is_valid: every page of [s, e) lies in a CPU mapping. */
static int svm_covered(const struct proc_maps_vma *v, size_t n, uint64_t s, uint64_t e)
{
	return proc_maps_covered(v, n, s, e) ? 0 : -EFAULT;
}

static uint32_t gpu_bit(const struct sim_pdd *pdd)
{
	return 1u << pdd->gpu->index;
}

static int svm_gpu_index(void *ctx, uint32_t gpu_id)
{
	struct sim_pdd *pdd = sim_pdd_by_id(ctx, gpu_id);

	return pdd ? (int)pdd->gpu->index : -1;
}

/* The process's GPUs for svm_ranges; new pages get every GPU with XNACK
 * on, none with it off (svm_range_new). */
static struct svm_gpus svm_gpus_of(struct sim_process *p)
{
	return (struct svm_gpus){.index = svm_gpu_index,
				 .ctx = p,
				 .default_access = p->xnack > 0 ? (1u << p->sim->ngpus) - 1 : 0};
}

/* svm_range_check_vm: a BO or GEM_VA mapping of any GPU VM of the
 * process in [s, e) makes the range unusable for SVM. */
static int svm_check_vm(struct sim_process *p, uint64_t s, uint64_t e)
{
	int r = 0;

	for (unsigned g = 0; g < p->sim->ngpus && !r; g++) {
		struct sim_pdd *pdd = &p->pdd[g];

		pthread_rwlock_rdlock(&pdd->vm_lock);
		for (size_t i = 0; i < pdd->vm.nmaps; i++) {
			const struct sim_mapping *m = &pdd->vm.maps[i];

			if (!m->svm && m->start < e && s < m->end) {
				r = -EADDRINUSE;
				break;
			}
		}
		pthread_rwlock_unlock(&pdd->vm_lock);
	}
	return r;
}

/* (Re)write the GPU mappings of range r in pdd's VM: the CPU
 * pages at the same address, one mapping per CPU mapping so each gets
 * its own write permission (svm_range_validate_and_map maps read-only
 * what the CPU may not write). */
static int svm_map_gpu(struct sim_pdd *pdd, const struct svm_range *r,
		       const struct proc_maps_vma *v, size_t nv)
{
	int err = 0;

	pthread_rwlock_wrlock(&pdd->vm_lock);
	err = sim_vm_clear(&pdd->vm, r->start, r->end);
	for (size_t i = 0; i < nv && !err; i++) {
		uint64_t s = v[i].start > r->start ? v[i].start : r->start;
		uint64_t e = v[i].end < r->end ? v[i].end : r->end;
		struct sim_mapping m = {
		    .start = s,
		    .end = e,
		    .host = (uint8_t *)(uintptr_t)s,
		    .writable = v[i].perms[1] == 'w' && !(r->flags & KFD_IOCTL_SVM_FLAG_GPU_RO),
		    .svm = true,
		};

		if (s < e)
			err = sim_vm_insert(&pdd->vm, &m, SIM_GPUVM_LIMIT);
	}
	pthread_rwlock_unlock(&pdd->vm_lock);
	return err;
}

static void svm_unmap_gpus(struct sim_process *p, uint64_t s, uint64_t e, uint32_t mask)
{
	for (unsigned g = 0; g < p->sim->ngpus; g++) {
		struct sim_pdd *pdd = &p->pdd[g];

		if (!(mask & gpu_bit(pdd)))
			continue;
		pthread_rwlock_wrlock(&pdd->vm_lock);
		/* out of memory to split a mapping: it stays, still pointing
		 * at the process's own address space */
		(void)sim_vm_clear(&pdd->vm, s, e);
		pthread_rwlock_unlock(&pdd->vm_lock);
	}
}

/* The kernel drops a range when the CPU unmaps it (its MMU notifier);
 * kfdsim sees that at the next SVM ioctl: pages no longer in a CPU
 * mapping leave their range and every GPU VM. */
static int svm_drop_unmapped(struct sim_process *p)
{
	struct svm_ranges *svm = &p->svm;
	struct svm_range *out;
	struct proc_maps_vma *v;
	size_t k = 0, cap;
	ssize_t nv;

	if (!svm->n)
		return 0;
	nv = svm_vmas(svm->r[0].start, svm->r[svm->n - 1].end, &v);
	if (nv < 0)
		return (int)nv;
	/* each kept piece is a range's intersection with a CPU mapping */
	cap = svm->n + (size_t)nv;
	out = malloc(cap * sizeof(*out));
	if (!out) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < svm->n; i++) {
		struct svm_range *r = &svm->r[i];
		uint64_t at = r->start;

		for (ssize_t j = 0; j < nv && at < r->end; j++) {
			uint64_t s = v[j].start > at ? v[j].start : at;
			uint64_t e = v[j].end < r->end ? v[j].end : r->end;

			if (s >= e)
				continue;
			if (s > at)
				svm_unmap_gpus(p, at, s, r->mapped);
			if (k == cap)
				break; /* cannot happen: pieces <= ranges + mappings */
			out[k] = *r;
			out[k].start = s;
			out[k].end = e;
			k++;
			at = e;
		}
		if (at < r->end)
			svm_unmap_gpus(p, at, r->end, r->mapped);
	}
	free(v);
	free(svm->r);
	svm->r = out;
	svm->n = k;
	svm->cap = cap;
	return 0;
}

static int svm_set_attr(struct sim_process *p, uint64_t s, uint64_t e,
			const struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	struct svm_gpus g = svm_gpus_of(p);
	struct proc_maps_vma *v = NULL;
	size_t first, last;
	ssize_t nv;
	int r;

	r = svm_ranges_check_attrs(&g, at, n);
	if (r)
		return r;
	nv = svm_vmas(s, e, &v);
	if (nv < 0)
		return (int)nv;
	r = svm_covered(v, (size_t)nv, s, e);
	if (!r)
		r = svm_check_vm(p, s, e);
	if (!r)
		r = svm_ranges_set(&p->svm, s, e, at, n, &g, &first, &last);
	if (r || !svm_ranges_update_mapping(at, n))
		goto out;
	for (size_t i = first; i < last && !r; i++) {
		struct svm_range *rg = &p->svm.r[i];
		/* XNACK off: map every GPU with access now; a GPU that lost
		 * access keeps its mapping (the kernel leaves it too) */
		uint32_t want = rg->access | rg->aip;

		for (unsigned gi = 0; gi < p->sim->ngpus && !r; gi++) {
			struct sim_pdd *pdd = &p->pdd[gi];

			if (!((want | rg->mapped) & gpu_bit(pdd)))
				continue;
			/* svm_range_map_to_gpus: an unbindable device is -EINVAL */
			r = sim_pdd_bind(pdd) ? -EINVAL : 0;
			if (!r)
				r = svm_map_gpu(pdd, rg, v, (size_t)nv);
			if (!r)
				rg->mapped |= gpu_bit(pdd);
		}
	}
out:
	free(v);
	return r;
}

/* svm_range_get_attr: the same checks as SET_ATTR, then the ranges'
 * attributes intersected (svm_ranges_get). */
static int svm_get_attr(struct sim_process *p, uint64_t s, uint64_t e,
			struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	struct svm_gpus g = svm_gpus_of(p);
	struct proc_maps_vma *v;
	ssize_t nv;
	int r;

	nv = svm_vmas(s, e, &v);
	if (nv < 0)
		return (int)nv;
	r = svm_covered(v, (size_t)nv, s, e);
	free(v);
	if (!r)
		r = svm_check_vm(p, s, e);
	if (!r)
		r = svm_ranges_get(&p->svm, s, e, at, n, &g,
				   p->sim->cfg.kfd_minor >= SVM_CLR_FLAGS_MINOR);
	return r;
}

bool sim_svm_args_fit(const void *args, size_t usize)
{
	const struct kfd_ioctl_svm_args *a = args;

	/* libhsakmt sizes the ioctl for the attribute array it appends */
	return usize >= sizeof(*a) &&
	       (usize - sizeof(*a)) / sizeof(struct kfd_ioctl_svm_attribute) >= a->nattr;
}

/* kfd_ioctl_svm, svm_ioctl. A secondary process is refused first. */
int sim_ioctl_svm(struct sim_process *p, void *args)
{
	struct kfd_ioctl_svm_args *a = args;
	uint64_t s = a->start_addr, e;
	int r;

	if (p->secondary)
		return -EOPNOTSUPP;
	if ((s & (SIM_PAGE_SIZE - 1)) || (a->size & (SIM_PAGE_SIZE - 1)) || !s || !a->size)
		return -EINVAL;
	e = s + a->size;
	/* no VMA reaches past the user address space: svm_range_is_valid */
	if (e < s || e > SIM_TASK_SIZE)
		return a->op <= KFD_IOCTL_SVM_OP_GET_ATTR ? -EFAULT : -EINVAL;
	pthread_mutex_lock(&p->lock);
	r = svm_drop_unmapped(p);
	if (!r) {
		if (a->op == KFD_IOCTL_SVM_OP_SET_ATTR)
			r = svm_set_attr(p, s, e, a->attrs, a->nattr);
		else if (a->op == KFD_IOCTL_SVM_OP_GET_ATTR)
			r = svm_get_attr(p, s, e, a->attrs, a->nattr);
		else
			r = -EINVAL;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

void sim_svm_release(struct sim_process *p)
{
	svm_ranges_fini(&p->svm);
}
