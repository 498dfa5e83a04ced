/* SPDX-License-Identifier: MIT */
/*
 * SDMA packet processor for SDMA v4 and v5 (gfx9, gfx10): a byte ring whose
 * read and write pointers are 64-bit monotonic byte offsets (ROCr's
 * BlitSdmaV4/V5 write the same offset to the write pointer and the
 * doorbell). Field widths that differ between SDMA versions come from the
 * queue's struct sim_sdma_format.
 */
#include "engine_internal.h"
#include "engine_mem.h"
#include "sdma_packets.h"

/* Count widths per SDMA IP version. COPY_LINEAR: 22 bits on SDMA 4.0-4.2
 * and 5.0 (vega10/navi10 packet headers); 30 bits on 4.4 (gfx90a, gfx94x)
 * and 5.2 (gfx103x), where ROCr 6.x fills the wider count_ext field
 * (up to 0x3fffffff bytes per packet). CONSTANT_FILL: 22 bits on all of
 * them (ROCr splits fills at 0x3fffe0 bytes). */
static const struct {
	uint8_t major, minor;
	struct sim_sdma_format fmt;
} sdma_formats[] = {
    {4, 0, {22, 22}}, {4, 1, {22, 22}}, {4, 2, {22, 22}},
    {4, 4, {30, 22}}, {5, 0, {22, 22}}, {5, 2, {30, 22}},
};

bool sim_sdma_format_for_ip(uint32_t ip_major, uint32_t ip_minor, struct sim_sdma_format *out)
{
	for (size_t i = 0; i < sizeof(sdma_formats) / sizeof(sdma_formats[0]); i++) {
		if (sdma_formats[i].major == ip_major && sdma_formats[i].minor == ip_minor) {
			*out = sdma_formats[i].fmt;
			return true;
		}
	}
	return false;
}

/* Read `n` dwords of the ring starting at byte offset `off` (wrapping). */
static enum engine_status ring_read(struct sim_engine_queue *q, uint64_t off, uint32_t *dw,
				    unsigned n)
{
	const uint64_t mask = q->desc.ring_size - 1;

	while (n) {
		uint64_t at = off & mask;
		uint64_t room = (q->desc.ring_size - at) / 4;
		unsigned take = n < room ? n : (unsigned)room;
		const uint32_t *p;

		p = engine_mem_object(q, q->desc.ring_va + at, (uint64_t)take * 4, false);
		if (!p)
			return ENGINE_DEAD;
		for (unsigned i = 0; i < take; i++)
			dw[i] = __atomic_load_n(&p[i], __ATOMIC_RELAXED);
		dw += take;
		n -= take;
		off += (uint64_t)take * 4;
	}
	return ENGINE_OK;
}

/* Packet length in dwords from its header, 0 for an unknown packet. */
static unsigned packet_dwords(uint32_t h)
{
	switch (sdma_hdr_op(h)) {
	case SDMA_OP_NOP:
		return 1 + sdma_nop_count(h);
	case SDMA_OP_COPY:
		if (sdma_hdr_subop(h) == SDMA_SUBOP_COPY_LINEAR)
			return SDMA_COPY_LINEAR_DW;
		if (sdma_hdr_subop(h) == SDMA_SUBOP_COPY_LINEAR_RECT)
			return SDMA_COPY_RECT_DW;
		return 0;
	case SDMA_OP_FENCE:
		return SDMA_FENCE_DW;
	case SDMA_OP_TRAP:
		return SDMA_TRAP_DW;
	case SDMA_OP_POLL_REGMEM:
		return SDMA_POLL_REGMEM_DW;
	case SDMA_OP_ATOMIC:
		return SDMA_ATOMIC_DW;
	case SDMA_OP_CONST_FILL:
		return SDMA_CONST_FILL_DW;
	case SDMA_OP_TIMESTAMP:
		return sdma_hdr_subop(h) <= SDMA_SUBOP_TIMESTAMP_GET_GLOBAL ? SDMA_TIMESTAMP_DW : 0;
	case SDMA_OP_GCR:
		return sdma_hdr_subop(h) == SDMA_SUBOP_USER_GCR ? SDMA_GCR_DW : 0;
	default:
		return 0;
	}
}

static enum engine_status invalid(struct sim_engine_queue *q)
{
	engine_queue_error(q, SIM_QERR_SDMA_INVALID_PACKET);
	return ENGINE_DEAD;
}

static enum engine_status do_copy(struct sim_engine_queue *q, const uint32_t *p)
{
	uint64_t count;

	if (!sdma_count_bytes(p[1], q->desc.sdma.copy_count_bits, &count))
		return invalid(q);
	return engine_mem_copy(q, sdma_addr(p[5], p[6]), sdma_addr(p[3], p[4]), count);
}

static enum engine_status do_fill(struct sim_engine_queue *q, const uint32_t *p)
{
	uint64_t dst = sdma_addr(p[1], p[2]);
	uint64_t count;
	uint32_t data = p[3];

	if (!sdma_count_bytes(p[4], q->desc.sdma.fill_count_bits, &count))
		return invalid(q);

	switch (sdma_fill_size(p[0])) {
	case 0: /* bytes */
		data = (data & 0xff) * 0x01010101u;
		break;
	case 2: /* dwords: the byte count rounds up to whole dwords */
		count = (count + 3) & ~3ull;
		break;
	default:
		return invalid(q);
	}
	return engine_mem_fill32(q, dst, data, count);
}

/* Linear sub-window copy: rect_x+1 elements per row, rect_y+1 rows per
 * slice, rect_z+1 slices; element (x, y, z) of a side lives at
 * base + (off_x + x + (off_y + y) * pitch + (off_z + z) * slice) * esize. */
static enum engine_status do_copy_rect(struct sim_engine_queue *q, const uint32_t *p)
{
	uint32_t element = sdma_rect_element(p[0]);
	uint64_t esize, src, dst, spitch, sslice, dpitch, dslice, row;
	uint32_t sx, sy, sz, dx, dy, dz, ny, nz;

	if (element > 4)
		return invalid(q);
	esize = 1ull << element;
	src = sdma_addr(p[1], p[2]);
	sx = sdma_rect_lo14(p[3]);
	sy = sdma_rect_hi14(p[3]);
	sz = sdma_rect_z11(p[4]);
	spitch = (uint64_t)sdma_rect_pitch(p[4]) + 1;
	sslice = (uint64_t)sdma_rect_slice(p[5]) + 1;
	dst = sdma_addr(p[6], p[7]);
	dx = sdma_rect_lo14(p[8]);
	dy = sdma_rect_hi14(p[8]);
	dz = sdma_rect_z11(p[9]);
	dpitch = (uint64_t)sdma_rect_pitch(p[9]) + 1;
	dslice = (uint64_t)sdma_rect_slice(p[10]) + 1;
	row = ((uint64_t)sdma_rect_lo14(p[11]) + 1) * esize;
	ny = sdma_rect_hi14(p[11]) + 1;
	nz = sdma_rect_z11(p[12]) + 1;

	/* All factors are bounded by their field widths: no overflow before
	 * the (wrapping, then untranslatable) address addition. */
	for (uint32_t z = 0; z < nz; z++) {
		for (uint32_t y = 0; y < ny; y++) {
			uint64_t s = src + (sx + (sy + y) * spitch + (sz + z) * sslice) * esize;
			uint64_t d = dst + (dx + (dy + y) * dpitch + (dz + z) * dslice) * esize;
			enum engine_status st = engine_mem_copy(q, d, s, row);

			if (st != ENGINE_OK)
				return st;
		}
	}
	return ENGINE_OK;
}

static bool poll_compare(uint32_t func, uint32_t v, uint32_t ref)
{
	switch (func) {
	case 0:
		return true;
	case 1:
		return v < ref;
	case 2:
		return v <= ref;
	case 3:
		return v == ref;
	case 4:
		return v != ref;
	case 5:
		return v >= ref;
	case 6:
		return v > ref;
	default:
		return false;
	}
}

/* ENGINE_RETRY while the condition does not hold. */
static enum engine_status do_poll(struct sim_engine_queue *q, const uint32_t *p)
{
	uint32_t func = sdma_poll_func(p[0]), retry = sdma_poll_retry(p[5]);
	const uint32_t *mem;
	uint32_t v;

	/* Register polls (ROCr's gfx9 HDP flush is one) and HDP flushes: no
	 * registers are modelled and memory is coherent, so they pass. */
	if (sdma_poll_hdp_flush(p[0]) || !sdma_poll_mem(p[0]))
		return ENGINE_OK;
	if (func == 7)
		return invalid(q);
	mem = engine_mem_object(q, sdma_addr(p[1], p[2]) & ~3ull, 4, false);
	if (!mem)
		return ENGINE_DEAD;
	v = __atomic_load_n(mem, __ATOMIC_ACQUIRE);
	if (poll_compare(func, v & p[4], p[3]))
		return ENGINE_OK;
	if (retry != SDMA_POLL_RETRY_FOREVER && q->poll_tries++ >= retry)
		return ENGINE_OK; /* finite retries exhausted: move on */
	return ENGINE_RETRY;
}

static enum engine_status do_atomic(struct sim_engine_queue *q, const uint32_t *p)
{
	uint64_t *mem;

	if (sdma_atomic_op(p[0]) != SDMA_ATOMIC_ADD64)
		return invalid(q);
	mem = engine_mem_object(q, sdma_addr(p[1], p[2]) & ~7ull, 8, true);
	if (!mem)
		return ENGINE_DEAD;
	__atomic_fetch_add(mem, sdma_addr(p[3], p[4]), __ATOMIC_ACQ_REL);
	return ENGINE_OK;
}

static enum engine_status execute(struct sim_engine_queue *q, const uint32_t *p)
{
	uint32_t *mem32;
	uint64_t *mem64;

	switch (sdma_hdr_op(p[0])) {
	case SDMA_OP_NOP:
	case SDMA_OP_GCR: /* cache writeback/invalidate: host memory is coherent */
		return ENGINE_OK;
	case SDMA_OP_COPY:
		if (sdma_hdr_subop(p[0]) == SDMA_SUBOP_COPY_LINEAR_RECT)
			return do_copy_rect(q, p);
		return do_copy(q, p);
	case SDMA_OP_FENCE:
		mem32 = engine_mem_object(q, sdma_addr(p[1], p[2]) & ~3ull, 4, true);
		if (!mem32)
			return ENGINE_DEAD;
		__atomic_store_n(mem32, p[3], __ATOMIC_RELEASE);
		return ENGINE_OK;
	case SDMA_OP_TRAP:
		return engine_raise_interrupt(q, p[1] & SDMA_TRAP_INT_CTX_MASK) ? ENGINE_OK
										: ENGINE_STOPPED;
	case SDMA_OP_POLL_REGMEM:
		return do_poll(q, p);
	case SDMA_OP_ATOMIC:
		return do_atomic(q, p);
	case SDMA_OP_CONST_FILL:
		return do_fill(q, p);
	case SDMA_OP_TIMESTAMP:
		if (sdma_hdr_subop(p[0]) == SDMA_SUBOP_TIMESTAMP_SET_LOCAL)
			return ENGINE_OK; /* no separate local counter modelled */
		mem64 = engine_mem_object(q, sdma_addr(p[1], p[2]) & ~7ull, 8, true);
		if (!mem64)
			return ENGINE_DEAD;
		__atomic_store_n(mem64, engine_gpu_clock(q), __ATOMIC_RELEASE);
		return ENGINE_OK;
	default:
		return invalid(q);
	}
}

enum engine_status sdma_process(struct sim_engine_queue *q)
{
	uint32_t p[SDMA_MAX_PACKET_DW] = {0};
	uint64_t *rptr, w, avail;
	enum engine_status st;
	unsigned n;

	st = engine_write_limit(q, &w);
	if (st != ENGINE_OK)
		return st;
	w &= ~3ull;
	avail = w - q->rptr;
	if ((int64_t)avail <= 0)
		return ENGINE_RETRY;

	st = ring_read(q, q->rptr, p, 1);
	if (st != ENGINE_OK)
		return st;
	n = packet_dwords(p[0]);
	if (!n)
		return invalid(q);
	/* Wait for the rest of a packet whose tail is not submitted yet. */
	if ((uint64_t)n * 4 > avail)
		return ENGINE_RETRY;
	if (sdma_hdr_op(p[0]) != SDMA_OP_NOP) {
		st = ring_read(q, q->rptr + 4, p + 1, n - 1);
		if (st != ENGINE_OK)
			return st;
	}
	st = execute(q, p);
	if (st != ENGINE_OK)
		return st;

	q->rptr += (uint64_t)n * 4;
	q->poll_tries = 0;
	rptr = engine_mem_object(q, q->desc.rptr_va, sizeof(*rptr), true);
	if (!rptr)
		return ENGINE_DEAD;
	__atomic_store_n(rptr, q->rptr, __ATOMIC_RELEASE);
	return ENGINE_OK;
}
