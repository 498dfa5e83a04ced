// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "storm": replays model_load.trace (see gen_model_load_trace.c)
 * on each path and reports wall time, commands per second, the blob and
 * CPU-mapping operations issued and per-operation latencies as the guest
 * sees them (the host does not expose its own per-command handling time).
 */
#include "bench.h"
#include "bench_dev.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kfd_ioctl.h>

#define TRACE_MAX_OPS  200000u
#define TRACE_MAX_ID   100000u
#define TRACE_MAX_SIZE (64ull << 30)
#define WAIT_TIMEOUT_MS 2000u

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

static const char *const op_names[OP_KIND_COUNT] = {
	"alloc", "map", "cpumap", "submit", "wait", "cpuunmap", "unmap", "free",
};
static const char *const op_p50[OP_KIND_COUNT] = {
	"alloc_p50_us",  "map_p50_us",	  "cpumap_p50_us", "submit_p50_us",
	"wait_p50_us",	 "cpuunmap_p50_us", "unmap_p50_us", "free_p50_us",
};
static const char *const op_max[OP_KIND_COUNT] = {
	"alloc_max_us",  "map_max_us",	  "cpumap_max_us", "submit_max_us",
	"wait_max_us",	 "cpuunmap_max_us", "unmap_max_us", "free_max_us",
};

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
		if (strcmp(word, op_names[k]))
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
	snprintf(why, why_len, "malformed trace line '%.60s'", s);
	return -EINVAL;
}

static int trace_load(const char *path, struct trace *t, char *why, size_t why_len)
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

struct op_samples {
	uint64_t *v;
	size_t n;
};

static int replay_op(struct bench_dev *d, const struct trace_op *op, struct bench_bo *bos,
		     bool *live, uint32_t event)
{
	struct bench_bo *bo = op->id ? &bos[op->id] : NULL;
	uint32_t result = 0;
	uint64_t va;
	int r;

	if (op->kind != OP_SUBMIT && op->kind != OP_WAIT && op->kind != OP_ALLOC &&
	    !live[op->id])
		return -ENOENT; /* trace uses a BO it did not allocate */
	switch (op->kind) {
	case OP_ALLOC:
		if (live[op->id])
			return -EEXIST;
		va = bench_dev_va(d, op->size);
		if (!va)
			return -ENOMEM;
		r = bench_dev_alloc(d, op->vram ? BENCH_MEM_VRAM : BENCH_MEM_GTT, va, op->size,
				    bo);
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

static void storm_path(enum bench_path p, const struct trace *t, struct bench_cell *c)
{
	struct op_samples s[OP_KIND_COUNT];
	uint64_t *all = NULL;
	struct bench_bo *bos = NULL;
	bool *live = NULL;
	struct bench_dev *d;
	struct bench_counts before, *cnt;
	uint32_t event = 0;
	uint64_t t0, t1, worst = 0;
	int worst_kind = -1;
	char why[BENCH_REASON_LEN];
	size_t i;
	int r = 0;

	memset(s, 0, sizeof(s));
	d = bench_dev_open(p, why, sizeof(why));
	if (!d) {
		bench_cell_na(c, "%s", why);
		return;
	}
	bos = calloc((size_t)t->max_id + 1, sizeof(*bos));
	live = calloc((size_t)t->max_id + 1, sizeof(*live));
	all = calloc(t->n, sizeof(*all));
	for (unsigned k = 0; k < OP_KIND_COUNT; k++)
		s[k].v = calloc(t->n, sizeof(uint64_t));
	for (unsigned k = 0; k < OP_KIND_COUNT; k++)
		if (!s[k].v)
			r = -ENOMEM;
	if (!bos || !live || !all || r) {
		bench_cell_na(c, "out of memory");
		goto out;
	}
	r = bench_dev_event_create(d, true, &event);
	if (r) {
		bench_cell_na(c, "CREATE_EVENT (storm event): %s", strerror(-r));
		goto out;
	}
	cnt = bench_dev_counts(d);
	before = *cnt;
	t0 = bench_now_ns();
	for (i = 0; i < t->n; i++) {
		const struct trace_op *op = &t->ops[i];
		uint64_t a = bench_now_ns(), dt;

		r = replay_op(d, op, bos, live, event);
		dt = bench_now_ns() - a;
		if (r) {
			bench_cell_na(c, "trace line %u (%s %u) failed: %s", op->line,
				      op_names[op->kind], op->id, strerror(-r));
			goto out;
		}
		all[i] = dt;
		s[op->kind].v[s[op->kind].n++] = dt;
		if (dt > worst) {
			worst = dt;
			worst_kind = op->kind;
		}
	}
	/* everything queued has been handled by the host */
	r = bench_dev_sync(d);
	t1 = bench_now_ns();
	if (r) {
		bench_cell_na(c, "final synchronous call failed: %s", strerror(-r));
		goto out;
	}
	double wall_s = (double)(t1 - t0) / 1e9;
	uint64_t cmds = cnt->commands - before.commands;

	bench_cell_samples(c, all, t->n);
	all = NULL;
	c->nm = 0; /* order the storm's own figures first */
	c->primary = wall_s * 1e3;
	bench_cell_metric(c, "wall_ms", wall_s * 1e3);
	bench_cell_metric(c, "ops", (double)t->n);
	bench_cell_metric(c, "commands", (double)cmds);
	bench_cell_metric(c, "commands_per_s", (double)cmds / wall_s);
	bench_cell_metric(c, "blob_creates", (double)(cnt->blob_creates - before.blob_creates));
	bench_cell_metric(c, "cpu_maps", (double)(cnt->cpu_maps - before.cpu_maps));
	bench_cell_metric(c, "cpu_unmaps", (double)(cnt->cpu_unmaps - before.cpu_unmaps));
	bench_cell_metric(c, "op_p50_us", bench_cell_pct_us(c, 50));
	bench_cell_metric(c, "op_p99_us", bench_cell_pct_us(c, 99));
	bench_cell_metric(c, "op_max_us", (double)worst / 1000.0);
	for (unsigned k = 0; k < OP_KIND_COUNT; k++) {
		if (!s[k].n)
			continue;
		bench_sort_ns(s[k].v, s[k].n);
		bench_cell_metric(c, op_p50[k], bench_percentile_ns(s[k].v, s[k].n, 50) / 1000.0);
		bench_cell_metric(c, op_max[k], (double)s[k].v[s[k].n - 1] / 1000.0);
	}
	if (worst_kind >= 0)
		snprintf(c->reason, sizeof(c->reason), "slowest operation: %s",
			 op_names[worst_kind]);
out:
	/* the device's teardown releases whatever the trace left behind */
	for (unsigned k = 0; k < OP_KIND_COUNT; k++)
		free(s[k].v);
	free(all);
	if (bos && live)
		for (i = 0; i <= t->max_id; i++)
			if (bos[i].blob || bos[i].cpu_mapped)
				bench_dev_cpu_unmap(d, &bos[i]);
	free(bos);
	free(live);
	bench_dev_close(d);
}

void bench_storm(const struct bench_opts *o, struct bench_scenario_result *out)
{
	struct trace t;
	char why[BENCH_REASON_LEN];

	out->name = "storm";
	out->primary_name = "wall_ms";
	out->higher_is_better = false;
	if (trace_load(o->trace, &t, why, sizeof(why))) {
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			if (o->paths[p])
				bench_cell_na(&out->cell[p], "%s", why);
		return;
	}
	snprintf(out->note, sizeof(out->note), "trace %s: %zu operations, replayed once per path",
		 o->trace, t.n);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			storm_path((enum bench_path)p, &t, &out->cell[p]);
	free(t.ops);
}
