/* SPDX-License-Identifier: MIT */
/* GPU memory access for the engines, piece by piece through translate. */
#include "engine_mem.h"

#include "device_access.h"

#include <string.h>

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void *engine_mem_span(struct sim_engine_queue *q, uint64_t va, uint64_t max, bool write,
		      uint64_t *len)
{
	const struct sim_gpu_env *env = &q->env;
	uint64_t n, page_n;
	void *p;

	*len = 0;
	if (max == 0)
		return NULL;
	/* Try a whole piece first; most ranges lie in one mapping. */
	n = min_u64(max, ENGINE_MEM_PIECE - (va % ENGINE_MEM_PIECE));
	p = env->translate(env->ctx, va, n, write);
	if (p) {
		*len = n;
		return p;
	}
	/* The piece crosses a mapping boundary or a hole: go page by page so
	 * that the faulting address is exact to the page. */
	page_n = min_u64(max, ENGINE_PAGE_SIZE - (va % ENGINE_PAGE_SIZE));
	if (page_n >= n)
		return NULL;
	p = env->translate(env->ctx, va, page_n, write);
	if (p)
		*len = page_n;
	return p;
}

void *engine_mem_object(struct sim_engine_queue *q, uint64_t va, uint64_t len, bool write)
{
	void *p = NULL;

	if (len && va <= UINT64_MAX - (len - 1))
		p = q->env.translate(q->env.ctx, va, len, write);
	if (!p)
		engine_vm_fault(q, va, write);
	return p;
}

enum engine_status engine_mem_read(struct sim_engine_queue *q, uint64_t va, void *dst, uint64_t len)
{
	uint8_t *out = dst;
	uint64_t n;

	while (len) {
		const void *p;

		if (!engine_checkpoint(q))
			return ENGINE_STOPPED;
		p = engine_mem_span(q, va, len, false, &n);
		if (!p) {
			engine_vm_fault(q, va, false);
			return ENGINE_DEAD;
		}
		DEVICE_ACCESS_BEGIN();
		memcpy(out, p, n);
		DEVICE_ACCESS_END();
		out += n;
		va += n;
		len -= n;
	}
	return ENGINE_OK;
}

enum engine_status engine_mem_write(struct sim_engine_queue *q, uint64_t va, const void *src,
				    uint64_t len)
{
	const uint8_t *in = src;
	uint64_t n;

	while (len) {
		void *p;

		if (!engine_checkpoint(q))
			return ENGINE_STOPPED;
		p = engine_mem_span(q, va, len, true, &n);
		if (!p) {
			engine_vm_fault(q, va, true);
			return ENGINE_DEAD;
		}
		DEVICE_ACCESS_BEGIN();
		memcpy(p, in, n);
		DEVICE_ACCESS_END();
		in += n;
		va += n;
		len -= n;
	}
	return ENGINE_OK;
}

enum engine_status engine_mem_copy(struct sim_engine_queue *q, uint64_t dst, uint64_t src,
				   uint64_t bytes)
{
	uint64_t sn, dn;

	while (bytes) {
		const void *s;
		void *d;

		if (!engine_checkpoint(q))
			return ENGINE_STOPPED;
		s = engine_mem_span(q, src, bytes, false, &sn);
		if (!s) {
			engine_vm_fault(q, src, false);
			return ENGINE_DEAD;
		}
		d = engine_mem_span(q, dst, sn, true, &dn);
		if (!d) {
			engine_vm_fault(q, dst, true);
			return ENGINE_DEAD;
		}
		/* Overlapping ranges are undefined on the GPU; memmove keeps
		 * the host safe whatever the guest asks for. */
		DEVICE_ACCESS_BEGIN();
		memmove(d, s, dn);
		DEVICE_ACCESS_END();
		src += dn;
		dst += dn;
		bytes -= dn;
	}
	return ENGINE_OK;
}

enum engine_status engine_mem_fill32(struct sim_engine_queue *q, uint64_t dst, uint32_t value,
				     uint64_t bytes)
{
	uint8_t pattern[ENGINE_PAGE_SIZE + 4];
	uint64_t done = 0, n;

	for (unsigned i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(value >> (8 * (i & 3)));
	while (done < bytes) {
		void *d;

		if (!engine_checkpoint(q))
			return ENGINE_STOPPED;
		d = engine_mem_span(q, dst, min_u64(bytes - done, ENGINE_PAGE_SIZE), true, &n);
		if (!d) {
			engine_vm_fault(q, dst, true);
			return ENGINE_DEAD;
		}
		DEVICE_ACCESS_BEGIN();
		memcpy(d, pattern + (done & 3), n);
		DEVICE_ACCESS_END();
		dst += n;
		done += n;
	}
	return ENGINE_OK;
}
