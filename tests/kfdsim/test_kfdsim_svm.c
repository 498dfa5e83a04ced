// SPDX-License-Identifier: MIT
/*
 * kfdsim SVM (AMDKFD_IOC_SVM) against kfd_svm.c of 6.x kernels with XNACK
 * off: argument checks, default attributes, SET_ATTR splitting ranges,
 * GET_ATTR intersecting them, the BO overlap and CPU-mapping checks,
 * ranges dropped once the CPU unmaps them, and libhsakmt 6.x's
 * hsa_amd_memory_lock sequence, whose GPU mapping its unlock leaves.
 */
#include "sim_fixture.h"

#define PG 4096ULL

/* kfd_ioctl.h of 6.x kernels; older UAPI headers lack it */
#ifndef KFD_IOCTL_SVM_FLAG_EXT_COHERENT
#define KFD_IOCTL_SVM_FLAG_EXT_COHERENT 0x80
#endif

/* An SVM ioctl with n attributes, sized the way libhsakmt sizes it: the
 * layout of struct kfd_ioctl_svm_args (whose flexible array cannot be
 * embedded in ISO C) followed by the attributes. */
struct svm_call {
	struct {
		uint64_t start_addr, size;
		uint32_t op, nattr;
	} a;
	struct kfd_ioctl_svm_attribute at[8];
};
_Static_assert(sizeof(((struct svm_call *)0)->a) == sizeof(struct kfd_ioctl_svm_args),
	       "the SVM header layout");

static int svm(struct fx *f, uint32_t op, void *start, uint64_t size, struct svm_call *c,
	       uint32_t n)
{
	c->a.start_addr = (uintptr_t)start;
	c->a.size = size;
	c->a.op = op;
	c->a.nattr = n;
	return fx_ioctl(f,
			_IOC(_IOC_READ | _IOC_WRITE, 'K', 0x20,
			     sizeof(c->a) + n * sizeof(struct kfd_ioctl_svm_attribute)),
			c);
}

static void *anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static void test_args(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *m = anon(4 * PG, PROT_READ | PROT_WRITE);
	struct svm_call c = {0};

	(void)state;
	/* unaligned start or size, address or size 0 */
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m + 8, PG, &c, 0), -EINVAL);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, PG + 8, &c, 0), -EINVAL);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, NULL, PG, &c, 0), -EINVAL);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 0, &c, 0), -EINVAL);
	/* unknown operation, unknown attribute type, unknown GPU */
	assert_int_equal(svm(f, 2, m, PG, &c, 0), -EINVAL);
	c.at[0] = (struct kfd_ioctl_svm_attribute){.type = 99, .value = 0};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, PG, &c, 1), -EINVAL);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, 0x1234};
	if (f->gpu_id[0] != 0x1234)
		assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, PG, &c, 1), -EINVAL);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 7};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, PG, &c, 1), -EINVAL);
	/* more attributes than the ioctl size carries */
	c.a.start_addr = (uintptr_t)m;
	c.a.size = PG;
	c.a.op = KFD_IOCTL_SVM_OP_GET_ATTR;
	c.a.nattr = 2;
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x20, uint8_t[24 + 8]), &c), -EINVAL);
	/* pages outside any CPU mapping, and past the user address space */
	munmap(m + 2 * PG, PG);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 4 * PG, &c, 0), -EFAULT);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m + PG, 2 * PG, &c, 0), -EFAULT);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 2 * PG, &c, 0), 0);
	munmap(m, 4 * PG);
	fx_free(f);
}

static void test_defaults(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *m = anon(4 * PG, PROT_READ | PROT_WRITE);
	struct svm_call c = {0};

	(void)state;
	c.at[0].type = KFD_IOCTL_SVM_ATTR_PREFERRED_LOC;
	c.at[1].type = KFD_IOCTL_SVM_ATTR_PREFETCH_LOC;
	c.at[2] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	c.at[3].type = KFD_IOCTL_SVM_ATTR_SET_FLAGS;
	c.at[4].type = KFD_IOCTL_SVM_ATTR_CLR_FLAGS;
	c.at[5].type = KFD_IOCTL_SVM_ATTR_GRANULARITY;
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 4 * PG, &c, 6), 0);
	assert_int_equal(c.at[0].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	assert_int_equal(c.at[1].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	/* XNACK off: no GPU has access to a page nobody registered */
	assert_int_equal(c.at[2].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	assert_int_equal(c.at[3].value,
			 KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT);
	assert_int_equal(c.at[4].value,
			 ~(uint32_t)(KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT));
	assert_int_equal(c.at[5].value, 9);
	munmap(m, 4 * PG);
	fx_free(f);
}

static void test_set_get_split(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *m = anon(8 * PG, PROT_READ | PROT_WRITE);
	struct svm_call c = {0};

	(void)state;
	/* the whole buffer: access, prefetch to the GPU, read-mostly */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	c.at[1] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, f->gpu_id[0]};
	c.at[2] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_SET_FLAGS,
						   KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY};
	c.at[3] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_GRANULARITY, 0x80};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, 8 * PG, &c, 4), 0);
	/* the middle: preferred system memory, in place, no read-mostly */
	c.at[0] =
	    (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, f->gpu_id[0]};
	c.at[1] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_PREFERRED_LOC,
						   KFD_IOCTL_SVM_LOCATION_SYSMEM};
	c.at[2] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_CLR_FLAGS,
						   KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY};
	c.at[3] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_GRANULARITY, 2};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m + 2 * PG, 2 * PG, &c, 4), 0);

	/* the head kept its attributes */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	c.at[1].type = KFD_IOCTL_SVM_ATTR_PREFETCH_LOC;
	c.at[2].type = KFD_IOCTL_SVM_ATTR_SET_FLAGS;
	c.at[3].type = KFD_IOCTL_SVM_ATTR_GRANULARITY;
	c.at[4].type = KFD_IOCTL_SVM_ATTR_PREFERRED_LOC;
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 2 * PG, &c, 5), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_ACCESS);
	assert_int_equal(c.at[1].value, f->gpu_id[0]);
	assert_true(c.at[2].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
	assert_int_equal(c.at[3].value, 0x3f); /* clamped */
	assert_int_equal(c.at[4].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	/* the middle */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m + 2 * PG, 2 * PG, &c, 5), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE);
	assert_int_equal(c.at[1].value, f->gpu_id[0]);
	assert_false(c.at[2].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
	assert_int_equal(c.at[3].value, 2);
	assert_int_equal(c.at[4].value, KFD_IOCTL_SVM_LOCATION_SYSMEM);
	/* all of it: the intersection (access in neither form everywhere,
	 * flags set only where all have them, clear only where none has
	 * them, the smallest granularity, the location differs) */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	c.at[5].type = KFD_IOCTL_SVM_ATTR_CLR_FLAGS;
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 8 * PG, &c, 6), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	assert_int_equal(c.at[1].value, f->gpu_id[0]);
	assert_false(c.at[2].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
	assert_int_equal(c.at[3].value, 2);
	assert_int_equal(c.at[4].value, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	assert_false(c.at[5].value & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
	assert_false(c.at[5].value & KFD_IOCTL_SVM_FLAG_HOST_ACCESS);
	assert_true(c.at[5].value & KFD_IOCTL_SVM_FLAG_GPU_RO);
	/* NO_ACCESS takes the GPU away again */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_NO_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, 2 * PG, &c, 1), 0);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, 2 * PG, &c, 1), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	munmap(m, 8 * PG);
	fx_free(f);
}

/* SVM and BOs exclude each other in a GPU VM: svm_range_check_vm gives
 * -EADDRINUSE, and the BO cannot map over SVM pages. */
static void test_bo_overlap(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *m = anon(4 * PG, PROT_READ | PROT_WRITE);
	uint64_t va = fx_va(f, 4 * PG), h, h2;
	struct svm_call c = {0};
	uint32_t n = 0;

	(void)state;
	assert_int_equal(mprotect((void *)(uintptr_t)va, 4 * PG, PROT_READ | PROT_WRITE), 0);
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE, va,
				  4 * PG, &h, NULL),
			 0);
	/* allocated but not mapped: no conflict yet */
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, (void *)(uintptr_t)va, PG, &c, 0), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, f->gpu_id, 1, &n), 0);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, (void *)(uintptr_t)va, PG, &c, 0),
			 -EADDRINUSE);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, (void *)(uintptr_t)va, PG, &c, 1),
			 -EADDRINUSE);

	/* SVM pages first: a BO at that address does not map */
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, 4 * PG, &c, 1), 0);
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, (uintptr_t)m, PG, &h2, NULL),
			 0);
	n = 0;
	assert_int_not_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h2, f->gpu_id, 1, &n), 0);
	assert_int_equal(fx_free_bo(f, h2), 0);
	munmap(m, 4 * PG);
	fx_free(f);
}

/* Unmapping the CPU pages drops them from their range: a new mapping
 * at the same address starts from the defaults. */
static void test_cpu_unmap(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *m = anon(4 * PG, PROT_READ | PROT_WRITE), *again;
	struct svm_call c = {0};

	(void)state;
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	c.at[1] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_GRANULARITY, 4};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, 4 * PG, &c, 2), 0);
	munmap(m + PG, PG);
	/* kfdsim notices at the next SVM ioctl (an unmap and a new mapping
	 * in between look like no change: docs/kfdsim.md) */
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, PG, &c, 0), 0);
	again = mmap(m + PG, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		     -1, 0);
	assert_ptr_equal(again, m + PG);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	c.at[1].type = KFD_IOCTL_SVM_ATTR_GRANULARITY;
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m + PG, PG, &c, 2), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	assert_int_equal(c.at[1].value, 9);
	/* the pages around it keep theirs */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m + 2 * PG, 2 * PG, &c, 2), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_ACCESS);
	assert_int_equal(c.at[1].value, 4);
	munmap(m, 4 * PG);
	fx_free(f);
}

/* Access for a GPU whose VM was never acquired cannot be mapped. */
static void test_unbound_gpu(void **state)
{
	struct fx *f = fx_new(NULL, false);
	uint8_t *m = anon(PG, PROT_READ | PROT_WRITE);
	struct svm_call c = {0};

	(void)state;
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, PG, &c, 1), -EINVAL);
	/* attributes without GPU access need no VM */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_GRANULARITY, 3};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, m, PG, &c, 1), 0);
	munmap(m, PG);
	fx_free(f);
}

/* XNACK on: a page nobody registered is accessible to every GPU. */
static void test_xnack_on_defaults(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_set_xnack_mode_args x = {.xnack_enabled = 1};
	uint8_t *m = anon(PG, PROT_READ | PROT_WRITE);
	struct svm_call c = {0};

	(void)state;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), 0); /* gfx90a */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, PG, &c, 1), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_ACCESS);
	munmap(m, PG);
	fx_free(f);
}

/* A queue's ring must be a BO: SVM pages mapped on the GPU are not one
 * (kfd_queue_buffer_get looks up BO mappings only). */
static void test_queue_ring_not_svm(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *ring = anon(65536, PROT_READ | PROT_WRITE);
	uint64_t ptrs = fx_va(f, PG), ring_bo = fx_va(f, 65536), hp, hr, off = 0;
	struct vkfd_kfd_create_queue_args q = {0};
	struct kfd_ioctl_destroy_queue_args d = {0};
	struct svm_call c = {0};
	uint32_t n = 0;

	(void)state;
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, ptrs,
				  PG, &hp, &off),
			 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, hp, f->gpu_id, 1, &n), 0);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, ring, 65536, &c, 1), 0);
	q.base.ring_base_address = (uintptr_t)ring;
	q.base.ring_size = 65536;
	q.base.read_pointer_address = ptrs + 0x80;
	q.base.write_pointer_address = ptrs + 0x38;
	q.base.gpu_id = f->gpu_id[0];
	q.base.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	q.base.queue_percentage = 100;
	q.base.queue_priority = 7;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_QUEUE, &q.base), -EINVAL);
	/* the same with a BO ring */
	off = 0;
	n = 0;
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE,
				  ring_bo, 65536, &hr, &off),
			 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, hr, f->gpu_id, 1, &n), 0);
	q.base.ring_base_address = ring_bo;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_QUEUE, &q.base), 0);
	d.queue_id = q.base.queue_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_DESTROY_QUEUE, &d), 0);
	munmap(ring, 65536);
	fx_free(f);
}

/* A GTT BO mapped on the GPU and on the CPU (the SDMA ring, its pointers
 * and a copy's destination). */
static uint8_t *gtt_bo(struct fx *f, uint64_t size, uint64_t *va_out)
{
	uint64_t h, off = 0, va = fx_va(f, size);
	uint32_t n = 0;
	void *p;

	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, va,
				  size, &h, &off),
			 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, f->gpu_id, 1, &n), 0);
	p = f->ops->mmap(f->sim, NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			 (off_t)off);
	assert_true(p != MAP_FAILED);
	*va_out = va;
	return p;
}

/* hsa_amd_memory_lock with libhsakmt 6.x on a GPU with the SVM API
 * (fmm_register_mem_svm_api, fmm_map_mem_svm_api): SET_ATTR of the
 * coherence flags, which gives no GPU access (XNACK off), then SET_ATTR
 * ACCESS_IN_PLACE, which maps the CPU pages on the GPU. Its unlock
 * (hsaKmtUnmapMemoryToGPU, hsaKmtDeregisterMemory) finds no BO there and
 * returns without an ioctl, so the kernel keeps the range and its GPU
 * mapping: an SDMA copy from it afterwards reads the pages' current
 * bytes, no fault (e2e unlock-busy natively with ROCr 6.x). */
static void test_lock_sequence_outlives_unlock(void **state)
{
	const uint64_t size = 8 * PG;
	struct fx *f = fx_new(NULL, true);
	uint8_t *buf = anon(size, PROT_READ | PROT_WRITE), *ring, *dst;
	struct vkfd_kfd_create_queue_args q = {0};
	struct kfd_ioctl_destroy_queue_args d = {0};
	uint64_t ring_va, ptr_va, dst_va, t0;
	struct svm_call c = {0};
	uint64_t *ptrs, *db;

	(void)state;
	/* the registration: flags only, no access yet */
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_SET_FLAGS,
						   KFD_IOCTL_SVM_FLAG_COHERENT};
	c.at[1] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_CLR_FLAGS,
						   KFD_IOCTL_SVM_FLAG_EXT_COHERENT};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, buf, size, &c, 2), 0);
	c.at[0] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, buf, size, &c, 1), 0);
	assert_int_equal(c.at[0].type, KFD_IOCTL_SVM_ATTR_NO_ACCESS);
	/* the mapping to the locking agent */
	c.at[0] =
	    (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, f->gpu_id[0]};
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_SET_ATTR, buf, size, &c, 1), 0);
	/* (the unlock: no ioctl) then the CPU writes, the copy runs */
	for (unsigned i = 0; i < size; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	ring = gtt_bo(f, PG, &ring_va);
	ptrs = (uint64_t *)(void *)gtt_bo(f, PG, &ptr_va);
	dst = gtt_bo(f, size, &dst_va);
	q.base.ring_base_address = ring_va;
	q.base.ring_size = PG;
	q.base.read_pointer_address = ptr_va;
	q.base.write_pointer_address = ptr_va + 8;
	q.base.gpu_id = f->gpu_id[0];
	q.base.queue_type = KFD_IOC_QUEUE_TYPE_SDMA;
	q.base.queue_percentage = 100;
	q.base.queue_priority = 15;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_QUEUE, &q.base), 0);
	db = f->ops->mmap(f->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
			  (off_t)(q.base.doorbell_offset & ~0x1fffULL));
	assert_true(db != MAP_FAILED);
	{
		/* COPY_LINEAR (count - 1) from the SVM range, then a NOP */
		uint64_t src_va = (uintptr_t)buf;
		uint32_t pk[8] = {1,
				  (uint32_t)size - 1,
				  0,
				  (uint32_t)src_va,
				  (uint32_t)(src_va >> 32),
				  (uint32_t)dst_va,
				  (uint32_t)(dst_va >> 32),
				  0};

		memcpy(ring, pk, sizeof(pk));
		__atomic_store_n(&ptrs[1], (uint64_t)sizeof(pk), __ATOMIC_RELEASE);
		__atomic_store_n(&db[(q.base.doorbell_offset & 0x1fff) / 8], (uint64_t)sizeof(pk),
				 __ATOMIC_RELEASE);
	}
	/* the bound only keeps a broken engine from hanging the test */
	t0 = fx_now_ns();
	while (__atomic_load_n(&ptrs[0], __ATOMIC_ACQUIRE) < 32 && fx_now_ns() - t0 < 5000000000ULL)
		usleep(1000);
	assert_int_equal(ptrs[0], 32);
	assert_memory_equal(dst, buf, size);
	d.queue_id = q.base.queue_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_DESTROY_QUEUE, &d), 0);
	f->ops->munmap(f->sim, db, 8192);
	munmap(buf, size);
	fx_free(f);
}

/* Version gates: no SVM before 1.5, no CLR_FLAGS query before 1.6. */
static void test_versions(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f;
	uint8_t *m = anon(PG, PROT_READ | PROT_WRITE);
	struct svm_call c = {0};

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 4;
	f = fx_new(&cfg, true);
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, PG, &c, 0), -ENOTTY);
	fx_free(f);
	cfg.kfd_minor = 5;
	f = fx_new(&cfg, true);
	c.at[0].type = KFD_IOCTL_SVM_ATTR_CLR_FLAGS;
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, PG, &c, 1), -EINVAL);
	c.at[0].type = KFD_IOCTL_SVM_ATTR_SET_FLAGS;
	assert_int_equal(svm(f, KFD_IOCTL_SVM_OP_GET_ATTR, m, PG, &c, 1), 0);
	fx_free(f);
	munmap(m, PG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_args),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_set_get_split),
	    cmocka_unit_test(test_bo_overlap),
	    cmocka_unit_test(test_cpu_unmap),
	    cmocka_unit_test(test_versions),
	    cmocka_unit_test(test_xnack_on_defaults),
	    cmocka_unit_test(test_queue_ring_not_svm),
	    cmocka_unit_test(test_unbound_gpu),
	    cmocka_unit_test(test_lock_sequence_outlives_unlock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
