// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: KFD ioctls libhsakmt
 * issues, driven through shim_backend_vkfd against an in-process host
 * context on kfdsim (direct transport), checking what is written back and
 * the errno of each bad argument.
 * This program: memory (VRAM, GTT, AQL, USERPTR).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "translate_harness.h"

static void test_vram_alloc_mmap_map_free(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	uint64_t va = va_reserve(64 * PAGE);
	uint32_t ids[2] = {gpu_id, gpu_id ^ 0x5a5a}, ns = 0;
	uint32_t *p;
	void *m;

	(void)state;
	assert_int_equal(alloc_bo(va, 64 * PAGE, VRAM_FLAGS, &a), 0);
	assert_true(a.handle != 0);
	assert_true(a.mmap_offset != 0);
	assert_int_equal(a.mmap_offset % PAGE, 0);
	/* the cookie is only good on the render fd whose VM we acquired */
	m = B.mmap((void *)(uintptr_t)va, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   kfd, (off_t)a.mmap_offset);
	assert_true(m == MAP_FAILED);
	m = B.mmap((void *)(uintptr_t)va, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   rfd, (off_t)a.mmap_offset + PAGE);
	assert_true(m == MAP_FAILED);
	m = B.mmap((void *)(uintptr_t)va, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   rfd, (off_t)a.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)va);
	p = m;
	p[0] = 0x12345678;
	p[64 * PAGE / 4 - 1] = 0x9abcdef0;
	assert_int_equal(p[0], 0x12345678);
	/* map: n_success semantics, stops at the unknown gpu */
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 2, &ns),
			 -EINVAL);
	assert_int_equal(ns, 1);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 0, &ns),
			 -EINVAL);
	ns = 3;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 2, &ns),
			 -EINVAL);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle,
				(uint32_t *)(uintptr_t)16, 1, &ns),
			 -EFAULT);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle + 1, ids, 1, &ns),
			 -EINVAL);
	/* unmap is answered without a reply when the guest can check it
	 * (docs/design-protocol-1.1.md); its errors stay the kernel's */
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 0, &ns),
			 -EINVAL);
	ns = 0;
	assert_int_equal(
	    map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle + 1, ids, 1, &ns), -EINVAL);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle,
				(uint32_t *)(uintptr_t)16, 1, &ns),
			 -EFAULT);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 2, &ns),
			 -EINVAL);
	assert_int_equal(ns, 1); /* stopped at the unknown gpu, as the kernel */
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 1, &ns),
			 0);
	assert_int_equal(ns, 1);
	/* overlap with an existing BO */
	{
		struct kfd_ioctl_alloc_memory_of_gpu_args b;

		assert_int_equal(alloc_bo(va + PAGE, PAGE, VRAM_FLAGS, &b), -EADDRINUSE);
	}
	assert_int_equal(free_bo(a.handle), 0);
	assert_int_equal(free_bo(a.handle), -EINVAL);
	/* the CPU mapping stays valid after FREE, as with the kernel */
	assert_int_equal(p[64 * PAGE / 4 - 1], 0x9abcdef0);
	munmap((void *)(uintptr_t)va, 64 * PAGE);
	assert_int_equal(alloc_bo(va, 0, VRAM_FLAGS, &a), -EINVAL);
}

static struct bk_conn *kfd_conn(void)
{
	struct bk_conn *c;

	bk_table_lock();
	c = bk_file_get_locked(kfd)->conn;
	bk_table_unlock();
	return c;
}

static uint64_t sync_calls(struct bk_conn *c)
{
	return __atomic_load_n(&c->n_sync, __ATOMIC_RELAXED);
}

static uint32_t map_barrier(struct bk_conn *c)
{
	const volatile struct vkfd_shmem_hdr *h = vkfd_guest_shmem(c->g, NULL);

	return __atomic_load_n(&h->map_barrier, __ATOMIC_ACQUIRE);
}

/* Protocol 1.1's asynchronous MAP (docs/protocol.md 14.5): a plain VRAM BO
 * is mapped without a reply and its seqno becomes the map barrier before
 * the ioctl returns; the host has run the map by the next synchronous
 * call. Scratch backing (VRAM neither EXECUTABLE nor PUBLIC, as libhsakmt
 * makes it) and a list with an unknown GPU stay synchronous. Without the
 * feature (a 1.0 guest or host, VKFD_GUEST_SYNC_MAP=1) every map waits. */
static void test_map_async_barrier(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a, sc;
	struct bk_conn *c = kfd_conn();
	bool async = c->features & VKFD_FEAT_ASYNC_MAP;
	uint64_t va = va_reserve(4 * PAGE), sva = va_reserve(4 * PAGE), s0;
	uint32_t ids[2] = {gpu_id, gpu_id ^ 0x5a5a}, ns = 0, b0, b1;

	(void)state;
	print_message("asynchronous MAP %s\n", async ? "granted" : "not granted");
	assert_int_equal(alloc_bo(va, 4 * PAGE, VRAM_FLAGS, &a), 0);
	b0 = map_barrier(c);
	s0 = sync_calls(c);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(sync_calls(c), s0 + (async ? 0 : 1));
	b1 = map_barrier(c);
	if (async)
		assert_true(b1 != b0);
	else
		assert_int_equal(b1, b0);
	/* the host ran it: a synchronous unmap (the unknown second GPU keeps
	 * it synchronous) gets past the first GPU */
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 2, &ns),
			 -EINVAL);
	assert_int_equal(ns, 1);
	/* an unknown GPU in a map: the kernel's n_success, so synchronous */
	s0 = sync_calls(c);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 2, &ns),
			 -EINVAL);
	assert_int_equal(ns, 1);
	assert_int_equal(sync_calls(c), s0 + 1);
	assert_int_equal(map_barrier(c), b1);
	/* scratch backing: synchronous */
	assert_int_equal(
	    alloc_bo(sva, 4 * PAGE, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE, &sc),
	    0);
	s0 = sync_calls(c);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), sc.handle, ids, 1, &ns), 0);
	assert_int_equal(sync_calls(c), s0 + 1);
	assert_int_equal(map_barrier(c), b1);
	assert_int_equal(free_bo(sc.handle), 0);
	assert_int_equal(free_bo(a.handle), 0);
}

/* Protocol 1.1 (docs/protocol.md 14): a small GTT BO or USERPTR range that
 * goes into an arena is allocated without a reply, under a guest-chosen
 * handle, and is usable at once (CPU map, GPU map); a BO with a blob of its
 * own (above the arena limit), a big one or VRAM waits for the host, since
 * the host refuses a BIND_BLOB of a BO it has not created (get_blob never
 * waits, docs/security.md); a request the host refuses later reports its
 * errno at the handle's next synchronous use. With a 1.0 guest or host, or
 * without arenas, every allocation waits, as before. */
static void test_gtt_async_alloc(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a, big, warm;
	struct bk_conn *c = kfd_conn();
	bool v11 = (c->features & (VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC)) ==
		   (VKFD_FEAT_GUEST_HANDLES | VKFD_FEAT_ASYNC_ALLOC);
	bool async = v11 && (c->features & VKFD_FEAT_ARENAS);
	/* the strict rule (docs/protocol.md 14.6): no deferred errors, and an
	 * arena BO's MAP (a USERPTR conversion's too) needs no reply */
	bool strict = async && (c->features & VKFD_FEAT_STRICT_ALLOC);
	bool map_async = strict && (c->features & VKFD_FEAT_ASYNC_MAP);
	uint64_t va = va_reserve(16 * PAGE), bva = va_reserve(80ul << 20), wva = va_reserve(PAGE);
	uint64_t s0;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	uint32_t *p;
	void *m;

	(void)state;
	print_message("protocol 1.1 allocation %s, arenas %s, strict rule %s\n",
		      v11 ? "granted" : "not granted",
		      (c->features & VKFD_FEAT_ARENAS) ? "granted" : "not granted",
		      strict ? "granted" : "not granted");
	/* a first arena BO makes the arena (CREATE_ARENA waits) */
	assert_int_equal(alloc_bo(wva, PAGE, GTT_FLAGS, &warm), 0);
	s0 = sync_calls(c);
	assert_int_equal(alloc_bo(va, 16 * PAGE, GTT_FLAGS, &a), 0);
	assert_int_equal(sync_calls(c), s0 + (async ? 0 : 1));
	if (v11)
		assert_true(VKFD_HANDLE_INDEX(a.handle) >= 1 &&
			    VKFD_HANDLE_INDEX(a.handle) <= c->hmax);
	/* the CPU mapping works at once (a slice of the arena's blob when
	 * async) and the bytes written before the host ran the ALLOC stay */
	m = B.mmap((void *)(uintptr_t)va, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   rfd, (off_t)a.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)va);
	p = m;
	assert_int_equal(p[0], 0);
	assert_int_equal(p[16 * PAGE / 4 - 1], 0);
	p[0] = 0xa11c;
	p[16 * PAGE / 4 - 1] = 0x5eed;
	s0 = sync_calls(c);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	assert_int_equal(ns, 1);
	/* a BO with a blob of its own was allocated with a reply: its MAP
	 * goes without one whenever asynchronous MAP is granted */
	assert_int_equal(
	    sync_calls(c),
	    s0 + (map_async || (!async && (c->features & VKFD_FEAT_ASYNC_MAP)) ? 0 : 1));
	assert_int_equal(p[0], 0xa11c);
	assert_int_equal(p[16 * PAGE / 4 - 1], 0x5eed);
	/* above the arena limit: a blob of its own, so synchronous */
	s0 = sync_calls(c);
	assert_int_equal(alloc_bo(bva, 4ul << 20, GTT_FLAGS, &big), 0);
	assert_int_equal(sync_calls(c), s0 + 1);
	m = B.mmap((void *)(uintptr_t)bva, 4ul << 20, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED, rfd, (off_t)big.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)bva);
	((volatile uint32_t *)m)[0] = 0xb10b;
	assert_int_equal(free_bo(big.handle), 0);
	/* back to the reservation, not munmap: bva is unmapped whole below */
	va_unmap_in_reserve(bva, 4ul << 20);
	/* over the budget's 64 MiB window: synchronous, -ENOMEM stays exact */
	s0 = sync_calls(c);
	memset(&big, 0, sizeof(big));
	{
		int r = alloc_bo(bva, 80ul << 20, GTT_FLAGS, &big);

		assert_true(r == 0 || r == -ENOMEM);
		assert_int_equal(sync_calls(c), s0 + 1);
		if (!r)
			assert_int_equal(free_bo(big.handle), 0);
	}
	/* VRAM is never asynchronous */
	s0 = sync_calls(c);
	assert_int_equal(alloc_bo(bva, 4 * PAGE, VRAM_FLAGS, &big), 0);
	assert_int_equal(sync_calls(c), s0 + 1);
	assert_int_equal(free_bo(big.handle), 0);
	/* overlap is checked by the guest: exact -EADDRINUSE in both modes */
	assert_int_equal(alloc_bo(va + PAGE, PAGE, GTT_FLAGS, &big), -EADDRINUSE);
	/* a VA past the GPU's aperture: without the strict rule only the host
	 * tells. Answered at once when async, the error comes with the
	 * handle's next MAP; under the rule the guest checks the aperture and
	 * sends it synchronously: the host's errno at the ALLOC */
	{
		int r;

		s0 = sync_calls(c);
		r = alloc_bo(1ull << 47, PAGE, GTT_FLAGS, &big);
		if (strict)
			assert_int_equal(sync_calls(c), s0 + 1);
		if (async && !strict) {
			assert_int_equal(r, 0);
			ns = 0;
			assert_int_equal(
			    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), big.handle, ids, 1, &ns),
			    -EINVAL);
			assert_int_equal(ns, 0);
			/* freeing gives the handle's slot back */
			assert_int_equal(free_bo(big.handle), 0);
		} else {
			assert_int_equal(r, -EINVAL);
		}
	}
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 1, &ns),
			 0);
	assert_int_equal(free_bo(a.handle), 0);
	/* the index is reused at its next generation, which the host takes */
	assert_int_equal(alloc_bo(va + 4 * PAGE, PAGE, GTT_FLAGS, &big), 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), big.handle, ids, 1, &ns), 0);
	assert_int_equal(free_bo(big.handle), 0);
	/* a USERPTR conversion (ROCr's system memory) into an arena needs no
	 * reply either: the contents are still the application's after the
	 * host ran the ALLOC (it does not zero an async arena range) */
	{
		uint32_t *u = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		assert_true(u != MAP_FAILED);
		u[0] = 0x5157;
		u[4 * PAGE / 4 - 1] = 0x7e57;
		s0 = sync_calls(c);
		assert_int_equal(alloc_userptr((uintptr_t)u, (uintptr_t)u, 4 * PAGE, &big), 0);
		assert_int_equal(sync_calls(c), s0 + (async ? 0 : 1));
		assert_int_equal(u[0], 0x5157);
		assert_int_equal(u[4 * PAGE / 4 - 1], 0x7e57);
		ns = 0;
		s0 = sync_calls(c);
		assert_int_equal(
		    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), big.handle, ids, 1, &ns), 0);
		assert_int_equal(sync_calls(c), s0 + (map_async ? 0 : 1));
		assert_int_equal(u[0], 0x5157);
		assert_int_equal(u[4 * PAGE / 4 - 1], 0x7e57);
		assert_int_equal(free_bo(big.handle), 0);
		munmap(u, 4 * PAGE);
	}
	/* one above the arena limit has a blob of its own: synchronous */
	{
		size_t n = 4ul << 20;
		uint32_t *u =
		    mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		assert_true(u != MAP_FAILED);
		u[0] = 0x5158;
		u[n / 4 - 1] = 0x7e58;
		s0 = sync_calls(c);
		assert_int_equal(alloc_userptr((uintptr_t)u, (uintptr_t)u, n, &big), 0);
		assert_int_equal(sync_calls(c), s0 + 1);
		assert_int_equal(u[0], 0x5158);
		assert_int_equal(u[n / 4 - 1], 0x7e58);
		assert_int_equal(free_bo(big.handle), 0);
		munmap(u, n);
	}
	assert_int_equal(free_bo(warm.handle), 0);
	assert_int_equal(vkfd_guest_async_error(c->g), 0);
	munmap((void *)(uintptr_t)va, 16 * PAGE);
	munmap((void *)(uintptr_t)bva, 80ul << 20);
}

static void test_gtt_aql_mirrored(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	size_t half = 16 * PAGE;
	uint64_t va = va_reserve(2 * half);
	volatile uint64_t *lo, *hi;
	void *m;

	(void)state;
	assert_int_equal(
	    alloc_bo(va, 2 * half, GTT_FLAGS | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, &a), 0);
	m = B.mmap((void *)(uintptr_t)va, half, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, rfd,
		   (off_t)a.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)va);
	m = B.mmap((void *)(uintptr_t)(va + half), half, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED, rfd, (off_t)a.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)(va + half));
	/* more than the (half-size) blob cannot be mapped */
	m = B.mmap(NULL, 2 * half, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, (off_t)a.mmap_offset);
	assert_true(m == MAP_FAILED);
	lo = (volatile uint64_t *)(uintptr_t)va;
	hi = (volatile uint64_t *)(uintptr_t)(va + half);
	lo[3] = 0xfeedfacecafebeefull;
	assert_int_equal(hi[3], 0xfeedfacecafebeefull);
	hi[half / 8 - 1] = 42;
	assert_int_equal(lo[half / 8 - 1], 42);
	assert_int_equal(free_bo(a.handle), 0);
	munmap((void *)(uintptr_t)va, 2 * half);
}

static void test_userptr_conversion(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	size_t size = 8 * PAGE;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	unsigned char *p;
	pid_t pid;
	int st;

	(void)state;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 7);
	/* page granular: libhsakmt registers whole pages */
	assert_int_equal(
	    alloc_bo((uintptr_t)p + 1, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a),
	    -EINVAL);
	assert_int_equal(
	    alloc_bo((uintptr_t)p, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a), 0);
	/* contents survived the conversion */
	for (size_t i = 0; i < size; i++)
		if (p[i] != (unsigned char)(i * 7))
			fail_msg("byte %zu changed", i);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	p[5] = 0xee;
	/* documented limit: after conversion the range is shared memory, a
	 * forked child's writes are seen by the parent */
	pid = fork();
	if (pid == 0) {
		p[6] = 0x77;
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(p[6], 0x77);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 1, &ns),
			 0);
	assert_int_equal(free_bo(a.handle), 0);
	/* copy-back on deregistration: same contents, private again */
	assert_int_equal(p[5], 0xee);
	assert_int_equal(p[6], 0x77);
	assert_int_equal(p[size - 1], (unsigned char)((size - 1) * 7));
	/* the shim's pthread_atfork prepare handler: a freed range of
	 * libhsakmt's own memory (GPU VA == CPU VA) is copied back lazily,
	 * at the latest before fork (test_translate_userptr.c) */
	B.atfork_prepare();
	pid = fork();
	if (pid == 0) {
		p[7] = 0x11;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(p[7], (unsigned char)(7 * 7));
	munmap(p, size);
	/* an unreadable range cannot be converted */
	p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_int_equal(
	    alloc_bo((uintptr_t)p, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a),
	    -EFAULT);
	munmap(p, size);
}

/* hsaKmtRegisterMemory: the GPU VA comes from libhsakmt's aperture, not
 * the CPU address. A malloc'd buffer rarely starts on a page: libhsakmt
 * registers the whole pages around it, so the bytes around the buffer in
 * its first and last page must survive too. */
static void test_userptr_unequal_va(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a, a2;
	size_t size = 4 * PAGE;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	uint64_t gva = va_reserve(size), gva2 = va_reserve(size);
	unsigned char *p;

	(void)state;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 13);
	/* unaligned CPU address, GPU VA or size */
	assert_int_equal(alloc_userptr(gva, (uintptr_t)p + 100, size, &a), -EINVAL);
	assert_int_equal(alloc_userptr(gva + 100, (uintptr_t)p, size, &a), -EINVAL);
	assert_int_equal(alloc_userptr(gva, (uintptr_t)p, size - 100, &a), -EINVAL);
	assert_int_equal(alloc_userptr(gva, UINT64_MAX & ~(PAGE - 1), size, &a), -EINVAL);
	/* the middle pages, as for a buffer at p + 100 of 2 pages + 5 bytes */
	assert_int_equal(alloc_userptr(gva, (uintptr_t)p + PAGE, 3 * PAGE, &a), 0);
	assert_true(a.handle != 0);
	assert_int_equal(a.mmap_offset, (uintptr_t)p + PAGE); /* untouched */
	for (size_t i = 0; i < size; i++)
		if (p[i] != (unsigned char)(i * 13))
			fail_msg("byte %zu changed", i);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	assert_int_equal(ns, 1);
	p[PAGE - 1] = 0xa1; /* outside, just before */
	p[PAGE] = 0xb2;     /* first registered byte */
	p[size - 1] = 0xc3; /* last registered byte */
	/* the same pages again at another GPU VA: a second BO over them, as
	 * the kernel allows, where they are arena pages (a host with arenas);
	 * else refused (docs/guest-vkfd-backend.md, "USERPTR limits") */
	if (getenv("VKFD_DIRECT_NO_ARENAS") || getenv("VKFD_HOST_PROTO_1_0")) {
		assert_int_equal(alloc_userptr(gva2, (uintptr_t)p + PAGE, 3 * PAGE, &a2), -EBUSY);
		assert_int_equal(alloc_userptr(gva2, (uintptr_t)p, 2 * PAGE, &a2), -EBUSY);
	} else {
		assert_int_equal(alloc_userptr(gva2, (uintptr_t)p + PAGE, 3 * PAGE, &a2), 0);
		assert_int_equal(p[PAGE], 0xb2);
		assert_int_equal(p[size - 1], 0xc3);
		assert_int_equal(free_bo(a2.handle), 0);
		/* the first still holds them */
		assert_int_equal(p[PAGE], 0xb2);
		p[size - 1] = 0xc3;
	}
	/* the page before is not registered: it can be */
	assert_int_equal(alloc_userptr(gva + 3 * PAGE, (uintptr_t)p, PAGE, &a2), 0);
	assert_int_equal(p[PAGE - 1], 0xa1);
	assert_int_equal(p[0], 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 1, &ns),
			 0);
	/* unregistering one leaves the other's pages as they are */
	assert_int_equal(free_bo(a.handle), 0);
	assert_int_equal(p[PAGE], 0xb2);
	assert_int_equal(p[size - 1], 0xc3);
	assert_int_equal(p[2 * PAGE], (unsigned char)(2 * PAGE * 13));
	p[PAGE - 2] = 0xd4;
	assert_int_equal(free_bo(a2.handle), 0);
	assert_int_equal(p[PAGE - 1], 0xa1);
	assert_int_equal(p[PAGE - 2], 0xd4);
	/* freed: the same range registers again */
	assert_int_equal(alloc_userptr(gva, (uintptr_t)p, size, &a), 0);
	assert_int_equal(p[PAGE], 0xb2);
	assert_int_equal(free_bo(a.handle), 0);
	munmap(p, size);
	munmap((void *)(uintptr_t)gva, size);
	munmap((void *)(uintptr_t)gva2, size);
}

/* Registering memory that is itself a CPU mapping of a BO (hipHostMalloc
 * memory): refused with -EFAULT, as the kernel cannot take user pages from
 * a PFN mapping; the BO is unharmed. libhsakmt answers such a registration
 * itself, without an ioctl, since the address is in its own aperture. */
static void test_userptr_of_bo_mapping(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a, u;
	uint64_t va = va_reserve(4 * PAGE), gva = va_reserve(4 * PAGE);
	unsigned char *m;

	(void)state;
	assert_int_equal(alloc_bo(va, 4 * PAGE, GTT_FLAGS, &a), 0);
	m = B.mmap((void *)(uintptr_t)va, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   rfd, (off_t)a.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)va);
	m[PAGE] = 0x5a;
	assert_int_equal(alloc_userptr(gva, va + PAGE, PAGE, &u), -EFAULT);
	assert_int_equal(alloc_userptr(gva, va, 4 * PAGE, &u), -EFAULT);
	assert_int_equal(m[PAGE], 0x5a);
	m[PAGE + 1] = 0x6b;
	assert_int_equal(m[PAGE + 1], 0x6b);
	assert_int_equal(free_bo(a.handle), 0);
	munmap((void *)(uintptr_t)va, 4 * PAGE);
	munmap((void *)(uintptr_t)gva, 4 * PAGE);
}

/* Sparse anonymous memory (only touched pages are copied) and a private
 * file mapping (whose untouched pages are not zero) both keep their
 * contents through the conversion. */
static void test_userptr_sparse_and_file(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	size_t size = 64 * PAGE;
	unsigned char *p;
	int fd;

	(void)state;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	p[3 * PAGE + 5] = 0x33;
	p[40 * PAGE] = 0x44;
	p[size - 1] = 0x55;
	assert_int_equal(
	    alloc_bo((uintptr_t)p, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a), 0);
	for (size_t i = 0; i < size; i++) {
		unsigned char want = i == 3 * PAGE + 5 ? 0x33
				     : i == 40 * PAGE  ? 0x44
				     : i == size - 1   ? 0x55
						       : 0;
		if (p[i] != want)
			fail_msg("sparse byte %zu: %#x", i, p[i]);
	}
	p[10 * PAGE] = 0x66; /* written while registered */
	assert_int_equal(free_bo(a.handle), 0);
	assert_int_equal(p[10 * PAGE], 0x66);
	assert_int_equal(p[40 * PAGE], 0x44);
	assert_int_equal(p[11 * PAGE], 0);
	munmap(p, size);

	fd = memfd_create("translate-file", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(pwrite(fd, "file", 4, 20 * PAGE), 4);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	assert_int_equal(
	    alloc_bo((uintptr_t)p, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a), 0);
	assert_memory_equal(p + 20 * PAGE, "file", 4);
	assert_int_equal(free_bo(a.handle), 0);
	assert_memory_equal(p + 20 * PAGE, "file", 4);
	munmap(p, size);
}

/* Documented limit check: O_DIRECT reads into a converted range work while
 * the blob is memfd-backed (kfdsim); skipped where the build directory's
 * file system refuses O_DIRECT. */
static void test_userptr_o_direct(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	size_t size = 4 * PAGE;
	char path[PATH_MAX];
	const char *dir = getenv("VKFD_BUILD_ROOT");
	unsigned char *p, *src;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/translate-odirect-XXXXXX", dir ? dir : ".");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	src = aligned_alloc(PAGE, size);
	assert_non_null(src);
	for (size_t i = 0; i < size; i++)
		src[i] = (unsigned char)(i * 13 + 1);
	assert_int_equal(write(fd, src, size), (ssize_t)size);
	close(fd);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	unlink(path);
	if (fd < 0) {
		free(src);
		skip();
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(
	    alloc_bo((uintptr_t)p, size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a), 0);
	assert_int_equal(pread(fd, p, size, 0), (ssize_t)size);
	assert_memory_equal(p, src, size);
	assert_int_equal(free_bo(a.handle), 0);
	assert_memory_equal(p, src, size);
	close(fd);
	munmap(p, size);
	free(src);
}

/* Is the host under test one without arenas (translate-*-no-arenas)? */
/* granted by HELLO: not by a host without arenas (VKFD_DIRECT_NO_ARENAS)
 * or a 1.0 host (VKFD_HOST_PROTO_1_0) */
static bool host_has_arenas(void)
{
	return kfd_conn()->features & VKFD_FEAT_ARENAS;
}

static uint64_t stat_of(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* Small CPU-visible GTT BOs: with arenas they share the arena's blob (no
 * blob of their own), without (a 1.0 host) each gets one; either way every
 * BO's mapping at its VA shows its own bytes only, and a BO made where a
 * freed one was starts zeroed. */
static void test_small_gtt_bos_share_arena(void **state)
{
	enum { N = 40 };
	struct kfd_ioctl_alloc_memory_of_gpu_args a[N];
	uint64_t va[N], size[N];
	uint64_t blobs0 = stat_of(&bk_stats.blobs), arena0 = stat_of(&bk_stats.arena_bos);
	uint32_t ids[1] = {gpu_id};

	(void)state;
	for (int i = 0; i < N; i++) {
		uint32_t ns = 0;
		uint8_t *p;

		size[i] = (uint64_t)(1 + i % 16) * PAGE;
		va[i] = va_reserve(size[i]);
		assert_int_equal(alloc_bo(va[i], size[i], GTT_FLAGS, &a[i]), 0);
		p = B.mmap((void *)(uintptr_t)va[i], size[i], PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_FIXED, rfd, (off_t)a[i].mmap_offset);
		assert_ptr_equal(p, (void *)(uintptr_t)va[i]);
		assert_int_equal(p[0], 0);
		assert_int_equal(p[size[i] - 1], 0);
		memset(p, 0x10 + i, size[i]);
		assert_int_equal(
		    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a[i].handle, ids, 1, &ns), 0);
	}
	for (int i = 0; i < N; i++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)va[i];

		assert_int_equal(p[0], 0x10 + i);
		assert_int_equal(p[size[i] - 1], 0x10 + i);
	}
	if (host_has_arenas()) {
		/* at most the one arena made for them */
		assert_true(stat_of(&bk_stats.blobs) - blobs0 <= 1);
		assert_int_equal(stat_of(&bk_stats.arena_bos) - arena0, N);
	} else {
		assert_int_equal(stat_of(&bk_stats.blobs) - blobs0, N);
		assert_int_equal(stat_of(&bk_stats.arena_bos) - arena0, 0);
	}
	/* free one in the middle; a BO of its size takes its place (first
	 * fit) and reads as zero, whatever the old mapping still shows */
	assert_int_equal(free_bo(a[7].handle), 0);
	{
		struct kfd_ioctl_alloc_memory_of_gpu_args b;
		uint64_t nva = va_reserve(size[7]);
		uint8_t *p;

		assert_int_equal(alloc_bo(nva, size[7], GTT_FLAGS, &b), 0);
		p = B.mmap((void *)(uintptr_t)nva, size[7], PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_FIXED, rfd, (off_t)b.mmap_offset);
		assert_ptr_equal(p, (void *)(uintptr_t)nva);
		for (uint64_t k = 0; k < size[7]; k += 512)
			assert_int_equal(p[k], 0);
		assert_int_equal(free_bo(b.handle), 0);
		munmap(p, size[7]);
	}
	for (int i = 0; i < N; i++) {
		if (i != 7)
			assert_int_equal(free_bo(a[i].handle), 0);
		munmap((void *)(uintptr_t)va[i], size[i]);
	}
}

/* What stays out of arenas: large, EXECUTABLE (libhsakmt's own buffers,
 * the event page), UNCACHED and AQL GTT BOs, and VRAM. */
static void test_arena_exclusions(void **state)
{
	static const struct {
		uint64_t size;
		uint32_t flags;
	} cases[] = {
	    {4ull << 20, GTT_FLAGS},
	    {8 * PAGE, GTT_FLAGS | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE},
	    {8 * PAGE, GTT_FLAGS | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED},
	    {8 * PAGE, VRAM_FLAGS},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kfd_ioctl_alloc_memory_of_gpu_args a;
		uint64_t va = va_reserve(cases[i].size);
		uint64_t arena0 = stat_of(&bk_stats.arena_bos), blobs0 = stat_of(&bk_stats.blobs);
		uint8_t *p;

		assert_int_equal(alloc_bo(va, cases[i].size, cases[i].flags, &a), 0);
		p = B.mmap((void *)(uintptr_t)va, cases[i].size, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_FIXED, rfd, (off_t)a.mmap_offset);
		assert_ptr_equal(p, (void *)(uintptr_t)va);
		p[0] = 1;
		assert_int_equal(stat_of(&bk_stats.arena_bos), arena0);
		assert_int_equal(stat_of(&bk_stats.blobs) - blobs0, 1);
		assert_int_equal(free_bo(a.handle), 0);
		munmap(p, cases[i].size);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vram_alloc_mmap_map_free),
	    cmocka_unit_test(test_gtt_async_alloc),
	    cmocka_unit_test(test_map_async_barrier),
	    cmocka_unit_test(test_gtt_aql_mirrored),
	    cmocka_unit_test(test_small_gtt_bos_share_arena),
	    cmocka_unit_test(test_arena_exclusions),
	    cmocka_unit_test(test_userptr_conversion),
	    cmocka_unit_test(test_userptr_unequal_va),
	    cmocka_unit_test(test_userptr_of_bo_mapping),
	    cmocka_unit_test(test_userptr_sparse_and_file),
	    cmocka_unit_test(test_userptr_o_direct),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
