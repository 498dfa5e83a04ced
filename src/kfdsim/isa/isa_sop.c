/* SPDX-License-Identifier: MIT */
/* Scalar ALU: SOP2, SOPK, SOP1, SOPC. */
#include "isa_wave.h"

#define OP(n) ISA_OP_##n

static uint32_t s32(const struct isa_wave *w, const struct isa_inst *in, unsigned i)
{
	return (uint32_t)isa_scalar_operand(w, in, in->src[i], ISA_T_B32);
}

static uint64_t s64(const struct isa_wave *w, const struct isa_inst *in, unsigned i)
{
	return isa_scalar_operand(w, in, in->src[i], ISA_T_B64);
}

static uint32_t bfe32(uint32_t v, uint32_t ctl, bool sign)
{
	uint32_t off = ctl & 31, width = (ctl >> 16) & 0x7f;

	if (width == 0)
		return 0;
	if (width >= 32)
		width = 32 - 0;
	v >>= off;
	if (width < 32) {
		v &= (1u << width) - 1;
		if (sign && (v >> (width - 1)) & 1)
			v |= ~((1u << width) - 1);
	}
	return v;
}

static uint64_t bfe64(uint64_t v, uint32_t ctl, bool sign)
{
	uint32_t off = ctl & 63, width = (ctl >> 16) & 0x7f;

	if (width == 0)
		return 0;
	v >>= off;
	if (width < 64) {
		v &= (1ull << width) - 1;
		if (sign && (v >> (width - 1)) & 1)
			v |= ~((1ull << width) - 1);
	}
	return v;
}

static uint32_t brev32(uint32_t v)
{
	uint32_t r = 0;

	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

static int32_t ff1_64(uint64_t v)
{
	return v ? __builtin_ctzll(v) : -1;
}

static int32_t flbit64(uint64_t v)
{
	return v ? __builtin_clzll(v) : -1;
}

/* Hardware registers (s_getreg/s_setreg) the model keeps. */
#define HWREG_MODE         1
#define HWREG_STATUS       2
#define HWREG_TRAPSTS      3
#define HWREG_HW_ID        4
#define HWREG_GPR_ALLOC    5
#define HWREG_LDS_ALLOC    6
#define HWREG_IB_STS       7
#define HWREG_SH_MEM_BASES 15

static bool hwreg_read(struct isa_wave *w, unsigned id, uint32_t *v)
{
	switch (id) {
	case HWREG_MODE:
		*v = w->mode;
		return true;
	case HWREG_STATUS:
		*v = (w->scc ? 1u : 0u) | (isa_exec(w) == 0) << 9 |
		     (isa_sreg64(w, ISA_SRC_VCC_LO) == 0) << 10;
		return true;
	case HWREG_TRAPSTS:
		*v = w->trapsts;
		return true;
	case HWREG_HW_ID:
		*v = w->id & 0xf; /* wave id; SIMD, CU, SE 0 */
		return true;
	case HWREG_GPR_ALLOC:
	case HWREG_LDS_ALLOC:
	case HWREG_IB_STS:
		*v = 0;
		return true;
	case HWREG_SH_MEM_BASES:
		*v = (uint32_t)(ISA_PRIVATE_APERTURE >> 48) | (uint32_t)(ISA_SHARED_APERTURE >> 48)
								  << 16;
		return true;
	default:
		return false;
	}
}

static enum isa_result setreg(struct isa_wave *w, const struct isa_inst *in, uint32_t val)
{
	unsigned id = in->imm & 0x3f, off = (in->imm >> 6) & 31, size = ((in->imm >> 11) & 31) + 1;
	uint32_t mask = size >= 32 ? ~0u : ((1u << size) - 1) << off;

	if (size < 32)
		mask = (((1u << size) - 1) << off);
	switch (id) {
	case HWREG_MODE:
		w->mode = (w->mode & ~mask) | ((val << off) & mask);
		return ISA_NEXT;
	case HWREG_TRAPSTS:
		w->trapsts = (w->trapsts & ~mask) | ((val << off) & mask);
		return ISA_NEXT;
	default:
		return isa_unimplemented(w, in);
	}
}

static enum isa_result getreg(struct isa_wave *w, const struct isa_inst *in)
{
	unsigned id = in->imm & 0x3f, off = (in->imm >> 6) & 31, size = ((in->imm >> 11) & 31) + 1;
	uint32_t v;

	if (!hwreg_read(w, id, &v))
		return isa_unimplemented(w, in);
	v >>= off;
	if (size < 32)
		v &= (1u << size) - 1;
	isa_wr_s32(w, in->dst, v);
	return ISA_NEXT;
}

static enum isa_result sopk(struct isa_wave *w, const struct isa_inst *in)
{
	uint32_t d = in->dst < 128 ? w->s[in->dst] : 0;
	int32_t k = in->imm;
	uint32_t uk = (uint16_t)in->imm;

	switch (in->op) {
	case OP(s_movk_i32):
		isa_wr_s32(w, in->dst, (uint32_t)k);
		break;
	case OP(s_cmovk_i32):
		if (w->scc)
			isa_wr_s32(w, in->dst, (uint32_t)k);
		break;
	case OP(s_cmpk_eq_i32):
		w->scc = (int32_t)d == k;
		break;
	case OP(s_cmpk_lg_i32):
		w->scc = (int32_t)d != k;
		break;
	case OP(s_cmpk_gt_i32):
		w->scc = (int32_t)d > k;
		break;
	case OP(s_cmpk_ge_i32):
		w->scc = (int32_t)d >= k;
		break;
	case OP(s_cmpk_lt_i32):
		w->scc = (int32_t)d < k;
		break;
	case OP(s_cmpk_le_i32):
		w->scc = (int32_t)d <= k;
		break;
	case OP(s_cmpk_eq_u32):
		w->scc = d == uk;
		break;
	case OP(s_cmpk_lg_u32):
		w->scc = d != uk;
		break;
	case OP(s_cmpk_gt_u32):
		w->scc = d > uk;
		break;
	case OP(s_cmpk_ge_u32):
		w->scc = d >= uk;
		break;
	case OP(s_cmpk_lt_u32):
		w->scc = d < uk;
		break;
	case OP(s_cmpk_le_u32):
		w->scc = d <= uk;
		break;
	case OP(s_addk_i32): {
		int32_t r = (int32_t)(d + (uint32_t)k);

		w->scc = (((int32_t)d ^ r) & (k ^ r)) < 0;
		isa_wr_s32(w, in->dst, (uint32_t)r);
		break;
	}
	case OP(s_mulk_i32):
		isa_wr_s32(w, in->dst, d * (uint32_t)k);
		break;
	case OP(s_getreg_b32):
		return getreg(w, in);
	case OP(s_setreg_b32):
		return setreg(w, in, d);
	case OP(s_setreg_imm32_b32):
		return setreg(w, in, in->literal);
	default:
		return isa_unimplemented(w, in);
	}
	return ISA_NEXT;
}

static enum isa_result saveexec(struct isa_wave *w, const struct isa_inst *in)
{
	uint64_t s = s64(w, in, 0), e = isa_exec(w), n;

	switch (in->op) {
	case OP(s_and_saveexec_b64):
		n = s & e;
		break;
	case OP(s_or_saveexec_b64):
		n = s | e;
		break;
	case OP(s_xor_saveexec_b64):
		n = s ^ e;
		break;
	case OP(s_andn2_saveexec_b64):
		n = s & ~e;
		break;
	case OP(s_orn2_saveexec_b64):
		n = s | ~e;
		break;
	case OP(s_nand_saveexec_b64):
		n = ~(s & e);
		break;
	case OP(s_nor_saveexec_b64):
		n = ~(s | e);
		break;
	case OP(s_xnor_saveexec_b64):
		n = ~(s ^ e);
		break;
	case OP(s_andn1_saveexec_b64):
		n = ~s & e;
		break;
	case OP(s_orn1_saveexec_b64):
		n = ~s | e;
		break;
	case OP(s_andn1_wrexec_b64):
		n = ~s & e;
		isa_set_exec(w, n);
		isa_wr_s64(w, in->dst, n);
		w->scc = n != 0;
		return ISA_NEXT;
	case OP(s_andn2_wrexec_b64):
		n = s & ~e;
		isa_set_exec(w, n);
		isa_wr_s64(w, in->dst, n);
		w->scc = n != 0;
		return ISA_NEXT;
	default:
		return isa_unimplemented(w, in);
	}
	isa_wr_s64(w, in->dst, e);
	isa_set_exec(w, n);
	w->scc = n != 0;
	return ISA_NEXT;
}

static enum isa_result sop1(struct isa_wave *w, const struct isa_inst *in)
{
	uint32_t a;
	uint64_t a64;

	switch (in->op) {
	case OP(s_mov_b32):
		isa_wr_s32(w, in->dst, s32(w, in, 0));
		return ISA_NEXT;
	case OP(s_mov_b64):
		isa_wr_s64(w, in->dst, s64(w, in, 0));
		return ISA_NEXT;
	case OP(s_cmov_b32):
		if (w->scc)
			isa_wr_s32(w, in->dst, s32(w, in, 0));
		return ISA_NEXT;
	case OP(s_cmov_b64):
		if (w->scc)
			isa_wr_s64(w, in->dst, s64(w, in, 0));
		return ISA_NEXT;
	case OP(s_not_b32):
		a = ~s32(w, in, 0);
		w->scc = a != 0;
		isa_wr_s32(w, in->dst, a);
		return ISA_NEXT;
	case OP(s_not_b64):
		a64 = ~s64(w, in, 0);
		w->scc = a64 != 0;
		isa_wr_s64(w, in->dst, a64);
		return ISA_NEXT;
	case OP(s_brev_b32):
		isa_wr_s32(w, in->dst, brev32(s32(w, in, 0)));
		return ISA_NEXT;
	case OP(s_brev_b64):
		a64 = s64(w, in, 0);
		isa_wr_s64(w, in->dst,
			   (uint64_t)brev32((uint32_t)a64) << 32 | brev32((uint32_t)(a64 >> 32)));
		return ISA_NEXT;
	case OP(s_bcnt0_i32_b32):
		a = (uint32_t)__builtin_popcount(~s32(w, in, 0));
		break;
	case OP(s_bcnt0_i32_b64):
		a = (uint32_t)__builtin_popcountll(~s64(w, in, 0));
		break;
	case OP(s_bcnt1_i32_b32):
		a = (uint32_t)__builtin_popcount(s32(w, in, 0));
		break;
	case OP(s_bcnt1_i32_b64):
		a = (uint32_t)__builtin_popcountll(s64(w, in, 0));
		break;
	case OP(s_ff0_i32_b32):
		isa_wr_s32(w, in->dst, (uint32_t)ff1_64(~s32(w, in, 0) & 0xffffffffull));
		return ISA_NEXT;
	case OP(s_ff0_i32_b64):
		isa_wr_s32(w, in->dst, (uint32_t)ff1_64(~s64(w, in, 0)));
		return ISA_NEXT;
	case OP(s_ff1_i32_b32):
		isa_wr_s32(w, in->dst, (uint32_t)ff1_64(s32(w, in, 0)));
		return ISA_NEXT;
	case OP(s_ff1_i32_b64):
		isa_wr_s32(w, in->dst, (uint32_t)ff1_64(s64(w, in, 0)));
		return ISA_NEXT;
	case OP(s_flbit_i32_b32):
		a = s32(w, in, 0);
		isa_wr_s32(w, in->dst, a ? (uint32_t)__builtin_clz(a) : ~0u);
		return ISA_NEXT;
	case OP(s_flbit_i32_b64):
		isa_wr_s32(w, in->dst, (uint32_t)flbit64(s64(w, in, 0)));
		return ISA_NEXT;
	case OP(s_flbit_i32): {
		int32_t v = (int32_t)s32(w, in, 0);
		uint32_t u = v < 0 ? ~(uint32_t)v : (uint32_t)v;

		isa_wr_s32(w, in->dst, u ? (uint32_t)__builtin_clz(u) : ~0u);
		return ISA_NEXT;
	}
	case OP(s_flbit_i32_i64): {
		int64_t v = (int64_t)s64(w, in, 0);
		uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;

		isa_wr_s32(w, in->dst, (uint32_t)flbit64(u));
		return ISA_NEXT;
	}
	case OP(s_sext_i32_i8):
		isa_wr_s32(w, in->dst, (uint32_t)(int32_t)(int8_t)s32(w, in, 0));
		return ISA_NEXT;
	case OP(s_sext_i32_i16):
		isa_wr_s32(w, in->dst, (uint32_t)(int32_t)(int16_t)s32(w, in, 0));
		return ISA_NEXT;
	case OP(s_bitset0_b32):
		isa_wr_s32(w, in->dst,
			   (in->dst < 128 ? w->s[in->dst] : 0) & ~(1u << (s32(w, in, 0) & 31)));
		return ISA_NEXT;
	case OP(s_bitset1_b32):
		isa_wr_s32(w, in->dst,
			   (in->dst < 128 ? w->s[in->dst] : 0) | (1u << (s32(w, in, 0) & 31)));
		return ISA_NEXT;
	case OP(s_bitset0_b64):
		isa_wr_s64(w, in->dst,
			   (in->dst < 127 ? isa_sreg64(w, in->dst) : 0) &
			       ~(1ull << (s32(w, in, 0) & 63)));
		return ISA_NEXT;
	case OP(s_bitset1_b64):
		isa_wr_s64(w, in->dst,
			   (in->dst < 127 ? isa_sreg64(w, in->dst) : 0) |
			       (1ull << (s32(w, in, 0) & 63)));
		return ISA_NEXT;
	case OP(s_getpc_b64):
		isa_wr_s64(w, in->dst, w->pc + in->size);
		return ISA_NEXT;
	case OP(s_setpc_b64):
		w->pc = s64(w, in, 0);
		return ISA_JUMP;
	case OP(s_swappc_b64):
		a64 = s64(w, in, 0);
		isa_wr_s64(w, in->dst, w->pc + in->size);
		w->pc = a64;
		return ISA_JUMP;
	case OP(s_abs_i32): {
		int32_t v = (int32_t)s32(w, in, 0);

		a = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
		break;
	}
	case OP(s_movrels_b32):
		isa_wr_s32(w, in->dst,
			   in->src[0] + w->s[ISA_SRC_M0] < 102 ? w->s[in->src[0] + w->s[ISA_SRC_M0]]
							       : 0);
		return ISA_NEXT;
	case OP(s_movreld_b32):
		if (in->dst + w->s[ISA_SRC_M0] < 102)
			w->s[in->dst + w->s[ISA_SRC_M0]] = s32(w, in, 0);
		return ISA_NEXT;
	default:
		return saveexec(w, in);
	}
	/* ops that set SCC = result != 0 */
	w->scc = a != 0;
	isa_wr_s32(w, in->dst, a);
	return ISA_NEXT;
}

static enum isa_result sopc(struct isa_wave *w, const struct isa_inst *in)
{
	uint32_t a = s32(w, in, 0), b = s32(w, in, 1);
	int32_t x = (int32_t)a, y = (int32_t)b;

	switch (in->op) {
	case OP(s_cmp_eq_i32):
	case OP(s_cmp_eq_u32):
		w->scc = a == b;
		break;
	case OP(s_cmp_lg_i32):
	case OP(s_cmp_lg_u32):
		w->scc = a != b;
		break;
	case OP(s_cmp_gt_i32):
		w->scc = x > y;
		break;
	case OP(s_cmp_ge_i32):
		w->scc = x >= y;
		break;
	case OP(s_cmp_lt_i32):
		w->scc = x < y;
		break;
	case OP(s_cmp_le_i32):
		w->scc = x <= y;
		break;
	case OP(s_cmp_gt_u32):
		w->scc = a > b;
		break;
	case OP(s_cmp_ge_u32):
		w->scc = a >= b;
		break;
	case OP(s_cmp_lt_u32):
		w->scc = a < b;
		break;
	case OP(s_cmp_le_u32):
		w->scc = a <= b;
		break;
	case OP(s_cmp_eq_u64):
		w->scc = s64(w, in, 0) == s64(w, in, 1);
		break;
	case OP(s_cmp_lg_u64):
		w->scc = s64(w, in, 0) != s64(w, in, 1);
		break;
	case OP(s_bitcmp0_b32):
		w->scc = !((a >> (b & 31)) & 1);
		break;
	case OP(s_bitcmp1_b32):
		w->scc = (a >> (b & 31)) & 1;
		break;
	case OP(s_bitcmp0_b64):
		w->scc = !((s64(w, in, 0) >> (b & 63)) & 1);
		break;
	case OP(s_bitcmp1_b64):
		w->scc = (s64(w, in, 0) >> (b & 63)) & 1;
		break;
	default:
		return isa_unimplemented(w, in);
	}
	return ISA_NEXT;
}

static enum isa_result sop2_64(struct isa_wave *w, const struct isa_inst *in)
{
	uint64_t a = s64(w, in, 0), b = s64(w, in, 1), r;
	uint32_t b32 = s32(w, in, 1);

	switch (in->op) {
	case OP(s_and_b64):
		r = a & b;
		break;
	case OP(s_or_b64):
		r = a | b;
		break;
	case OP(s_xor_b64):
		r = a ^ b;
		break;
	case OP(s_andn2_b64):
		r = a & ~b;
		break;
	case OP(s_orn2_b64):
		r = a | ~b;
		break;
	case OP(s_nand_b64):
		r = ~(a & b);
		break;
	case OP(s_nor_b64):
		r = ~(a | b);
		break;
	case OP(s_xnor_b64):
		r = ~(a ^ b);
		break;
	case OP(s_lshl_b64):
		r = a << (b32 & 63);
		break;
	case OP(s_lshr_b64):
		r = a >> (b32 & 63);
		break;
	case OP(s_ashr_i64):
		r = (uint64_t)((int64_t)a >> (b32 & 63));
		break;
	case OP(s_bfe_u64):
		r = bfe64(a, b32, false);
		break;
	case OP(s_bfe_i64):
		r = bfe64(a, b32, true);
		break;
	case OP(s_cselect_b64):
		isa_wr_s64(w, in->dst, w->scc ? a : b);
		return ISA_NEXT;
	case OP(s_bfm_b64): {
		uint32_t width = s32(w, in, 0) & 63, off = b32 & 63;

		isa_wr_s64(w, in->dst, (width ? ((~0ull) >> (64 - width)) : 0) << off);
		return ISA_NEXT;
	}
	default:
		return isa_unimplemented(w, in);
	}
	w->scc = r != 0;
	isa_wr_s64(w, in->dst, r);
	return ISA_NEXT;
}

static enum isa_result sop2(struct isa_wave *w, const struct isa_inst *in)
{
	uint32_t a = s32(w, in, 0), b = s32(w, in, 1), r;
	int32_t x = (int32_t)a, y = (int32_t)b;
	uint64_t wide;

	switch (in->op) {
	case OP(s_add_u32):
		wide = (uint64_t)a + b;
		w->scc = wide >> 32;
		isa_wr_s32(w, in->dst, (uint32_t)wide);
		return ISA_NEXT;
	case OP(s_sub_u32):
		w->scc = b > a;
		isa_wr_s32(w, in->dst, a - b);
		return ISA_NEXT;
	case OP(s_addc_u32):
		wide = (uint64_t)a + b + w->scc;
		w->scc = wide >> 32;
		isa_wr_s32(w, in->dst, (uint32_t)wide);
		return ISA_NEXT;
	case OP(s_subb_u32):
		wide = (uint64_t)b + w->scc;
		w->scc = wide > a;
		isa_wr_s32(w, in->dst, (uint32_t)(a - wide));
		return ISA_NEXT;
	case OP(s_add_i32):
		r = a + b;
		w->scc = ((x ^ (int32_t)r) & (y ^ (int32_t)r)) < 0;
		isa_wr_s32(w, in->dst, r);
		return ISA_NEXT;
	case OP(s_sub_i32):
		r = a - b;
		w->scc = ((x ^ y) & (x ^ (int32_t)r)) < 0;
		isa_wr_s32(w, in->dst, r);
		return ISA_NEXT;
	case OP(s_min_i32):
		w->scc = x < y;
		isa_wr_s32(w, in->dst, x < y ? a : b);
		return ISA_NEXT;
	case OP(s_min_u32):
		w->scc = a < b;
		isa_wr_s32(w, in->dst, a < b ? a : b);
		return ISA_NEXT;
	case OP(s_max_i32):
		w->scc = x > y;
		isa_wr_s32(w, in->dst, x > y ? a : b);
		return ISA_NEXT;
	case OP(s_max_u32):
		w->scc = a > b;
		isa_wr_s32(w, in->dst, a > b ? a : b);
		return ISA_NEXT;
	case OP(s_cselect_b32):
		isa_wr_s32(w, in->dst, w->scc ? a : b);
		return ISA_NEXT;
	case OP(s_mul_i32):
		isa_wr_s32(w, in->dst, a * b);
		return ISA_NEXT;
	case OP(s_mul_hi_u32):
		isa_wr_s32(w, in->dst, (uint32_t)(((uint64_t)a * b) >> 32));
		return ISA_NEXT;
	case OP(s_mul_hi_i32):
		isa_wr_s32(w, in->dst, (uint32_t)((uint64_t)((int64_t)x * y) >> 32));
		return ISA_NEXT;
	case OP(s_bfm_b32):
		isa_wr_s32(w, in->dst, ((a & 31) ? ((1u << (a & 31)) - 1) : 0) << (b & 31));
		return ISA_NEXT;
	case OP(s_pack_ll_b32_b16):
		isa_wr_s32(w, in->dst, (a & 0xffff) | b << 16);
		return ISA_NEXT;
	case OP(s_pack_lh_b32_b16):
		isa_wr_s32(w, in->dst, (a & 0xffff) | (b & 0xffff0000u));
		return ISA_NEXT;
	case OP(s_pack_hh_b32_b16):
		isa_wr_s32(w, in->dst, a >> 16 | (b & 0xffff0000u));
		return ISA_NEXT;
	case OP(s_and_b32):
		r = a & b;
		break;
	case OP(s_or_b32):
		r = a | b;
		break;
	case OP(s_xor_b32):
		r = a ^ b;
		break;
	case OP(s_andn2_b32):
		r = a & ~b;
		break;
	case OP(s_orn2_b32):
		r = a | ~b;
		break;
	case OP(s_nand_b32):
		r = ~(a & b);
		break;
	case OP(s_nor_b32):
		r = ~(a | b);
		break;
	case OP(s_xnor_b32):
		r = ~(a ^ b);
		break;
	case OP(s_lshl_b32):
		r = a << (b & 31);
		break;
	case OP(s_lshr_b32):
		r = a >> (b & 31);
		break;
	case OP(s_ashr_i32):
		r = (uint32_t)(x >> (b & 31));
		break;
	case OP(s_bfe_u32):
		r = bfe32(a, b, false);
		break;
	case OP(s_bfe_i32):
		r = bfe32(a, b, true);
		break;
	case OP(s_absdiff_i32): {
		int64_t d = (int64_t)x - y;

		r = (uint32_t)(d < 0 ? -d : d);
		break;
	}
	case OP(s_lshl1_add_u32):
	case OP(s_lshl2_add_u32):
	case OP(s_lshl3_add_u32):
	case OP(s_lshl4_add_u32): {
		unsigned sh = in->op == OP(s_lshl1_add_u32)   ? 1
			      : in->op == OP(s_lshl2_add_u32) ? 2
			      : in->op == OP(s_lshl3_add_u32) ? 3
							      : 4;
		wide = ((uint64_t)a << sh) + b;
		w->scc = wide >> 32;
		isa_wr_s32(w, in->dst, (uint32_t)wide);
		return ISA_NEXT;
	}
	default:
		return sop2_64(w, in);
	}
	w->scc = r != 0;
	isa_wr_s32(w, in->dst, r);
	return ISA_NEXT;
}

enum isa_result isa_exec_salu(struct isa_wave *w, const struct isa_inst *in)
{
	switch (in->fmt) {
	case ISA_FMT_SOP2:
		return sop2(w, in);
	case ISA_FMT_SOPK:
		return sopk(w, in);
	case ISA_FMT_SOP1:
		return sop1(w, in);
	default:
		return sopc(w, in);
	}
}
