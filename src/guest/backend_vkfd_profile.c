// SPDX-License-Identifier: MIT
/*
 * vkfd backend: where the shim's time goes, for measurements
 * (docs/performance.md, "The real-ROCr storm's alloc and free phases"):
 * per KFD ioctl, per synchronous protocol command and per costly local
 * step, a count and the wall time. VKFD_SHIM_PROFILE=<file> turns it on
 * and appends one line per process at exit; without it no clock is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

#define BK_PROF_IOCTLS 64

struct bk_prof_slot {
	uint64_t n, ns;
};

static struct {
	int on; /* -1 until read */
	struct bk_prof_slot ioctl[BK_PROF_IOCTLS];
	struct bk_prof_slot cmd[VKFD_CMD_COUNT_];
	struct bk_prof_slot op[BK_PROF_OP_COUNT_];
} bk_prof = {.on = -1};

static const char *const bk_prof_op_names[BK_PROF_OP_COUNT_] = {
    [BK_PROF_BLOB_CREATE] = "blob_create",      [BK_PROF_BLOB_DESTROY] = "blob_destroy",
    [BK_PROF_UPTR_COPY_IN] = "userptr_copy_in", [BK_PROF_UPTR_RESTORE] = "userptr_restore",
    [BK_PROF_MUNMAP_NOTIFY] = "munmap_notify",  [BK_PROF_UPTR_MAPS_SCAN] = "userptr_maps_scan",
};

static uint64_t bk_prof_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 0 when profiling is off; a racy first read only sets the same value */
uint64_t bk_prof_begin(void)
{
	int on = __atomic_load_n(&bk_prof.on, __ATOMIC_RELAXED);

	if (on < 0) {
		const char *p = getenv("VKFD_SHIM_PROFILE");

		on = p && *p;
		__atomic_store_n(&bk_prof.on, on, __ATOMIC_RELAXED);
	}
	return on ? bk_prof_now() : 0;
}

static void bk_prof_add(struct bk_prof_slot *s, uint64_t t0)
{
	if (!t0)
		return;
	__atomic_fetch_add(&s->n, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->ns, bk_prof_now() - t0, __ATOMIC_RELAXED);
}

void bk_prof_ioctl(unsigned int nr, uint64_t t0)
{
	if (nr < BK_PROF_IOCTLS)
		bk_prof_add(&bk_prof.ioctl[nr], t0);
}

void bk_prof_cmd(uint32_t cmd, uint64_t t0)
{
	if (cmd < VKFD_CMD_COUNT_)
		bk_prof_add(&bk_prof.cmd[cmd], t0);
}

void bk_prof_op(enum bk_prof_op op, uint64_t t0)
{
	if ((unsigned int)op < BK_PROF_OP_COUNT_)
		bk_prof_add(&bk_prof.op[op], t0);
}

static void bk_prof_print(FILE *f, const char *kind, unsigned int i, const char *name,
			  const struct bk_prof_slot *s)
{
	uint64_t n = __atomic_load_n(&s->n, __ATOMIC_RELAXED);
	uint64_t ns = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);

	if (!n)
		return;
	if (name)
		fprintf(f, " %s:%s %llu %.1f", kind, name, (unsigned long long)n, (double)ns / 1e6);
	else
		fprintf(f, " %s:%#x %llu %.1f", kind, i, (unsigned long long)n, (double)ns / 1e6);
}

/* "pid P" then "ioctl:NR count ms", "cmd:ID count ms" (synchronous
 * commands), "op:NAME count ms" */
void bk_prof_report(void)
{
	const char *path = getenv("VKFD_SHIM_PROFILE");
	FILE *f;

	if (!path || !*path || (f = fopen(path, "ae")) == NULL)
		return;
	fprintf(f, "pid %d", (int)getpid());
	for (unsigned int i = 0; i < BK_PROF_IOCTLS; i++)
		bk_prof_print(f, "ioctl", i, NULL, &bk_prof.ioctl[i]);
	for (unsigned int i = 0; i < VKFD_CMD_COUNT_; i++)
		bk_prof_print(f, "cmd", i, NULL, &bk_prof.cmd[i]);
	for (unsigned int i = 0; i < BK_PROF_OP_COUNT_; i++)
		bk_prof_print(f, "op", i, bk_prof_op_names[i], &bk_prof.op[i]);
	fputc('\n', f);
	fclose(f);
}
