// SPDX-License-Identifier: MIT
#include "wait_pool.h"
#include "host_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wait_job {
	wait_job_fn fn;
	wait_job_fn done;
	void *arg;
	struct wait_job *next;
};

struct wait_thread {
	pthread_t tid;
	bool busy;
	struct wait_pool *pool;
};

struct wait_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct wait_job *head, *tail;
	uint32_t queued;
	uint32_t busy;
	uint32_t max_threads;
	uint32_t n_threads;
	uint32_t idle;
	struct wait_thread *threads;
	bool shutdown;
};

static void on_cancel_signal(int sig)
{
	(void)sig; /* only there to interrupt a blocking ioctl */
}

static pthread_once_t sig_once = PTHREAD_ONCE_INIT;

static void install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the wait must return -EINTR */
	sigaction(WAIT_POOL_SIGNAL, &sa, NULL);
}

static void *pool_thread(void *arg)
{
	struct wait_thread *me = arg;
	struct wait_pool *p = me->pool;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct wait_job *j;

		while (!p->head && !p->shutdown) {
			p->idle++;
			pthread_cond_wait(&p->cond, &p->lock);
			p->idle--;
		}
		j = p->head;
		if (!j)
			break; /* shutdown with nothing queued */
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
		me->busy = true;
		pthread_mutex_unlock(&p->lock);
		j->fn(j->arg);
		pthread_mutex_lock(&p->lock);
		me->busy = false;
		p->busy--;
		pthread_cond_broadcast(&p->cond);
		if (j->done) {
			/* the slot is free before done() can tell anyone (retire a
			 * fence): a job submitted in reaction finds room */
			pthread_mutex_unlock(&p->lock);
			j->done(j->arg);
			pthread_mutex_lock(&p->lock);
		}
		free(j);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int wait_pool_create(struct wait_pool **out, uint32_t max_threads)
{
	struct wait_pool *p;

	pthread_once(&sig_once, install_handler);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->max_threads = max_threads ? max_threads : 1;
	p->threads = calloc(p->max_threads, sizeof(*p->threads));
	if (!p->threads) {
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	*out = p;
	return 0;
}

int wait_pool_submit(struct wait_pool *p, wait_job_fn fn, void *arg)
{
	return wait_pool_submit_done(p, fn, NULL, arg);
}

int wait_pool_submit_done(struct wait_pool *p, wait_job_fn fn, wait_job_fn done, void *arg)
{
	struct wait_job *j;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	if (p->shutdown) {
		ret = -ESHUTDOWN;
		goto out;
	}
	/* every job needs its own thread: a wait may block indefinitely */
	if (p->busy >= p->max_threads) {
		ret = -EBUSY;
		goto out;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * A thread running done() is neither busy nor idle but loops back for
	 * queued jobs; with n_threads at the cap, busy < cap guarantees more
	 * such or idle threads than queued jobs, so none is ever stranded.
	 */
	if (p->idle <= p->queued && p->n_threads < p->max_threads) {
		p->threads[p->n_threads].pool = p;
		ret = -pthread_create(&p->threads[p->n_threads].tid, NULL, pool_thread,
				      &p->threads[p->n_threads]);
		if (ret) {
			free(j);
			goto out;
		}
		p->n_threads++;
	}
	j->fn = fn;
	j->done = done;
	j->arg = arg;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	p->queued++;
	p->busy++;
	pthread_cond_signal(&p->cond);
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}

uint32_t wait_pool_busy(struct wait_pool *p)
{
	uint32_t n;

	pthread_mutex_lock(&p->lock);
	n = p->busy;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void wait_pool_destroy(struct wait_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->shutdown = true;
	pthread_cond_broadcast(&p->cond);
	/* interrupt blocked waits until every job has returned */
	while (p->busy) {
		struct timespec ts;

		for (uint32_t i = 0; i < p->n_threads; i++)
			if (p->threads[i].busy)
				pthread_kill(p->threads[i].tid, WAIT_POOL_SIGNAL);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 2 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	for (uint32_t i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i].tid, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->threads);
	free(p);
}
