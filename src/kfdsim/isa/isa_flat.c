/* SPDX-License-Identifier: MIT */
/*
 * FLAT, GLOBAL and SCRATCH instructions. A FLAT address in the LDS or
 * private aperture goes to the workgroup's LDS or the lane's private
 * segment; everything else (and GLOBAL) is a GPU virtual address. SCRATCH
 * addresses are offsets in the lane's private segment (the model keeps
 * each wave's scratch apart, so FLAT_SCRATCH is not needed to find it).
 */
#include "isa_vmem.h"

enum isa_result isa_exec_flat(struct isa_wave *w, const struct isa_inst *in)
{
	const struct memop *m = isa_memop(in->op);
	uint64_t exec = isa_exec(w);
	unsigned a = in->src[0] - ISA_SRC_VGPR;

	if (m->kind == MK_NONE || (in->flags & ISA_F_LDS))
		return isa_unimplemented(w, in);
	for (unsigned l = 0; l < ISA_LANES; l++) {
		enum isa_space space = ISA_SPACE_GLOBAL;
		enum isa_result r;
		uint64_t addr;

		if (!(exec >> l & 1))
			continue;
		if (in->fmt == ISA_FMT_SCRATCH) {
			addr = (in->flags & ISA_F_SADDR) ? w->s[in->sdst] : w->v[a][l];
			addr = (uint32_t)(addr + (uint64_t)(int64_t)in->imm);
			space = ISA_SPACE_PRIVATE;
		} else if (in->fmt == ISA_FMT_GLOBAL && (in->flags & ISA_F_SADDR)) {
			addr = isa_sreg64(w, in->sdst) + w->v[a][l] + (uint64_t)(int64_t)in->imm;
		} else {
			addr = (w->v[a][l] | (uint64_t)w->v[a + 1][l] << 32) +
			       (uint64_t)(int64_t)in->imm;
			if (in->fmt == ISA_FMT_FLAT) {
				enum isa_flat_kind k = isa_flat_kind(addr);

				if (k == ISA_FLAT_LDS) {
					space = ISA_SPACE_LDS;
					addr -= ISA_SHARED_APERTURE;
				} else if (k == ISA_FLAT_PRIVATE) {
					space = ISA_SPACE_PRIVATE;
					addr -= ISA_PRIVATE_APERTURE;
				}
			}
		}
		r = isa_vmem_lane(w, in, m, l, space, addr, in->flags & ISA_F_GLC);
		if (r != ISA_NEXT)
			return r;
	}
	return ISA_NEXT;
}
