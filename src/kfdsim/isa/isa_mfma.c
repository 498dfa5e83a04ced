/* SPDX-License-Identifier: MIT */
/*
 * Matrix fused multiply-add (gfx908/gfx90a v_mfma_*): D = A * B + C over
 * the whole wave. Each instruction multiplies `blocks` independent M x K
 * and K x N (M = N) matrices; their elements are spread over the 64 lanes
 * as AMD's matrix instruction calculator (CDNA2) describes:
 *
 *  - A[i][k] of block b is element k % kpl of lane i + M * (b + blocks *
 *    (k / kpl)), kpl = K * M * blocks / 64 elements per lane, packed
 *    from the low bits (two 16-bit values per register, four i8 per
 *    register, one f32, an f64 in a register pair); B[k][j] the same with
 *    j for i.
 *  - C/D[i][j] of block b, 32-bit results: register i % 4 + 4 * (i /
 *    (4 * mi) + g * (b / bi)), lane j + M * ((i / 4) % mi + mi * (b % bi)),
 *    bi = max(1, 64 / (M * M / 4)) blocks side by side in the lanes,
 *    mi = 64 / bi / M row groups of 4 across the lanes, g = M / (4 * mi).
 *  - f64 results: register pair i / 4, lane j + M * b + 16 * (i % 4).
 *
 * CBSZ/ABID: block b takes its A from block (b >> CBSZ << CBSZ) + ABID.
 * BLGP: B is read from another lane (broadcasts of a half or a quarter of
 * the wave, or a rotation by 16).
 *
 * The matrix core works on the whole wave: with EXEC full the instruction
 * runs, with EXEC 0 it does nothing (like any VALU op; compiled code
 * branches around it), and a partial EXEC, whose effect on the matrix
 * operands is not documented, is refused as unimplemented.
 */
#include <math.h>

#include "isa_f16.h"
#include "isa_valu.h"

enum mai_in {
	MAI_F32,
	MAI_F16,
	MAI_BF16,
	MAI_I8,
	MAI_F64,
};

struct mai_shape {
	uint16_t op;
	uint8_t m, k, blocks;
	uint8_t in; /* enum mai_in; the result is f32, i32 (i8) or f64 */
};

static const struct mai_shape shapes[] = {
    {OP(v_mfma_f32_32x32x1f32), 32, 1, 2, MAI_F32},
    {OP(v_mfma_f32_16x16x1f32), 16, 1, 4, MAI_F32},
    {OP(v_mfma_f32_4x4x1f32), 4, 1, 16, MAI_F32},
    {OP(v_mfma_f32_32x32x2f32), 32, 2, 1, MAI_F32},
    {OP(v_mfma_f32_16x16x4f32), 16, 4, 1, MAI_F32},
    {OP(v_mfma_f32_32x32x4f16), 32, 4, 2, MAI_F16},
    {OP(v_mfma_f32_16x16x4f16), 16, 4, 4, MAI_F16},
    {OP(v_mfma_f32_4x4x4f16), 4, 4, 16, MAI_F16},
    {OP(v_mfma_f32_32x32x8f16), 32, 8, 1, MAI_F16},
    {OP(v_mfma_f32_16x16x16f16), 16, 16, 1, MAI_F16},
    {OP(v_mfma_i32_32x32x4i8), 32, 4, 2, MAI_I8},
    {OP(v_mfma_i32_16x16x4i8), 16, 4, 4, MAI_I8},
    {OP(v_mfma_i32_4x4x4i8), 4, 4, 16, MAI_I8},
    {OP(v_mfma_i32_32x32x8i8), 32, 8, 1, MAI_I8},
    {OP(v_mfma_i32_16x16x16i8), 16, 16, 1, MAI_I8},
    {OP(v_mfma_f32_32x32x4bf16_1k), 32, 4, 2, MAI_BF16},
    {OP(v_mfma_f32_16x16x4bf16_1k), 16, 4, 4, MAI_BF16},
    {OP(v_mfma_f32_4x4x4bf16_1k), 4, 4, 16, MAI_BF16},
    {OP(v_mfma_f32_32x32x8bf16_1k), 32, 8, 1, MAI_BF16},
    {OP(v_mfma_f32_16x16x16bf16_1k), 16, 16, 1, MAI_BF16},
    {OP(v_mfma_f32_32x32x2bf16), 32, 2, 2, MAI_BF16},
    {OP(v_mfma_f32_16x16x2bf16), 16, 2, 4, MAI_BF16},
    {OP(v_mfma_f32_4x4x2bf16), 4, 2, 16, MAI_BF16},
    {OP(v_mfma_f32_32x32x4bf16), 32, 4, 1, MAI_BF16},
    {OP(v_mfma_f32_16x16x8bf16), 16, 8, 1, MAI_BF16},
    {OP(v_mfma_f64_16x16x4f64), 16, 4, 1, MAI_F64},
    {OP(v_mfma_f64_4x4x4f64), 4, 4, 4, MAI_F64},
};

static const struct mai_shape *shape_of(unsigned op)
{
	for (unsigned i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (shapes[i].op == op)
			return &shapes[i];
	return NULL;
}

/* Registers an A/B operand takes per lane. */
static unsigned in_regs(const struct mai_shape *s, unsigned kpl)
{
	switch (s->in) {
	case MAI_F16:
	case MAI_BF16:
		return (kpl + 1) / 2;
	case MAI_F64:
		return 2;
	default:
		return 1;
	}
}

/* Registers C and D take per lane: M * M * blocks results over 64 lanes. */
static unsigned out_regs(const struct mai_shape *s)
{
	unsigned n = (unsigned)s->m * s->m * s->blocks / ISA_LANES;

	return s->in == MAI_F64 ? 2 * n : n;
}

/* Register row of operand `code` (a VGPR or AGPR range of n registers
 * inside one file), or NULL. */
static uint32_t (*rows(struct isa_wave *w, unsigned code, unsigned n))[ISA_LANES]
{
	if (code < ISA_SRC_VGPR || code >= ISA_SRC_AGPR + 256 ||
	    (code - ISA_SRC_VGPR) % 256 + n > 256)
		return NULL;
	return &w->v[code - ISA_SRC_VGPR];
}

/* Element e of a lane's A/B registers, as a double (or an integer). */
static double in_elem(const struct mai_shape *s, uint32_t (*r)[ISA_LANES], unsigned lane,
		      unsigned e)
{
	switch (s->in) {
	case MAI_F32:
		return f32_of(r[0][lane]);
	case MAI_F16:
		return isa_f16_to_f32(r[e / 2][lane] >> 16 * (e & 1) & 0xffff);
	case MAI_BF16: /* the high half of an f32 */
		return f32_of(r[e / 2][lane] >> 16 * (e & 1) << 16);
	case MAI_I8:
		return (int8_t)(r[0][lane] >> 8 * e);
	default:
		return f64_of(r[0][lane] | (uint64_t)r[1][lane] << 32);
	}
}

static unsigned blgp_lane(unsigned blgp, unsigned lane)
{
	switch (blgp) {
	case 0:
		return lane;
	case 1: /* lanes 0-31 to both halves */
		return lane % 32;
	case 2: /* lanes 32-63 to both halves */
		return 32 + lane % 32;
	case 3: /* rotate down by 16 */
		return (lane + 16) % 64;
	default: /* 4..7: one group of 16 lanes to all */
		return 16 * (blgp - 4) + lane % 16;
	}
}

/* Where C/D[i][j] of block b lives: register (in 32- or 64-bit units) and
 * lane. */
static void out_pos(const struct mai_shape *s, unsigned i, unsigned j, unsigned b, unsigned *reg,
		    unsigned *lane)
{
	unsigned m = s->m, bi, mi, g;

	if (s->in == MAI_F64) {
		*reg = i / 4;
		*lane = j + m * b + 16 * (i % 4);
		return;
	}
	bi = 64 / (m * m / 4);
	bi = bi ? bi : 1;
	mi = 64 / bi / m;
	g = m / (4 * mi);
	*reg = i % 4 + 4 * (i / (4 * mi) + g * (b / bi));
	*lane = j + m * ((i / 4) % mi + mi * (b % bi));
}

/* Scratch for one instruction: the inputs are read before D is written,
 * as D may overlap them. */
struct mai_work {
	double a[256], b[256]; /* [block][row or column][k] */
	double acc[2048];      /* f32/f64 results by [block][i][j] */
	uint32_t iacc[2048];   /* i32 results */
};

static uint64_t c_elem(struct isa_wave *w, const struct isa_inst *in, const struct mai_shape *s,
		       uint32_t (*c)[ISA_LANES], unsigned reg, unsigned lane)
{
	if (!c) /* an inline constant */
		return isa_scalar_operand(w, in, in->src[2],
					  s->in == MAI_F64  ? ISA_T_F64
					  : s->in == MAI_I8 ? ISA_T_B32
							    : ISA_T_F32);
	if (s->in == MAI_F64)
		return c[2 * reg][lane] | (uint64_t)c[2 * reg + 1][lane] << 32;
	return c[reg][lane];
}

enum isa_result isa_valu_mfma(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	const struct mai_shape *s = shape_of(in->op);
	unsigned m, k, nb, kpl, cbsz, abid, blgp, nin, nout;
	uint32_t(*ra)[ISA_LANES], (*rb)[ISA_LANES], (*rc)[ISA_LANES] = NULL, (*rd)[ISA_LANES];
	static _Thread_local struct mai_work wk;

	if (!s)
		return ISA_UNHANDLED;
	m = s->m;
	k = s->k;
	nb = s->blocks;
	kpl = k * m * nb / ISA_LANES;
	cbsz = ISA_MAI_CBSZ(in);
	abid = ISA_MAI_ABID(in);
	blgp = ISA_MAI_BLGP(in);
	nin = in_regs(s, kpl);
	nout = out_regs(s);
	ra = rows(w, in->src[0], nin);
	rb = rows(w, in->src[1], nin);
	rd = rows(w, in->dst, nout);
	if (in->src[2] >= ISA_SRC_VGPR)
		rc = rows(w, in->src[2], nout);
	/* Not modelled, refused: scalar A/B, register ranges leaving their
	 * file, a C that is an SGPR or literal, ABID outside the broadcast
	 * group, and the modifiers on f64 ops (CDNA2 has none there). */
	if (!ra || !rb || !rd || (in->src[2] >= ISA_SRC_VGPR && !rc) ||
	    (in->src[2] < ISA_SRC_VGPR && !(in->src[2] >= 128 && in->src[2] <= 208) &&
	     !(in->src[2] >= 240 && in->src[2] <= 248)) ||
	    (1u << cbsz) > nb || abid >= (1u << cbsz) ||
	    (s->in == MAI_F64 && (cbsz || abid || blgp)) || (exec && exec != ~0ull))
		return isa_unimplemented(w, in);
	if (!exec)
		return ISA_NEXT;

	/* gather A (with the block broadcast) and B (with the lane pattern) */
	for (unsigned b = 0; b < nb; b++) {
		unsigned ab = (b >> cbsz << cbsz) + abid;

		for (unsigned i = 0; i < m; i++)
			for (unsigned kk = 0; kk < k; kk++) {
				unsigned ga = kk / kpl, e = kk % kpl;
				unsigned la = i + m * (ab + nb * ga), lb = i + m * (b + nb * ga);

				wk.a[(b * m + i) * k + kk] = in_elem(s, ra, la, e);
				wk.b[(b * m + i) * k + kk] = in_elem(s, rb, blgp_lane(blgp, lb), e);
			}
	}
	for (unsigned b = 0; b < nb; b++)
		for (unsigned i = 0; i < m; i++)
			for (unsigned j = 0; j < m; j++) {
				const double *pa = &wk.a[(b * m + i) * k];
				const double *pb = &wk.b[(b * m + j) * k];
				unsigned reg, lane, idx = (b * m + i) * m + j;
				uint64_t c;

				out_pos(s, i, j, b, &reg, &lane);
				c = c_elem(w, in, s, rc, reg, lane);
				if (s->in == MAI_I8) {
					uint32_t acc = (uint32_t)c;

					for (unsigned kk = 0; kk < k; kk++)
						acc +=
						    (uint32_t)((int32_t)pa[kk] * (int32_t)pb[kk]);
					wk.iacc[idx] = acc;
				} else if (s->in == MAI_F64) {
					double acc = f64_of(c);

					for (unsigned kk = 0; kk < k; kk++)
						acc = fma(pa[kk], pb[kk], acc);
					wk.acc[idx] = acc;
				} else {
					/* products are exact in f64; the sum is
					 * rounded to f32 once */
					double acc = f32_of((uint32_t)c);

					for (unsigned kk = 0; kk < k; kk++)
						acc += pa[kk] * pb[kk];
					wk.acc[idx] = acc;
				}
			}
	for (unsigned b = 0; b < nb; b++)
		for (unsigned i = 0; i < m; i++)
			for (unsigned j = 0; j < m; j++) {
				unsigned reg, lane, idx = (b * m + i) * m + j;

				out_pos(s, i, j, b, &reg, &lane);
				if (s->in == MAI_I8) {
					rd[reg][lane] = wk.iacc[idx];
				} else if (s->in == MAI_F64) {
					uint64_t u = u64_of(wk.acc[idx]);

					rd[2 * reg][lane] = (uint32_t)u;
					rd[2 * reg + 1][lane] = (uint32_t)(u >> 32);
				} else {
					rd[reg][lane] = u32_of((float)wk.acc[idx]);
				}
			}
	return ISA_NEXT;
}
