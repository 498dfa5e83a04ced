/* SPDX-License-Identifier: MIT */
/*
 * IEEE binary16 values as bit patterns (the low 16 bits of a uint32_t),
 * converted by hand rather than through _Float16, which not every
 * compiler supports on x86 (clang 14 refuses it).
 */
#ifndef KFDSIM_ISA_F16_H
#define KFDSIM_ISA_F16_H

#include <stdint.h>

/* Round to nearest even; NaNs stay NaNs (quiet, high payload bits kept). */
uint32_t isa_f16_of_f64(double d);
uint32_t isa_f16_bits(float f);
/* Round toward zero: finite values beyond the largest f16 give it. */
uint32_t isa_f16_rtz(float f);
/* Exact. */
float isa_f16_to_f32(uint32_t bits);
/* a * b + c of f16 values with one rounding to f16 (the exact sum is
 * rounded to odd in double precision first, which keeps the final
 * rounding to 11 bits correct). */
uint32_t isa_f16_fma(float a, float b, float c);

#endif
