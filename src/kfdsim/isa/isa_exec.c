/* SPDX-License-Identifier: MIT */
/*
 * Instruction fetch (a decoded-instruction cache keyed by PC), operand
 * values of scalar operand codes, and the per-encoding dispatch of one
 * wave's instructions.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "isa_exec.h"

/* Inline float constants 240..248 (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2pi)). */
static const uint32_t inline_f32[9] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
				       0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
static const uint64_t inline_f64[9] = {
    0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull,
    0xbff0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
    0x4010000000000000ull, 0xc010000000000000ull, 0x3fc45f306dc9c882ull};
static const uint16_t inline_f16[9] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
				       0xc000, 0x4400, 0xc400, 0x3118};

static bool is64(enum isa_type t)
{
	return t == ISA_T_B64 || t == ISA_T_F64 || t == ISA_T_I64;
}

uint64_t isa_scalar_operand(const struct isa_wave *w, const struct isa_inst *in, unsigned code,
			    enum isa_type t)
{
	if (code < 128) {
		if (is64(t))
			return code < 127 ? isa_sreg64(w, code) : w->s[code];
		return w->s[code];
	}
	if (code <= 192) /* 0..64 */
		return code - 128;
	if (code <= 208) { /* -1..-16 */
		int64_t v = -(int64_t)(code - 192);

		return is64(t) ? (uint64_t)v : (uint32_t)v;
	}
	if (code >= 240 && code <= 248) {
		if (t == ISA_T_F64 || t == ISA_T_B64 || t == ISA_T_I64)
			return inline_f64[code - 240];
		if (t == ISA_T_F16)
			return inline_f16[code - 240];
		return inline_f32[code - 240];
	}
	/* The aperture registers: a 32-bit operand reads the high half of the
	 * address, a 64-bit operand the whole address (LLVM 17 and later load
	 * src_private_base with s_mov_b64 and use the high register). */
	switch (code) {
	case 235: /* src_shared_base */
		return is64(t) ? ISA_SHARED_APERTURE : ISA_SHARED_APERTURE >> 32;
	case 236: /* src_shared_limit */
		return (ISA_SHARED_APERTURE + ISA_APERTURE_SIZE - 1) >> (is64(t) ? 0 : 32);
	case 237: /* src_private_base */
		return is64(t) ? ISA_PRIVATE_APERTURE : ISA_PRIVATE_APERTURE >> 32;
	case 238: /* src_private_limit */
		return (ISA_PRIVATE_APERTURE + ISA_APERTURE_SIZE - 1) >> (is64(t) ? 0 : 32);
	case ISA_SRC_VCCZ:
		return isa_sreg64(w, ISA_SRC_VCC_LO) == 0;
	case ISA_SRC_EXECZ:
		return isa_exec(w) == 0;
	case ISA_SRC_SCC:
		return w->scc;
	case ISA_SRC_LITERAL:
		if (t == ISA_T_F64)
			return (uint64_t)in->literal << 32;
		if (t == ISA_T_I64)
			return (uint64_t)(int64_t)(int32_t)in->literal;
		return in->literal;
	default:
		return 0; /* reserved codes read as 0 */
	}
}

enum isa_result isa_unimplemented(struct isa_wave *w, const struct isa_inst *in)
{
	static _Atomic uint8_t reported[ISA_OP_COUNT];
	struct isa_ctx *c = w->ctx;

	c->bad_op = in->op;
	c->bad_fmt = in->fmt;
	c->bad_pc = w->pc;
	if (in->op < ISA_OP_COUNT && !atomic_exchange(&reported[in->op], 1))
		fprintf(stderr,
			"kfdsim: gfx9 instruction %s (%s opcode 0x%x) is not implemented; the "
			"queue reports an illegal instruction\n",
			isa_op_name(in->op), isa_fmt_name(in->fmt), in->hwop);
	return ISA_ILLEGAL;
}

/* Decoded instruction at w->pc, or NULL with *r set (fault / illegal). */
static const struct isa_inst *fetch(struct isa_wave *w, enum isa_result *r)
{
	struct isa_ctx *c = w->ctx;
	struct isa_icache_entry *e = &c->icache[(w->pc >> 2) & (ISA_ICACHE_SIZE - 1)];
	uint32_t words[2];
	const uint32_t *p;
	unsigned n = 2;

	if (e->pc == w->pc && e->gen == c->gen)
		return &e->in;
	if (w->pc & 3) {
		*r = isa_mem_fault(c, w->pc, false);
		return NULL;
	}
	p = isa_mem_host(c, w->pc, 8, false);
	if (!p) {
		n = 1;
		p = isa_mem_host(c, w->pc, 4, false);
		if (!p) {
			*r = isa_mem_fault(c, w->pc, false);
			return NULL;
		}
	}
	memcpy(words, p, 4 * n);
	if (!isa_decode(c->target, words, n, &e->in)) {
		if (e->in.op != ISA_OP_INVALID && n * 4 < e->in.size) {
			/* the instruction runs into an unmapped page */
			*r = isa_mem_fault(c, w->pc + 4, false);
			return NULL;
		}
		c->bad_op = e->in.op;
		c->bad_fmt = e->in.fmt;
		c->bad_pc = w->pc;
		e->gen = 0;
		*r = ISA_ILLEGAL;
		return NULL;
	}
	e->pc = w->pc;
	e->gen = c->gen;
	return &e->in;
}

enum isa_result isa_execute(struct isa_wave *w, const struct isa_inst *in)
{
	enum isa_result r;

	switch (in->fmt) {
	case ISA_FMT_SOP2:
	case ISA_FMT_SOPK:
	case ISA_FMT_SOP1:
	case ISA_FMT_SOPC:
		r = isa_exec_salu(w, in);
		break;
	case ISA_FMT_SOPP:
		r = isa_exec_sopp(w, in);
		break;
	case ISA_FMT_SMEM:
		r = isa_exec_smem(w, in);
		break;
	case ISA_FMT_VOP2:
	case ISA_FMT_VOP1:
	case ISA_FMT_VOPC:
	case ISA_FMT_VOP3:
	case ISA_FMT_VOP3P:
		r = isa_exec_valu(w, in);
		break;
	case ISA_FMT_DS:
		r = isa_exec_ds(w, in);
		break;
	case ISA_FMT_FLAT:
	case ISA_FMT_SCRATCH:
	case ISA_FMT_GLOBAL:
		r = isa_exec_flat(w, in);
		break;
	case ISA_FMT_MUBUF:
		r = isa_exec_mubuf(w, in);
		break;
	case ISA_FMT_MTBUF:
		r = isa_exec_mtbuf(w, in);
		break;
	default:
		r = isa_unimplemented(w, in);
		break;
	}
	return r;
}

/* VKFDSIM_ISA_TRACE=1: every executed instruction of every wave on stderr
 * (debugging aid; slow). */
static int trace_enabled(void)
{
	/* engine threads read it concurrently: an atomic, computed once */
	static _Atomic int t = -1;
	int v = atomic_load_explicit(&t, memory_order_relaxed);

	if (v < 0) {
		const char *e = getenv("VKFDSIM_ISA_TRACE");

		v = e && *e == '1';
		atomic_store_explicit(&t, v, memory_order_relaxed);
	}
	return v;
}

static void trace(const struct isa_wave *w, const struct isa_inst *in)
{
	fprintf(stderr,
		"isa: w%u pc %#" PRIx64 " exec %#" PRIx64
		" %-24s dst %u src %u %u %u lit %#x imm %d\n",
		w->id, w->pc, isa_exec(w), isa_op_name(in->op), in->dst, in->src[0], in->src[1],
		in->src[2], in->literal, in->imm);
}

enum isa_result isa_wave_run(struct isa_wave *w, unsigned budget)
{
	int tr = trace_enabled();

	while (budget--) {
		enum isa_result r = ISA_NEXT;
		const struct isa_inst *in = fetch(w, &r);

		if (!in)
			return r;
		if (tr)
			trace(w, in);
		r = isa_execute(w, in);
		w->ctx->instructions++;
		switch (r) {
		case ISA_NEXT:
			w->pc += in->size;
			break;
		case ISA_JUMP:
			break;
		case ISA_BARRIER:
		case ISA_YIELD:
			w->pc += in->size;
			return r;
		default:
			return r;
		}
	}
	return ISA_NEXT;
}
