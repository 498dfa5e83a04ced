// SPDX-License-Identifier: MIT
/*
 * Wait rings (docs/protocol.md): WAIT_EVENTS on ring r retires r's fence
 * when it finishes. Every transition of a ring's wait bookkeeping is here,
 * under ctx->lock:
 *   submit time  host_ring_wait_count_locked  a wait framed (fence target)
 *   executor     host_ring_wait_next          the wait's index k
 *                host_ring_wait_activate      k becomes the one in flight
 *   wait thread  host_ring_wait_finished      k done: the fence advances
 */
#include "host_internal.h"

#include <errno.h>

void host_ring_wait_count_locked(struct vkfd_host_context *ctx, uint32_t ring)
{
	host_assert_held(&ctx->lock);
	if (ring >= 1 && ring < VKFD_NUM_RINGS)
		ctx->rings[ring].queued++;
}

uint64_t host_ring_fence_target_locked(struct vkfd_host_context *ctx, uint32_t ring)
{
	host_assert_held(&ctx->lock);
	return ring == 0 ? ctx->submitted : ctx->rings[ring].queued;
}

uint64_t host_ring_wait_next(struct vkfd_host_context *ctx, uint32_t ring)
{
	uint64_t k;

	pthread_mutex_lock(&ctx->lock);
	k = ++ctx->rings[ring].next_k;
	pthread_mutex_unlock(&ctx->lock);
	return k;
}

int host_ring_wait_activate(struct vkfd_host_context *ctx, uint32_t ring, uint64_t k)
{
	struct ring_wait_state *rs = &ctx->rings[ring];
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	if (rs->active_k) {
		ret = -EBUSY; /* one pending wait per ring */
	} else {
		rs->active_k = k;
		ctx->waits_inflight++;
	}
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

void host_ring_wait_release_thread(struct vkfd_host_context *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	ctx->waits_inflight--;
	pthread_mutex_unlock(&ctx->lock);
}

void host_ring_wait_finished(struct vkfd_host_context *ctx, uint32_t ring, uint64_t k)
{
	struct ring_wait_state *rs;
	uint64_t done;

	if (ring == 0 || ring >= VKFD_NUM_RINGS)
		return;
	pthread_mutex_lock(&ctx->lock);
	rs = &ctx->rings[ring];
	if (k == rs->active_k) {
		rs->done = k > rs->rejected_max ? k : rs->rejected_max;
		rs->active_k = 0;
		rs->rejected_max = 0;
	} else if (rs->active_k == 0) {
		rs->done = k;
	} else if (k > rs->rejected_max) {
		rs->rejected_max = k; /* completes with the wait in flight */
	}
	done = rs->done;
	pthread_mutex_unlock(&ctx->lock);
	fence_state_advance(&ctx->fences, ring, done);
}
