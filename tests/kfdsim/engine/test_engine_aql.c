/* SPDX-License-Identifier: MIT */
/* AQL compute engine: builtins, completion signals, barriers, errors. */
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

static int setup(void **state)
{
	return engine_fixture_setup(state, SIM_QUEUE_COMPUTE_AQL, 4096);
}

static int teardown(void **state)
{
	return engine_fixture_teardown(state);
}

static void put_u64(struct fake_gpu *g, uint64_t va, uint64_t v)
{
	memcpy(host(g, va), &v, 8);
}

static void put_u32(struct fake_gpu *g, uint64_t va, uint32_t v)
{
	memcpy(host(g, va), &v, 4);
}

static void test_fill_completes_signal(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	const struct aql_amd_signal *s = host(&f->g, SIG_VA);
	uint32_t *dst = host(&f->g, DATA_VA);
	uint16_t hdr;

	put_u64(&f->g, KARG_VA, DATA_VA + 4);
	put_u32(&f->g, KARG_VA + 8, 0xdeadbeef);
	put_u32(&f->g, KARG_VA + 12, 1000);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, SIG_VA);

	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_true(wait_u64(f->t.rptr, 1, WAIT_MS));
	assert_int_equal(dst[0], 0);
	for (int i = 1; i <= 1000; i++)
		assert_int_equal(dst[i], 0xdeadbeef);
	assert_int_equal(dst[1001], 0);
	/* timestamps from the GPU clock, end after start */
	assert_true(s->start_ts >= 1000);
	assert_true(s->end_ts > s->start_ts);
	/* the slot was handed back */
	memcpy(&hdr, f->t.ring, 2);
	assert_int_equal(hdr & AQL_HEADER_TYPE_MASK, AQL_TYPE_INVALID);
	assert_int_equal(fake_gpu_faults(&f->g), 0);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

static void test_copy_across_mappings(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	uint8_t *src = host(&f->g, DATA_VA);
	/* destination straddles two separately mapped regions */
	uint64_t dst_va = SPLIT_VA + SPLIT_SIZE - 1000;
	uint8_t *lo = host(&f->g, dst_va);
	uint8_t *hi = host(&f->g, SPLIT_VA + SPLIT_SIZE);

	for (int i = 0; i < 5000; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	put_u64(&f->g, KARG_VA, dst_va);
	put_u64(&f->g, KARG_VA + 8, DATA_VA);
	put_u64(&f->g, KARG_VA + 16, 5000);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_COPY, KARG_VA, SIG_VA);

	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_memory_equal(lo, src, 1000);
	assert_memory_equal(hi, src + 1000, 4000);
	assert_int_equal(hi[4000], 0);
	assert_int_equal(fake_gpu_faults(&f->g), 0);
}

static void test_vadd(void **state)
{
	struct engine_fixture *f = *state;
	const uint32_t n = 3000; /* more than one internal step */
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	float *a = host(&f->g, DATA_VA);
	float *b = host(&f->g, DATA_VA + 0x10000);
	float *c = host(&f->g, DATA_VA + 0x20000);

	for (uint32_t i = 0; i < n; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = 1000.0f - (float)i;
	}
	c[n] = 123.0f;
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u64(&f->g, KARG_VA + 8, DATA_VA + 0x10000);
	put_u64(&f->g, KARG_VA + 16, DATA_VA + 0x20000);
	put_u32(&f->g, KARG_VA + 24, n);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_VADD_F32, KARG_VA, SIG_VA);

	assert_true(wait_i64(sig, 0, WAIT_MS));
	for (uint32_t i = 0; i < n; i++)
		assert_true(c[i] == (float)i * 0.5f + (1000.0f - (float)i));
	assert_true(c[n] == 123.0f);
}

static void test_sleep_lower_bound(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	uint64_t t0 = now_ns();

	put_u64(&f->g, KARG_VA, 30000000ull); /* 30 ms */
	aql_dispatch(&f->t, KFDSIM_BUILTIN_SLEEP, KARG_VA, SIG_VA);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_true(now_ns() - t0 >= 30000000ull);
}

static void test_mailbox_and_interrupt(void **state)
{
	struct engine_fixture *f = *state;
	uint64_t mailbox_va = SIG_VA + 0x800;
	uint64_t *mailbox = host(&f->g, mailbox_va);
	int64_t *sig;

	*mailbox = UINT64_MAX;
	sig = signal_init(&f->g, SIG_VA, 2, mailbox_va, 17);
	f->g.watch_value = sig;
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u32(&f->g, KARG_VA + 8, 1);
	put_u32(&f->g, KARG_VA + 12, 1);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, SIG_VA);

	assert_true(wait_i64(sig, 1, WAIT_MS)); /* decrement by exactly 1 */
	assert_true(wait_u64(mailbox, 17, WAIT_MS));
	assert_true(wait_u64(f->t.rptr, 1, WAIT_MS));
	assert_int_equal(fake_gpu_interrupts(&f->g), 1);
	assert_int_equal(f->g.interrupts[0], 17);
	/* the value was already decremented when the interrupt was raised */
	assert_int_equal(f->g.value_at_interrupt[0], 1);
}

static void test_no_signal_no_interrupt(void **state)
{
	struct engine_fixture *f = *state;
	uint32_t *dst = host(&f->g, DATA_VA);

	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u32(&f->g, KARG_VA + 8, 5);
	put_u32(&f->g, KARG_VA + 12, 1);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, 0);
	assert_true(wait_u64(f->t.rptr, 1, WAIT_MS));
	assert_int_equal(dst[0], 5);
	assert_int_equal(fake_gpu_interrupts(&f->g), 0);
}

static void test_barrier_and_blocks(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *dep1 = signal_init(&f->g, SIG_VA + 64, 1, 0, 0);
	int64_t *dep2 = signal_init(&f->g, SIG_VA + 128, 1, 0, 0);
	int64_t *bsig = signal_init(&f->g, SIG_VA + 192, 1, 0, 0);
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	uint64_t deps[5] = {SIG_VA + 64, 0, SIG_VA + 128, 0, 0};
	uint32_t *dst = host(&f->g, DATA_VA);

	aql_barrier(&f->t, false, deps, SIG_VA + 192);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u32(&f->g, KARG_VA + 8, 77);
	put_u32(&f->g, KARG_VA + 12, 1);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, SIG_VA);

	sleep_ms(30);
	assert_int_equal(__atomic_load_n(f->t.rptr, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(__atomic_load_n(bsig, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(dst[0], 0);

	__atomic_store_n(dep1, 0, __ATOMIC_RELEASE);
	sleep_ms(30);
	/* one of two deps: still blocked */
	assert_int_equal(__atomic_load_n(f->t.rptr, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(dst[0], 0);

	__atomic_store_n(dep2, 0, __ATOMIC_RELEASE);
	assert_true(wait_i64(bsig, 0, WAIT_MS));
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_int_equal(dst[0], 77);
	assert_true(wait_u64(f->t.rptr, 2, WAIT_MS));
}

static void test_barrier_or(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *dep1 = signal_init(&f->g, SIG_VA + 64, 1, 0, 0);
	signal_init(&f->g, SIG_VA + 128, 1, 0, 0);
	int64_t *bsig = signal_init(&f->g, SIG_VA + 192, 1, 0, 0);
	uint64_t deps[5] = {0, SIG_VA + 64, SIG_VA + 128, 0, 0};

	aql_barrier(&f->t, true, deps, SIG_VA + 192);
	sleep_ms(30);
	/* null handles never satisfy a barrier-OR */
	assert_int_equal(__atomic_load_n(bsig, __ATOMIC_ACQUIRE), 1);
	__atomic_store_n(dep1, 0, __ATOMIC_RELEASE);
	assert_true(wait_i64(bsig, 0, WAIT_MS));
	assert_true(wait_u64(f->t.rptr, 1, WAIT_MS));
}

static void test_barrier_value(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *dep = signal_init(&f->g, SIG_VA + 64, 0x105, 0, 0);
	int64_t *bsig = signal_init(&f->g, SIG_VA + 192, 1, 0, 0);
	struct aql_amd_barrier_value_packet p;

	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_VENDOR_SPECIFIC | AQL_HEADER_BARRIER;
	p.amd_format = AQL_AMD_FORMAT_BARRIER_VALUE;
	p.signal = SIG_VA + 64;
	p.value = 0x7;
	p.mask = 0xff;
	p.cond = AQL_COND_EQ;
	p.completion_signal = SIG_VA + 192;
	aql_submit(&f->t, &p, true);
	sleep_ms(30);
	assert_int_equal(__atomic_load_n(bsig, __ATOMIC_ACQUIRE), 1);
	/* only the masked bits count */
	__atomic_store_n(dep, 0x7707, __ATOMIC_RELEASE);
	assert_true(wait_i64(bsig, 0, WAIT_MS));
}

/* ROCr 5.2.3's code-cache invalidation on gfx9: a PM4-IB vendor packet
 * jumping to an IB with one ACQUIRE_MEM. */
static void submit_pm4_ib(struct engine_fixture *f, const uint32_t *ib, uint32_t ndw,
			  uint64_t signal)
{
	uint64_t ib_va = DATA_VA + 0x8000;
	struct aql_amd_pm4_ib_packet p;

	memcpy(host(&f->g, ib_va), ib, ndw * 4);
	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_VENDOR_SPECIFIC;
	p.amd_format = AQL_AMD_FORMAT_PM4_IB;
	p.ib_jump_cmd[0] = 3u << 30 | (4u - 2) << 16 | 0x3fu << 8; /* INDIRECT_BUFFER */
	p.ib_jump_cmd[1] = (uint32_t)ib_va & ~3u;
	p.ib_jump_cmd[2] = (uint32_t)(ib_va >> 32) & 0xffff;
	p.ib_jump_cmd[3] = ndw | 1u << 23;
	p.dw_cnt_remain = 0xa;
	p.completion_signal = signal;
	aql_submit(&f->t, &p, true);
}

static void test_pm4_ib_cache_invalidate(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	uint32_t acquire_mem[7] = {
	    3u << 30 | (7u - 2) << 16 | 0x58u << 8, 0x28c00000, 0xffffffff, 0xff, 0, 0, 0};

	submit_pm4_ib(f, acquire_mem, 7, SIG_VA);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_true(wait_u64(f->t.rptr, 1, WAIT_MS));
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

static void test_pm4_ib_other_opcode_rejected(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	/* WRITE_DATA (0x37) is not something the model executes */
	uint32_t write_data[5] = {3u << 30 | (5u - 2) << 16 | 0x37u << 8, 0, 0, 0, 0};

	submit_pm4_ib(f, write_data, 5, SIG_VA);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_INVALID_PACKET);
	assert_int_equal(*sig, 1);
}

static void test_pm4_ib_overrun_rejected(void **state)
{
	struct engine_fixture *f = *state;
	/* an ACQUIRE_MEM claiming 7 dwords in a 4-dword IB */
	uint32_t ib[4] = {3u << 30 | (7u - 2) << 16 | 0x58u << 8, 0, 0, 0};

	submit_pm4_ib(f, ib, 4, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_INVALID_PACKET);
}

static void test_illegal_descriptor_stops_queue(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	int64_t *sig2 = signal_init(&f->g, SIG_VA + 64, 1, 0, 0);

	aql_dispatch(&f->t, KOBJ_BAD_MAGIC, KARG_VA, SIG_VA);
	put_u64(&f->g, KARG_VA, 1000);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_SLEEP, KARG_VA, SIG_VA + 64);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	sleep_ms(30);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 1);
	assert_int_equal(f->g.error_queue_id, 42);
	assert_int_equal(f->g.error_reason, SIM_QERR_ILLEGAL_INSTRUCTION);
	/* neither the bad packet nor the next one completed */
	assert_int_equal(*sig, 1);
	assert_int_equal(*sig2, 1);
	assert_int_equal(*f->t.rptr, 0);
}

static void test_unknown_builtin(void **state)
{
	struct engine_fixture *f = *state;

	aql_dispatch(&f->t, KOBJ_BAD_ID, KARG_VA, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_ILLEGAL_INSTRUCTION);
}

static void test_unsupported_packet_type(void **state)
{
	struct engine_fixture *f = *state;
	struct aql_dispatch_packet p;

	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_AGENT_DISPATCH;
	aql_submit(&f->t, &p, true);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_INVALID_PACKET);
	assert_int_equal(fake_gpu_faults(&f->g), 0);
}

static void test_fault_builtin(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	int64_t *sig2 = signal_init(&f->g, SIG_VA + 64, 1, 0, 0);

	put_u64(&f->g, KARG_VA, HOLE_VA + 0x1234);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FAULT, KARG_VA, SIG_VA);
	put_u64(&f->g, KARG_VA + 64, DATA_VA);
	put_u32(&f->g, KARG_VA + 72, 9);
	put_u32(&f->g, KARG_VA + 76, 1);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA + 64, SIG_VA + 64);

	assert_true(wait_until(has_fault, &f->g, WAIT_MS));
	sleep_ms(30);
	assert_int_equal(fake_gpu_faults(&f->g), 1);
	assert_int_equal(f->g.fault_va, HOLE_VA + 0x1234);
	assert_false(f->g.fault_write);
	assert_int_equal(*sig, 1);
	assert_int_equal(*sig2, 1);
	assert_int_equal(*(uint32_t *)host(&f->g, DATA_VA), 0);
}

static void test_fault_on_mapped_address_is_no_fault(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	put_u64(&f->g, KARG_VA, RO_VA + 16);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FAULT, KARG_VA, SIG_VA);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_int_equal(fake_gpu_faults(&f->g), 0);
}

static void test_write_to_readonly_faults(void **state)
{
	struct engine_fixture *f = *state;

	put_u64(&f->g, KARG_VA, RO_VA);
	put_u32(&f->g, KARG_VA + 8, 1);
	put_u32(&f->g, KARG_VA + 12, 4);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, 0);
	assert_true(wait_until(has_fault, &f->g, WAIT_MS));
	assert_int_equal(f->g.fault_va, RO_VA);
	assert_true(f->g.fault_write);
}

static void test_doorbell_without_kick(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	struct aql_barrier_packet p;

	/* idle long enough for the poller to back off fully */
	sleep_ms(50);
	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_BARRIER_AND;
	p.completion_signal = SIG_VA;
	aql_submit(&f->t, &p, false);
	assert_true(wait_i64(sig, 0, WAIT_MS));
}

static void test_ring_wraps(void **state)
{
	struct engine_fixture *f = *state;
	struct test_queue *t = &f->t;
	uint32_t *dst = host(&f->g, DATA_VA);

	/* a 4-slot ring, 23 packets: wraps several times */
	tq_stop(t);
	tq_start(t, &f->g, SIM_QUEUE_COMPUTE_AQL, 256);
	for (uint32_t i = 0; i < 23; i++) {
		uint64_t ka = KARG_VA + 64 * i;

		while (t->next - __atomic_load_n(t->rptr, __ATOMIC_ACQUIRE) >= 4)
			sleep_ms(1);
		put_u64(&f->g, ka, DATA_VA + 4 * i);
		put_u32(&f->g, ka + 8, 100 + i);
		put_u32(&f->g, ka + 12, 1);
		aql_dispatch(t, KFDSIM_BUILTIN_FILL_U32, ka, 0);
	}
	assert_true(wait_u64(t->rptr, 23, WAIT_MS));
	for (uint32_t i = 0; i < 23; i++)
		assert_int_equal(dst[i], 100 + i);
}

static void test_inactive_queue_pauses(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	struct aql_barrier_packet p;

	sim_engine_queue_set_active(f->t.q, false);
	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_BARRIER_AND;
	p.completion_signal = SIG_VA;
	aql_submit(&f->t, &p, true);
	sleep_ms(30);
	assert_int_equal(__atomic_load_n(sig, __ATOMIC_ACQUIRE), 1);
	sim_engine_queue_set_active(f->t.q, true);
	assert_true(wait_i64(sig, 0, WAIT_MS));
}

static void test_stop_while_sleeping(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	put_u64(&f->g, KARG_VA, 3600ull * 1000000000ull); /* one hour */
	aql_dispatch(&f->t, KFDSIM_BUILTIN_SLEEP, KARG_VA, SIG_VA);
	sleep_ms(20);
	/* returns (the test's timeout would catch a hang); never completed */
	tq_stop(&f->t);
	assert_int_equal(*sig, 1);
}

static void test_stop_while_barrier_blocked(void **state)
{
	struct engine_fixture *f = *state;
	uint64_t deps[5] = {SIG_VA + 64, 0, 0, 0, 0};

	signal_init(&f->g, SIG_VA + 64, 1, 0, 0);
	aql_barrier(&f->t, false, deps, 0);
	sleep_ms(20);
	tq_stop(&f->t);
	assert_int_equal(*f->t.rptr, 0);
}

static void test_stop_while_inactive(void **state)
{
	struct engine_fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	struct aql_barrier_packet p;

	sim_engine_queue_set_active(f->t.q, false);
	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_BARRIER_AND;
	p.completion_signal = SIG_VA;
	aql_submit(&f->t, &p, true);
	tq_stop(&f->t);
	/* an inactive queue executes nothing, even when stopped */
	assert_int_equal(*sig, 1);
	assert_int_equal(*f->t.rptr, 0);
}

/* A callback may deactivate queues: its own (no wait, it is the engine
 * thread) and others (waits until they are parked). */
static void test_deactivate_from_interrupt_callback(void **state)
{
	struct engine_fixture *f = *state;
	struct test_queue other;
	uint64_t mailbox_va = SIG_VA + 0x800;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, mailbox_va, 5);
	int64_t *sig2 = signal_init(&f->g, SIG_VA + 64, 1, 0, 0);
	uint32_t *dst = host(&f->g, DATA_VA);

	__atomic_store_n(&f->g.deactivate_on_interrupt, f->t.q, __ATOMIC_RELEASE);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u32(&f->g, KARG_VA + 8, 3);
	put_u32(&f->g, KARG_VA + 12, 1);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA, SIG_VA);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_true(wait_until(has_interrupt, &f->g, WAIT_MS));
	__atomic_store_n(&f->g.deactivate_on_interrupt, NULL, __ATOMIC_RELEASE);

	put_u64(&f->g, KARG_VA + 64, DATA_VA + 4);
	put_u32(&f->g, KARG_VA + 72, 4);
	put_u32(&f->g, KARG_VA + 76, 1);
	aql_dispatch(&f->t, KFDSIM_BUILTIN_FILL_U32, KARG_VA + 64, SIG_VA + 64);
	sleep_ms(30);
	assert_int_equal(dst[0], 3);
	assert_int_equal(dst[1], 0);
	assert_int_equal(__atomic_load_n(sig2, __ATOMIC_ACQUIRE), 1);
	sim_engine_queue_set_active(f->t.q, true);
	assert_true(wait_i64(sig2, 0, WAIT_MS));
	assert_int_equal(dst[1], 4);
	assert_true(wait_u64(f->t.rptr, 2, WAIT_MS));

	/* cross-queue: an SDMA queue's trap deactivates this AQL queue while
	 * it sleeps; the call from the SDMA thread waits for it to park */
	signal_init(&f->g, SIG_VA + 128, 1, 0, 0);
	put_u64(&f->g, KARG_VA + 128, 1000000000ull); /* 1 s: margin for a loaded host */
	aql_dispatch(&f->t, KFDSIM_BUILTIN_SLEEP, KARG_VA + 128, SIG_VA + 128);
	tq_start_at(&other, &f->g, SIM_QUEUE_SDMA, 256, Q2_VA);
	__atomic_store_n(&f->g.deactivate_on_interrupt, f->t.q, __ATOMIC_RELEASE);
	{
		uint32_t trap[2] = {6 /* TRAP */, 9};

		sdma_write(&other, trap, 2);
		sdma_publish(&other);
	}
	assert_true(wait_u64(other.rptr, 8, WAIT_MS));
	__atomic_store_n(&f->g.deactivate_on_interrupt, NULL, __ATOMIC_RELEASE);
	sleep_ms(60);
	assert_int_equal(__atomic_load_n((int64_t *)host(&f->g, SIG_VA + 136), __ATOMIC_ACQUIRE),
			 1);
	sim_engine_queue_set_active(f->t.q, true);
	assert_true(wait_i64(host(&f->g, SIG_VA + 136), 0, WAIT_MS));
	tq_stop(&other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_fill_completes_signal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_copy_across_mappings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_vadd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sleep_lower_bound, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mailbox_and_interrupt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_signal_no_interrupt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_barrier_and_blocks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_barrier_or, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_barrier_value, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pm4_ib_cache_invalidate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pm4_ib_other_opcode_rejected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pm4_ib_overrun_rejected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_illegal_descriptor_stops_queue, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_builtin, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsupported_packet_type, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fault_builtin, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fault_on_mapped_address_is_no_fault, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_write_to_readonly_faults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_doorbell_without_kick, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ring_wraps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inactive_queue_pauses, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_while_sleeping, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_while_barrier_blocked, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_while_inactive, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_deactivate_from_interrupt_callback, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
