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
	 * pass deferred nothing: the executor makes a pass only while it is
	 * set (doorbell_relay_barrier_progress) */
	uint32_t barrier_wait;
	struct doorbell_relay_poll poll; /* under lock */
	/* End of the hot window (CLOCK_MONOTONIC ns), in which the thread
	 * polls at most poll.hot_max_us apart: written by the relay thread,
	 * read by doorbell_relay_poke and the statistics (atomic) */
	uint64_t hot_until_ns;
	uint32_t poked; /* atomic: a poke asks the thread to stay hot */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
static bool relay_scan_locked(struct doorbell_relay *r)
{
	bool moved = false, held = false;

	r->stats.scans++;
	for (uint32_t i = 0; i < r->n_active; i++)
		moved |= relay_slot_pass(r, &r->slots[r->active[i]], &held);
	if (!held)
		__atomic_store_n(&r->barrier_wait, 0, __ATOMIC_RELAXED);
	return moved;
}

static bool relay_scan(struct doorbell_relay *r)
{
	bool moved;

	pthread_mutex_lock(&r->lock);
	moved = relay_scan_locked(r);
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

int doorbell_relay_next_sleep_us(const struct doorbell_relay_poll *p, int interval_us, bool moved,
				 bool hot)
{
	int next;

	if (p->max_us <= 0)
		return -1;
	if (moved || interval_us < p->min_us)
		return p->min_us;
	next = interval_us >= p->max_us / 2 ? p->max_us : interval_us * 2;
	if (hot && next > p->hot_max_us)
		next = p->hot_max_us > p->min_us ? p->hot_max_us : p->min_us;
	return next;
}

/* After a pass: start a hot window if heated (a moved value or a poke),
 * then the next sleep; false: none (no active queue, or no polling). */
static bool relay_sleep(struct doorbell_relay *r, bool moved, bool heated, int *interval_us,
			struct timespec *ts)
{
	struct doorbell_relay_poll p;
	uint64_t now = mono_ns();
	bool active, hot;

	pthread_mutex_lock(&r->lock);
	p = r->poll;
	active = r->n_active > 0;
	pthread_mutex_unlock(&r->lock);
	if (heated)
		__atomic_store_n(&r->hot_until_ns, now + (uint64_t)p.hot_us * 1000u,
				 __ATOMIC_RELAXED);
	hot = heated || now < __atomic_load_n(&r->hot_until_ns, __ATOMIC_RELAXED);
	*interval_us = doorbell_relay_next_sleep_us(&p, *interval_us, moved, hot);
	if (!active || *interval_us < 0)
		return false;
	ts->tv_sec = *interval_us / 1000000;
	ts->tv_nsec = (long)(*interval_us % 1000000) * 1000;
	return true;
}

static void *relay_thread(void *arg)
{
	struct doorbell_relay *r = arg;
	int interval_us = 0;
	bool timed = false;
	struct timespec ts = {0, 0};

	/* the default 50 us timer slack would dominate a 20 us poll period */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = r->efd, .events = POLLIN},
		    {.fd = r->ctl_efd, .events = POLLIN},
		};
		bool stop;
		int n;

		pthread_mutex_lock(&r->lock);
		stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			break;

		/* ppoll: ns timeouts, and an eventfd write ends the sleep at once */
		n = ppoll(pfd, 2, timed ? &ts : NULL, NULL);
		if (n > 0 && (pfd[0].revents & POLLIN)) {
			drain(r->efd);
			__atomic_fetch_add(&r->stats.efd_wakeups, 1, __ATOMIC_RELAXED);
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			drain(r->ctl_efd);
		bool moved = relay_scan(r);
		/* an activity (a moved value, a guest that waits) starts a hot
		 * window of poll.hot_us: the next doorbell of a busy guest is
		 * near */
		bool heated = __atomic_exchange_n(&r->poked, 0, __ATOMIC_ACQ_REL) || moved;

		timed = relay_sleep(r, moved, heated, &interval_us, &ts);
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
	r->poll.min_us = RELAY_POLL_MIN_US;
	r->poll.max_us = RELAY_POLL_MAX_US;
	r->poll.hot_us = RELAY_POLL_HOT_US;
	r->poll.hot_max_us = RELAY_POLL_HOT_MAX_US;
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

void doorbell_relay_poke(struct doorbell_relay *r)
{
	bool active, hot;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stats.pokes++;
	r->stats.poke_moves += relay_scan_locked(r);
	active = r->n_active > 0 && r->poll.hot_us > 0;
	pthread_mutex_unlock(&r->lock);
	hot = mono_ns() < __atomic_load_n(&r->hot_until_ns, __ATOMIC_RELAXED);
	if (!active || hot)
		return; /* nothing to poll, or in a hot window already */
	__atomic_store_n(&r->poked, 1, __ATOMIC_RELEASE);
	kick(r);
}

void doorbell_relay_set_poll(struct doorbell_relay *r, const struct doorbell_relay_poll *p)
{
	pthread_mutex_lock(&r->lock);
	r->poll = *p;
	if (r->poll.min_us < 1)
		r->poll.min_us = 1;
	if (r->poll.max_us > 0 && r->poll.max_us < r->poll.min_us)
		r->poll.max_us = r->poll.min_us;
	if (r->poll.hot_us < 0)
		r->poll.hot_us = 0;
	if (r->poll.hot_max_us < r->poll.min_us)
		r->poll.hot_max_us = r->poll.min_us;
	pthread_mutex_unlock(&r->lock);
	/* no longer hot under the old policy; the thread re-reads it now */
	__atomic_store_n(&r->hot_until_ns, 0, __ATOMIC_RELAXED);
	kick(r);
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
	/* a pass here rings what the map held back without waking the relay
	 * thread first: ROCr's copy into the buffer it just mapped */
	if (r && __atomic_load_n(&r->barrier_wait, __ATOMIC_SEQ_CST))
		relay_scan(r);
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
	st->pokes = r->stats.pokes;
	st->poke_moves = r->stats.poke_moves;
	pthread_mutex_unlock(&r->lock);
	/* counted by the relay thread outside the lock */
	st->efd_wakeups = __atomic_load_n(&r->stats.efd_wakeups, __ATOMIC_RELAXED);
	st->hot = mono_ns() < __atomic_load_n(&r->hot_until_ns, __ATOMIC_RELAXED);
	{
		clockid_t cid;
		struct timespec ts;

		if (!pthread_getcpuclockid(r->thread, &cid) && !clock_gettime(cid, &ts))
			st->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
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
