/* SPDX-License-Identifier: MIT */
/* Per-lane data movement shared by the vector memory executors. */
#ifndef KFDSIM_ISA_VMEM_H
#define KFDSIM_ISA_VMEM_H

#include "isa_memop.h"
#include "isa_wave.h"

/* Active lanes, lowest first. */
#define FOR_EACH_ACTIVE(exec, l)                                                                   \
	for (unsigned l = 0; l < ISA_LANES; l++)                                                   \
		if ((exec) >> l & 1)

/* Where a lane's access goes. */
enum isa_space {
	ISA_SPACE_GLOBAL,
	ISA_SPACE_LDS,
	ISA_SPACE_PRIVATE,
};

/* One lane's load, store or atomic of instruction `in` (class m) at
 * `addr` in `space`; data registers start at in->src[1] (store/atomic
 * data) and results go to in->dst. `ret` asks atomics for the old value.
 * ISA_NEXT or ISA_FAULT (reported). Out-of-range LDS and private
 * accesses read 0 and drop writes, like the hardware's range checks. */
enum isa_result isa_vmem_lane(struct isa_wave *w, const struct isa_inst *in, const struct memop *m,
			      unsigned lane, enum isa_space space, uint64_t addr, bool ret);

#endif
