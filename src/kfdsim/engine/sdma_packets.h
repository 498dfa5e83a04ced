/* SPDX-License-Identifier: MIT */
/*
 * SDMA v4/v5 packet encodings for the packets ROCr's BlitSdmaV4/V5 and
 * amdgpu's sdma_v4_x/v5_x emit. Every packet starts with a header dword:
 * bits 7..0 opcode, 15..8 sub-opcode, 31..16 opcode-specific. The layouts
 * are the same on SDMA 4.0 to 5.2 except the count widths, which come
 * from the queue's struct sim_sdma_format (sdma_engine.c has the table).
 */
#ifndef KFDSIM_SDMA_PACKETS_H
#define KFDSIM_SDMA_PACKETS_H

#include <stdbool.h>
#include <stdint.h>

enum sdma_op {
	SDMA_OP_NOP = 0,
	SDMA_OP_COPY = 1,
	SDMA_OP_FENCE = 5,
	SDMA_OP_TRAP = 6,
	SDMA_OP_POLL_REGMEM = 8,
	SDMA_OP_ATOMIC = 10,
	SDMA_OP_CONST_FILL = 11,
	SDMA_OP_TIMESTAMP = 13,
	SDMA_OP_GCR = 17, /* SDMA v5 (gfx10) cache control */
};

#define SDMA_SUBOP_COPY_LINEAR          0
#define SDMA_SUBOP_COPY_LINEAR_RECT     4
#define SDMA_SUBOP_TIMESTAMP_SET_LOCAL  0
#define SDMA_SUBOP_TIMESTAMP_GET_LOCAL  1
#define SDMA_SUBOP_TIMESTAMP_GET_GLOBAL 2
#define SDMA_SUBOP_USER_GCR             1

static inline uint32_t sdma_hdr_op(uint32_t h)
{
	return h & 0xff;
}

static inline uint32_t sdma_hdr_subop(uint32_t h)
{
	return (h >> 8) & 0xff;
}

/* NOP: bits 29..16 count extra dwords to skip. */
static inline uint32_t sdma_nop_count(uint32_t h)
{
	return (h >> 16) & 0x3fff;
}

/* Packet sizes in dwords (header included). */
#define SDMA_COPY_LINEAR_DW 7 /* hdr, count, param, src lo/hi, dst lo/hi */
#define SDMA_FENCE_DW       4 /* hdr, addr lo/hi, data */
#define SDMA_TRAP_DW        2 /* hdr, int_ctx */
#define SDMA_POLL_REGMEM_DW 6 /* hdr, addr lo/hi, value, mask, interval/retry */
#define SDMA_ATOMIC_DW      8 /* hdr, addr lo/hi, src lo/hi, cmp lo/hi, loop */
#define SDMA_CONST_FILL_DW  5 /* hdr, dst lo/hi, data, count */
#define SDMA_TIMESTAMP_DW   3 /* hdr, addr lo/hi */
/* hdr, src lo/hi, src x/y, src z/pitch, src slice, dst lo/hi, dst x/y,
 * dst z/pitch, dst slice, rect x/y, rect z */
#define SDMA_COPY_RECT_DW  13
#define SDMA_GCR_DW        5 /* hdr, base lo, base hi + controls, limit lo, limit hi */
#define SDMA_MAX_PACKET_DW 13

/* COPY_LINEAR_RECT fields (offsets, pitches and sizes in elements of
 * 1 << element bytes; pitches and sizes are programmed minus one). */
static inline uint32_t sdma_rect_element(uint32_t h)
{
	return h >> 29;
}

static inline uint32_t sdma_rect_lo14(uint32_t dw)
{
	return dw & 0x3fff;
}

static inline uint32_t sdma_rect_hi14(uint32_t dw)
{
	return (dw >> 16) & 0x3fff;
}

static inline uint32_t sdma_rect_z11(uint32_t dw)
{
	return dw & 0x7ff;
}

static inline uint32_t sdma_rect_pitch(uint32_t dw)
{
	return dw >> 13;
}

static inline uint32_t sdma_rect_slice(uint32_t dw)
{
	return dw & 0x0fffffff;
}

/* COPY_LINEAR dword 1 / CONST_FILL dword 4: a `bits`-wide count of
 * bytes - 1 (SDMA v4 and later). False when the field is not modelled
 * (width 0) or a bit above it is set: the packet asks for more than this
 * engine version reads, so it is invalid rather than silently shortened. */
static inline bool sdma_count_bytes(uint32_t dw, unsigned bits, uint64_t *bytes)
{
	if (bits == 0 || bits > 32 || (bits < 32 && (dw >> bits) != 0))
		return false;
	*bytes = (uint64_t)dw + 1;
	return true;
}

/* CONST_FILL header bits 31..30: element size log2 (0 byte, 2 dword). */
static inline uint32_t sdma_fill_size(uint32_t h)
{
	return h >> 30;
}

/* POLL_REGMEM header: bit 26 hdp_flush, 30..28 func, 31 mem_poll. */
static inline uint32_t sdma_poll_hdp_flush(uint32_t h)
{
	return (h >> 26) & 1;
}

static inline uint32_t sdma_poll_func(uint32_t h)
{
	return (h >> 28) & 7;
}

static inline uint32_t sdma_poll_mem(uint32_t h)
{
	return h >> 31;
}

/* POLL_REGMEM dword 5: bits 15..0 interval, 27..16 retry count. */
#define SDMA_POLL_RETRY_FOREVER 0xfffu
static inline uint32_t sdma_poll_retry(uint32_t dw5)
{
	return (dw5 >> 16) & 0xfff;
}

/* ATOMIC header bits 31..25: operation (TC atomic opcode). */
static inline uint32_t sdma_atomic_op(uint32_t h)
{
	return h >> 25;
}

#define SDMA_ATOMIC_ADD64 47

/* TRAP dword 1 bits 27..0: interrupt context (ROCr puts the event id). */
#define SDMA_TRAP_INT_CTX_MASK 0x0fffffffu

static inline uint64_t sdma_addr(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

#endif
