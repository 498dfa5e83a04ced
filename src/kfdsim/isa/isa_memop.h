/* SPDX-License-Identifier: MIT */
/*
 * What a vector memory instruction does, derived once from its mnemonic
 * (flat_/global_/scratch_/buffer_/ds_ + load/store/atomic + data type), and
 * the read-modify-write of every atomic operation.
 */
#ifndef KFDSIM_ISA_MEMOP_H
#define KFDSIM_ISA_MEMOP_H

#include <stdbool.h>
#include <stdint.h>

enum memop_kind { MK_NONE, MK_LOAD, MK_STORE, MK_ATOMIC };

enum atomic_op {
	AO_SWAP,
	AO_CMPSWAP,
	AO_ADD,
	AO_SUB,
	AO_RSUB,
	AO_SMIN,
	AO_UMIN,
	AO_SMAX,
	AO_UMAX,
	AO_AND,
	AO_OR,
	AO_XOR,
	AO_INC,
	AO_DEC,
	AO_FADD,
	AO_FMIN,
	AO_FMAX,
	AO_MSKOR,
};

struct memop {
	uint8_t kind;  /* enum memop_kind */
	uint8_t bytes; /* per element: 1, 2, 4, 8, 12, 16 */
	bool sign;     /* sign-extend sub-dword loads */
	bool d16;      /* 16-bit (or 8-bit) into one half of the VGPR */
	bool d16_hi;   /* ... the high half */
	uint8_t aop;   /* enum atomic_op */
	bool rtn;      /* DS: returns the old value */
	bool flt;      /* atomic on floats */
	uint8_t two;   /* DS read2/write2: 1, st64: 64 (offset unit multiplier) */
};

const struct memop *isa_memop(unsigned op);
/* Atomically apply `aop` at p (4 or 8 bytes, naturally aligned); returns the
 * old value. cmp is the compare value of CMPSWAP (data is the new value). */
uint64_t isa_atomic_rmw(void *p, unsigned bytes, unsigned aop, bool flt, uint64_t data,
			uint64_t cmp);

#endif
