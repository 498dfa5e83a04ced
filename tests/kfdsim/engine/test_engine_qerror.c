/* SPDX-License-Identifier: MIT */
/*
 * Queue error reports: ROCr 5.2.3's trap handler (illegal instruction,
 * through the TMA doorbell map) and the CP (invalid packet, through the
 * amd_queue_t around the read pointer) write amd_queue_t's
 * queue_inactive_signal, its mailbox and raise an interrupt.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aql_packets.h"
#include "engine_test_util.h"

#define WAIT_MS 5000

/* amd_queue_t in DATA_VA, the TMA doorbell map behind it */
#define AMDQ_VA    DATA_VA
#define TMA_VA     (DATA_VA + 0x1000)
#define MAILBOX_VA (SIG_VA + 0x800)
#define DB_INDEX   5u
#define EVENT_ID   77u
#define ILLEGAL    (1ll << 30)
#define BAD_FORMAT 32ll

struct fixture {
	struct fake_gpu g;
	struct test_queue t;
	bool handler; /* trap handler installed */
};

static bool trap_handler(void *ctx, uint64_t *tma)
{
	struct fixture *f = ctx; /* fake_gpu is the first member */

	if (!f->handler)
		return false;
	*tma = TMA_VA;
	return true;
}

static void put_u64(struct fake_gpu *g, uint64_t va, uint64_t v)
{
	memcpy(host(g, va), &v, 8);
}

/* Queue on the Q_VA ring; with `amdq` its pointers are amd_queue_t's
 * read/write dispatch ids (as ROCr passes them), else the harness's. */
static void start(struct fixture *f, bool amdq)
{
	struct test_queue *t = &f->t;
	uint64_t rptr = amdq ? AMDQ_VA + 0x80 : Q_VA + Q_RPTR_OFF;
	uint64_t wptr = amdq ? AMDQ_VA + 0x38 : Q_VA + Q_RPTR_OFF + 8;

	memset(t, 0, sizeof(*t));
	t->g = &f->g;
	t->ring = host(&f->g, Q_VA);
	t->rptr = host(&f->g, rptr);
	t->wptr = host(&f->g, wptr);
	for (uint64_t i = 0; i < 4096; i += AQL_PACKET_SIZE) {
		uint16_t h = AQL_TYPE_INVALID;

		memcpy(t->ring + i, &h, 2);
	}
	t->desc.type = SIM_QUEUE_COMPUTE_AQL;
	t->desc.queue_id = 3;
	t->desc.ring_va = Q_VA;
	t->desc.ring_size = 4096;
	t->desc.rptr_va = rptr;
	t->desc.wptr_va = wptr;
	t->desc.doorbell = &t->doorbell;
	t->desc.doorbell_index = DB_INDEX;
	t->q = sim_engine_queue_start(&t->desc, &f->g.env);
	assert_non_null(t->q);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	test_env_setup(&f->g);
	f->g.env.trap_handler = trap_handler;
	f->handler = true;
	/* TMA[DB_INDEX] -> amd_queue_t, its queue_inactive_signal -> SIG_VA */
	put_u64(&f->g, TMA_VA + 8 * DB_INDEX, AMDQ_VA);
	put_u64(&f->g, AMDQ_VA + 0xc0, SIG_VA);
	signal_init(&f->g, SIG_VA, 0, MAILBOX_VA, EVENT_ID);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tq_teardown(&f->t, &f->g);
	free(f);
	return 0;
}

static int64_t value_of(struct fixture *f)
{
	return __atomic_load_n((int64_t *)host(&f->g, SIG_VA + 8), __ATOMIC_ACQUIRE);
}

static uint32_t mailbox(struct fixture *f)
{
	return __atomic_load_n((uint32_t *)host(&f->g, MAILBOX_VA), __ATOMIC_ACQUIRE);
}

static void test_trap_handler_reports_illegal(void **state)
{
	struct fixture *f = *state;
	int64_t *done = signal_init(&f->g, SIG_VA + 64, 1, 0, 0);

	start(f, false);
	aql_dispatch(&f->t, KOBJ_BAD_MAGIC, KARG_VA, SIG_VA + 64);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_ILLEGAL_INSTRUCTION);
	assert_int_equal(value_of(f), ILLEGAL);
	assert_int_equal(mailbox(f), EVENT_ID);
	assert_int_equal(fake_gpu_interrupts(&f->g), 1);
	assert_int_equal(f->g.interrupts[0], EVENT_ID);
	assert_int_equal(fake_gpu_faults(&f->g), 0);
	/* the dispatch itself never completes */
	assert_int_equal(*done, 1);
	assert_int_equal(*f->t.rptr, 0);
}

static void test_no_trap_handler_no_report(void **state)
{
	struct fixture *f = *state;

	f->handler = false;
	start(f, true);
	aql_dispatch(&f->t, KOBJ_BAD_MAGIC, KARG_VA, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(value_of(f), 0);
	assert_int_equal(mailbox(f), 0);
	assert_int_equal(fake_gpu_interrupts(&f->g), 0);
}

static void test_pending_report_raises_nothing(void **state)
{
	struct fixture *f = *state;

	/* an earlier error the runtime has not handled yet */
	signal_init(&f->g, SIG_VA, 0x401, MAILBOX_VA, EVENT_ID);
	start(f, false);
	aql_dispatch(&f->t, KOBJ_BAD_MAGIC, KARG_VA, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(value_of(f), ILLEGAL);
	assert_int_equal(mailbox(f), 0);
	assert_int_equal(fake_gpu_interrupts(&f->g), 0);
}

static void test_unmapped_queue_entry_faults(void **state)
{
	struct fixture *f = *state;

	/* no amd_queue_t registered for this doorbell: the handler loads
	 * queue_inactive_signal from NULL + 0xc0 */
	put_u64(&f->g, TMA_VA + 8 * DB_INDEX, 0);
	start(f, false);
	aql_dispatch(&f->t, KOBJ_BAD_MAGIC, KARG_VA, 0);
	assert_true(wait_until(has_fault, &f->g, WAIT_MS));
	sleep_ms(20);
	assert_int_equal(f->g.fault_va, 0xc0);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
	assert_int_equal(fake_gpu_interrupts(&f->g), 0);
}

static void test_cp_reports_invalid_packet(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[AQL_PACKET_SIZE];
	uint16_t hdr = AQL_TYPE_AGENT_DISPATCH;

	start(f, true);
	memset(pkt, 0, sizeof(pkt));
	memcpy(pkt, &hdr, 2);
	aql_submit(&f->t, pkt, true);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_INVALID_PACKET);
	assert_int_equal(value_of(f), BAD_FORMAT);
	assert_int_equal(mailbox(f), EVENT_ID);
	assert_int_equal(fake_gpu_interrupts(&f->g), 1);
	assert_int_equal(f->g.interrupts[0], EVENT_ID);
}

static void test_invalid_packet_outside_amd_queue(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[AQL_PACKET_SIZE];
	uint16_t hdr = AQL_TYPE_AGENT_DISPATCH;

	/* pointers that do not sit in one amd_queue_t: nothing to report to */
	start(f, false);
	memset(pkt, 0, sizeof(pkt));
	memcpy(pkt, &hdr, 2);
	aql_submit(&f->t, pkt, true);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(value_of(f), 0);
	assert_int_equal(fake_gpu_interrupts(&f->g), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_trap_handler_reports_illegal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_trap_handler_no_report, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pending_report_raises_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unmapped_queue_entry_faults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cp_reports_invalid_packet, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_invalid_packet_outside_amd_queue, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
