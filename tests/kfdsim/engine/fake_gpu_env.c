/* SPDX-License-Identifier: MIT */
/* Fake GPU environment for the engine tests. */
#include "fake_gpu_env.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct fake_region *find(struct fake_gpu *g, uint64_t va, uint64_t len)
{
	for (unsigned i = 0; i < g->nregions; i++) {
		struct fake_region *r = &g->regions[i];

		if (va >= r->va && va - r->va < r->size && len <= r->size - (va - r->va))
			return r;
	}
	return NULL;
}

static void *fake_translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
	struct fake_gpu *g = ctx;
	struct fake_region *r = find(g, va, len);

	if (!r || len == 0 || (write && !r->writable))
		return NULL;
	return r->host + (va - r->va);
}

static void fake_interrupt(void *ctx, uint32_t event_id)
{
	struct fake_gpu *g = ctx;

	pthread_mutex_lock(&g->lock);
	if (g->n_interrupts < FAKE_MAX_EVENTS) {
		g->interrupts[g->n_interrupts] = event_id;
		g->value_at_interrupt[g->n_interrupts] =
		    g->watch_value ? __atomic_load_n(g->watch_value, __ATOMIC_ACQUIRE) : 0;
	}
	g->n_interrupts++;
	pthread_mutex_unlock(&g->lock);
	/* The test thread arms and disarms this while the engine runs. */
	struct sim_engine_queue *dq =
	    __atomic_load_n(&g->deactivate_on_interrupt, __ATOMIC_ACQUIRE);
	if (dq)
		sim_engine_queue_set_active(dq, false);
	struct sim_engine_queue *hq = __atomic_load_n(&g->halt_on_interrupt, __ATOMIC_ACQUIRE);

	if (hq)
		sim_engine_queue_halt(hq);
	pthread_mutex_lock(&g->lock);
	g->n_handled++;
	pthread_mutex_unlock(&g->lock);
}

static void fake_vm_fault(void *ctx, uint64_t va, bool write)
{
	struct fake_gpu *g = ctx;

	pthread_mutex_lock(&g->lock);
	g->n_faults++;
	g->fault_va = va;
	g->fault_write = write;
	pthread_mutex_unlock(&g->lock);
	struct sim_engine_queue *hq = __atomic_load_n(&g->halt_on_fault, __ATOMIC_ACQUIRE);

	if (hq)
		sim_engine_queue_halt(hq);
}

static void fake_queue_error(void *ctx, uint32_t queue_id, int reason)
{
	struct fake_gpu *g = ctx;

	pthread_mutex_lock(&g->lock);
	g->n_queue_errors++;
	g->error_queue_id = queue_id;
	g->error_reason = reason;
	pthread_mutex_unlock(&g->lock);
}

static uint64_t fake_clock(void *ctx)
{
	struct fake_gpu *g = ctx;

	return __atomic_add_fetch(&g->clock, 1, __ATOMIC_SEQ_CST);
}

void fake_gpu_init(struct fake_gpu *g)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->clock = 1000;
	g->env.ctx = g;
	g->env.translate = fake_translate;
	g->env.interrupt = fake_interrupt;
	g->env.vm_fault = fake_vm_fault;
	g->env.queue_error = fake_queue_error;
	g->env.gpu_clock = fake_clock;
	g->env.gpu_clock_hz = 100000000;
}

void fake_gpu_fini(struct fake_gpu *g)
{
	for (unsigned i = 0; i < g->nregions; i++)
		free(g->regions[i].host);
	pthread_mutex_destroy(&g->lock);
	memset(g, 0, sizeof(*g));
}

void *fake_gpu_map(struct fake_gpu *g, uint64_t va, uint64_t size, bool writable)
{
	struct fake_region *r;
	uint64_t alloc = (size + 4095) & ~4095ull;

	if (g->nregions >= FAKE_MAX_REGIONS)
		abort();
	r = &g->regions[g->nregions++];
	r->va = va;
	r->size = size;
	r->writable = writable;
	r->host = aligned_alloc(4096, alloc);
	if (!r->host)
		abort();
	memset(r->host, 0, alloc);
	return r->host;
}

void *fake_gpu_host(struct fake_gpu *g, uint64_t va)
{
	struct fake_region *r = find(g, va, 1);

	return r ? r->host + (va - r->va) : NULL;
}

bool fake_gpu_mapped(struct fake_gpu *g, uint64_t va, uint64_t len, bool write)
{
	return fake_translate(g, va, len, write) != NULL;
}

unsigned fake_gpu_interrupts(struct fake_gpu *g)
{
	unsigned n;

	pthread_mutex_lock(&g->lock);
	n = g->n_handled;
	pthread_mutex_unlock(&g->lock);
	return n;
}

unsigned fake_gpu_faults(struct fake_gpu *g)
{
	unsigned n;

	pthread_mutex_lock(&g->lock);
	n = g->n_faults;
	pthread_mutex_unlock(&g->lock);
	return n;
}

unsigned fake_gpu_queue_errors(struct fake_gpu *g)
{
	unsigned n;

	pthread_mutex_lock(&g->lock);
	n = g->n_queue_errors;
	pthread_mutex_unlock(&g->lock);
	return n;
}

bool has_fault(void *g)
{
	return fake_gpu_faults(g) > 0;
}

bool has_queue_error(void *g)
{
	return fake_gpu_queue_errors(g) > 0;
}

bool has_interrupt(void *g)
{
	return fake_gpu_interrupts(g) > 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

bool wait_until(bool (*pred)(void *arg), void *arg, unsigned timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 100000};

	for (;;) {
		if (pred(arg))
			return true;
		if (now_ns() > end)
			return false;
		nanosleep(&ts, NULL);
	}
}

struct wait_arg {
	const volatile void *p;
	uint64_t want;
	int kind;
};

static bool pred_eq(void *arg)
{
	struct wait_arg *w = arg;

	switch (w->kind) {
	case 0:
		return __atomic_load_n((const volatile uint64_t *)w->p, __ATOMIC_ACQUIRE) ==
		       w->want;
	case 1:
		return (uint64_t)__atomic_load_n((const volatile int64_t *)w->p,
						 __ATOMIC_ACQUIRE) == w->want;
	default:
		return __atomic_load_n((const volatile uint32_t *)w->p, __ATOMIC_ACQUIRE) ==
		       w->want;
	}
}

bool wait_u64(const volatile uint64_t *p, uint64_t want, unsigned timeout_ms)
{
	struct wait_arg w = {p, want, 0};

	return wait_until(pred_eq, &w, timeout_ms);
}

bool wait_i64(const volatile int64_t *p, int64_t want, unsigned timeout_ms)
{
	struct wait_arg w = {p, (uint64_t)want, 1};

	return wait_until(pred_eq, &w, timeout_ms);
}

bool wait_u32(const volatile uint32_t *p, uint32_t want, unsigned timeout_ms)
{
	struct wait_arg w = {p, want, 2};

	return wait_until(pred_eq, &w, timeout_ms);
}
