/* SPDX-License-Identifier: MIT */
/* gfx9 encodings: field layouts, opcode lookup per target (isa_opcodes.def). */
#include "isa_decode.h"

#include <pthread.h>
#include <string.h>

#define ISA_TARGETS    4
#define ISA_MAX_OPCODE 1024

static const char *const op_names[ISA_OP_COUNT] = {
    [ISA_OP_INVALID] = "<invalid>",
#define ISA_MNEMONIC(name) [ISA_OP_##name] = #name,
#include "isa_opcodes.def"
#undef ISA_MNEMONIC
};

static const char *const fmt_names[ISA_FMT_COUNT] = {
    "SOP2", "SOPK",  "SOP1", "SOPC", "SOPP",    "SMEM",   "VOP2",  "VOP1",  "VOPC",
    "VOP3", "VOP3P", "DS",   "FLAT", "SCRATCH", "GLOBAL", "MUBUF", "MTBUF", "MIMG",
};

struct encoding_row {
	uint8_t fmt;
	uint16_t hwop;
	uint16_t op;
	uint8_t targets;
};

static const struct encoding_row encoding_rows[] = {
#define ISA_ENCODING(fmt, hwop, name, targets) {ISA_FMT_##fmt, hwop, ISA_OP_##name, targets},
#include "isa_opcodes.def"
#undef ISA_ENCODING
};

/* [target][fmt][hwop] -> enum isa_op */
static uint16_t optab[ISA_TARGETS][ISA_FMT_COUNT][ISA_MAX_OPCODE];
static pthread_once_t optab_once = PTHREAD_ONCE_INIT;

static void build_optab(void)
{
	for (size_t i = 0; i < sizeof(encoding_rows) / sizeof(encoding_rows[0]); i++) {
		const struct encoding_row *r = &encoding_rows[i];

		for (unsigned t = 0; t < ISA_TARGETS; t++)
			if (r->targets & (1u << t))
				optab[t][r->fmt][r->hwop] = r->op;
	}
}

void isa_decode_init(void)
{
	pthread_once(&optab_once, build_optab);
}

const char *isa_op_name(unsigned op)
{
	return op < ISA_OP_COUNT ? op_names[op] : "<invalid>";
}

const char *isa_fmt_name(unsigned fmt)
{
	return fmt < ISA_FMT_COUNT ? fmt_names[fmt] : "<invalid>";
}

int isa_encoding_of(enum isa_target target, unsigned fmt, unsigned op)
{
	isa_decode_init();
	if ((unsigned)target >= ISA_TARGETS || fmt >= ISA_FMT_COUNT)
		return -1;
	for (unsigned h = 0; h < ISA_MAX_OPCODE; h++)
		if (optab[target][fmt][h] == op && op != ISA_OP_INVALID)
			return (int)h;
	return -1;
}

static uint32_t bits(uint32_t w, unsigned hi, unsigned lo)
{
	return (w >> lo) & ((1u << (hi - lo + 1)) - 1u);
}

static int32_t sext(uint32_t v, unsigned width)
{
	uint32_t m = 1u << (width - 1);

	return (int32_t)((v ^ m) - m);
}

static enum isa_fmt classify(uint32_t w, bool *ok)
{
	*ok = true;
	if (!(w >> 31)) {
		if (bits(w, 31, 25) == 0x3f)
			return ISA_FMT_VOP1;
		if (bits(w, 31, 25) == 0x3e)
			return ISA_FMT_VOPC;
		return ISA_FMT_VOP2;
	}
	if (bits(w, 31, 30) == 2) {
		switch (bits(w, 31, 23)) {
		case 0x17d:
			return ISA_FMT_SOP1;
		case 0x17e:
			return ISA_FMT_SOPC;
		case 0x17f:
			return ISA_FMT_SOPP;
		default:
			return bits(w, 31, 28) == 0xb ? ISA_FMT_SOPK : ISA_FMT_SOP2;
		}
	}
	switch (bits(w, 31, 26)) {
	case 0x30:
		return ISA_FMT_SMEM;
	case 0x34:
		return bits(w, 31, 23) == 0x1a7 ? ISA_FMT_VOP3P : ISA_FMT_VOP3;
	case 0x36:
		return ISA_FMT_DS;
	case 0x37:
		switch (bits(w, 15, 14)) {
		case 0:
			return ISA_FMT_FLAT;
		case 1:
			return ISA_FMT_SCRATCH;
		case 2:
			return ISA_FMT_GLOBAL;
		default:
			break;
		}
		break;
	case 0x38:
		return ISA_FMT_MUBUF;
	case 0x3a:
		return ISA_FMT_MTBUF;
	case 0x3c:
		return ISA_FMT_MIMG;
	default:
		break;
	}
	/* VINTRP, EXP, MIMG and reserved encodings: not compute ISA here. */
	*ok = false;
	return bits(w, 31, 26) >= 0x30 ? ISA_FMT_VOP3 : ISA_FMT_SOP2;
}

static unsigned hw_opcode(enum isa_fmt f, uint32_t w)
{
	switch (f) {
	case ISA_FMT_SOP2:
		return bits(w, 29, 23);
	case ISA_FMT_SOPK:
		return bits(w, 27, 23);
	case ISA_FMT_SOP1:
		return bits(w, 15, 8);
	case ISA_FMT_SOPC:
	case ISA_FMT_SOPP:
		return bits(w, 22, 16);
	case ISA_FMT_SMEM:
		return bits(w, 25, 18);
	case ISA_FMT_VOP2:
		return bits(w, 30, 25);
	case ISA_FMT_VOP1:
		return bits(w, 16, 9);
	case ISA_FMT_VOPC:
		return bits(w, 24, 17);
	case ISA_FMT_VOP3:
		return bits(w, 25, 16);
	case ISA_FMT_VOP3P:
		return bits(w, 22, 16);
	case ISA_FMT_DS:
		return bits(w, 24, 17);
	case ISA_FMT_FLAT:
	case ISA_FMT_SCRATCH:
	case ISA_FMT_GLOBAL:
	case ISA_FMT_MUBUF:
	case ISA_FMT_MIMG:
		return bits(w, 24, 18);
	case ISA_FMT_MTBUF:
		return bits(w, 18, 15);
	default:
		return 0;
	}
}

static bool has_fixed_size8(enum isa_fmt f)
{
	return f >= ISA_FMT_SMEM && f != ISA_FMT_VOP2 && f != ISA_FMT_VOP1 && f != ISA_FMT_VOPC;
}

static bool is_op(const struct isa_inst *in, enum isa_op a, enum isa_op b, enum isa_op c)
{
	return in->op == a || in->op == b || in->op == c;
}

/* VOP2 opcodes whose scalar carry / mask operands are implicit VCC in
 * the 32-bit encoding and explicit in VOP3. */
static bool writes_carry(const struct isa_inst *in)
{
	return is_op(in, ISA_OP_v_add_co_u32, ISA_OP_v_sub_co_u32, ISA_OP_v_subrev_co_u32) ||
	       is_op(in, ISA_OP_v_addc_co_u32, ISA_OP_v_subb_co_u32, ISA_OP_v_subbrev_co_u32);
}

static bool reads_carry(const struct isa_inst *in)
{
	return is_op(in, ISA_OP_v_addc_co_u32, ISA_OP_v_subb_co_u32, ISA_OP_v_subbrev_co_u32) ||
	       in->op == ISA_OP_v_cndmask_b32;
}

static bool accumulates(const struct isa_inst *in)
{
	return is_op(in, ISA_OP_v_mac_f32, ISA_OP_v_fmac_f32, ISA_OP_v_fmac_f64) ||
	       is_op(in, ISA_OP_v_mac_f16, ISA_OP_v_pk_fmac_f16, ISA_OP_v_dot2c_f32_f16) ||
	       is_op(in, ISA_OP_v_dot2c_i32_i16, ISA_OP_v_dot4c_i32_i8, ISA_OP_v_dot8c_i32_i4);
}

/* VOP3B: a scalar destination in bits 14:8 instead of abs/op_sel/clamp. */
static bool is_vop3b(const struct isa_inst *in)
{
	return writes_carry(in) ||
	       is_op(in, ISA_OP_v_div_scale_f32, ISA_OP_v_div_scale_f64, ISA_OP_v_mad_u64_u32) ||
	       in->op == ISA_OP_v_mad_i64_i32;
}

/* VALU destinations that are SGPRs. */
static bool scalar_vdst(const struct isa_inst *in)
{
	return in->op == ISA_OP_v_readfirstlane_b32 || in->op == ISA_OP_v_readlane_b32;
}

static void fix_valu(struct isa_inst *in, bool e64, uint32_t vdst_field)
{
	if (in->fmt == ISA_FMT_VOPC || (in->fmt == ISA_FMT_VOP3 && in->hwop < 0x100)) {
		/* compares: the result is a lane mask */
		in->sdst = e64 ? (uint16_t)vdst_field : ISA_SRC_VCC_LO;
		in->dst = in->sdst;
		return;
	}
	if (scalar_vdst(in))
		in->dst = (uint16_t)vdst_field;
	if (!e64) {
		if (writes_carry(in))
			in->sdst = ISA_SRC_VCC_LO;
		if (reads_carry(in))
			in->src[2] = ISA_SRC_VCC_LO;
	}
	if (accumulates(in))
		in->src[2] = in->dst;
	if (in->op == ISA_OP_v_accvgpr_read_b32 || in->op == ISA_OP_v_accvgpr_mov_b32)
		in->src[0] = (uint16_t)(in->src[0] + 256);
	if (in->op == ISA_OP_v_accvgpr_write_b32 || in->op == ISA_OP_v_accvgpr_mov_b32)
		in->dst = (uint16_t)(in->dst + 256);
}

bool isa_is_mfma(unsigned op)
{
	/* by name: the MFMA rows of the table are not contiguous */
	return op < ISA_OP_COUNT && !strncmp(isa_op_name(op), "v_mfma_", 7);
}

/* VOP3P-MAI (MFMA): vdst and src2 are AGPRs when acc_cd (bit 15) is set,
 * and always on gfx908, which has no such bit; src0/src1 are AGPRs when
 * their acc bits (59, 60) are set. cbsz, abid and blgp go to `ext`. A
 * scalar src2 is an inline constant; src0/src1 name registers only. */
static void decode_mai(enum isa_target target, uint32_t w, uint32_t w1, struct isa_inst *in)
{
	bool acc_cd = target == ISA_GFX908 || bits(w, 15, 15);
	uint16_t cd = acc_cd ? ISA_SRC_AGPR : ISA_SRC_VGPR;

	in->dst = (uint16_t)(cd + bits(w, 7, 0));
	in->src[0] = (uint16_t)bits(w1, 8, 0);
	in->src[1] = (uint16_t)bits(w1, 17, 9);
	in->src[2] = (uint16_t)bits(w1, 26, 18);
	if (in->src[0] >= ISA_SRC_VGPR && bits(w1, 27, 27))
		in->src[0] = (uint16_t)(in->src[0] + 256);
	if (in->src[1] >= ISA_SRC_VGPR && bits(w1, 28, 28))
		in->src[1] = (uint16_t)(in->src[1] + 256);
	if (in->src[2] >= ISA_SRC_VGPR && acc_cd)
		in->src[2] = (uint16_t)(in->src[2] + 256);
	in->ext = bits(w, 10, 8) << ISA_MAI_CBSZ_SHIFT | bits(w, 14, 11) << ISA_MAI_ABID_SHIFT |
		  bits(w1, 31, 29) << ISA_MAI_BLGP_SHIFT;
}

static bool has_literal_src(const struct isa_inst *in, unsigned nsrc)
{
	for (unsigned i = 0; i < nsrc; i++)
		if (in->src[i] == ISA_SRC_LITERAL)
			return true;
	return false;
}

bool isa_decode(enum isa_target target, const uint32_t *words, unsigned n, struct isa_inst *in)
{
	uint32_t w = words[0], w1;
	bool ok;
	enum isa_fmt f;
	unsigned need;

	isa_decode_init();
	memset(in, 0, sizeof(*in));
	f = classify(w, &ok);
	in->fmt = (uint8_t)f;
	in->size = has_fixed_size8(f) ? 8 : 4;
	if (!ok || (unsigned)target >= ISA_TARGETS)
		return false;
	in->hwop = (uint16_t)hw_opcode(f, w);
	in->op = optab[target][f][in->hwop];
	if (in->op == ISA_OP_INVALID)
		return false;
	if (n < in->size / 4u)
		return false;
	w1 = in->size == 8 ? words[1] : 0;

	switch (f) {
	case ISA_FMT_SOP2:
		in->dst = (uint16_t)bits(w, 22, 16);
		in->src[0] = (uint16_t)bits(w, 7, 0);
		in->src[1] = (uint16_t)bits(w, 15, 8);
		if (has_literal_src(in, 2))
			in->size = 8;
		break;
	case ISA_FMT_SOPK:
		in->dst = (uint16_t)bits(w, 22, 16);
		in->imm = sext(bits(w, 15, 0), 16);
		if (in->op == ISA_OP_s_setreg_imm32_b32) {
			in->size = 8;
			in->src[0] = ISA_SRC_LITERAL;
		}
		break;
	case ISA_FMT_SOP1:
		in->dst = (uint16_t)bits(w, 22, 16);
		in->src[0] = (uint16_t)bits(w, 7, 0);
		if (has_literal_src(in, 1))
			in->size = 8;
		break;
	case ISA_FMT_SOPC:
		in->src[0] = (uint16_t)bits(w, 7, 0);
		in->src[1] = (uint16_t)bits(w, 15, 8);
		if (has_literal_src(in, 2))
			in->size = 8;
		break;
	case ISA_FMT_SOPP:
		in->imm = sext(bits(w, 15, 0), 16);
		break;
	case ISA_FMT_SMEM:
		in->sdst = (uint16_t)(bits(w, 5, 0) * 2);
		in->dst = (uint16_t)bits(w, 12, 6);
		if (bits(w, 16, 16))
			in->flags |= ISA_F_GLC;
		if (bits(w, 17, 17)) {
			in->flags |= ISA_F_IMM;
			in->imm = sext(bits(w1, 20, 0), 21);
			if (bits(w, 14, 14)) {
				in->flags |= ISA_F_SOE;
				in->src[3] = (uint16_t)bits(w1, 31, 25);
			}
		} else {
			in->flags |= ISA_F_SOE;
			in->src[3] = (uint16_t)bits(w1, 7, 0);
		}
		break;
	case ISA_FMT_VOP2:
		in->dst = (uint16_t)(ISA_SRC_VGPR + bits(w, 24, 17));
		in->src[0] = (uint16_t)bits(w, 8, 0);
		in->src[1] = (uint16_t)(ISA_SRC_VGPR + bits(w, 16, 9));
		if (in->op == ISA_OP_v_madmk_f32 || in->op == ISA_OP_v_madmk_f16) {
			/* dst = src0 * K + vsrc1 */
			in->src[2] = in->src[1];
			in->src[1] = ISA_SRC_LITERAL;
		} else if (in->op == ISA_OP_v_madak_f32 || in->op == ISA_OP_v_madak_f16) {
			in->src[2] = ISA_SRC_LITERAL;
		}
		fix_valu(in, false, 0);
		break;
	case ISA_FMT_VOP1:
		in->dst = (uint16_t)(ISA_SRC_VGPR + bits(w, 24, 17));
		in->src[0] = (uint16_t)bits(w, 8, 0);
		fix_valu(in, false, bits(w, 24, 17));
		break;
	case ISA_FMT_VOPC:
		in->src[0] = (uint16_t)bits(w, 8, 0);
		in->src[1] = (uint16_t)(ISA_SRC_VGPR + bits(w, 16, 9));
		fix_valu(in, false, 0);
		break;
	case ISA_FMT_VOP3:
		in->flags |= ISA_F_E64;
		in->dst = (uint16_t)(ISA_SRC_VGPR + bits(w, 7, 0));
		in->src[0] = (uint16_t)bits(w1, 8, 0);
		in->src[1] = (uint16_t)bits(w1, 17, 9);
		in->src[2] = (uint16_t)bits(w1, 26, 18);
		in->omod = (uint8_t)bits(w1, 28, 27);
		in->neg = (uint8_t)bits(w1, 31, 29);
		if (is_vop3b(in)) {
			in->sdst = (uint16_t)bits(w, 14, 8);
		} else {
			in->abs = (uint8_t)bits(w, 10, 8);
			in->opsel = (uint8_t)bits(w, 14, 11);
		}
		if (bits(w, 15, 15))
			in->flags |= ISA_F_CLAMP;
		/* gfx9's VOP3 has no literal: 255 is an invalid operand */
		if (has_literal_src(in, 3))
			return false;
		fix_valu(in, true, bits(w, 7, 0));
		break;
	case ISA_FMT_VOP3P:
		if (isa_is_mfma(in->op)) {
			decode_mai(target, w, w1, in);
			break;
		}
		in->dst = (uint16_t)(ISA_SRC_VGPR + bits(w, 7, 0));
		in->src[0] = (uint16_t)bits(w1, 8, 0);
		in->src[1] = (uint16_t)bits(w1, 17, 9);
		in->src[2] = (uint16_t)bits(w1, 26, 18);
		in->abs = (uint8_t)bits(w, 10, 8); /* neg_hi */
		in->opsel = (uint8_t)bits(w, 13, 11);
		in->opsel_hi = (uint8_t)(bits(w1, 28, 27) | bits(w, 14, 14) << 2);
		in->neg = (uint8_t)bits(w1, 31, 29);
		if (bits(w, 15, 15))
			in->flags |= ISA_F_CLAMP;
		if (has_literal_src(in, 3))
			return false;
		fix_valu(in, true, bits(w, 7, 0));
		break;
	case ISA_FMT_DS: {
		uint16_t reg = bits(w, 25, 25) ? ISA_SRC_AGPR : ISA_SRC_VGPR;

		in->imm = (int32_t)bits(w, 15, 0);
		if (bits(w, 16, 16))
			in->flags |= ISA_F_GDS;
		in->src[0] = (uint16_t)(ISA_SRC_VGPR + bits(w1, 7, 0));
		in->src[1] = (uint16_t)(reg + bits(w1, 15, 8));
		in->src[2] = (uint16_t)(reg + bits(w1, 23, 16));
		in->dst = (uint16_t)(reg + bits(w1, 31, 24));
		break;
	}
	case ISA_FMT_FLAT:
	case ISA_FMT_SCRATCH:
	case ISA_FMT_GLOBAL: {
		uint16_t reg = bits(w1, 23, 23) ? ISA_SRC_AGPR : ISA_SRC_VGPR;

		in->seg = (uint8_t)bits(w, 15, 14);
		in->imm = f == ISA_FMT_FLAT ? (int32_t)bits(w, 11, 0) : sext(bits(w, 12, 0), 13);
		if (bits(w, 13, 13))
			in->flags |= ISA_F_LDS;
		if (bits(w, 16, 16))
			in->flags |= ISA_F_GLC;
		if (bits(w, 17, 17))
			in->flags |= ISA_F_SLC;
		in->src[0] = (uint16_t)(ISA_SRC_VGPR + bits(w1, 7, 0));
		in->src[1] = (uint16_t)(reg + bits(w1, 15, 8));
		in->dst = (uint16_t)(reg + bits(w1, 31, 24));
		in->sdst = (uint16_t)bits(w1, 22, 16);
		if (f != ISA_FMT_FLAT && in->sdst != 0x7f)
			in->flags |= ISA_F_SADDR;
		break;
	}
	case ISA_FMT_MUBUF:
	case ISA_FMT_MTBUF: {
		uint16_t reg = ISA_SRC_VGPR;

		if (bits(w1, 23, 23)) {
			if (target == ISA_GFX90A)
				reg = ISA_SRC_AGPR;
			else
				in->flags |= ISA_F_TFE;
		}
		in->imm = (int32_t)bits(w, 11, 0);
		if (bits(w, 12, 12))
			in->flags |= ISA_F_OFFEN;
		if (bits(w, 13, 13))
			in->flags |= ISA_F_IDXEN;
		if (bits(w, 14, 14))
			in->flags |= ISA_F_GLC;
		if (f == ISA_FMT_MUBUF) {
			if (bits(w, 16, 16))
				in->flags |= ISA_F_LDS;
			if (bits(w, 17, 17))
				in->flags |= ISA_F_SLC;
		} else {
			in->seg = (uint8_t)bits(w, 22, 19);
			in->ext = bits(w, 25, 23);
		}
		in->src[0] = (uint16_t)(ISA_SRC_VGPR + bits(w1, 7, 0));
		in->src[1] = (uint16_t)(reg + bits(w1, 15, 8));
		in->dst = in->src[1];
		in->sdst = (uint16_t)(bits(w1, 20, 16) * 4);
		in->src[3] = (uint16_t)bits(w1, 31, 24);
		break;
	}
	case ISA_FMT_MIMG:
		break; /* image instructions: not executed, operands not needed */
	default:
		return false;
	}

	/* VOP1/VOP2/VOPC: a literal, DPP or SDWA dword follows */
	if (f == ISA_FMT_VOP1 || f == ISA_FMT_VOP2 || f == ISA_FMT_VOPC) {
		if (in->src[0] == ISA_SRC_DPP || in->src[0] == ISA_SRC_SDWA ||
		    has_literal_src(in, 3))
			in->size = 8;
	}
	need = in->size / 4u;
	if (n < need)
		return false;
	if (need == 2 && !has_fixed_size8(f)) {
		if (in->src[0] == ISA_SRC_DPP || in->src[0] == ISA_SRC_SDWA) {
			in->ext = words[1];
			/* SDWA VOPC: SD set names the scalar destination */
			if (f == ISA_FMT_VOPC && in->src[0] == ISA_SRC_SDWA &&
			    bits(in->ext, 15, 15))
				in->sdst = in->dst = (uint16_t)bits(in->ext, 14, 8);
		} else
			in->literal = words[1];
	} else if (f == ISA_FMT_SOPK && in->size == 8) {
		in->literal = words[1];
	}
	return true;
}
