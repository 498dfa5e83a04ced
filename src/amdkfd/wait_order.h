/* SPDX-License-Identifier: MIT */
/*
 * Stream order between a guest's WAIT_EVENTS and a later SET, RESET or
 * DESTROY_EVENT of one of its events (docs/architecture.md, "Waits").
 *
 * A thread of the guest that is blocked in WAIT_EVENTS is woken by another
 * thread's SET_EVENT, because the kernel registered the waiter at the
 * ioctl's start. The host runs the guest's wait on a wait thread, so a SET
 * that follows the wait in the command stream could reach KFD before that
 * thread has registered: the signal would then stay pending on an
 * auto-reset event and go to whichever waiter registers first, possibly a
 * wait that came after the SET, and the earlier wait would sleep on.
 * The executor therefore lets a SET, RESET or DESTROY of an event go to
 * KFD only once every earlier wait on that event has registered.
 */
#ifndef VKFD_WAIT_ORDER_H
#define VKFD_WAIT_ORDER_H

#include "vkfd_protocol.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* One dispatched wait, embedded in its job; listed until registered. */
struct wait_order_entry {
	struct wait_order_entry *next;
	struct wait_order *owner;
	uint32_t n;
	uint32_t ids[VKFD_MAX_WAIT_EVENTS];
	bool listed;
};

struct wait_order {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct wait_order_entry *head; /* dispatched, not registered yet */
};

void wait_order_init(struct wait_order *wo);
void wait_order_fini(struct wait_order *wo);

/* The executor, before it hands the wait to a thread: e lists n ids. */
void wait_order_add(struct wait_order *wo, struct wait_order_entry *e, const uint32_t *ids,
		    uint32_t n);

/* The wait's KFD waiters are registered (or the wait ended before): a
 * later SET may go. Idempotent; the device seam's registered callback. */
void wait_order_registered(void *entry);

/* The executor, before a SET, RESET or DESTROY of event_id: returns once
 * no earlier wait on event_id is unregistered, or -ETIMEDOUT after
 * timeout_ms (a wait thread starved that long: the command goes anyway,
 * with today's ordering, and the caller logs it). */
int wait_order_settle(struct wait_order *wo, uint32_t event_id, uint32_t timeout_ms);
/* True when no dispatched wait is still unregistered: a SET now would not
 * have to wait in wait_order_settle. */
bool wait_order_idle(struct wait_order *wo);

#endif
