/* SPDX-License-Identifier: MIT */
/*
 * Vector ALU: single and double precision (VOP1/VOP2/VOP3, packed FP32 of
 * VOP3P). IEEE arithmetic of the host: add, mul, fma, sqrt and the
 * division sequence are correctly rounded; rcp/rsq/exp/log/sin/cos use
 * the C library (hardware is within 1 ulp; the model is at least as
 * accurate). Denormals are kept (the MODE denormal bits are not applied).
 */
#include <math.h>

#include "isa_f16.h"
#include "isa_valu.h"

static uint32_t cvt_i32(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 2147483647.0)
		return 0x7fffffff;
	if (v <= -2147483648.0)
		return 0x80000000u;
	return (uint32_t)(int32_t)v;
}

static uint32_t cvt_u32(double v)
{
	if (isnan(v) || v <= 0.0)
		return 0;
	if (v >= 4294967295.0)
		return 0xffffffffu;
	return (uint32_t)v;
}

static float fract_f32(float x)
{
	float r = x - floorf(x);

	return r < 0x1.fffffep-1f ? r : 0x1.fffffep-1f;
}

static double fract_f64(double x)
{
	double r = x - floor(x);

	return r < 0x1.fffffffffffffp-1 ? r : 0x1.fffffffffffffp-1;
}

static float med3f(float a, float b, float c)
{
	float mx = fmaxf(a, b), mn = fminf(a, b);

	return fminf(fmaxf(c, mn), mx);
}

static enum isa_result f64_ops(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	struct vsrc64 a = isa_vsrc64(w, in, 0, ISA_T_F64), b = isa_vsrc64(w, in, 1, ISA_T_F64),
		      c = isa_vsrc64(w, in, 2, ISA_T_F64);
	uint32_t *d0 = vdst(w, in), *d1 = w->v[in->dst - ISA_SRC_VGPR + 1];

#define D1(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			double x = f64_of(mod64(in, 0, rd64(&a, l)));                              \
			uint64_t r = u64_of(out_f64(in, (expr)));                                  \
			d0[l] = (uint32_t)r;                                                       \
			d1[l] = (uint32_t)(r >> 32);                                               \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define D2(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			double x = f64_of(mod64(in, 0, rd64(&a, l)));                              \
			double y = f64_of(mod64(in, 1, rd64(&b, l)));                              \
			uint64_t r = u64_of(out_f64(in, (expr)));                                  \
			d0[l] = (uint32_t)r;                                                       \
			d1[l] = (uint32_t)(r >> 32);                                               \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define D3(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			double x = f64_of(mod64(in, 0, rd64(&a, l)));                              \
			double y = f64_of(mod64(in, 1, rd64(&b, l)));                              \
			double z = f64_of(mod64(in, 2, rd64(&c, l)));                              \
			uint64_t r = u64_of(out_f64(in, (expr)));                                  \
			d0[l] = (uint32_t)r;                                                       \
			d1[l] = (uint32_t)(r >> 32);                                               \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)

	switch (in->op) {
	case OP(v_add_f64):
		D2(x + y);
	case OP(v_mul_f64):
		D2(x * y);
	case OP(v_min_f64):
		D2(fmin(x, y));
	case OP(v_max_f64):
		D2(fmax(x, y));
	case OP(v_fma_f64):
	case OP(v_fmac_f64):
		D3(fma(x, y, z));
	case OP(v_div_fmas_f64):
		D3(fma(x, y, z));
	case OP(v_div_fixup_f64):
		/* the division sequence's result: z / y, correctly rounded */
		D3(((void)x, z / y));
	case OP(v_rcp_f64):
		D1(1.0 / x);
	case OP(v_rsq_f64):
		D1(1.0 / sqrt(x));
	case OP(v_sqrt_f64):
		D1(sqrt(x));
	case OP(v_trunc_f64):
		D1(trunc(x));
	case OP(v_ceil_f64):
		D1(ceil(x));
	case OP(v_rndne_f64):
		D1(nearbyint(x));
	case OP(v_floor_f64):
		D1(floor(x));
	case OP(v_fract_f64):
		D1(isinf(x) ? NAN : fract_f64(x));
	case OP(v_frexp_mant_f64):
		D1(({
			int e;
			isinf(x) ? x : frexp(x, &e);
		}));
	case OP(v_ldexp_f64): {
		struct vsrc n = isa_vsrc(w, in, 1, ISA_T_B32);

		FOR_LANES(exec, l)
		{
			uint64_t r = u64_of(out_f64(
			    in, ldexp(f64_of(mod64(in, 0, rd64(&a, l))), (int32_t)rd32(&n, l))));

			d0[l] = (uint32_t)r;
			d1[l] = (uint32_t)(r >> 32);
		}
		return ISA_NEXT;
	}
	case OP(v_cvt_f64_i32):
	case OP(v_cvt_f64_u32):
	case OP(v_cvt_f64_f32): {
		struct vsrc s =
		    isa_vsrc(w, in, 0, in->op == OP(v_cvt_f64_f32) ? ISA_T_F32 : ISA_T_B32);

		FOR_LANES(exec, l)
		{
			uint32_t x = rd32(&s, l);
			double v = in->op == OP(v_cvt_f64_i32)   ? (double)(int32_t)x
				   : in->op == OP(v_cvt_f64_u32) ? (double)x
								 : (double)f32_of(mod32(in, 0, x));
			uint64_t r = u64_of(out_f64(in, v));

			d0[l] = (uint32_t)r;
			d1[l] = (uint32_t)(r >> 32);
		}
		return ISA_NEXT;
	}
	case OP(v_cvt_i32_f64):
	case OP(v_cvt_u32_f64):
	case OP(v_cvt_f32_f64):
	case OP(v_frexp_exp_i32_f64):
		FOR_LANES(exec, l)
		{
			double x = f64_of(mod64(in, 0, rd64(&a, l)));
			int e = 0;

			if (in->op == OP(v_cvt_i32_f64))
				d0[l] = cvt_i32(x);
			else if (in->op == OP(v_cvt_u32_f64))
				d0[l] = cvt_u32(x);
			else if (in->op == OP(v_cvt_f32_f64))
				d0[l] = u32_of(out_f32(in, (float)x));
			else
				d0[l] = (isinf(x) || isnan(x)) ? 0 : (frexp(x, &e), (uint32_t)e);
		}
		return ISA_NEXT;
	case OP(v_div_scale_f64):
		/* no scaling: the sequence's fixup computes the exact quotient */
		FOR_LANES(exec, l)
		{
			uint64_t r = mod64(in, 0, rd64(&a, l));

			d0[l] = (uint32_t)r;
			d1[l] = (uint32_t)(r >> 32);
		}
		wr_mask(w, in->sdst, 0);
		return ISA_NEXT;
	default:
		return ISA_UNHANDLED;
	}
#undef D1
#undef D2
#undef D3
}

static enum isa_result pk_f32(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	struct vsrc64 s[3];
	uint32_t *d0 = vdst(w, in), *d1 = w->v[in->dst - ISA_SRC_VGPR + 1];

	if (in->op != OP(v_pk_fma_f32) && in->op != OP(v_pk_mul_f32) &&
	    in->op != OP(v_pk_add_f32) && in->op != OP(v_pk_mov_b32))
		return ISA_UNHANDLED;
	for (unsigned i = 0; i < 3; i++) {
		s[i] = isa_vsrc64(w, in, i, ISA_T_B64);
		/* constants are one f32 in the low dword (op_sel_hi picks it
		 * for the high half too) */
		if (in->src[i] >= 128 && in->src[i] < ISA_SRC_VGPR)
			s[i].k = (uint32_t)isa_scalar_operand(w, in, in->src[i], ISA_T_F32);
	}
	FOR_LANES(exec, l)
	{
		float lo[3], hi[3];
		uint32_t r0, r1;

		for (unsigned i = 0; i < 3; i++) {
			uint64_t v = rd64(&s[i], l);
			uint32_t vl = (in->opsel >> i) & 1 ? (uint32_t)(v >> 32) : (uint32_t)v;
			uint32_t vh = (in->opsel_hi >> i) & 1 ? (uint32_t)(v >> 32) : (uint32_t)v;

			if (in->neg & (1u << i))
				vl ^= 0x80000000u;
			if (in->abs & (1u << i)) /* neg_hi */
				vh ^= 0x80000000u;
			lo[i] = f32_of(vl);
			hi[i] = f32_of(vh);
		}
		switch (in->op) {
		case OP(v_pk_fma_f32):
			r0 = u32_of(fmaf(lo[0], lo[1], lo[2]));
			r1 = u32_of(fmaf(hi[0], hi[1], hi[2]));
			break;
		case OP(v_pk_mul_f32):
			r0 = u32_of(lo[0] * lo[1]);
			r1 = u32_of(hi[0] * hi[1]);
			break;
		case OP(v_pk_add_f32):
			r0 = u32_of(lo[0] + lo[1]);
			r1 = u32_of(hi[0] + hi[1]);
			break;
		default: {
			/* v_pk_mov_b32: op_sel picks the dword of src0 for the
			 * low result and of src1 for the high result */
			uint64_t v0 = rd64(&s[0], l), v1 = rd64(&s[1], l);

			r0 = (uint32_t)((in->opsel & 1) ? v0 >> 32 : v0);
			r1 = (uint32_t)((in->opsel & 2) ? v1 >> 32 : v1);
			break;
		}
		}
		d0[l] = r0;
		d1[l] = r1;
	}
	return ISA_NEXT;
}

enum isa_result isa_valu_float(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	struct vsrc a, b, c;
	uint32_t *d;
	enum isa_result r;
	bool plain;

	if (in->fmt == ISA_FMT_VOP3P)
		return pk_f32(w, in, exec);
	r = f64_ops(w, in, exec);
	if (r != ISA_UNHANDLED)
		return r;
	a = isa_vsrc(w, in, 0, ISA_T_F32);
	b = isa_vsrc(w, in, 1, ISA_T_F32);
	c = isa_vsrc(w, in, 2, ISA_T_F32);
	d = vdst(w, in);
	/* no input or output modifiers: the common case gets loops that do
	 * not re-read them per lane (a store to d[] may alias *in) */
	plain = !in->abs && !in->neg && !in->omod && !(in->flags & ISA_F_CLAMP);

#define F1(expr)                                                                                   \
	do {                                                                                       \
		if (plain) {                                                                       \
			FOR_LANES(exec, l)                                                         \
			{                                                                          \
				float x = f32_of(rd32(&a, l));                                     \
				d[l] = u32_of((expr));                                             \
			}                                                                          \
			return ISA_NEXT;                                                           \
		}                                                                                  \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			float x = f32_of(mod32(in, 0, rd32(&a, l)));                               \
			d[l] = u32_of(out_f32(in, (expr)));                                        \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define F2(expr)                                                                                   \
	do {                                                                                       \
		if (plain) {                                                                       \
			FOR_LANES(exec, l)                                                         \
			{                                                                          \
				float x = f32_of(rd32(&a, l)), y = f32_of(rd32(&b, l));            \
				d[l] = u32_of((expr));                                             \
			}                                                                          \
			return ISA_NEXT;                                                           \
		}                                                                                  \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			float x = f32_of(mod32(in, 0, rd32(&a, l)));                               \
			float y = f32_of(mod32(in, 1, rd32(&b, l)));                               \
			d[l] = u32_of(out_f32(in, (expr)));                                        \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define F3(expr)                                                                                   \
	do {                                                                                       \
		if (plain) {                                                                       \
			FOR_LANES(exec, l)                                                         \
			{                                                                          \
				float x = f32_of(rd32(&a, l)), y = f32_of(rd32(&b, l));            \
				float z = f32_of(rd32(&c, l));                                     \
				d[l] = u32_of((expr));                                             \
			}                                                                          \
			return ISA_NEXT;                                                           \
		}                                                                                  \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			float x = f32_of(mod32(in, 0, rd32(&a, l)));                               \
			float y = f32_of(mod32(in, 1, rd32(&b, l)));                               \
			float z = f32_of(mod32(in, 2, rd32(&c, l)));                               \
			d[l] = u32_of(out_f32(in, (expr)));                                        \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
/* results that are not floats (conversions to integers) */
#define FI(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			float x = f32_of(mod32(in, 0, rd32(&a, l)));                               \
			d[l] = (expr);                                                             \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)
#define IF(expr)                                                                                   \
	do {                                                                                       \
		FOR_LANES(exec, l)                                                                 \
		{                                                                                  \
			uint32_t x = rd32(&a, l);                                                  \
			d[l] = u32_of(out_f32(in, (expr)));                                        \
		}                                                                                  \
		return ISA_NEXT;                                                                   \
	} while (0)

	switch (in->op) {
	case OP(v_add_f32):
		F2(x + y);
	case OP(v_sub_f32):
		F2(x - y);
	case OP(v_subrev_f32):
		F2(y - x);
	case OP(v_mul_f32):
		F2(x * y);
	case OP(v_min_f32):
		F2(fminf(x, y));
	case OP(v_max_f32):
		F2(fmaxf(x, y));
	case OP(v_fma_f32):
	case OP(v_fmac_f32):
	case OP(v_div_fmas_f32):
		F3(fmaf(x, y, z));
	case OP(v_mad_f32):
	case OP(v_mac_f32):
	case OP(v_madmk_f32):
	case OP(v_madak_f32):
		/* unfused: the product is rounded */
		F3(({
			volatile float p = x * y;
			p + z;
		}));
	case OP(v_div_fixup_f32):
		F3(((void)x, z / y));
	case OP(v_min3_f32):
		F3(fminf(fminf(x, y), z));
	case OP(v_max3_f32):
		F3(fmaxf(fmaxf(x, y), z));
	case OP(v_med3_f32):
		F3(med3f(x, y, z));
	case OP(v_div_scale_f32):
		FOR_LANES(exec, l)
		d[l] = mod32(in, 0, rd32(&a, l));
		wr_mask(w, in->sdst, 0);
		return ISA_NEXT;
	case OP(v_ldexp_f32): {
		struct vsrc n = isa_vsrc(w, in, 1, ISA_T_B32);

		FOR_LANES(exec, l)
		d[l] = u32_of(
		    out_f32(in, ldexpf(f32_of(mod32(in, 0, rd32(&a, l))), (int32_t)rd32(&n, l))));
		return ISA_NEXT;
	}
	case OP(v_rcp_f32):
	case OP(v_rcp_iflag_f32):
		F1(1.0f / x);
	case OP(v_rsq_f32):
		F1(1.0f / sqrtf(x));
	case OP(v_sqrt_f32):
		F1(sqrtf(x));
	case OP(v_exp_f32):
		F1(exp2f(x));
	case OP(v_log_f32):
		F1(log2f(x));
	case OP(v_sin_f32):
		/* the argument is in revolutions */
		F1((float)sin((double)x * 6.283185307179586));
	case OP(v_cos_f32):
		F1((float)cos((double)x * 6.283185307179586));
	case OP(v_fract_f32):
		F1(isinf(x) ? NAN : fract_f32(x));
	case OP(v_trunc_f32):
		F1(truncf(x));
	case OP(v_ceil_f32):
		F1(ceilf(x));
	case OP(v_rndne_f32):
		F1(nearbyintf(x));
	case OP(v_floor_f32):
		F1(floorf(x));
	case OP(v_frexp_mant_f32):
		F1(({
			int e;
			isinf(x) ? x : frexpf(x, &e);
		}));
	case OP(v_frexp_exp_i32_f32):
		FI(({
			int e = 0;
			(isinf(x) || isnan(x)) ? 0u : (frexpf(x, &e), (uint32_t)e);
		}));
	case OP(v_cvt_i32_f32):
		FI(cvt_i32(x));
	case OP(v_cvt_u32_f32):
		FI(cvt_u32(x));
	case OP(v_cvt_rpi_i32_f32):
		FI(cvt_i32(floor((double)x + 0.5)));
	case OP(v_cvt_flr_i32_f32):
		FI(cvt_i32(floor((double)x)));
	case OP(v_cvt_f16_f32):
		FI(isa_f16_bits(x));
	case OP(v_cvt_f32_f16):
		IF(isa_f16_to_f32(x));
	case OP(v_cvt_f32_i32):
		IF((float)(int32_t)x);
	case OP(v_cvt_f32_u32):
		IF((float)x);
	case OP(v_cvt_f32_ubyte0):
		IF((float)(x & 0xff));
	case OP(v_cvt_f32_ubyte1):
		IF((float)((x >> 8) & 0xff));
	case OP(v_cvt_f32_ubyte2):
		IF((float)((x >> 16) & 0xff));
	case OP(v_cvt_f32_ubyte3):
		IF((float)(x >> 24));
	default:
		return ISA_UNHANDLED;
	}
#undef F1
#undef F2
#undef F3
#undef FI
#undef IF
}
