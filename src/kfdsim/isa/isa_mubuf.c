/* SPDX-License-Identifier: MIT */
/*
 * MUBUF: buffer loads, stores and atomics through a 128-bit buffer
 * resource (V#) in four SGPRs. A resource with ADD_TID_ENABLE is taken
 * as the lane-private (scratch) segment, which is what the private
 * segment buffer the dispatch hands out is (its base and the SGPR offset,
 * e.g. LLVM's stack pointer, are wave-scaled: 64 times a lane's private
 * byte offset, as the hardware's swizzle makes them); other resources address
 * global memory as base + offset (+ index * stride), with out-of-range
 * accesses (beyond num_records) reading 0 and dropping writes.
 */
#include "isa_vmem.h"

#define RSRC_ADD_TID_ENABLE (1u << 23)

enum isa_result isa_exec_mubuf(struct isa_wave *w, const struct isa_inst *in)
{
	const struct memop *m = isa_memop(in->op);
	uint64_t exec = isa_exec(w);
	const uint32_t *rs = &w->s[in->sdst];
	uint64_t base = rs[0] | (uint64_t)(rs[1] & 0xffff) << 32;
	uint32_t stride = (rs[1] >> 16) & 0x3fff, num_records = rs[2];
	bool priv = rs[3] & RSRC_ADD_TID_ENABLE;
	uint32_t soff = (uint32_t)isa_scalar_operand(w, in, in->src[3], ISA_T_B32);
	unsigned v = in->src[0] - ISA_SRC_VGPR;

	/* cache write-back / invalidate: memory is coherent, nothing to do */
	if (in->op == ISA_OP_buffer_wbinvl1 || in->op == ISA_OP_buffer_wbinvl1_vol ||
	    in->op == ISA_OP_buffer_invl2 || in->op == ISA_OP_buffer_wbl2)
		return ISA_NEXT;
	if (in->fmt == ISA_FMT_MUBUF && in->hwop < 16)
		return isa_exec_mubuf_format(w, in);
	if (in->fmt != ISA_FMT_MUBUF || m->kind == MK_NONE || (in->flags & (ISA_F_LDS | ISA_F_TFE)))
		return isa_unimplemented(w, in);
	for (unsigned l = 0; l < ISA_LANES; l++) {
		uint64_t index = 0, offset = (uint32_t)in->imm, addr;
		enum isa_result r;
		unsigned vi = v;

		if (!(exec >> l & 1))
			continue;
		if (in->flags & ISA_F_IDXEN)
			index = w->v[vi++][l];
		if (in->flags & ISA_F_OFFEN)
			offset += w->v[vi][l];
		if (priv) {
			/* swizzled: base and soffset are wave-scaled byte offsets
			 * (a lane's byte k of dword d sits at d * 256 + lane * 4
			 * + k), so they move each lane's private address by a
			 * 64th; the offsets are the lane's own */
			addr = ((base + soff) >> 6) + offset;
			r = isa_vmem_lane(w, in, m, l, ISA_SPACE_PRIVATE, (uint32_t)addr,
					  in->flags & ISA_F_GLC);
		} else {
			uint64_t rel = index * stride + offset;

			/* raw buffers (stride 0) check offset, structured ones index */
			if (stride ? index >= num_records : rel + m->bytes > num_records) {
				if (m->kind != MK_STORE) {
					/* reads return 0 */
					for (unsigned i = 0; i < (m->bytes + 3u) / 4u; i++)
						if (m->kind == MK_LOAD || (in->flags & ISA_F_GLC))
							w->v[(in->dst - ISA_SRC_VGPR + i) %
							     ISA_VREGS][l] = 0;
				}
				continue;
			}
			addr = base + soff + rel;
			r = isa_vmem_lane(w, in, m, l, ISA_SPACE_GLOBAL, addr,
					  in->flags & ISA_F_GLC);
		}
		if (r != ISA_NEXT)
			return r;
	}
	return ISA_NEXT;
}
