/* SPDX-License-Identifier: MIT */
/*
 * Hostile input: garbage packets, huge sizes, bad queue descriptions.
 * Nothing may crash the host (the sanitizer build checks memory safety),
 * and every VM fault the engine reports must name an address that really
 * is not accessible.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aql_packets.h"
#include "engine_test_util.h"
#include "sdma_packets.h"

#define WAIT_MS 5000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Addresses near the interesting places of the fake layout. */
static uint64_t rnd_addr(void)
{
	switch (rnd() % 11) {
	case 0:
		return 0;
	case 1:
		return DATA_VA + rnd() % DATA_SIZE;
	case 2:
		return DATA_VA + DATA_SIZE - rnd() % 64;
	case 3:
		return HOLE_VA + rnd() % 4096;
	case 4:
		return RO_VA + rnd() % 4096;
	case 5:
		return SIG_VA + (rnd() % 64) * 64 + (rnd() % 4 == 0 ? rnd() % 64 : 8);
	case 6:
		return KOBJ_VA + 64 * (rnd() % 10);
	case 7:
		return KARG_VA + rnd() % 0x10000;
	case 8:
		return UINT64_MAX - rnd() % 128;
	case 9:
		return SPLIT_VA + SPLIT_SIZE - rnd() % 256;
	default:
		return rnd();
	}
}

static uint64_t rnd_value(void)
{
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return rnd() % 4096;
	case 2:
		return UINT64_MAX;
	case 3:
		return 1ull << 60;
	case 4:
		return rnd_addr();
	default:
		return rnd();
	}
}

static void scribble(struct fake_gpu *g, uint64_t va, uint64_t len)
{
	uint8_t *p = host(g, va);

	for (uint64_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = rnd_value();

		memcpy(p + i, &v, 8);
	}
}

/* Outcomes over a garbage run, so the test can show it reached the
 * interesting paths rather than bouncing off the first check. */
struct outcomes {
	unsigned faults, errors, interrupts, progressed;
};

static void count_outcome(struct fake_gpu *g, struct test_queue *t, struct outcomes *o)
{
	o->faults += g->n_faults;
	o->errors += g->n_queue_errors;
	o->interrupts += g->n_interrupts ? 1 : 0;
	o->progressed += *t->rptr != 0 ? 1 : 0;
}

static uint64_t small_or_any(void)
{
	return rnd() % 2 ? rnd() % 8192 : rnd_value();
}

/* Signals with mostly plausible contents (values 0 or 1, a mailbox in
 * mapped memory or none), some garbage. */
static void scribble_signals(struct fake_gpu *g)
{
	for (unsigned i = 0; i < 32; i++) {
		uint64_t mailbox = rnd() % 2   ? SIG_VA + 0x800 + 8 * (rnd() % 256)
				   : rnd() % 2 ? 0
					       : rnd_addr();

		signal_init(g, SIG_VA + 64 * i, rnd() % 4 ? (int64_t)(rnd() % 2) : (int64_t)rnd(),
			    mailbox, (uint32_t)rnd());
	}
}

static void scribble_kernargs(struct fake_gpu *g)
{
	for (unsigned i = 0; i < 0x10000 / 64; i++) {
		uint64_t ka[4] = {rnd_addr(), small_or_any() << (rnd() % 2 ? 32 : 0),
				  rnd() % 2 ? rnd_addr() : small_or_any(), small_or_any()};

		memcpy(host(g, KARG_VA + 64 * i), ka, sizeof(ka));
	}
}

static void plausible_aql_packet(uint64_t pkt[8])
{
	static const uint16_t types[] = {AQL_TYPE_KERNEL_DISPATCH, AQL_TYPE_KERNEL_DISPATCH,
					 AQL_TYPE_BARRIER_AND, AQL_TYPE_BARRIER_OR,
					 AQL_TYPE_VENDOR_SPECIFIC};
	uint16_t hdr = types[rnd() % 5] | AQL_HEADER_BARRIER;

	memset(pkt, 0, 64);
	for (int k = 1; k < 7; k++)
		pkt[k] = rnd() % 3 ? 0 : SIG_VA + 64 * (rnd() % 32);
	if (hdr == (AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER)) {
		pkt[4] = KOBJ_VA + 64 * (rnd() % 10);
		pkt[5] = KARG_VA + 64 * (rnd() % 1024);
	} else if (hdr == (AQL_TYPE_VENDOR_SPECIFIC | AQL_HEADER_BARRIER) && rnd() % 2) {
		/* PM4-IB with a jump to a random (often plausible) IB */
		uint64_t ib = rnd() % 2 ? KARG_VA + 4 * (rnd() % 64) : rnd_addr();
		uint32_t jump[4] = {3u << 30 | 2u << 16 | 0x3fu << 8, (uint32_t)ib & ~3u,
				    (uint32_t)(ib >> 32) & 0xffff,
				    (uint32_t)(rnd() % 16) | (rnd() % 4 ? 1u << 23 : 0)};

		pkt[0] = (uint64_t)AQL_AMD_FORMAT_PM4_IB << 16;
		memcpy((uint8_t *)pkt + 4, jump, sizeof(jump));
	} else if (hdr == (AQL_TYPE_VENDOR_SPECIFIC | AQL_HEADER_BARRIER)) {
		pkt[0] = (uint64_t)AQL_AMD_FORMAT_BARRIER_VALUE << 16;
		pkt[1] = SIG_VA + 64 * (rnd() % 32);
		pkt[2] = rnd() % 2;
		pkt[3] = rnd() % 2 ? UINT64_MAX : rnd();
		pkt[4] = rnd() % 5;
	}
	pkt[7] = rnd() % 4 == 0 ? 0 : SIG_VA + 64 * (rnd() % 32);
	memcpy(pkt, &hdr, 2);
}

/* The queue halted or consumed everything submitted. */
static struct test_queue *settle_queue;

static bool settled(void *arg)
{
	struct fake_gpu *g = arg;

	return fake_gpu_faults(g) || fake_gpu_queue_errors(g) ||
	       __atomic_load_n(settle_queue->rptr, __ATOMIC_ACQUIRE) == settle_queue->next;
}

/* Give the engine up to 10 ms (more than enough on an idle host, and it
 * keeps the coverage counters meaningful on a loaded one). */
static void let_run(struct fake_gpu *g, struct test_queue *t)
{
	settle_queue = t;
	wait_until(settled, g, 10);
}

static void check_faults_are_real(struct fake_gpu *g)
{
	pthread_mutex_lock(&g->lock);
	if (g->n_faults) {
		uint64_t va = g->fault_va;

		/* misaligned signals are refused on purpose; anything else
		 * must really be inaccessible */
		assert_true((va & 7) || !fake_gpu_mapped(g, va, 64, g->fault_write));
	}
	assert_true(g->n_faults <= 1);
	assert_true(g->n_queue_errors <= 1);
	/* a queue halts at its first fault or error */
	assert_true(g->n_faults + g->n_queue_errors <= 1);
	pthread_mutex_unlock(&g->lock);
}

static void reset_records(struct fake_gpu *g)
{
	pthread_mutex_lock(&g->lock);
	g->n_faults = 0;
	g->n_queue_errors = 0;
	g->n_interrupts = 0;
	g->n_handled = 0;
	pthread_mutex_unlock(&g->lock);
}

static void test_aql_garbage(void **state)
{
	struct fake_gpu g;
	struct test_queue t;
	struct outcomes o = {0};

	(void)state;
	test_env_setup(&g);
	for (int iter = 0; iter < 300; iter++) {
		uint64_t w;

		reset_records(&g);
		if (iter % 2)
			scribble(&g, SIG_VA, 4096);
		else
			scribble_signals(&g);
		scribble_kernargs(&g);
		scribble(&g, DATA_VA, 4096);
		tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 256);
		for (int i = 0; i < 4; i++) {
			uint64_t pkt[8];
			uint16_t hdr = (uint16_t)(rnd() % 8) | (uint16_t)(rnd() & 0xff00);

			if (rnd() % 4) {
				plausible_aql_packet(pkt);
			} else {
				for (int k = 0; k < 8; k++)
					pkt[k] = rnd_value();
				memcpy(pkt, &hdr, 2);
			}
			aql_submit(&t, pkt, rnd() % 2);
		}
		if (rnd() % 8 == 0) {
			w = rnd_value();
			__atomic_store_n(t.wptr, w, __ATOMIC_RELEASE);
		}
		let_run(&g, &t);
		tq_stop(&t);
		check_faults_are_real(&g);
		count_outcome(&g, &t, &o);
	}
	print_message("faults %u, queue errors %u, interrupts %u, progressed %u of 300\n", o.faults,
		      o.errors, o.interrupts, o.progressed);
	assert_true(o.faults > 0);
	assert_true(o.errors > 0);
	assert_true(o.interrupts > 0);
	assert_true(o.progressed > 0);
	fake_gpu_fini(&g);
}

static uint32_t rnd_sdma_header(void)
{
	static const uint32_t ops[] = {SDMA_OP_NOP,        SDMA_OP_COPY,        SDMA_OP_FENCE,
				       SDMA_OP_TRAP,       SDMA_OP_POLL_REGMEM, SDMA_OP_ATOMIC,
				       SDMA_OP_CONST_FILL, SDMA_OP_TIMESTAMP};
	uint32_t h = (uint32_t)rnd();

	if (rnd() % 4)
		h = (h & ~0xffu) | ops[rnd() % 8];
	if (rnd() % 2)
		h &= ~0xff00u; /* sub-op 0 */
	if ((h & 0xff) == SDMA_OP_COPY && rnd() % 2)
		h = (h & ~0xff00u) | SDMA_SUBOP_COPY_LINEAR_RECT << 8;
	if ((h & 0xff) == SDMA_OP_ATOMIC && rnd() % 2)
		h = (h & 0x01ffffffu) | (uint32_t)SDMA_ATOMIC_ADD64 << 25;
	return h;
}

static void test_sdma_garbage(void **state)
{
	struct fake_gpu g;
	struct test_queue t;
	struct outcomes o = {0};

	(void)state;
	test_env_setup(&g);
	for (int iter = 0; iter < 300; iter++) {
		reset_records(&g);
		scribble(&g, DATA_VA, 4096);
		tq_start(&t, &g, SIM_QUEUE_SDMA, 256);
		for (int i = 0; i < 6; i++) {
			uint32_t p[16];
			uint64_t a = rnd_addr(), b = rnd_addr();

			p[0] = rnd_sdma_header();
			p[1] = (uint32_t)a;
			p[2] = (uint32_t)(a >> 32);
			p[3] = (uint32_t)b;
			p[4] = (uint32_t)(b >> 32);
			p[5] = (uint32_t)rnd_value();
			for (int k = 6; k < 16; k++)
				p[k] =
				    k >= 11 && rnd() % 2 ? (uint32_t)(rnd() % 64) : (uint32_t)rnd();
			sdma_write(&t, p, 1 + (unsigned)(rnd() % 16));
		}
		if (rnd() % 8 == 0)
			t.next = rnd_value();
		sdma_publish(&t);
		let_run(&g, &t);
		tq_stop(&t);
		check_faults_are_real(&g);
		count_outcome(&g, &t, &o);
	}
	print_message("faults %u, queue errors %u, interrupts %u, progressed %u of 300\n", o.faults,
		      o.errors, o.interrupts, o.progressed);
	assert_true(o.faults > 0);
	assert_true(o.errors > 0);
	assert_true(o.interrupts > 0);
	assert_true(o.progressed > 0);
	fake_gpu_fini(&g);
}

static void put_u64(struct fake_gpu *g, uint64_t va, uint64_t v)
{
	memcpy(host(g, va), &v, 8);
}

static void test_huge_copy_faults_at_end(void **state)
{
	struct fake_gpu g;
	struct test_queue t;
	int64_t *sig;

	(void)state;
	test_env_setup(&g);
	sig = signal_init(&g, SIG_VA, 1, 0, 0);
	tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
	put_u64(&g, KARG_VA, DATA_VA);      /* dst: 1 MiB */
	put_u64(&g, KARG_VA + 8, SPLIT_VA); /* src: 2 x 64 KiB, then a hole */
	put_u64(&g, KARG_VA + 16, 1ull << 60);
	aql_dispatch(&t, KFDSIM_BUILTIN_COPY, KARG_VA, SIG_VA);
	assert_true(wait_until(has_fault, &g, WAIT_MS));
	assert_int_equal(g.fault_va, SPLIT_VA + 2 * SPLIT_SIZE);
	assert_false(g.fault_write);
	assert_int_equal(*sig, 1);
	tq_stop(&t);
	fake_gpu_fini(&g);
}

static void test_fill_wrapping_range(void **state)
{
	struct fake_gpu g;
	struct test_queue t;

	(void)state;
	test_env_setup(&g);
	tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
	/* dst near the top of the address space: the range wraps */
	put_u64(&g, KARG_VA, UINT64_MAX - 7);
	memcpy(host(&g, KARG_VA + 8), &(uint32_t){1}, 4);
	memcpy(host(&g, KARG_VA + 12), &(uint32_t){0xffffffff}, 4);
	aql_dispatch(&t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, 0);
	assert_true(wait_until(has_fault, &g, WAIT_MS));
	assert_int_equal(g.fault_va, UINT64_MAX - 7);
	assert_true(g.fault_write);
	tq_stop(&t);
	fake_gpu_fini(&g);
}

static void test_bad_queue_descriptions(void **state)
{
	struct fake_gpu g;
	struct sim_queue_desc d;
	struct sim_gpu_env env;

	(void)state;
	test_env_setup(&g);
	memset(&d, 0, sizeof(d));
	d.type = SIM_QUEUE_COMPUTE_AQL;
	d.ring_va = Q_VA;
	d.rptr_va = Q_VA + Q_RPTR_OFF;
	d.wptr_va = Q_VA + Q_RPTR_OFF + 8;

	d.ring_size = 4096 + 64; /* not a power of two */
	errno = 0;
	assert_null(sim_engine_queue_start(&d, &g.env));
	assert_int_equal(errno, EINVAL);
	d.ring_size = 32; /* smaller than one packet */
	assert_null(sim_engine_queue_start(&d, &g.env));
	d.ring_size = 4096;
	d.type = (enum sim_queue_type)7;
	assert_null(sim_engine_queue_start(&d, &g.env));
	d.type = SIM_QUEUE_COMPUTE_AQL;
	env = g.env;
	env.translate = NULL;
	assert_null(sim_engine_queue_start(&d, &env));
	assert_null(sim_engine_queue_start(NULL, &g.env));
	/* NULL queue handles are ignored */
	sim_engine_queue_kick(NULL);
	sim_engine_queue_set_active(NULL, true);
	sim_engine_queue_halt(NULL);
	sim_engine_queue_stop(NULL);
	fake_gpu_fini(&g);
}

static void test_deactivate_waits_for_engine(void **state)
{
	struct fake_gpu g;
	struct test_queue t;
	int64_t *sig;
	uint64_t t0;

	(void)state;
	test_env_setup(&g);
	sig = signal_init(&g, SIG_VA, 1, 0, 0);
	tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
	put_u64(&g, KARG_VA, 1000000000ull); /* 1 s: margin for a loaded host */
	t0 = now_ns();
	aql_dispatch(&t, KFDSIM_BUILTIN_SLEEP, KARG_VA, SIG_VA);
	sleep_ms(5);
	/* returns once the engine is parked; the kernel is paused, not done */
	sim_engine_queue_set_active(t.q, false);
	sleep_ms(60);
	assert_int_equal(__atomic_load_n(sig, __ATOMIC_ACQUIRE), 1);
	sim_engine_queue_set_active(t.q, true);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	/* the sleep resumed with its remaining time: at least 1 s + the
	 * 60 ms paused in total */
	assert_true(now_ns() - t0 >= 1060000000ull);
	tq_stop(&t);
	fake_gpu_fini(&g);
}

/* A callback halts its own queue: no deadlock, the queue stays allocated
 * until its owner stops it (test_engine_lifetime.c races kicks with it). */
static void test_halt_from_own_callback(void **state)
{
	struct fake_gpu g;
	struct test_queue t;

	(void)state;
	test_env_setup(&g);
	tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
	__atomic_store_n(&g.halt_on_fault, t.q, __ATOMIC_RELEASE);
	put_u64(&g, KARG_VA, HOLE_VA);
	aql_dispatch(&t, KFDSIM_BUILTIN_FAULT, KARG_VA, 0);
	assert_true(wait_until(has_fault, &g, WAIT_MS));
	assert_int_equal(g.fault_va, HOLE_VA);
	sim_engine_queue_kick(t.q);
	tq_stop(&t);
	fake_gpu_fini(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_queue_descriptions),
	    cmocka_unit_test(test_huge_copy_faults_at_end),
	    cmocka_unit_test(test_fill_wrapping_range),
	    cmocka_unit_test(test_deactivate_waits_for_engine),
	    cmocka_unit_test(test_halt_from_own_callback),
	    cmocka_unit_test(test_aql_garbage),
	    cmocka_unit_test(test_sdma_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
