/* SPDX-License-Identifier: MIT */
/*
 * The GPU VA ranges a context has allocated: half-open intervals
 * [start, end) kept sorted, never overlapping. Used to refuse overlapping
 * allocations before the device sees them and to check that queue
 * addresses lie inside the context's own mapped memory.
 * Not thread-safe: the owner serialises access.
 */
#ifndef VKFD_VA_MAP_H
#define VKFD_VA_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct va_range {
	uint64_t start, end;
	void *owner;
};

struct va_map {
	struct va_range *r;
	size_t n, cap;
};

void va_map_init(struct va_map *m);
void va_map_fini(struct va_map *m);
/* 0, -EINVAL (empty or wrapping), -EADDRINUSE (overlap), -ENOMEM. */
int va_map_insert(struct va_map *m, uint64_t start, uint64_t size, void *owner);
/* Does [start, start + size) intersect any range? (wrapping ranges do) */
bool va_map_overlaps(const struct va_map *m, uint64_t start, uint64_t size);
/* Remove the range that starts exactly at start and belongs to owner. */
int va_map_remove(struct va_map *m, uint64_t start, void *owner);
/* The range containing [addr, addr + size) entirely, or NULL. */
const struct va_range *va_map_find(const struct va_map *m, uint64_t addr, uint64_t size);

#endif
