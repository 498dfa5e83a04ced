// SPDX-License-Identifier: MIT
#include "va_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void va_map_init(struct va_map *m)
{
	memset(m, 0, sizeof(*m));
}

void va_map_fini(struct va_map *m)
{
	free(m->r);
	memset(m, 0, sizeof(*m));
}

/* index of the first range whose end > addr */
static size_t lower_bound(const struct va_map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int va_map_insert(struct va_map *m, uint64_t start, uint64_t size, void *owner)
{
	uint64_t end = start + size;
	size_t i;

	if (size == 0 || end < start)
		return -EINVAL;
	i = lower_bound(m, start);
	if (i < m->n && m->r[i].start < end)
		return -EADDRINUSE;
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 32;
		struct va_range *n = realloc(m->r, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->r = n;
		m->cap = ncap;
	}
	memmove(&m->r[i + 1], &m->r[i], (m->n - i) * sizeof(*m->r));
	m->r[i] = (struct va_range){.start = start, .end = end, .owner = owner};
	m->n++;
	return 0;
}

bool va_map_overlaps(const struct va_map *m, uint64_t start, uint64_t size)
{
	size_t i;

	if (size == 0 || start + size < start)
		return true;
	i = lower_bound(m, start);
	return i < m->n && m->r[i].start < start + size;
}

int va_map_remove(struct va_map *m, uint64_t start, void *owner)
{
	size_t i = lower_bound(m, start);

	if (i >= m->n || m->r[i].start != start || m->r[i].owner != owner)
		return -ENOENT;
	memmove(&m->r[i], &m->r[i + 1], (m->n - i - 1) * sizeof(*m->r));
	m->n--;
	return 0;
}

const struct va_range *va_map_find(const struct va_map *m, uint64_t addr, uint64_t size)
{
	size_t i;

	if (size == 0 || addr + size < addr)
		return NULL;
	i = lower_bound(m, addr);
	if (i >= m->n || m->r[i].start > addr || m->r[i].end < addr + size)
		return NULL;
	return &m->r[i];
}
