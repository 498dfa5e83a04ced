// SPDX-License-Identifier: MIT
#include "wait_order.h"

#include <errno.h>
#include <string.h>
#include <time.h>

void wait_order_init(struct wait_order *wo)
{
	pthread_condattr_t a;

	memset(wo, 0, sizeof(*wo));
	pthread_mutex_init(&wo->lock, NULL);
	/* deadlines on the monotonic clock: a wall-clock step must not turn
	 * the bounded wait into a long one */
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wo->cv, &a);
	pthread_condattr_destroy(&a);
}

void wait_order_fini(struct wait_order *wo)
{
	pthread_mutex_destroy(&wo->lock);
	pthread_cond_destroy(&wo->cv);
}

void wait_order_add(struct wait_order *wo, struct wait_order_entry *e, const uint32_t *ids,
		    uint32_t n)
{
	if (n > VKFD_MAX_WAIT_EVENTS)
		n = VKFD_MAX_WAIT_EVENTS;
	e->owner = wo;
	e->n = n;
	memcpy(e->ids, ids, n * sizeof(ids[0]));
	pthread_mutex_lock(&wo->lock);
	e->next = wo->head;
	wo->head = e;
	e->listed = true;
	pthread_mutex_unlock(&wo->lock);
}

void wait_order_registered(void *entry)
{
	struct wait_order_entry *e = entry;
	struct wait_order *wo = e->owner;

	if (!wo)
		return;
	pthread_mutex_lock(&wo->lock);
	if (e->listed) {
		for (struct wait_order_entry **pp = &wo->head; *pp; pp = &(*pp)->next) {
			if (*pp == e) {
				*pp = e->next;
				break;
			}
		}
		e->listed = false;
		pthread_cond_broadcast(&wo->cv);
	}
	pthread_mutex_unlock(&wo->lock);
}

static bool pending_on(const struct wait_order *wo, uint32_t event_id)
{
	for (const struct wait_order_entry *e = wo->head; e; e = e->next)
		for (uint32_t i = 0; i < e->n; i++)
			if (e->ids[i] == event_id)
				return true;
	return false;
}

int wait_order_settle(struct wait_order *wo, uint32_t event_id, uint32_t timeout_ms)
{
	struct timespec deadline;
	int ret = 0;

	pthread_mutex_lock(&wo->lock);
	if (pending_on(wo, event_id)) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout_ms / 1000;
		deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		while (pending_on(wo, event_id)) {
			if (pthread_cond_timedwait(&wo->cv, &wo->lock, &deadline) == ETIMEDOUT) {
				ret = pending_on(wo, event_id) ? -ETIMEDOUT : 0;
				break;
			}
		}
	}
	pthread_mutex_unlock(&wo->lock);
	return ret;
}

bool wait_order_idle(struct wait_order *wo)
{
	bool idle;

	pthread_mutex_lock(&wo->lock);
	idle = !wo->head;
	pthread_mutex_unlock(&wo->lock);
	return idle;
}
