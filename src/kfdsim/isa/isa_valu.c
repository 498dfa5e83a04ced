/* SPDX-License-Identifier: MIT */
/* Vector ALU entry: routes an instruction to its family's executor. */
#include "isa_valu.h"

enum isa_result isa_exec_valu(struct isa_wave *w, const struct isa_inst *in)
{
	uint64_t exec = isa_exec(w);
	enum isa_result r;

	if (in->fmt != ISA_FMT_VOP3 && in->fmt != ISA_FMT_VOP3P) {
		if (in->src[0] == ISA_SRC_DPP)
			return isa_valu_dpp(w, in, exec);
		if (in->src[0] == ISA_SRC_SDWA)
			return isa_valu_sdwa(w, in, exec);
	}
	/* op_sel on a VOP3 op that has none on gfx9: not modelled */
	if (in->fmt == ISA_FMT_VOP3 && in->opsel && !isa_valu16_has_opsel(in->op))
		return isa_unimplemented(w, in);
	if (in->fmt == ISA_FMT_VOP3P && isa_is_mfma(in->op))
		return isa_valu_mfma(w, in, exec);
	r = isa_valu_cmp(w, in, exec);
	if (r == ISA_UNHANDLED)
		r = isa_valu_int(w, in, exec);
	if (r == ISA_UNHANDLED)
		r = isa_valu_float(w, in, exec);
	if (r == ISA_UNHANDLED)
		r = isa_valu_16(w, in, exec);
	if (r == ISA_UNHANDLED)
		return isa_unimplemented(w, in);
	return r;
}
