// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: loading and replaying the storm trace. The trace is a local
 * file but is still parsed defensively: every count, id and size is bounded.
 */
#include "bench_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#define TRACE_MAX_OPS   200000u
#define TRACE_MAX_ID    100000u
#define TRACE_MAX_SIZE  (64ull << 30)
#define WAIT_TIMEOUT_MS 2000u /* a storm wait follows its signal */

const char *const trace_op_names[OP_KIND_COUNT] = {
    "alloc", "map", "cpumap", "submit", "wait", "cpuunmap", "unmap", "free",
};
static int parse_line(char *s, struct trace_op *op, char *why, size_t why_len)
{
	char word[16], kind[8];
	unsigned long long id = 0, size = 0;
	int n;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '#' || *s == '\n' || *s == '\0')
		return 0;
	if (sscanf(s, "%15s", word) != 1)
		goto bad;
	for (unsigned k = 0; k < OP_KIND_COUNT; k++) {
		if (strcmp(word, trace_op_names[k]))
			continue;
		op->kind = (uint8_t)k;
		if (k == OP_SUBMIT || k == OP_WAIT)
			return 1;
		if (k == OP_ALLOC) {
			n = sscanf(s, "%*s %llu %7s %llu", &id, kind, &size);
			if (n != 3 || (strcmp(kind, "vram") && strcmp(kind, "gtt")) || size == 0 ||
			    size > TRACE_MAX_SIZE || size % 4096)
				goto bad;
			op->vram = kind[0] == 'v';
			op->size = size;
		} else if (sscanf(s, "%*s %llu", &id) != 1) {
			goto bad;
		}
		if (id == 0 || id > TRACE_MAX_ID)
			goto bad;
		op->id = (uint32_t)id;
		return 1;
	}
bad:
	n = (int)strcspn(s, "\n");
	snprintf(why, why_len, "malformed trace line '%.*s'", n < 60 ? n : 60, s);
	return -EINVAL;
}

int trace_load(const char *path, struct trace *t, char *why, size_t why_len)
{
	FILE *f = fopen(path, "r");
	char line[256];
	uint32_t lineno = 0;
	size_t cap = 0;
	int r = 0;

	memset(t, 0, sizeof(*t));
	if (!f) {
		snprintf(why, why_len, "cannot open trace %s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		struct trace_op op;

		lineno++;
		memset(&op, 0, sizeof(op));
		r = parse_line(line, &op, why, why_len);
		if (r < 0)
			break;
		if (r == 0)
			continue;
		r = 0;
		if (t->n == TRACE_MAX_OPS) {
			snprintf(why, why_len, "trace longer than %u operations", TRACE_MAX_OPS);
			r = -E2BIG;
			break;
		}
		if (t->n == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct trace_op *n = realloc(t->ops, ncap * sizeof(*n));

			if (!n) {
				r = -ENOMEM;
				snprintf(why, why_len, "out of memory");
				break;
			}
			t->ops = n;
			cap = ncap;
		}
		op.line = lineno;
		if (op.id > t->max_id)
			t->max_id = op.id;
		t->ops[t->n++] = op;
	}
	fclose(f);
	if (!r && t->n == 0) {
		snprintf(why, why_len, "trace %s has no operations", path);
		r = -EINVAL;
	}
	if (r) {
		free(t->ops);
		t->ops = NULL;
	}
	return r;
}

int trace_replay_op(struct bench_dev *d, const struct trace_op *op, struct bench_bo *bos,
		    bool *live, uint32_t event)
{
	struct bench_bo *bo = op->id ? &bos[op->id] : NULL;
	uint32_t result = 0;
	uint64_t va;
	int r;

	if (op->kind != OP_SUBMIT && op->kind != OP_WAIT && op->kind != OP_ALLOC && !live[op->id])
		return -ENOENT; /* trace uses a BO it did not allocate */
	switch (op->kind) {
	case OP_ALLOC:
		if (live[op->id])
			return -EEXIST;
		va = bench_dev_va(d, op->size);
		if (!va)
			return -ENOMEM;
		r = bench_dev_alloc(d, op->vram ? BENCH_MEM_VRAM : BENCH_MEM_GTT, va, op->size, bo);
		if (!r)
			live[op->id] = true;
		return r;
	case OP_MAP:
		return bench_dev_map(d, bo);
	case OP_CPUMAP:
		return bench_dev_cpu_map(d, bo);
	case OP_SUBMIT:
		return bench_dev_event_set(d, event, true);
	case OP_WAIT:
		r = bench_dev_event_wait(d, event, WAIT_TIMEOUT_MS, &result);
		if (!r && result != KFD_IOC_WAIT_RESULT_COMPLETE)
			r = -ETIMEDOUT;
		return r;
	case OP_CPUUNMAP:
		return bench_dev_cpu_unmap(d, bo);
	case OP_UNMAP:
		return bench_dev_unmap(d, bo, true);
	case OP_FREE:
		live[op->id] = false;
		return bench_dev_free(d, bo, true);
	}
	return -EINVAL;
}
