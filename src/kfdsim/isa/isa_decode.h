/* SPDX-License-Identifier: MIT */
/*
 * gfx9 instruction decoder: binary encodings to struct isa_inst. Which
 * opcode number of which encoding is which instruction on which gfx9
 * target is data (isa_opcodes.def); this file only knows the field layout
 * of each encoding.
 */
#ifndef KFDSIM_ISA_DECODE_H
#define KFDSIM_ISA_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* Encodings (a FLAT instruction's segment selects FLAT/SCRATCH/GLOBAL). */
enum isa_fmt {
	ISA_FMT_SOP2,
	ISA_FMT_SOPK,
	ISA_FMT_SOP1,
	ISA_FMT_SOPC,
	ISA_FMT_SOPP,
	ISA_FMT_SMEM,
	ISA_FMT_VOP2,
	ISA_FMT_VOP1,
	ISA_FMT_VOPC,
	ISA_FMT_VOP3,
	ISA_FMT_VOP3P,
	ISA_FMT_DS,
	ISA_FMT_FLAT,
	ISA_FMT_SCRATCH,
	ISA_FMT_GLOBAL,
	ISA_FMT_MUBUF,
	ISA_FMT_MTBUF,
	ISA_FMT_MIMG, /* decoded (names, lengths) but never executed */
	ISA_FMT_COUNT,
};

/* Instructions, by LLVM mnemonic (without _e32/_e64). */
enum isa_op {
	ISA_OP_INVALID = 0,
#define ISA_MNEMONIC(name) ISA_OP_##name,
#include "isa_opcodes.def"
#undef ISA_MNEMONIC
	ISA_OP_COUNT,
};

/* gfx9 targets the opcode table distinguishes (bit i of a target mask). */
enum isa_target {
	ISA_GFX900 = 0,
	ISA_GFX906 = 1,
	ISA_GFX908 = 2,
	ISA_GFX90A = 3,
};

/* Operand codes (9-bit source encoding); VGPR n is 256 + n. */
#define ISA_SRC_FLAT_SCR_LO 102
#define ISA_SRC_VCC_LO      106
#define ISA_SRC_VCC_HI      107
#define ISA_SRC_M0          124
#define ISA_SRC_EXEC_LO     126
#define ISA_SRC_EXEC_HI     127
#define ISA_SRC_ZERO        128
#define ISA_SRC_SDWA        249
#define ISA_SRC_DPP         250
#define ISA_SRC_VCCZ        251
#define ISA_SRC_EXECZ       252
#define ISA_SRC_SCC         253
#define ISA_SRC_LITERAL     255
#define ISA_SRC_VGPR        256
/* Accumulation registers (AGPRs) continue after the VGPRs. */
#define ISA_SRC_AGPR 512

/* Instruction modifiers (flags). */
#define ISA_F_GLC   (1u << 0)
#define ISA_F_SLC   (1u << 1)
#define ISA_F_OFFEN (1u << 2)
#define ISA_F_IDXEN (1u << 3)
#define ISA_F_LDS   (1u << 4)
#define ISA_F_GDS   (1u << 5)
#define ISA_F_CLAMP (1u << 6)
#define ISA_F_IMM   (1u << 7) /* SMEM: offset is an immediate */
#define ISA_F_SOE   (1u << 8) /* SMEM: soffset present */
#define ISA_F_E64   (1u << 9) /* VOP1/VOP2/VOPC in the VOP3 encoding */
#define ISA_F_SADDR (1u << 10)
#define ISA_F_TFE   (1u << 11)

struct isa_inst {
	uint16_t op;   /* enum isa_op; ISA_OP_INVALID when not decodable */
	uint8_t fmt;   /* enum isa_fmt of the encoding */
	uint8_t size;  /* bytes: 4, 8 or 12 (a literal or DPP/SDWA dword) */
	uint16_t hwop; /* opcode number inside the encoding */
	uint16_t flags;
	/* Destinations: dst is an operand code (SGPR code, 256+VGPR,
	 * 512+AGPR); sdst the scalar destination of VOPC/VOP3B/carry ops
	 * (VCC for the 32-bit encodings). */
	uint16_t dst;
	uint16_t sdst;
	/* Sources as operand codes; ISA_SRC_LITERAL reads `literal`. VOP2
	 * carry-in and v_cndmask's mask in the 32-bit encoding are VCC. */
	uint16_t src[4];
	uint32_t literal;
	int32_t imm;   /* simm16, memory offsets, DS offset0|offset1<<8 */
	uint8_t neg;   /* VOP3 neg bits (VOP3P: neg_lo) */
	uint8_t abs;   /* VOP3 abs bits (VOP3P: neg_hi) */
	uint8_t opsel; /* VOP3 op_sel / VOP3P op_sel */
	uint8_t opsel_hi;
	uint8_t omod;
	uint8_t seg;  /* FLAT segment; MTBUF dfmt (nfmt in ext) */
	uint32_t ext; /* DPP / SDWA control dword; MFMA cbsz/abid/blgp; MTBUF nfmt */
};

/* MFMA modifiers in isa_inst.ext: CBSZ (3 bits), ABID (4), BLGP (3). */
#define ISA_MAI_CBSZ_SHIFT 0
#define ISA_MAI_ABID_SHIFT 4
#define ISA_MAI_BLGP_SHIFT 8
#define ISA_MAI_CBSZ(in)   ((in)->ext & 7u)
#define ISA_MAI_ABID(in)   ((in)->ext >> ISA_MAI_ABID_SHIFT & 15u)
#define ISA_MAI_BLGP(in)   ((in)->ext >> ISA_MAI_BLGP_SHIFT & 7u)

/* Build the opcode tables (once, thread-safe). */
void isa_decode_init(void);
/* Decode the instruction in `words` (n dwords available, n >= 1) for
 * `target`. Always fills `in`; false when the bytes are not a gfx9
 * instruction of that target (in->op == ISA_OP_INVALID, in->size the
 * bytes the encoding would take, at least 4) or more dwords are needed
 * than n (in->size says how many). */
bool isa_decode(enum isa_target target, const uint32_t *words, unsigned n, struct isa_inst *in);
const char *isa_op_name(unsigned op);
/* A matrix fused multiply-add (v_mfma_*, the VOP3P-MAI encoding). */
bool isa_is_mfma(unsigned op);
const char *isa_fmt_name(unsigned fmt);
/* Opcode number of `op` in `fmt` for `target`, or -1. */
int isa_encoding_of(enum isa_target target, unsigned fmt, unsigned op);

#endif
