/* SPDX-License-Identifier: MIT */
/* IEEE binary16 <-> binary32 conversions (see isa_f16.h). */
#include <math.h>
#include <string.h>

#include "isa_f16.h"

/* f64 to f16, round to nearest even. A float converts exactly to
 * double, so isa_f16_bits rounds once too. */
uint32_t isa_f16_of_f64(double d)
{
	uint64_t x, man, rem, half;
	uint32_t sign, h;
	int e;

	memcpy(&x, &d, 8);
	sign = (uint32_t)(x >> 48) & 0x8000u;
	e = (int)((x >> 52) & 0x7ff);
	man = x & ((1ull << 52) - 1);
	if (e == 0x7ff)
		return sign | (man ? 0x7e00u | (uint32_t)(man >> 42) : 0x7c00u);
	if (e == 0) /* f64 denormals are far below f16's smallest value */
		return sign;
	e = e - 1023 + 15;
	if (e >= 0x1f)
		return sign | 0x7c00u;
	if (e <= 0) {
		unsigned shift = (unsigned)(43 - e); /* 53 .. 43 */

		if (e < -10)
			return sign;
		man |= 1ull << 52;
		h = (uint32_t)(man >> shift);
		rem = man & ((1ull << shift) - 1);
		half = 1ull << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return sign | h;
	}
	h = ((uint32_t)e << 10) | (uint32_t)(man >> 42);
	rem = man & ((1ull << 42) - 1);
	half = 1ull << 41;
	/* a carry out of the mantissa moves into the exponent, up to inf */
	if (rem > half || (rem == half && (h & 1)))
		h++;
	return sign | h;
}

uint32_t isa_f16_bits(float f)
{
	return isa_f16_of_f64((double)f);
}

uint32_t isa_f16_rtz(float f)
{
	uint32_t x, sign, e, h;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000u;
	if ((x & 0x7fffffffu) > 0x7f800000u || (x & 0x7fffffffu) == 0x7f800000u)
		return isa_f16_bits(f); /* NaN, inf */
	h = isa_f16_bits(f);
	if ((h & 0x7fffu) == 0x7c00u)
		return sign | 0x7bffu; /* overflow: the largest finite */
	/* nearest even went away from zero: step back one ulp */
	e = h & 0x7fffu;
	if (e && fabsf(isa_f16_to_f32(h)) > fabsf(f))
		h = sign | (e - 1);
	return h;
}

uint32_t isa_f16_fma(float a, float b, float c)
{
	double p = (double)a * (double)b; /* exact: 22 significant bits */
	double s = p + (double)c, bb, err;
	uint64_t u;

	if (!isfinite(s))
		return isa_f16_of_f64(s);
	/* exact error of the sum (TwoSum); a non-zero error with an even
	 * last bit moves the sum to its odd neighbour towards the exact
	 * value: round to odd */
	bb = s - p;
	err = (p - (s - bb)) + ((double)c - bb);
	memcpy(&u, &s, 8);
	if (err != 0.0 && !(u & 1))
		s = nextafter(s, err > 0.0 ? INFINITY : -INFINITY);
	return isa_f16_of_f64(s);
}

float isa_f16_to_f32(uint32_t bits)
{
	uint32_t sign = (bits & 0x8000u) << 16, exp = (bits >> 10) & 0x1fu, man = bits & 0x3ffu;
	uint32_t x;
	float f;

	if (exp == 0) {
		f = ldexpf((float)man, -24);
		return sign ? -f : f;
	}
	if (exp == 0x1f)
		x = sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0);
	else
		x = sign | ((exp - 15 + 127) << 23) | (man << 13);
	memcpy(&f, &x, 4);
	return f;
}
