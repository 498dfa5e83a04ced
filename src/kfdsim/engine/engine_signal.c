/* SPDX-License-Identifier: MIT */
/* Completion and dependency signals (amd_signal_t) for the AQL engine. */
#include "engine_signal.h"

#include <stddef.h>

#include "aql_packets.h"
#include "engine_mem.h"

/* Signals are 64-byte aligned in every runtime; the model requires
 * 8-byte alignment for its 64-bit atomics and treats anything else as an
 * access violation rather than guess at what the hardware would do. */
static bool aligned8(uint64_t va)
{
	return (va & 7) == 0;
}

enum engine_status engine_signal_load(struct sim_engine_queue *q, uint64_t handle, int64_t *value)
{
	uint64_t va = handle + offsetof(struct aql_amd_signal, value);
	const int64_t *p;

	if (!aligned8(handle)) {
		engine_vm_fault(q, handle, false);
		return ENGINE_DEAD;
	}
	p = engine_mem_object(q, va, sizeof(*p), false);
	if (!p)
		return ENGINE_DEAD;
	*value = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	return ENGINE_OK;
}

enum engine_status engine_signal_complete(struct sim_engine_queue *q, uint64_t handle,
					  uint64_t start_ts)
{
	struct aql_amd_signal *sig;
	uint64_t mailbox_va, end_ts;
	uint32_t event_id;
	uint64_t *mailbox;

	if (!handle)
		return ENGINE_OK;
	if (!aligned8(handle)) {
		engine_vm_fault(q, handle, true);
		return ENGINE_DEAD;
	}
	/* kind .. end_ts: everything the CP reads or writes. */
	sig = engine_mem_object(q, handle, offsetof(struct aql_amd_signal, queue_ptr), true);
	if (!sig)
		return ENGINE_DEAD;
	end_ts = engine_gpu_clock(q);
	__atomic_store_n(&sig->start_ts, start_ts, __ATOMIC_RELAXED);
	__atomic_store_n(&sig->end_ts, end_ts, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&sig->value, 1, __ATOMIC_ACQ_REL);

	mailbox_va = __atomic_load_n(&sig->event_mailbox_ptr, __ATOMIC_ACQUIRE);
	event_id = __atomic_load_n(&sig->event_id, __ATOMIC_ACQUIRE);
	if (!mailbox_va)
		return ENGINE_OK;
	if (!aligned8(mailbox_va)) {
		engine_vm_fault(q, mailbox_va, true);
		return ENGINE_DEAD;
	}
	mailbox = engine_mem_object(q, mailbox_va, sizeof(*mailbox), true);
	if (!mailbox)
		return ENGINE_DEAD;
	__atomic_store_n(mailbox, (uint64_t)event_id, __ATOMIC_RELEASE);
	q->env.interrupt(q->env.ctx, event_id);
	return ENGINE_OK;
}
