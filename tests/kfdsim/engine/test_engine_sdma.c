/* SPDX-License-Identifier: MIT */
/* SDMA engine: the gfx9 packets ROCr's BlitSdmaV4 and amdgpu emit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_test_util.h"
#include "sdma_packets.h"

#define WAIT_MS 5000

static int setup(void **state)
{
	return engine_fixture_setup(state, SIM_QUEUE_SDMA, 4096);
}

static int teardown(void **state)
{
	return engine_fixture_teardown(state);
}

static uint32_t lo(uint64_t v)
{
	return (uint32_t)v;
}

static uint32_t hi(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

/* Builders produce ROCr's 8-dword (32-byte) packets: the hardware packet
 * followed by zero dwords, which the engine runs as one-dword NOPs. */
static void pad8(struct test_queue *t, const uint32_t *dw, unsigned n)
{
	uint32_t p[8] = {0};

	memcpy(p, dw, n * 4);
	sdma_write(t, p, 8);
}

static void pkt_copy(struct test_queue *t, uint64_t dst, uint64_t src, uint32_t bytes)
{
	uint32_t p[] = {SDMA_OP_COPY | SDMA_SUBOP_COPY_LINEAR << 8,
			bytes - 1,
			0,
			lo(src),
			hi(src),
			lo(dst),
			hi(dst)};

	pad8(t, p, 7);
}

/* ROCr V4 fill encoding: count = (dwords - 1) * 4 */
static void pkt_fill_rocr(struct test_queue *t, uint64_t dst, uint32_t value, uint32_t dwords)
{
	uint32_t p[] = {SDMA_OP_CONST_FILL | 2u << 30, lo(dst), hi(dst), value, (dwords - 1) * 4};

	pad8(t, p, 5);
}

static void pkt_fence(struct test_queue *t, uint64_t addr, uint32_t data)
{
	uint32_t p[] = {SDMA_OP_FENCE, lo(addr), hi(addr), data};

	pad8(t, p, 4);
}

static void pkt_atomic_dec(struct test_queue *t, uint64_t addr)
{
	uint32_t p[] = {SDMA_OP_ATOMIC | (uint32_t)SDMA_ATOMIC_ADD64 << 25,
			lo(addr),
			hi(addr),
			0xffffffff,
			0xffffffff,
			0,
			0,
			0};

	pad8(t, p, 8);
}

static void pkt_poll_eq(struct test_queue *t, uint64_t addr, uint32_t ref)
{
	uint32_t p[] = {SDMA_OP_POLL_REGMEM | 3u << 28 | 1u << 31,
			lo(addr),
			hi(addr),
			ref,
			0xffffffff,
			0xfffu << 16 | 4};

	pad8(t, p, 6);
}

static void pkt_trap(struct test_queue *t, uint32_t event_id)
{
	uint32_t p[] = {SDMA_OP_TRAP, event_id};

	pad8(t, p, 2);
}

static void pkt_timestamp(struct test_queue *t, uint64_t addr)
{
	uint32_t p[] = {SDMA_OP_TIMESTAMP | SDMA_SUBOP_TIMESTAMP_GET_GLOBAL << 8, lo(addr),
			hi(addr)};

	pad8(t, p, 3);
}

static void test_copy_linear(void **state)
{
	struct engine_fixture *f = *state;
	uint8_t *src = host(&f->g, DATA_VA);
	uint64_t dst_va = SPLIT_VA + SPLIT_SIZE - 4096; /* spans two mappings */
	uint8_t *d1 = host(&f->g, dst_va), *d2 = host(&f->g, SPLIT_VA + SPLIT_SIZE);

	for (int i = 0; i < 10000; i++)
		src[i] = (uint8_t)(i ^ (i >> 8));
	pkt_copy(&f->t, dst_va, DATA_VA, 10000);
	sdma_publish(&f->t);
	assert_true(wait_u64(f->t.rptr, 32, WAIT_MS));
	assert_memory_equal(d1, src, 4096);
	assert_memory_equal(d2, src + 4096, 10000 - 4096);
	assert_int_equal(d2[10000 - 4096], 0);
}

/* ROCr's copy-rect tile: 4-byte elements, x offset in elements, pitch in
 * elements minus one; padded to 16 dwords. */
static void test_copy_rect(void **state)
{
	struct engine_fixture *f = *state;
	uint8_t *src = host(&f->g, DATA_VA);
	uint8_t *dst = host(&f->g, DATA_VA + 0x10000);
	const uint32_t spitch = 256, dpitch = 128, slice_rows = 8;
	uint32_t p[16] = {0};

	for (int i = 0; i < 0x4000; i++)
		src[i] = (uint8_t)(i * 13 + 1);
	p[0] = SDMA_OP_COPY | 4u << 8 | 2u << 29;
	p[1] = lo(DATA_VA);
	p[2] = hi(DATA_VA);
	p[3] = 2 | 1u << 16;                /* src x = 2, y = 1 */
	p[4] = 0 | (spitch / 4 - 1) << 13;  /* src z = 0, pitch */
	p[5] = spitch * slice_rows / 4 - 1; /* src slice */
	p[6] = lo(DATA_VA + 0x10000);
	p[7] = hi(DATA_VA + 0x10000);
	p[8] = 1; /* dst x = 1, y = 0 */
	p[9] = (dpitch / 4 - 1) << 13;
	p[10] = dpitch * slice_rows / 4 - 1;
	p[11] = (10 - 1) | (3 - 1) << 16; /* 10 elements x 3 rows */
	p[12] = 2 - 1;                    /* 2 slices */
	sdma_write(&f->t, p, 16);
	sdma_publish(&f->t);
	assert_true(wait_u64(f->t.rptr, 64, WAIT_MS));
	for (uint32_t z = 0; z < 2; z++) {
		for (uint32_t y = 0; y < 3; y++) {
			const uint8_t *s = src + z * spitch * slice_rows + (1 + y) * spitch + 8;
			const uint8_t *d = dst + z * dpitch * slice_rows + y * dpitch + 4;

			assert_memory_equal(d, s, 40);
			/* bytes around each row are untouched */
			assert_int_equal(d[-1], 0);
			assert_int_equal(d[40], 0);
		}
	}
	assert_int_equal(dst[3 * dpitch + 4], 0); /* no fourth row */
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

static void test_const_fill(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t *d = host(&f->g, DATA_VA);
	/* amdgpu's encoding: count = bytes - 1 */
	uint32_t kfill[] = {SDMA_OP_CONST_FILL | 2u << 30, lo(DATA_VA + 4096), hi(DATA_VA),
			    0x5a5a5a5a, 8 * 4 - 1};

	pkt_fill_rocr(&f->t, DATA_VA + 4, 0x12345678, 100);
	sdma_write(&f->t, kfill, 5);
	sdma_publish(&f->t);
	assert_true(wait_u64(f->t.rptr, 32 + 20, WAIT_MS));
	assert_int_equal(d[0], 0);
	for (int i = 1; i <= 100; i++)
		assert_int_equal(d[i], 0x12345678);
	assert_int_equal(d[101], 0);
	for (int i = 1024; i < 1024 + 8; i++)
		assert_int_equal(d[i], 0x5a5a5a5a);
	assert_int_equal(d[1024 + 8], 0);
}

static void test_fence(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t *d = host(&f->g, DATA_VA);

	pkt_fence(&f->t, DATA_VA + 8, 0xcafef00d);
	sdma_publish(&f->t);
	assert_true(wait_u32(&d[2], 0xcafef00d, WAIT_MS));
	assert_int_equal(d[1], 0);
	assert_int_equal(d[3], 0);
}

static void test_atomic_decrement(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 3, 0, 0);

	pkt_atomic_dec(&f->t, SIG_VA + 8);
	pkt_atomic_dec(&f->t, SIG_VA + 8);
	sdma_publish(&f->t);
	assert_true(wait_u64(f->t.rptr, 64, WAIT_MS));
	assert_int_equal(*sig, 1);
}

static void test_poll_regmem_blocks(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t *flag = host(&f->g, DATA_VA + 0x100);
	uint32_t *out = host(&f->g, DATA_VA + 0x200);

	*flag = 5;
	pkt_poll_eq(&f->t, DATA_VA + 0x100, 0);
	pkt_fence(&f->t, DATA_VA + 0x200, 1);
	sdma_publish(&f->t);
	sleep_ms(30);
	assert_int_equal(__atomic_load_n(f->t.rptr, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(*out, 0);
	__atomic_store_n(flag, 0, __ATOMIC_RELEASE);
	assert_true(wait_u32(out, 1, WAIT_MS));
	assert_true(wait_u64(f->t.rptr, 64, WAIT_MS));
}

static void test_poll_hdp_flush_passes(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);
	/* ROCr 5.2.3's gfx9 HDP flush packet: a register poll */
	uint32_t rocr_hdp[] = {0x8, 0x0, 0x80000000, 0x0, 0x0, 0x0};
	/* amdgpu style: hdp_flush bit set */
	uint32_t kernel_hdp[] = {SDMA_OP_POLL_REGMEM | 1u << 26 | 3u << 28, 0, 0, 0, 0, 0};

	pad8(&f->t, rocr_hdp, 6);
	pad8(&f->t, kernel_hdp, 6);
	pkt_fence(&f->t, DATA_VA, 9);
	sdma_publish(&f->t);
	assert_true(wait_u32(out, 9, WAIT_MS));
}

/* ROCr's gfx10 blit brackets every command with GCR packets. */
static void test_gcr_is_accepted(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);
	uint32_t gcr[] = {SDMA_OP_GCR | SDMA_SUBOP_USER_GCR << 8, 0, 0x7u << 26, 0, 0};

	pad8(&f->t, gcr, 5);
	pkt_fence(&f->t, DATA_VA, 3);
	pad8(&f->t, gcr, 5);
	sdma_publish(&f->t);
	assert_true(wait_u32(out, 3, WAIT_MS));
	assert_true(wait_u64(f->t.rptr, 96, WAIT_MS));
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

static void test_timestamp(void **state)
{
	struct engine_fixture *f = *state;
	uint64_t *ts = host(&f->g, DATA_VA + 0x40);

	pkt_timestamp(&f->t, DATA_VA + 0x40);
	pkt_timestamp(&f->t, DATA_VA + 0x60);
	sdma_publish(&f->t);
	assert_true(wait_u64(f->t.rptr, 64, WAIT_MS));
	assert_true(ts[0] > 1000);
	assert_true(ts[4] > ts[0]);
}

static void test_rocr_completion_sequence(void **state)
{
	struct engine_fixture *f = *state;
	uint64_t mailbox_va = SIG_VA + 0x800;
	uint64_t *mailbox = host(&f->g, mailbox_va);
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, mailbox_va, 33);
	uint32_t *d = host(&f->g, DATA_VA + 0x1000);

	/* copy; atomic decrement; mailbox fence; trap (BlitSdma::SubmitCommand) */
	*(uint32_t *)host(&f->g, DATA_VA) = 0x11223344;
	*mailbox = UINT64_MAX;
	f->g.watch_value = sig;
	pkt_copy(&f->t, DATA_VA + 0x1000, DATA_VA, 4);
	pkt_atomic_dec(&f->t, SIG_VA + 8);
	pkt_fence(&f->t, mailbox_va, 33);
	pkt_trap(&f->t, 33);
	sdma_publish(&f->t);
	assert_true(wait_until(has_interrupt, &f->g, WAIT_MS));
	assert_int_equal(f->g.interrupts[0], 33);
	assert_int_equal(f->g.value_at_interrupt[0], 0);
	assert_int_equal(*d, 0x11223344);
	assert_int_equal((uint32_t)*mailbox, 33);
	assert_true(wait_u64(f->t.rptr, 4 * 32, WAIT_MS));
}

static void test_ring_wrap_and_split_packet(void **state)
{
	struct engine_fixture *f = *state;
	struct test_queue *t = &f->t;
	uint32_t *out = host(&f->g, DATA_VA);

	tq_stop(t);
	tq_start(t, &f->g, SIM_QUEUE_SDMA, 64);
	/* 3 NOP dwords first so later fences straddle the ring end */
	for (uint32_t i = 0; i < 40; i++) {
		uint32_t nop = 0;
		uint32_t fence[] = {SDMA_OP_FENCE, lo(DATA_VA + 4 * i), hi(DATA_VA), 1000 + i};

		while (t->next + 20 - __atomic_load_n(t->rptr, __ATOMIC_ACQUIRE) > 64)
			sleep_ms(1);
		if (i == 0) {
			sdma_write(t, &nop, 1);
			sdma_write(t, &nop, 1);
			sdma_write(t, &nop, 1);
		}
		sdma_write(t, fence, 4);
		sdma_publish(t);
	}
	assert_true(wait_u64(t->rptr, t->next, WAIT_MS));
	for (uint32_t i = 0; i < 40; i++)
		assert_int_equal(out[i], 1000 + i);
}

static void test_partial_packet_waits(void **state)
{
	struct engine_fixture *f = *state;
	struct test_queue *t = &f->t;
	uint32_t *out = host(&f->g, DATA_VA);
	uint32_t fence[] = {SDMA_OP_FENCE, lo(DATA_VA), hi(DATA_VA), 77};

	sdma_write(t, fence, 4);
	/* publish only the first two dwords */
	__atomic_store_n(t->wptr, 8, __ATOMIC_RELEASE);
	sim_engine_queue_kick(t->q);
	sleep_ms(30);
	assert_int_equal(*out, 0);
	assert_int_equal(__atomic_load_n(t->rptr, __ATOMIC_ACQUIRE), 0);
	sdma_publish(t);
	assert_true(wait_u32(out, 77, WAIT_MS));
}

static void test_unknown_opcode(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t bad[] = {0x3f, 0, 0, 0};
	uint32_t *out = host(&f->g, DATA_VA);

	sdma_write(&f->t, bad, 4);
	pkt_fence(&f->t, DATA_VA, 1);
	sdma_publish(&f->t);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	sleep_ms(20);
	assert_int_equal(f->g.error_reason, SIM_QERR_SDMA_INVALID_PACKET);
	assert_int_equal(f->g.error_queue_id, 42);
	assert_int_equal(*out, 0);
}

static void test_copy_fault(void **state)
{
	struct engine_fixture *f = *state;

	/* source runs off the end of DATA into unmapped VA */
	pkt_copy(&f->t, SPLIT_VA, DATA_VA + DATA_SIZE - 100, 4096);
	sdma_publish(&f->t);
	assert_true(wait_until(has_fault, &f->g, WAIT_MS));
	assert_int_equal(f->g.fault_va, DATA_VA + DATA_SIZE);
	assert_false(f->g.fault_write);
	assert_int_equal(*f->t.rptr, 0);
}

static void test_stop_while_polling(void **state)
{
	struct engine_fixture *f = *state;

	*(uint32_t *)host(&f->g, DATA_VA) = 1;
	pkt_poll_eq(&f->t, DATA_VA, 0);
	sdma_publish(&f->t);
	sleep_ms(20);
	tq_stop(&f->t);
	assert_int_equal(*f->t.rptr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_copy_linear, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_copy_rect, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_const_fill, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fence, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_decrement, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_regmem_blocks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_poll_hdp_flush_passes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gcr_is_accepted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timestamp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rocr_completion_sequence, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ring_wrap_and_split_packet, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_partial_packet_waits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_opcode, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_copy_fault, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_while_polling, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
