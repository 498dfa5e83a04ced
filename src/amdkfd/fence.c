// SPDX-License-Identifier: MIT
#include "fence.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

int fence_state_init(struct fence_state *fs, bool async, vkfd_fence_retire_fn cb, void *cookie,
		     uint32_t ctx_id)
{
	memset(fs, 0, sizeof(*fs));
	fs->async = async;
	fs->cb = cb;
	fs->cookie = cookie;
	fs->ctx_id = ctx_id;
	fs->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fs->efd < 0)
		return -errno;
	pthread_mutex_init(&fs->lock, NULL);
	pthread_mutex_init(&fs->retire_lock, NULL);
	return 0;
}

void fence_state_fini(struct fence_state *fs)
{
	for (int i = 0; i < FENCE_RING_COUNT; i++)
		free(fs->rings[i].q);
	free(fs->ready);
	if (fs->efd >= 0)
		close(fs->efd);
	pthread_mutex_destroy(&fs->lock);
	pthread_mutex_destroy(&fs->retire_lock);
	memset(fs, 0, sizeof(*fs));
	fs->efd = -1;
}

static int push_ready(struct fence_state *fs, uint32_t ring, uint64_t fence_id)
{
	if (fs->n_ready == fs->cap_ready) {
		uint32_t ncap = fs->cap_ready ? fs->cap_ready * 2 : 16;
		struct fence_ready *n = realloc(fs->ready, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		fs->ready = n;
		fs->cap_ready = ncap;
	}
	fs->ready[fs->n_ready++] = (struct fence_ready){ring, fence_id};
	return 0;
}

/* Move satisfied fences of one ring to the ready list; lock held. */
static bool collect(struct fence_state *fs, uint32_t ring)
{
	struct fence_ring *r = &fs->rings[ring];
	bool any = false;

	while (r->n) {
		struct fence_pending *p = &r->q[r->head];

		if (p->target > r->done)
			break;
		/* ready list growth failing leaves the fence queued for later */
		if (push_ready(fs, ring, p->fence_id))
			break;
		r->head = (r->head + 1) % r->cap;
		r->n--;
		any = true;
	}
	return any;
}

static void deliver(struct fence_state *fs)
{
	if (!fs->async) {
		uint64_t one = 1;

		/* the counter saturating just means it is already readable */
		if (write(fs->efd, &one, sizeof(one)) < 0) {
		}
		return;
	}
	fence_state_retire(fs);
}

void fence_state_retire(struct fence_state *fs)
{
	struct fence_ready *list;
	uint32_t n;
	uint64_t v;

	pthread_mutex_lock(&fs->retire_lock);
	pthread_mutex_lock(&fs->lock);
	list = fs->ready;
	n = fs->n_ready;
	fs->ready = NULL;
	fs->n_ready = fs->cap_ready = 0;
	if (!fs->async && read(fs->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing was signalled, fine */
	}
	pthread_mutex_unlock(&fs->lock);
	for (uint32_t i = 0; i < n && !fs->closed; i++) {
		if (fs->cb)
			fs->cb(fs->cookie, fs->ctx_id, list[i].ring, list[i].fence_id);
	}
	pthread_mutex_unlock(&fs->retire_lock);
	free(list);
}

int fence_state_submit(struct fence_state *fs, uint32_t ring, uint64_t fence_id, uint64_t target)
{
	struct fence_ring *r;
	bool any;

	if (ring >= FENCE_RING_COUNT)
		return -EINVAL;
	pthread_mutex_lock(&fs->lock);
	r = &fs->rings[ring];
	if (r->n >= FENCE_RING_MAX_PENDING) {
		pthread_mutex_unlock(&fs->lock);
		return -ENOMEM;
	}
	if (r->n == r->cap) {
		uint32_t ncap = r->cap ? r->cap * 2 : 16;
		struct fence_pending *n = malloc(ncap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&fs->lock);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < r->n; i++)
			n[i] = r->q[(r->head + i) % r->cap];
		free(r->q);
		r->q = n;
		r->head = 0;
		r->cap = ncap;
	}
	r->q[(r->head + r->n) % r->cap] = (struct fence_pending){fence_id, target};
	r->n++;
	any = collect(fs, ring);
	pthread_mutex_unlock(&fs->lock);
	if (any)
		deliver(fs);
	return 0;
}

void fence_state_advance(struct fence_state *fs, uint32_t ring, uint64_t done)
{
	bool any;

	if (ring >= FENCE_RING_COUNT)
		return;
	pthread_mutex_lock(&fs->lock);
	if (done > fs->rings[ring].done)
		fs->rings[ring].done = done;
	any = collect(fs, ring);
	pthread_mutex_unlock(&fs->lock);
	if (any)
		deliver(fs);
}

void fence_state_complete_all(struct fence_state *fs)
{
	bool any = false;

	pthread_mutex_lock(&fs->lock);
	for (uint32_t i = 0; i < FENCE_RING_COUNT; i++) {
		fs->rings[i].done = UINT64_MAX;
		any |= collect(fs, i);
	}
	pthread_mutex_unlock(&fs->lock);
	if (any)
		deliver(fs);
}

void fence_state_close(struct fence_state *fs)
{
	pthread_mutex_lock(&fs->retire_lock);
	fs->closed = true;
	pthread_mutex_unlock(&fs->retire_lock);
}
