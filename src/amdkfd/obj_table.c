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

int obj_table_add(struct obj_table *t, void *ptr, uint64_t *handle)
{
	uint32_t idx;

	if (!ptr || t->count >= t->max)
		return -ENOMEM;
	if (t->count == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 16;
		struct obj_slot *n;

		if (ncap > t->max)
			ncap = t->max;
		n = realloc(t->slots, (size_t)ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + t->cap, 0, (size_t)(ncap - t->cap) * sizeof(*n));
		t->slots = n;
		t->free_hint = t->cap;
		t->cap = ncap;
	}
	idx = t->free_hint < t->cap ? t->free_hint : 0;
	while (t->slots[idx].ptr)
		idx = (idx + 1) % t->cap;
	if (t->slots[idx].gen == 0)
		t->slots[idx].gen = 1;
	t->slots[idx].ptr = ptr;
	t->count++;
	t->free_hint = (idx + 1) % t->cap;
	*handle = make_handle(idx, t->slots[idx].gen);
	return 0;
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
