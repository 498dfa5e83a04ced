// SPDX-License-Identifier: MIT
/*
 * SDMA queue slots of one GPU, as kfd_device_queue_manager.c's
 * allocate_sdma_queue hands them out. Each engine class (ordinary SDMA
 * engines, then xGMI SDMA engines) has num_engines * queues_per_engine
 * slots; slot i belongs to engine i % num_engines of its class, as queue
 * i / num_engines of that engine. Engine ids count the ordinary engines
 * first: xGMI engine k has id num_sdma + k.
 *
 * - KFD_IOC_QUEUE_TYPE_SDMA / _SDMA_XGMI take the lowest free slot of
 *   their class (whatever engine that is).
 * - KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID (KFD 1.17) takes the lowest free
 *   slot of the requested engine, in the class that engine belongs to, and
 *   counts as a queue of that class; no free slot there is -ENOMEM, never
 *   a slot on another engine. The id range is checked by the caller
 *   (kfd_ioctl_create_queue answers -EINVAL before allocating).
 */
#include <errno.h>

#include "sim_priv.h"

static uint64_t *class_map(struct sim_gpu *g, bool xgmi)
{
	return xgmi ? &g->xgmi_slots : &g->sdma_slots;
}

static uint32_t class_engines(const struct sim_target *t, bool xgmi)
{
	return xgmi ? t->num_sdma_xgmi : t->num_sdma;
}

int sim_sdma_slot_get(struct kfdsim *sim, struct sim_gpu *g, uint32_t queue_type,
		      uint32_t engine_id, struct sim_sdma_slot *out)
{
	const struct sim_target *t = g->t;
	bool xgmi, by_engine = queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID;
	uint32_t engines, nslots, first = 0, step = 1;
	uint64_t *map;
	int r = -ENOMEM;

	if (by_engine) {
		if (engine_id >= t->num_sdma + t->num_sdma_xgmi)
			return -EINVAL;
		xgmi = engine_id >= t->num_sdma;
	} else {
		xgmi = queue_type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI;
	}
	engines = class_engines(t, xgmi);
	nslots = engines * t->sdma_queues_per_engine;
	if (nslots > 64)
		return -EINVAL; /* a target table error: slots are one u64 */
	if (by_engine) {
		first = engine_id - (xgmi ? t->num_sdma : 0);
		step = engines;
	}
	pthread_mutex_lock(&sim->lock);
	map = class_map(g, xgmi);
	for (uint32_t i = first; i < nslots; i += step) {
		if (*map & (1ull << i))
			continue;
		*map |= 1ull << i;
		out->xgmi = xgmi;
		out->slot = (uint8_t)i;
		out->engine = (xgmi ? t->num_sdma : 0) + i % engines;
		r = 0;
		break;
	}
	pthread_mutex_unlock(&sim->lock);
	return r;
}

void sim_sdma_slot_put(struct kfdsim *sim, struct sim_gpu *g, const struct sim_sdma_slot *s)
{
	pthread_mutex_lock(&sim->lock);
	*class_map(g, s->xgmi) &= ~(1ull << s->slot);
	pthread_mutex_unlock(&sim->lock);
}
