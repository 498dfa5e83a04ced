/* SPDX-License-Identifier: MIT */
/*
 * Vector ALU helpers shared by the VALU executors: source operands as
 * either a VGPR row or a uniform value, float input/output modifiers.
 */
#ifndef KFDSIM_ISA_VALU_H
#define KFDSIM_ISA_VALU_H

#include <string.h>

#include "isa_wave.h"

#define OP(n) ISA_OP_##n

/* A 32-bit source: per-lane VGPR row, or one value for all lanes. */
struct vsrc {
	const uint32_t *v;
	uint32_t k;
};

/* A 64-bit source: a VGPR pair, or one value. */
struct vsrc64 {
	const uint32_t *lo, *hi;
	uint64_t k;
};

static inline struct vsrc isa_vsrc(const struct isa_wave *w, const struct isa_inst *in, unsigned i,
				   enum isa_type t)
{
	struct vsrc s = {NULL, 0};
	unsigned code = in->src[i];

	if (code >= ISA_SRC_VGPR)
		s.v = w->v[code - ISA_SRC_VGPR];
	else
		s.k = (uint32_t)isa_scalar_operand(w, in, code, t);
	return s;
}

static inline struct vsrc64 isa_vsrc64(const struct isa_wave *w, const struct isa_inst *in,
				       unsigned i, enum isa_type t)
{
	struct vsrc64 s = {NULL, NULL, 0};
	unsigned code = in->src[i];

	if (code >= ISA_SRC_VGPR) {
		s.lo = w->v[code - ISA_SRC_VGPR];
		s.hi = w->v[code - ISA_SRC_VGPR + 1];
	} else {
		s.k = isa_scalar_operand(w, in, code, t);
	}
	return s;
}

static inline uint32_t rd32(const struct vsrc *s, unsigned l)
{
	return s->v ? s->v[l] : s->k;
}

static inline uint64_t rd64(const struct vsrc64 *s, unsigned l)
{
	return s->lo ? (s->lo[l] | (uint64_t)s->hi[l] << 32) : s->k;
}

static inline float f32_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint32_t u32_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline double f64_of(uint64_t u)
{
	double f;

	memcpy(&f, &u, 8);
	return f;
}

static inline uint64_t u64_of(double f)
{
	uint64_t u;

	memcpy(&u, &f, 8);
	return u;
}

/* VOP3 input modifiers of source i on a float's bits. */
static inline uint32_t mod32(const struct isa_inst *in, unsigned i, uint32_t v)
{
	if (in->abs & (1u << i))
		v &= 0x7fffffffu;
	if (in->neg & (1u << i))
		v ^= 0x80000000u;
	return v;
}

static inline uint64_t mod64(const struct isa_inst *in, unsigned i, uint64_t v)
{
	if (in->abs & (1u << i))
		v &= 0x7fffffffffffffffull;
	if (in->neg & (1u << i))
		v ^= 0x8000000000000000ull;
	return v;
}

/* Output modifiers (omod, clamp) of a float result. */
static inline float out_f32(const struct isa_inst *in, float r)
{
	if (in->omod == 1)
		r *= 2.0f;
	else if (in->omod == 2)
		r *= 4.0f;
	else if (in->omod == 3)
		r *= 0.5f;
	if (in->flags & ISA_F_CLAMP)
		r = r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f; /* NaN -> 0 */
	return r;
}

static inline double out_f64(const struct isa_inst *in, double r)
{
	if (in->omod == 1)
		r *= 2.0;
	else if (in->omod == 2)
		r *= 4.0;
	else if (in->omod == 3)
		r *= 0.5;
	if (in->flags & ISA_F_CLAMP)
		r = r > 0.0 ? (r < 1.0 ? r : 1.0) : 0.0;
	return r;
}

static inline uint32_t *vdst(struct isa_wave *w, const struct isa_inst *in)
{
	return w->v[in->dst - ISA_SRC_VGPR];
}

/* Lane mask result to an SGPR pair (VCC or sdst). */
static inline void wr_mask(struct isa_wave *w, unsigned code, uint64_t m)
{
	isa_wr_s64(w, code, m);
}

#define FOR_LANES(exec, l)                                                                         \
	for (unsigned l = 0; l < ISA_LANES; l++)                                                   \
		if ((exec) >> l & 1)

/* Executors of the VALU families; ISA_ILLEGAL via isa_unimplemented when
 * the op is not theirs. */
enum isa_result isa_valu_int(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);
enum isa_result isa_valu_float(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);
/* 16-bit, packed 16-bit, mixed-precision and dot-product ops */
enum isa_result isa_valu_16(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);
/* gfx9 VOP3 ops whose op_sel bits select 16-bit halves */
bool isa_valu16_has_opsel(unsigned op);
/* matrix fused multiply-add (v_mfma_*; whole wave: EXEC full, or 0) */
enum isa_result isa_valu_mfma(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);
enum isa_result isa_valu_cmp(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);
/* DPP / SDWA forms: rewrite the operands, then run the family executors. */
enum isa_result isa_valu_dpp(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);
enum isa_result isa_valu_sdwa(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);

#endif
