/* SPDX-License-Identifier: MIT */
/*
 * Engine queue lifetime under concurrency: the owner starts and stops
 * queues while other threads kick them and toggle them inactive, and the
 * queues' own callbacks halt them. The sanitizer builds (TSan, ASan) check
 * that no thread touches a freed queue; the assertions check that no
 * completion is lost, nothing runs after a halt, and every engine thread
 * is gone once its queue is stopped.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "aql_packets.h"
#include "engine_internal.h"
#include "engine_test_util.h"

#define WAIT_MS         10000
#define REGRESSION_RUNS 200
#define STRESS_ITER_MAX 3000
/* Bounds the stress loop on a slow (sanitized, loaded) machine; the
 * assertions never depend on it. */
#define STRESS_BUDGET_NS 3000000000ull
#define STRESS_KICKERS   2
#define MAX_PKTS         16
#define KARG_STRIDE      64

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A pause of random length: none, a yield, or up to ~20 us of sleep. */
static void rnd_pause(uint64_t *s)
{
	uint64_t r = rnd_next(s) % 8;

	if (r < 3)
		return;
	if (r < 6) {
		sched_yield();
		return;
	}
	struct timespec ts = {0, (long)(rnd_next(s) % 20000)};

	nanosleep(&ts, NULL);
}

/* Engine threads of this process still alive (they name themselves). */
static unsigned engine_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* exited meanwhile */
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kfdsim-", 7))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static bool engine_exited(struct sim_engine_queue *q)
{
	bool ex;

	pthread_mutex_lock(&q->lock);
	ex = q->exited;
	pthread_mutex_unlock(&q->lock);
	return ex;
}

static void put_u64(struct fake_gpu *g, uint64_t va, uint64_t v)
{
	memcpy(host(g, va), &v, sizeof(v));
}

static uint64_t sig_va(unsigned i)
{
	return SIG_VA + 64ull * i;
}

/* ---- regression: a callback halts its queue while another thread kicks */

struct kicker {
	struct sim_engine_queue *q;
	atomic_bool done;
	atomic_ulong kicks;
};

static void *kick_loop(void *arg)
{
	struct kicker *k = arg;

	while (!atomic_load(&k->done)) {
		sim_engine_queue_kick(k->q);
		atomic_fetch_add(&k->kicks, 1);
	}
	return NULL;
}

/* The fault callback halts the queue while a second thread kicks it
 * without pause; the kicks go on until the engine thread has returned,
 * which is exactly when a queue that freed itself was gone (the TSan
 * finding of #18). The queue must stay usable until its owner stops it. */
static void test_halt_from_fault_while_kicked(void **state)
{
	struct fake_gpu g;

	(void)state;
	test_env_setup(&g);
	put_u64(&g, KARG_VA, HOLE_VA);
	for (unsigned run = 0; run < REGRESSION_RUNS; run++) {
		struct test_queue t;
		struct kicker k = {0};
		pthread_t th;
		int64_t *sig = signal_init(&g, SIG_VA, 1, 0, 0);
		int64_t *after = signal_init(&g, SIG_VA + 64, 1, 0, 0);

		tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
		k.q = t.q;
		__atomic_store_n(&g.halt_on_fault, t.q, __ATOMIC_RELEASE);
		assert_int_equal(pthread_create(&th, NULL, kick_loop, &k), 0);
		/* the kicks are under way before the fault can come */
		while (atomic_load(&k.kicks) == 0)
			sched_yield();
		aql_dispatch(&t, KFDSIM_BUILTIN_FAULT, KARG_VA, SIG_VA);
		assert_true(wait_until(has_fault, &g, WAIT_MS));
		/* the halt makes the engine thread return, kicked all along */
		for (unsigned ms = 0; !engine_exited(t.q) && ms < WAIT_MS; ms++)
			sleep_ms(1);
		assert_true(engine_exited(t.q));
		/* a halted queue takes kicks and work, and runs none of it */
		aql_dispatch(&t, KFDSIM_BUILTIN_SLEEP, KARG_VA + KARG_STRIDE, SIG_VA + 64);
		sim_engine_queue_set_active(t.q, false);
		sim_engine_queue_set_active(t.q, true);
		sim_engine_queue_halt(t.q);
		atomic_store(&k.done, true);
		assert_int_equal(pthread_join(th, NULL), 0);
		assert_true(atomic_load(&k.kicks) > 0);
		__atomic_store_n(&g.halt_on_fault, NULL, __ATOMIC_RELEASE);
		tq_stop(&t);
		assert_int_equal(fake_gpu_faults(&g), run + 1);
		assert_int_equal(g.fault_va, HOLE_VA);
		assert_int_equal(__atomic_load_n(sig, __ATOMIC_ACQUIRE), 1);
		assert_int_equal(__atomic_load_n(after, __ATOMIC_ACQUIRE), 1);
	}
	/* every engine thread was joined */
	assert_int_equal(engine_threads(), 0);
	fake_gpu_fini(&g);
}

/* The interrupt callback of a completion signal halts the queue: the
 * packets behind it never run, though the queue keeps being kicked. */
static void test_halt_from_interrupt(void **state)
{
	struct fake_gpu g;
	struct test_queue t;
	int64_t *first, *second;

	(void)state;
	test_env_setup(&g);
	put_u64(&g, KARG_VA, 0);
	first = signal_init(&g, SIG_VA, 1, DATA_VA, 7);
	second = signal_init(&g, SIG_VA + 64, 1, 0, 0);
	tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
	__atomic_store_n(&g.halt_on_interrupt, t.q, __ATOMIC_RELEASE);
	aql_dispatch(&t, KFDSIM_BUILTIN_SLEEP, KARG_VA, SIG_VA);
	assert_true(wait_until(has_interrupt, &g, WAIT_MS));
	for (unsigned ms = 0; !engine_exited(t.q) && ms < WAIT_MS; ms++)
		sleep_ms(1);
	assert_true(engine_exited(t.q));
	aql_dispatch(&t, KFDSIM_BUILTIN_SLEEP, KARG_VA, SIG_VA + 64);
	sim_engine_queue_kick(t.q);
	__atomic_store_n(&g.halt_on_interrupt, NULL, __ATOMIC_RELEASE);
	tq_stop(&t);
	assert_int_equal(__atomic_load_n(first, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(__atomic_load_n(second, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(fake_gpu_interrupts(&g), 1);
	fake_gpu_fini(&g);
}

/* ---- stress: owner, kickers, togglers and halting callbacks together */

struct stress {
	struct fake_gpu g;
	/* The owner's rule: it stops a queue only once it is out of `slot`
	 * and no kicker holds it (write lock). */
	pthread_rwlock_t slot_lock;
	struct sim_engine_queue *slot;
	atomic_bool done;
	atomic_ulong kicks, toggles;
};

struct kicker_arg {
	struct stress *s;
	uint64_t seed;
};

static void *stress_kicker(void *arg)
{
	struct kicker_arg *a = arg;
	struct stress *s = a->s;

	while (!atomic_load(&s->done)) {
		pthread_rwlock_rdlock(&s->slot_lock);
		if (s->slot) {
			if (rnd_next(&a->seed) % 4) {
				sim_engine_queue_kick(s->slot);
				atomic_fetch_add(&s->kicks, 1);
			} else {
				/* UPDATE_QUEUE to 0 % and back */
				sim_engine_queue_set_active(s->slot, false);
				rnd_pause(&a->seed);
				sim_engine_queue_set_active(s->slot, true);
				atomic_fetch_add(&s->toggles, 1);
			}
		}
		pthread_rwlock_unlock(&s->slot_lock);
		rnd_pause(&a->seed);
	}
	return NULL;
}

static void publish(struct stress *s, struct sim_engine_queue *q)
{
	pthread_rwlock_wrlock(&s->slot_lock);
	s->slot = q;
	pthread_rwlock_unlock(&s->slot_lock);
}

/* One queue's life: n packets, maybe a faulting one at fault_at, maybe
 * stopped while busy. In-order queue (barrier bit): completions form a
 * prefix, nothing at or behind the fault completes. */
static void stress_one(struct stress *s, uint64_t *seed)
{
	struct fake_gpu *g = &s->g;
	struct test_queue t;
	unsigned n = 1 + (unsigned)(rnd_next(seed) % MAX_PKTS);
	unsigned fault_at = (unsigned)(rnd_next(seed) % (n + 1)); /* n: none */
	bool halt = rnd_next(seed) % 2;
	bool abandon = rnd_next(seed) % 4 == 0;
	unsigned faults0 = fake_gpu_faults(g);
	int64_t *sig[MAX_PKTS];
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++) {
		sig[i] = signal_init(g, sig_va(i), 1, 0, 0);
		put_u64(g, KARG_VA + KARG_STRIDE * i,
			i == fault_at ? HOLE_VA : rnd_next(seed) % 5000);
	}
	tq_start(&t, g, SIM_QUEUE_COMPUTE_AQL, 4096);
	if (halt)
		__atomic_store_n(&g->halt_on_fault, t.q, __ATOMIC_RELEASE);
	publish(s, t.q);
	for (unsigned i = 0; i < n; i++) {
		aql_dispatch(&t, i == fault_at ? KFDSIM_BUILTIN_FAULT : KFDSIM_BUILTIN_SLEEP,
			     KARG_VA + KARG_STRIDE * i, sig_va(i));
		rnd_pause(seed);
	}
	if (!abandon) {
		/* no lost completion: everything before the fault finishes */
		for (unsigned i = 0; i < n && i < fault_at; i++)
			assert_true(wait_i64(sig[i], 0, WAIT_MS));
		if (fault_at < n)
			for (unsigned ms = 0; fake_gpu_faults(g) == faults0 && ms < WAIT_MS; ms++)
				sleep_ms(1);
	}
	publish(s, NULL);
	__atomic_store_n(&g->halt_on_fault, NULL, __ATOMIC_RELEASE);
	tq_stop(&t);
	while (done < n && __atomic_load_n(sig[done], __ATOMIC_ACQUIRE) == 0)
		done++;
	for (unsigned i = done; i < n; i++)
		assert_int_equal(__atomic_load_n(sig[i], __ATOMIC_ACQUIRE), 1);
	assert_true(done <= fault_at);
	if (!abandon) {
		assert_int_equal(done, fault_at < n ? fault_at : n);
		assert_int_equal(fake_gpu_faults(g), faults0 + (fault_at < n));
	} else {
		assert_true(fake_gpu_faults(g) <= faults0 + (fault_at < n));
	}
}

static void test_lifetime_stress(void **state)
{
	static struct stress s;
	struct kicker_arg ka[STRESS_KICKERS];
	pthread_t th[STRESS_KICKERS];
	uint64_t seed = 0x2545f4914f6cdd1dull ^ (uint64_t)time(NULL);
	uint64_t t0 = now_ns();
	unsigned iter;

	(void)state;
	memset(&s, 0, sizeof(s));
	test_env_setup(&s.g);
	pthread_rwlock_init(&s.slot_lock, NULL);
	for (unsigned i = 0; i < STRESS_KICKERS; i++) {
		ka[i].s = &s;
		ka[i].seed = seed + 0x9e3779b97f4a7c15ull * (i + 1);
		assert_int_equal(pthread_create(&th[i], NULL, stress_kicker, &ka[i]), 0);
	}
	for (iter = 0; iter < STRESS_ITER_MAX && now_ns() - t0 < STRESS_BUDGET_NS; iter++)
		stress_one(&s, &seed);
	atomic_store(&s.done, true);
	for (unsigned i = 0; i < STRESS_KICKERS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	printf("# %u queue lives, %lu kicks, %lu active toggles\n", iter,
	       (unsigned long)atomic_load(&s.kicks), (unsigned long)atomic_load(&s.toggles));
	assert_true(iter > 0);
	assert_true(atomic_load(&s.kicks) > 0);
	/* every engine thread was joined: none outlives its queue */
	assert_int_equal(engine_threads(), 0);
	pthread_rwlock_destroy(&s.slot_lock);
	fake_gpu_fini(&s.g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_halt_from_fault_while_kicked),
	    cmocka_unit_test(test_halt_from_interrupt),
	    cmocka_unit_test(test_lifetime_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
