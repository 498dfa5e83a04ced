/* SPDX-License-Identifier: MIT */
/*
 * Per-context object table handing out opaque 64-bit handles: low 32 bits
 * are the slot index + 1, high 32 bits the slot's generation (never 0).
 * A freed slot bumps its generation, so a stale handle never names the
 * object that later reuses the slot, and 0 is never a valid handle.
 * Not thread-safe: the owner serialises access.
 */
#ifndef VKFD_OBJ_TABLE_H
#define VKFD_OBJ_TABLE_H

#include <stdint.h>

struct obj_slot {
	uint32_t gen;
	void *ptr; /* NULL = free */
};

struct obj_table {
	struct obj_slot *slots;
	uint32_t cap;   /* slots allocated */
	uint32_t count; /* slots in use */
	uint32_t max;   /* hard limit on count */
	uint32_t free_hint;
};

void obj_table_init(struct obj_table *t, uint32_t max);
void obj_table_fini(struct obj_table *t);
/* Returns 0 and the new handle, -ENOMEM at the limit. ptr must be non-NULL. */
int obj_table_add(struct obj_table *t, void *ptr, uint64_t *handle);
/* The object named by handle, or NULL (zero, out of range, stale). */
void *obj_table_get(const struct obj_table *t, uint64_t handle);
/* Remove and return the object, or NULL if the handle is not valid. */
void *obj_table_remove(struct obj_table *t, uint64_t handle);
/* Iterate: returns the next used slot's object at index >= *pos, or NULL. */
void *obj_table_next(const struct obj_table *t, uint32_t *pos, uint64_t *handle);

#endif
