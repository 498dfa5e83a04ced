/* SPDX-License-Identifier: MIT */
/*
 * Lock assertions for functions named *_locked (docs/architecture.md,
 * "Locks"). host_assert_held(m) aborts when nobody holds m: it tries the
 * lock, and a try that succeeds proves the caller did not hold it.
 *
 * What it proves: that some thread holds m, not that the caller does; it
 * catches a caller that forgot the lock whenever no other thread happens
 * to hold it, which in the tests is nearly always.
 *
 * Why it is safe, also under TSan: the mutexes are the default kind, on
 * which trylock never blocks and fails with EBUSY when held, by this
 * thread or another. A failed trylock acquires nothing, so it adds no
 * happens-before edge that could hide a race from TSan, and TSan's
 * deadlock detector does not count try-locks in its lock-order graph. The
 * success path (a bug) unlocks again before aborting.
 */
#ifndef VKFD_HOST_LOCK_H
#define VKFD_HOST_LOCK_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static inline void host_assert_held_at(pthread_mutex_t *m, const char *what, const char *fn)
{
	if (pthread_mutex_trylock(m) == 0) {
		pthread_mutex_unlock(m);
		fprintf(stderr, "vkfd-host: %s called without %s held\n", fn, what);
		abort();
	}
}

#define host_assert_held(m) host_assert_held_at((m), #m, __func__)

#endif
