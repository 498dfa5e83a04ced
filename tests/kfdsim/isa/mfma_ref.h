/* SPDX-License-Identifier: MIT */
/*
 * Host reference of the gfx90a MFMA instructions for the interpreter's
 * tests: where each matrix element sits (register, lane) is written out
 * per shape as AMD's matrix instruction calculator prints it for CDNA2,
 * and D = A * B + C is computed matrix by matrix.
 */
#ifndef MFMA_REF_H
#define MFMA_REF_H

#include <stdint.h>

enum mfma_ref_type {
	MFMA_REF_F32,
	MFMA_REF_F16,
	MFMA_REF_BF16,
	MFMA_REF_I8,
	MFMA_REF_F64,
};

struct mfma_ref_case {
	const char *name;
	unsigned m, k, blocks;
	enum mfma_ref_type in;
	unsigned cbsz, abid, blgp;
	/* C is the inline constant `c_const` (bits of an f32 / i32 / f64)
	 * instead of registers */
	int c_is_const;
	uint64_t c_const;
};

/* Registers per lane of A (and of B), and of C/D. */
unsigned mfma_ref_in_regs(const struct mfma_ref_case *c);
unsigned mfma_ref_out_regs(const struct mfma_ref_case *c);
/* d[reg][lane] = A * B + C from a[reg][lane], b[reg][lane], cm[reg][lane]
 * (registers as the instruction reads them). */
void mfma_ref_run(const struct mfma_ref_case *c, const uint32_t a[][64], const uint32_t b[][64],
		  const uint32_t cm[][64], uint32_t d[][64]);

#endif
