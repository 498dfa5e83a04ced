/* SPDX-License-Identifier: MIT */
/*
 * Interface between kfdsim's UAPI model (processes, memory, events, queues)
 * and its GPU engines (AQL compute, SDMA). The engines only reach memory and
 * the interrupt path through struct sim_gpu_env, so they can be tested with
 * a fake environment.
 */
#ifndef KFDSIM_SIM_ENGINE_H
#define KFDSIM_SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

/* What the core gives an engine (one per process and GPU). */
struct sim_gpu_env {
	void *ctx;
	/* Translate the GPU VA range [va, va+len) of this process on this GPU
	 * to a host pointer. The whole range must lie inside one GPU mapping;
	 * otherwise NULL (the engine then calls vm_fault). `write` asks for a
	 * writable mapping. */
	void *(*translate)(void *ctx, uint64_t va, uint64_t len, bool write);
	/* The CP/SDMA raised an interrupt for (partial) event id `event_id`
	 * after writing the event mailbox slot: the KFD interrupt handler
	 * semantics (signal the events whose slots are set) apply. */
	void (*interrupt)(void *ctx, uint32_t event_id);
	/* An access to an unmapped or read-only GPU VA: raise the memory
	 * exception the kernel would (and stop the queue). */
	void (*vm_fault)(void *ctx, uint64_t va, bool write);
	/* A queue hit an unrecoverable error (illegal packet / kernel):
	 * raise the kernel's queue error / hw exception. */
	void (*queue_error)(void *ctx, uint32_t queue_id, int reason);
	/* GPU clock counter (ticks of gpu_clock_hz). */
	uint64_t (*gpu_clock)(void *ctx);
	uint64_t gpu_clock_hz;
	/* Optional. True when the process installed a second-level trap
	 * handler (SET_TRAP_HANDLER) whose error report the engine models
	 * (ROCr 5.2.3's gfx9 handler, see docs/kfdsim-engines.md); *tma gets
	 * its TMA (ROCr: doorbell index -> amd_queue_t * map). NULL or
	 * false: a wave error halts the queue without any report. */
	bool (*trap_handler)(void *ctx, uint64_t *tma);
};

enum sim_queue_type {
	SIM_QUEUE_COMPUTE_AQL = 0,
	SIM_QUEUE_SDMA = 1,
};

enum sim_queue_error_reason {
	SIM_QERR_ILLEGAL_INSTRUCTION = 1,
	SIM_QERR_INVALID_PACKET = 2,
	/* An SDMA packet the engine cannot execute as written (unknown
	 * opcode, a field value beyond what this SDMA version reads). The
	 * engine halts; no user-visible signal carries it (see env.c). */
	SIM_QERR_SDMA_INVALID_PACKET = 3,
	/* s_trap 2 (device-side abort / assert): the trap handler's report */
	SIM_QERR_TRAP = 4,
};

/* How one SDMA IP version reads the packet fields whose width differs
 * between versions (count fields are bytes - 1 from SDMA v4 on). Bits of
 * the count dword above the field must be zero: a packet that sets them
 * is an invalid packet, never a truncated copy. */
struct sim_sdma_format {
	uint8_t copy_count_bits; /* COPY_LINEAR count */
	uint8_t fill_count_bits; /* CONSTANT_FILL count */
};

/* The format of SDMA IP version major.minor (4.0, 4.4, 5.0, 5.2, ...);
 * false for a version kfdsim does not model. */
bool sim_sdma_format_for_ip(uint32_t ip_major, uint32_t ip_minor, struct sim_sdma_format *out);

/* Everything the engine needs from CREATE_QUEUE, already validated by the
 * core. Addresses are GPU VAs of this process (GPU VA == CPU VA). */
struct sim_queue_desc {
	enum sim_queue_type type;
	uint32_t queue_id;
	uint64_t ring_va;
	uint64_t ring_size; /* bytes, power of two */
	uint64_t rptr_va;   /* read pointer the engine writes */
	uint64_t wptr_va;   /* write pointer user space writes */
	/* Host pointer to this queue's 64-bit doorbell slot in the process's
	 * doorbell page. User space stores there what the engine works up to:
	 * AQL, the index of the last packet ready (so a fresh AQL queue's slot
	 * must hold UINT64_MAX, "nothing rung"); SDMA, the write offset in
	 * bytes (0 for a fresh queue). NULL: the engine follows the write
	 * pointer in memory instead (tests of the processors alone). */
	volatile uint64_t *doorbell;
	/* Index of that doorbell in the process's doorbell slice: what a
	 * wave's MSG_GET_DOORBELL yields (the trap handler masks 10 bits). */
	uint32_t doorbell_index;
	/* SDMA queues: the packet format of this GPU's SDMA engines. A zero
	 * width makes every packet using that field invalid. */
	struct sim_sdma_format sdma;
};

struct sim_engine_queue;

/* Start an engine for a queue: it runs on its own thread, watches the
 * doorbell (adaptive polling) and executes packets. NULL + errno on error. */
struct sim_engine_queue *sim_engine_queue_start(const struct sim_queue_desc *desc,
						const struct sim_gpu_env *env);
/* Test hook, also declared in kfdsim_test_hooks.h: false stops idle
 * engines from polling (they wait for a wake-up). */
void kfdsim_test_engine_idle_poll(bool on);
/* Kick the engine (a doorbell write is known to have happened). */
void sim_engine_queue_kick(struct sim_engine_queue *q);
/* Make the queue inactive (UPDATE_QUEUE to 0 % / size 0) or active again. */
void sim_engine_queue_set_active(struct sim_engine_queue *q, bool active);
/* Ask the engine to stop; returns at once, from any thread, callbacks of
 * the queue itself included. The queue stays allocated: kick, set_active
 * and halt remain valid (and do nothing useful) until its owner calls
 * stop(). */
void sim_engine_queue_halt(struct sim_engine_queue *q);
/* The owner's last call: halt, join the engine thread (it abandons the
 * packet in flight) and free the queue. Not from the queue's own engine
 * thread (that aborts: callbacks use halt()). */
void sim_engine_queue_stop(struct sim_engine_queue *q);

/*
 * Lifetime: the caller of start() owns the queue and is the only one who
 * frees it, with stop(). The engine thread never frees it, so a pointer
 * the owner has handed out (a kick in flight, a callback's context) stays
 * valid until the owner's stop(); the owner must make sure no other
 * thread still uses the pointer when it calls stop() (kfdsim: the queue is
 * out of the process's table and no eviction holds it).
 *
 * Threading rules (engine side, see docs/kfdsim-engines.md):
 * - All env callbacks run on the queue's engine thread, except translate
 *   and gpu_clock, which the ISA interpreter also calls from the helper
 *   threads of a dispatch whose workgroups run on several threads
 *   (VKFDSIM_ISA_THREADS, docs/kfdsim-isa.md): those two must be
 *   thread-safe. The helpers hold no pointer from translate() whenever
 *   the engine thread is at a preemption point. While interrupt,
 *   vm_fault or queue_error runs, the engine holds no pointer into GPU
 *   memory, so those callbacks may call set_active() on any queue.
 * - set_active(q, false) from another thread returns only once the engine
 *   holds no pointer from translate() and will take none until the queue
 *   is active again (an interrupted packet resumes where it was). So the
 *   caller must not hold a lock that translate() takes while calling it.
 * - stop() must not be called while holding a lock that the callbacks or
 *   translate() take, nor from the queue's own callbacks (they call
 *   halt(), which any thread may). A long packet (SLEEP, a barrier wait, a
 *   large copy) is abandoned promptly, not completed.
 * - Pointers returned by translate() are used only until the engine's next
 *   preemption point (at most 64 KiB of copying later).
 */

#endif
