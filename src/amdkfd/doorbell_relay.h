/* SPDX-License-Identifier: MIT */
/*
 * Doorbell relay (DESIGN 9). The guest rings a queue by storing its write
 * pointer into its slot of the shadow doorbell page (a shared memfd page);
 * the relay thread copies each active slot's value to the queue's real
 * doorbell (the device doorbell page mapped through the KFD fd, which the
 * guest never sees).
 *
 * Wake-ups: the eventfd from doorbell_relay_efd() (a VMM can wire it to an
 * ioeventfd on the shadow page) wakes the relay at once. When nobody writes
 * it, the relay polls the page adaptively: every RELAY_POLL_MIN_US after
 * activity, backing off exponentially to RELAY_POLL_MAX_US when idle. With
 * no active queue the thread sleeps until woken.
 */
#ifndef VKFD_DOORBELL_RELAY_H
#define VKFD_DOORBELL_RELAY_H

#include <stdint.h>

#define RELAY_POLL_MIN_US 20
#define RELAY_POLL_MAX_US 2000

struct doorbell_relay;

struct doorbell_relay_stats {
	uint64_t copies; /* values forwarded to a real doorbell */
	uint64_t scans;  /* passes over the active slots */
	uint64_t efd_wakeups;
};

/* Up to n_slots relayed doorbells. 0 or -errno. */
int doorbell_relay_start(struct doorbell_relay **out, uint32_t n_slots);
/* Forward *shadow to *real_db from now on. Both must stay valid until
 * doorbell_relay_remove() returns. -EINVAL, -EBUSY (slot in use). */
int doorbell_relay_add(struct doorbell_relay *r, uint32_t slot, volatile uint64_t *shadow,
		       volatile uint64_t *real_db);
/* Copy the slot's value now (DOORBELL_NOTIFY). */
void doorbell_relay_flush(struct doorbell_relay *r);
/* After this returns the relay never touches that slot's real doorbell. */
void doorbell_relay_remove(struct doorbell_relay *r, uint32_t slot);
int doorbell_relay_efd(struct doorbell_relay *r);
void doorbell_relay_get_stats(struct doorbell_relay *r, struct doorbell_relay_stats *st);
void doorbell_relay_stop(struct doorbell_relay *r);

#endif
