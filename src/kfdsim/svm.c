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
 * (docs/kfdsim.md, "SVM").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

#define SVM_DEFAULT_FLAGS       (KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT)
#define SVM_DEFAULT_GRANULARITY 9u    /* the svm_default_granularity parameter: 2 MiB */
#define SVM_MAX_GRANULARITY     0x3fu /* apply_attrs clamps to it */
#define SVM_CLR_FLAGS_MINOR     6     /* 1.6: GET_ATTR reports CLR_FLAGS */

/* One CPU mapping (a line of /proc/self/maps). */
struct svm_vma {
	uint64_t start, end;
	bool writable;
};

/* The CPU mappings that overlap [s, e), in address order, in *out
 * (malloc'ed); returns their number or -errno. Without /proc the range
 * cannot be checked: -EFAULT. */
static ssize_t svm_vmas(uint64_t s, uint64_t e, struct svm_vma **out)
{
	FILE *f = fopen("/proc/self/maps", "re");
	struct svm_vma *v = NULL;
	size_t n = 0, cap = 0;
	char line[512];

	*out = NULL;
	if (!f)
		return -EFAULT;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b;
		char perms[5];
		size_t len = strlen(line);

		/* a long path: the rest of the line is not needed */
		if (len && line[len - 1] != '\n') {
			char rest[256];

			while (fgets(rest, sizeof(rest), f) && rest[strlen(rest) - 1] != '\n')
				;
		}
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", &a, &b, perms) != 3)
			continue;
		if (b <= s || a >= e)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			struct svm_vma *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[n].start = a;
		v[n].end = b;
		v[n].writable = perms[1] == 'w';
		n++;
	}
	fclose(f);
	*out = v;
	return (ssize_t)n;
}

/* svm_range_is_valid: every page of [s, e) lies in a CPU mapping. */
static int svm_covered(const struct svm_vma *v, size_t n, uint64_t s, uint64_t e)
{
	uint64_t at = s;

	for (size_t i = 0; i < n && at < e; i++) {
		if (v[i].start > at)
			return -EFAULT;
		if (v[i].end > at)
			at = v[i].end;
	}
	return at >= e ? 0 : -EFAULT;
}

static uint32_t gpu_bit(const struct sim_pdd *pdd)
{
	return 1u << pdd->gpu->index;
}

/* Location values: system memory, undefined, or a GPU of the process. */
static bool svm_loc_valid(struct sim_process *p, uint32_t v)
{
	return v == KFD_IOCTL_SVM_LOCATION_SYSMEM || v == KFD_IOCTL_SVM_LOCATION_UNDEFINED ||
	       sim_pdd_by_id(p, v) != NULL;
}

/* svm_range_check_attr */
static int svm_check_attrs(struct sim_process *p, const struct kfd_ioctl_svm_attribute *at,
			   uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		switch (at[i].type) {
		case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
		case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
			if (!svm_loc_valid(p, at[i].value))
				return -EINVAL;
			break;
		case KFD_IOCTL_SVM_ATTR_ACCESS:
		case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
		case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
			if (!sim_pdd_by_id(p, at[i].value))
				return -EINVAL;
			break;
		case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
		case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
		case KFD_IOCTL_SVM_ATTR_GRANULARITY:
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
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

/* Index of the first range ending above va. */
static size_t svm_lower_bound(const struct sim_svm *svm, uint64_t va)
{
	size_t lo = 0, hi = svm->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (svm->r[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int svm_reserve(struct sim_svm *svm, size_t more)
{
	size_t cap = svm->cap ? svm->cap : 16;
	struct sim_svm_range *n;

	while (cap < svm->n + more)
		cap *= 2;
	if (cap == svm->cap)
		return 0;
	n = realloc(svm->r, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	svm->r = n;
	svm->cap = cap;
	return 0;
}

static void svm_insert_at(struct sim_svm *svm, size_t i, const struct sim_svm_range *r)
{
	memmove(&svm->r[i + 1], &svm->r[i], (svm->n - i) * sizeof(svm->r[0]));
	svm->r[i] = *r;
	svm->n++;
}

/* Split the range containing va (if va falls inside one) in two at va;
 * room for one more range must have been reserved. */
static void svm_split_at(struct sim_svm *svm, uint64_t va)
{
	size_t i = svm_lower_bound(svm, va);
	struct sim_svm_range tail;

	if (i == svm->n || svm->r[i].start >= va)
		return;
	tail = svm->r[i];
	tail.start = va;
	svm->r[i].end = va;
	svm_insert_at(svm, i + 1, &tail);
}

/* The attributes of a page no SET_ATTR has named yet
 * (svm_range_set_default_attributes, and svm_range_new's access: every
 * GPU with XNACK on, none with it off). */
static void svm_defaults(struct sim_process *p, struct sim_svm_range *r)
{
	r->preferred_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	r->prefetch_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	r->flags = SVM_DEFAULT_FLAGS;
	r->granularity = SVM_DEFAULT_GRANULARITY;
	r->access = p->xnack > 0 ? (1u << p->sim->ngpus) - 1 : 0;
	r->aip = 0;
	r->mapped = 0;
}

/* svm_range_apply_attrs */
static void svm_apply(struct sim_process *p, struct sim_svm_range *r,
		      const struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sim_pdd *pdd;

		switch (at[i].type) {
		case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
			r->preferred_loc = at[i].value;
			break;
		case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
			r->prefetch_loc = at[i].value;
			break;
		case KFD_IOCTL_SVM_ATTR_ACCESS:
		case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
		case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
			pdd = sim_pdd_by_id(p, at[i].value);
			r->access &= ~gpu_bit(pdd);
			r->aip &= ~gpu_bit(pdd);
			if (at[i].type == KFD_IOCTL_SVM_ATTR_ACCESS)
				r->access |= gpu_bit(pdd);
			else if (at[i].type == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE)
				r->aip |= gpu_bit(pdd);
			break;
		case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
			r->flags |= at[i].value;
			break;
		case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
			r->flags &= ~at[i].value;
			break;
		case KFD_IOCTL_SVM_ATTR_GRANULARITY:
			r->granularity =
			    at[i].value < SVM_MAX_GRANULARITY ? at[i].value : SVM_MAX_GRANULARITY;
			break;
		default:
			break; /* refused by svm_check_attrs */
		}
	}
}

/* svm_range_apply_attrs' update_mapping: access and flags change the GPU
 * mappings; locations and granularity alone do not (no migration here). */
static bool svm_updates_mapping(const struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (at[i].type != KFD_IOCTL_SVM_ATTR_PREFERRED_LOC &&
		    at[i].type != KFD_IOCTL_SVM_ATTR_PREFETCH_LOC &&
		    at[i].type != KFD_IOCTL_SVM_ATTR_GRANULARITY)
			return true;
	return false;
}

/* (Re)write the GPU mappings of range r in pdd's VM: the CPU
 * pages at the same address, one mapping per CPU mapping so each gets
 * its own write permission (svm_range_validate_and_map maps read-only
 * what the CPU may not write). */
static int svm_map_gpu(struct sim_pdd *pdd, const struct sim_svm_range *r, const struct svm_vma *v,
		       size_t nv)
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
		    .writable = v[i].writable && !(r->flags & KFD_IOCTL_SVM_FLAG_GPU_RO),
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
	struct sim_svm *svm = &p->svm;
	struct sim_svm_range *out;
	struct svm_vma *v;
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
		struct sim_svm_range *r = &svm->r[i];
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
	struct sim_svm *svm = &p->svm;
	struct svm_vma *v = NULL;
	ssize_t nv;
	size_t i;
	int r;

	r = svm_check_attrs(p, at, n);
	if (r)
		return r;
	nv = svm_vmas(s, e, &v);
	if (nv < 0)
		return (int)nv;
	r = svm_covered(v, (size_t)nv, s, e);
	if (!r)
		r = svm_check_vm(p, s, e);
	if (r)
		goto out;
	/* the edges may split two ranges, and every gap needs one */
	r = svm_reserve(svm, 2);
	if (r)
		goto out;
	svm_split_at(svm, s);
	svm_split_at(svm, e);
	for (uint64_t at_va = s; at_va < e;) {
		i = svm_lower_bound(svm, at_va);
		if (i < svm->n && svm->r[i].start <= at_va) {
			at_va = svm->r[i].end;
			continue;
		}
		{
			struct sim_svm_range nr;

			r = svm_reserve(svm, 1);
			if (r)
				goto out;
			svm_defaults(p, &nr);
			nr.start = at_va;
			nr.end = i < svm->n && svm->r[i].start < e ? svm->r[i].start : e;
			svm_insert_at(svm, i, &nr);
			at_va = nr.end;
		}
	}
	for (i = svm_lower_bound(svm, s); i < svm->n && svm->r[i].start < e; i++) {
		struct sim_svm_range *rg = &svm->r[i];
		uint32_t want;

		svm_apply(p, rg, at, n);
		if (!svm_updates_mapping(at, n))
			continue;
		/* XNACK off: map every GPU with access now; a GPU that lost
		 * access keeps its mapping (the kernel leaves it too) */
		want = rg->access | rg->aip;
		for (unsigned g = 0; g < p->sim->ngpus && !r; g++) {
			struct sim_pdd *pdd = &p->pdd[g];

			if (!((want | rg->mapped) & gpu_bit(pdd)))
				continue;
			/* svm_range_map_to_gpus: an unbindable device is -EINVAL */
			r = sim_pdd_bind(pdd) ? -EINVAL : 0;
			if (!r)
				r = svm_map_gpu(pdd, rg, v, (size_t)nv);
			if (!r)
				rg->mapped |= gpu_bit(pdd);
		}
		if (r)
			break;
	}
out:
	free(v);
	return r;
}

/* What GET_ATTR reports for a page no range covers
 * (svm_range_get_attr's "not found" values). */
static int svm_get_attr(struct sim_process *p, uint64_t s, uint64_t e,
			struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	struct sim_svm *svm = &p->svm;
	uint32_t all = (1u << p->sim->ngpus) - 1;
	uint32_t loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED, pf = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	uint32_t flags_and = UINT32_MAX, flags_or = 0, gran = SVM_MAX_GRANULARITY;
	uint32_t access = all, aip = all;
	bool want_loc = false, want_pf = false;
	struct svm_vma *v;
	ssize_t nv;
	size_t i;
	int r;

	for (uint32_t k = 0; k < n; k++) {
		switch (at[k].type) {
		case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
			want_loc = true;
			break;
		case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
			want_pf = true;
			break;
		case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
			if (p->sim->cfg.kfd_minor < SVM_CLR_FLAGS_MINOR)
				return -EINVAL;
			break;
		case KFD_IOCTL_SVM_ATTR_ACCESS:
		case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
		case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
		case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
		case KFD_IOCTL_SVM_ATTR_GRANULARITY:
			break;
		default:
			return -EINVAL;
		}
	}
	nv = svm_vmas(s, e, &v);
	if (nv < 0)
		return (int)nv;
	r = svm_covered(v, (size_t)nv, s, e);
	free(v);
	if (!r)
		r = svm_check_vm(p, s, e);
	if (r)
		return r;
	i = svm_lower_bound(svm, s);
	if (i == svm->n || svm->r[i].start >= e) {
		struct sim_svm_range d;

		svm_defaults(p, &d);
		flags_and = flags_or = d.flags;
		gran = d.granularity;
		access = d.access;
		aip = 0;
	}
	for (; i < svm->n && svm->r[i].start < e; i++) {
		const struct sim_svm_range *rg = &svm->r[i];

		access &= rg->access;
		aip &= rg->aip;
		/* a location differing between ranges is undefined */
		if (want_loc) {
			if (rg->preferred_loc == KFD_IOCTL_SVM_LOCATION_UNDEFINED ||
			    (loc != KFD_IOCTL_SVM_LOCATION_UNDEFINED && loc != rg->preferred_loc)) {
				loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
				want_loc = false;
			} else {
				loc = rg->preferred_loc;
			}
		}
		if (want_pf) {
			if (rg->prefetch_loc == KFD_IOCTL_SVM_LOCATION_UNDEFINED ||
			    (pf != KFD_IOCTL_SVM_LOCATION_UNDEFINED && pf != rg->prefetch_loc)) {
				pf = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
				want_pf = false;
			} else {
				pf = rg->prefetch_loc;
			}
		}
		flags_and &= rg->flags;
		flags_or |= rg->flags;
		if (rg->granularity < gran)
			gran = rg->granularity;
	}
	for (uint32_t k = 0; k < n; k++) {
		struct sim_pdd *pdd;

		switch (at[k].type) {
		case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
			at[k].value = loc;
			break;
		case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
			at[k].value = pf;
			break;
		case KFD_IOCTL_SVM_ATTR_ACCESS:
		case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
		case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
			pdd = sim_pdd_by_id(p, at[k].value);
			if (!pdd)
				return -EINVAL;
			at[k].type = (access & gpu_bit(pdd)) ? KFD_IOCTL_SVM_ATTR_ACCESS
				     : (aip & gpu_bit(pdd))  ? KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE
							     : KFD_IOCTL_SVM_ATTR_NO_ACCESS;
			break;
		case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
			at[k].value = flags_and;
			break;
		case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
			at[k].value = ~flags_or;
			break;
		case KFD_IOCTL_SVM_ATTR_GRANULARITY:
			at[k].value = gran;
			break;
		default:
			break;
		}
	}
	return 0;
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
	free(p->svm.r);
	p->svm.r = NULL;
	p->svm.n = p->svm.cap = 0;
}
