/* SPDX-License-Identifier: MIT */
/* Per-lane loads, stores and atomics for FLAT/GLOBAL/SCRATCH/MUBUF. */
#include "isa_vmem.h"

static void *lane_ptr(struct isa_wave *w, unsigned lane, enum isa_space space, uint64_t addr,
		      unsigned len, bool write, bool *fault)
{
	*fault = false;
	switch (space) {
	case ISA_SPACE_LDS:
		return isa_lds(w->ctx, addr, len);
	case ISA_SPACE_PRIVATE:
		return isa_private(w, lane, addr, len);
	default: {
		void *p = isa_mem_host(w->ctx, addr, len, write);

		*fault = p == NULL;
		return p;
	}
	}
}

static uint32_t vreg(struct isa_wave *w, unsigned code, unsigned i, unsigned lane)
{
	unsigned r = code - ISA_SRC_VGPR + i;

	return r < ISA_VREGS ? w->v[r][lane] : 0;
}

static void set_vreg(struct isa_wave *w, unsigned code, unsigned i, unsigned lane, uint32_t v)
{
	unsigned r = code - ISA_SRC_VGPR + i;

	if (r < ISA_VREGS)
		w->v[r][lane] = v;
}

enum isa_result isa_vmem_lane(struct isa_wave *w, const struct isa_inst *in, const struct memop *m,
			      unsigned lane, enum isa_space space, uint64_t addr, bool ret)
{
	unsigned bytes = m->bytes;
	bool fault;
	uint8_t *p;

	if (m->kind == MK_LOAD) {
		uint8_t buf[16] = {0};

		p = lane_ptr(w, lane, space, addr, bytes, false, &fault);
		if (fault)
			return isa_mem_fault(w->ctx, addr, false);
		if (p)
			memcpy(buf, p, bytes);
		if (bytes >= 4) {
			for (unsigned i = 0; i < bytes / 4; i++) {
				uint32_t v;

				memcpy(&v, buf + 4 * i, 4);
				set_vreg(w, in->dst, i, lane, v);
			}
			return ISA_NEXT;
		}
		{
			uint32_t v = bytes == 1 ? buf[0] : (uint32_t)(buf[0] | buf[1] << 8);

			if (m->sign)
				v = bytes == 1 ? (uint32_t)(int32_t)(int8_t)v
					       : (uint32_t)(int32_t)(int16_t)v;
			if (m->d16) {
				uint32_t old = vreg(w, in->dst, 0, lane);

				v &= 0xffff;
				v = m->d16_hi ? (old & 0xffff) | v << 16 : (old & 0xffff0000u) | v;
			}
			set_vreg(w, in->dst, 0, lane, v);
		}
		return ISA_NEXT;
	}
	if (m->kind == MK_STORE) {
		uint8_t buf[16];

		for (unsigned i = 0; i < (bytes + 3) / 4; i++) {
			uint32_t v = vreg(w, in->src[1], i, lane);

			if (m->d16_hi)
				v >>= 16;
			memcpy(buf + 4 * i, &v, 4);
		}
		p = lane_ptr(w, lane, space, addr, bytes, true, &fault);
		if (fault)
			return isa_mem_fault(w->ctx, addr, true);
		if (p)
			memcpy(p, buf, bytes);
		return ISA_NEXT;
	}
	/* atomics: data, then the compare value (cmpswap) */
	{
		unsigned dw = bytes / 4;
		uint64_t data = vreg(w, in->src[1], 0, lane), cmp = 0, old;

		if (dw == 2)
			data |= (uint64_t)vreg(w, in->src[1], 1, lane) << 32;
		if (m->aop == AO_CMPSWAP) {
			cmp = vreg(w, in->src[1], dw, lane);
			if (dw == 2)
				cmp |= (uint64_t)vreg(w, in->src[1], dw + 1, lane) << 32;
		}
		if (addr & (bytes - 1)) /* misaligned atomics: a memory violation */
			return isa_mem_fault(w->ctx, addr, true);
		p = lane_ptr(w, lane, space, addr, bytes, true, &fault);
		if (fault)
			return isa_mem_fault(w->ctx, addr, true);
		if (!p) {
			old = 0;
		} else if (((uintptr_t)p & (bytes - 1)) != 0) {
			return isa_mem_fault(w->ctx, addr, true);
		} else {
			old = isa_atomic_rmw(p, bytes, m->aop, m->flt, data, cmp);
		}
		if (ret) {
			set_vreg(w, in->dst, 0, lane, (uint32_t)old);
			if (dw == 2)
				set_vreg(w, in->dst, 1, lane, (uint32_t)(old >> 32));
		}
		return ISA_NEXT;
	}
}
