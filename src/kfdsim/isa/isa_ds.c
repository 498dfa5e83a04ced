/* SPDX-License-Identifier: MIT */
/*
 * LDS instructions (DS). The waves of a workgroup run on one engine
 * thread, so LDS accesses are naturally atomic. Out-of-range addresses
 * read 0 and drop writes. GDS and the append/consume counters are not
 * modelled.
 */
#include "isa_memop.h"
#include "isa_wave.h"

#define OP(n) ISA_OP_##n

static uint32_t *vrow(struct isa_wave *w, unsigned code, unsigned i)
{
	return w->v[(code - ISA_SRC_VGPR + i) % ISA_VREGS];
}

static void lds_read(struct isa_ctx *c, uint64_t addr, void *dst, unsigned n)
{
	uint8_t *p = isa_lds(c, addr, n);

	if (p)
		memcpy(dst, p, n);
	else
		memset(dst, 0, n);
}

static void lds_write(struct isa_ctx *c, uint64_t addr, const void *src, unsigned n)
{
	uint8_t *p = isa_lds(c, addr, n);

	if (p)
		memcpy(p, src, n);
}

static enum isa_result lane_xfer(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	uint32_t tmp[ISA_LANES] = {0};
	uint32_t *a = vrow(w, in->src[0], 0), *d0 = vrow(w, in->src[1], 0),
		 *dst = vrow(w, in->dst, 0);
	unsigned off = (unsigned)in->imm;

	switch (in->op) {
	case OP(ds_bpermute_b32):
		for (unsigned l = 0; l < ISA_LANES; l++)
			if (exec >> l & 1)
				tmp[l] = d0[((a[l] + off) >> 2) & 63];
		break;
	case OP(ds_permute_b32):
		for (unsigned l = 0; l < ISA_LANES; l++)
			if (exec >> l & 1)
				tmp[((a[l] + off) >> 2) & 63] = d0[l];
		break;
	case OP(ds_swizzle_b32):
		for (unsigned l = 0; l < ISA_LANES; l++) {
			unsigned src;

			if (!(exec >> l & 1))
				continue;
			if (off & 0x8000) {
				src = (l & ~3u) | ((off >> (2 * (l & 3))) & 3);
			} else {
				unsigned and_m = off & 31, or_m = (off >> 5) & 31,
					 xor_m = (off >> 10) & 31;

				src = (l & 32) | ((((l & 31) & and_m) | or_m) ^ xor_m);
			}
			tmp[l] = d0[src];
		}
		break;
	default:
		return ISA_UNHANDLED;
	}
	for (unsigned l = 0; l < ISA_LANES; l++)
		if (exec >> l & 1)
			dst[l] = tmp[l];
	return ISA_NEXT;
}

enum isa_result isa_exec_ds(struct isa_wave *w, const struct isa_inst *in)
{
	const struct memop *m = isa_memop(in->op);
	uint64_t exec = isa_exec(w);
	struct isa_ctx *c = w->ctx;
	uint32_t *a = vrow(w, in->src[0], 0);
	unsigned off0 = in->imm & 0xff, off1 = (in->imm >> 8) & 0xff;
	enum isa_result r;

	if (in->flags & ISA_F_GDS)
		return isa_unimplemented(w, in);
	r = lane_xfer(w, in, exec);
	if (r != ISA_UNHANDLED)
		return r;
	if (m->kind == MK_NONE)
		return isa_unimplemented(w, in);
	for (unsigned l = 0; l < ISA_LANES; l++) {
		unsigned dw = (m->bytes + 3u) / 4u;
		uint64_t base = a[l];

		if (!(exec >> l & 1))
			continue;
		if (m->two) {
			/* two elements at offset0 and offset1, in element units */
			uint64_t a0 = base + (uint64_t)off0 * m->bytes * m->two;
			uint64_t a1 = base + (uint64_t)off1 * m->bytes * m->two;
			uint32_t buf[4];

			if (m->kind == MK_LOAD) {
				lds_read(c, a0, buf, m->bytes);
				lds_read(c, a1, buf + dw, m->bytes);
				for (unsigned i = 0; i < 2 * dw; i++)
					vrow(w, in->dst, i)[l] = buf[i];
			} else {
				for (unsigned i = 0; i < dw; i++) {
					buf[i] = vrow(w, in->src[1], i)[l];
					buf[dw + i] = vrow(w, in->src[2], i)[l];
				}
				lds_write(c, a0, buf, m->bytes);
				lds_write(c, a1, buf + dw, m->bytes);
			}
			continue;
		}
		base += (unsigned)in->imm;
		if (m->kind == MK_LOAD) {
			uint32_t buf[4] = {0};

			lds_read(c, base, buf, m->bytes);
			if (m->bytes < 4) {
				uint32_t v = buf[0];

				if (m->sign)
					v = m->bytes == 1 ? (uint32_t)(int32_t)(int8_t)v
							  : (uint32_t)(int32_t)(int16_t)v;
				if (m->d16) {
					uint32_t old = vrow(w, in->dst, 0)[l];

					v &= 0xffff;
					v = m->d16_hi ? (old & 0xffff) | v << 16
						      : (old & 0xffff0000u) | v;
				}
				buf[0] = v;
			}
			for (unsigned i = 0; i < dw; i++)
				vrow(w, in->dst, i)[l] = buf[i];
		} else if (m->kind == MK_STORE) {
			uint32_t buf[4];

			for (unsigned i = 0; i < dw; i++)
				buf[i] = vrow(w, in->src[1], i)[l];
			if (m->d16_hi)
				buf[0] >>= 16;
			lds_write(c, base, buf, m->bytes);
		} else {
			/* atomics: data0 (compare / mask first for cmpst, mskor) */
			uint64_t d0 = vrow(w, in->src[1], 0)[l], d1 = vrow(w, in->src[2], 0)[l];
			uint64_t old = 0, data, cmp;
			uint8_t *p;

			if (dw == 2) {
				d0 |= (uint64_t)vrow(w, in->src[1], 1)[l] << 32;
				d1 |= (uint64_t)vrow(w, in->src[2], 1)[l] << 32;
			}
			data = d0;
			cmp = 0;
			if (m->aop == AO_CMPSWAP) {
				data = d1;
				cmp = d0;
			} else if (m->aop == AO_MSKOR) {
				data = d1;
				cmp = d0;
			}
			p = isa_lds(c, base, m->bytes);
			if (p && !(base & (m->bytes - 1)))
				old = isa_atomic_rmw(p, m->bytes, m->aop, m->flt, data, cmp);
			if (m->rtn) {
				vrow(w, in->dst, 0)[l] = (uint32_t)old;
				if (dw == 2)
					vrow(w, in->dst, 1)[l] = (uint32_t)(old >> 32);
			}
		}
	}
	return ISA_NEXT;
}
