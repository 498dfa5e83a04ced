// SPDX-License-Identifier: MIT
/*
 * What a CPU-visible BO costs the host, a blob of its own against a range
 * of an arena (docs/performance.md, "Arenas: the cost per BO"). Not a
 * test: `meson test --benchmark host-arena-cost` prints the figures, it
 * asserts none.
 *
 * Per BO (N BOs of SIZE, one after another, each freed before the next):
 *   blob:  ALLOC_MEMORY (GTT), BIND_BLOB, get_blob (the export), mmap,
 *          one store per page, munmap, close, FREE
 *   arena: ALLOC_MEMORY from the arena (zeroing the range, USERPTR
 *          registration of the host's mapping), one store per page through
 *          the arena's mapping made once, FREE
 * and the parts: the export + mmap of a blob alone, the arena ALLOC alone.
 * The harness's synchronous calls (submit, executor, reply) are in every
 * figure; on kfdsim USERPTR registration is a mincore() walk, on a real
 * GPU it pins pages (not measured here).
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "host_harness.h"
#include "kfd_uapi_ext.h"

#define PAGE 4096ull
#define GTT  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void die(const char *what, int r)
{
	fprintf(stderr, "host-arena-cost: %s: %d\n", what, r);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median of n samples (sorts them) */
static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void touch(uint8_t *p, uint64_t size)
{
	for (uint64_t o = 0; o < size; o += PAGE)
		p[o] = (uint8_t)o;
}

static int alloc_arena_bo(struct harness *h, uint64_t off, uint64_t size, uint64_t *handle)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	int ret;

	memset(&r, 0, sizeof(r));
	r.va = h_va(h, size);
	r.size = size;
	r.gpu_id = h->gpu_id;
	r.flags = GTT;
	r.alloc_flags = VKFD_ALLOC_ARENA;
	r.arena_id = 1;
	r.arena_offset = off;
	ret = h_call(h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp));
	*handle = rsp.handle;
	return ret;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 400;
	uint64_t size = argc > 2 ? strtoull(argv[2], NULL, 0) : 64 * 1024;
	double t, *blob_total, *blob_alloc, *blob_export, *arena_total, *arena_alloc;
	struct vkfd_req_hello hello;
	struct vkfd_rsp_hello hr;
	struct vkfd_req_create_arena ca;
	struct vkfd_rsp_empty er;
	struct vkfd_blob b;
	struct harness h;
	uint8_t *arena;
	int r;

	if (n < 1 || size < PAGE || size % PAGE || size > (64u << 20))
		die("usage: bench_arena_cost [N] [SIZE, page multiple, <= 64 MiB]", -EINVAL);
	blob_total = calloc(n, sizeof(double));
	blob_alloc = calloc(n, sizeof(double));
	blob_export = calloc(n, sizeof(double));
	arena_total = calloc(n, sizeof(double));
	arena_alloc = calloc(n, sizeof(double));
	if (!blob_total || !blob_alloc || !blob_export || !arena_total || !arena_alloc)
		die("calloc", -ENOMEM);
	r = h_lib_init(0, NULL);
	if (r)
		die("init", r);
	r = h_open(&h, 1);
	if (r)
		die("open", r);
	memset(&hello, 0, sizeof(hello));
	hello.version_min = hello.version_max = 1;
	hello.features = VKFD_FEAT_ARENAS;
	r = h_call(&h, VKFD_CMD_HELLO, &hello, sizeof(hello), &hr, sizeof(hr));
	if (r || !(hr.features & VKFD_FEAT_ARENAS))
		die("HELLO with arenas", r ? r : -EOPNOTSUPP);

	for (unsigned i = 0; i < n; i++) {
		uint64_t va = h_va(&h, size), handle;
		double t1;
		void *p;

		t = now_us();
		r = h_alloc(&h, va, size, GTT, &handle, NULL);
		if (r)
			die("alloc", r);
		blob_alloc[i] = now_us() - t;
		h_bind(&h, handle, 1000 + i);
		t1 = now_us();
		r = vkfd_host_context_get_blob(h.ctx, 1, 1000 + i, size, 1, &b);
		if (r)
			die("get_blob", r);
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
		if (p == MAP_FAILED)
			die("mmap", -errno);
		blob_export[i] = now_us() - t1;
		touch(p, size);
		munmap(p, size);
		close(b.fd);
		h_free(&h, handle);
		blob_total[i] = now_us() - t;
	}

	memset(&ca, 0, sizeof(ca));
	ca.arena_id = 1;
	ca.size = 64u << 20;
	ca.blob_id = 7;
	r = h_call(&h, VKFD_CMD_CREATE_ARENA, &ca, sizeof(ca), &er, sizeof(er));
	if (r)
		die("CREATE_ARENA", r);
	r = vkfd_host_context_get_blob(h.ctx, 1, 7, ca.size, 1, &b);
	if (r)
		die("arena get_blob", r);
	arena = mmap(NULL, ca.size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
	if (arena == MAP_FAILED)
		die("arena mmap", -errno);
	for (unsigned i = 0; i < n; i++) {
		/* walk the arena, as a model load's ranges do */
		uint64_t off = ((uint64_t)i * size) % (ca.size - size + PAGE) / PAGE * PAGE, handle;
		double t1;

		t = now_us();
		r = alloc_arena_bo(&h, off, size, &handle);
		if (r)
			die("arena alloc", r);
		t1 = now_us();
		arena_alloc[i] = t1 - t;
		touch(arena + off, size);
		h_free(&h, handle);
		arena_total[i] = now_us() - t;
	}
	munmap(arena, ca.size);
	close(b.fd);
	h_close(&h);
	h_lib_fini();

	printf("host-arena-cost: %u BOs of %llu KiB, %s\n", n, (unsigned long long)(size >> 10),
	       h_real_device() ? "real-device code path" : "kfdsim");
	printf("  medians per BO\n");
	printf("  blob of its own: %.1f us (ALLOC %.1f us, BIND_BLOB + export + mmap %.1f us)\n",
	       median(blob_total, n), median(blob_alloc, n), median(blob_export, n));
	printf("  range of arena:  %.1f us (ALLOC incl. zeroing + USERPTR %.1f us)\n",
	       median(arena_total, n), median(arena_alloc, n));
	free(blob_total);
	free(blob_alloc);
	free(blob_export);
	free(arena_total);
	free(arena_alloc);
	return 0;
}
