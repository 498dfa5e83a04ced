/* SPDX-License-Identifier: MIT */
/*
 * Memory of the interpreter: global memory through the queue's GPU
 * mappings (env->translate) with a small translation cache that is
 * dropped at every preemption point (the engine contract: translated
 * pointers live until the next one), the workgroup's LDS and the waves'
 * lane-private segments.
 */
#include "isa_wave.h"

void isa_mem_flush(struct isa_ctx *c)
{
	for (unsigned i = 0; i < ISA_TLB_SIZE; i++)
		c->tlb[i].base = UINT64_MAX;
}

void *isa_mem_host(struct isa_ctx *c, uint64_t va, uint64_t len, bool write)
{
	const struct sim_gpu_env *env = &c->q->env;
	uint64_t base = va & ~(ISA_TLB_CHUNK - 1);
	struct isa_tlb_entry *e = &c->tlb[(va / ISA_TLB_CHUNK) % ISA_TLB_SIZE];
	void *p;

	if (len == 0 || va > UINT64_MAX - (len - 1))
		return NULL;
	if (va - base + len <= ISA_TLB_CHUNK) {
		if (e->base == base && (e->write || !write))
			return e->host + (va - base);
		p = env->translate(env->ctx, base, ISA_TLB_CHUNK, write);
		if (p) {
			e->base = base;
			e->host = p;
			e->write = write;
			return (uint8_t *)p + (va - base);
		}
	}
	/* the chunk is not inside one mapping: translate exactly */
	return env->translate(env->ctx, va, len, write);
}

enum isa_result isa_mem_fault(struct isa_ctx *c, uint64_t va, bool write)
{
	c->fault_va = va;
	c->fault_write = write;
	if (!c->defer_reports)
		engine_vm_fault(c->q, va, write);
	return ISA_FAULT;
}

uint8_t *isa_private(struct isa_wave *w, unsigned lane, uint64_t addr, unsigned len)
{
	uint32_t size = w->ctx->priv_size;

	if (!w->priv || addr > size || len > size - addr)
		return NULL;
	return w->priv + (size_t)lane * size + addr;
}

uint8_t *isa_lds(struct isa_ctx *c, uint64_t addr, unsigned len)
{
	if (addr > c->lds_size || len > c->lds_size - addr)
		return NULL;
	return c->lds + addr;
}
