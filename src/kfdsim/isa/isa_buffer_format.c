/* SPDX-License-Identifier: MIT */
/*
 * Typed buffer loads and stores: MTBUF (tbuffer_{load,store}_format_*),
 * whose element format is in the instruction, and MUBUF's
 * buffer_{load,store}_format_*, whose format is in the resource (word 3,
 * with an identity DST_SEL; other swizzles are refused). DFMT is the layout of the
 * components (named from the most significant, so 2_10_10_10 has X in
 * bits 0-9 and W in bits 30-31), NFMT how each is read or written (UNORM,
 * SNORM, USCALED, SSCALED, UINT, SINT, FLOAT). Addressing is MUBUF's with
 * an ordinary resource: base + soffset + offset (+ index * stride), the
 * whole element inside num_records (else every register a load writes
 * reads 0 and stores drop).
 *
 * A load converts each component to a 32-bit register; components the
 * format lacks read 0, and W reads 1 (1.0 for the float formats). A store
 * converts each register back. Refused as unimplemented rather than
 * guessed: the d16 forms, reserved formats, FLOAT on 2-, 8-, 10- and
 * 11-bit fields for stores (and on 2- and 8-bit ones for loads), a store
 * with a different number of components than its format, a store of an
 * integer or scaled value that does not fit its field (whether the
 * hardware clamps or wraps is not modelled), and the private (ADD_TID)
 * resource.
 */
#include <math.h>

#include "isa_f16.h"
#include "isa_valu.h"
#include "isa_vmem.h"

#define RSRC_ADD_TID_ENABLE (1u << 23)

enum nfmt {
	NF_UNORM = 0,
	NF_SNORM = 1,
	NF_USCALED = 2,
	NF_SSCALED = 3,
	NF_UINT = 4,
	NF_SINT = 5,
	NF_FLOAT = 7,
};

/* Component widths from X (the least significant) per DFMT; 0 ends. */
static const uint8_t dfmt_bits[16][4] = {
    [1] = {8},
    [2] = {16},
    [3] = {8, 8},
    [4] = {32},
    [5] = {16, 16},
    [6] = {11, 11, 10},
    [7] = {10, 11, 11},
    [8] = {2, 10, 10, 10},
    [9] = {10, 10, 10, 2},
    [10] = {8, 8, 8, 8},
    [11] = {32, 32},
    [12] = {16, 16, 16, 16},
    [13] = {32, 32, 32},
    [14] = {32, 32, 32, 32},
};

static unsigned n_components(unsigned dfmt)
{
	unsigned n = 0;

	while (n < 4 && dfmt_bits[dfmt][n])
		n++;
	return n;
}

/* unsigned 10- or 11-bit float (5-bit exponent, bias 15, no sign) */
static float small_float(uint32_t c, unsigned bits)
{
	unsigned mbits = bits - 5, e = c >> mbits;
	uint32_t m = c & ((1u << mbits) - 1);

	if (e == 31)
		return m ? NAN : INFINITY;
	if (!e)
		return ldexpf((float)m, -14 - (int)mbits);
	return ldexpf(1.0f + (float)m / (float)(1u << mbits), (int)e - 15);
}

static int64_t sext(uint32_t c, unsigned bits)
{
	return bits == 32 ? (int32_t)c : (int64_t)c - ((c >> (bits - 1) & 1) ? (1ll << bits) : 0);
}

/* A loaded component to its register value; false when not modelled. */
static bool load_conv(unsigned nfmt, uint32_t c, unsigned bits, uint32_t *out)
{
	double max_u = bits == 32 ? 4294967295.0 : (double)((1ull << bits) - 1);
	double max_s = (double)((1ull << (bits - 1)) - 1);

	switch (nfmt) {
	case NF_UNORM:
		*out = u32_of((float)(c / max_u));
		return true;
	case NF_SNORM: {
		double v = (double)sext(c, bits) / max_s;

		*out = u32_of((float)(v < -1.0 ? -1.0 : v));
		return true;
	}
	case NF_USCALED:
		*out = u32_of((float)c);
		return true;
	case NF_SSCALED:
		*out = u32_of((float)sext(c, bits));
		return true;
	case NF_UINT:
		*out = c;
		return true;
	case NF_SINT:
		*out = (uint32_t)sext(c, bits);
		return true;
	case NF_FLOAT:
		if (bits == 32)
			*out = c;
		else if (bits == 16)
			*out = u32_of(isa_f16_to_f32(c));
		else if (bits == 10 || bits == 11)
			*out = u32_of(small_float(c, bits));
		else
			return false;
		return true;
	default:
		return false;
	}
}

/* A register value to a component to store; false when not modelled. */
static bool store_conv(unsigned nfmt, uint32_t v, unsigned bits, uint32_t *out)
{
	uint64_t mask = bits == 32 ? 0xffffffffull : (1ull << bits) - 1;
	double max_u = (double)mask, max_s = (double)((1ull << (bits - 1)) - 1);
	float f = f32_of(v);
	double d;

	switch (nfmt) {
	case NF_UNORM: /* clamp, round to nearest even (NaN: 0) */
		d = f > 0.0f ? (f < 1.0f ? f : 1.0) : 0.0;
		*out = (uint32_t)nearbyint(d * max_u);
		return true;
	case NF_SNORM:
		d = f > -1.0f ? (f < 1.0f ? f : 1.0) : (f == f ? -1.0 : 0.0);
		*out = (uint32_t)(int64_t)nearbyint(d * max_s) & (uint32_t)mask;
		return true;
	case NF_USCALED:
		if (!(f >= 0.0f && f <= max_u && f == truncf(f)))
			return false;
		*out = (uint32_t)f;
		return true;
	case NF_SSCALED:
		if (!(f >= -max_s - 1 && f <= max_s && f == truncf(f)))
			return false;
		*out = (uint32_t)(int64_t)f & (uint32_t)mask;
		return true;
	case NF_UINT:
		if (v > mask)
			return false;
		*out = v;
		return true;
	case NF_SINT:
		if ((int32_t)v < -max_s - 1 || (int32_t)v > max_s)
			return false;
		*out = v & (uint32_t)mask;
		return true;
	case NF_FLOAT:
		if (bits == 32)
			*out = v;
		else if (bits == 16)
			*out = isa_f16_bits(f);
		else
			return false;
		return true;
	default:
		return false;
	}
}

/* A typed access with format (dfmt, nfmt): MTBUF's opcodes 0-15 and
 * MUBUF's format opcodes 0-15 have the same meaning. */
static enum isa_result typed(struct isa_wave *w, const struct isa_inst *in, unsigned dfmt,
			     unsigned nfmt, bool swizzled)
{
	unsigned nc = n_components(dfmt);
	unsigned ni = (in->hwop & 3) + 1, elem_bytes = 0;
	bool store = in->hwop >= 4 && in->hwop < 8;
	uint64_t exec = isa_exec(w);
	const uint32_t *rs = &w->s[in->sdst];
	uint64_t base = rs[0] | (uint64_t)(rs[1] & 0xffff) << 32;
	uint32_t stride = (rs[1] >> 16) & 0x3fff, num_records = rs[2];
	uint32_t soff = (uint32_t)isa_scalar_operand(w, in, in->src[3], ISA_T_B32);
	unsigned v = in->src[0] - ISA_SRC_VGPR, data = in->src[1] - ISA_SRC_VGPR;

	for (unsigned i = 0; i < nc; i++)
		elem_bytes += dfmt_bits[dfmt][i];
	elem_bytes /= 8;
	/* what the instruction alone says, then (with lanes to run) what its
	 * format and resource say: without active lanes nothing happens */
	if (in->hwop >= 8 || (in->flags & (ISA_F_LDS | ISA_F_TFE)) || data + ni > ISA_VREGS)
		return isa_unimplemented(w, in);
	if (!exec)
		return ISA_NEXT;
	if (!nc || nfmt == 6 || (store && ni != nc) || swizzled || (rs[3] & RSRC_ADD_TID_ENABLE))
		return isa_unimplemented(w, in);
	FOR_EACH_ACTIVE(exec, l)
	{
		uint64_t index = 0, offset = (uint32_t)in->imm, rel, addr;
		uint32_t words[4] = {0, 0, 0, 0};
		unsigned vi = v, shift = 0;
		uint8_t *p;

		if (in->flags & ISA_F_IDXEN)
			index = w->v[vi++ % ISA_VREGS][l];
		if (in->flags & ISA_F_OFFEN)
			offset += w->v[vi % ISA_VREGS][l];
		rel = index * stride + offset;
		p = NULL;
		if (stride ? index < num_records : rel + elem_bytes <= num_records) {
			addr = base + soff + rel;
			p = isa_mem_host(w->ctx, addr, elem_bytes, store);
			if (!p)
				return isa_mem_fault(w->ctx, addr, store);
		}
		if (!store) {
			if (!p) { /* out of range: every register reads 0 */
				for (unsigned i = 0; i < ni; i++)
					w->v[(in->dst - ISA_SRC_VGPR + i) % ISA_VREGS][l] = 0;
				continue;
			}
			memcpy(words, p, elem_bytes);
			for (unsigned i = 0; i < ni; i++) {
				unsigned bits = dfmt_bits[dfmt][i];
				uint32_t c, r;

				if (i >= nc) {
					bool flt = nfmt != NF_UINT && nfmt != NF_SINT;

					r = i == 3 ? (flt ? 0x3f800000u : 1) : 0;
				} else {
					c = bits == 32 ? words[shift / 32]
						       : words[shift / 32] >> shift % 32 &
							     ((1u << bits) - 1);
					if (!load_conv(nfmt, c, bits, &r))
						return isa_unimplemented(w, in);
					shift += bits;
				}
				w->v[(in->dst - ISA_SRC_VGPR + i) % ISA_VREGS][l] = r;
			}
			continue;
		}
		for (unsigned i = 0; i < nc; i++) {
			unsigned bits = dfmt_bits[dfmt][i];
			uint32_t c;

			if (!store_conv(nfmt, w->v[data + i][l], bits, &c))
				return isa_unimplemented(w, in);
			words[shift / 32] |= bits == 32 ? c : c << shift % 32;
			shift += bits;
		}
		if (p)
			memcpy(p, words, elem_bytes);
	}
	return ISA_NEXT;
}

enum isa_result isa_exec_mtbuf(struct isa_wave *w, const struct isa_inst *in)
{
	return typed(w, in, in->seg & 15, in->ext & 7, false);
}

/* The identity DST_SEL (X, Y, Z, W in order) of a resource. */
#define RSRC_DST_SEL_XYZW 0xfacu

enum isa_result isa_exec_mubuf_format(struct isa_wave *w, const struct isa_inst *in)
{
	uint32_t word3 = w->s[in->sdst + 3];

	/* the format is the resource's; a DST_SEL swizzle is not modelled */
	return typed(w, in, word3 >> 15 & 15, word3 >> 12 & 7,
		     (word3 & 0xfff) != RSRC_DST_SEL_XYZW);
}
