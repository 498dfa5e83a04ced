/* SPDX-License-Identifier: MIT */
/*
 * Scalar operand values the interpreter gives the aperture registers: a
 * 32-bit operand reads the high half of the aperture address, a 64-bit one
 * the whole address. clang 17 and later load src_private_base with
 * s_mov_b64 and take the high register as the high half of a flat scratch
 * address (docs/kfdsim-isa.md); a wrong 64-bit value made every private
 * array access of such a HIP kernel fault at address 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "isa_decode.h"
#include "isa_wave.h"

/* Operand codes of the aperture registers (gfx9 scalar source encoding). */
enum { SRC_SHARED_BASE = 235, SRC_SHARED_LIMIT, SRC_PRIVATE_BASE, SRC_PRIVATE_LIMIT };

static uint64_t operand(unsigned code, enum isa_type t)
{
	static struct isa_wave w;
	static struct isa_inst in;

	return isa_scalar_operand(&w, &in, code, t);
}

static void test_apertures_32bit(void **state)
{
	(void)state;
	assert_int_equal(operand(SRC_SHARED_BASE, ISA_T_B32), ISA_SHARED_APERTURE >> 32);
	assert_int_equal(operand(SRC_SHARED_LIMIT, ISA_T_B32),
			 (ISA_SHARED_APERTURE + ISA_APERTURE_SIZE - 1) >> 32);
	assert_int_equal(operand(SRC_PRIVATE_BASE, ISA_T_B32), ISA_PRIVATE_APERTURE >> 32);
	assert_int_equal(operand(SRC_PRIVATE_LIMIT, ISA_T_B32),
			 (ISA_PRIVATE_APERTURE + ISA_APERTURE_SIZE - 1) >> 32);
}

static void test_apertures_64bit(void **state)
{
	(void)state;
	assert_int_equal(operand(SRC_SHARED_BASE, ISA_T_B64), ISA_SHARED_APERTURE);
	assert_int_equal(operand(SRC_SHARED_LIMIT, ISA_T_B64),
			 ISA_SHARED_APERTURE + ISA_APERTURE_SIZE - 1);
	assert_int_equal(operand(SRC_PRIVATE_BASE, ISA_T_B64), ISA_PRIVATE_APERTURE);
	assert_int_equal(operand(SRC_PRIVATE_LIMIT, ISA_T_B64),
			 ISA_PRIVATE_APERTURE + ISA_APERTURE_SIZE - 1);
	/* the high register of s_mov_b64 s[N:N+1], src_private_base is what
	 * LLVM puts in the high half of a flat scratch address */
	assert_int_equal(operand(SRC_PRIVATE_BASE, ISA_T_B64) >> 32,
			 operand(SRC_PRIVATE_BASE, ISA_T_B32));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_apertures_32bit),
	    cmocka_unit_test(test_apertures_64bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
