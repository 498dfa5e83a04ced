/* SPDX-License-Identifier: MIT */
/*
 * AQL packet processor: what the gfx9 CP does with a user-mode AQL queue.
 * Packets run one at a time to completion, so the header's barrier bit
 * (wait for earlier packets before launching) always holds.
 */
#include <string.h>

#include "aql_packets.h"
#include "aql_pm4.h"
#include "builtin_kernels.h"
#include "engine_internal.h"
#include "engine_mem.h"
#include "engine_signal.h"
#include "isa.h"

static enum engine_status run_dispatch(struct sim_engine_queue *q,
				       const struct aql_dispatch_packet *pkt, uint64_t pkt_va)
{
	const uint8_t *desc;
	uint32_t id;

	desc = engine_mem_object(q, pkt->kernel_object, KFDSIM_KERNEL_DESC_SIZE, false);
	if (!desc)
		return ENGINE_DEAD;
	if (memcmp(desc, KFDSIM_KERNEL_MAGIC, KFDSIM_KERNEL_MAGIC_LEN) != 0)
		return isa_dispatch(q, pkt, pkt_va); /* a real kernel descriptor */
	id = (uint32_t)desc[KFDSIM_KERNEL_ID_OFFSET] |
	     (uint32_t)desc[KFDSIM_KERNEL_ID_OFFSET + 1] << 8 |
	     (uint32_t)desc[KFDSIM_KERNEL_ID_OFFSET + 2] << 16 |
	     (uint32_t)desc[KFDSIM_KERNEL_ID_OFFSET + 3] << 24;
	return builtin_kernel_run(q, id, pkt->kernarg_address);
}

/* ENGINE_OK once the dependencies are met, ENGINE_RETRY while waiting. */
static enum engine_status run_barrier(struct sim_engine_queue *q,
				      const struct aql_barrier_packet *pkt, bool is_or)
{
	bool any_zero = false;

	for (unsigned i = 0; i < 5; i++) {
		int64_t v;
		enum engine_status st;

		if (!pkt->dep_signal[i])
			continue; /* AND: satisfied; OR: never satisfies */
		st = engine_signal_load(q, pkt->dep_signal[i], &v);
		if (st != ENGINE_OK)
			return st;
		if (v == 0)
			any_zero = true;
		else if (!is_or)
			return ENGINE_RETRY;
	}
	if (is_or && !any_zero)
		return ENGINE_RETRY;
	return ENGINE_OK;
}

static bool condition_met(uint32_t cond, int64_t v, int64_t ref)
{
	switch (cond) {
	case AQL_COND_EQ:
		return v == ref;
	case AQL_COND_NE:
		return v != ref;
	case AQL_COND_LT:
		return v < ref;
	case AQL_COND_GTE:
		return v >= ref;
	default:
		return false;
	}
}

/* AMD barrier-value: wait until (value & mask) cond ref. */
static enum engine_status run_barrier_value(struct sim_engine_queue *q,
					    const struct aql_amd_barrier_value_packet *pkt)
{
	int64_t v;
	enum engine_status st;

	if (pkt->cond > AQL_COND_GTE) {
		engine_queue_error(q, SIM_QERR_INVALID_PACKET);
		return ENGINE_DEAD;
	}
	if (!pkt->signal)
		return ENGINE_OK; /* a null signal is a satisfied dependency */
	st = engine_signal_load(q, pkt->signal, &v);
	if (st != ENGINE_OK)
		return st;
	return condition_met(pkt->cond, v & pkt->mask, pkt->value) ? ENGINE_OK : ENGINE_RETRY;
}

enum engine_status aql_process(struct sim_engine_queue *q)
{
	const uint64_t slots = q->desc.ring_size / AQL_PACKET_SIZE;
	union {
		uint8_t raw[AQL_PACKET_SIZE];
		struct aql_dispatch_packet dispatch;
		struct aql_barrier_packet barrier;
		struct aql_amd_barrier_value_packet bvalue;
		struct aql_amd_pm4_ib_packet pm4;
	} pkt;
	uint64_t *rptr, slot_va, completion;
	uint16_t *slot, header;
	enum engine_status st;
	uint64_t w;

	st = engine_write_limit(q, &w);
	if (st != ENGINE_OK)
		return st;
	/* A write index at or behind ours (including a hostile one moved
	 * backwards) means no work. */
	if ((int64_t)(w - q->rptr) <= 0)
		return ENGINE_RETRY;

	slot_va = q->desc.ring_va + (q->rptr & (slots - 1)) * AQL_PACKET_SIZE;
	slot = engine_mem_object(q, slot_va, AQL_PACKET_SIZE, true);
	if (!slot)
		return ENGINE_DEAD;
	/* User space writes the header last with release semantics. */
	header = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if ((header & AQL_HEADER_TYPE_MASK) == AQL_TYPE_INVALID)
		return ENGINE_RETRY;
	/* Work on a private copy: the guest may rewrite the slot meanwhile. */
	memcpy(pkt.raw, slot, sizeof(pkt.raw));
	memcpy(pkt.raw, &header, sizeof(header));
	if (!q->pkt_seen) {
		q->pkt_seen = true;
		q->pkt_start_ts = engine_gpu_clock(q);
	}

	switch (header & AQL_HEADER_TYPE_MASK) {
	case AQL_TYPE_KERNEL_DISPATCH:
		st = run_dispatch(q, &pkt.dispatch, slot_va);
		completion = pkt.dispatch.completion_signal;
		break;
	case AQL_TYPE_BARRIER_AND:
	case AQL_TYPE_BARRIER_OR:
		st = run_barrier(q, &pkt.barrier,
				 (header & AQL_HEADER_TYPE_MASK) == AQL_TYPE_BARRIER_OR);
		completion = pkt.barrier.completion_signal;
		break;
	case AQL_TYPE_VENDOR_SPECIFIC:
		if (pkt.bvalue.amd_format == AQL_AMD_FORMAT_BARRIER_VALUE) {
			st = run_barrier_value(q, &pkt.bvalue);
			completion = pkt.bvalue.completion_signal;
		} else if (pkt.pm4.amd_format == AQL_AMD_FORMAT_PM4_IB) {
			st = aql_pm4_ib_run(q, &pkt.pm4);
			completion = pkt.pm4.completion_signal;
		} else {
			engine_queue_error(q, SIM_QERR_INVALID_PACKET);
			return ENGINE_DEAD;
		}
		break;
	default:
		/* AGENT_DISPATCH (not for a GPU queue) and undefined types. */
		engine_queue_error(q, SIM_QERR_INVALID_PACKET);
		return ENGINE_DEAD;
	}
	if (st != ENGINE_OK)
		return st;

	st = engine_signal_complete(q, completion, q->pkt_start_ts);
	if (st != ENGINE_OK)
		return st;

	/* Free the slot, then publish the new read index. Translate again:
	 * the packet may have run long and mappings may have changed while
	 * the queue was inactive. */
	slot = engine_mem_object(q, slot_va, AQL_PACKET_SIZE, true);
	if (!slot)
		return ENGINE_DEAD;
	__atomic_store_n(slot, (uint16_t)((header & ~AQL_HEADER_TYPE_MASK) | AQL_TYPE_INVALID),
			 __ATOMIC_RELEASE);
	q->rptr++;
	q->pkt_seen = false;
	rptr = engine_mem_object(q, q->desc.rptr_va, sizeof(*rptr), true);
	if (!rptr)
		return ENGINE_DEAD;
	__atomic_store_n(rptr, q->rptr, __ATOMIC_RELEASE);
	return ENGINE_OK;
}
