/* SPDX-License-Identifier: MIT */
/*
 * Hostile machine code: rounds of random instruction words (biased towards
 * the gfx9 encodings) with random grid, workgroup, LDS and scratch sizes.
 * Every round must end in a completion, a VM fault, a queue error or a
 * prompt stop; never a crash (the suite also runs under ASan+UBSan), and a
 * queue reports at most one fault or error.
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
#include "isa_decode.h"

#define CODE_VA   0xa0000000ull
#define CODE_SIZE 0x10000ull
#define ROUNDS    200
#define WORDS     96

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Encoding prefixes: VOP2, VOP1, VOPC, SOP2, SOP1, SOPC, SOPP, SOPK, SMEM,
 * VOP3, VOP3P, DS, FLAT, MUBUF, MTBUF. */
static const struct {
	uint32_t bits, mask;
} prefixes[] = {
    {0x00000000, 0x80000000}, {0x7e000000, 0xfe000000}, {0x7c000000, 0xfe000000},
    {0x80000000, 0xc0000000}, {0xbe800000, 0xff800000}, {0xbf000000, 0xff800000},
    {0xbf800000, 0xff800000}, {0xb0000000, 0xf0000000}, {0xc0000000, 0xfc000000},
    {0xd0000000, 0xfc000000}, {0xd3800000, 0xff800000}, {0xd8000000, 0xfc000000},
    {0xdc000000, 0xfc000000}, {0xe0000000, 0xfc000000}, {0xe8000000, 0xfc000000},
};

/* A real gfx90a instruction (random operands): prefix and opcode field. */
static bool valid_word(uint32_t *out)
{
	static const struct {
		enum isa_fmt fmt;
		uint32_t bits, mask;
		unsigned shift;
	} f[] = {
	    {ISA_FMT_VOP2, 0x00000000, 0xfe000000, 25},
	    {ISA_FMT_VOP1, 0x7e000000, 0xfe01fe00, 9},
	    {ISA_FMT_VOPC, 0x7c000000, 0xfffe0000, 17},
	    {ISA_FMT_SOP2, 0x80000000, 0xff800000, 23},
	    {ISA_FMT_SOP1, 0xbe800000, 0xff80ff00, 8},
	    {ISA_FMT_SOPC, 0xbf000000, 0xffff0000, 16},
	    {ISA_FMT_SOPK, 0xb0000000, 0xff800000, 23},
	    {ISA_FMT_SMEM, 0xc0000000, 0xfffc0000, 18},
	    {ISA_FMT_VOP3, 0xd0000000, 0xfdff0000, 16},
	    {ISA_FMT_DS, 0xd8000000, 0xfdfe0000, 17},
	    {ISA_FMT_GLOBAL, 0xdc008000, 0xfdfcc000, 18},
	    {ISA_FMT_FLAT, 0xdc000000, 0xfdfcc000, 18},
	    {ISA_FMT_MUBUF, 0xe0000000, 0xfdfc0000, 18},
	    {ISA_FMT_MTBUF, 0xe8000000, 0xfc078000, 15},
	    {ISA_FMT_VOP3P, 0xd3800000, 0xffff0000, 16}, /* packed math and MFMA */
	};
	unsigned k = rnd() % (sizeof(f) / sizeof(f[0]));
	int hw = isa_encoding_of(ISA_GFX90A, f[k].fmt, 1 + rnd() % (ISA_OP_COUNT - 1));

	if (hw < 0 || (f[k].fmt == ISA_FMT_VOP2 && hw >= 0x3e))
		return false;
	if (f[k].fmt == ISA_FMT_VOP3 && hw >= 0x380)
		return false;
	*out = (rnd() & ~f[k].mask) | f[k].bits | (uint32_t)hw << f[k].shift;
	return true;
}

static uint32_t random_word(void)
{
	uint32_t w = rnd();
	unsigned p;

	if (rnd() % 2 == 0 && valid_word(&w))
		return w;
	if (rnd() % 4 == 0)
		return w;
	p = rnd() % (sizeof(prefixes) / sizeof(prefixes[0]));
	w = (w & ~prefixes[p].mask) | prefixes[p].bits;
	/* SOPP: keep branch offsets short so control stays in the code */
	if (prefixes[p].bits == 0xbf800000)
		w = (w & 0xffff0000u) | (rnd() % 16);
	return w;
}

static void test_random_code(void **state)
{
	struct fake_gpu g;
	uint32_t *code;
	uint8_t *kd;
	unsigned ended = 0, faulted = 0, errors = 0, stopped = 0;

	(void)state;
	test_env_setup(&g);
	kd = fake_gpu_map(&g, CODE_VA, CODE_SIZE, false);
	code = (uint32_t *)(kd + 256);
	for (unsigned round = 0; round < ROUNDS; round++) {
		struct test_queue t;
		struct aql_dispatch_packet p;
		unsigned faults0 = fake_gpu_faults(&g), errors0 = fake_gpu_queue_errors(&g);
		int64_t *sig = signal_init(&g, SIG_VA, 1, 0, 0);
		int64_t entry = 256;
		uint32_t rsrc2 = (rnd() & 0x1f) << 1 | (rnd() & 0x1f81u), props = rnd() & 0x7f;
		bool done = false;

		memset(kd, 0, 64);
		memcpy(kd + 16, &entry, 8);
		memcpy(kd + 52, &rsrc2, 4);
		memcpy(kd + 56, &props, 4);
		for (unsigned i = 0; i < WORDS; i++)
			code[i] = random_word();
		code[WORDS] = 0xbf810000; /* s_endpgm */
		tq_start(&t, &g, SIM_QUEUE_COMPUTE_AQL, 4096);
		memset(&p, 0, sizeof(p));
		p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
		p.setup = 3;
		p.workgroup_size[0] = (uint16_t)(1 + rnd() % 256);
		p.workgroup_size[1] = (uint16_t)(1 + rnd() % 2);
		p.workgroup_size[2] = 1;
		p.grid_size[0] = 1 + rnd() % 600;
		p.grid_size[1] = 1 + rnd() % 3;
		p.grid_size[2] = 1 + rnd() % 2;
		p.group_segment_size = rnd() % 70000;
		p.private_segment_size = rnd() % 512;
		p.kernel_object = CODE_VA;
		p.kernarg_address = rnd() % 2 ? KARG_VA : HOLE_VA;
		p.completion_signal = SIG_VA;
		aql_submit(&t, &p, true);
		for (unsigned ms = 0; ms < 20 && !done; ms++) {
			done = __atomic_load_n(sig, __ATOMIC_ACQUIRE) == 0 ||
			       fake_gpu_faults(&g) != faults0 ||
			       fake_gpu_queue_errors(&g) != errors0;
			if (!done)
				sleep_ms(1);
		}
		tq_stop(&t);
		/* one report at most per queue */
		assert_true(fake_gpu_faults(&g) - faults0 + fake_gpu_queue_errors(&g) - errors0 <=
			    1);
		if (*sig == 0)
			ended++;
		else if (fake_gpu_faults(&g) != faults0)
			faulted++;
		else if (fake_gpu_queue_errors(&g) != errors0)
			errors++;
		else
			stopped++;
	}
	print_message("random code: %u ended, %u faulted, %u errors, %u stopped\n", ended, faulted,
		      errors, stopped);
	assert_int_equal(ended + faulted + errors + stopped, ROUNDS);
	fake_gpu_fini(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
