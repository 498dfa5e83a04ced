// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "fence": an event is signalled, how long until the waiter
 * wakes. One thread blocks in WAIT_EVENTS (native: the KFD ioctl on
 * kfdsim; protocol paths: the fenced vkfd_guest_call_wait); once it is
 * blocked (the signaller sleeps 1 ms after the waiter announced itself),
 * the main thread calls SET_EVENT.
 *
 * t0: just before the signaller issues SET_EVENT. t1: when the waiter's
 * wait call has returned. Both are CLOCK_MONOTONIC in the same process, on
 * every path.
 */
#include "bench.h"
#include "bench_dev.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kfd_ioctl.h>

#define WAIT_TIMEOUT_MS 5000u
#define SETTLE_NS       1000000l

struct fence_run {
	struct bench_dev *d;
	uint32_t event;
	unsigned iters;
	uint64_t *t1;
	unsigned ready; /* iterations the waiter has started (atomic) */
	unsigned done;  /* iterations the waiter has finished (atomic) */
	bool stop;      /* the signaller gave up (atomic) */
	int err;
};

static void *waiter(void *arg)
{
	struct fence_run *f = arg;

	for (unsigned i = 0; i < f->iters; i++) {
		uint32_t result = 0;
		int r;

		if (__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE))
			break;
		__atomic_store_n(&f->ready, i + 1, __ATOMIC_RELEASE);
		r = bench_dev_event_wait(f->d, f->event, WAIT_TIMEOUT_MS, &result);
		f->t1[i] = bench_now_ns();
		if (!r && result != KFD_IOC_WAIT_RESULT_COMPLETE)
			r = -ETIMEDOUT;
		if (r) {
			f->err = r;
			__atomic_store_n(&f->done, f->iters, __ATOMIC_RELEASE);
			return NULL;
		}
		__atomic_store_n(&f->done, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Until *p reaches v or the waiter has ended. */
static void spin_until(const struct fence_run *f, const unsigned *p, unsigned v)
{
	struct timespec ts = {0, 20000};

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) < v &&
	       __atomic_load_n(&f->done, __ATOMIC_ACQUIRE) < f->iters)
		nanosleep(&ts, NULL);
}

static void fence_path(enum bench_path p, unsigned iters, struct bench_cell *c)
{
	struct timespec settle = {0, SETTLE_NS};
	struct fence_run f;
	char why[BENCH_REASON_LEN];
	uint64_t *t0, *s;
	pthread_t th;
	int r;

	memset(&f, 0, sizeof(f));
	f.iters = iters;
	f.d = bench_dev_open(p, why, sizeof(why));
	if (!f.d) {
		bench_cell_na(c, "%s", why);
		return;
	}
	r = bench_dev_event_create(f.d, true, &f.event);
	if (r) {
		bench_cell_na(c, "CREATE_EVENT: %s", strerror(-r));
		bench_dev_close(f.d);
		return;
	}
	t0 = calloc(iters, sizeof(*t0));
	f.t1 = calloc(iters, sizeof(*f.t1));
	s = calloc(iters, sizeof(*s));
	if (!t0 || !f.t1 || !s || pthread_create(&th, NULL, waiter, &f)) {
		bench_cell_na(c, "out of memory or threads");
		goto out;
	}
	/* the waiter stays on the guest CPU; the signaller may run anywhere */
	bench_unpin();
	for (unsigned i = 0; i < iters && !r; i++) {
		spin_until(&f, &f.ready, i + 1);
		if (__atomic_load_n(&f.done, __ATOMIC_ACQUIRE) >= iters)
			break; /* the waiter failed */
		nanosleep(&settle, NULL);
		t0[i] = bench_now_ns();
		r = bench_dev_event_set(f.d, f.event, false);
		if (r)
			break;
		spin_until(&f, &f.done, i + 1);
	}
	if (r) { /* unblock the waiter before joining it */
		__atomic_store_n(&f.stop, true, __ATOMIC_RELEASE);
		bench_dev_event_set(f.d, f.event, false);
	}
	pthread_join(th, NULL);
	bench_pin(0);
	if (r || f.err) {
		bench_cell_na(c, "%s: %s", r ? "SET_EVENT" : "WAIT_EVENTS",
			      strerror(-(r ? r : f.err)));
		goto out;
	}
	for (unsigned i = 0; i < iters; i++)
		s[i] = f.t1[i] > t0[i] ? f.t1[i] - t0[i] : 0;
	bench_cell_samples(c, s, iters);
	s = NULL;
out:
	free(s);
	free(t0);
	free(f.t1);
	bench_dev_close(f.d);
}

void bench_fence(const struct bench_opts *o, struct bench_scenario_result *out)
{
	out->name = "fence";
	out->primary_name = "p50_us";
	out->higher_is_better = false;
	snprintf(out->note, sizeof(out->note),
		 "SET_EVENT -> blocked WAIT_EVENTS returns, %u wake-ups per path", o->iterations);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			fence_path((enum bench_path)p, o->iterations, &out->cell[p]);
}
