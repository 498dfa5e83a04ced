/* SPDX-License-Identifier: MIT */
/*
 * Private to the engine sources: the queue object shared by the thread
 * machinery (engine_queue.c), the packet processors (aql_engine.c,
 * sdma_engine.c) and the builtin kernels.
 */
#ifndef KFDSIM_ENGINE_INTERNAL_H
#define KFDSIM_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim_engine.h"

/* Why the engine left a packet unfinished. */
enum engine_status {
	ENGINE_OK = 0,  /* progress: at least one packet done */
	ENGINE_RETRY,   /* nothing to do yet (empty, header INVALID,
			 * partial packet, unsatisfied wait) */
	ENGINE_STOPPED, /* stop() requested: abandon the packet */
	ENGINE_DEAD,    /* fault or queue error reported: queue is halted */
};

struct sim_engine_queue {
	struct sim_queue_desc desc;
	struct sim_gpu_env env;
	pthread_t thread;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	/* Bumped under `lock` by kick / set_active / stop so that a waiter
	 * that saw an older value never misses a wake-up. */
	atomic_uint_fast64_t wake_gen;
	atomic_bool stop;
	atomic_bool active;
	/* Set by the engine thread after vm_fault/queue_error. */
	atomic_bool dead;
	/* Engine thread holds no host pointer into GPU memory and will not
	 * take one before it sees the queue active again (under `lock`). */
	bool parked;
	bool exited; /* engine thread has returned (the queue stays
		      * allocated until its owner calls stop()) */

	/* Engine-private read index: packets for AQL, bytes for SDMA. */
	uint64_t rptr;
	uint64_t last_doorbell;
	/* How far the doorbell released work, in rptr's units (the engine
	 * thread's alone; engine_write_limit). */
	uint64_t db_limit;
	/* Packet at `rptr` has been seen since start_ts (barriers may be
	 * evaluated many times; their start is when first seen). */
	bool pkt_seen;
	uint64_t pkt_start_ts;
	/* Unsuccessful polls of the SDMA POLL_REGMEM packet at `rptr`. */
	uint32_t poll_tries;
};

/* ---- waiting (engine_queue.c) ---- */

/* Adaptive wait state: spin briefly, then sleep with doubling intervals. */
struct engine_backoff {
	unsigned spins;
	uint64_t sleep_ns;
	uint64_t gen; /* wake_gen at the mark */
};

void engine_backoff_reset(struct engine_backoff *b);
/* Note the wake generation before looking for work: a wake-up that comes
 * after the mark ends the next wait at once, even if the look missed it. */
void engine_backoff_mark(struct sim_engine_queue *q, struct engine_backoff *b);
/* One step of waiting: spins, or sleeps until the next interval ends or a
 * kick/stop/set_active arrives after the mark. */
void engine_backoff_wait(struct sim_engine_queue *q, struct engine_backoff *b);
/* Preemption point: returns false when the queue must stop; blocks while
 * the queue is inactive (the packet resumes where it was, like a
 * context-saved wave). */
bool engine_checkpoint(struct sim_engine_queue *q);
/* Sleep `ns` nanoseconds of active time; false if stopped meanwhile. */
bool engine_sleep_ns(struct sim_engine_queue *q, uint64_t ns);
/* GPU clock ticks (env->gpu_clock, or CLOCK_MONOTONIC ns without one). */
uint64_t engine_gpu_clock(struct sim_engine_queue *q);

/* Raise interrupt `event_id` through env->interrupt. The engine counts as
 * parked during the callback (it may deactivate queues); false when the
 * queue was stopped meanwhile. */
bool engine_raise_interrupt(struct sim_engine_queue *q, uint32_t event_id);

/* Report and halt: the queue processes no further packets. */
void engine_vm_fault(struct sim_engine_queue *q, uint64_t va, bool write);
void engine_queue_error(struct sim_engine_queue *q, int reason);
/* engine_qerror.c: what the trap handler (wave errors) or the CP (packet
 * errors) writes into the queue's amd_queue_t and raises before the queue
 * halts. False when that faulted (reported) or the queue was stopped. */
bool engine_report_queue_error(struct sim_engine_queue *q, int reason);

/* The write index the processors work up to: from the doorbell (as the
 * hardware), or the write pointer in memory for a queue without one. */
enum engine_status engine_write_limit(struct sim_engine_queue *q, uint64_t *out);

/* ---- packet processors: process what is available, return status ---- */
enum engine_status aql_process(struct sim_engine_queue *q);
enum engine_status sdma_process(struct sim_engine_queue *q);

#endif
