// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: AMDKFD_IOC_SVM answered in
 * the guest (backend_vkfd_svm.c; docs/guest-vkfd-backend.md, "SVM") with
 * amdkfd's rules for XNACK off: attributes per interval, split at each
 * request's edges, GET_ATTR intersecting them; a range given GPU access
 * becomes host-backed memory at the same address with its contents, which
 * the host maps on the GPU (a BO then cannot be mapped there); a CPU
 * unmap removes it. The shim's interposers call munmap_notify before
 * munmap; these tests call it as the shim does, then the real munmap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "translate_harness.h"

#define NPAGES 64 /* 256 KiB: an arena slice where the host has arenas */

/* the ioctl's argument: the header and up to 8 attributes in its
 * flexible array (a struct with the array as a second member would not be
 * ISO C) */
union svm_call {
	struct kfd_ioctl_svm_args h;
	unsigned char
	    bytes[sizeof(struct kfd_ioctl_svm_args) + 8 * sizeof(struct kfd_ioctl_svm_attribute)];
};

static int svm(uint32_t op, const void *p, size_t size, struct kfd_ioctl_svm_attribute *at,
	       uint32_t n)
{
	union svm_call c;
	int r;

	memset(&c, 0, sizeof(c));
	c.h.start_addr = (uintptr_t)p;
	c.h.size = size;
	c.h.op = op;
	c.h.nattr = n;
	memcpy(c.h.attrs, at, n * sizeof(*at));
	r = kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SVM), sizeof(c.h) + n * sizeof(*at), &c);
	memcpy(at, c.h.attrs, n * sizeof(*at));
	return r;
}

static int set1(const void *p, size_t size, uint32_t type, uint32_t value)
{
	struct kfd_ioctl_svm_attribute at = {type, value};

	return svm(KFD_IOCTL_SVM_OP_SET_ATTR, p, size, &at, 1);
}

static void unmap(void *p, size_t size)
{
	B.munmap_notify(p, size);
	assert_int_equal(munmap(p, size), 0);
}

static unsigned char *anon(size_t size)
{
	unsigned char *p =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

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

/* Can a BO be allocated and mapped on the GPU at [va, va+size)? The
 * host refuses a VA a BO of the process has (an SVM piece there), as
 * amdkfd refuses a BO over an SVM range: -EADDRINUSE. */
static int bo_map_at(uint64_t va, size_t size)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	int r;

	r = alloc_bo(va, size, GTT_FLAGS, &a);
	if (r)
		return r;
	r = map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns);
	if (!r) {
		ns = 0;
		assert_int_equal(
		    map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), a.handle, ids, 1, &ns), 0);
	}
	assert_int_equal(free_bo(a.handle), 0);
	return r;
}

static void test_args(void **state)
{
	unsigned char *p = anon(NPAGES * PAGE);
	struct kfd_ioctl_svm_attribute at = {KFD_IOCTL_SVM_ATTR_GRANULARITY, 1};
	union svm_call c;

	(void)state;
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_SET_ATTR, p + 1, PAGE, &at, 1), -EINVAL);
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_SET_ATTR, p, 0, &at, 1), -EINVAL);
	assert_int_equal(svm(7, p, PAGE, &at, 1), -EINVAL);
	at = (struct kfd_ioctl_svm_attribute){0x77, 0};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_SET_ATTR, p, PAGE, &at, 1), -EINVAL);
	/* a GPU this process does not have */
	assert_int_equal(set1(p, PAGE, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id + 1), -EINVAL);
	assert_int_equal(set1(p, PAGE, KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, gpu_id + 1), -EINVAL);
	/* more attributes than the ioctl size holds */
	memset(&c, 0, sizeof(c));
	c.h.start_addr = (uintptr_t)p;
	c.h.size = PAGE;
	c.h.nattr = 2;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SVM), sizeof(c.h) + 8, &c), -EINVAL);
	/* pages without a CPU mapping, and beyond the user address space */
	munmap(p + (NPAGES - 1) * PAGE, PAGE);
	assert_int_equal(set1(p, NPAGES * PAGE, KFD_IOCTL_SVM_ATTR_GRANULARITY, 1), -EFAULT);
	assert_int_equal(set1((void *)0x7ffffffff000ull, PAGE, KFD_IOCTL_SVM_ATTR_GRANULARITY, 1),
			 -EFAULT);
	unmap(p, (NPAGES - 1) * PAGE);
}

/* Pages no SET_ATTR named read back the defaults; a SET_ATTR splits the
 * ranges at its edges and GET_ATTR intersects them. */
static void test_set_get_split(void **state)
{
	unsigned char *p = anon(NPAGES * PAGE);
	struct kfd_ioctl_svm_attribute g[5];

	(void)state;
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0};
	g[1] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0};
	g[2] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_GRANULARITY, 0};
	g[3] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id};
	g[4] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_CLR_FLAGS, 0};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, NPAGES * PAGE, g, 5), 0);
	assert_int_equal(g[0].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	assert_int_equal(g[1].value, KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT);
	assert_int_equal(g[2].value, 9);
	assert_int_equal(g[3].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	assert_int_equal(g[4].value,
			 ~(uint32_t)(KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT));

	/* [0, 64) gran 3, preferred sysmem; then [16, 32) gran 200 (clamped) */
	assert_int_equal(set1(p, NPAGES * PAGE, KFD_IOCTL_SVM_ATTR_GRANULARITY, 3), 0);
	assert_int_equal(set1(p, NPAGES * PAGE, KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0), 0);
	assert_int_equal(set1(p + 16 * PAGE, 16 * PAGE, KFD_IOCTL_SVM_ATTR_GRANULARITY, 200), 0);
	assert_int_equal(
	    set1(p + 16 * PAGE, 16 * PAGE, KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_GPU_RO),
	    0);
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p + 16 * PAGE, 16 * PAGE, g, 3), 0);
	assert_int_equal(g[0].value, 0);
	assert_int_equal(g[2].value, 0x3f);
	assert_true(g[1].value & KFD_IOCTL_SVM_FLAG_GPU_RO);
	/* across the split: the smallest granularity, flags all share */
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, NPAGES * PAGE, g, 3), 0);
	assert_int_equal(g[0].value, 0);
	assert_int_equal(g[2].value, 3);
	assert_false(g[1].value & KFD_IOCTL_SVM_FLAG_GPU_RO);
	/* a preferred location that differs between ranges is undefined */
	assert_int_equal(set1(p, PAGE, KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, gpu_id), 0);
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, 2 * PAGE, g, 1), 0);
	assert_int_equal(g[0].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	/* no GPU access was given: nothing converted */
	assert_int_equal(map_kind(p), 'p');
	unmap(p, NPAGES * PAGE);
}

/* ACCESS converts the range: host-backed, contents kept, GPU-mapped (the
 * host refuses a BO there); a prefetch is recorded, nothing moves. */
static void test_access_converts(void **state)
{
	size_t size = NPAGES * PAGE;
	unsigned char *p = anon(size);
	struct kfd_ioctl_svm_attribute g[2];

	(void)state;
	for (size_t i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 7 + 1);
	assert_int_equal(bo_map_at((uintptr_t)p, size), 0);
	assert_int_equal(set1(p, size, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
	assert_int_equal(map_kind(p), 's');
	for (size_t i = 0; i < size; i++)
		assert_int_equal(p[i], (unsigned char)(i * 7 + 1));
	assert_int_equal(bo_map_at((uintptr_t)p, PAGE), -EADDRINUSE);
	/* an SVM range over a BO of the process: EADDRINUSE */
	{
		struct kfd_ioctl_alloc_memory_of_gpu_args a;
		unsigned char *q = anon(4 * PAGE);

		assert_int_equal(alloc_bo((uintptr_t)q, 4 * PAGE, GTT_FLAGS, &a), 0);
		assert_int_equal(set1(q, 4 * PAGE, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), -EADDRINUSE);
		assert_int_equal(free_bo(a.handle), 0);
		unmap(q, 4 * PAGE);
	}
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, size, g, 1), 0);
	assert_int_equal(g[0].type, KFD_IOCTL_SVM_ATTR_ACCESS);
	/* prefetch to the GPU: reported, contents stay */
	assert_int_equal(set1(p, size, KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, gpu_id), 0);
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, 0};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, size, g, 1), 0);
	assert_int_equal(g[0].value, gpu_id);
	assert_int_equal(p[size - 1], (unsigned char)((size - 1) * 7 + 1));
	/* NO_ACCESS: reported, but the GPU keeps its mapping (the kernel's
	 * "TODO: unmap ranges from GPU that lost access") */
	assert_int_equal(set1(p, size, KFD_IOCTL_SVM_ATTR_NO_ACCESS, gpu_id), 0);
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, gpu_id};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, size, g, 1), 0);
	assert_int_equal(g[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	assert_int_equal(bo_map_at((uintptr_t)p, PAGE), -EADDRINUSE);
	/* munmap takes the range and its GPU mapping away */
	unmap(p, size);
	p = mmap(p, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(bo_map_at((uintptr_t)p, size), 0);
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, size, g, 1), 0);
	assert_int_equal(g[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	unmap(p, size);
}

/* A range that grows over an earlier one: only the new pages become a
 * piece, the old piece (and its bytes) stays; a partial munmap keeps the
 * rest host-backed, GPU-mapped and intact. */
static void test_grow_and_partial_unmap(void **state)
{
	size_t size = NPAGES * PAGE;
	unsigned char *p = anon(size);

	(void)state;
	for (size_t i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 3 + 5);
	assert_int_equal(set1(p + 8 * PAGE, 8 * PAGE, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
	p[8 * PAGE] = 0xaa;
	assert_int_equal(set1(p, size, KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, gpu_id), 0);
	assert_int_equal(map_kind(p), 's');
	assert_int_equal(map_kind(p + size - 1), 's');
	assert_int_equal(p[8 * PAGE], 0xaa);
	assert_int_equal(p[0], 5);
	assert_int_equal(p[size - 1], (unsigned char)((size - 1) * 3 + 5));
	assert_int_equal(bo_map_at((uintptr_t)p + 40 * PAGE, PAGE), -EADDRINUSE);
	/* unmap the middle of the first piece's pages and of the second, as
	 * the shim does for a MAP_FIXED over it: the hole stays reserved, so
	 * no mapping of another thread (the library's, the sanitizer's) can
	 * land in it before the test maps it again below */
	B.munmap_notify(p + 10 * PAGE, 20 * PAGE);
	assert_true(mmap(p + 10 * PAGE, 20 * PAGE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p + 10 * PAGE);
	assert_int_equal(map_kind(p + 9 * PAGE), 's');
	assert_int_equal(map_kind(p + 31 * PAGE), 's');
	assert_int_equal(p[8 * PAGE], 0xaa);
	assert_int_equal(p[9 * PAGE + 1], (unsigned char)((9 * PAGE + 1) * 3 + 5));
	assert_int_equal(p[31 * PAGE], (unsigned char)((31 * PAGE) * 3 + 5));
	/* the pages kept are still on the GPU, the unmapped ones are not */
	assert_int_equal(bo_map_at((uintptr_t)p + 9 * PAGE, PAGE), -EADDRINUSE);
	assert_int_equal(bo_map_at((uintptr_t)p + 31 * PAGE, PAGE), -EADDRINUSE);
	{
		unsigned char *q;

		B.munmap_notify(p + 10 * PAGE, 20 * PAGE);
		q = mmap(p + 10 * PAGE, 20 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		assert_true(q == p + 10 * PAGE);
		assert_int_equal(bo_map_at((uintptr_t)q, 20 * PAGE), 0);
		/* a new range there gets a piece of its own, next to the others */
		q[0] = 0x42;
		assert_int_equal(set1(q, 20 * PAGE, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
		assert_int_equal(q[0], 0x42);
		assert_int_equal(map_kind(q), 's');
	}
	unmap(p, size);
	assert_int_equal(bo_map_at((uintptr_t)p + 9 * PAGE, PAGE), 0);
}

/* Pages unmapped behind the shim's back (a raw munmap; glibc's own) are
 * found at the next SVM call: the piece is freed, the range dropped. */
static void test_unmapped_unseen(void **state)
{
	size_t size = NPAGES * PAGE;
	unsigned char *p = anon(size), *q;
	struct kfd_ioctl_svm_attribute g[1];

	(void)state;
	assert_int_equal(set1(p, size, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
	assert_int_equal(munmap(p, size), 0); /* not notified */
	q = mmap(p, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	assert_true(q == p);
	q[0] = 9;
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, q, size, g, 1), 0);
	assert_int_equal(g[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	assert_int_equal(bo_map_at((uintptr_t)q, size), 0);
	assert_int_equal(set1(q, size, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
	assert_int_equal(q[0], 9);
	assert_int_equal(map_kind(q), 's');
	unmap(q, size);
}

/* A read-only CPU mapping stays read-only after its conversion. */
static void test_read_only_mapping(void **state)
{
	unsigned char *p = anon(4 * PAGE);
	char line[512];
	bool ro = false;
	FILE *f;

	(void)state;
	p[0] = 77;
	assert_int_equal(mprotect(p, 4 * PAGE, PROT_READ), 0);
	assert_int_equal(set1(p, 4 * PAGE, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
	assert_int_equal(p[0], 77);
	f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) == 3 && s == (uintptr_t)p)
			ro = !strncmp(perms, "r--s", 4);
	}
	fclose(f);
	assert_true(ro);
	unmap(p, 4 * PAGE);
}

/* The SVM pieces are no handles of the application. */
static void test_piece_not_freeable(void **state)
{
	unsigned char *p = anon(4 * PAGE);
	struct bk_conn *c;
	uint64_t h = 0;

	(void)state;
	assert_int_equal(set1(p, 4 * PAGE, KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id), 0);
	bk_table_lock();
	c = bk_file_get_locked(kfd)->conn;
	for (struct bk_bo *b = c->bos; b; b = b->next)
		if (b->svm && b->cpu_va == (uintptr_t)p)
			h = b->handle;
	bk_table_unlock();
	assert_true(h != 0);
	assert_int_equal(free_bo(h), -EINVAL);
	unmap(p, 4 * PAGE);
}

/* New pages' default access follows the process's XNACK mode: none with
 * it off, every GPU with it on (svm_range_new). */
static void test_xnack_defaults(void **state)
{
	unsigned char *p = anon(4 * PAGE);
	struct kfd_ioctl_set_xnack_mode_args x = {1};
	struct kfd_ioctl_svm_attribute g[1];

	(void)state;
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, 4 * PAGE, g, 1), 0);
	assert_int_equal(g[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	/* gfx90a can turn XNACK on while the process has no queue */
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SET_XNACK_MODE), sizeof(x), &x), 0);
	g[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id};
	assert_int_equal(svm(KFD_IOCTL_SVM_OP_GET_ATTR, p, 4 * PAGE, g, 1), 0);
	assert_int_equal(g[0].type, KFD_IOCTL_SVM_ATTR_ACCESS);
	x.xnack_enabled = 0;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SET_XNACK_MODE), sizeof(x), &x), 0);
	unmap(p, 4 * PAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_args),
	    cmocka_unit_test(test_set_get_split),
	    cmocka_unit_test(test_access_converts),
	    cmocka_unit_test(test_grow_and_partial_unmap),
	    cmocka_unit_test(test_unmapped_unseen),
	    cmocka_unit_test(test_read_only_mapping),
	    cmocka_unit_test(test_piece_not_freeable),
	    cmocka_unit_test(test_xnack_defaults),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
