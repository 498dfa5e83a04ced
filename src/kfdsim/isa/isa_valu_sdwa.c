/* SPDX-License-Identifier: MIT */
/*
 * SDWA (sub-dword addressing) on VOP1/VOP2/VOPC (gfx9 layout): each source
 * is a byte or word of its register, zero- or sign-extended; the result is
 * written to a byte or word of the destination with the rest zeroed,
 * sign-extended or preserved.
 */
#include "isa_valu.h"

enum { SEL_BYTE0, SEL_BYTE1, SEL_BYTE2, SEL_BYTE3, SEL_WORD0, SEL_WORD1, SEL_DWORD };

static uint32_t select_src(uint32_t v, unsigned sel, bool sext)
{
	if (sel <= SEL_BYTE3) {
		v = (v >> (8 * sel)) & 0xff;
		return sext ? (uint32_t)(int32_t)(int8_t)v : v;
	}
	if (sel <= SEL_WORD1) {
		v = (v >> (16 * (sel - SEL_WORD0))) & 0xffff;
		return sext ? (uint32_t)(int32_t)(int16_t)v : v;
	}
	return v;
}

/* Fill a temporary row with the selected part of source i. */
static bool prepare(struct isa_wave *w, const struct isa_inst *in, unsigned i, unsigned row,
		    unsigned code, unsigned sel, bool sext, uint64_t exec)
{
	uint32_t *t = w->v[row];

	if (sel > SEL_DWORD)
		return false;
	if (code >= ISA_SRC_VGPR) {
		const uint32_t *s = w->v[code - ISA_SRC_VGPR];

		FOR_LANES(exec, l)
		t[l] = select_src(s[l], sel, sext);
	} else {
		uint32_t k =
		    select_src((uint32_t)isa_scalar_operand(w, in, code, ISA_T_B32), sel, sext);

		FOR_LANES(exec, l)
		t[l] = k;
	}
	(void)i;
	return true;
}

enum isa_result isa_valu_sdwa(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	uint32_t ext = in->ext;
	unsigned dst_sel = (ext >> 8) & 7, unused = (ext >> 11) & 3;
	unsigned s0_code = (ext & 0xff) + (((ext >> 23) & 1) ? 0 : ISA_SRC_VGPR);
	unsigned s1_code = in->src[1];
	struct isa_inst op = *in;
	bool vopc = in->fmt == ISA_FMT_VOPC;
	enum isa_result r;

	if (((ext >> 31) & 1) && s1_code >= ISA_SRC_VGPR)
		s1_code -= ISA_SRC_VGPR; /* S1: src1 is a scalar operand */
	if (!prepare(w, in, 0, ISA_ROW_SDWA0, s0_code, (ext >> 16) & 7, (ext >> 19) & 1, exec) ||
	    (in->fmt != ISA_FMT_VOP1 &&
	     !prepare(w, in, 1, ISA_ROW_SDWA1, s1_code, (ext >> 24) & 7, (ext >> 27) & 1, exec)))
		return isa_unimplemented(w, in);
	op.src[0] = ISA_SRC_VGPR + ISA_ROW_SDWA0;
	if (in->fmt != ISA_FMT_VOP1)
		op.src[1] = ISA_SRC_VGPR + ISA_ROW_SDWA1;
	op.neg = (uint8_t)(((ext >> 20) & 1) | ((ext >> 28) & 1) << 1);
	op.abs = (uint8_t)(((ext >> 21) & 1) | ((ext >> 29) & 1) << 1);
	op.flags |= ISA_F_E64;
	if (vopc) {
		/* SD bit: an explicit scalar destination, else VCC */
		if ((ext >> 15) & 1)
			op.sdst = op.dst = (uint16_t)((ext >> 8) & 0x7f);
	} else {
		if (unused > 2)
			return isa_unimplemented(w, in);
		op.omod = (uint8_t)((ext >> 14) & 3);
		if ((ext >> 13) & 1)
			op.flags |= ISA_F_CLAMP;
		op.dst = ISA_SRC_VGPR + ISA_ROW_SDWA_DST;
	}
	r = isa_valu_cmp(w, &op, exec);
	if (r == ISA_UNHANDLED)
		r = isa_valu_int(w, &op, exec);
	if (r == ISA_UNHANDLED)
		r = isa_valu_float(w, &op, exec);
	if (r == ISA_UNHANDLED)
		return isa_unimplemented(w, in);
	if (r != ISA_NEXT || vopc)
		return r;
	{
		const uint32_t *res = w->v[ISA_ROW_SDWA_DST];
		uint32_t *d = w->v[in->dst - ISA_SRC_VGPR];
		unsigned shift = dst_sel <= SEL_BYTE3 ? 8 * dst_sel : 16 * (dst_sel - SEL_WORD0);
		unsigned width = dst_sel <= SEL_BYTE3 ? 8 : 16;

		if (dst_sel > SEL_DWORD)
			return isa_unimplemented(w, in);
		FOR_LANES(exec, l)
		{
			uint32_t v = res[l], m, out;

			if (dst_sel == SEL_DWORD) {
				d[l] = v;
				continue;
			}
			m = ((1u << width) - 1) << shift;
			out = (v << shift) & m;
			if (unused == 2) /* preserve */
				out |= d[l] & ~m;
			else if (unused == 1 && ((v >> (width - 1)) & 1) && shift + width < 32)
				out |= ~0u << (shift + width); /* sign-extend up */
			d[l] = out;
		}
	}
	return ISA_NEXT;
}
