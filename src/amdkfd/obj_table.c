// SPDX-License-Identifier: MIT
#include "obj_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void obj_table_init(struct obj_table *t, uint32_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max ? max : (1u << 20);
}

void obj_table_fini(struct obj_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static uint64_t make_handle(uint32_t idx, uint32_t gen)
{
	return ((uint64_t)gen << 32) | (uint64_t)(idx + 1);
}

static int grow_to(struct obj_table *t, uint32_t n);

int obj_table_add(struct obj_table *t, void *ptr, uint64_t *handle)
{
	uint32_t idx;

	if (!ptr || t->count >= t->max)
		return -ENOMEM;
	if (t->count == t->cap) {
		uint32_t old = t->cap;

		if (grow_to(t, old + 1))
			return -ENOMEM;
		t->free_hint = old;
	}
	idx = t->free_hint < t->cap ? t->free_hint : 0;
	while (t->slots[idx].ptr || t->slots[idx].err)
		idx = (idx + 1) % t->cap;
	if (t->slots[idx].gen == 0)
		t->slots[idx].gen = 1;
	t->slots[idx].ptr = ptr;
	t->count++;
	t->free_hint = (idx + 1) % t->cap;
	*handle = make_handle(idx, t->slots[idx].gen);
	return 0;
}

/* Grow the slot array to hold at least n slots (n <= max). */
static int grow_to(struct obj_table *t, uint32_t n)
{
	uint32_t ncap = t->cap ? t->cap : 16;
	struct obj_slot *s;

	if (n <= t->cap)
		return 0;
	while (ncap < n)
		ncap = ncap > UINT32_MAX / 2 ? UINT32_MAX : ncap * 2;
	if (ncap > t->max)
		ncap = t->max;
	s = realloc(t->slots, (size_t)ncap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s + t->cap, 0, (size_t)(ncap - t->cap) * sizeof(*s));
	t->slots = s;
	t->cap = ncap;
	return 0;
}

uint32_t obj_table_next_gen(const struct obj_table *t, uint32_t index)
{
	uint32_t gen = index >= 1 && index <= t->cap ? t->slots[index - 1].gen : 0;

	return gen ? gen : 1;
}

bool obj_table_can_add_at(const struct obj_table *t, uint64_t handle)
{
	uint32_t idx = (uint32_t)handle, gen = (uint32_t)(handle >> 32);

	if (idx == 0 || idx > t->max || gen == 0 || t->count >= t->max)
		return false;
	if (idx <= t->cap && (t->slots[idx - 1].ptr || t->slots[idx - 1].err))
		return false;
	return gen == obj_table_next_gen(t, idx);
}

static int claim_at(struct obj_table *t, uint64_t handle)
{
	uint32_t idx = (uint32_t)handle;
	int ret;

	if (!obj_table_can_add_at(t, handle))
		return -EINVAL;
	ret = grow_to(t, idx);
	if (ret)
		return ret;
	t->slots[idx - 1].gen = (uint32_t)(handle >> 32);
	t->count++;
	return 0;
}

int obj_table_add_at(struct obj_table *t, uint64_t handle, void *ptr)
{
	int ret;

	if (!ptr)
		return -EINVAL;
	ret = claim_at(t, handle);
	if (!ret)
		t->slots[(uint32_t)handle - 1].ptr = ptr;
	return ret;
}

int obj_table_set_error(struct obj_table *t, uint64_t handle, int err)
{
	int ret;

	if (err >= 0)
		return -EINVAL;
	ret = claim_at(t, handle);
	if (!ret)
		t->slots[(uint32_t)handle - 1].err = err;
	return ret;
}

static struct obj_slot *error_slot(const struct obj_table *t, uint64_t handle)
{
	uint32_t idx = (uint32_t)handle, gen = (uint32_t)(handle >> 32);
	struct obj_slot *s;

	if (idx == 0 || gen == 0 || idx > t->cap)
		return NULL;
	s = &t->slots[idx - 1];
	return !s->ptr && s->err && s->gen == gen ? s : NULL;
}

int obj_table_error(const struct obj_table *t, uint64_t handle)
{
	const struct obj_slot *s = error_slot(t, handle);

	return s ? s->err : 0;
}

bool obj_table_clear_error(struct obj_table *t, uint64_t handle)
{
	struct obj_slot *s = error_slot(t, handle);

	if (!s)
		return false;
	s->err = 0;
	if (++s->gen == 0)
		s->gen = 1;
	t->count--;
	return true;
}

static struct obj_slot *lookup(const struct obj_table *t, uint64_t handle)
{
	uint32_t lo = (uint32_t)handle, gen = (uint32_t)(handle >> 32);
	struct obj_slot *s;

	if (lo == 0 || gen == 0 || lo > t->cap)
		return NULL;
	s = &t->slots[lo - 1];
	if (!s->ptr || s->gen != gen)
		return NULL;
	return s;
}

void *obj_table_get(const struct obj_table *t, uint64_t handle)
{
	struct obj_slot *s = lookup(t, handle);

	return s ? s->ptr : NULL;
}

void *obj_table_remove(struct obj_table *t, uint64_t handle)
{
	struct obj_slot *s = lookup(t, handle);
	void *ptr;

	if (!s)
		return NULL;
	ptr = s->ptr;
	s->ptr = NULL;
	/* skip 0 so that a handle is never 0 */
	if (++s->gen == 0)
		s->gen = 1;
	t->count--;
	return ptr;
}

void *obj_table_next(const struct obj_table *t, uint32_t *pos, uint64_t *handle)
{
	for (uint32_t i = *pos; i < t->cap; i++) {
		if (t->slots[i].ptr) {
			*pos = i + 1;
			if (handle)
				*handle = make_handle(i, t->slots[i].gen);
			return t->slots[i].ptr;
		}
	}
	*pos = t->cap;
	return NULL;
}
