/* SPDX-License-Identifier: MIT */
/*
 * Fence rings of a context. Each ring has a progress counter `done` and a
 * FIFO of fences, each waiting for done >= its target:
 *  - ring 0: done = submits executed; a fence's target is the number of
 *    submits queued before it (it retires once they all ran);
 *  - rings 1..63: done = waits on that ring that returned; a fence's target
 *    is the number of waits queued on that ring before it.
 * Targets never decrease along a ring, so fences retire exactly once and in
 * order per ring. POLL mode: ready fences make the eventfd readable and are
 * retired by fence_state_retire() on the caller's thread. ASYNC mode: the
 * thread that made progress invokes the callback.
 */
#ifndef VKFD_FENCE_H
#define VKFD_FENCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "vkfd/host.h"

#define FENCE_RING_COUNT 64
/* Pending fences per ring; beyond it submit fails with -ENOMEM. */
#define FENCE_RING_MAX_PENDING 65536u

struct fence_pending {
	uint64_t fence_id;
	uint64_t target;
};

struct fence_ring {
	struct fence_pending *q;
	uint32_t head, n, cap;
	uint64_t done;
};

struct fence_ready {
	uint32_t ring;
	uint64_t fence_id;
};

struct fence_state {
	pthread_mutex_t lock;        /* rings and the ready list */
	pthread_mutex_t retire_lock; /* keeps callbacks in order */
	struct fence_ring rings[FENCE_RING_COUNT];
	struct fence_ready *ready;
	uint32_t n_ready, cap_ready;
	bool async;
	bool closed; /* no more callbacks (context being destroyed) */
	vkfd_fence_retire_fn cb;
	void *cookie;
	uint32_t ctx_id;
	int efd; /* POLL mode: readable while fences are ready */
};

int fence_state_init(struct fence_state *fs, bool async, vkfd_fence_retire_fn cb, void *cookie,
		     uint32_t ctx_id);
void fence_state_fini(struct fence_state *fs);
/* Queue a fence; -EINVAL for a bad ring, -ENOMEM (allocation or more than
 * FENCE_RING_MAX_PENDING pending on the ring). */
int fence_state_submit(struct fence_state *fs, uint32_t ring, uint64_t fence_id, uint64_t target);
/* Record progress on a ring (done only grows) and deliver what became ready. */
void fence_state_advance(struct fence_state *fs, uint32_t ring, uint64_t done);
/* Mark every ring complete (context lost): all fences retire. */
void fence_state_complete_all(struct fence_state *fs);
/* POLL mode: invoke the callback for every ready fence. */
void fence_state_retire(struct fence_state *fs);
/* Stop invoking callbacks; waits for a callback in progress. */
void fence_state_close(struct fence_state *fs);

#endif
