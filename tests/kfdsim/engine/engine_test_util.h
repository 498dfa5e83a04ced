/* SPDX-License-Identifier: MIT */
/* Queue harness for the engine tests: fake memory layout, submission. */
#ifndef ENGINE_TEST_UTIL_H
#define ENGINE_TEST_UTIL_H

#include <stdint.h>

#include "fake_gpu_env.h"
#include "sim_engine.h"

/* Fake GPU VA layout */
#define Q_VA       0x10000000ull /* ring (<= 64 KiB), then rptr, wptr */
#define Q_RPTR_OFF 0x10000ull
#define Q2_VA      0x18000000ull /* a second queue region, same layout */
#define DATA_VA    0x20000000ull /* 1 MiB */
#define DATA_SIZE  0x100000ull
#define SPLIT_VA   0x40000000ull /* two 64 KiB regions back to back */
#define SPLIT_SIZE 0x10000ull
#define RO_VA      0x48000000ull /* 4 KiB read-only */
#define SIG_VA     0x50000000ull /* 4 KiB of signals, 64 B each */
#define KOBJ_VA    0x60000000ull /* kernel descriptors, 64 B each */
#define KARG_VA    0x70000000ull /* 64 KiB of kernargs */
#define HOLE_VA    0x90000000ull /* never mapped */

#define KOBJ_BAD_MAGIC 7 /* descriptor slot without KFDSIM01 */
#define KOBJ_BAD_ID    8 /* KFDSIM01 with builtin 99 */

struct test_queue {
	struct fake_gpu *g;
	struct sim_engine_queue *q;
	struct sim_queue_desc desc;
	uint8_t *ring;
	uint64_t *rptr;
	uint64_t *wptr;
	volatile uint64_t doorbell;
	uint64_t next; /* AQL: packet index; SDMA: byte offset */
};

/* Map the standard regions and write the kernel descriptors. */
void test_env_setup(struct fake_gpu *g);

void tq_start(struct test_queue *t, struct fake_gpu *g, enum sim_queue_type type,
	      uint64_t ring_size);
/* Same, with the queue region at qva (Q_VA or Q2_VA). */
void tq_start_at(struct test_queue *t, struct fake_gpu *g, enum sim_queue_type type,
		 uint64_t ring_size, uint64_t qva);
/* Same, with an SDMA queue reading the packet format of SDMA IP version
 * ip_major.ip_minor (tq_start/tq_start_at: SDMA 4.4, gfx90a's). */
void tq_start_sdma_ip(struct test_queue *t, struct fake_gpu *g, enum sim_queue_type type,
		      uint64_t ring_size, uint64_t qva, uint32_t ip_major, uint32_t ip_minor);
void tq_stop(struct test_queue *t);
/* Stop the queue if it runs, then free the fake GPU (a fixture's teardown). */
void tq_teardown(struct test_queue *t, struct fake_gpu *g);

/* The state most engine tests run against: the standard fake GPU and one
 * queue. engine_fixture_setup/_teardown are cmocka group or test setups;
 * *state is the struct engine_fixture. */
struct engine_fixture {
	struct fake_gpu g;
	struct test_queue t;
};
int engine_fixture_setup(void **state, enum sim_queue_type type, uint64_t ring_size);
int engine_fixture_teardown(void **state);

/* AQL: write the 64-byte packet (header last, release), bump the write
 * index and ring the doorbell (kick only if `kick`). */
void aql_submit(struct test_queue *t, const void *pkt, bool kick);
void aql_dispatch(struct test_queue *t, uint32_t kobj_slot, uint64_t kernarg_va,
		  uint64_t signal_va);
void aql_barrier(struct test_queue *t, bool is_or, const uint64_t deps[5], uint64_t signal_va);

/* SDMA: append dwords at the write offset (wrapping), then publish. */
void sdma_write(struct test_queue *t, const uint32_t *dw, unsigned n);
void sdma_publish(struct test_queue *t);

/* amd_signal_t at va */
int64_t *signal_init(struct fake_gpu *g, uint64_t va, int64_t value, uint64_t mailbox,
		     uint32_t event_id);
void *host(struct fake_gpu *g, uint64_t va);

#endif
