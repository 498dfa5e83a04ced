// SPDX-License-Identifier: MIT
/*
 * The environment kfdsim gives its engines (struct sim_gpu_env): GPU VA
 * translation, the event interrupt, VM faults, queue errors and the trap
 * handler of one process on one GPU. Called from engine threads; never takes proc->lock.
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

/* An illegal instruction or a bad AQL packet: the engine has already done
 * what the trap handler / CP report to user space (engine_qerror.c) and
 * halted the queue. The kernel itself raises no HW-exception event for
 * these and evicts nothing (kfd_int_process_v9.c only forwards the
 * interrupt).
 *
 * A bad SDMA packet reaches no user-visible signal on hardware: the engine
 * stops, the copy's completion signal never moves, and the kernel's hang
 * detection ends in a GPU reset, which it reports with a HW-exception event
 * (reset, cause GPU hang). kfdsim reports that outcome at once, to the
 * offending process only, and evicts its queues on this GPU, so ROCr sees
 * an error instead of a copy that never ends (or worse, one cut short). */
static void env_queue_error(void *ctx, uint32_t queue_id, int reason)
{
	struct sim_pdd *pdd = ctx;

	(void)queue_id;
	if (reason != SIM_QERR_SDMA_INVALID_PACKET)
		return;
	sim_events_hw_exception(pdd->proc, pdd->gpu, true);
	sim_queues_evict(pdd->proc, pdd);
}

/* ROCr 5.2.3's second-level trap handler, when the process installed one
 * (SET_TRAP_HANDLER with a TMA). Not modelled: the gfx10.3 build of that
 * handler, which reports nothing (no scalar stores), and runtime-enabled
 * processes, whose ROCr uses a handler reporting through the kernel. */
static bool env_trap_handler(void *ctx, uint64_t *tma)
{
	struct sim_pdd *pdd = ctx;
	uint64_t tba = __atomic_load_n(&pdd->tba, __ATOMIC_ACQUIRE);
	uint64_t map = __atomic_load_n(&pdd->tma, __ATOMIC_ACQUIRE);

	if (pdd->gpu->t->gfx_target_version >= 100300)
		return false;
	if (__atomic_load_n(&pdd->proc->runtime_enabled, __ATOMIC_ACQUIRE))
		return false;
	if (!tba || !map)
		return false;
	*tma = map;
	return true;
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
	pdd->env.trap_handler = env_trap_handler;
}
