// SPDX-License-Identifier: MIT
#include "doorbell_relay.h"
#include "host_log.h"

#include <errno.h>
#include <poll.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct relay_slot {
	const volatile uint64_t *value; /* shadow slot or write pointer */
	volatile uint64_t *real_db;     /* NULL = inactive */
	void (*ring)(void *arg, volatile uint64_t *real_db, uint64_t value); /* NULL: store */
	void *ring_arg;
	enum doorbell_relay_src src;
	uint64_t last; /* last raw value seen */
	void *map;     /* owned mapping of the write pointer's page */
	size_t map_len;
	uint32_t pos; /* index in active[] while active */
};

struct doorbell_relay {
	pthread_t thread;
	pthread_mutex_t lock; /* slots, stop */
	uint32_t n_slots;
	uint32_t n_active;
	struct relay_slot *slots;
	uint32_t *active; /* the n_active active slot numbers: scans cost O(queues) */
	int efd;          /* external wake-up (VMM ioeventfd) */
	int ctl_efd;      /* internal: queue set changed or stop */
	bool stop;
	struct doorbell_relay_stats stats;
	bool have_barrier; /* under lock */
	struct doorbell_relay_barrier barrier;
	/* set (seq_cst) before a pass looks at the barrier, cleared when a
	 * pass deferred nothing: the executor kicks only while it is set */
	uint32_t barrier_wait;
};

/* The doorbell value ROCr would store for a raw source value; false when
 * there is nothing to ring (an AQL queue with no packet reserved yet). */
static bool doorbell_value(enum doorbell_relay_src src, uint64_t raw, uint64_t *out)
{
	if (src == RELAY_SRC_WPTR_AQL) {
		if (!raw)
			return false;
		*out = raw - 1;
		return true;
	}
	*out = raw;
	return true;
}

/* Has every MAP_MEMORY_ASYNC the guest announced before the write pointer
 * just read been run? Read after that write pointer: the guest stores the
 * barrier before it returns from the MAP, ROCr the write pointer after. */
static bool barrier_passed(struct doorbell_relay *r)
{
	uint32_t b, done, processed;

	if (!r->have_barrier)
		return true;
	/* seq_cst against the executor's store of `done` and its load of
	 * barrier_wait: one of the two sees the other, so no wake-up is lost */
	__atomic_store_n(&r->barrier_wait, 1, __ATOMIC_SEQ_CST);
	b = __atomic_load_n(r->barrier.guest_word, __ATOMIC_ACQUIRE);
	done = __atomic_load_n(r->barrier.done, __ATOMIC_SEQ_CST);
	if (b == done)
		return true; /* the last one announced has run (also: none yet) */
	processed = __atomic_load_n(r->barrier.processed, __ATOMIC_ACQUIRE);
	/* wrap-around order (protocol 5.2); a value ahead of every request
	 * the host ran holds this context's doorbells until it is run */
	return (int32_t)(processed - b) >= 0;
}

/* Forward one active slot's value if it moved; r->lock held. Returns
 * whether it moved; *held when the map barrier kept it back. */
static bool relay_slot_pass(struct doorbell_relay *r, struct relay_slot *s, bool *held)
{
	uint64_t v = __atomic_load_n(s->value, __ATOMIC_ACQUIRE);

	r->stats.visits++;
	if (v == s->last)
		return false;
	if (!barrier_passed(r)) {
		/* left unseen: the next pass tries again */
		r->stats.deferred++;
		*held = true;
		return false;
	}
	s->last = v;
	if (doorbell_value(s->src, v, &v)) {
		if (s->ring)
			s->ring(s->ring_arg, s->real_db, v);
		else
			__atomic_store_n(s->real_db, v, __ATOMIC_RELEASE);
		r->stats.copies++;
	}
	return true;
}

/* One pass over the active slots; returns true if a value moved. */
static bool relay_scan(struct doorbell_relay *r)
{
	bool moved = false, held = false;

	pthread_mutex_lock(&r->lock);
	r->stats.scans++;
	for (uint32_t i = 0; i < r->n_active; i++)
		moved |= relay_slot_pass(r, &r->slots[r->active[i]], &held);
	if (!held)
		__atomic_store_n(&r->barrier_wait, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&r->lock);
	return moved;
}

static void drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing pending */
	}
}

static void *relay_thread(void *arg)
{
	struct doorbell_relay *r = arg;
	int interval_us = RELAY_POLL_MIN_US;

	/* the default 50 us timer slack would dominate a 20 us poll period */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = r->efd, .events = POLLIN},
		    {.fd = r->ctl_efd, .events = POLLIN},
		};
		struct timespec ts = {interval_us / 1000000, (long)(interval_us % 1000000) * 1000};
		bool active;
		int n;

		pthread_mutex_lock(&r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		active = r->n_active > 0;
		pthread_mutex_unlock(&r->lock);

		/* ppoll: ns timeouts, and an eventfd write ends the sleep at once */
		n = ppoll(pfd, 2, active ? &ts : NULL, NULL);
		if (n > 0 && (pfd[0].revents & POLLIN)) {
			drain(r->efd);
			__atomic_fetch_add(&r->stats.efd_wakeups, 1, __ATOMIC_RELAXED);
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			drain(r->ctl_efd);
		if (relay_scan(r))
			interval_us = RELAY_POLL_MIN_US;
		else if (interval_us < RELAY_POLL_MAX_US)
			interval_us *= 2;
	}
	return NULL;
}

int doorbell_relay_start(struct doorbell_relay **out, uint32_t n_slots)
{
	struct doorbell_relay *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->slots = calloc(n_slots, sizeof(*r->slots));
	r->active = calloc(n_slots ? n_slots : 1, sizeof(*r->active));
	r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->ctl_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->n_slots = n_slots;
	pthread_mutex_init(&r->lock, NULL);
	if (!r->slots || !r->active || r->efd < 0 || r->ctl_efd < 0) {
		err = r->slots && r->active ? -errno : -ENOMEM;
		goto fail;
	}
	err = -pthread_create(&r->thread, NULL, relay_thread, r);
	if (err)
		goto fail;
	*out = r;
	return 0;
fail:
	if (r->efd >= 0)
		close(r->efd);
	if (r->ctl_efd >= 0)
		close(r->ctl_efd);
	pthread_mutex_destroy(&r->lock);
	free(r->slots);
	free(r->active);
	free(r);
	return err;
}

static void kick(struct doorbell_relay *r)
{
	uint64_t one = 1;

	if (write(r->ctl_efd, &one, sizeof(one)) < 0) {
		/* counter saturated: already readable */
	}
}

int doorbell_relay_add_queue(struct doorbell_relay *r, uint32_t slot,
			     const struct doorbell_relay_queue *q)
{
	struct relay_slot *s;

	if (slot >= r->n_slots || !q || !q->real_db || !q->value ||
	    (q->src != RELAY_SRC_SHADOW && q->src != RELAY_SRC_WPTR_AQL &&
	     q->src != RELAY_SRC_WPTR_RAW) ||
	    ((uintptr_t)q->value & 7))
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	s = &r->slots[slot];
	if (s->real_db) {
		pthread_mutex_unlock(&r->lock);
		return -EBUSY;
	}
	s->real_db = q->real_db;
	s->ring = q->ring;
	s->ring_arg = q->ring_arg;
	s->value = q->value;
	s->src = q->src;
	s->map = q->map;
	s->map_len = q->map_len;
	/* only what moves after this is a ring */
	s->last = __atomic_load_n(q->value, __ATOMIC_ACQUIRE);
	s->pos = r->n_active;
	r->active[r->n_active++] = slot;
	pthread_mutex_unlock(&r->lock);
	kick(r);
	return 0;
}

int doorbell_relay_add(struct doorbell_relay *r, uint32_t slot, volatile uint64_t *shadow,
		       volatile uint64_t *real_db)
{
	struct doorbell_relay_queue q = {
	    .src = RELAY_SRC_SHADOW,
	    .value = shadow,
	    .real_db = real_db,
	};

	return doorbell_relay_add_queue(r, slot, &q);
}

static void slot_unmap(void *map, size_t len)
{
	if (map)
		munmap(map, len);
}

void doorbell_relay_remove(struct doorbell_relay *r, uint32_t slot)
{
	struct relay_slot *s;
	void *map = NULL;
	size_t len = 0;

	if (slot >= r->n_slots)
		return;
	pthread_mutex_lock(&r->lock);
	s = &r->slots[slot];
	if (s->real_db) {
		uint32_t last = r->active[--r->n_active];

		map = s->map;
		len = s->map_len;
		/* the last active slot takes this one's place */
		r->active[s->pos] = last;
		r->slots[last].pos = s->pos;
		memset(s, 0, sizeof(*s));
	}
	pthread_mutex_unlock(&r->lock);
	/* the relay reads the mapping only under the lock: gone for good */
	slot_unmap(map, len);
}

void doorbell_relay_flush(struct doorbell_relay *r)
{
	relay_scan(r);
}

void doorbell_relay_flush_slot(struct doorbell_relay *r, uint32_t slot)
{
	if (slot >= r->n_slots)
		return;
	bool held = false;

	pthread_mutex_lock(&r->lock);
	r->stats.scans++;
	if (r->slots[slot].real_db)
		relay_slot_pass(r, &r->slots[slot], &held);
	pthread_mutex_unlock(&r->lock);
	/* the relay thread retries a held slot on its own passes */
}

void doorbell_relay_set_barrier(struct doorbell_relay *r, const struct doorbell_relay_barrier *b)
{
	pthread_mutex_lock(&r->lock);
	r->have_barrier = b != NULL;
	if (b)
		r->barrier = *b;
	pthread_mutex_unlock(&r->lock);
	kick(r);
}

void doorbell_relay_barrier_progress(struct doorbell_relay *r)
{
	if (r && __atomic_load_n(&r->barrier_wait, __ATOMIC_SEQ_CST))
		kick(r);
}

int doorbell_relay_efd(struct doorbell_relay *r)
{
	return r->efd;
}

void doorbell_relay_get_stats(struct doorbell_relay *r, struct doorbell_relay_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&r->lock);
	st->copies = r->stats.copies;
	st->scans = r->stats.scans;
	st->visits = r->stats.visits;
	st->deferred = r->stats.deferred;
	pthread_mutex_unlock(&r->lock);
	/* counted by the relay thread outside the lock */
	st->efd_wakeups = __atomic_load_n(&r->stats.efd_wakeups, __ATOMIC_RELAXED);
}

void doorbell_relay_stop(struct doorbell_relay *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_mutex_unlock(&r->lock);
	kick(r);
	pthread_join(r->thread, NULL);
	close(r->efd);
	close(r->ctl_efd);
	pthread_mutex_destroy(&r->lock);
	for (uint32_t i = 0; i < r->n_active; i++)
		slot_unmap(r->slots[r->active[i]].map, r->slots[r->active[i]].map_len);
	free(r->slots);
	free(r->active);
	free(r);
}
