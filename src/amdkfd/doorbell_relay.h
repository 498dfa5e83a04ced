/* SPDX-License-Identifier: MIT */
/*
 * Doorbell relay (DESIGN 9). The guest rings a queue with a plain store
 * into its slot of the shadow doorbell page; the relay thread writes the
 * queue's real doorbell (the device doorbell page mapped through the KFD
 * fd, which the guest never sees).
 *
 * The value forwarded comes from the queue's write pointer in queue memory
 * (a read-only host mapping the relay owns), converted to what ROCr would
 * have stored into the doorbell: for an AQL queue on gfx9+ the index of the
 * last packet reserved (write_dispatch_id - 1), for SDMA and PM4 queues the
 * write pointer itself. What the guest stored into the shadow slot is
 * ignored for such a queue: a VMM may trap the page and drop the stores
 * (KVM ioeventfd). A queue whose write pointer the host cannot map falls
 * back to forwarding the shadow slot's value (RELAY_SRC_SHADOW).
 *
 * A value is written to the real doorbell only when it changed. That is
 * safe although a write pointer moves when a packet is reserved, before it
 * is written: the packet processor stalls on a packet whose header is still
 * INVALID until it becomes valid (ROCr relies on the same rule).
 *
 * Wake-ups: the eventfd from doorbell_relay_efd() (a VMM wires it to
 * ioeventfds on the shadow page) wakes the relay at once. Without it the
 * relay polls the write pointers adaptively: RELAY_POLL_MIN_US after a
 * pass that forwarded a value, then backing off exponentially, to at most
 * RELAY_POLL_HOT_MAX_US while hot (for RELAY_POLL_HOT_US after a value
 * moved or the context's guest began a wait: doorbell_relay_poke), and to
 * RELAY_POLL_MAX_US after that. The hot window is there because a busy
 * guest's next doorbell tends to come soon after its last one (a model
 * load's copies come every few hundred microseconds, between allocations):
 * without it the back-off had reached hundreds of microseconds between two
 * copies and each copy waited that long, longer than ROCr spins on a
 * signal before it blocks in WAIT_EVENTS. A guest that blocks in
 * WAIT_EVENTS most likely waits for work behind a doorbell, so the
 * executor forwards what moved at once and heats the relay. With no
 * active queue the thread * sleeps until woken.
 *
 * Map barrier (protocol 1.1's MAP_MEMORY_ASYNC, docs/protocol.md 14.5): the
 * guest stores the seqno of its last asynchronous MAP into a word of the
 * shared memory before its MAP ioctl returns, so before any doorbell store
 * that ROCr makes afterwards. A write pointer that moved is forwarded only
 * when, read after that write pointer, the barrier names a request the
 * executor has finished; otherwise the slot is left as it was (deferred)
 * and rechecked on the next pass or when the executor reports progress
 * (doorbell_relay_barrier_progress). The relay is per context, so a
 * barrier that never passes (a hostile value) holds only that context's
 * own queues, until the context is lost or destroyed.
 */
#ifndef VKFD_DOORBELL_RELAY_H
#define VKFD_DOORBELL_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RELAY_POLL_MIN_US     20
#define RELAY_POLL_MAX_US     1000
#define RELAY_POLL_HOT_US     2000
#define RELAY_POLL_HOT_MAX_US 80

/* The polling policy. max_us 0: no polling, only wake-ups (eventfd, kick,
 * poke) scan; hot_us 0: no hot window. */
struct doorbell_relay_poll {
	int min_us;     /* after a pass that forwarded a value */
	int max_us;     /* the back-off's ceiling */
	int hot_us;     /* the hot window's length */
	int hot_max_us; /* the back-off's ceiling inside the hot window */
};

struct doorbell_relay;

struct doorbell_relay_stats {
	uint64_t copies; /* values forwarded to a real doorbell */
	uint64_t scans;  /* passes over the active slots (or over one, a notify) */
	uint64_t visits; /* slots examined: at most scans x active queues */
	uint64_t efd_wakeups;
	uint64_t deferred;   /* moved write pointers held back by the map barrier */
	uint64_t pokes;      /* doorbell_relay_poke calls */
	uint64_t poke_moves; /* ... whose own pass forwarded a value */
	bool hot;            /* inside the hot window now (polls at most hot_max_us apart) */
	uint64_t cpu_ns;     /* CPU time of the relay thread so far */
};

/* Where the relay finds the map barrier. All three words stay valid until
 * doorbell_relay_stop() (the context's shared memory and its own fields). */
struct doorbell_relay_barrier {
	const volatile uint32_t *guest_word; /* shmem header map_barrier (guest-written) */
	const uint32_t *done;                /* seqno of the last MAP_MEMORY_ASYNC run (atomic) */
	const uint32_t *processed;           /* seqno of the last request run (atomic) */
};

enum doorbell_relay_src {
	RELAY_SRC_SHADOW = 0,   /* forward the shadow slot's value */
	RELAY_SRC_WPTR_AQL = 1, /* AQL write_dispatch_id: forward wptr - 1 (0: nothing) */
	RELAY_SRC_WPTR_RAW = 2, /* SDMA / PM4 write pointer: forward as is */
};

struct doorbell_relay_queue {
	enum doorbell_relay_src src;
	/* RELAY_SRC_SHADOW: the shadow slot; else the write pointer (8-byte
	 * aligned, inside map) */
	const volatile uint64_t *value;
	volatile uint64_t *real_db;
	/* How a value reaches real_db: NULL, a plain release store; else
	 * ring(ring_arg, real_db, value), called from the relay thread (or a
	 * flush) with the relay's lock held, until doorbell_relay_remove()
	 * returns. The host passes the device seam's ring_doorbell, so that
	 * kfdsim's engine wakes at once instead of at its next poll. */
	void (*ring)(void *ring_arg, volatile uint64_t *real_db, uint64_t value);
	void *ring_arg;
	/* A host mapping the relay takes over on success and munmaps once
	 * the slot is removed (or the relay stops); NULL if none. */
	void *map;
	size_t map_len;
};

/* The policy: the relay thread's next poll interval after one of
 * interval_us, after a pass that forwarded a value (moved) or not, inside
 * the hot window or not; -1: no timed poll. */
int doorbell_relay_next_sleep_us(const struct doorbell_relay_poll *p, int interval_us, bool moved,
				 bool hot);

/* Up to n_slots relayed doorbells. 0 or -errno. */
int doorbell_relay_start(struct doorbell_relay **out, uint32_t n_slots);
/* Relay a queue from now on. value and real_db must stay valid until
 * doorbell_relay_remove() returns. -EINVAL, -EBUSY (slot in use); on error
 * the caller keeps q->map. */
int doorbell_relay_add_queue(struct doorbell_relay *r, uint32_t slot,
			     const struct doorbell_relay_queue *q);
/* Shorthand: RELAY_SRC_SHADOW, no mapping. */
int doorbell_relay_add(struct doorbell_relay *r, uint32_t slot, volatile uint64_t *shadow,
		       volatile uint64_t *real_db);
/* One pass over every active slot now. */
void doorbell_relay_flush(struct doorbell_relay *r);
/* The guest is about to wait for its GPU: one pass now, on the caller's
 * thread, and the relay thread kept hot (woken only if it is not hot). */
void doorbell_relay_poke(struct doorbell_relay *r);
/* Replace the polling policy (defaults: RELAY_POLL_*). */
void doorbell_relay_set_poll(struct doorbell_relay *r, const struct doorbell_relay_poll *p);
/* One slot only (DOORBELL_NOTIFY: costs O(1), whatever the queue count). */
void doorbell_relay_flush_slot(struct doorbell_relay *r, uint32_t slot);
/* After this returns the relay never touches that slot's real doorbell or
 * value again, and its mapping is gone. */
void doorbell_relay_remove(struct doorbell_relay *r, uint32_t slot);
int doorbell_relay_efd(struct doorbell_relay *r);
/* Honour the map barrier from now on (b) or no longer (NULL). */
void doorbell_relay_set_barrier(struct doorbell_relay *r, const struct doorbell_relay_barrier *b);
/* The executor finished a MAP_MEMORY_ASYNC: if the relay holds a write
 * pointer back, one pass now on the caller's thread (cheap when it does
 * not). */
void doorbell_relay_barrier_progress(struct doorbell_relay *r);
void doorbell_relay_get_stats(struct doorbell_relay *r, struct doorbell_relay_stats *st);
void doorbell_relay_stop(struct doorbell_relay *r);

#endif
