/* SPDX-License-Identifier: MIT */
/*
 * A capped pool of threads that run blocking waits (WAIT_EVENTS issued with
 * exactly the guest's arguments), one job per pending guest wait. Threads
 * are created on demand up to the cap and live until the pool is destroyed.
 *
 * Cancellation: wait_pool_destroy() first lets the owner unblock the waits
 * (the host context destroys the context's events, which makes KFD complete
 * every wait on them with FAIL), and also sends WAIT_POOL_SIGNAL to every
 * thread still busy; its handler is installed without SA_RESTART, so a wait
 * blocked in the kernel returns -EINTR instead of being restarted.
 */
#ifndef VKFD_WAIT_POOL_H
#define VKFD_WAIT_POOL_H

#include <signal.h>
#include <stdint.h>

#define WAIT_POOL_SIGNAL (SIGRTMIN + 5)

struct wait_pool;

typedef void (*wait_job_fn)(void *arg);

/* 0 or -errno. */
int wait_pool_create(struct wait_pool **out, uint32_t max_threads);
/* Run fn(arg) on a pool thread. -EBUSY when every thread is busy and the
 * cap is reached, -ENOMEM, -ESHUTDOWN after wait_pool_shutdown(). */
int wait_pool_submit(struct wait_pool *p, wait_job_fn fn, void *arg);
/* Same, then done(arg) on that thread after its slot is released: a job
 * submitted from done() or in reaction to it never sees -EBUSY for this
 * one. done may be NULL. */
int wait_pool_submit_done(struct wait_pool *p, wait_job_fn fn, wait_job_fn done, void *arg);
/* Jobs queued or running (not counting done()). */
uint32_t wait_pool_busy(struct wait_pool *p);
/* Refuse new jobs, interrupt running ones with WAIT_POOL_SIGNAL until they
 * return, join every thread and free the pool. Queued jobs not yet started
 * are run with cancelled = true semantics by calling fn(arg) anyway: the
 * owner's fn must check its own cancel flag. */
void wait_pool_destroy(struct wait_pool *p);

#endif
