/* SPDX-License-Identifier: MIT */
/* kfdsim's builtin kernels; kernargs are little-endian. */
#include "builtin_kernels.h"

#include <string.h>

#include "aql_packets.h"
#include "engine_mem.h"

/* Elements per VADD step: bounded stack use, and a preemption point
 * every step. */
#define VADD_STEP 1024u

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float f32_from_le(const uint8_t *p)
{
	uint32_t bits = le32(p);
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static void f32_to_le(uint8_t *p, float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(bits >> (8 * i));
}

/* FILL_U32 {u64 dst; u32 value; u32 count} */
static enum engine_status run_fill(struct sim_engine_queue *q, uint64_t kernarg)
{
	uint8_t ka[16];
	enum engine_status st = engine_mem_read(q, kernarg, ka, sizeof(ka));

	if (st != ENGINE_OK)
		return st;
	return engine_mem_fill32(q, le64(ka), le32(ka + 8), (uint64_t)le32(ka + 12) * 4);
}

/* COPY {u64 dst; u64 src; u64 bytes} */
static enum engine_status run_copy(struct sim_engine_queue *q, uint64_t kernarg)
{
	uint8_t ka[24];
	enum engine_status st = engine_mem_read(q, kernarg, ka, sizeof(ka));

	if (st != ENGINE_OK)
		return st;
	return engine_mem_copy(q, le64(ka), le64(ka + 8), le64(ka + 16));
}

/* VADD_F32 {u64 a; u64 b; u64 c; u32 n}: c[i] = a[i] + b[i] */
static enum engine_status run_vadd(struct sim_engine_queue *q, uint64_t kernarg)
{
	uint8_t ka[28];
	uint8_t a[VADD_STEP * 4], b[VADD_STEP * 4];
	uint64_t va_a, va_b, va_c, done = 0, n;
	enum engine_status st = engine_mem_read(q, kernarg, ka, sizeof(ka));

	if (st != ENGINE_OK)
		return st;
	va_a = le64(ka);
	va_b = le64(ka + 8);
	va_c = le64(ka + 16);
	n = le32(ka + 24);
	while (done < n) {
		uint64_t step = n - done < VADD_STEP ? n - done : VADD_STEP;
		uint64_t off = done * 4;

		st = engine_mem_read(q, va_a + off, a, step * 4);
		if (st == ENGINE_OK)
			st = engine_mem_read(q, va_b + off, b, step * 4);
		if (st != ENGINE_OK)
			return st;
		for (uint64_t i = 0; i < step; i++)
			f32_to_le(a + 4 * i, f32_from_le(a + 4 * i) + f32_from_le(b + 4 * i));
		st = engine_mem_write(q, va_c + off, a, step * 4);
		if (st != ENGINE_OK)
			return st;
		done += step;
	}
	return ENGINE_OK;
}

/* SLEEP {u64 ns} */
static enum engine_status run_sleep(struct sim_engine_queue *q, uint64_t kernarg)
{
	uint8_t ka[8];
	enum engine_status st = engine_mem_read(q, kernarg, ka, sizeof(ka));

	if (st != ENGINE_OK)
		return st;
	return engine_sleep_ns(q, le64(ka)) ? ENGINE_OK : ENGINE_STOPPED;
}

/* FAULT {u64 addr}: a dword load from addr. */
static enum engine_status run_fault(struct sim_engine_queue *q, uint64_t kernarg)
{
	uint8_t ka[8], word[4];
	enum engine_status st = engine_mem_read(q, kernarg, ka, sizeof(ka));

	if (st != ENGINE_OK)
		return st;
	return engine_mem_read(q, le64(ka), word, sizeof(word));
}

enum engine_status builtin_kernel_run(struct sim_engine_queue *q, uint32_t id, uint64_t kernarg)
{
	switch (id) {
	case KFDSIM_BUILTIN_FILL_U32:
		return run_fill(q, kernarg);
	case KFDSIM_BUILTIN_COPY:
		return run_copy(q, kernarg);
	case KFDSIM_BUILTIN_VADD_F32:
		return run_vadd(q, kernarg);
	case KFDSIM_BUILTIN_SLEEP:
		return run_sleep(q, kernarg);
	case KFDSIM_BUILTIN_FAULT:
		return run_fault(q, kernarg);
	default:
		engine_queue_error(q, SIM_QERR_ILLEGAL_INSTRUCTION);
		return ENGINE_DEAD;
	}
}
