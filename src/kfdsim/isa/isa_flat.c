/* SPDX-License-Identifier: MIT */
/*
 * FLAT, GLOBAL and SCRATCH instructions. A FLAT address in the LDS or
 * private aperture goes to the workgroup's LDS or the lane's private
 * segment; everything else (and GLOBAL) is a GPU virtual address. SCRATCH
 * addresses are offsets in the lane's private segment (the model keeps
 * each wave's scratch apart, so FLAT_SCRATCH is not needed to find it).
 */
#include "isa_vmem.h"

/* Loads and stores whose lanes all fall in one translated chunk of global
 * memory move with one translation (the common, coalesced case). */
static bool coalesced(struct isa_wave *w, const struct isa_inst *in, const struct memop *m,
		      uint64_t exec, const uint64_t *addr)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned dw = m->bytes / 4;
	uint8_t *base;

	if ((m->kind != MK_LOAD && m->kind != MK_STORE) || m->bytes < 4 || m->d16)
		return false;
	FOR_EACH_ACTIVE(exec, l)
	{
		lo = addr[l] < lo ? addr[l] : lo;
		hi = addr[l] > hi ? addr[l] : hi;
	}
	if (hi - lo >= ISA_TLB_CHUNK)
		return false;
	base = isa_mem_host(w->ctx, lo, hi - lo + m->bytes, m->kind == MK_STORE);
	if (!base)
		return false; /* the per-lane path finds the faulting lane */
	if (m->kind == MK_LOAD) {
		FOR_EACH_ACTIVE(exec, l)
		for (unsigned i = 0; i < dw; i++)
			memcpy(&w->v[(in->dst - ISA_SRC_VGPR + i) % ISA_VREGS][l],
			       base + (addr[l] - lo) + 4 * i, 4);
	} else {
		FOR_EACH_ACTIVE(exec, l)
		for (unsigned i = 0; i < dw; i++)
			memcpy(base + (addr[l] - lo) + 4 * i,
			       &w->v[(in->src[1] - ISA_SRC_VGPR + i) % ISA_VREGS][l], 4);
	}
	return true;
}

enum isa_result isa_exec_flat(struct isa_wave *w, const struct isa_inst *in)
{
	const struct memop *m = isa_memop(in->op);
	uint64_t exec = isa_exec(w), addr[ISA_LANES];
	uint8_t space[ISA_LANES];
	unsigned a = in->src[0] - ISA_SRC_VGPR;
	bool all_global = true;

	if (m->kind == MK_NONE || (in->flags & ISA_F_LDS))
		return isa_unimplemented(w, in);
	FOR_EACH_ACTIVE(exec, l)
	{
		space[l] = ISA_SPACE_GLOBAL;
		if (in->fmt == ISA_FMT_SCRATCH) {
			addr[l] = (in->flags & ISA_F_SADDR) ? w->s[in->sdst] : w->v[a][l];
			addr[l] = (uint32_t)(addr[l] + (uint64_t)(int64_t)in->imm);
			space[l] = ISA_SPACE_PRIVATE;
		} else if (in->fmt == ISA_FMT_GLOBAL && (in->flags & ISA_F_SADDR)) {
			addr[l] = isa_sreg64(w, in->sdst) + w->v[a][l] + (uint64_t)(int64_t)in->imm;
		} else {
			addr[l] = (w->v[a][l] | (uint64_t)w->v[a + 1][l] << 32) +
				  (uint64_t)(int64_t)in->imm;
			if (in->fmt == ISA_FMT_FLAT) {
				enum isa_flat_kind k = isa_flat_kind(addr[l]);

				if (k == ISA_FLAT_LDS) {
					space[l] = ISA_SPACE_LDS;
					addr[l] -= ISA_SHARED_APERTURE;
				} else if (k == ISA_FLAT_PRIVATE) {
					space[l] = ISA_SPACE_PRIVATE;
					addr[l] -= ISA_PRIVATE_APERTURE;
				}
			}
		}
		all_global &= space[l] == ISA_SPACE_GLOBAL;
	}
	if (exec && all_global && coalesced(w, in, m, exec, addr))
		return ISA_NEXT;
	FOR_EACH_ACTIVE(exec, l)
	{
		enum isa_result r = isa_vmem_lane(w, in, m, l, (enum isa_space)space[l], addr[l],
						  in->flags & ISA_F_GLC);

		if (r != ISA_NEXT)
			return r;
	}
	return ISA_NEXT;
}
