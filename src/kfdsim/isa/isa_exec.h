/* SPDX-License-Identifier: MIT */
/* Running a wave: fetch, decode (cached), execute. */
#ifndef KFDSIM_ISA_EXEC_H
#define KFDSIM_ISA_EXEC_H

#include "isa_wave.h"

/* Execute up to `budget` instructions of w. ISA_NEXT when the budget ran
 * out; ISA_BARRIER (pc past the barrier), ISA_END, or an error. */
enum isa_result isa_wave_run(struct isa_wave *w, unsigned budget);

/* Execute one decoded instruction (no fetch, pc not advanced). */
enum isa_result isa_execute(struct isa_wave *w, const struct isa_inst *in);

#endif
