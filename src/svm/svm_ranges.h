/* SPDX-License-Identifier: MIT */
/*
 * SVM attribute intervals (AMDKFD_IOC_SVM, KFD 1.5) as amdkfd keeps them
 * for a process with XNACK off: a sorted, non-overlapping table of ranges,
 * each with its own attributes. SET_ATTR splits ranges at the request's
 * edges, gives pages no range covers the defaults and applies the
 * attributes in order; GET_ATTR intersects the ranges of a request; a CPU
 * unmap removes pages. No I/O, no mapping, no locking: the caller owns
 * the table and does the rest. Shared by kfdsim (src/kfdsim/svm.c, which
 * maps the CPU pages themselves) and the guest's vkfd backend
 * (backend_vkfd_svm.c, which backs them with host BOs), so both answer
 * alike (docs/kfdsim.md and docs/guest-vkfd-backend.md, "SVM").
 */
#ifndef VKFD_SVM_RANGES_H
#define VKFD_SVM_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfd_uapi_ext.h"

#define SVM_RANGES_DEFAULT_FLAGS       (KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT)
#define SVM_RANGES_DEFAULT_GRANULARITY 9u    /* svm_default_granularity: 2 MiB */
#define SVM_RANGES_MAX_GRANULARITY     0x3fu /* svm_range_apply_attrs clamps to it */

/* One interval; access, aip and mapped are bit masks of GPU indices. */
struct svm_range {
	uint64_t start, end;
	uint32_t preferred_loc, prefetch_loc, flags, granularity;
	uint32_t access, aip; /* ACCESS, ACCESS_IN_PLACE */
	uint32_t mapped;      /* the owner's: GPUs whose VM maps it (0 when new) */
};

struct svm_ranges {
	struct svm_range *r; /* sorted by start, no overlap */
	size_t n, cap;
};

/* The GPUs of the process: index of a gpu_id (< 32), or -1. */
struct svm_gpus {
	int (*index)(void *ctx, uint32_t gpu_id);
	void *ctx;
	uint32_t default_access; /* mask new pages get: 0 with XNACK off */
};

/* svm_range_check_attr: 0 or -EINVAL. */
int svm_ranges_check_attrs(const struct svm_gpus *g, const struct kfd_ioctl_svm_attribute *at,
			   uint32_t n);
/* Does the request name access or flags (the kernel then maps the range
 * on its GPUs), not only locations or granularity? */
bool svm_ranges_update_mapping(const struct kfd_ioctl_svm_attribute *at, uint32_t n);
/* SET_ATTR on [s, e) (attributes already checked): *first..*last are the
 * indices of the ranges now covering it exactly. 0 or -ENOMEM (the table
 * is unchanged then). */
int svm_ranges_set(struct svm_ranges *t, uint64_t s, uint64_t e,
		   const struct kfd_ioctl_svm_attribute *at, uint32_t n, const struct svm_gpus *g,
		   size_t *first, size_t *last);
/* GET_ATTR on [s, e): the attributes rewritten in place. clr_flags:
 * the KFD reports CLR_FLAGS (1.6); -EINVAL for a bad attribute. */
int svm_ranges_get(const struct svm_ranges *t, uint64_t s, uint64_t e,
		   struct kfd_ioctl_svm_attribute *at, uint32_t n, const struct svm_gpus *g,
		   bool clr_flags);
/* The pages [s, e) leave the table (a CPU unmap). 0 or -ENOMEM. */
int svm_ranges_remove(struct svm_ranges *t, uint64_t s, uint64_t e);
/* Index of the first range ending above va. */
size_t svm_ranges_lower_bound(const struct svm_ranges *t, uint64_t va);
void svm_ranges_fini(struct svm_ranges *t);

#endif
