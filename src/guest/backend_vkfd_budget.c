// SPDX-License-Identifier: MIT
/*
 * vkfd backend: protocol 1.1 allocation state of a connection
 * (docs/protocol.md section 14): the BO handles the guest chooses
 * (VKFD_FEAT_GUEST_HANDLES) and the asynchronous-allocation budget
 * (VKFD_FEAT_ASYNC_ALLOC) the host publishes in the shared memory.
 *
 * The host takes a handle only if its index is free in stream order and
 * its generation is the index's next, so the guest mirrors the host's
 * table: a free-index stack and the next generation of every index. The
 * budget promise covers GTT allocations sent after the host's count of
 * processed GTT allocation requests, so the guest counts the GTT requests
 * it sends and keeps the sizes of the last BK_BUDGET_RING of them. Both
 * change only under the connection's alloc_lock, which is held from the
 * choice to the send so that the stream order is the counting order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend_vkfd_internal.h"

void bk_alloc_state_init(struct bk_conn *c)
{
	size_t size = 0;
	const volatile struct vkfd_shmem_hdr *h = vkfd_guest_shmem(c->g, &size);
	uint32_t max = 0;

	pthread_mutex_init(&c->alloc_lock, NULL);
	if (!(c->features & VKFD_FEAT_GUEST_HANDLES))
		return;
	if (h && size >= sizeof(*h))
		max = __atomic_load_n(&h->max_bos, __ATOMIC_ACQUIRE);
	/* a host that publishes no table size gets no guest-chosen handles */
	if (max > BK_MAX_GUEST_HANDLES)
		max = BK_MAX_GUEST_HANDLES;
	if (max)
		c->hgen = calloc(max + 1u, sizeof(*c->hgen));
	if (!c->hgen || !(c->hfree = calloc(max, sizeof(*c->hfree)))) {
		free(c->hgen);
		c->hgen = NULL;
		c->features &= ~(VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC);
		return;
	}
	c->hmax = max;
	c->hnext = 1;
}

void bk_alloc_state_fini(struct bk_conn *c)
{
	free(c->hgen);
	free(c->hfree);
	c->hgen = NULL;
	c->hfree = NULL;
	pthread_mutex_destroy(&c->alloc_lock);
}

uint64_t bk_handle_take_locked(struct bk_conn *c)
{
	uint32_t idx;

	BK_ASSERT_ALLOC_LOCKED(c);
	if (!c->hgen)
		return 0;
	if (c->hn_free)
		idx = c->hfree[--c->hn_free];
	else if (c->hnext <= c->hmax)
		idx = c->hnext++;
	else
		return 0; /* every index in use: the host answers -ENOMEM */
	if (!c->hgen[idx])
		c->hgen[idx] = 1;
	return VKFD_HANDLE(idx, c->hgen[idx]);
}

/* The host never took it (the ALLOC failed): same generation next time. */
void bk_handle_untake_locked(struct bk_conn *c, uint64_t handle)
{
	BK_ASSERT_ALLOC_LOCKED(c);
	if (c->hgen && VKFD_HANDLE_INDEX(handle) - 1u < c->hmax)
		c->hfree[c->hn_free++] = VKFD_HANDLE_INDEX(handle);
}

/* A handle the host chose (IMPORT_RESOURCE): its index is live on the
 * host now, so the guest must not choose it until it is freed. Called
 * with alloc_lock held from before the request was sent, so no handle
 * the guest chose in between can be the one the host picked. */
void bk_handle_claim_locked(struct bk_conn *c, uint64_t handle)
{
	uint32_t idx = VKFD_HANDLE_INDEX(handle);

	BK_ASSERT_ALLOC_LOCKED(c);
	if (!c->hgen || idx - 1u >= c->hmax)
		return;
	if (idx >= c->hnext) {
		/* the indices skipped on the way are free */
		while (c->hnext < idx)
			c->hfree[c->hn_free++] = c->hnext++;
		c->hnext = idx + 1;
	} else {
		for (uint32_t i = 0; i < c->hn_free; i++)
			if (c->hfree[i] == idx) {
				c->hfree[i] = c->hfree[--c->hn_free];
				break;
			}
	}
	c->hgen[idx] = VKFD_HANDLE_GEN(handle);
}

void bk_handle_release(struct bk_conn *c, uint64_t handle)
{
	uint32_t idx = VKFD_HANDLE_INDEX(handle);

	if (!c->hgen || idx - 1u >= c->hmax)
		return;
	bk_alloc_lock(c);
	/* the host's slot moves to its next generation when the FREE runs */
	if (++c->hgen[idx] == 0)
		c->hgen[idx] = 1;
	c->hfree[c->hn_free++] = idx;
	bk_alloc_unlock(c);
}

bool bk_budget_fits_locked(struct bk_conn *c, uint64_t size)
{
	size_t shm_size = 0;
	const volatile struct vkfd_shmem_hdr *h = vkfd_guest_shmem(c->g, &shm_size);
	uint32_t done, ahead;
	uint64_t budget, sum = size;

	BK_ASSERT_ALLOC_LOCKED(c);
	if (!(c->features & VKFD_FEAT_ASYNC_ALLOC) || !h || shm_size < sizeof(*h))
		return false;
	/* count first (acquire), bytes after: bytes at least as new as the
	 * count, which only makes the sum below more conservative */
	done = __atomic_load_n(&h->budget_allocs, __ATOMIC_ACQUIRE);
	budget = __atomic_load_n(&h->budget_bytes, __ATOMIC_ACQUIRE);
	ahead = c->gtt_sent - done;
	if (ahead > BK_BUDGET_RING)
		return false; /* too far ahead to sum, or a count we never sent */
	for (uint32_t i = 0; i < ahead && sum <= budget; i++)
		sum += c->gtt_ring[(c->gtt_sent - 1u - i) % BK_BUDGET_RING];
	return sum <= budget;
}

void bk_budget_count_locked(struct bk_conn *c, uint64_t size)
{
	BK_ASSERT_ALLOC_LOCKED(c);
	c->gtt_ring[c->gtt_sent % BK_BUDGET_RING] = size;
	c->gtt_sent++;
}
