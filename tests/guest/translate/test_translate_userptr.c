// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: freeing USERPTR BOs of
 * libhsakmt's own host memory (GPU VA == CPU address) defers the
 * copy-back until the range is used otherwise (docs/guest-vkfd-backend.md,
 * "Freeing host memory"). The shim's interposers call the backend's hooks
 * (munmap_notify for munmap and MAP_FIXED mmap, remap_notify for madvise
 * and mremap, atfork_prepare before fork); these tests call them as the
 * shim does, then the real function. Also: registrations of overlapping
 * pages share them (docs/guest-vkfd-backend.md, "Overlapping
 * registrations"), looked at through the GPU by SDMA copies.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "translate_harness.h"

/* above the 2 MiB a host with arenas takes into an arena: a blob of its
 * own */
#define SIZE       (512 * PAGE + 16 * PAGE)
#define ARENA_SIZE (16 * PAGE)

/* The mapping at p: 's' (shared: still the blob) or 'p' (private). */
static char map_kind(const void *p)
{
	char line[512];
	char kind = '?';
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) == 3 && s <= (uintptr_t)p &&
		    (uintptr_t)p < e) {
			kind = perms[3];
			break;
		}
	}
	fclose(f);
	return kind;
}

/* The file offset of the mapping at p (an arena slice's offset in its
 * arena), or -1. */
static long long map_offset(const void *p)
{
	char line[512];
	long long off = -1;
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx", &s, &e, perms, &o) == 4 &&
		    s <= (uintptr_t)p && (uintptr_t)p < e) {
			off = (long long)(o + ((uintptr_t)p - s));
			break;
		}
	}
	fclose(f);
	return off;
}

/* Open fds, after a synchronous host call: the host runs the commands
 * sent before it (the asynchronous FREE, which closes the host's memfd of
 * the BO) first. */
static int count_fds(void)
{
	struct kfd_ioctl_get_version_args v = {0, 0};
	DIR *d;
	int n = 0;

	assert_int_equal(kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v), 0);
	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * seed + 3);
}

static void check(const unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * seed + 3))
			fail_msg("byte %zu: %#x, want %#x", i, p[i], (unsigned char)(i * seed + 3));
}

/* libhsakmt's host memory: anonymous pages over its reservation, written,
 * registered at GPU VA == CPU VA, GPU-mapped, unmapped and freed. */
static unsigned char *host_alloc_and_free_n(unsigned int seed, size_t size)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	unsigned char *p =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	fill(p, size, seed);
	assert_int_equal(
	    alloc_bo((uintptr_t)p, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a), 0);
	assert_int_equal(map_kind(p), 's');
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 1, &ns),
			 0);
	assert_int_equal(free_bo(a.handle), 0);
	return p;
}

static unsigned char *host_alloc_and_free(unsigned int seed)
{
	return host_alloc_and_free_n(seed, SIZE);
}

/* FREE copies nothing: the range still holds the blob with the same bytes;
 * munmap of all of it then lets the blob go. */
static void test_free_deferred_then_munmap(void **state)
{
	int fds = count_fds();
	unsigned char *p;

	(void)state;
	p = host_alloc_and_free(7);
	assert_int_equal(map_kind(p), 's');
	check(p, SIZE, 7);
	B.munmap_notify(p, SIZE);
	assert_int_equal(munmap(p, SIZE), 0);
	assert_int_equal(count_fds(), fds);
}

/* libhsakmt 5.2.3 replaces the range with mmap(MAP_FIXED, PROT_NONE). */
static void test_free_deferred_then_map_fixed(void **state)
{
	int fds = count_fds();
	unsigned char *p;
	void *r;

	(void)state;
	p = host_alloc_and_free(11);
	B.munmap_notify(p, SIZE);
	r = mmap(p, SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
		 0);
	assert_ptr_equal(r, p);
	assert_int_equal(map_kind(p), 'p');
	assert_int_equal(count_fds(), fds);
	munmap(p, SIZE);
}

/* madvise (or mremap) first restores: the range is private anonymous
 * memory with the same bytes, and MADV_DONTNEED then zeroes it as the
 * kernel does for such memory. */
static void test_free_deferred_then_madvise(void **state)
{
	int fds = count_fds();
	unsigned char *p;

	(void)state;
	p = host_alloc_and_free(13);
	B.remap_notify(p + PAGE, PAGE);
	assert_int_equal(map_kind(p), 'p');
	assert_int_equal(count_fds(), fds);
	check(p, SIZE, 13);
	assert_int_equal(madvise(p + PAGE, PAGE, MADV_DONTNEED), 0);
	assert_int_equal(p[PAGE], 0);
	assert_int_equal(p[2 * PAGE - 1], 0);
	check(p, PAGE, 13);
	B.munmap_notify(p, SIZE);
	munmap(p, SIZE);
}

/* A munmap of part of the range restores the rest. */
static void test_free_deferred_then_partial_munmap(void **state)
{
	int fds = count_fds();
	unsigned char *p;

	(void)state;
	p = host_alloc_and_free(17);
	B.munmap_notify(p, PAGE);
	assert_int_equal(munmap(p, PAGE), 0);
	assert_int_equal(map_kind(p + PAGE), 'p');
	assert_int_equal(count_fds(), fds);
	for (size_t i = PAGE; i < SIZE; i++)
		if (p[i] != (unsigned char)(i * 17 + 3))
			fail_msg("byte %zu changed", i);
	B.munmap_notify(p + PAGE, SIZE - PAGE);
	munmap(p + PAGE, SIZE - PAGE);
}

/* fork restores first: the child's writes stay in the child, as with the
 * kernel's copy-on-write private memory. */
static void test_free_deferred_then_fork(void **state)
{
	unsigned char *p;
	pid_t pid;
	int st;

	(void)state;
	p = host_alloc_and_free(19);
	B.atfork_prepare(); /* the shim's pthread_atfork prepare handler */
	assert_int_equal(map_kind(p), 'p');
	pid = fork();
	if (pid == 0) {
		p[5] = (unsigned char)~p[5];
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	check(p, SIZE, 19);
	B.munmap_notify(p, SIZE);
	munmap(p, SIZE);
}

/* A new USERPTR over a freed range that was not unmapped takes its
 * current contents, as with the kernel. */
static void test_free_deferred_then_register_again(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	int fds = count_fds();
	unsigned char *p;

	(void)state;
	p = host_alloc_and_free(23);
	p[1] = 0x42;
	assert_int_equal(
	    alloc_bo((uintptr_t)p, SIZE, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a), 0);
	assert_int_equal(p[1], 0x42);
	p[1] = (unsigned char)(1 * 23 + 3);
	check(p, SIZE, 23);
	assert_int_equal(free_bo(a.handle), 0);
	check(p, SIZE, 23);
	B.munmap_notify(p, SIZE);
	munmap(p, SIZE);
	assert_int_equal(count_fds(), fds);
}

/* A freed range unmapped behind the shim's back (a raw syscall) and
 * mapped again by the program is not restored over the new mapping, nor
 * (an arena slice) reserved over it. */
static void unmapped_unseen(size_t size)
{
	int fds = count_fds();
	unsigned char *p, *q;

	p = host_alloc_and_free_n(37, size);
	assert_int_equal(munmap(p, size), 0); /* no munmap_notify */
	q = mmap(p, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	assert_ptr_equal(q, p);
	memset(q, 0x77, size);
	B.remap_notify(q, size);
	/* still the program's shared mapping, not a restored private copy */
	assert_int_equal(map_kind(q), 's');
	for (size_t i = 0; i < size; i++)
		if (q[i] != 0x77)
			fail_msg("byte %zu overwritten", i);
	/* the blob's fds are gone (an arena may have been made meanwhile) */
	if (size == SIZE)
		assert_int_equal(count_fds(), fds);
	munmap(q, size);
}

static void test_free_deferred_unmapped_unseen(void **state)
{
	(void)state;
	unmapped_unseen(SIZE);
}

static void test_free_arena_deferred_unmapped_unseen(void **state)
{
	(void)state;
	unmapped_unseen(ARENA_SIZE);
}

/* libhsakmt's host memory small enough for an arena: registered and left
 * live (its slice's offset in the arena in *off). */
static unsigned char *arena_host_alloc(unsigned int seed, uint64_t *handle, long long *off)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	unsigned char *p =
	    mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	fill(p, ARENA_SIZE, seed);
	assert_int_equal(
	    alloc_bo((uintptr_t)p, ARENA_SIZE, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a),
	    0);
	assert_int_equal(map_kind(p), 's');
	*handle = a.handle;
	*off = map_offset(p);
	return p;
}

/* A range small enough for an arena is deferred like a blob: FREE copies
 * nothing (the range still holds its slice, with the same bytes), and the
 * slice is not handed to another BO until the range is replaced; then it
 * is (first fit: the next BO gets it). */
static void test_free_arena_range_deferred(void **state)
{
	bool arenas = !getenv("VKFD_DIRECT_NO_ARENAS");
	long long off_p, off_q, off_r;
	uint64_t hq, hr;
	unsigned char *p, *q, *r;

	(void)state;
	p = host_alloc_and_free_n(5, ARENA_SIZE);
	assert_int_equal(map_kind(p), 's');
	off_p = map_offset(p);
	check(p, ARENA_SIZE, 5);
	/* a BO registered meanwhile gets another slice: p keeps its bytes */
	q = arena_host_alloc(9, &hq, &off_q);
	if (arenas)
		assert_true(off_q != off_p);
	check(p, ARENA_SIZE, 5);
	check(q, ARENA_SIZE, 9);
	/* libhsakmt replaces the range (MAP_FIXED); the slice is unreachable
	 * from p as soon as the backend lets it go */
	B.munmap_notify(p, ARENA_SIZE);
	if (arenas)
		assert_int_equal(map_kind(p), 'p');
	assert_ptr_equal(mmap(p, ARENA_SIZE, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0),
			 p);
	r = arena_host_alloc(3, &hr, &off_r);
	if (arenas)
		assert_true(off_r == off_p); /* the slice went back to the arena */
	check(r, ARENA_SIZE, 3);
	check(q, ARENA_SIZE, 9);
	assert_int_equal(free_bo(hq), 0);
	assert_int_equal(free_bo(hr), 0);
	B.munmap_notify(q, ARENA_SIZE);
	munmap(q, ARENA_SIZE);
	B.munmap_notify(r, ARENA_SIZE);
	munmap(r, ARENA_SIZE);
	munmap(p, ARENA_SIZE);
}

/* madvise of a deferred arena range restores it (private, same bytes) and
 * gives the slice back. */
static void test_free_arena_range_deferred_then_madvise(void **state)
{
	bool arenas = !getenv("VKFD_DIRECT_NO_ARENAS");
	long long off_p, off_r;
	unsigned char *p, *r;
	uint64_t hr;

	(void)state;
	p = host_alloc_and_free_n(21, ARENA_SIZE);
	off_p = map_offset(p);
	B.remap_notify(p, PAGE);
	assert_int_equal(map_kind(p), 'p');
	check(p, ARENA_SIZE, 21);
	r = arena_host_alloc(4, &hr, &off_r);
	if (arenas)
		assert_true(off_r == off_p);
	check(p, ARENA_SIZE, 21);
	assert_int_equal(free_bo(hr), 0);
	B.munmap_notify(r, ARENA_SIZE);
	munmap(r, ARENA_SIZE);
	munmap(p, ARENA_SIZE);
}

/* The per-mapping query (PROCMAP_QUERY) gives the answers the maps file
 * gives: private anonymous readable memory (also across two mappings) yes;
 * a file, shared anonymous memory, an unreadable mapping, a hole, the
 * vDSO no. Skipped where the kernel does not have the query. */
static void test_procmap_anon_private(void **state)
{
	unsigned char *a, *f, *sh;
	void *vdso = NULL;
	char line[512];
	FILE *m;
	int fd;

	(void)state;
	a = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(a != MAP_FAILED);
	if (bk_procmap_anon_private((uintptr_t)a, 4 * PAGE) < 0) {
		munmap(a, 4 * PAGE);
		skip();
	}
	assert_int_equal(bk_procmap_anon_private((uintptr_t)a, 4 * PAGE), 1);
	/* two mappings (different protections), both readable */
	assert_int_equal(mprotect(a + 2 * PAGE, 2 * PAGE, PROT_READ), 0);
	assert_int_equal(bk_procmap_anon_private((uintptr_t)a, 4 * PAGE), 1);
	assert_int_equal(mprotect(a + 3 * PAGE, PAGE, PROT_NONE), 0);
	assert_int_equal(bk_procmap_anon_private((uintptr_t)a, 4 * PAGE), 0);
	assert_int_equal(bk_procmap_anon_private((uintptr_t)a, 3 * PAGE), 1);
	assert_int_equal(munmap(a + PAGE, PAGE), 0); /* a hole */
	assert_int_equal(bk_procmap_anon_private((uintptr_t)a, 3 * PAGE), 0);
	/* the pieces left, not the hole: another thread of this process (the
	 * in-process host) may have mapped there since */
	munmap(a, PAGE);
	munmap(a + 2 * PAGE, 2 * PAGE);

	fd = memfd_create("translate-procmap", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 2 * PAGE), 0);
	f = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(f != MAP_FAILED);
	close(fd);
	assert_int_equal(bk_procmap_anon_private((uintptr_t)f, 2 * PAGE), 0);
	munmap(f, 2 * PAGE);
	sh = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	assert_int_equal(bk_procmap_anon_private((uintptr_t)sh, 2 * PAGE), 0);
	munmap(sh, 2 * PAGE);

	m = fopen("/proc/self/maps", "re");
	assert_non_null(m);
	while (fgets(line, sizeof(line), m))
		if (strstr(line, "[vdso]")) {
			unsigned long long s0;

			if (sscanf(line, "%llx-", &s0) == 1)
				vdso = (void *)(uintptr_t)s0;
			break;
		}
	fclose(m);
	if (vdso)
		assert_int_equal(bk_procmap_anon_private((uintptr_t)vdso, PAGE), 0);

	/* a conversion asks the kernel, not the maps file */
	{
		uint64_t scans = __atomic_load_n(&bk_stats.maps_scans, __ATOMIC_RELAXED);
		unsigned char *p = host_alloc_and_free_n(41, ARENA_SIZE);

		assert_int_equal(__atomic_load_n(&bk_stats.maps_scans, __ATOMIC_RELAXED), scans);
		check(p, ARENA_SIZE, 41);
		B.munmap_notify(p, ARENA_SIZE);
		munmap(p, ARENA_SIZE);
	}
}

/* Registered user memory (GPU VA != CPU VA: it may be malloc's heap) is
 * copied back at FREE: private again at once. */
static void test_unequal_va_restored_at_free(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	uint64_t gva = va_reserve(SIZE);
	int fds = count_fds();
	unsigned char *p =
	    mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(p != MAP_FAILED);
	fill(p, SIZE, 29);
	assert_int_equal(alloc_userptr(gva, (uintptr_t)p, SIZE, &a), 0);
	assert_int_equal(map_kind(p), 's');
	assert_int_equal(free_bo(a.handle), 0);
	assert_int_equal(map_kind(p), 'p');
	assert_int_equal(count_fds(), fds);
	check(p, SIZE, 29);
	munmap(p, SIZE);
	munmap((void *)(uintptr_t)gva, SIZE);
}

/* Does the host share arena pages between registrations (arenas and
 * VKFD_FEAT_USERPTR_PIECES: not a 1.0 host, not one without arenas)? */
static bool shares_pages(void)
{
	return !getenv("VKFD_DIRECT_NO_ARENAS") && !getenv("VKFD_HOST_PROTO_1_0");
}

/* An SDMA queue of this process: the GPU copies between GPU VAs, which is
 * how these tests look at memory through a GPU view. */
struct sdma {
	uint64_t rva, pva, dva, wp;
	struct kfd_ioctl_alloc_memory_of_gpu_args ring, ptrs, db;
	uint32_t queue_id;
	uint8_t *bell;
};

#define SDMA_RING (16 * PAGE)

static void sdma_up(struct sdma *s)
{
	struct vkfd_kfd_create_queue_args q;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	void *m;

	memset(s, 0, sizeof(*s));
	s->rva = va_reserve(SDMA_RING);
	s->pva = va_reserve(PAGE);
	s->dva = va_reserve(2 * PAGE);
	assert_int_equal(alloc_bo(s->rva, SDMA_RING, GTT_FLAGS, &s->ring), 0);
	assert_int_equal(alloc_bo(s->pva, PAGE, GTT_FLAGS, &s->ptrs), 0);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), s->ring.handle, ids, 1, &ns),
			 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), s->ptrs.handle, ids, 1, &ns),
			 0);
	assert_ptr_equal(B.mmap((void *)(uintptr_t)s->rva, SDMA_RING, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_FIXED, rfd, (off_t)s->ring.mmap_offset),
			 (void *)(uintptr_t)s->rva);
	assert_ptr_equal(B.mmap((void *)(uintptr_t)s->pva, PAGE, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_FIXED, rfd, (off_t)s->ptrs.mmap_offset),
			 (void *)(uintptr_t)s->pva);
	memset(&q, 0, sizeof(q));
	q.base.ring_base_address = s->rva;
	q.base.ring_size = SDMA_RING;
	q.base.write_pointer_address = s->pva;
	q.base.read_pointer_address = s->pva + 64;
	q.base.gpu_id = gpu_id;
	q.base.queue_type = 1; /* SDMA */
	q.base.queue_percentage = 100;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), 0);
	s->queue_id = q.base.queue_id;
	assert_int_equal(alloc_bo(s->dva, 2 * PAGE,
				  KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | (1u << 31) | (1u << 26),
				  &s->db),
			 0);
	m = B.mmap((void *)(uintptr_t)s->dva, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED, kfd,
		   (off_t)(q.base.doorbell_offset & ~(uint64_t)(2 * PAGE - 1)));
	assert_ptr_equal(m, (void *)(uintptr_t)s->dva);
	s->bell = (uint8_t *)m + (q.base.doorbell_offset & (2 * PAGE - 1));
}

/* The GPU copies len bytes from GPU VA src to GPU VA dst (COPY_LINEAR);
 * returns once the engine has passed the packet. */
static void gpu_copy(struct sdma *s, uint64_t dst, uint64_t src, uint32_t len)
{
	uint32_t *pk = (uint32_t *)(uintptr_t)(s->rva + s->wp);

	assert_true(s->wp + 28 <= SDMA_RING);
	pk[0] = 1; /* op COPY, sub-op LINEAR */
	pk[1] = len - 1;
	pk[2] = 0;
	pk[3] = (uint32_t)src;
	pk[4] = (uint32_t)(src >> 32);
	pk[5] = (uint32_t)dst;
	pk[6] = (uint32_t)(dst >> 32);
	s->wp += 28;
	__atomic_store_n((uint64_t *)(uintptr_t)s->pva, s->wp, __ATOMIC_RELEASE);
	memcpy(s->bell, &s->wp, 8);
	while (__atomic_load_n((uint64_t *)(uintptr_t)(s->pva + 64), __ATOMIC_ACQUIRE) < s->wp)
		sched_yield();
}

static void sdma_down(struct sdma *s)
{
	struct kfd_ioctl_destroy_queue_args d = {s->queue_id, 0};

	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_DESTROY_QUEUE), sizeof(d), &d), 0);
	assert_int_equal(free_bo(s->db.handle), 0);
	assert_int_equal(free_bo(s->ring.handle), 0);
	assert_int_equal(free_bo(s->ptrs.handle), 0);
}

/* What the GPU reads at GPU VA va, len bytes, equals want? (through a
 * scratch GTT BO at sva, CPU-mapped there) */
static void gpu_sees(struct sdma *s, uint64_t sva, uint64_t va, const unsigned char *want,
		     size_t len)
{
	memset((void *)(uintptr_t)sva, 0x5a, len);
	gpu_copy(s, sva, va, (uint32_t)len);
	if (memcmp((void *)(uintptr_t)sva, want, len) != 0)
		fail_msg("GPU view at %#llx differs from the CPU's bytes", (unsigned long long)va);
}

/* Two registrations of overlapping pages at different GPU VAs, as
 * hipHostRegister of two adjacent heap buffers makes them: [0, 3) and
 * [1, 4) pages of p. Both succeed (the kernel pins the pages twice); the
 * CPU and both GPU views see the same bytes; either can be freed first
 * and the other stays coherent; the contents survive both frees. */
static void overlap_case(bool free_first_first)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args r1, r2, sb;
	uint32_t ids[1] = {gpu_id}, ns;
	uint64_t g1 = va_reserve(3 * PAGE), g2 = va_reserve(3 * PAGE), sva = va_reserve(4 * PAGE);
	unsigned char *p =
	    mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *scr = (unsigned char *)(uintptr_t)sva, pat[PAGE];
	struct sdma s;
	uint64_t surv_g, surv_cpu;
	int r;

	assert_true(p != MAP_FAILED);
	fill(p, 4 * PAGE, 41);
	assert_int_equal(alloc_userptr(g1, (uintptr_t)p, 3 * PAGE, &r1), 0);
	r = alloc_userptr(g2, (uintptr_t)p + PAGE, 3 * PAGE, &r2);
	if (!shares_pages()) {
		/* a host without arenas: the pages are a blob already
		 * (documented difference) */
		assert_int_equal(r, -EBUSY);
		assert_int_equal(free_bo(r1.handle), 0);
		check(p, 4 * PAGE, 41);
		munmap(p, 4 * PAGE);
		return;
	}
	assert_int_equal(r, 0);
	check(p, 4 * PAGE, 41); /* registering changed no byte */
	sdma_up(&s);
	assert_int_equal(alloc_bo(sva, 4 * PAGE, GTT_FLAGS, &sb), 0);
	assert_ptr_equal(B.mmap(scr, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, rfd,
				(off_t)sb.mmap_offset),
			 scr);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), sb.handle, ids, 1, &ns), 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), r1.handle, ids, 1, &ns), 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), r2.handle, ids, 1, &ns), 0);

	/* the CPU's bytes through both GPU views */
	gpu_sees(&s, sva, g1, p, 3 * PAGE);
	gpu_sees(&s, sva, g2, p + PAGE, 3 * PAGE);
	/* CPU writes to the shared pages: both views see them */
	p[PAGE + 5] = 0x77;
	p[3 * PAGE - 1] = 0x88;
	gpu_sees(&s, sva, g1, p, 3 * PAGE);
	gpu_sees(&s, sva, g2, p + PAGE, 3 * PAGE);
	/* the GPU writes a shared page through the first view: the CPU and
	 * the second view see it */
	fill(pat, PAGE, 43);
	memcpy(scr + 3 * PAGE, pat, PAGE);
	gpu_copy(&s, g1 + 2 * PAGE, sva + 3 * PAGE, PAGE);
	assert_memory_equal(p + 2 * PAGE, pat, PAGE);
	gpu_sees(&s, sva, g2 + PAGE, pat, PAGE);
	/* and through the second view, a shared page and its own one */
	fill(pat, PAGE, 47);
	memcpy(scr + 3 * PAGE, pat, PAGE);
	gpu_copy(&s, g2, sva + 3 * PAGE, PAGE);
	gpu_copy(&s, g2 + 2 * PAGE, sva + 3 * PAGE, PAGE);
	assert_memory_equal(p + PAGE, pat, PAGE);
	assert_memory_equal(p + 3 * PAGE, pat, PAGE);
	gpu_sees(&s, sva, g1 + PAGE, pat, PAGE);

	/* one goes: its own page is private again, the shared ones stay the
	 * survivor's, all bytes kept */
	memcpy(scr, p, 3 * PAGE); /* not needed by the GPU: a copy of p */
	{
		unsigned char before[4 * PAGE];

		memcpy(before, p, sizeof(before));
		ns = 0;
		assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU),
					free_first_first ? r1.handle : r2.handle, ids, 1, &ns),
				 0);
		assert_int_equal(free_bo(free_first_first ? r1.handle : r2.handle), 0);
		assert_memory_equal(p, before, sizeof(before));
	}
	assert_int_equal(map_kind(free_first_first ? p : p + 3 * PAGE), 'p');
	assert_int_equal(map_kind(p + PAGE), 's');
	assert_int_equal(map_kind(p + 2 * PAGE), 's');
	surv_g = free_first_first ? g2 : g1;
	surv_cpu = free_first_first ? PAGE : 0;
	/* the survivor stays coherent both ways */
	p[PAGE + 100] = 0x99;
	gpu_sees(&s, sva, surv_g, p + surv_cpu, 3 * PAGE);
	fill(pat, PAGE, 53);
	memcpy(scr + 3 * PAGE, pat, PAGE);
	gpu_copy(&s, surv_g + 2 * PAGE - surv_cpu, sva + 3 * PAGE, PAGE); /* page 2 of p */
	assert_memory_equal(p + 2 * PAGE, pat, PAGE);
	{
		unsigned char before[4 * PAGE];

		memcpy(before, p, sizeof(before));
		ns = 0;
		assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU),
					free_first_first ? r2.handle : r1.handle, ids, 1, &ns),
				 0);
		assert_int_equal(free_bo(free_first_first ? r2.handle : r1.handle), 0);
		for (int i = 0; i < 4; i++)
			assert_int_equal(map_kind(p + i * PAGE), 'p');
		assert_memory_equal(p, before, sizeof(before));
	}
	/* the pages are the arena's again for the next registration */
	assert_int_equal(alloc_userptr(g1, (uintptr_t)p + PAGE, 2 * PAGE, &r1), 0);
	assert_int_equal(p[PAGE + 100], 0x99);
	assert_int_equal(free_bo(r1.handle), 0);
	assert_int_equal(free_bo(sb.handle), 0);
	sdma_down(&s);
	munmap(p, 4 * PAGE);
}

static void test_overlap_free_first_first(void **state)
{
	(void)state;
	overlap_case(true);
}

static void test_overlap_free_second_first(void **state)
{
	(void)state;
	overlap_case(false);
}

/* One registration inside another, and one spanning two others with a
 * gap between them: each page is one arena page, whatever BO names it. */
static void test_overlap_inside_and_spanning(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a, b, in, span;
	uint64_t ga = va_reserve(2 * PAGE), gb = va_reserve(2 * PAGE), gi = va_reserve(PAGE);
	uint64_t gs = va_reserve(6 * PAGE);
	unsigned char *p =
	    mmap(NULL, 6 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	if (!shares_pages())
		skip();
	assert_true(p != MAP_FAILED);
	fill(p, 6 * PAGE, 59);
	assert_int_equal(alloc_userptr(ga, (uintptr_t)p + PAGE, 2 * PAGE, &a), 0);
	assert_int_equal(alloc_userptr(gb, (uintptr_t)p + 4 * PAGE, 2 * PAGE, &b), 0);
	assert_int_equal(alloc_userptr(gi, (uintptr_t)p + 2 * PAGE, PAGE, &in), 0);
	/* pages 0 (new), 1-2 (a's), 3 (new), 4-5 (b's) */
	assert_int_equal(alloc_userptr(gs, (uintptr_t)p, 6 * PAGE, &span), 0);
	check(p, 6 * PAGE, 59);
	for (int i = 0; i < 6; i++)
		assert_int_equal(map_kind(p + i * PAGE), 's');
	p[2 * PAGE + 7] = 0x31;
	assert_int_equal(free_bo(a.handle), 0);
	assert_int_equal(free_bo(span.handle), 0);
	/* page 2 is still `in`'s, pages 4-5 b's, the rest private */
	assert_int_equal(map_kind(p), 'p');
	assert_int_equal(map_kind(p + PAGE), 'p');
	assert_int_equal(map_kind(p + 2 * PAGE), 's');
	assert_int_equal(map_kind(p + 3 * PAGE), 'p');
	assert_int_equal(map_kind(p + 4 * PAGE), 's');
	assert_int_equal(p[2 * PAGE + 7], 0x31);
	assert_int_equal(free_bo(in.handle), 0);
	assert_int_equal(free_bo(b.handle), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(map_kind(p + i * PAGE), 'p');
	p[2 * PAGE + 7] = (unsigned char)((2 * PAGE + 7) * 59 + 3);
	check(p, 6 * PAGE, 59);
	munmap(p, 6 * PAGE);
}

/* A conversion larger than 2 MiB is a blob of its own: a registration
 * overlapping one, or whose new part would need one, is refused
 * (docs/guest-vkfd-backend.md, "Overlapping registrations"), the other
 * registration unharmed. */
static void test_overlap_large_refused(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a, b;
	const size_t total = SIZE + 2 * PAGE;
	uint64_t g1 = va_reserve(SIZE), g2 = va_reserve(2 * PAGE);
	unsigned char *p =
	    mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(p != MAP_FAILED);
	fill(p, total, 61);
	/* the large one first, a small one over its last page */
	assert_int_equal(alloc_userptr(g1, (uintptr_t)p, SIZE, &a), 0);
	assert_int_equal(alloc_userptr(g2, (uintptr_t)p + SIZE - PAGE, 2 * PAGE, &b), -EBUSY);
	assert_int_equal(map_kind(p + SIZE - PAGE), 's');
	check(p, total, 61);
	assert_int_equal(free_bo(a.handle), 0);
	/* a small one first, then the large one over it */
	assert_int_equal(alloc_userptr(g2, (uintptr_t)p + SIZE - PAGE, 2 * PAGE, &b), 0);
	assert_int_equal(alloc_userptr(g1, (uintptr_t)p, SIZE, &a), -EBUSY);
	assert_int_equal(map_kind(p), 'p');
	check(p, total, 61);
	assert_int_equal(free_bo(b.handle), 0);
	check(p, total, 61);
	munmap(p, total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_free_deferred_then_munmap),
	    cmocka_unit_test(test_free_deferred_then_map_fixed),
	    cmocka_unit_test(test_free_deferred_then_madvise),
	    cmocka_unit_test(test_free_deferred_then_partial_munmap),
	    cmocka_unit_test(test_free_deferred_then_fork),
	    cmocka_unit_test(test_free_deferred_then_register_again),
	    cmocka_unit_test(test_free_deferred_unmapped_unseen),
	    cmocka_unit_test(test_free_arena_deferred_unmapped_unseen),
	    cmocka_unit_test(test_unequal_va_restored_at_free),
	    cmocka_unit_test(test_free_arena_range_deferred),
	    cmocka_unit_test(test_free_arena_range_deferred_then_madvise),
	    cmocka_unit_test(test_procmap_anon_private),
	    cmocka_unit_test(test_overlap_free_first_first),
	    cmocka_unit_test(test_overlap_free_second_first),
	    cmocka_unit_test(test_overlap_inside_and_spanning),
	    cmocka_unit_test(test_overlap_large_refused),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
