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

#include <stdbool.h>
#include <stdint.h>

struct obj_slot {
	uint32_t gen;
	int32_t err; /* ptr NULL: a deferred error the handle carries, 0 = free */
	void *ptr;   /* NULL = no object */
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
/* Add at a caller-chosen handle (protocol 1.1 guest-chosen handles): the
 * index must be 1..max, its slot free (no object, no deferred error) and
 * the generation the slot's next one (obj_table_next_gen). -EINVAL
 * otherwise, -ENOMEM when the table cannot grow. */
int obj_table_add_at(struct obj_table *t, uint64_t handle, void *ptr);
/* Generation the next object at index (1-based) will get. */
uint32_t obj_table_next_gen(const struct obj_table *t, uint32_t index);
/* Is handle free to be added with obj_table_add_at? */
bool obj_table_can_add_at(const struct obj_table *t, uint64_t handle);
/* Make a free handle carry a deferred error (err < 0) instead of an object:
 * it occupies its slot until obj_table_clear_error. 0 or -EINVAL. */
int obj_table_set_error(struct obj_table *t, uint64_t handle, int err);
/* The deferred error handle carries, or 0. */
int obj_table_error(const struct obj_table *t, uint64_t handle);
/* Free the slot of a handle carrying a deferred error; true if it did. */
bool obj_table_clear_error(struct obj_table *t, uint64_t handle);
/* The object named by handle, or NULL (zero, out of range, stale). */
void *obj_table_get(const struct obj_table *t, uint64_t handle);
/* Remove and return the object, or NULL if the handle is not valid. */
void *obj_table_remove(struct obj_table *t, uint64_t handle);
/* Iterate: returns the next used slot's object at index >= *pos, or NULL. */
void *obj_table_next(const struct obj_table *t, uint32_t *pos, uint64_t *handle);

#endif
