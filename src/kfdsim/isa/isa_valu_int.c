/* SPDX-License-Identifier: MIT */
/* Vector ALU: integer, bit and lane operations (VOP1/VOP2/VOP3). */
#include "isa_valu.h"

static uint32_t bfe(uint32_t v, uint32_t off, uint32_t width, bool sign)
{
	off &= 31;
	width &= 31;
	if (!width)
		return 0;
	v >>= off;
	if (off + width < 32 || true) {
		uint32_t m = width >= 32 ? ~0u : (1u << width) - 1;

		v &= m;
		if (sign && (v >> (width - 1)) & 1)
			v |= ~m;
	}
	return v;
}

static uint32_t med3u(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t mx = a > b ? a : b, mn = a < b ? a : b;

	return c > mx ? mx : (c < mn ? mn : c);
}

static int32_t med3i(int32_t a, int32_t b, int32_t c)
{
	int32_t mx = a > b ? a : b, mn = a < b ? a : b;

	return c > mx ? mx : (c < mn ? mn : c);
}

static uint32_t sext24(uint32_t v)
{
	return (uint32_t)((int32_t)(v << 8) >> 8);
}

/* 64-bit results and carries */
static enum isa_result int64_ops(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	uint32_t *d0 = vdst(w, in), *d1 = w->v[in->dst - ISA_SRC_VGPR + 1];

	switch (in->op) {
	case OP(v_lshlrev_b64):
	case OP(v_lshrrev_b64):
	case OP(v_ashrrev_i64): {
		struct vsrc a = isa_vsrc(w, in, 0, ISA_T_B32);
		struct vsrc64 b = isa_vsrc64(w, in, 1, ISA_T_B64);

		FOR_LANES(exec, l)
		{
			unsigned sh = rd32(&a, l) & 63;
			uint64_t v = rd64(&b, l), r;

			if (in->op == OP(v_lshlrev_b64))
				r = v << sh;
			else if (in->op == OP(v_lshrrev_b64))
				r = v >> sh;
			else
				r = (uint64_t)((int64_t)v >> sh);
			d0[l] = (uint32_t)r;
			d1[l] = (uint32_t)(r >> 32);
		}
		return ISA_NEXT;
	}
	case OP(v_mad_u64_u32):
	case OP(v_mad_i64_i32): {
		struct vsrc a = isa_vsrc(w, in, 0, ISA_T_B32), b = isa_vsrc(w, in, 1, ISA_T_B32);
		struct vsrc64 c = isa_vsrc64(w, in, 2, ISA_T_B64);
		uint64_t carry = 0;

		FOR_LANES(exec, l)
		{
			uint64_t r, cv = rd64(&c, l);

			if (in->op == OP(v_mad_u64_u32)) {
				unsigned __int128 t =
				    (unsigned __int128)rd32(&a, l) * rd32(&b, l) + cv;

				r = (uint64_t)t;
				carry |= (uint64_t)(t >> 64 != 0) << l;
			} else {
				__int128 t = (__int128)((int64_t)(int32_t)rd32(&a, l) *
							(int32_t)rd32(&b, l)) +
					     (int64_t)cv;

				r = (uint64_t)t;
				carry |= (uint64_t)(t != (int64_t)r) << l;
			}
			d0[l] = (uint32_t)r;
			d1[l] = (uint32_t)(r >> 32);
		}
		wr_mask(w, in->sdst, carry);
		return ISA_NEXT;
	}
	default:
		return ISA_UNHANDLED;
	}
}

static enum isa_result carry_ops(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	struct vsrc a = isa_vsrc(w, in, 0, ISA_T_B32), b = isa_vsrc(w, in, 1, ISA_T_B32);
	uint64_t cin = 0, cout = 0;
	uint32_t *d = vdst(w, in);
	bool sub = false, rev = false, use_cin = false;

	switch (in->op) {
	case OP(v_add_co_u32):
		break;
	case OP(v_sub_co_u32):
		sub = true;
		break;
	case OP(v_subrev_co_u32):
		sub = rev = true;
		break;
	case OP(v_addc_co_u32):
		use_cin = true;
		break;
	case OP(v_subb_co_u32):
		sub = use_cin = true;
		break;
	case OP(v_subbrev_co_u32):
		sub = rev = use_cin = true;
		break;
	default:
		return ISA_UNHANDLED;
	}
	if (use_cin)
		cin = isa_scalar_operand(w, in, in->src[2], ISA_T_B64);
	FOR_LANES(exec, l)
	{
		uint64_t x = rd32(&a, l), y = rd32(&b, l), c = (cin >> l) & 1, r;

		if (rev) {
			uint64_t t = x;

			x = y;
			y = t;
		}
		if (sub) {
			r = x - y - c;
			cout |= (uint64_t)(y + c > x) << l;
		} else {
			r = x + y + c;
			cout |= (r >> 32) << l;
		}
		d[l] = (uint32_t)r;
	}
	wr_mask(w, in->sdst, cout);
	return ISA_NEXT;
}

static enum isa_result lane_ops(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	switch (in->op) {
	case OP(v_readfirstlane_b32): {
		unsigned lane = exec ? (unsigned)__builtin_ctzll(exec) : 0;
		unsigned code = in->src[0];

		isa_wr_s32(w, in->dst,
			   code >= ISA_SRC_VGPR
			       ? w->v[code - ISA_SRC_VGPR][lane]
			       : (uint32_t)isa_scalar_operand(w, in, code, ISA_T_B32));
		return ISA_NEXT;
	}
	case OP(v_readlane_b32): {
		unsigned lane = (uint32_t)isa_scalar_operand(w, in, in->src[1], ISA_T_B32) & 63;
		unsigned code = in->src[0];

		isa_wr_s32(w, in->dst,
			   code >= ISA_SRC_VGPR
			       ? w->v[code - ISA_SRC_VGPR][lane]
			       : (uint32_t)isa_scalar_operand(w, in, code, ISA_T_B32));
		return ISA_NEXT;
	}
	case OP(v_writelane_b32): {
		unsigned lane = (uint32_t)isa_scalar_operand(w, in, in->src[1], ISA_T_B32) & 63;

		vdst(w, in)[lane] = (uint32_t)isa_scalar_operand(w, in, in->src[0], ISA_T_B32);
		return ISA_NEXT;
	}
	default:
		return ISA_UNHANDLED;
	}
}

enum isa_result isa_valu_int(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	struct vsrc a, b, c;
	uint32_t *d;
	enum isa_result r;

	r = lane_ops(w, in, exec);
	if (r != ISA_UNHANDLED)
		return r;
	r = carry_ops(w, in, exec);
	if (r != ISA_UNHANDLED)
		return r;
	r = int64_ops(w, in, exec);
	if (r != ISA_UNHANDLED)
		return r;

	a = isa_vsrc(w, in, 0, ISA_T_B32);
	b = isa_vsrc(w, in, 1, ISA_T_B32);
	c = isa_vsrc(w, in, 2, ISA_T_B32);
	d = vdst(w, in);

#define L1(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			uint32_t x = rd32(&a, l);                                                  \
			(void)x;                                                                   \
			d[l] = (expr);                                                             \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define L2(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			uint32_t x = rd32(&a, l), y = rd32(&b, l);                                 \
			d[l] = (expr);                                                             \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define L3(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			uint32_t x = rd32(&a, l), y = rd32(&b, l), z = rd32(&c, l);                \
			d[l] = (expr);                                                             \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)

	switch (in->op) {
	case OP(v_nop):
		return ISA_NEXT;
	case OP(v_mov_b32):
	case OP(v_accvgpr_read_b32):
	case OP(v_accvgpr_write_b32):
	case OP(v_accvgpr_mov_b32):
		L1(x);
	case OP(v_not_b32):
		L1(~x);
	case OP(v_bfrev_b32):
		L1(({
			uint32_t r = 0;
			for (int i = 0; i < 32; i++)
				r |= ((x >> i) & 1u) << (31 - i);
			r;
		}));
	case OP(v_ffbh_u32):
		L1(x ? (uint32_t)__builtin_clz(x) : ~0u);
	case OP(v_ffbl_b32):
		L1(x ? (uint32_t)__builtin_ctz(x) : ~0u);
	case OP(v_ffbh_i32):
		L1(({
			uint32_t u = (int32_t)x < 0 ? ~x : x;
			u ? (uint32_t)__builtin_clz(u) : ~0u;
		}));
	case OP(v_cndmask_b32): {
		uint64_t m = isa_scalar_operand(w, in, in->src[2], ISA_T_B64);

		if (in->flags & ISA_F_E64) {
			/* float modifiers apply to the selected value */
			L2((m >> l & 1) ? mod32(in, 1, y) : mod32(in, 0, x));
		}
		L2((m >> l & 1) ? y : x);
	}
	case OP(v_add_u32):
		L2(x + y);
	case OP(v_sub_u32):
		L2(x - y);
	case OP(v_subrev_u32):
		L2(y - x);
	case OP(v_mul_i32_i24):
		L2((uint32_t)((int64_t)(int32_t)sext24(x) * (int32_t)sext24(y)));
	case OP(v_mul_hi_i32_i24):
		L2((uint32_t)(((int64_t)(int32_t)sext24(x) * (int32_t)sext24(y)) >> 32));
	case OP(v_mul_u32_u24):
		L2((x & 0xffffff) * (y & 0xffffff));
	case OP(v_mul_hi_u32_u24):
		L2((uint32_t)(((uint64_t)(x & 0xffffff) * (y & 0xffffff)) >> 32));
	case OP(v_min_i32):
		L2((int32_t)x < (int32_t)y ? x : y);
	case OP(v_max_i32):
		L2((int32_t)x > (int32_t)y ? x : y);
	case OP(v_min_u32):
		L2(x < y ? x : y);
	case OP(v_max_u32):
		L2(x > y ? x : y);
	case OP(v_lshrrev_b32):
		L2(y >> (x & 31));
	case OP(v_ashrrev_i32):
		L2((uint32_t)((int32_t)y >> (x & 31)));
	case OP(v_lshlrev_b32):
		L2(y << (x & 31));
	case OP(v_and_b32):
		L2(x & y);
	case OP(v_or_b32):
		L2(x | y);
	case OP(v_xor_b32):
		L2(x ^ y);
	case OP(v_xnor_b32):
		L2(~(x ^ y));
	case OP(v_bcnt_u32_b32):
		L2((uint32_t)__builtin_popcount(x) + y);
	case OP(v_bfm_b32):
		L2(((x & 31) ? ((1u << (x & 31)) - 1) : 0) << (y & 31));
	case OP(v_mbcnt_lo_u32_b32):
		L2((uint32_t)__builtin_popcount(x & (l < 32 ? (1u << l) - 1 : ~0u)) + y);
	case OP(v_mbcnt_hi_u32_b32):
		L2((uint32_t)__builtin_popcount(x & (l >= 32 ? (1u << (l - 32)) - 1 : 0u)) + y);
	case OP(v_mul_lo_u32):
		L2(x * y);
	case OP(v_mul_hi_u32):
		L2((uint32_t)(((uint64_t)x * y) >> 32));
	case OP(v_mul_hi_i32):
		L2((uint32_t)((uint64_t)((int64_t)(int32_t)x * (int32_t)y) >> 32));
	case OP(v_mad_u32_u24):
		L3((x & 0xffffff) * (y & 0xffffff) + z);
	case OP(v_mad_i32_i24):
		L3((uint32_t)((int64_t)(int32_t)sext24(x) * (int32_t)sext24(y)) + z);
	case OP(v_bfe_u32):
		L3(bfe(x, y, z, false));
	case OP(v_bfe_i32):
		L3(bfe(x, y, z, true));
	case OP(v_bfi_b32):
		L3((x & y) | (~x & z));
	case OP(v_alignbit_b32):
		L3((uint32_t)((((uint64_t)x << 32) | y) >> (z & 31)));
	case OP(v_alignbyte_b32):
		L3((uint32_t)((((uint64_t)x << 32) | y) >> (8 * (z & 3))));
	case OP(v_min3_i32):
		L3(({
			int32_t m = (int32_t)x < (int32_t)y ? (int32_t)x : (int32_t)y;
			(uint32_t)(m < (int32_t)z ? m : (int32_t)z);
		}));
	case OP(v_max3_i32):
		L3(({
			int32_t m = (int32_t)x > (int32_t)y ? (int32_t)x : (int32_t)y;
			(uint32_t)(m > (int32_t)z ? m : (int32_t)z);
		}));
	case OP(v_min3_u32):
		L3(({
			uint32_t m = x < y ? x : y;
			m < z ? m : z;
		}));
	case OP(v_max3_u32):
		L3(({
			uint32_t m = x > y ? x : y;
			m > z ? m : z;
		}));
	case OP(v_med3_i32):
		L3((uint32_t)med3i((int32_t)x, (int32_t)y, (int32_t)z));
	case OP(v_med3_u32):
		L3(med3u(x, y, z));
	case OP(v_lshl_add_u32):
		L3((x << (y & 31)) + z);
	case OP(v_add_lshl_u32):
		L3((x + y) << (z & 31));
	case OP(v_add3_u32):
		L3(x + y + z);
	case OP(v_lshl_or_b32):
		L3((x << (y & 31)) | z);
	case OP(v_and_or_b32):
		L3((x & y) | z);
	case OP(v_or3_b32):
		L3(x | y | z);
	case OP(v_xad_u32):
		L3((x ^ y) + z);
	case OP(v_perm_b32):
		L3(({
			uint64_t v = (uint64_t)x << 32 | y;
			uint32_t r = 0;
			for (int i = 0; i < 4; i++) {
				uint32_t sel = (z >> (8 * i)) & 0xff, byte;
				if (sel < 8)
					byte = (uint32_t)(v >> (8 * sel)) & 0xff;
				else if (sel < 12) {
					/* sign of a 16-bit half: bytes 1, 3, 5, 7 */
					byte =
					    ((v >> (8 * (2 * (sel - 8) + 1) + 7)) & 1) ? 0xff : 0;
				} else if (sel == 12)
					byte = 0;
				else
					byte = 0xff;
				r |= byte << (8 * i);
			}
			r;
		}));
	case OP(v_sad_u32):
		L3((x > y ? x - y : y - x) + z);
	case OP(v_sad_u16):
		L3(({
			uint32_t r = z;
			for (int i = 0; i < 2; i++) {
				uint32_t p = (x >> (16 * i)) & 0xffff, q = (y >> (16 * i)) & 0xffff;
				r += p > q ? p - q : q - p;
			}
			r;
		}));
	case OP(v_sad_u8):
	case OP(v_sad_hi_u8):
	case OP(v_msad_u8):
		/* sum of |byte differences|; msad skips bytes whose src1 byte
		 * is 0; sad_hi puts the sum in the high half */
		L3(({
			uint32_t r = 0;
			for (int i = 0; i < 4; i++) {
				uint32_t p = (x >> (8 * i)) & 0xff, q = (y >> (8 * i)) & 0xff;
				if (in->op != OP(v_msad_u8) || q)
					r += p > q ? p - q : q - p;
			}
			(in->op == OP(v_sad_hi_u8) ? r << 16 : r) + z;
		}));
	case OP(v_lerp_u8):
		/* per byte: the rounded average, the rounding bit from src2 */
		L3(({
			uint32_t r = 0;
			for (int i = 0; i < 4; i++)
				r |= ((((x >> (8 * i)) & 0xff) + ((y >> (8 * i)) & 0xff) +
				       ((z >> (8 * i)) & 1)) >>
				      1)
				     << (8 * i);
			r;
		}));
	case OP(v_cvt_pk_i16_i32):
		L2(({
			int32_t p = (int32_t)x, q = (int32_t)y;
			p = p < -32768 ? -32768 : p > 32767 ? 32767 : p;
			q = q < -32768 ? -32768 : q > 32767 ? 32767 : q;
			((uint32_t)p & 0xffff) | ((uint32_t)q & 0xffff) << 16;
		}));
	case OP(v_cvt_pk_u16_u32):
		L2((x > 0xffff ? 0xffffu : x) | (y > 0xffff ? 0xffffu : y) << 16);
	default:
		return ISA_UNHANDLED;
	}
#undef L1
#undef L2
#undef L3
}
