/* SPDX-License-Identifier: MIT */
/*
 * Timeline sync objects of one vtest client (SYNC_CREATE/READ/WRITE/UNREF/
 * WAIT): a u64 value per sync, and waits that make an eventfd readable once
 * their syncs reach the requested values.
 */
#ifndef VKFD_VTEST_SYNC_H
#define VKFD_VTEST_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#define VSYNC_MAX_SYNCS        4096
#define VSYNC_MAX_WAITS        1024
#define VSYNC_MAX_WAIT_ENTRIES 64

struct vsync_table;

struct vsync_table *vsync_table_create(void);
/* Frees everything, closing every pending wait's eventfd. */
void vsync_table_destroy(struct vsync_table *t);

/* 0, -ENOSPC (too many syncs) or -ENOMEM. Ids are never reused. */
int vsync_create(struct vsync_table *t, uint64_t value, uint32_t *id);
int vsync_unref(struct vsync_table *t, uint32_t id); /* -ENOENT */
bool vsync_exists(const struct vsync_table *t, uint32_t id);
int vsync_read(const struct vsync_table *t, uint32_t id, uint64_t *value);
/* Set the value (may go backwards, as vtest's SYNC_WRITE). */
int vsync_write(struct vsync_table *t, uint32_t id, uint64_t value);
/* Raise the value to at least `value` (fence retirement). A sync that is
 * gone is ignored. */
void vsync_signal(struct vsync_table *t, uint32_t id, uint64_t value);

/* A wait on n (id, value) pairs: all of them, or any with VTW_SYNC_WAIT_FLAG_ANY.
 * Returns an eventfd (readable once satisfied) or -errno (-ENOENT unknown
 * sync, -EINVAL bad count, -ENOSPC too many waits). *keep is true when the
 * table keeps the fd to signal later (the caller must not close it);
 * otherwise the caller owns and closes it after sending. timeout_ms 0 never
 * keeps; a kept wait is dropped after its timeout (negative: never). */
int vsync_wait(struct vsync_table *t, uint32_t flags, int32_t timeout_ms, const uint32_t *triples,
	       uint32_t n, bool *keep);
/* Pending waits (for tests and limits). */
unsigned vsync_pending_waits(const struct vsync_table *t);

#endif
