// SPDX-License-Identifier: MIT
/*
 * SVM attribute intervals (svm_ranges.h), after kfd_svm.c of 6.x kernels:
 * svm_range_add (split at the edges, defaults for new pages),
 * svm_range_apply_attrs and svm_range_get_attr.
 */
#include "svm_ranges.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t svm_ranges_lower_bound(const struct svm_ranges *t, uint64_t va)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->r[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int reserve(struct svm_ranges *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 16;
	struct svm_range *n;

	while (cap < t->n + more)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	n = realloc(t->r, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->r = n;
	t->cap = cap;
	return 0;
}

static void insert_at(struct svm_ranges *t, size_t i, const struct svm_range *r)
{
	memmove(&t->r[i + 1], &t->r[i], (t->n - i) * sizeof(t->r[0]));
	t->r[i] = *r;
	t->n++;
}

/* Split the range va falls inside (if any) at va; room reserved. */
static void split_at(struct svm_ranges *t, uint64_t va)
{
	size_t i = svm_ranges_lower_bound(t, va);
	struct svm_range tail;

	if (i == t->n || t->r[i].start >= va)
		return;
	tail = t->r[i];
	tail.start = va;
	t->r[i].end = va;
	insert_at(t, i + 1, &tail);
}

/* svm_range_set_default_attributes and svm_range_new's access */
static void defaults(const struct svm_gpus *g, struct svm_range *r)
{
	r->preferred_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	r->prefetch_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	r->flags = SVM_RANGES_DEFAULT_FLAGS;
	r->granularity = SVM_RANGES_DEFAULT_GRANULARITY;
	r->access = g->default_access;
	r->aip = 0;
	r->mapped = 0;
}

static bool loc_valid(const struct svm_gpus *g, uint32_t v)
{
	return v == KFD_IOCTL_SVM_LOCATION_SYSMEM || v == KFD_IOCTL_SVM_LOCATION_UNDEFINED ||
	       g->index(g->ctx, v) >= 0;
}

int svm_ranges_check_attrs(const struct svm_gpus *g, const struct kfd_ioctl_svm_attribute *at,
			   uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		switch (at[i].type) {
		case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
		case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
			if (!loc_valid(g, at[i].value))
				return -EINVAL;
			break;
		case KFD_IOCTL_SVM_ATTR_ACCESS:
		case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
		case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
			if (g->index(g->ctx, at[i].value) < 0)
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

bool svm_ranges_update_mapping(const struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (at[i].type != KFD_IOCTL_SVM_ATTR_PREFERRED_LOC &&
		    at[i].type != KFD_IOCTL_SVM_ATTR_PREFETCH_LOC &&
		    at[i].type != KFD_IOCTL_SVM_ATTR_GRANULARITY)
			return true;
	return false;
}

/* svm_range_apply_attrs (checked attributes) */
static void apply(const struct svm_gpus *g, struct svm_range *r,
		  const struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t bit;

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
			bit = 1u << g->index(g->ctx, at[i].value);
			r->access &= ~bit;
			r->aip &= ~bit;
			if (at[i].type == KFD_IOCTL_SVM_ATTR_ACCESS)
				r->access |= bit;
			else if (at[i].type == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE)
				r->aip |= bit;
			break;
		case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
			r->flags |= at[i].value;
			break;
		case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
			r->flags &= ~at[i].value;
			break;
		case KFD_IOCTL_SVM_ATTR_GRANULARITY:
			r->granularity = at[i].value < SVM_RANGES_MAX_GRANULARITY
					     ? at[i].value
					     : SVM_RANGES_MAX_GRANULARITY;
			break;
		default:
			break;
		}
	}
}

int svm_ranges_set(struct svm_ranges *t, uint64_t s, uint64_t e,
		   const struct kfd_ioctl_svm_attribute *at, uint32_t n, const struct svm_gpus *g,
		   size_t *first, size_t *last)
{
	size_t gaps = 0, i;

	/* room for everything first: the table never half-changes */
	for (uint64_t va = s; va < e;) {
		i = svm_ranges_lower_bound(t, va);
		if (i < t->n && t->r[i].start <= va) {
			va = t->r[i].end;
		} else {
			gaps++;
			va = i < t->n && t->r[i].start < e ? t->r[i].start : e;
		}
	}
	if (reserve(t, gaps + 2))
		return -ENOMEM;
	split_at(t, s);
	split_at(t, e);
	for (uint64_t va = s; va < e;) {
		struct svm_range nr;

		i = svm_ranges_lower_bound(t, va);
		if (i < t->n && t->r[i].start <= va) {
			va = t->r[i].end;
			continue;
		}
		defaults(g, &nr);
		nr.start = va;
		nr.end = i < t->n && t->r[i].start < e ? t->r[i].start : e;
		insert_at(t, i, &nr);
		va = nr.end;
	}
	*first = svm_ranges_lower_bound(t, s);
	for (i = *first; i < t->n && t->r[i].start < e; i++)
		apply(g, &t->r[i], at, n);
	*last = i;
	return 0;
}

/* Intersect `loc` with a range's location: one that differs between
 * ranges, or is undefined in one, is undefined. */
static void meet_loc(uint32_t v, uint32_t *loc, bool *want)
{
	if (!*want)
		return;
	if (v == KFD_IOCTL_SVM_LOCATION_UNDEFINED ||
	    (*loc != KFD_IOCTL_SVM_LOCATION_UNDEFINED && *loc != v)) {
		*loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
		*want = false;
	} else {
		*loc = v;
	}
}

int svm_ranges_get(const struct svm_ranges *t, uint64_t s, uint64_t e,
		   struct kfd_ioctl_svm_attribute *at, uint32_t n, const struct svm_gpus *g,
		   bool clr_flags)
{
	uint32_t loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED, pf = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
	uint32_t flags_and = UINT32_MAX, flags_or = 0, gran = SVM_RANGES_MAX_GRANULARITY;
	uint32_t access = UINT32_MAX, aip = UINT32_MAX;
	bool want_loc = false, want_pf = false;
	size_t i;

	for (uint32_t k = 0; k < n; k++) {
		switch (at[k].type) {
		case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
			want_loc = true;
			break;
		case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
			want_pf = true;
			break;
		case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
			if (!clr_flags)
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
	i = svm_ranges_lower_bound(t, s);
	if (i == t->n || t->r[i].start >= e) {
		struct svm_range d;

		defaults(g, &d);
		flags_and = flags_or = d.flags;
		gran = d.granularity;
		access = d.access;
		aip = 0;
	}
	for (; i < t->n && t->r[i].start < e; i++) {
		const struct svm_range *rg = &t->r[i];

		access &= rg->access;
		aip &= rg->aip;
		meet_loc(rg->preferred_loc, &loc, &want_loc);
		meet_loc(rg->prefetch_loc, &pf, &want_pf);
		flags_and &= rg->flags;
		flags_or |= rg->flags;
		if (rg->granularity < gran)
			gran = rg->granularity;
	}
	for (uint32_t k = 0; k < n; k++) {
		int gi;

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
			gi = g->index(g->ctx, at[k].value);
			if (gi < 0)
				return -EINVAL;
			at[k].type = (access >> gi) & 1u ? KFD_IOCTL_SVM_ATTR_ACCESS
				     : (aip >> gi) & 1u  ? KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE
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

int svm_ranges_remove(struct svm_ranges *t, uint64_t s, uint64_t e)
{
	size_t i, j;

	if (s >= e || reserve(t, 2))
		return s >= e ? 0 : -ENOMEM;
	split_at(t, s);
	split_at(t, e);
	i = svm_ranges_lower_bound(t, s);
	for (j = i; j < t->n && t->r[j].start < e; j++)
		;
	memmove(&t->r[i], &t->r[j], (t->n - j) * sizeof(t->r[0]));
	t->n -= j - i;
	return 0;
}

void svm_ranges_fini(struct svm_ranges *t)
{
	free(t->r);
	t->r = NULL;
	t->n = t->cap = 0;
}
