/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: the storm trace (format in gen_model_load_trace.c): loading
 * it with every field bounded, and replaying one operation on a device.
 */
#ifndef VKFD_BENCH_TRACE_H
#define VKFD_BENCH_TRACE_H

#include "bench_dev.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum op_kind {
	OP_ALLOC,
	OP_MAP,
	OP_CPUMAP,
	OP_SUBMIT,
	OP_WAIT,
	OP_CPUUNMAP,
	OP_UNMAP,
	OP_FREE,
	OP_KIND_COUNT,
};

extern const char *const trace_op_names[OP_KIND_COUNT];

struct trace_op {
	uint8_t kind;
	uint8_t vram;
	uint32_t id;
	uint32_t line;
	uint64_t size;
};

struct trace {
	struct trace_op *ops;
	size_t n;
	uint32_t max_id;
};

/* 0, or -errno with a reason in why. */
int trace_load(const char *path, struct trace *t, char *why, size_t why_len);

/* Run one operation; bos/live are indexed by BO id (max_id + 1 entries);
 * event is the storm's auto-reset signal event. 0 or -errno. */
int trace_replay_op(struct bench_dev *d, const struct trace_op *op, struct bench_bo *bos,
		    bool *live, uint32_t event);

#endif
