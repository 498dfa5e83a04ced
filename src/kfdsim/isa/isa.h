/* SPDX-License-Identifier: MIT */
/*
 * The gfx9 ISA interpreter as the AQL engine sees it: run one kernel
 * dispatch whose kernel_object is a code-object-v3+ kernel descriptor.
 */
#ifndef KFDSIM_ISA_H
#define KFDSIM_ISA_H

#include <stdint.h>

#include "aql_packets.h"
#include "engine_internal.h"

/* Run the dispatch `pkt` (a private copy; the packet itself is at GPU VA
 * `pkt_va`, which the kernel's dispatch pointer names). ENGINE_OK when
 * every workgroup ended; ENGINE_STOPPED on stop(); ENGINE_DEAD after a
 * VM fault, an illegal instruction or a trap was reported. */
enum engine_status isa_dispatch(struct sim_engine_queue *q, const struct aql_dispatch_packet *pkt,
				uint64_t pkt_va);

#endif
