/* SPDX-License-Identifier: MIT */
/* PM4 indirect buffers reached from AMD PM4-IB AQL packets. */
#include "aql_pm4.h"

#include "engine_mem.h"

/* PM4 header: bits 31..30 type, 29..16 count (body dwords - 1), 15..8
 * opcode (type 3). A type-2 header is a one-dword filler. */
#define PM4_TYPE(h)   ((h) >> 30)
#define PM4_COUNT(h)  (((h) >> 16) & 0x3fff)
#define PM4_OPCODE(h) (((h) >> 8) & 0xff)

#define PM4_OP_NOP             0x10
#define PM4_OP_INDIRECT_BUFFER 0x3f
#define PM4_OP_ACQUIRE_MEM     0x58

/* INDIRECT_BUFFER: dw1 base bits 31..2, dw2 base bits 47..32, dw3 bits
 * 19..0 size in dwords, bit 23 valid. */
#define PM4_IB_SIZE(dw3)  ((dw3)&0xfffff)
#define PM4_IB_VALID(dw3) (((dw3) >> 23) & 1)

static enum engine_status invalid(struct sim_engine_queue *q)
{
	engine_queue_error(q, SIM_QERR_INVALID_PACKET);
	return ENGINE_DEAD;
}

enum engine_status aql_pm4_ib_run(struct sim_engine_queue *q,
				  const struct aql_amd_pm4_ib_packet *pkt)
{
	const uint32_t *jump = pkt->ib_jump_cmd;
	uint64_t ib, size, i = 0;

	if (PM4_TYPE(jump[0]) != 3 || PM4_OPCODE(jump[0]) != PM4_OP_INDIRECT_BUFFER ||
	    PM4_COUNT(jump[0]) != 2 || !PM4_IB_VALID(jump[3]))
		return invalid(q);
	ib = (uint64_t)(jump[1] & ~3u) | (uint64_t)(jump[2] & 0xffff) << 32;
	size = PM4_IB_SIZE(jump[3]);

	while (i < size) {
		uint8_t raw[4];
		uint32_t h;
		enum engine_status st = engine_mem_read(q, ib + 4 * i, raw, sizeof(raw));

		if (st != ENGINE_OK)
			return st;
		h = (uint32_t)raw[0] | (uint32_t)raw[1] << 8 | (uint32_t)raw[2] << 16 |
		    (uint32_t)raw[3] << 24;
		if (PM4_TYPE(h) == 2) {
			i++;
			continue;
		}
		if (PM4_TYPE(h) != 3)
			return invalid(q);
		if (PM4_OPCODE(h) != PM4_OP_NOP && PM4_OPCODE(h) != PM4_OP_ACQUIRE_MEM)
			return invalid(q);
		i += (uint64_t)PM4_COUNT(h) + 2;
	}
	/* A packet running past the IB end is malformed. */
	return i == size ? ENGINE_OK : invalid(q);
}
