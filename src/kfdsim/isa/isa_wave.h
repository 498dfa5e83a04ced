/* SPDX-License-Identifier: MIT */
/*
 * Wavefront and workgroup state of the gfx9 interpreter, and the
 * per-queue interpreter context (decoded-instruction cache, memory
 * translation cache). Register files are flat arrays indexed by operand
 * code, so decoded operands index them directly.
 */
#ifndef KFDSIM_ISA_WAVE_H
#define KFDSIM_ISA_WAVE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "engine_internal.h"
#include "isa_decode.h"

#define ISA_LANES 64
/* Operand codes 0..127 address scalar registers; SGPR ranges of up to 16
 * dwords may start at 127, hence the slack (never read back as specials). */
#define ISA_SREGS 160
/* 256 VGPRs then 256 AGPRs (operand codes 256+n / 512+n), plus slack for
 * register tuples starting near the end. */
#define ISA_VREGS 528
/* Rows of the slack used as temporaries by DPP and SDWA. */
#define ISA_ROW_DPP      520
#define ISA_ROW_SDWA0    521
#define ISA_ROW_SDWA1    522
#define ISA_ROW_SDWA_DST 523
#define ISA_MAX_WAVES    16 /* 1024 work-items per workgroup */
#define ISA_LDS_MAX      (64u * 1024u)
/* Largest private segment per work-item the model backs (gfx9: a wave's
 * scratch is at most 8 MiB, i.e. 128 KiB per lane). */
#define ISA_PRIVATE_MAX (128u * 1024u)

/* Apertures of the flat address space (kfd_init_apertures_v9). */
#define ISA_SHARED_APERTURE  (1ull << 48)
#define ISA_PRIVATE_APERTURE (2ull << 48)
#define ISA_APERTURE_SIZE    (1ull << 32)

enum isa_result {
	ISA_NEXT = 0,  /* continue at pc + size */
	ISA_JUMP,      /* pc was set */
	ISA_BARRIER,   /* s_barrier: wait for the other waves */
	ISA_END,       /* s_endpgm */
	ISA_FAULT,     /* memory violation reported (queue dead) */
	ISA_ILLEGAL,   /* not decodable / not implemented */
	ISA_TRAP,      /* s_trap */
	ISA_STOPPED,   /* the engine was stopped */
	ISA_UNHANDLED, /* between VALU executors: not this family's op */
	ISA_YIELD,     /* continue at pc + size, but end the worker's turn (an
			* interrupt waits for the engine thread) */
};

enum isa_wave_state {
	ISA_WAVE_RUN,
	ISA_WAVE_BARRIER,
	ISA_WAVE_DONE,
};

struct isa_ctx;

struct isa_wave {
	uint32_t s[ISA_SREGS];
	uint32_t (*v)[ISA_LANES]; /* [ISA_VREGS][ISA_LANES] */
	uint64_t pc;
	bool scc;
	enum isa_wave_state state;
	uint32_t mode;
	uint32_t trapsts;
	uint32_t id;   /* wave index inside the workgroup */
	uint8_t *priv; /* [ISA_LANES][priv_size], allocated before the wave starts */
	struct isa_ctx *ctx;
};

#define ISA_ICACHE_SIZE 4096u
#define ISA_TLB_SIZE    16u
#define ISA_TLB_CHUNK   (64ull * 1024ull)

struct isa_icache_entry {
	uint64_t pc;
	uint64_t gen;
	struct isa_inst in;
};

struct isa_tlb_entry {
	uint64_t base; /* ISA_TLB_CHUNK aligned; ~0 when empty */
	uint8_t *host;
	bool write;
};

struct isa_ctx {
	struct sim_engine_queue *q;
	enum isa_target target;
	/* dispatch */
	uint64_t gen; /* bumped per dispatch: invalidates the i-cache */
	uint32_t priv_size;
	uint32_t lds_size;
	uint8_t *lds; /* ISA_LDS_MAX bytes */
	struct isa_wave waves[ISA_MAX_WAVES];
	unsigned nwaves;
	/* caches */
	struct isa_icache_entry *icache; /* ISA_ICACHE_SIZE */
	struct isa_tlb_entry tlb[ISA_TLB_SIZE];
	/* what stopped the dispatch */
	uint64_t fault_va;
	bool fault_write;
	uint16_t bad_op; /* unimplemented instruction, or 0 */
	uint8_t bad_fmt;
	uint64_t bad_pc;
	uint64_t instructions; /* wave instructions executed */
	/* Several threads run the dispatch (isa_dispatch.c): faults and
	 * interrupts are recorded here and reported by the engine thread at
	 * the end of the turn, as every env callback but translate and
	 * gpu_clock must run there. */
	bool defer_reports;
	bool has_irq;
	uint32_t irq;
};

/* ---- scalar registers ---- */
static inline uint64_t isa_exec(const struct isa_wave *w)
{
	return w->s[ISA_SRC_EXEC_LO] | (uint64_t)w->s[ISA_SRC_EXEC_HI] << 32;
}

static inline void isa_set_exec(struct isa_wave *w, uint64_t v)
{
	w->s[ISA_SRC_EXEC_LO] = (uint32_t)v;
	w->s[ISA_SRC_EXEC_HI] = (uint32_t)(v >> 32);
}

static inline uint64_t isa_sreg64(const struct isa_wave *w, unsigned code)
{
	return w->s[code] | (uint64_t)w->s[code + 1] << 32;
}

/* Scalar destinations: codes above 127 (constants) are not writable. */
static inline void isa_wr_s32(struct isa_wave *w, unsigned code, uint32_t v)
{
	if (code < 128)
		w->s[code] = v;
}

static inline void isa_wr_s64(struct isa_wave *w, unsigned code, uint64_t v)
{
	if (code < 127) {
		w->s[code] = (uint32_t)v;
		w->s[code + 1] = (uint32_t)(v >> 32);
	}
}

/* Operand types for inline constants. */
enum isa_type {
	ISA_T_B32,
	ISA_T_F32,
	ISA_T_F16,
	ISA_T_B64,
	ISA_T_F64,
	ISA_T_I64, /* a literal sign-extends */
};

/* Value of a scalar (non-VGPR) operand code: SGPRs and specials, inline
 * constants, the literal. */
uint64_t isa_scalar_operand(const struct isa_wave *w, const struct isa_inst *in, unsigned code,
			    enum isa_type t);

/* ---- memory (isa_mem.c) ---- */
/* Host pointer for [va, va+len) or NULL (the caller reports a fault). */
void *isa_mem_host(struct isa_ctx *c, uint64_t va, uint64_t len, bool write);
/* Forget cached translations (at every preemption point). */
void isa_mem_flush(struct isa_ctx *c);
/* Record a VM fault for the queue: always returns ISA_FAULT. */
enum isa_result isa_mem_fault(struct isa_ctx *c, uint64_t va, bool write);
/* Lane-private memory of a wave: pointer to `len` bytes at private
 * address `addr` of `lane`, or NULL when outside the private segment. */
uint8_t *isa_private(struct isa_wave *w, unsigned lane, uint64_t addr, unsigned len);
/* LDS of the workgroup: NULL when outside its allocation. */
uint8_t *isa_lds(struct isa_ctx *c, uint64_t addr, unsigned len);

/* Flat address resolution (FLAT segment): the LDS and private apertures
 * are per workgroup / per lane; everything else is global memory. */
enum isa_flat_kind {
	ISA_FLAT_GLOBAL,
	ISA_FLAT_LDS,
	ISA_FLAT_PRIVATE,
};
static inline enum isa_flat_kind isa_flat_kind(uint64_t addr)
{
	if (addr - ISA_SHARED_APERTURE < ISA_APERTURE_SIZE)
		return ISA_FLAT_LDS;
	if (addr - ISA_PRIVATE_APERTURE < ISA_APERTURE_SIZE)
		return ISA_FLAT_PRIVATE;
	return ISA_FLAT_GLOBAL;
}

/* ---- executors, one per encoding family ---- */
enum isa_result isa_exec_salu(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_sopp(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_smem(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_valu(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_ds(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_flat(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_mubuf(struct isa_wave *w, const struct isa_inst *in);
enum isa_result isa_exec_mtbuf(struct isa_wave *w, const struct isa_inst *in);
/* MUBUF buffer_{load,store}_format_* (opcodes 0-15): the resource's format */
enum isa_result isa_exec_mubuf_format(struct isa_wave *w, const struct isa_inst *in);

/* Mark the instruction unimplemented: returns ISA_ILLEGAL. */
enum isa_result isa_unimplemented(struct isa_wave *w, const struct isa_inst *in);

#endif
