/* SPDX-License-Identifier: MIT */
/*
 * Host reference of the gfx90a MFMA instructions (see mfma_ref.h). The
 * test inputs are small multiples of 1/2, so every sum is exact and the
 * order of the additions does not matter.
 */
#include "mfma_ref.h"

#include <string.h>

unsigned mfma_ref_in_regs(const struct mfma_ref_case *c)
{
	unsigned per_lane = c->k * c->m * c->blocks / 64;

	if (c->in == MFMA_REF_F64)
		return 2;
	if (c->in == MFMA_REF_F16 || c->in == MFMA_REF_BF16)
		return (per_lane + 1) / 2;
	return 1;
}

unsigned mfma_ref_out_regs(const struct mfma_ref_case *c)
{
	return c->m * c->m * c->blocks / 64 * (c->in == MFMA_REF_F64 ? 2 : 1);
}

/* binary16 to double (normal numbers and zero are enough here) */
static double f16_value(uint32_t h)
{
	int e = (int)(h >> 10 & 31);
	double v = e ? (1.0 + (h & 1023) / 1024.0) : (h & 1023) / 1024.0;

	e = e ? e - 15 : -14;
	while (e > 0)
		v *= 2, e--;
	while (e < 0)
		v /= 2, e++;
	return h & 0x8000 ? -v : v;
}

static double f32_value(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static double f64_value(uint64_t u)
{
	double f;

	memcpy(&f, &u, 8);
	return f;
}

/* Lane of A[i][k] (B[k][j]: j for i) of block b, per the calculator. */
static unsigned in_lane(const struct mfma_ref_case *c, unsigned i, unsigned k, unsigned b)
{
	unsigned per_lane = c->k * c->m * c->blocks / 64;

	if (c->in == MFMA_REF_F64 && c->m == 4)
		return 4 * b + 16 * k + i;
	if (c->blocks == 1)
		return c->m * (k / per_lane) + i;
	return c->m * b + i; /* multi-block shapes hold all of K in a lane */
}

/* A/B element k of a lane's registers */
static double in_value(const struct mfma_ref_case *c, const uint32_t r[][64], unsigned lane,
		       unsigned k)
{
	unsigned per_lane = c->k * c->m * c->blocks / 64, e = k % per_lane;

	switch (c->in) {
	case MFMA_REF_F32:
		return f32_value(r[0][lane]);
	case MFMA_REF_F16:
		return f16_value(r[e / 2][lane] >> (e % 2 ? 16 : 0) & 0xffff);
	case MFMA_REF_BF16:
		return f32_value((r[e / 2][lane] >> (e % 2 ? 16 : 0) & 0xffff) << 16);
	case MFMA_REF_I8:
		return (int8_t)(r[0][lane] >> 8 * e);
	default:
		return f64_value(r[0][lane] | (uint64_t)r[1][lane] << 32);
	}
}

/* Register (32-bit, or the first of an f64 pair) and lane of C/D[i][j]. */
static void out_place(const struct mfma_ref_case *c, unsigned i, unsigned j, unsigned b,
		      unsigned *reg, unsigned *lane)
{
	if (c->in == MFMA_REF_F64) {
		*reg = 2 * (i / 4);
		*lane = 16 * (i % 4) + (c->m == 4 ? 4 * b : 0) + j;
	} else if (c->m == 32) {
		*reg = 16 * b + 4 * (i / 8) + i % 4;
		*lane = (32 * (i / 4)) % 64 + j;
	} else if (c->m == 16) {
		*reg = 4 * b + i % 4;
		*lane = 16 * (i / 4) + j;
	} else {
		*reg = i;
		*lane = 4 * b + j;
	}
}

/* The lane B is read from under BLGP. */
static unsigned blgp_source(unsigned blgp, unsigned lane)
{
	static const unsigned group_base[8] = {0, 0, 32, 0, 0, 16, 32, 48};

	if (blgp == 0)
		return lane;
	if (blgp == 3)
		return lane < 48 ? lane + 16 : lane - 48;
	if (blgp <= 2)
		return group_base[blgp] + (lane & 31);
	return group_base[blgp] + (lane & 15);
}

void mfma_ref_run(const struct mfma_ref_case *c, const uint32_t a[][64], const uint32_t b[][64],
		  const uint32_t cm[][64], uint32_t d[][64])
{
	for (unsigned blk = 0; blk < c->blocks; blk++) {
		unsigned group = 1u << c->cbsz, ablk = blk / group * group + c->abid;

		for (unsigned i = 0; i < c->m; i++)
			for (unsigned j = 0; j < c->m; j++) {
				unsigned reg, lane;
				double sum = 0;
				int64_t isum = 0;
				uint64_t cv;

				out_place(c, i, j, blk, &reg, &lane);
				if (c->c_is_const)
					cv = c->c_const;
				else if (c->in == MFMA_REF_F64)
					cv = cm[reg][lane] | (uint64_t)cm[reg + 1][lane] << 32;
				else
					cv = cm[reg][lane];
				for (unsigned k = 0; k < c->k; k++) {
					double x = in_value(c, a, in_lane(c, i, k, ablk), k);
					double y = in_value(
					    c, b, blgp_source(c->blgp, in_lane(c, j, k, blk)), k);

					if (c->in == MFMA_REF_I8)
						isum += (int64_t)x * (int64_t)y;
					else
						sum += x * y;
				}
				if (c->in == MFMA_REF_I8) {
					d[reg][lane] = (uint32_t)cv + (uint32_t)isum;
				} else if (c->in == MFMA_REF_F64) {
					double r = f64_value(cv) + sum;
					uint64_t u;

					memcpy(&u, &r, 8);
					d[reg][lane] = (uint32_t)u;
					d[reg + 1][lane] = (uint32_t)(u >> 32);
				} else {
					float r = (float)(f32_value((uint32_t)cv) + sum);

					memcpy(&d[reg][lane], &r, 4);
				}
			}
	}
}
