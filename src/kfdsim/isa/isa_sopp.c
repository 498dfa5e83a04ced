/* SPDX-License-Identifier: MIT */
/* Program control (SOPP): branches, barrier, end, trap, waits. */
#include "isa_wave.h"

#define OP(n) ISA_OP_##n

static enum isa_result branch(struct isa_wave *w, const struct isa_inst *in, bool taken)
{
	if (!taken)
		return ISA_NEXT;
	w->pc = w->pc + 4 + (int64_t)in->imm * 4;
	return ISA_JUMP;
}

enum isa_result isa_exec_sopp(struct isa_wave *w, const struct isa_inst *in)
{
	uint64_t vcc = isa_sreg64(w, ISA_SRC_VCC_LO), exec = isa_exec(w);

	switch (in->op) {
	case OP(s_nop):
	case OP(s_waitcnt): /* every access completes before the next */
	case OP(s_setprio):
	case OP(s_sleep):      /* waves take turns anyway */
	case OP(s_icache_inv): /* the i-cache is per dispatch */
	case OP(s_incperflevel):
	case OP(s_decperflevel):
	case OP(s_ttracedata):
	case OP(s_wakeup):
		return ISA_NEXT;
	case OP(s_endpgm):
	case OP(s_endpgm_saved):
		return ISA_END;
	case OP(s_barrier):
		return ISA_BARRIER;
	case OP(s_trap):
		return ISA_TRAP;
	case OP(s_branch):
		return branch(w, in, true);
	case OP(s_cbranch_scc0):
		return branch(w, in, !w->scc);
	case OP(s_cbranch_scc1):
		return branch(w, in, w->scc);
	case OP(s_cbranch_vccz):
		return branch(w, in, vcc == 0);
	case OP(s_cbranch_vccnz):
		return branch(w, in, vcc != 0);
	case OP(s_cbranch_execz):
		return branch(w, in, exec == 0);
	case OP(s_cbranch_execnz):
		return branch(w, in, exec != 0);
	case OP(s_cbranch_cdbgsys):
	case OP(s_cbranch_cdbguser):
	case OP(s_cbranch_cdbgsys_and_user):
		return ISA_NEXT; /* no debugger attached */
	case OP(s_cbranch_cdbgsys_or_user):
		return ISA_NEXT;
	case OP(s_sendmsg):
		/* MSG_INTERRUPT: the wave interrupts the host with M0 as the
		 * context (ROCm's signal code puts the event id there after
		 * writing the event mailbox), as kfd_int_process_v9 forwards */
		if ((in->imm & 0xf) != 1)
			return isa_unimplemented(w, in);
		if (w->ctx->defer_reports) {
			/* raised by the engine thread at the end of the turn */
			w->ctx->irq = w->s[ISA_SRC_M0] & 0xffffff;
			w->ctx->has_irq = true;
			return ISA_YIELD;
		}
		if (!engine_raise_interrupt(w->ctx->q, w->s[ISA_SRC_M0] & 0xffffff))
			return ISA_STOPPED;
		/* the engine was parked during the callback */
		isa_mem_flush(w->ctx);
		return ISA_NEXT;
	default:
		/* other messages, s_sethalt, s_setkill, GPR indexing mode ... */
		return isa_unimplemented(w, in);
	}
}
