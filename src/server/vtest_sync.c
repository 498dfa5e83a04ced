// SPDX-License-Identifier: MIT
#include "vtest_sync.h"
#include "vtest_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct vsync {
	uint32_t id;
	uint64_t value;
};

struct vsync_wait_entry {
	uint32_t id;
	uint64_t value;
};

struct vsync_wait {
	int fd;
	uint32_t flags;
	uint64_t deadline_ns; /* 0: none */
	uint32_t n;
	struct vsync_wait_entry e[VSYNC_MAX_WAIT_ENTRIES];
};

struct vsync_table {
	struct vsync *syncs;
	uint32_t nsyncs, cap;
	uint32_t next_id;
	struct vsync_wait *waits[VSYNC_MAX_WAITS];
	uint32_t nwaits;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct vsync_table *vsync_table_create(void)
{
	struct vsync_table *t = calloc(1, sizeof(*t));

	if (t)
		t->next_id = 1;
	return t;
}

static void drop_wait(struct vsync_table *t, uint32_t i)
{
	close(t->waits[i]->fd);
	free(t->waits[i]);
	t->waits[i] = t->waits[--t->nwaits];
	t->waits[t->nwaits] = NULL;
}

void vsync_table_destroy(struct vsync_table *t)
{
	if (!t)
		return;
	while (t->nwaits)
		drop_wait(t, t->nwaits - 1);
	free(t->syncs);
	free(t);
}

static struct vsync *find(const struct vsync_table *t, uint32_t id)
{
	for (uint32_t i = 0; i < t->nsyncs; i++)
		if (t->syncs[i].id == id)
			return &t->syncs[i];
	return NULL;
}

int vsync_create(struct vsync_table *t, uint64_t value, uint32_t *id)
{
	if (t->nsyncs >= VSYNC_MAX_SYNCS || t->next_id == 0)
		return -ENOSPC;
	if (t->nsyncs == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct vsync *s = realloc(t->syncs, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		t->syncs = s;
		t->cap = cap;
	}
	t->syncs[t->nsyncs].id = t->next_id++;
	t->syncs[t->nsyncs].value = value;
	*id = t->syncs[t->nsyncs++].id;
	return 0;
}

int vsync_unref(struct vsync_table *t, uint32_t id)
{
	struct vsync *s = find(t, id);

	if (!s)
		return -ENOENT;
	*s = t->syncs[--t->nsyncs];
	return 0;
}

bool vsync_exists(const struct vsync_table *t, uint32_t id)
{
	return find(t, id) != NULL;
}

int vsync_read(const struct vsync_table *t, uint32_t id, uint64_t *value)
{
	const struct vsync *s = find(t, id);

	if (!s)
		return -ENOENT;
	*value = s->value;
	return 0;
}

static bool wait_ready(const struct vsync_table *t, const struct vsync_wait *w)
{
	bool any = w->flags & VTW_SYNC_WAIT_FLAG_ANY;
	uint32_t done = 0;

	for (uint32_t i = 0; i < w->n; i++) {
		const struct vsync *s = find(t, w->e[i].id);

		if (s && s->value >= w->e[i].value)
			done++;
	}
	return any ? done > 0 : done == w->n;
}

static void fire(int fd)
{
	uint64_t one = 1;
	ssize_t r = write(fd, &one, sizeof(one));
	(void)r;
}

/* Fire and drop satisfied waits, drop expired ones. */
static void check_waits(struct vsync_table *t)
{
	uint64_t now = 0;

	for (uint32_t i = 0; i < t->nwaits;) {
		struct vsync_wait *w = t->waits[i];

		if (wait_ready(t, w)) {
			fire(w->fd);
			drop_wait(t, i);
			continue;
		}
		if (w->deadline_ns) {
			if (!now)
				now = now_ns();
			if (now >= w->deadline_ns) {
				drop_wait(t, i);
				continue;
			}
		}
		i++;
	}
}

int vsync_write(struct vsync_table *t, uint32_t id, uint64_t value)
{
	struct vsync *s = find(t, id);

	if (!s)
		return -ENOENT;
	s->value = value;
	check_waits(t);
	return 0;
}

void vsync_signal(struct vsync_table *t, uint32_t id, uint64_t value)
{
	struct vsync *s = find(t, id);

	if (!s || s->value >= value)
		return;
	s->value = value;
	check_waits(t);
}

int vsync_wait(struct vsync_table *t, uint32_t flags, int32_t timeout_ms, const uint32_t *triples,
	       uint32_t n, bool *keep)
{
	struct vsync_wait *w;

	*keep = false;
	if (n == 0 || n > VSYNC_MAX_WAIT_ENTRIES || (flags & ~VTW_SYNC_WAIT_FLAG_ANY))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->flags = flags;
	w->n = n;
	for (uint32_t i = 0; i < n; i++) {
		w->e[i].id = triples[3 * i];
		w->e[i].value = triples[3 * i + 1] | (uint64_t)triples[3 * i + 2] << 32;
		if (!find(t, w->e[i].id)) {
			free(w);
			return -ENOENT;
		}
	}
	w->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->fd < 0) {
		int e = -errno;

		free(w);
		return e;
	}
	int fd = w->fd;

	if (wait_ready(t, w)) {
		fire(fd);
		free(w);
		return fd;
	}
	if (timeout_ms == 0) {
		free(w);
		return fd;
	}
	check_waits(t); /* sweep expired waits before counting */
	if (t->nwaits >= VSYNC_MAX_WAITS) {
		close(fd);
		free(w);
		return -ENOSPC;
	}
	if (timeout_ms > 0)
		w->deadline_ns = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	t->waits[t->nwaits++] = w;
	*keep = true;
	return fd;
}

unsigned vsync_pending_waits(const struct vsync_table *t)
{
	return t->nwaits;
}
