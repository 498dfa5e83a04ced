/* SPDX-License-Identifier: MIT */
/* Scalar memory (SMEM): loads and stores through SGPR addresses. */
#include "isa_wave.h"

#define OP(n) ISA_OP_##n

static unsigned dwords_of(unsigned op)
{
	switch (op) {
	case OP(s_load_dword):
	case OP(s_buffer_load_dword):
	case OP(s_store_dword):
	case OP(s_buffer_store_dword):
		return 1;
	case OP(s_load_dwordx2):
	case OP(s_buffer_load_dwordx2):
	case OP(s_store_dwordx2):
	case OP(s_buffer_store_dwordx2):
		return 2;
	case OP(s_load_dwordx4):
	case OP(s_buffer_load_dwordx4):
	case OP(s_store_dwordx4):
	case OP(s_buffer_store_dwordx4):
		return 4;
	case OP(s_load_dwordx8):
	case OP(s_buffer_load_dwordx8):
		return 8;
	case OP(s_load_dwordx16):
	case OP(s_buffer_load_dwordx16):
		return 16;
	default:
		return 0;
	}
}

static bool is_buffer(unsigned op)
{
	return op == OP(s_buffer_load_dword) || op == OP(s_buffer_load_dwordx2) ||
	       op == OP(s_buffer_load_dwordx4) || op == OP(s_buffer_load_dwordx8) ||
	       op == OP(s_buffer_load_dwordx16) || op == OP(s_buffer_store_dword) ||
	       op == OP(s_buffer_store_dwordx2) || op == OP(s_buffer_store_dwordx4);
}

static bool is_store(unsigned op)
{
	return op == OP(s_store_dword) || op == OP(s_store_dwordx2) || op == OP(s_store_dwordx4) ||
	       op == OP(s_buffer_store_dword) || op == OP(s_buffer_store_dwordx2) ||
	       op == OP(s_buffer_store_dwordx4);
}

enum isa_result isa_exec_smem(struct isa_wave *w, const struct isa_inst *in)
{
	unsigned n = dwords_of(in->op);
	uint64_t base, off = 0, limit = UINT64_MAX;
	bool store = is_store(in->op);
	uint32_t buf[16];

	if (in->op == OP(s_dcache_inv) || in->op == OP(s_dcache_wb) ||
	    in->op == OP(s_dcache_inv_vol) || in->op == OP(s_dcache_wb_vol))
		return ISA_NEXT; /* scalar caches are not modelled: memory is coherent */
	if (in->op == OP(s_memtime) || in->op == OP(s_memrealtime)) {
		isa_wr_s64(w, in->dst, engine_gpu_clock(w->ctx->q));
		return ISA_NEXT;
	}
	if (!n)
		return isa_unimplemented(w, in);
	if (in->flags & ISA_F_IMM)
		off = (uint64_t)(int64_t)in->imm;
	if (in->flags & ISA_F_SOE)
		off += w->s[in->src[3] & 0x7f];
	if (is_buffer(in->op)) {
		/* buffer resource: 48-bit base, num_records in bytes (stride 0) */
		base = w->s[in->sdst] | (uint64_t)(w->s[in->sdst + 1] & 0xffff) << 32;
		limit = w->s[in->sdst + 2];
		off &= 0xffffffffull;
	} else {
		base = isa_sreg64(w, in->sdst);
	}
	base = (base + off) & ~3ull;
	if (store) {
		for (unsigned i = 0; i < n; i++)
			buf[i] = in->dst + i < ISA_SREGS ? w->s[in->dst + i] : 0;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t va = base + 4ull * i;
		uint32_t *p;

		if (limit != UINT64_MAX && off + 4ull * i + 4 > limit) {
			if (!store)
				buf[i] = 0; /* out of range reads 0 */
			continue;
		}
		p = isa_mem_host(w->ctx, va, 4, store);
		if (!p)
			return isa_mem_fault(w->ctx, va, store);
		if (store)
			__atomic_store_n(p, buf[i], __ATOMIC_RELAXED);
		else
			buf[i] = __atomic_load_n(p, __ATOMIC_RELAXED);
	}
	if (!store)
		for (unsigned i = 0; i < n; i++)
			isa_wr_s32(w, in->dst + i, buf[i]);
	return ISA_NEXT;
}
