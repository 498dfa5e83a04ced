// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: freeing USERPTR BOs of
 * libhsakmt's own host memory (GPU VA == CPU address) defers the
 * copy-back until the range is used otherwise (docs/guest-vkfd-backend.md,
 * "Freeing host memory"). The shim's interposers call the backend's hooks
 * (munmap_notify for munmap and MAP_FIXED mmap, remap_notify for madvise
 * and mremap, atfork_prepare before fork); these tests call them as the
 * shim does, then the real function.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "translate_harness.h"

/* above the 2 MiB a host with arenas takes into an arena (whose freed
 * ranges are always copied back): a blob of its own */
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
 * mapped again by the program is not restored over the new mapping. */
static void test_free_deferred_unmapped_unseen(void **state)
{
	int fds = count_fds();
	unsigned char *p, *q;

	(void)state;
	p = host_alloc_and_free(37);
	assert_int_equal(munmap(p, SIZE), 0); /* no munmap_notify */
	q = mmap(p, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	assert_ptr_equal(q, p);
	memset(q, 0x77, SIZE);
	B.remap_notify(q, SIZE);
	/* still the program's shared mapping, not a restored private copy */
	assert_int_equal(map_kind(q), 's');
	for (size_t i = 0; i < SIZE; i++)
		if (q[i] != 0x77)
			fail_msg("byte %zu overwritten", i);
	assert_int_equal(count_fds(), fds);
	munmap(q, SIZE);
}

/* Registered user memory (GPU VA != CPU VA: it may be malloc's heap) is
 * copied back at FREE: private again at once. */
/* A range small enough for an arena: FREE copies it back at once (its
 * slice goes to the next BO), with the same bytes. Without arenas it is
 * deferred like any other. */
static void test_free_arena_range_copied_back(void **state)
{
	unsigned char *p;

	(void)state;
	p = host_alloc_and_free_n(5, ARENA_SIZE);
	assert_int_equal(map_kind(p), getenv("VKFD_DIRECT_NO_ARENAS") ? 's' : 'p');
	check(p, ARENA_SIZE, 5);
	B.munmap_notify(p, ARENA_SIZE);
	assert_int_equal(munmap(p, ARENA_SIZE), 0);
}

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
	    cmocka_unit_test(test_unequal_va_restored_at_free),
	    cmocka_unit_test(test_free_arena_range_copied_back),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
