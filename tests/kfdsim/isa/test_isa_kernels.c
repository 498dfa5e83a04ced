/* SPDX-License-Identifier: MIT */
/*
 * The gfx9 interpreter runs kernels written in assembly (kernels/NAME.s,
 * assembled for gfx90a into isa_test_kernels.h) through the AQL engine
 * with a fake GPU environment: dispatch state, SALU/VALU, global memory,
 * LDS and barriers, atomics, scratch, faults, traps, stop.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aql_packets.h"
#include "engine_test_util.h"
#include "isa_test_kernels.h"
#include "mfma_ref.h"

#define WAIT_MS   10000
#define CODE_VA   0xa0000000ull /* descriptor at +0, code at +256 */
#define CODE_SIZE 0x10000ull

/* kernel descriptor fields (amdhsa) */
#define KCP_PRIVATE_SEGMENT_BUFFER (1u << 0)
#define KCP_KERNARG_SEGMENT_PTR    (1u << 3)
#define RSRC2_PRIVATE_SEGMENT      (1u << 0)
#define RSRC2_USER_SGPRS(n)        ((n) << 1)
#define RSRC2_WORKGROUP_ID_X       (1u << 7)

struct fixture {
	struct fake_gpu g;
	struct test_queue t;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	test_env_setup(&f->g);
	fake_gpu_map(&f->g, CODE_VA, CODE_SIZE, false);
	tq_start(&f->t, &f->g, SIM_QUEUE_COMPUTE_AQL, 4096);
	*state = f;
	return 0;
}

/* The same with a dispatch's workgroups on three threads (the engine
 * thread and two helpers; isa_dispatch.c reads VKFDSIM_ISA_THREADS at
 * each dispatch). */
static int setup_threads(void **state)
{
	setenv("VKFDSIM_ISA_THREADS", "3", 1);
	return setup(state);
}

static int teardown(void **state);

static int teardown_threads(void **state)
{
	int r = teardown(state);

	unsetenv("VKFDSIM_ISA_THREADS");
	return r;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->t.q)
		tq_stop(&f->t);
	fake_gpu_fini(&f->g);
	free(f);
	return 0;
}

/* Write a descriptor for `code` (kernargs in s[0:1], or after the private
 * segment buffer when `priv`) and the code itself. */
static void load_kernel(struct fixture *f, const uint32_t *code, size_t bytes, bool priv)
{
	uint8_t *kd = host(&f->g, CODE_VA);
	int64_t entry = 256;
	uint32_t rsrc2, props;

	memset(kd, 0, 64);
	memcpy(kd + 16, &entry, 8);
	props = KCP_KERNARG_SEGMENT_PTR | (priv ? KCP_PRIVATE_SEGMENT_BUFFER : 0);
	rsrc2 = RSRC2_USER_SGPRS(priv ? 6u : 2u) | RSRC2_WORKGROUP_ID_X |
		(priv ? RSRC2_PRIVATE_SEGMENT : 0);
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 4);
	memcpy(kd + 256, code, bytes);
}

static void dispatch_sig(struct fixture *f, uint32_t grid, uint16_t wg, uint32_t lds, uint32_t priv,
			 uint64_t sig_va)
{
	struct aql_dispatch_packet p;

	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
	p.setup = 1;
	p.workgroup_size[0] = wg;
	p.workgroup_size[1] = p.workgroup_size[2] = 1;
	p.grid_size[0] = grid;
	p.grid_size[1] = p.grid_size[2] = 1;
	p.group_segment_size = lds;
	p.private_segment_size = priv;
	p.kernel_object = CODE_VA;
	p.kernarg_address = KARG_VA;
	p.completion_signal = sig_va;
	aql_submit(&f->t, &p, true);
}

static void dispatch(struct fixture *f, uint32_t grid, uint16_t wg, uint32_t lds, uint32_t priv)
{
	dispatch_sig(f, grid, wg, lds, priv, SIG_VA);
}

static void put_u64(struct fake_gpu *g, uint64_t va, uint64_t v)
{
	memcpy(host(g, va), &v, 8);
}

static void put_u32(struct fake_gpu *g, uint64_t va, uint32_t v)
{
	memcpy(host(g, va), &v, 4);
}

#define LOAD(f, k, priv) load_kernel(f, k, sizeof(k), priv)

/* A dispatch that must complete; its completion signal is signal slot
 * `slot` (a test with several dispatches uses a fresh one for each, as
 * the engine may still read a signal it completed). */
static void run_ok_slot(struct fixture *f, uint32_t grid, uint16_t wg, uint32_t lds, uint32_t priv,
			unsigned slot)
{
	int64_t *sig = signal_init(&f->g, SIG_VA + 64 * slot, 1, 0, 0);

	dispatch_sig(f, grid, wg, lds, priv, SIG_VA + 64 * slot);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_int_equal(fake_gpu_faults(&f->g), 0);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

static void run_ok(struct fixture *f, uint32_t grid, uint16_t wg, uint32_t lds, uint32_t priv)
{
	run_ok_slot(f, grid, wg, lds, priv, 0);
}

static void test_vadd_partial_workgroup(void **state)
{
	struct fixture *f = *state;
	const uint32_t n = 1000; /* 8 workgroups of 128, the last one partial */
	float *a = host(&f->g, DATA_VA), *b = host(&f->g, DATA_VA + 0x10000);
	float *c = host(&f->g, DATA_VA + 0x20000);

	for (uint32_t i = 0; i < n; i++) {
		a[i] = (float)i * 0.25f;
		b[i] = 3.0f - (float)i;
	}
	for (uint32_t i = n; i < 1100; i++)
		c[i] = -1.0f;
	LOAD(f, kernel_vadd, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u64(&f->g, KARG_VA + 8, DATA_VA + 0x10000);
	put_u64(&f->g, KARG_VA + 16, DATA_VA + 0x20000);
	put_u32(&f->g, KARG_VA + 24, n);
	put_u32(&f->g, KARG_VA + 28, 128);
	run_ok(f, 1024, 128, 0, 0);
	for (uint32_t i = 0; i < n; i++)
		assert_true(c[i] == (float)i * 0.25f + (3.0f - (float)i));
	/* lanes past n were masked off by EXEC */
	for (uint32_t i = n; i < 1100; i++)
		assert_true(c[i] == -1.0f);
}

static void test_lds_barrier(void **state)
{
	struct fixture *f = *state;
	uint32_t *in = host(&f->g, DATA_VA), *out = host(&f->g, DATA_VA + 0x10000);

	for (uint32_t i = 0; i < 1024; i++)
		in[i] = i * 7 + 1;
	LOAD(f, kernel_lds_reverse, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u64(&f->g, KARG_VA + 8, DATA_VA + 0x10000);
	run_ok(f, 1024, 256, 1024, 0);
	for (uint32_t g = 0; g < 4; g++)
		for (uint32_t t = 0; t < 256; t++)
			assert_int_equal(out[g * 256 + t], in[g * 256 + 255 - t]);
}

static void test_global_atomics(void **state)
{
	struct fixture *f = *state;
	const uint32_t n = 640;
	uint32_t *counter = host(&f->g, DATA_VA), *out = host(&f->g, DATA_VA + 0x1000);
	uint8_t seen[640] = {0};

	*counter = 0;
	LOAD(f, kernel_atomic_counter, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u64(&f->g, KARG_VA + 8, DATA_VA + 0x1000);
	run_ok(f, n, 64, 0, 0);
	assert_int_equal(*counter, n);
	/* every ticket handed out exactly once */
	for (uint32_t i = 0; i < n; i++) {
		assert_true(out[i] < n);
		assert_int_equal(seen[out[i]], 0);
		seen[out[i]] = 1;
	}
}

static void test_divergent_loop(void **state)
{
	struct fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_divergent_loop, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++)
		assert_int_equal(out[t], t * (t + 1) / 2);
}

static void test_f64_fma_and_division(void **state)
{
	struct fixture *f = *state;
	double *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_f64_fma, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++) {
		volatile double num = (double)t * 0.5 + 1.0, den = 3.0;

		assert_true(out[t] == num / den);
	}
}

static void test_packed_f32(void **state)
{
	struct fixture *f = *state;
	float *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_packed_f32, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++) {
		assert_true(out[2 * t] == (float)t * 2.0f + 0.5f);
		assert_true(out[2 * t + 1] == (float)t * 4.0f - 1.0f);
	}
}

/* binary16 bits of a positive value that f16 represents exactly, computed
 * independently of the interpreter's conversions */
static uint32_t f16_exact(double v)
{
	int e = 0;

	while (v >= 2.0)
		v /= 2.0, e++;
	while (v < 1.0)
		v *= 2.0, e--;
	return (uint32_t)(e + 15) << 10 | (uint32_t)((v - 1.0) * 1024.0);
}

static void test_f16_opsel(void **state)
{
	struct fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_f16_opsel, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++) {
		const uint32_t *o = out + 8 * t;

		assert_int_equal(o[0], f16_exact(t + 0.5));
		assert_int_equal(o[1], ((3 * t + 7) & 0xffff) << 16 | 0x1234);
		assert_int_equal(o[2], 0xabcd0000u | (t > 2 ? t : 2));
		assert_int_equal(o[3], (t + 1000) | (t + 1 + 2000) << 16);
		assert_int_equal(o[4], f16_exact(2.0 * t + 1.0) | f16_exact(4.0) << 16);
		assert_int_equal(o[5], 4 * t + 49);
		assert_int_equal(o[6], t > 10);
		assert_int_equal(o[7], t >= 10 ? t - 10 : 0);
	}
}

/* kernels/mfma.s: selector n runs mfma_cases[n] (same order as the .s) */
#define F32  MFMA_REF_F32
#define F16  MFMA_REF_F16
#define BF16 MFMA_REF_BF16
#define I8   MFMA_REF_I8
#define F64  MFMA_REF_F64
static const struct mfma_ref_case mfma_cases[] = {
    {"v_mfma_f32_32x32x1f32", 32, 1, 2, F32, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x1f32", 16, 1, 4, F32, 0, 0, 0, 0, 0},
    {"v_mfma_f32_4x4x1f32", 4, 1, 16, F32, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x2f32", 32, 2, 1, F32, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x4f32", 16, 4, 1, F32, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x4f16", 32, 4, 2, F16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x4f16", 16, 4, 4, F16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_4x4x4f16", 4, 4, 16, F16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x8f16", 32, 8, 1, F16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x16f16", 16, 16, 1, F16, 0, 0, 0, 0, 0},
    {"v_mfma_i32_32x32x4i8", 32, 4, 2, I8, 0, 0, 0, 0, 0},
    {"v_mfma_i32_16x16x4i8", 16, 4, 4, I8, 0, 0, 0, 0, 0},
    {"v_mfma_i32_4x4x4i8", 4, 4, 16, I8, 0, 0, 0, 0, 0},
    {"v_mfma_i32_32x32x8i8", 32, 8, 1, I8, 0, 0, 0, 0, 0},
    {"v_mfma_i32_16x16x16i8", 16, 16, 1, I8, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x4bf16_1k", 32, 4, 2, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x4bf16_1k", 16, 4, 4, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_4x4x4bf16_1k", 4, 4, 16, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x8bf16_1k", 32, 8, 1, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x16bf16_1k", 16, 16, 1, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x2bf16", 32, 2, 2, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x2bf16", 16, 2, 4, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_4x4x2bf16", 4, 2, 16, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_32x32x4bf16", 32, 4, 1, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f32_16x16x8bf16", 16, 8, 1, BF16, 0, 0, 0, 0, 0},
    {"v_mfma_f64_16x16x4f64", 16, 4, 1, F64, 0, 0, 0, 0, 0},
    {"v_mfma_f64_4x4x4f64", 4, 4, 4, F64, 0, 0, 0, 0, 0},
    {"AGPR v_mfma_f32_32x32x8f16", 32, 8, 1, F16, 0, 0, 0, 0, 0},
    {"AGPR v_mfma_f64_16x16x4f64", 16, 4, 1, F64, 0, 0, 0, 0, 0},
    {"AGPR v_mfma_i32_16x16x4i8", 16, 4, 4, I8, 0, 0, 0, 0, 0},
    {"C=1.0 v_mfma_f32_16x16x4f32", 16, 4, 1, F32, 0, 0, 0, 1, 0x3f800000},
    {"C=0 v_mfma_i32_4x4x4i8", 4, 4, 16, I8, 0, 0, 0, 1, 0},
    {"C=-2.0 v_mfma_f64_4x4x4f64", 4, 4, 4, F64, 0, 0, 0, 1, 0xc000000000000000ull},
    {"v_mfma_f32_4x4x1f32 cbsz:2 abid:1 blgp:3", 4, 1, 16, F32, 2, 1, 3, 0, 0},
    {"v_mfma_f32_32x32x1f32 cbsz:1 abid:1 blgp:1", 32, 1, 2, F32, 1, 1, 1, 0, 0},
    {"v_mfma_f32_16x16x4f16 cbsz:2 abid:3 blgp:6", 16, 4, 4, F16, 2, 3, 6, 0, 0},
    {"v_mfma_i32_4x4x4i8 cbsz:4 abid:9 blgp:7", 4, 4, 16, I8, 4, 9, 7, 0, 0},
    {"v_mfma_f32_16x16x16bf16_1k blgp:2", 16, 16, 1, BF16, 0, 0, 2, 0, 0},
    {"v_mfma_f32_32x32x2bf16 cbsz:1 blgp:5", 32, 2, 2, BF16, 1, 0, 5, 0, 0},
    {"v_mfma_f32_16x16x1f32 cbsz:1 abid:1 blgp:4", 16, 1, 4, F32, 1, 1, 4, 0, 0},
    {"D overlapping A and B: v_mfma_f32_4x4x1f32", 4, 1, 16, F32, 0, 0, 0, 0, 0},
};
#undef F32
#undef F16
#undef BF16
#undef I8
#undef F64

/* a multiple of 1/2 in [-4, 4] as f32 bits, from a random number */
static uint32_t half_step_f32(uint32_t r)
{
	float v = (float)((int)(r % 17) - 8) / 2.0f;
	uint32_t u;

	memcpy(&u, &v, 4);
	return u;
}

/* the same value as binary16 bits (f16_exact is for positive values) */
static uint32_t half_step_f16(uint32_t r)
{
	int h = (int)(r % 17) - 8;

	if (!h)
		return 0;
	return (h < 0 ? 0x8000u : 0) | f16_exact((h < 0 ? -h : h) / 2.0);
}

/* per lane: A (2 dwords), B (2), C (32) in; D (32) out */
#define MFMA_IN_DW  36
#define MFMA_OUT_VA (DATA_VA + 0x10000)

static uint32_t mfma_input_word(enum mfma_ref_type t, unsigned reg, uint32_t r)
{
	switch (t) {
	case MFMA_REF_F32:
		return half_step_f32(r);
	case MFMA_REF_F16:
		return half_step_f16(r) | half_step_f16(r >> 8) << 16;
	case MFMA_REF_BF16:
		return half_step_f32(r) >> 16 | (half_step_f32(r >> 8) & 0xffff0000u);
	case MFMA_REF_I8:
		return r;
	default: { /* an f64 register pair: the low dword of a half step is 0 */
		double v = (double)((int)(r % 17) - 8) / 2.0;
		uint64_t u;

		memcpy(&u, &v, 8);
		(void)reg;
		return (uint32_t)(u >> 32);
	}
	}
}

static void test_mfma_against_host(void **state)
{
	struct fixture *f = *state;
	uint32_t *in = host(&f->g, DATA_VA), *out = host(&f->g, MFMA_OUT_VA);
	static uint32_t a[2][64], b[2][64], c[32][64], d[32][64];
	uint32_t seed = 12345;

	LOAD(f, kernel_mfma, false);
	for (unsigned n = 0; n < sizeof(mfma_cases) / sizeof(mfma_cases[0]); n++) {
		const struct mfma_ref_case *mc = &mfma_cases[n];
		enum mfma_ref_type ct =
		    mc->in == MFMA_REF_F16 || mc->in == MFMA_REF_BF16 ? MFMA_REF_F32 : mc->in;
		unsigned nout = mfma_ref_out_regs(mc);

		for (unsigned l = 0; l < 64; l++) {
			uint32_t *p = in + MFMA_IN_DW * l;

			for (unsigned r = 0; r < 36; r++) {
				seed = seed * 1103515245u + 12345u;
				if (r < 4)
					p[r] = mfma_input_word(mc->in, r, seed >> 8);
				else if (ct == MFMA_REF_F64)
					p[r] = r % 2 ? mfma_input_word(ct, r, seed >> 8) : 0;
				else
					p[r] = mfma_input_word(ct, r, seed >> 8);
			}
			/* f64 operands are register pairs: low dwords 0 */
			if (mc->in == MFMA_REF_F64)
				p[0] = p[2] = 0;
			for (unsigned r = 0; r < 2; r++) {
				a[r][l] = p[r];
				b[r][l] = p[2 + r];
			}
			for (unsigned r = 0; r < 32; r++)
				c[r][l] = p[4 + r];
		}
		memset(out, 0, 64 * 128);
		put_u64(&f->g, KARG_VA, DATA_VA);
		put_u64(&f->g, KARG_VA + 8, MFMA_OUT_VA);
		put_u32(&f->g, KARG_VA + 16, n);
		run_ok_slot(f, 64, 64, 0, 0, n);
		mfma_ref_run(mc, a, b, c, d);
		for (unsigned l = 0; l < 64; l++)
			for (unsigned r = 0; r < nout; r++)
				if (out[32 * l + r] != d[r][l])
					fail_msg("%s: lane %u register %u: %#x, expected %#x",
						 mc->name, l, r, out[32 * l + r], d[r][l]);
	}
}

/* the test's independent format conversions */
static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float f16_value(uint32_t h)
{
	int e = (int)(h >> 10 & 31);
	float m = (float)(h & 1023) / 1024.0f;
	float v = e == 31 ? (m != 0.0f ? NAN : INFINITY)
		  : e     ? ldexpf(1.0f + m, e - 15)
			  : ldexpf(m, -14);

	return h & 0x8000 ? -v : v;
}

static int32_t sign_extend(uint32_t v, unsigned bits)
{
	return (int32_t)(v << (32 - bits)) >> (32 - bits);
}

static float snorm(uint32_t v, unsigned bits)
{
	float f = (float)sign_extend(v, bits) / (float)((1u << (bits - 1)) - 1);

	return f < -1.0f ? -1.0f : f;
}

static void test_mtbuf_formats(void **state)
{
	struct fixture *f = *state;
	uint32_t *in = host(&f->g, DATA_VA), *out = host(&f->g, MFMA_OUT_VA);
	uint32_t seed = 99;

	LOAD(f, kernel_mtbuf, false);
	for (unsigned i = 0; i < 256; i++) {
		seed = seed * 1103515245u + 12345u;
		in[i] = seed ^ seed >> 16;
	}
	/* lane 5's f16 halves: 1.5, -2, a denormal, infinity */
	in[5 * 4 + 0] = 0xc0003e00u;
	in[5 * 4 + 1] = 0x7c000001u;
	memset(out, 0xee, 8192 + 4096 + 2048);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u64(&f->g, KARG_VA + 8, MFMA_OUT_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++) {
		const uint32_t *d = in + 4 * t, *o = out + 32 * t;
		const uint8_t *b = (const uint8_t *)d;
		const uint32_t *st = out + 2048 + 4 * t, *st2 = out + 2048 + 256 + 4 * t;
		float lane_f = (float)t / 64.0f;

		/* 8_8_8_8 UNORM */
		for (unsigned c = 0; c < 4; c++)
			assert_int_equal(o[c], f32_bits((float)(b[c] / 255.0)));
		/* 16_16 SNORM at +4, z = 0, w = 1.0 */
		assert_int_equal(o[4], f32_bits(snorm(d[1] & 0xffff, 16)));
		assert_int_equal(o[5], f32_bits(snorm(d[1] >> 16, 16)));
		assert_int_equal(o[6], 0);
		assert_int_equal(o[7], 0x3f800000u);
		/* 2_10_10_10 UINT at +8: X in the low bits */
		assert_int_equal(o[8], d[2] & 1023);
		assert_int_equal(o[9], d[2] >> 10 & 1023);
		assert_int_equal(o[10], d[2] >> 20 & 1023);
		assert_int_equal(o[11], d[2] >> 30);
		/* 10_11_11 FLOAT at +12: 11, 11, 10-bit unsigned floats */
		for (unsigned c = 0, sh = 0; c < 3; c++) {
			unsigned bits = c < 2 ? 11 : 10, mb = bits - 5;
			uint32_t v = d[3] >> sh & ((1u << bits) - 1), e = v >> mb,
				 m = v & ((1u << mb) - 1);
			float x = e == 31 ? (m ? NAN : INFINITY)
				  : e     ? ldexpf(1.0f + (float)m / (float)(1u << mb), (int)e - 15)
					  : ldexpf((float)m, -14 - (int)mb);

			if (isnan(x))
				assert_true((o[12 + c] & 0x7fffffffu) > 0x7f800000u);
			else
				assert_int_equal(o[12 + c], f32_bits(x));
			sh += bits;
		}
		/* 16_16_16_16 FLOAT at +0 */
		for (unsigned c = 0; c < 4; c++) {
			float x = f16_value(d[c / 2] >> 16 * (c % 2) & 0xffff);

			if (isnan(x))
				assert_true((o[16 + c] & 0x7fffffffu) > 0x7f800000u);
			else
				assert_int_equal(o[16 + c], f32_bits(x));
		}
		if (t == 5) {
			assert_int_equal(o[16], 0x3fc00000u);
			assert_int_equal(o[17], 0xc0000000u);
			assert_int_equal(o[18], f32_bits(ldexpf(1.0f, -24)));
			assert_int_equal(o[19], 0x7f800000u);
		}
		/* 8_8 SSCALED at +6 */
		assert_int_equal(o[20], f32_bits((float)(int8_t)b[6]));
		assert_int_equal(o[21], f32_bits((float)(int8_t)b[7]));
		/* 16 SINT at +2 */
		assert_int_equal(o[22], (uint32_t)sign_extend(d[0] >> 16, 16));
		/* 32_32_32 UINT, structured: record t at t * 16 + 4; records
		 * 60..63 are beyond num_records and read 0 */
		for (unsigned c = 0; c < 3; c++)
			assert_int_equal(o[24 + c], t < 60 ? d[1 + c] : 0);
		/* 16_16 USCALED at +8 */
		assert_int_equal(o[28], f32_bits((float)(d[2] & 0xffff)));
		assert_int_equal(o[29], f32_bits((float)(d[2] >> 16)));

		/* stores: 8_8_8_8 UNORM of {t / 64, 0.5, 1.5, -1}: ties to even,
		 * clamped */
		assert_int_equal(st[0],
				 (uint32_t)nearbyintf(lane_f * 255.0f) | 128u << 8 | 255u << 16);
		/* 16_16 SINT of {-t, 100 t} */
		assert_int_equal(st[1], ((uint32_t)-t & 0xffff) | (100 * t) << 16);
		/* 2_10_10_10 SNORM of {-0.5, t / 64, -2, 1}: -255.5 -> -256 */
		assert_int_equal(st[2], (((uint32_t)-256 & 1023) |
					 ((uint32_t)nearbyintf(lane_f * 511.0f) << 10) |
					 ((uint32_t)-511 & 1023) << 20 | 1u << 30));
		assert_int_equal(st[3], 0xeeeeeeeeu);
		/* 16_16_16_16 FLOAT of {t / 64, 131008 (inf), -0, 1/3} */
		assert_int_equal(st2[0], (t ? f16_exact(lane_f) : 0) | 0x7c00u << 16);
		assert_int_equal(st2[1], 0x8000u | 0x3555u << 16);
		/* MUBUF format ops: 8_8_8_8 UINT loaded, stored as 32_32_32_32
		 * UINT; {t, 0xffff} as 16_16 UINT */
		for (unsigned c = 0; c < 4; c++)
			assert_int_equal(out[3072 + 4 * t + c], b[c]);
		assert_int_equal(out[3072 + 256 + 4 * t], t | 0xffffu << 16);
	}
}

static void test_pack_cvt(void **state)
{
	struct fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_pack_cvt, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++) {
		const uint32_t *o = out + 8 * t;
		uint32_t ad = t > 32 ? t - 32 : 32 - t, ft = t ? f16_exact(t) : 0;
		int32_t lo = (int32_t)t * 1000 - 40000;
		uint32_t lerp = 0;

		for (uint32_t i = 0; i < 4; i++)
			lerp |= ((t + 3 + (i & 1)) >> 1) << (8 * i);
		assert_int_equal(o[0], 0x7bff3bffu);
		assert_int_equal(o[1], ft | (ft | 0x8000u) << 16);
		assert_int_equal(o[2],
				 ((uint32_t)(lo < -32768 ? -32768 : lo) & 0xffff) | 32767u << 16);
		assert_int_equal(o[3], 4 * ad + 5);
		assert_int_equal(o[4], lerp);
		assert_int_equal(o[5], 32768u | (uint32_t)nearbyint(t / 64.0 * 65535.0) << 16);
		assert_int_equal(o[6], 2 * ad);
		assert_int_equal(o[7], (4 * ad << 16) + 7);
	}
}

static void test_dpp_sdwa(void **state)
{
	struct fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_dpp_sdwa, false);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 64, 64, 0, 0);
	for (uint32_t t = 0; t < 64; t++) {
		const uint32_t *o = out + 8 * t;
		uint32_t r = t & 15, row = t & ~15u;

		assert_int_equal(o[0], (t & ~3u) | (3 - (t & 3)));
		assert_int_equal(o[1], r ? t - 1 : 0);
		assert_int_equal(o[2], r ? t - 1 : 0xffffffffu);
		assert_int_equal(o[3], row + 15 - r + t);
		assert_int_equal(o[4], (row == 16 || row == 48) ? row - 1 : 1000);
		assert_int_equal(o[5], t ? t - 1 : 0);
		assert_int_equal(o[6], (0x33 + t) << 16);
		assert_int_equal(o[7], 0xaa11aaaa);
	}
}

static void test_grid3d_initial_state(void **state)
{
	struct fixture *f = *state;
	const uint32_t WX = 4, WY = 4, WZ = 2, GX = 10, GY = 6, GZ = 3;
	uint32_t *out = host(&f->g, DATA_VA);
	uint8_t *kd = host(&f->g, CODE_VA);
	/* dispatch ptr + kernarg ptr, 4 user SGPRs, workgroup ids x/y/z,
	 * work-item ids x, y and z */
	uint32_t props = (1u << 1) | KCP_KERNARG_SEGMENT_PTR;
	uint32_t rsrc2 = RSRC2_USER_SGPRS(4u) | (7u << 7) | (2u << 11);
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);
	struct aql_dispatch_packet p;

	LOAD(f, kernel_grid3d, false);
	memcpy(kd + 52, &rsrc2, 4);
	memcpy(kd + 56, &props, 4);
	memset(out, 0xff, 16 * GX * GY * GZ);
	put_u64(&f->g, KARG_VA, DATA_VA);
	put_u32(&f->g, KARG_VA + 8, WX);
	put_u32(&f->g, KARG_VA + 12, WY);
	put_u32(&f->g, KARG_VA + 16, WZ);
	put_u32(&f->g, KARG_VA + 20, GX);
	put_u32(&f->g, KARG_VA + 24, GY);
	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
	p.setup = 3;
	p.workgroup_size[0] = WX;
	p.workgroup_size[1] = WY;
	p.workgroup_size[2] = WZ;
	p.grid_size[0] = GX;
	p.grid_size[1] = GY;
	p.grid_size[2] = GZ;
	p.kernel_object = CODE_VA;
	p.kernarg_address = KARG_VA;
	p.completion_signal = SIG_VA;
	aql_submit(&f->t, &p, true);
	assert_true(wait_i64(sig, 0, WAIT_MS));
	assert_int_equal(fake_gpu_queue_errors(&f->g) + fake_gpu_faults(&f->g), 0);
	for (uint32_t z = 0; z < GZ; z++)
		for (uint32_t y = 0; y < GY; y++)
			for (uint32_t x = 0; x < GX; x++) {
				const uint32_t *o = out + 4 * (x + GX * (y + GY * z));

				assert_int_equal(o[0], (x % WX) | (y % WY) << 10 | (z % WZ) << 20);
				assert_int_equal(o[1], (x / WX) | (y / WY) << 10 | (z / WZ) << 20);
				assert_int_equal(o[2], WX | WY << 16);
				assert_int_equal(o[3], GX);
			}
}

static void test_scratch_is_lane_private(void **state)
{
	struct fixture *f = *state;
	uint32_t *out = host(&f->g, DATA_VA);

	LOAD(f, kernel_scratch, true);
	put_u64(&f->g, KARG_VA, DATA_VA);
	run_ok(f, 128, 128, 0, 64);
	for (uint32_t t = 0; t < 128; t++)
		assert_int_equal(out[t], 16 * t);
}

static void test_fault_reports_address(void **state)
{
	struct fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	LOAD(f, kernel_fault, false);
	put_u64(&f->g, KARG_VA, HOLE_VA);
	dispatch(f, 64, 64, 0, 0);
	assert_true(wait_until(has_fault, &f->g, WAIT_MS));
	assert_int_equal(f->g.fault_va, HOLE_VA + 16);
	assert_false(f->g.fault_write);
	assert_int_equal(*sig, 1); /* never completes */
}

static void test_unimplemented_is_illegal(void **state)
{
	struct fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	LOAD(f, kernel_unimplemented, false);
	dispatch(f, 64, 64, 0, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_ILLEGAL_INSTRUCTION);
	assert_int_equal(*sig, 1);
	assert_int_equal(fake_gpu_faults(&f->g), 0);
}

static void test_mfma_partial_exec_is_illegal(void **state)
{
	struct fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	LOAD(f, kernel_mfma_partial_exec, false);
	dispatch(f, 64, 64, 0, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_ILLEGAL_INSTRUCTION);
	assert_int_equal(*sig, 1);
}

static void test_trap_reports(void **state)
{
	struct fixture *f = *state;

	LOAD(f, kernel_trap, false);
	signal_init(&f->g, SIG_VA, 1, 0, 0);
	dispatch(f, 64, 64, 0, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_TRAP);
}

static void test_endless_kernel_stops(void **state)
{
	struct fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	LOAD(f, kernel_spin, false);
	dispatch(f, 64, 64, 0, 0);
	sleep_ms(50);
	tq_stop(&f->t); /* returns although the kernel never ends */
	assert_int_equal(*sig, 1);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

/* Four workgroups interrupt the host: each interrupt arrives once, with
 * its workgroup's context, and the dispatch completes. */
static void test_interrupts_from_workgroups(void **state)
{
	struct fixture *f = *state;
	bool seen[5] = {false};

	LOAD(f, kernel_interrupt, false);
	run_ok(f, 256, 64, 0, 0);
	pthread_mutex_lock(&f->g.lock);
	assert_int_equal(f->g.n_interrupts, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(f->g.interrupts[i] >= 1 && f->g.interrupts[i] <= 4);
		assert_false(seen[f->g.interrupts[i]]);
		seen[f->g.interrupts[i]] = true;
	}
	pthread_mutex_unlock(&f->g.lock);
}

/* Every workgroup of eight faults at the same address: one report. */
static void test_fault_in_many_workgroups(void **state)
{
	struct fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	LOAD(f, kernel_fault, false);
	put_u64(&f->g, KARG_VA, HOLE_VA);
	dispatch(f, 512, 64, 0, 0);
	assert_true(wait_until(has_fault, &f->g, WAIT_MS));
	tq_stop(&f->t); /* the engine has ended: no report can follow */
	assert_int_equal(fake_gpu_faults(&f->g), 1);
	assert_int_equal(f->g.fault_va, HOLE_VA + 16);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
	assert_int_equal(*sig, 1);
}

/* s_trap in every workgroup: one queue error. */
static void test_trap_in_many_workgroups(void **state)
{
	struct fixture *f = *state;

	LOAD(f, kernel_trap, false);
	signal_init(&f->g, SIG_VA, 1, 0, 0);
	dispatch(f, 512, 64, 0, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	tq_stop(&f->t); /* the engine has ended: no report can follow */
	assert_int_equal(fake_gpu_queue_errors(&f->g), 1);
	assert_int_equal(f->g.error_reason, SIM_QERR_TRAP);
}

/* Endless workgroups on every thread: stop() still returns. */
static void test_endless_workgroups_stop(void **state)
{
	struct fixture *f = *state;
	int64_t *sig = signal_init(&f->g, SIG_VA, 1, 0, 0);

	LOAD(f, kernel_spin, false);
	dispatch(f, 512, 64, 0, 0);
	sleep_ms(50);
	tq_stop(&f->t);
	assert_int_equal(*sig, 1);
	assert_int_equal(fake_gpu_queue_errors(&f->g), 0);
}

static void test_garbage_code_is_illegal(void **state)
{
	struct fixture *f = *state;
	static const uint32_t garbage[] = {0xffffffff, 0xffffffff};

	LOAD(f, garbage, false);
	signal_init(&f->g, SIG_VA, 1, 0, 0);
	dispatch(f, 64, 64, 0, 0);
	assert_true(wait_until(has_queue_error, &f->g, WAIT_MS));
	assert_int_equal(f->g.error_reason, SIM_QERR_ILLEGAL_INSTRUCTION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_vadd_partial_workgroup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lds_barrier, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_global_atomics, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_divergent_loop, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_f64_fma_and_division, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_packed_f32, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_f16_opsel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pack_cvt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mfma_against_host, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mtbuf_formats, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dpp_sdwa, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_grid3d_initial_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scratch_is_lane_private, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fault_reports_address, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unimplemented_is_illegal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mfma_partial_exec_is_illegal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trap_reports, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_endless_kernel_stops, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_garbage_code_is_illegal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_interrupts_from_workgroups, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fault_in_many_workgroups, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trap_in_many_workgroups, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_endless_workgroups_stop, setup, teardown),
	    /* workgroups on three threads */
	    cmocka_unit_test_setup_teardown(test_vadd_partial_workgroup, setup_threads,
					    teardown_threads),
	    cmocka_unit_test_setup_teardown(test_lds_barrier, setup_threads, teardown_threads),
	    cmocka_unit_test_setup_teardown(test_global_atomics, setup_threads, teardown_threads),
	    cmocka_unit_test_setup_teardown(test_grid3d_initial_state, setup_threads,
					    teardown_threads),
	    cmocka_unit_test_setup_teardown(test_scratch_is_lane_private, setup_threads,
					    teardown_threads),
	    cmocka_unit_test_setup_teardown(test_interrupts_from_workgroups, setup_threads,
					    teardown_threads),
	    cmocka_unit_test_setup_teardown(test_fault_in_many_workgroups, setup_threads,
					    teardown_threads),
	    cmocka_unit_test_setup_teardown(test_trap_in_many_workgroups, setup_threads,
					    teardown_threads),
	    cmocka_unit_test_setup_teardown(test_endless_workgroups_stop, setup_threads,
					    teardown_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
