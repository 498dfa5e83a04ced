/* SPDX-License-Identifier: MIT */
/*
 * Vector ALU: 16-bit integer and f16 operations (VOP1/VOP2/VOP3 with
 * gfx9's VOP3 op_sel), packed 16-bit VOP3P math, the mixed-precision
 * v_{mad,fma}_mix ops and the dot products.
 *
 * Where the result goes (what LLVM's zeroesHigh16BitsOfDest says of
 * gfx9): the VOP1/VOP2 16-bit ops and the "legacy" VOP3 ops (the VI
 * opcodes) write the low half and zero the high half; v_mac_f16,
 * v_madmk_f16, v_madak_f16 and the op_sel-capable VOP3 ops that gfx9 added
 * (v_mad_u16, v_fma_f16, v_med3_f16, ...) write one half, chosen by op_sel
 * bit 3, and keep the other. op_sel bits 0-2 select the high half of a
 * 16-bit source.
 *
 * f16 arithmetic is computed in f32 (add, sub, mul, sqrt: correctly
 * rounded after the second rounding, since 24 >= 2 * 11 + 2 bits) or
 * through isa_f16_fma (fused ops); transcendental ops use the C library
 * in f32 and round once to f16.
 */
#include <math.h>

#include "isa_f16.h"
#include "isa_valu.h"

/* gfx9 VOP3 ops that honour op_sel. */
bool isa_valu16_has_opsel(unsigned op)
{
	switch (op) {
	case OP(v_mad_u16):
	case OP(v_mad_i16):
	case OP(v_mad_f16):
	case OP(v_fma_f16):
	case OP(v_div_fixup_f16):
	case OP(v_add_i16):
	case OP(v_sub_i16):
	case OP(v_pack_b32_f16):
	case OP(v_cvt_pknorm_i16_f16):
	case OP(v_cvt_pknorm_u16_f16):
	case OP(v_mad_u32_u16):
	case OP(v_mad_i32_i16):
	case OP(v_min3_f16):
	case OP(v_min3_i16):
	case OP(v_min3_u16):
	case OP(v_max3_f16):
	case OP(v_max3_i16):
	case OP(v_max3_u16):
	case OP(v_med3_f16):
	case OP(v_med3_i16):
	case OP(v_med3_u16):
		return true;
	default:
		return false;
	}
}

/* 16-bit results that keep the other half of the destination. */
static bool keeps_other_half(unsigned op)
{
	return op == OP(v_mac_f16) || op == OP(v_madmk_f16) || op == OP(v_madak_f16) ||
	       (isa_valu16_has_opsel(op) && op != OP(v_pack_b32_f16) &&
		op != OP(v_cvt_pknorm_i16_f16) && op != OP(v_cvt_pknorm_u16_f16) &&
		op != OP(v_mad_u32_u16) && op != OP(v_mad_i32_i16));
}

static float h2f(uint32_t h)
{
	return isa_f16_to_f32(h & 0xffffu);
}

static uint32_t f2h(float f)
{
	return isa_f16_bits(f);
}

static uint32_t sat_u16(int64_t v)
{
	return v < 0 ? 0 : v > 0xffff ? 0xffffu : (uint32_t)v;
}

static uint32_t sat_i16(int64_t v)
{
	return (uint32_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v) & 0xffffu;
}

static int32_t s16(uint32_t v)
{
	return (int16_t)(uint16_t)v;
}

static float min_f(float a, float b)
{
	return fminf(a, b);
}

static float max_f(float a, float b)
{
	return fmaxf(a, b);
}

static float med3_f(float a, float b, float c)
{
	return fminf(fmaxf(c, fminf(a, b)), fmaxf(a, b));
}

static int32_t med3_i(int32_t a, int32_t b, int32_t c)
{
	int32_t mx = a > b ? a : b, mn = a < b ? a : b;

	return c > mx ? mx : (c < mn ? mn : c);
}

/* f16 -> integer conversions: NaN 0, saturating, truncating */
static uint32_t cvt_i16(float x)
{
	if (isnan(x))
		return 0;
	return sat_i16((int64_t)fmaxf(fminf(x, 40000.0f), -40000.0f));
}

static uint32_t cvt_u16(float x)
{
	if (isnan(x))
		return 0;
	return sat_u16((int64_t)fmaxf(fminf(x, 70000.0f), -1.0f));
}

/* f16 output modifiers: omod and clamp to [0, 1] */
static uint32_t out_h(const struct isa_inst *in, float r)
{
	uint32_t h = f2h(r);

	if (in->omod || (in->flags & ISA_F_CLAMP))
		h = f2h(out_f32(in, h2f(h)));
	return h;
}

/* VOP3 abs/neg of an f16 source */
static uint32_t mod16(const struct isa_inst *in, unsigned i, uint32_t v)
{
	if (in->abs & (1u << i))
		v &= 0x7fffu;
	if (in->neg & (1u << i))
		v ^= 0x8000u;
	return v;
}

static bool is_f16_op(unsigned op)
{
	const char *n = isa_op_name(op);
	size_t len = strlen(n);

	return (len > 4 && !strcmp(n + len - 4, "_f16")) || op == OP(v_cvt_f16_u16) ||
	       op == OP(v_cvt_f16_i16);
}

/* One lane of a 16-bit op: x, y, z are the selected (and, for f16,
 * modified) 16-bit sources, z32 the whole third source for ops whose
 * accumulator is 32 bits. Returns the 16-bit result, or a 32-bit one for
 * the ops that write 32 bits. */
static bool lane16(const struct isa_inst *in, uint32_t x, uint32_t y, uint32_t z, uint32_t z32,
		   uint32_t *res)
{
	bool clamp = in->flags & ISA_F_CLAMP;
	float fx = h2f(x), fy = h2f(y), fz = h2f(z);
	uint32_t r;

	switch (in->op) {
	/* f16 */
	case OP(v_add_f16):
		r = out_h(in, fx + fy);
		break;
	case OP(v_sub_f16):
		r = out_h(in, fx - fy);
		break;
	case OP(v_subrev_f16):
		r = out_h(in, fy - fx);
		break;
	case OP(v_mul_f16):
		r = out_h(in, fx * fy);
		break;
	case OP(v_max_f16):
		r = out_h(in, max_f(fx, fy));
		break;
	case OP(v_min_f16):
		r = out_h(in, min_f(fx, fy));
		break;
	case OP(v_ldexp_f16): {
		int32_t n = s16(y);

		r = out_h(in, ldexpf(fx, n < -64 ? -64 : n > 64 ? 64 : n));
		break;
	}
	case OP(v_mac_f16):
	case OP(v_madmk_f16):
	case OP(v_madak_f16):
	case OP(v_mad_legacy_f16):
	case OP(v_mad_f16):
		/* unfused: the product is rounded to f16 first */
		r = out_h(in, h2f(f2h(fx * fy)) + fz);
		break;
	case OP(v_fma_legacy_f16):
	case OP(v_fma_f16):
		r = isa_f16_fma(fx, fy, fz);
		if (in->omod || clamp)
			r = out_h(in, h2f(r));
		break;
	case OP(v_div_fixup_legacy_f16):
	case OP(v_div_fixup_f16):
		r = out_h(in, fz / fy);
		break;
	case OP(v_min3_f16):
		r = out_h(in, min_f(min_f(fx, fy), fz));
		break;
	case OP(v_max3_f16):
		r = out_h(in, max_f(max_f(fx, fy), fz));
		break;
	case OP(v_med3_f16):
		r = out_h(in, med3_f(fx, fy, fz));
		break;
	case OP(v_rcp_f16):
		r = out_h(in, 1.0f / fx);
		break;
	case OP(v_sqrt_f16):
		r = out_h(in, sqrtf(fx));
		break;
	case OP(v_rsq_f16):
		r = out_h(in, 1.0f / sqrtf(fx));
		break;
	case OP(v_log_f16):
		r = out_h(in, log2f(fx));
		break;
	case OP(v_exp_f16):
		r = out_h(in, exp2f(fx));
		break;
	case OP(v_sin_f16):
		r = out_h(in, (float)sin((double)fx * 6.283185307179586));
		break;
	case OP(v_cos_f16):
		r = out_h(in, (float)cos((double)fx * 6.283185307179586));
		break;
	case OP(v_floor_f16):
		r = out_h(in, floorf(fx));
		break;
	case OP(v_ceil_f16):
		r = out_h(in, ceilf(fx));
		break;
	case OP(v_trunc_f16):
		r = out_h(in, truncf(fx));
		break;
	case OP(v_rndne_f16):
		r = out_h(in, nearbyintf(fx));
		break;
	case OP(v_fract_f16):
		r = isinf(fx) ? 0x7e00u : out_h(in, fminf(fx - floorf(fx), h2f(0x3bffu)));
		break;
	case OP(v_frexp_mant_f16): {
		int e;

		r = out_h(in, (isinf(fx) || isnan(fx)) ? fx : frexpf(fx, &e));
		break;
	}
	case OP(v_frexp_exp_i16_f16): {
		int e = 0;

		r = (isinf(fx) || isnan(fx)) ? 0 : (frexpf(fx, &e), (uint32_t)e & 0xffffu);
		break;
	}
	case OP(v_cvt_f16_u16):
		r = out_h(in, (float)(x & 0xffffu));
		break;
	case OP(v_cvt_f16_i16):
		r = out_h(in, (float)s16(x));
		break;
	case OP(v_cvt_u16_f16):
		r = cvt_u16(fx);
		break;
	case OP(v_cvt_i16_f16):
		r = cvt_i16(fx);
		break;
	case OP(v_cvt_norm_i16_f16):
		r = isnan(fx)
			? 0
			: sat_i16((int64_t)nearbyintf(fminf(fmaxf(fx, -1.0f), 1.0f) * 32767.0f));
		break;
	case OP(v_cvt_norm_u16_f16):
		r = isnan(fx)
			? 0
			: sat_u16((int64_t)nearbyintf(fminf(fmaxf(fx, 0.0f), 1.0f) * 65535.0f));
		break;
	/* 16-bit integers; clamp saturates */
	case OP(v_add_u16):
		r = clamp ? sat_u16((int64_t)(x & 0xffff) + (y & 0xffff)) : (x + y) & 0xffff;
		break;
	case OP(v_sub_u16):
		r = clamp ? sat_u16((int64_t)(x & 0xffff) - (y & 0xffff)) : (x - y) & 0xffff;
		break;
	case OP(v_subrev_u16):
		r = clamp ? sat_u16((int64_t)(y & 0xffff) - (x & 0xffff)) : (y - x) & 0xffff;
		break;
	case OP(v_add_i16):
		r = clamp ? sat_i16((int64_t)s16(x) + s16(y)) : (x + y) & 0xffff;
		break;
	case OP(v_sub_i16):
		r = clamp ? sat_i16((int64_t)s16(x) - s16(y)) : (x - y) & 0xffff;
		break;
	case OP(v_mul_lo_u16):
		r = ((x & 0xffff) * (y & 0xffff)) & 0xffff;
		break;
	case OP(v_lshlrev_b16):
		r = (y << (x & 15)) & 0xffff;
		break;
	case OP(v_lshrrev_b16):
		r = (y & 0xffff) >> (x & 15);
		break;
	case OP(v_ashrrev_i16):
		r = (uint32_t)(s16(y) >> (x & 15)) & 0xffff;
		break;
	case OP(v_max_u16):
		r = (x & 0xffff) > (y & 0xffff) ? x & 0xffff : y & 0xffff;
		break;
	case OP(v_min_u16):
		r = (x & 0xffff) < (y & 0xffff) ? x & 0xffff : y & 0xffff;
		break;
	case OP(v_max_i16):
		r = (uint32_t)(s16(x) > s16(y) ? s16(x) : s16(y)) & 0xffff;
		break;
	case OP(v_min_i16):
		r = (uint32_t)(s16(x) < s16(y) ? s16(x) : s16(y)) & 0xffff;
		break;
	case OP(v_mad_legacy_u16):
	case OP(v_mad_u16): {
		int64_t v = (int64_t)(x & 0xffff) * (y & 0xffff) + (z & 0xffff);

		r = clamp ? sat_u16(v) : (uint32_t)v & 0xffff;
		break;
	}
	case OP(v_mad_legacy_i16):
	case OP(v_mad_i16): {
		int64_t v = (int64_t)s16(x) * s16(y) + s16(z);

		r = clamp ? sat_i16(v) : (uint32_t)v & 0xffff;
		break;
	}
	case OP(v_min3_u16): {
		uint32_t m = (x & 0xffff) < (y & 0xffff) ? x & 0xffff : y & 0xffff;

		r = m < (z & 0xffff) ? m : z & 0xffff;
		break;
	}
	case OP(v_max3_u16): {
		uint32_t m = (x & 0xffff) > (y & 0xffff) ? x & 0xffff : y & 0xffff;

		r = m > (z & 0xffff) ? m : z & 0xffff;
		break;
	}
	case OP(v_med3_u16):
		r = (uint32_t)med3_i((int32_t)(x & 0xffff), (int32_t)(y & 0xffff),
				     (int32_t)(z & 0xffff));
		break;
	case OP(v_min3_i16): {
		int32_t m = s16(x) < s16(y) ? s16(x) : s16(y);

		r = (uint32_t)(m < s16(z) ? m : s16(z)) & 0xffff;
		break;
	}
	case OP(v_max3_i16): {
		int32_t m = s16(x) > s16(y) ? s16(x) : s16(y);

		r = (uint32_t)(m > s16(z) ? m : s16(z)) & 0xffff;
		break;
	}
	case OP(v_med3_i16):
		r = (uint32_t)med3_i(s16(x), s16(y), s16(z)) & 0xffff;
		break;
	/* 32-bit results */
	case OP(v_mad_u32_u16):
		r = (x & 0xffff) * (y & 0xffff) + z32;
		break;
	case OP(v_mad_i32_i16):
		r = (uint32_t)(s16(x) * s16(y)) + z32;
		break;
	case OP(v_pack_b32_f16):
		r = (x & 0xffff) | (y & 0xffff) << 16;
		break;
	case OP(v_cvt_pknorm_i16_f16):
		r = (isnan(fx)
			 ? 0
			 : sat_i16((int64_t)nearbyintf(fminf(fmaxf(fx, -1.0f), 1.0f) * 32767.0f))) |
		    (isnan(fy)
			 ? 0
			 : sat_i16((int64_t)nearbyintf(fminf(fmaxf(fy, -1.0f), 1.0f) * 32767.0f)))
			<< 16;
		break;
	case OP(v_cvt_pknorm_u16_f16):
		r = (isnan(fx)
			 ? 0
			 : sat_u16((int64_t)nearbyintf(fminf(fmaxf(fx, 0.0f), 1.0f) * 65535.0f))) |
		    (isnan(fy)
			 ? 0
			 : sat_u16((int64_t)nearbyintf(fminf(fmaxf(fy, 0.0f), 1.0f) * 65535.0f)))
			<< 16;
		break;
	case OP(v_cvt_pkrtz_f16_f32):
	case OP(v_cvt_pknorm_i16_f32):
	case OP(v_cvt_pknorm_u16_f32):
		/* f32 sources: handled by pack_f32 */
		return false;
	case OP(v_sat_pk_u8_i16): {
		/* both 16-bit halves of the source, saturated to bytes */
		uint32_t lo = (uint32_t)s16(z32), hi = (uint32_t)s16(z32 >> 16);
		int32_t a = (int32_t)lo, b = (int32_t)hi;

		r = (uint32_t)(a < 0     ? 0
			       : a > 255 ? 255
					 : a) |
		    (uint32_t)(b < 0     ? 0
			       : b > 255 ? 255
					 : b)
			<< 8;
		break;
	}
	default:
		return false;
	}
	*res = r;
	return true;
}

static bool writes_32(unsigned op)
{
	return op == OP(v_mad_u32_u16) || op == OP(v_mad_i32_i16) || op == OP(v_pack_b32_f16) ||
	       op == OP(v_cvt_pknorm_i16_f16) || op == OP(v_cvt_pknorm_u16_f16);
}

/* VOP1/VOP2/VOP3 16-bit ops */
static enum isa_result scalar16(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	bool f16, keep, w32;
	enum isa_type t;
	struct vsrc a, b, c;
	uint32_t *d = vdst(w, in), probe;
	unsigned sel = in->fmt == ISA_FMT_VOP3 ? in->opsel : 0;

	/* is it ours? (a dry run on zeros; every op is total) */
	if (!lane16(in, 0, 0, 0, 0, &probe))
		return ISA_UNHANDLED;
	f16 = is_f16_op(in->op);
	keep = keeps_other_half(in->op);
	w32 = writes_32(in->op);
	t = f16 ? ISA_T_F16 : ISA_T_B32;
	a = isa_vsrc(w, in, 0, t);
	/* v_ldexp_f16's exponent and the integer sources are not f16 */
	b = isa_vsrc(w, in, 1, in->op == OP(v_ldexp_f16) ? ISA_T_B32 : t);
	c = isa_vsrc(w, in, 2,
		     (in->op == OP(v_mad_u32_u16) || in->op == OP(v_mad_i32_i16)) ? ISA_T_B32 : t);
	FOR_LANES(exec, l)
	{
		uint32_t rx = rd32(&a, l), ry = rd32(&b, l), rz = rd32(&c, l), r;
		uint32_t x = (sel & 1) ? rx >> 16 : rx & 0xffff;
		uint32_t y = (sel & 2) ? ry >> 16 : ry & 0xffff;
		uint32_t z = (sel & 4) ? rz >> 16 : rz & 0xffff;

		if (f16) {
			x = mod16(in, 0, x);
			if (in->op != OP(v_ldexp_f16))
				y = mod16(in, 1, y);
			z = mod16(in, 2, z);
		}
		lane16(in, x, y, z, in->op == OP(v_sat_pk_u8_i16) ? rx : rz, &r);
		if (w32)
			d[l] = r;
		else if (keep)
			d[l] = (sel & 8) ? (d[l] & 0xffffu) | r << 16 : (d[l] & 0xffff0000u) | r;
		else
			d[l] = r & 0xffff;
	}
	return ISA_NEXT;
}

/* ---- VOP3P ---- */

/* Packed source: an inline constant is the same value in both halves. */
static uint32_t pk_src(const struct isa_wave *w, const struct isa_inst *in, unsigned i,
		       const struct vsrc *s, unsigned l)
{
	uint32_t v = rd32(s, l);

	(void)w;
	if (in->src[i] >= 128 && in->src[i] < ISA_SRC_VGPR)
		v = (v & 0xffffu) * 0x10001u;
	return v;
}

static uint32_t half_of(uint32_t v, bool high)
{
	return high ? v >> 16 : v & 0xffffu;
}

static uint32_t pk_lane(const struct isa_inst *in, uint32_t x, uint32_t y, uint32_t z)
{
	bool clamp = in->flags & ISA_F_CLAMP;
	float fx = h2f(x), fy = h2f(y), fz = h2f(z);
	int64_t v;

	switch (in->op) {
	case OP(v_pk_add_f16):
		return clamp ? f2h(out_f32(in, h2f(f2h(fx + fy)))) : f2h(fx + fy);
	case OP(v_pk_mul_f16):
		return clamp ? f2h(out_f32(in, h2f(f2h(fx * fy)))) : f2h(fx * fy);
	case OP(v_pk_fma_f16):
	case OP(v_pk_fmac_f16): {
		uint32_t r = isa_f16_fma(fx, fy, fz);

		return clamp ? f2h(out_f32(in, h2f(r))) : r;
	}
	case OP(v_pk_min_f16):
		return f2h(fminf(fx, fy));
	case OP(v_pk_max_f16):
		return f2h(fmaxf(fx, fy));
	case OP(v_pk_add_u16):
		return clamp ? sat_u16((int64_t)x + y) : (x + y) & 0xffff;
	case OP(v_pk_sub_u16):
		return clamp ? sat_u16((int64_t)x - y) : (x - y) & 0xffff;
	case OP(v_pk_add_i16):
		return clamp ? sat_i16((int64_t)s16(x) + s16(y)) : (x + y) & 0xffff;
	case OP(v_pk_sub_i16):
		return clamp ? sat_i16((int64_t)s16(x) - s16(y)) : (x - y) & 0xffff;
	case OP(v_pk_mul_lo_u16):
		return (x * y) & 0xffff;
	case OP(v_pk_lshlrev_b16):
		return (y << (x & 15)) & 0xffff;
	case OP(v_pk_lshrrev_b16):
		return y >> (x & 15);
	case OP(v_pk_ashrrev_i16):
		return (uint32_t)(s16(y) >> (x & 15)) & 0xffff;
	case OP(v_pk_max_i16):
		return (uint32_t)(s16(x) > s16(y) ? s16(x) : s16(y)) & 0xffff;
	case OP(v_pk_min_i16):
		return (uint32_t)(s16(x) < s16(y) ? s16(x) : s16(y)) & 0xffff;
	case OP(v_pk_max_u16):
		return x > y ? x : y;
	case OP(v_pk_min_u16):
		return x < y ? x : y;
	case OP(v_pk_mad_u16):
		v = (int64_t)x * y + z;
		return clamp ? sat_u16(v) : (uint32_t)v & 0xffff;
	default: /* v_pk_mad_i16 */
		v = (int64_t)s16(x) * s16(y) + s16(z);
		return clamp ? sat_i16(v) : (uint32_t)v & 0xffff;
	}
}

static bool is_pk16(unsigned op)
{
	switch (op) {
	case OP(v_pk_add_f16):
	case OP(v_pk_mul_f16):
	case OP(v_pk_fma_f16):
	case OP(v_pk_fmac_f16):
	case OP(v_pk_min_f16):
	case OP(v_pk_max_f16):
	case OP(v_pk_add_u16):
	case OP(v_pk_sub_u16):
	case OP(v_pk_add_i16):
	case OP(v_pk_sub_i16):
	case OP(v_pk_mul_lo_u16):
	case OP(v_pk_lshlrev_b16):
	case OP(v_pk_lshrrev_b16):
	case OP(v_pk_ashrrev_i16):
	case OP(v_pk_max_i16):
	case OP(v_pk_min_i16):
	case OP(v_pk_max_u16):
	case OP(v_pk_min_u16):
	case OP(v_pk_mad_u16):
	case OP(v_pk_mad_i16):
		return true;
	default:
		return false;
	}
}

static enum isa_result packed16(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	bool f16 = in->op == OP(v_pk_add_f16) || in->op == OP(v_pk_mul_f16) ||
		   in->op == OP(v_pk_fma_f16) || in->op == OP(v_pk_fmac_f16) ||
		   in->op == OP(v_pk_min_f16) || in->op == OP(v_pk_max_f16);
	enum isa_type t = f16 ? ISA_T_F16 : ISA_T_B32;
	struct vsrc s[3] = {isa_vsrc(w, in, 0, t), isa_vsrc(w, in, 1, t), isa_vsrc(w, in, 2, t)};
	/* the VOP2 form (v_pk_fmac_f16) has no op_sel: low and high halves */
	unsigned sel = in->fmt == ISA_FMT_VOP3P ? in->opsel : 0;
	unsigned sel_hi = in->fmt == ISA_FMT_VOP3P ? in->opsel_hi : 7;
	unsigned neg_lo = in->fmt == ISA_FMT_VOP3P ? in->neg : 0;
	unsigned neg_hi = in->fmt == ISA_FMT_VOP3P ? in->abs : 0;
	uint32_t *d = vdst(w, in);

	FOR_LANES(exec, l)
	{
		uint32_t lo[3], hi[3];

		for (unsigned i = 0; i < 3; i++) {
			uint32_t v = pk_src(w, in, i, &s[i], l);

			lo[i] = half_of(v, (sel >> i) & 1);
			hi[i] = half_of(v, (sel_hi >> i) & 1);
			if (f16 && (neg_lo >> i & 1))
				lo[i] ^= 0x8000u;
			if (f16 && (neg_hi >> i & 1))
				hi[i] ^= 0x8000u;
		}
		d[l] = pk_lane(in, lo[0], lo[1], lo[2]) | pk_lane(in, hi[0], hi[1], hi[2]) << 16;
	}
	return ISA_NEXT;
}

/* v_{mad,fma}_mix*: each source is f32, or (op_sel_hi) an f16 half
 * chosen by op_sel; neg_lo/neg_hi are neg/abs of the source. */
static enum isa_result mix(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	bool fused = in->op == OP(v_fma_mix_f32) || in->op == OP(v_fma_mixlo_f16) ||
		     in->op == OP(v_fma_mixhi_f16);
	bool to_f16 = in->op != OP(v_fma_mix_f32) && in->op != OP(v_mad_mix_f32);
	bool high = in->op == OP(v_fma_mixhi_f16) || in->op == OP(v_mad_mixhi_f16);
	struct vsrc s[3];
	uint32_t *d = vdst(w, in);

	for (unsigned i = 0; i < 3; i++)
		s[i] = isa_vsrc(w, in, i, (in->opsel_hi >> i & 1) ? ISA_T_F16 : ISA_T_F32);
	FOR_LANES(exec, l)
	{
		float v[3], r;

		for (unsigned i = 0; i < 3; i++) {
			uint32_t raw = rd32(&s[i], l);

			v[i] = (in->opsel_hi >> i & 1) ? h2f(half_of(raw, (in->opsel >> i) & 1))
						       : f32_of(raw);
			if (in->abs >> i & 1)
				v[i] = fabsf(v[i]);
			if (in->neg >> i & 1)
				v[i] = -v[i];
		}
		if (fused) {
			r = to_f16 ? h2f(isa_f16_fma(v[0], v[1], v[2])) : fmaf(v[0], v[1], v[2]);
		} else {
			volatile float p = v[0] * v[1];

			r = p + v[2];
		}
		if (in->flags & ISA_F_CLAMP)
			r = r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f;
		if (!to_f16)
			d[l] = u32_of(r);
		else if (high)
			d[l] = (d[l] & 0xffffu) | f2h(r) << 16;
		else
			d[l] = (d[l] & 0xffff0000u) | f2h(r);
	}
	return ISA_NEXT;
}

/* Dot products: sums of 2, 4 or 8 products of packed fields plus a
 * 32-bit accumulator; clamp saturates the integer forms. */
static int64_t field(uint32_t v, unsigned bits, unsigned i, bool sign)
{
	uint32_t f = (v >> (bits * i)) & ((1u << bits) - 1);

	if (sign && (f >> (bits - 1)))
		return (int64_t)f - ((int64_t)1 << bits);
	return f;
}

static enum isa_result dot(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	unsigned bits, n;
	bool sign, f16 = in->op == OP(v_dot2_f32_f16) || in->op == OP(v_dot2c_f32_f16);
	struct vsrc a, b, c;
	uint32_t *d = vdst(w, in);
	unsigned sel = in->fmt == ISA_FMT_VOP3P ? in->opsel : 0;
	unsigned sel_hi = in->fmt == ISA_FMT_VOP3P ? in->opsel_hi : 3;

	switch (in->op) {
	case OP(v_dot2_f32_f16):
	case OP(v_dot2c_f32_f16):
	case OP(v_dot2_i32_i16):
	case OP(v_dot2c_i32_i16):
		bits = 16, n = 2, sign = true;
		break;
	case OP(v_dot2_u32_u16):
		bits = 16, n = 2, sign = false;
		break;
	case OP(v_dot4_i32_i8):
	case OP(v_dot4c_i32_i8):
		bits = 8, n = 4, sign = true;
		break;
	case OP(v_dot4_u32_u8):
		bits = 8, n = 4, sign = false;
		break;
	case OP(v_dot8_i32_i4):
	case OP(v_dot8c_i32_i4):
		bits = 4, n = 8, sign = true;
		break;
	case OP(v_dot8_u32_u4):
		bits = 4, n = 8, sign = false;
		break;
	default:
		return ISA_UNHANDLED;
	}
	a = isa_vsrc(w, in, 0, f16 ? ISA_T_F16 : ISA_T_B32);
	b = isa_vsrc(w, in, 1, f16 ? ISA_T_F16 : ISA_T_B32);
	c = isa_vsrc(w, in, 2, f16 ? ISA_T_F32 : ISA_T_B32);
	FOR_LANES(exec, l)
	{
		uint32_t x = rd32(&a, l), y = rd32(&b, l), z = rd32(&c, l);

		if (bits == 16) {
			x = pk_src(w, in, 0, &a, l);
			y = pk_src(w, in, 1, &b, l);
			/* op_sel / op_sel_hi pick the halves of the two sources */
			x = half_of(x, sel & 1) | half_of(x, sel_hi & 1) << 16;
			y = half_of(y, (sel >> 1) & 1) | half_of(y, (sel_hi >> 1) & 1) << 16;
		}
		if (f16) {
			double s = 0;

			if (in->fmt == ISA_FMT_VOP3P) {
				x ^= ((in->neg & 1) ? 0x8000u : 0) |
				     ((in->abs & 1) ? 0x80000000u : 0);
				y ^= ((in->neg & 2) ? 0x8000u : 0) |
				     ((in->abs & 2) ? 0x80000000u : 0);
				if (in->neg & 4)
					z ^= 0x80000000u;
				if (in->abs & 4)
					z &= 0x7fffffffu;
			}
			for (unsigned i = 0; i < 2; i++)
				s += (double)h2f(x >> (16 * i)) * (double)h2f(y >> (16 * i));
			d[l] = u32_of(out_f32(in, (float)(s + (double)f32_of(z))));
		} else {
			int64_t s = sign ? (int64_t)(int32_t)z : (int64_t)z;

			for (unsigned i = 0; i < n; i++)
				s += field(x, bits, i, sign) * field(y, bits, i, sign);
			if (in->flags & ISA_F_CLAMP) {
				if (sign)
					s = s > INT32_MAX   ? INT32_MAX
					    : s < INT32_MIN ? INT32_MIN
							    : s;
				else
					s = s > (int64_t)UINT32_MAX ? (int64_t)UINT32_MAX : s;
			}
			d[l] = (uint32_t)s;
		}
	}
	return ISA_NEXT;
}

static uint32_t norm_i16(float v)
{
	return isnan(v) ? 0 : sat_i16((int64_t)nearbyintf(fminf(fmaxf(v, -1.0f), 1.0f) * 32767.0f));
}

static uint32_t norm_u16(float v)
{
	return isnan(v) ? 0 : sat_u16((int64_t)nearbyintf(fminf(fmaxf(v, 0.0f), 1.0f) * 65535.0f));
}

/* two f32 sources (VOP3 abs/neg) packed into 16-bit halves */
static enum isa_result pack_f32(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	struct vsrc a = isa_vsrc(w, in, 0, ISA_T_F32), b = isa_vsrc(w, in, 1, ISA_T_F32);
	uint32_t *d = vdst(w, in);

	FOR_LANES(exec, l)
	{
		float x = f32_of(mod32(in, 0, rd32(&a, l))), y = f32_of(mod32(in, 1, rd32(&b, l)));

		if (in->op == OP(v_cvt_pkrtz_f16_f32))
			d[l] = isa_f16_rtz(x) | isa_f16_rtz(y) << 16;
		else if (in->op == OP(v_cvt_pknorm_i16_f32))
			d[l] = norm_i16(x) | norm_i16(y) << 16;
		else
			d[l] = norm_u16(x) | norm_u16(y) << 16;
	}
	return ISA_NEXT;
}

enum isa_result isa_valu_16(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	enum isa_result r = dot(w, in, exec);

	if (r != ISA_UNHANDLED)
		return r;
	if (is_pk16(in->op))
		return packed16(w, in, exec);
	switch (in->op) {
	case OP(v_cvt_pkrtz_f16_f32):
	case OP(v_cvt_pknorm_i16_f32):
	case OP(v_cvt_pknorm_u16_f32):
		return pack_f32(w, in, exec);
	case OP(v_fma_mix_f32):
	case OP(v_mad_mix_f32):
	case OP(v_fma_mixlo_f16):
	case OP(v_mad_mixlo_f16):
	case OP(v_fma_mixhi_f16):
	case OP(v_mad_mixhi_f16):
		return mix(w, in, exec);
	default:
		break;
	}
	if (in->fmt == ISA_FMT_VOP3P)
		return ISA_UNHANDLED;
	return scalar16(w, in, exec);
}
