/* SPDX-License-Identifier: MIT */
/*
 * The PM4 the AQL engine accepts inside AMD PM4-IB vendor packets: ROCr
 * 5.2.3 uses them on gfx9+ only to invalidate caches after loading code
 * (GpuAgent::InvalidateCodeCaches -> AqlQueue::ExecutePM4).
 */
#ifndef KFDSIM_AQL_PM4_H
#define KFDSIM_AQL_PM4_H

#include "aql_packets.h"
#include "engine_internal.h"

/* Check the INDIRECT_BUFFER jump and walk the IB: NOPs and ACQUIRE_MEM
 * (cache actions; host memory is coherent) pass, anything else is an
 * invalid packet. ENGINE_OK, or ENGINE_DEAD / ENGINE_STOPPED. */
enum engine_status aql_pm4_ib_run(struct sim_engine_queue *q,
				  const struct aql_amd_pm4_ib_packet *pkt);

#endif
