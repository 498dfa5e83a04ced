/* SPDX-License-Identifier: MIT */
/*
 * DPP (data-parallel primitives) on VOP1/VOP2/VOPC: src0 is read from
 * another lane of the same wave (quad permutes, row shifts and rotates,
 * mirrors, wave shifts, row broadcasts), then the operation runs on the
 * lanes that row_mask/bank_mask enable. A source lane outside the row or
 * wave is 0 when BOUND_CTRL is set, else the lane is not written.
 */
#include "isa_valu.h"

/* Source lane of lane l for dpp_ctrl, or -1 when out of range. */
static int dpp_source(unsigned ctrl, unsigned l)
{
	unsigned row = l & ~15u, r = l & 15u, n = ctrl & 15u;

	if (ctrl <= 0xff)
		return (int)((l & ~3u) | ((ctrl >> (2 * (l & 3))) & 3));
	if (ctrl >= 0x101 && ctrl <= 0x10f) /* row_shl */
		return r + n < 16 ? (int)(l + n) : -1;
	if (ctrl >= 0x111 && ctrl <= 0x11f) /* row_shr */
		return r >= n ? (int)(l - n) : -1;
	if (ctrl >= 0x121 && ctrl <= 0x12f) /* row_ror */
		return (int)(row + ((r - n) & 15u));
	switch (ctrl) {
	case 0x130: /* wave_shl:1 */
		return l < 63 ? (int)l + 1 : -1;
	case 0x134: /* wave_rol:1 */
		return (int)((l + 1) & 63);
	case 0x138: /* wave_shr:1 */
		return l > 0 ? (int)l - 1 : -1;
	case 0x13c: /* wave_ror:1 */
		return (int)((l - 1) & 63);
	case 0x140: /* row_mirror */
		return (int)(row + 15 - r);
	case 0x141: /* row_half_mirror */
		return (int)((l & ~7u) + 7 - (l & 7));
	case 0x142: /* row_bcast:15 */
		return l >= 16 ? (int)row - 1 : -1;
	case 0x143: /* row_bcast:31 */
		return l >= 32 ? 31 : -1;
	default:
		return -2; /* reserved */
	}
}

enum isa_result isa_valu_dpp(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	uint32_t ext = in->ext, ctrl = (ext >> 8) & 0x1ff;
	const uint32_t *src = w->v[ext & 0xff];
	uint32_t *tmp = w->v[ISA_ROW_DPP];
	uint64_t enable = 0;
	bool bound_zero = (ext >> 19) & 1;
	struct isa_inst op = *in;
	enum isa_result r;

	for (unsigned l = 0; l < ISA_LANES; l++) {
		int s;

		if (!((ext >> (28 + l / 16)) & 1) || !((ext >> (24 + (l & 15) / 4)) & 1))
			continue; /* row_mask / bank_mask */
		s = dpp_source(ctrl, l);
		if (s == -2)
			return isa_unimplemented(w, in);
		if (s < 0) {
			if (!bound_zero)
				continue;
			tmp[l] = 0;
		} else {
			tmp[l] = src[s];
		}
		enable |= 1ull << l;
	}
	op.src[0] = ISA_SRC_VGPR + ISA_ROW_DPP;
	op.neg = (uint8_t)(((ext >> 20) & 1) | ((ext >> 22) & 1) << 1);
	op.abs = (uint8_t)(((ext >> 21) & 1) | ((ext >> 23) & 1) << 1);
	op.flags |= ISA_F_E64; /* modifiers apply */
	r = isa_valu_cmp(w, &op, exec & enable);
	if (r == ISA_UNHANDLED)
		r = isa_valu_int(w, &op, exec & enable);
	if (r == ISA_UNHANDLED)
		r = isa_valu_float(w, &op, exec & enable);
	if (r == ISA_UNHANDLED)
		return isa_unimplemented(w, in);
	return r;
}
