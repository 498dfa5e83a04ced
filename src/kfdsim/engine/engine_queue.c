/* SPDX-License-Identifier: MIT */
/*
 * Engine queue lifecycle: one thread per queue that watches the doorbell
 * with adaptive polling and hands work to the AQL or SDMA packet processor,
 * up to the doorbell value (engine_write_limit).
 */
#include "engine_internal.h"
#include "engine_mem.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Polls before the first sleep; a doorbell usually follows quickly. */
#define BACKOFF_SPINS  64
#define BACKOFF_MIN_NS 1000ull
#define BACKOFF_MAX_NS 1000000ull

/* Test hook (kfdsim_test_hooks.h): when set, an idle engine never polls
 * and sleeps until a kick, set_active or stop wakes it. */
static atomic_bool idle_poll_off;

void kfdsim_test_engine_idle_poll(bool on)
{
	atomic_store(&idle_poll_off, !on);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts = {
	    .tv_sec = (time_t)(ns / 1000000000ull),
	    .tv_nsec = (long)(ns % 1000000000ull),
	};
	return ts;
}

uint64_t engine_gpu_clock(struct sim_engine_queue *q)
{
	if (q->env.gpu_clock)
		return q->env.gpu_clock(q->env.ctx);
	return mono_ns();
}

/* Wait until wake_gen moves away from `gen` or the absolute monotonic
 * deadline passes (UINT64_MAX: no deadline). */
static void wait_gen_until(struct sim_engine_queue *q, uint64_t gen, uint64_t deadline_ns)
{
	struct timespec ts = ns_to_timespec(deadline_ns);

	pthread_mutex_lock(&q->lock);
	while (atomic_load(&q->wake_gen) == gen && deadline_ns == UINT64_MAX)
		pthread_cond_wait(&q->cond, &q->lock);
	while (atomic_load(&q->wake_gen) == gen && mono_ns() < deadline_ns) {
		if (pthread_cond_timedwait(&q->cond, &q->lock, &ts) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&q->lock);
}

static void wake(struct sim_engine_queue *q)
{
	pthread_mutex_lock(&q->lock);
	atomic_fetch_add(&q->wake_gen, 1);
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void engine_backoff_reset(struct engine_backoff *b)
{
	b->spins = 0;
	b->sleep_ns = BACKOFF_MIN_NS;
}

void engine_backoff_mark(struct sim_engine_queue *q, struct engine_backoff *b)
{
	b->gen = atomic_load(&q->wake_gen);
}

void engine_backoff_wait(struct sim_engine_queue *q, struct engine_backoff *b)
{
	uint64_t gen = b->gen;

	if (atomic_load(&idle_poll_off)) {
		/* only a wake-up after the mark ends this */
		wait_gen_until(q, gen, UINT64_MAX);
		engine_backoff_reset(b);
		return;
	}
	if (b->spins < BACKOFF_SPINS) {
		b->spins++;
		cpu_relax();
		return;
	}
	if (atomic_load(&q->stop))
		return;
	wait_gen_until(q, gen, mono_ns() + b->sleep_ns);
	if (atomic_load(&q->wake_gen) != gen) {
		/* Kicked: poll eagerly again. */
		engine_backoff_reset(b);
		return;
	}
	b->sleep_ns *= 2;
	if (b->sleep_ns > BACKOFF_MAX_NS)
		b->sleep_ns = BACKOFF_MAX_NS;
}

static void park_begin(struct sim_engine_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->parked = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/* Leave the parked state once the queue is active; false on stop. */
static bool park_end(struct sim_engine_queue *q)
{
	bool run;

	pthread_mutex_lock(&q->lock);
	while (!atomic_load(&q->stop) && !atomic_load(&q->active))
		pthread_cond_wait(&q->cond, &q->lock);
	run = !atomic_load(&q->stop);
	q->parked = !run;
	pthread_mutex_unlock(&q->lock);
	return run;
}

bool engine_checkpoint(struct sim_engine_queue *q)
{
	if (atomic_load(&q->stop))
		return false;
	if (atomic_load(&q->active))
		return true;
	park_begin(q);
	return park_end(q);
}

bool engine_raise_interrupt(struct sim_engine_queue *q, uint32_t event_id)
{
	park_begin(q);
	q->env.interrupt(q->env.ctx, event_id);
	return park_end(q);
}

bool engine_sleep_ns(struct sim_engine_queue *q, uint64_t ns)
{
	uint64_t left = ns;

	while (left) {
		uint64_t gen, start, deadline, slept;

		if (!engine_checkpoint(q))
			return false;
		gen = atomic_load(&q->wake_gen);
		start = mono_ns();
		deadline = left > UINT64_MAX - start ? UINT64_MAX : start + left;
		/* Cap one wait so a huge value cannot overflow time_t. */
		if (deadline - start > 1000000000ull)
			deadline = start + 1000000000ull;
		wait_gen_until(q, gen, deadline);
		slept = mono_ns() - start;
		left = slept >= left ? 0 : left - slept;
	}
	return !atomic_load(&q->stop);
}

/*
 * How far user space has rung: packets (AQL) or bytes (SDMA) before which
 * the engine may work. As on hardware, the doorbell value is the write
 * pointer the engine acts on; the write pointer in memory is not looked
 * at. An AQL doorbell holds the index of the last packet made ready, an
 * SDMA doorbell the write offset in bytes. The limit only moves forward
 * (wrap-around order): a producer that rings an older index after a newer
 * one (two producers racing) un-rings nothing. A queue without a doorbell
 * (desc.doorbell NULL) follows its write pointer in memory instead.
 */
enum engine_status engine_write_limit(struct sim_engine_queue *q, uint64_t *out)
{
	const uint64_t *wptr;
	uint64_t bell, cand;

	if (!q->desc.doorbell) {
		wptr = engine_mem_object(q, q->desc.wptr_va, sizeof(*wptr), false);
		if (!wptr)
			return ENGINE_DEAD;
		*out = __atomic_load_n(wptr, __ATOMIC_ACQUIRE);
		return ENGINE_OK;
	}
	bell = __atomic_load_n(q->desc.doorbell, __ATOMIC_ACQUIRE);
	cand = q->desc.type == SIM_QUEUE_COMPUTE_AQL ? bell + 1 : bell;
	if ((int64_t)(cand - q->db_limit) > 0)
		q->db_limit = cand;
	*out = q->db_limit;
	return ENGINE_OK;
}

/* A halted queue never touches memory again: park for good, then report. */
void engine_vm_fault(struct sim_engine_queue *q, uint64_t va, bool write)
{
	if (atomic_exchange(&q->dead, true))
		return;
	park_begin(q);
	q->env.vm_fault(q->env.ctx, va, write);
}

void engine_queue_error(struct sim_engine_queue *q, int reason)
{
	if (atomic_load(&q->dead))
		return;
	/* The report comes first: it may itself fault (then the fault is
	 * what user space sees) and it may raise an interrupt. */
	if (!engine_report_queue_error(q, reason))
		return;
	if (atomic_exchange(&q->dead, true))
		return;
	park_begin(q);
	q->env.queue_error(q->env.ctx, q->desc.queue_id, reason);
}

static void *engine_thread(void *arg)
{
	struct sim_engine_queue *q = arg;
	struct engine_backoff backoff;

	engine_backoff_reset(&backoff);
	while (!atomic_load(&q->stop)) {
		enum engine_status st;
		uint64_t bell;

		if (atomic_load(&q->dead)) {
			/* Halted after a fault: only stop() is left to do. */
			pthread_mutex_lock(&q->lock);
			while (!atomic_load(&q->stop))
				pthread_cond_wait(&q->cond, &q->lock);
			pthread_mutex_unlock(&q->lock);
			break;
		}
		if (!engine_checkpoint(q))
			break;
		/* before the doorbell is read: a ring (store, then kick) that
		 * this pass misses has moved wake_gen past the mark */
		engine_backoff_mark(q, &backoff);
		if (q->desc.doorbell) {
			bell = __atomic_load_n(q->desc.doorbell, __ATOMIC_ACQUIRE);
			if (bell != q->last_doorbell) {
				q->last_doorbell = bell;
				engine_backoff_reset(&backoff);
			}
		}
		if (q->desc.type == SIM_QUEUE_COMPUTE_AQL)
			st = aql_process(q);
		else
			st = sdma_process(q);
		if (st == ENGINE_OK)
			engine_backoff_reset(&backoff);
		else if (st == ENGINE_RETRY)
			engine_backoff_wait(q, &backoff);
	}
	/* The thread never frees the queue: its owner does, in stop(), after
	 * joining it (see sim_engine.h). */
	pthread_mutex_lock(&q->lock);
	q->exited = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static bool desc_valid(const struct sim_queue_desc *d, const struct sim_gpu_env *env)
{
	uint64_t min_size;

	if (!env->translate || !env->interrupt || !env->vm_fault || !env->queue_error)
		return false;
	if (d->type == SIM_QUEUE_COMPUTE_AQL)
		min_size = 64;
	else if (d->type == SIM_QUEUE_SDMA)
		min_size = 64;
	else
		return false;
	if (d->ring_size < min_size || (d->ring_size & (d->ring_size - 1)))
		return false;
	return true;
}

struct sim_engine_queue *sim_engine_queue_start(const struct sim_queue_desc *desc,
						const struct sim_gpu_env *env)
{
	struct sim_engine_queue *q;
	pthread_condattr_t ca;
	sigset_t all, old;
	const uint64_t *rp;
	int err;

	if (!desc || !env || !desc_valid(desc, env)) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	q->desc = *desc;
	q->env = *env;
	/* The queue base and pointer registers drop the low address bits
	 * (ring base in 256-byte units, pointers qword aligned); so does the
	 * model, which also keeps its atomics aligned. */
	q->desc.ring_va &= ~255ull;
	q->desc.rptr_va &= ~7ull;
	q->desc.wptr_va &= ~7ull;
	atomic_init(&q->wake_gen, 0);
	atomic_init(&q->stop, false);
	atomic_init(&q->active, true);
	atomic_init(&q->dead, false);
	/* Resume from the read pointer in memory (0 for a fresh queue). */
	rp = env->translate(env->ctx, q->desc.rptr_va, sizeof(*rp), false);
	q->rptr = rp ? __atomic_load_n(rp, __ATOMIC_ACQUIRE) : 0;
	if (desc->type == SIM_QUEUE_SDMA)
		q->rptr &= ~3ull;
	/* nothing rung beyond where the queue resumes */
	q->db_limit = q->rptr;
	if (desc->doorbell)
		q->last_doorbell = __atomic_load_n(desc->doorbell, __ATOMIC_ACQUIRE);

	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);

	/* The engine thread takes no signals: host handlers (e.g. the wait
	 * cancellation signal) must land on the threads that expect them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&q->thread, NULL, engine_thread, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&q->cond);
		pthread_mutex_destroy(&q->lock);
		free(q);
		errno = err;
		return NULL;
	}
	pthread_setname_np(q->thread, desc->type == SIM_QUEUE_SDMA ? "kfdsim-sdma" : "kfdsim-aql");
	return q;
}

void sim_engine_queue_kick(struct sim_engine_queue *q)
{
	if (q)
		wake(q);
}

void sim_engine_queue_set_active(struct sim_engine_queue *q, bool active)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	atomic_store(&q->active, active);
	atomic_fetch_add(&q->wake_gen, 1);
	pthread_cond_broadcast(&q->cond);
	/* Like the kernel's queue unmap: return only once the engine holds
	 * no pointer into the process's memory, so the caller may change
	 * mappings. Not from the engine's own thread (a callback). */
	if (!active && !pthread_equal(pthread_self(), q->thread)) {
		while (!q->parked && !q->exited)
			pthread_cond_wait(&q->cond, &q->lock);
	}
	pthread_mutex_unlock(&q->lock);
}

void sim_engine_queue_halt(struct sim_engine_queue *q)
{
	if (!q)
		return;
	/* Under the lock, so that a waiter that checked `stop` is already
	 * waiting when the broadcast comes. */
	pthread_mutex_lock(&q->lock);
	atomic_store(&q->stop, true);
	atomic_fetch_add(&q->wake_gen, 1);
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void sim_engine_queue_stop(struct sim_engine_queue *q)
{
	if (!q)
		return;
	if (pthread_equal(pthread_self(), q->thread)) {
		/* A callback freeing its own queue would leave every other
		 * holder of the pointer (a kick in flight, the owner) with a
		 * freed queue: callbacks use halt(); the owner stops. */
		fprintf(stderr, "kfdsim: sim_engine_queue_stop() from the queue's own engine "
				"thread; callbacks must use sim_engine_queue_halt()\n");
		abort();
	}
	sim_engine_queue_halt(q);
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
