/* SPDX-License-Identifier: MIT */
/*
 * HSA signals as the packet processor touches them: a handle is the GPU VA
 * of an amd_signal_t.
 */
#ifndef KFDSIM_ENGINE_SIGNAL_H
#define KFDSIM_ENGINE_SIGNAL_H

#include <stdint.h>

#include "engine_internal.h"

/* Read a signal's value (acquire). ENGINE_DEAD after a VM fault. */
enum engine_status engine_signal_load(struct sim_engine_queue *q, uint64_t handle, int64_t *value);

/* Complete a packet's completion signal the way the CP's end-of-packet
 * release does: write start/end timestamps, atomically decrement the
 * value, then if the signal has an event mailbox write the event id there
 * and raise the interrupt for it. handle 0 means "no signal". */
enum engine_status engine_signal_complete(struct sim_engine_queue *q, uint64_t handle,
					  uint64_t start_ts);

#endif
