/* SPDX-License-Identifier: MIT */
/*
 * SDMA count fields as each modelled SDMA version reads them: COPY_LINEAR
 * 22 bits on SDMA 4.0/5.0, 30 bits on SDMA 4.4 (gfx90a) and 5.2 (gfx1030),
 * where ROCr 6.x puts up to 0x3fffffff bytes in one packet; CONSTANT_FILL
 * 22 bits on all. A count the engine cannot read is a queue error, never a
 * shorter copy. Every copy and fill is verified byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_test_util.h"
#include "sdma_packets.h"

#define WAIT_MS 60000

/* Two big regions: source and destination (1 GiB each for the widest
 * copy, 8 MiB for the rest). */
#define BIG_SRC_VA 0x1000000000ull
#define BIG_DST_VA 0x2000000000ull
#define SMALL_BIG  (8ull << 20)
#define GIB        (1ull << 30)

struct fixture {
	struct fake_gpu g;
	struct test_queue t;
	uint64_t size;
	uint8_t *src, *dst;
};

static uint32_t lo(uint64_t v)
{
	return (uint32_t)v;
}

static uint32_t hi(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

/* A pattern that differs in every 8-byte word (and so catches a copy
 * that stops early, restarts or lands at the wrong offset). */
static void pattern(uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v = (i + 1) * 0x9e3779b97f4a7c15ull;

		memcpy(p + i, &v, 8);
	}
}

static void fixture_init(struct fixture *f, uint64_t size, uint32_t ip_major, uint32_t ip_minor)
{
	test_env_setup(&f->g);
	f->size = size;
	f->src = fake_gpu_map(&f->g, BIG_SRC_VA, size, true);
	f->dst = fake_gpu_map(&f->g, BIG_DST_VA, size, true);
	pattern(f->src, size);
	tq_start_sdma_ip(&f->t, &f->g, SIM_QUEUE_SDMA, 16384, Q_VA, ip_major, ip_minor);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tq_teardown(&f->t, &f->g);
	free(f);
	return 0;
}

static struct fixture *fixture_new(void **state, uint64_t size, uint32_t ip_major,
				   uint32_t ip_minor)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fixture_init(f, size, ip_major, ip_minor);
	*state = f;
	return f;
}

/* One COPY_LINEAR packet with the raw count dword, padded to ROCr's 8. */
static void copy_raw(struct test_queue *t, uint64_t dst, uint64_t src, uint32_t count_dw)
{
	uint32_t p[8] = {SDMA_OP_COPY | SDMA_SUBOP_COPY_LINEAR << 8,
			 count_dw,
			 0,
			 lo(src),
			 hi(src),
			 lo(dst),
			 hi(dst),
			 0};

	sdma_write(t, p, 8);
}

static void fill_raw(struct test_queue *t, uint64_t dst, uint32_t value, bool dwords,
		     uint32_t count_dw)
{
	uint32_t p[8] = {SDMA_OP_CONST_FILL | (dwords ? 2u << 30 : 0), lo(dst), hi(dst), value,
			 count_dw};

	sdma_write(t, p, 8);
}

/* `n` bytes at p all equal `b` / `n` bytes of dwords all `v`: compared a
 * MiB at a time against a reference (fast under the sanitizers too). */
static void expect_fill(const uint8_t *p, const uint8_t *ref, uint64_t n)
{
	for (uint64_t off = 0; off < n; off += 1u << 20) {
		uint64_t len = n - off < (1u << 20) ? n - off : (1u << 20);

		if (memcmp(p + off, ref, len) != 0)
			fail_msg("fill wrong in the MiB at %#llx", (unsigned long long)off);
	}
}

static void expect_bytes(const uint8_t *p, uint8_t b, uint64_t n)
{
	uint8_t *ref = malloc(1u << 20);

	assert_non_null(ref);
	memset(ref, b, 1u << 20);
	expect_fill(p, ref, n);
	free(ref);
}

static void expect_dwords(const uint8_t *p, uint32_t v, uint64_t n)
{
	uint8_t *ref = malloc(1u << 20);

	assert_non_null(ref);
	for (uint32_t i = 0; i < (1u << 20); i += 4)
		memcpy(ref + i, &v, 4);
	expect_fill(p, ref, n);
	free(ref);
}

/* Submit, wait until the engine consumed everything, no error. */
static void run_ok(struct fixture *f)
{
	sdma_publish(&f->t);
	assert_true(wait_u64(f->t.rptr, f->t.next, WAIT_MS));
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
	assert_int_equal(fake_gpu_faults(&f->g), 0);
}

/* Submit a packet the engine must refuse: a queue error, the read pointer
 * stays before it and the destination is untouched. */
static void run_refused(struct fixture *f)
{
	uint64_t before = f->t.next - 32;

	sdma_publish(&f->t);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_SDMA_INVALID_PACKET);
	assert_true(*f->t.rptr <= before);
	for (uint64_t i = 0; i < f->size; i += 4096)
		assert_int_equal(f->dst[i], 0);
}

/* count = 4 MiB + 100 bytes - 1: one packet past the 22-bit field. */
#define PAST_22 ((4u << 20) + 100u)

static void copy_past_22_bits(void **state, uint32_t major, uint32_t minor, bool wide)
{
	struct fixture *f = fixture_new(state, SMALL_BIG, major, minor);

	copy_raw(&f->t, BIG_DST_VA, BIG_SRC_VA, PAST_22 - 1);
	if (!wide) {
		run_refused(f);
		return;
	}
	run_ok(f);
	assert_memory_equal(f->dst, f->src, PAST_22);
	assert_int_equal(f->dst[PAST_22], 0);
}

/* gfx90a */
static void test_sdma44_copy_count_is_30_bits(void **state)
{
	copy_past_22_bits(state, 4, 4, true);
}

/* gfx1030 */
static void test_sdma52_copy_count_is_30_bits(void **state)
{
	copy_past_22_bits(state, 5, 2, true);
}

/* gfx900/gfx906/gfx908 and gfx101x read 22 bits: a wider count is refused */
static void test_sdma40_copy_count_is_22_bits(void **state)
{
	copy_past_22_bits(state, 4, 0, false);
}

static void test_sdma50_copy_count_is_22_bits(void **state)
{
	copy_past_22_bits(state, 5, 0, false);
}

/* Bits 31..30 are outside the 30-bit field: refused, not masked off. */
static void test_copy_count_above_30_bits_refused(void **state)
{
	struct fixture *f = fixture_new(state, SMALL_BIG, 4, 4);

	copy_raw(&f->t, BIG_DST_VA, BIG_SRC_VA, 1u << 30 | 99u);
	run_refused(f);
}

/* The widest 22-bit copy, and ROCr's 0x3fffe0-byte chunks. */
static void test_copy_22_bit_limit(void **state)
{
	struct fixture *f = fixture_new(state, SMALL_BIG, 4, 0);

	copy_raw(&f->t, BIG_DST_VA, BIG_SRC_VA, 0x3fffff);
	copy_raw(&f->t, BIG_DST_VA + 0x400000, BIG_SRC_VA + 0x400000, 0x3fffe0 - 1);
	run_ok(f);
	assert_memory_equal(f->dst, f->src, 0x400000 + 0x3fffe0);
	assert_int_equal(f->dst[0x400000 + 0x3fffe0], 0);
}

/* The widest 30-bit copy: count 0x3fffffff is exactly 1 GiB in one packet. */
static void test_copy_1gib_one_packet(void **state)
{
	struct fixture *f = fixture_new(state, GIB, 4, 4);

	copy_raw(&f->t, BIG_DST_VA, BIG_SRC_VA, 0x3fffffff);
	run_ok(f);
	assert_true(memcmp(f->dst, f->src, GIB) == 0);
}

/* 1 GiB as ROCr 6.x splits it on SDMA 5.2 (0x3fffffff-byte packets). */
static void test_copy_1gib_rocr6_split(void **state)
{
	struct fixture *f = fixture_new(state, GIB, 5, 2);
	const uint64_t max = 0x3fffffff;

	copy_raw(&f->t, BIG_DST_VA, BIG_SRC_VA, (uint32_t)(max - 1));
	copy_raw(&f->t, BIG_DST_VA + max, BIG_SRC_VA + max, (uint32_t)(GIB - max - 1));
	run_ok(f);
	assert_true(memcmp(f->dst, f->src, GIB) == 0);
}

/* CONSTANT_FILL reads 22 bits on every modelled version. */
static void fill_limits(void **state, uint32_t major, uint32_t minor)
{
	struct fixture *f = fixture_new(state, SMALL_BIG, major, minor);
	const uint32_t v = 0xa5c3e1f7u;

	/* bytes: count 0x3fffff = 4 MiB of 0xf7 */
	fill_raw(&f->t, BIG_DST_VA, v, false, 0x3fffff);
	/* dwords, ROCr's largest: 0x3fffe0 bytes */
	fill_raw(&f->t, BIG_DST_VA + 0x400000, v, true, 0x3fffe0 - 4);
	run_ok(f);
	expect_bytes(f->dst, 0xf7, 0x400000);
	expect_dwords(f->dst + 0x400000, v, 0x3fffe0);
	assert_int_equal(f->dst[0x400000 + 0x3fffe0], 0);
}

static void test_sdma44_fill_limits(void **state)
{
	fill_limits(state, 4, 4);
}

static void test_sdma52_fill_limits(void **state)
{
	fill_limits(state, 5, 2);
}

static void test_fill_count_above_22_bits_refused(void **state)
{
	struct fixture *f = fixture_new(state, SMALL_BIG, 5, 2);

	fill_raw(&f->t, BIG_DST_VA, 0x11223344, true, 1u << 22 | 0xfc);
	run_refused(f);
}

/* 1 GiB of dwords as ROCr fills it: 0x3fffe0-byte packets. */
static void test_fill_1gib(void **state)
{
	struct fixture *f = fixture_new(state, GIB, 4, 4);
	const uint32_t v = 0x0badf00d, chunk = 0x3fffe0;
	uint64_t done = 0;

	memset(f->dst, 0xee, GIB);
	while (done < GIB) {
		uint64_t n = GIB - done < chunk ? GIB - done : chunk;

		fill_raw(&f->t, BIG_DST_VA + done, v, true, (uint32_t)n - 4);
		done += n;
	}
	run_ok(f);
	expect_dwords(f->dst, v, GIB);
}

static void test_unmodelled_version_has_no_format(void **state)
{
	struct sim_sdma_format fmt = {1, 1};

	(void)state;
	assert_false(sim_sdma_format_for_ip(3, 0, &fmt));
	assert_false(sim_sdma_format_for_ip(7, 0, &fmt));
	assert_true(sim_sdma_format_for_ip(4, 4, &fmt));
	assert_int_equal(fmt.copy_count_bits, 30);
	assert_int_equal(fmt.fill_count_bits, 22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_sdma44_copy_count_is_30_bits, teardown),
	    cmocka_unit_test_teardown(test_sdma52_copy_count_is_30_bits, teardown),
	    cmocka_unit_test_teardown(test_sdma40_copy_count_is_22_bits, teardown),
	    cmocka_unit_test_teardown(test_sdma50_copy_count_is_22_bits, teardown),
	    cmocka_unit_test_teardown(test_copy_count_above_30_bits_refused, teardown),
	    cmocka_unit_test_teardown(test_copy_22_bit_limit, teardown),
	    cmocka_unit_test_teardown(test_copy_1gib_one_packet, teardown),
	    cmocka_unit_test_teardown(test_copy_1gib_rocr6_split, teardown),
	    cmocka_unit_test_teardown(test_sdma44_fill_limits, teardown),
	    cmocka_unit_test_teardown(test_sdma52_fill_limits, teardown),
	    cmocka_unit_test_teardown(test_fill_count_above_22_bits_refused, teardown),
	    cmocka_unit_test_teardown(test_fill_1gib, teardown),
	    cmocka_unit_test(test_unmodelled_version_has_no_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
