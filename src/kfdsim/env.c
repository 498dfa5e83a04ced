// SPDX-License-Identifier: MIT
/*
 * The environment kfdsim gives its engines (struct sim_gpu_env): GPU VA
 * translation, the event interrupt, VM faults and queue errors of one
 * process on one GPU. Called from engine threads; never takes proc->lock.
 */
#include "sim_priv.h"

static void env_interrupt(void *ctx, uint32_t event_id)
{
	struct sim_pdd *pdd = ctx;

	/* full ids from the engine; 32 valid bits */
	sim_events_interrupt(pdd->proc, event_id, 32);
}

static void env_vm_fault(void *ctx, uint64_t va, bool write)
{
	struct sim_pdd *pdd = ctx;
	bool writable = false;
	bool present = sim_vm_lookup(pdd, va, &writable) == 0;

	sim_events_vm_fault(pdd->proc, pdd->gpu, va, present, write);
	sim_queues_evict(pdd->proc, pdd);
}

static void env_queue_error(void *ctx, uint32_t queue_id, int reason)
{
	struct sim_pdd *pdd = ctx;

	(void)queue_id;
	(void)reason;
	sim_events_hw_exception(pdd->proc, pdd->gpu, false);
	sim_queues_evict(pdd->proc, pdd);
}

static uint64_t env_gpu_clock(void *ctx)
{
	(void)ctx;
	return sim_gpu_clock();
}

void sim_env_init(struct sim_pdd *pdd)
{
	pdd->env.ctx = pdd;
	pdd->env.translate = sim_translate;
	pdd->env.interrupt = env_interrupt;
	pdd->env.vm_fault = env_vm_fault;
	pdd->env.queue_error = env_queue_error;
	pdd->env.gpu_clock = env_gpu_clock;
	pdd->env.gpu_clock_hz = SIM_GPU_CLOCK_HZ;
}
