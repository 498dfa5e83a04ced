/* SPDX-License-Identifier: MIT */
/*
 * A fake struct sim_gpu_env for the engine tests: GPU memory is a few
 * heap buffers at chosen fake GPU VAs; every callback is recorded.
 */
#ifndef FAKE_GPU_ENV_H
#define FAKE_GPU_ENV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim_engine.h"

#define FAKE_MAX_REGIONS 16
#define FAKE_MAX_EVENTS  256

struct fake_region {
	uint64_t va;
	uint64_t size;
	uint8_t *host;
	bool writable;
};

struct fake_gpu {
	struct sim_gpu_env env;
	pthread_mutex_t lock;
	struct fake_region regions[FAKE_MAX_REGIONS];
	unsigned nregions;

	/* recorded callbacks (under lock) */
	unsigned n_interrupts;
	/* interrupts whose callback has finished (deactivate/halt done):
	 * what fake_gpu_interrupts() reports, so that a test that saw one
	 * may disarm the actions without racing the callback */
	unsigned n_handled;
	uint32_t interrupts[FAKE_MAX_EVENTS];
	/* signal value observed inside the interrupt callback, if set */
	const int64_t *watch_value;
	int64_t value_at_interrupt[FAKE_MAX_EVENTS];
	unsigned n_faults;
	uint64_t fault_va;
	bool fault_write;
	unsigned n_queue_errors;
	uint32_t error_queue_id;
	int error_reason;
	uint64_t clock;
	/* If set, the interrupt callback deactivates this queue (as a core
	 * evicting queues from a callback would). */
	struct sim_engine_queue *deactivate_on_interrupt;
	/* If set, the vm_fault callback halts this queue (its owner, the
	 * test, still stops it). Atomic: armed while the engine runs. */
	struct sim_engine_queue *halt_on_fault;
	/* If set, the interrupt callback halts this queue. Atomic. */
	struct sim_engine_queue *halt_on_interrupt;
};

void fake_gpu_init(struct fake_gpu *g);
void fake_gpu_fini(struct fake_gpu *g);
/* Back [va, va+size) with zeroed, 4 KiB-aligned host memory. */
void *fake_gpu_map(struct fake_gpu *g, uint64_t va, uint64_t size, bool writable);
/* Host pointer for a GPU VA inside a mapped region (tests only). */
void *fake_gpu_host(struct fake_gpu *g, uint64_t va);
/* True if the fake would translate [va, va+len) for `write`. */
bool fake_gpu_mapped(struct fake_gpu *g, uint64_t va, uint64_t len, bool write);

unsigned fake_gpu_interrupts(struct fake_gpu *g);
unsigned fake_gpu_faults(struct fake_gpu *g);
unsigned fake_gpu_queue_errors(struct fake_gpu *g);
/* wait_until predicates; arg is the struct fake_gpu * */
bool has_fault(void *g);
bool has_queue_error(void *g);
bool has_interrupt(void *g);

/* Poll `pred(arg)` every ~100 us for up to timeout_ms; true if it held. */
bool wait_until(bool (*pred)(void *arg), void *arg, unsigned timeout_ms);
/* Wait until *p == want (atomic loads). */
bool wait_u64(const volatile uint64_t *p, uint64_t want, unsigned timeout_ms);
bool wait_i64(const volatile int64_t *p, int64_t want, unsigned timeout_ms);
bool wait_u32(const volatile uint32_t *p, uint32_t want, unsigned timeout_ms);
void sleep_ms(unsigned ms);
uint64_t now_ns(void);

#endif
