/* SPDX-License-Identifier: MIT */
/*
 * How a gfx9 GPU tells ROCr that one of its AQL queues failed: the error
 * code lands in the queue's amd_queue_t.queue_inactive_signal, the
 * signal's event mailbox is written and an interrupt is raised, so the
 * runtime's handler thread wakes up (see docs/kfdsim-engines.md).
 *
 * - Wave errors (an illegal instruction) are reported by the second-level
 *   trap handler ROCr 5.2.3 installs: it maps the wave's doorbell index to
 *   the amd_queue_t through its TMA.
 * - Packet errors the CP finds (an invalid packet) are reported by the CP,
 *   which knows the amd_queue_t from the queue's read pointer address.
 */
#include <stddef.h>

#include "aql_packets.h"
#include "engine_internal.h"
#include "engine_mem.h"

/* amd_queue_t (amd_hsa_queue.h) */
#define AMDQ_WRITE_DISPATCH_ID     0x38u
#define AMDQ_READ_DISPATCH_ID      0x80u
#define AMDQ_QUEUE_INACTIVE_SIGNAL 0xc0u

/* Error codes in queue_inactive_signal (ROCr 5.2.3 DynamicScratchHandler
 * and its gfx9 trap handler's SIGNAL_CODE_*). */
#define QERR_CODE_INVALID_FORMAT 32ull
#define QERR_CODE_ILLEGAL_INST   (1ull << 30)
#define QERR_CODE_LLVM_TRAP      (1ull << 31)

/* ROCr's trap handler masks the doorbell id to 10 bits. */
#define TRAP_DOORBELL_MASK 0x3ffu

static bool read_u64(struct sim_engine_queue *q, uint64_t va, uint64_t *v)
{
	const uint64_t *p = engine_mem_object(q, va, sizeof(*p), false);

	if (!p)
		return false;
	*v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	return true;
}

/* Swap the code into the signal value; if it was 0, write the event id to
 * the mailbox (a dword store) and interrupt. False when an access faulted
 * (reported, queue dead) or the queue was stopped. */
static bool signal_error(struct sim_engine_queue *q, uint64_t sig, uint64_t code)
{
	uint64_t mailbox_va;
	const uint32_t *idp;
	int64_t *value;
	uint32_t *mailbox, id;
	int64_t old;

	value = engine_mem_object(q, sig + offsetof(struct aql_amd_signal, value), sizeof(*value),
				  true);
	if (!value)
		return false;
	old = __atomic_exchange_n(value, (int64_t)code, __ATOMIC_ACQ_REL);
	if (old != 0)
		return true; /* an earlier report is pending: no new event */
	if (!read_u64(q, sig + offsetof(struct aql_amd_signal, event_mailbox_ptr), &mailbox_va))
		return false;
	if (!mailbox_va)
		return true;
	idp = engine_mem_object(q, sig + offsetof(struct aql_amd_signal, event_id), sizeof(*idp),
				false);
	if (!idp)
		return false;
	id = __atomic_load_n(idp, __ATOMIC_ACQUIRE);
	mailbox = engine_mem_object(q, mailbox_va, sizeof(*mailbox), true);
	if (!mailbox)
		return false;
	__atomic_store_n(mailbox, id, __ATOMIC_RELEASE);
	return engine_raise_interrupt(q, id);
}

/* The amd_queue_t whose read and write dispatch ids are this queue's
 * pointers, or 0 when the pointers do not sit in one amd_queue_t. */
static uint64_t amd_queue_from_pointers(const struct sim_engine_queue *q)
{
	uint64_t base = q->desc.rptr_va - AMDQ_READ_DISPATCH_ID;

	if (q->desc.rptr_va < AMDQ_READ_DISPATCH_ID ||
	    q->desc.wptr_va != base + AMDQ_WRITE_DISPATCH_ID)
		return 0;
	return base;
}

bool engine_report_queue_error(struct sim_engine_queue *q, int reason)
{
	uint64_t amdq, sig, code, tma;

	if (q->desc.type != SIM_QUEUE_COMPUTE_AQL)
		return true; /* SDMA errors reach no user-visible signal */
	if (reason == SIM_QERR_ILLEGAL_INSTRUCTION || reason == SIM_QERR_TRAP) {
		if (!q->env.trap_handler || !q->env.trap_handler(q->env.ctx, &tma))
			return true; /* no handler: the wave just halts */
		if (!read_u64(q, tma + 8ull * (q->desc.doorbell_index & TRAP_DOORBELL_MASK), &amdq))
			return false;
		code = reason == SIM_QERR_TRAP ? QERR_CODE_LLVM_TRAP : QERR_CODE_ILLEGAL_INST;
	} else {
		amdq = amd_queue_from_pointers(q);
		if (!amdq)
			return true;
		code = QERR_CODE_INVALID_FORMAT;
	}
	/* a NULL map entry or signal faults in the handler, as on hardware */
	if (!read_u64(q, amdq + AMDQ_QUEUE_INACTIVE_SIGNAL, &sig))
		return false;
	return signal_error(q, sig, code);
}
