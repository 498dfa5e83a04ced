// SPDX-License-Identifier: MIT
/*
 * kfdsim render-node GEM objects and GEM_VA in the compute VM (KFD 1.15):
 * the kernel's checks and errnos (amdgpu_gem.c, amdgpu_vm.c, drm_gem.c,
 * drm_prime.c), and mappings the engines use — an AQL ring in a GEM BO,
 * and one in a KFD BO exported as a dmabuf, imported on the render fd and
 * mapped with GEM_VA only. Built against libdrm's UAPI headers.
 */
#include "sim_fixture.h"

#include <fcntl.h>

#include <amdgpu_drm.h>
#include <drm.h>

#ifndef AMDGPU_GEM_CREATE_DISCARDABLE
#define AMDGPU_GEM_CREATE_DISCARDABLE (1 << 12)
#endif
#ifndef AMDGPU_VM_PAGE_NOALLOC
#define AMDGPU_VM_PAGE_NOALLOC (1 << 9)
#endif

#define GTT_W  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define RW     (AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_PAGE_WRITEABLE)
#define GPU_VA 0x200000000ULL /* a GEM_VA area away from the fixture's VAs */

static int rioctl(struct fx *f, unsigned long req, void *arg)
{
	return f->ops->ioctl(f->sim, f->rfd[0], req, arg);
}

static int gem_create(struct fx *f, uint64_t size, uint64_t domains, uint64_t flags,
		      uint32_t *handle)
{
	union drm_amdgpu_gem_create c;
	int r;

	memset(&c, 0, sizeof(c));
	c.in.bo_size = size;
	c.in.alignment = 4096;
	c.in.domains = domains;
	c.in.domain_flags = flags;
	r = rioctl(f, DRM_IOCTL_AMDGPU_GEM_CREATE, &c);
	if (!r && handle)
		*handle = c.out.handle;
	return r;
}

static int gem_va(struct fx *f, uint32_t handle, uint32_t op, uint32_t flags, uint64_t va,
		  uint64_t offset, uint64_t size)
{
	struct drm_amdgpu_gem_va a = {.handle = handle,
				      .operation = op,
				      .flags = flags,
				      .va_address = va,
				      .offset_in_bo = offset,
				      .map_size = size};

	return rioctl(f, DRM_IOCTL_AMDGPU_GEM_VA, &a);
}

static int gem_close(struct fx *f, uint32_t handle)
{
	struct drm_gem_close c = {.handle = handle};

	return rioctl(f, DRM_IOCTL_GEM_CLOSE, &c);
}

static void *gem_cpu(struct fx *f, uint32_t handle, uint64_t size)
{
	union drm_amdgpu_gem_mmap m;
	void *p;

	memset(&m, 0, sizeof(m));
	m.in.handle = handle;
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_GEM_MMAP, &m), 0);
	p = f->ops->mmap(f->sim, NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			 (off_t)m.out.addr_ptr);
	assert_true(p != MAP_FAILED);
	return p;
}

static void test_gem_create_checks(void **state)
{
	struct fx *f = fx_new(NULL, true);
	union drm_amdgpu_gem_mmap m;
	uint32_t h = 0, h2 = 0;

	(void)state;
	assert_int_equal(gem_create(f, 4096, AMDGPU_GEM_DOMAIN_GTT, 0, &h), 0);
	assert_int_equal(h, 1); /* idr from 1 */
	assert_int_equal(gem_create(f, 5000, AMDGPU_GEM_DOMAIN_VRAM,
				    AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED |
					AMDGPU_GEM_CREATE_VRAM_CLEARED |
					AMDGPU_GEM_CREATE_DISCARDABLE,
				    &h2),
			 0);
	assert_int_equal(h2, 2);
	/* flags create does not take, unknown domains, TMZ off, GDS */
	assert_int_equal(
	    gem_create(f, 4096, AMDGPU_GEM_DOMAIN_GTT, AMDGPU_GEM_CREATE_VRAM_CONTIGUOUS, NULL),
	    -EINVAL);
	assert_int_equal(gem_create(f, 4096, AMDGPU_GEM_DOMAIN_GTT, 1ULL << 40, NULL), -EINVAL);
	assert_int_equal(gem_create(f, 4096, 0x100, 0, NULL), -EINVAL);
	assert_int_equal(
	    gem_create(f, 4096, AMDGPU_GEM_DOMAIN_VRAM, AMDGPU_GEM_CREATE_ENCRYPTED, NULL),
	    -EINVAL);
	assert_int_equal(gem_create(f, 0, AMDGPU_GEM_DOMAIN_GTT, 0, NULL), -EINVAL);
	assert_int_equal(gem_create(f, 1ULL << 50, AMDGPU_GEM_DOMAIN_GTT, 0, NULL), -ENOMEM);
	assert_int_equal(gem_create(f, f->cfg.gtt_size + 4096, AMDGPU_GEM_DOMAIN_GTT, 0, NULL),
			 -ENOMEM);
	/* system memory is bounded like GTT */
	assert_int_equal(gem_create(f, f->cfg.gtt_size + 4096, AMDGPU_GEM_DOMAIN_CPU, 0, NULL),
			 -ENOMEM);
	assert_int_equal(gem_create(f, 8192, AMDGPU_GEM_DOMAIN_CPU, 0, &h2), 0);
	assert_int_equal(gem_close(f, h2), 0);
	/* GEM_MMAP: unknown handle -ENOENT, NO_CPU_ACCESS -EPERM */
	memset(&m, 0, sizeof(m));
	m.in.handle = 99;
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_GEM_MMAP, &m), -ENOENT);
	assert_int_equal(
	    gem_create(f, 4096, AMDGPU_GEM_DOMAIN_VRAM, AMDGPU_GEM_CREATE_NO_CPU_ACCESS, &h2), 0);
	m.in.handle = h2;
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_GEM_MMAP, &m), -EPERM);
	/* GEM_CLOSE: the handle goes once; handles are per render file */
	assert_int_equal(gem_close(f, h2), 0);
	assert_int_equal(gem_close(f, h2), -EINVAL);
	assert_int_equal(gem_close(f, 0), -EINVAL);
	{
		int other = f->ops->open_render(f->sim, 128);
		struct drm_gem_close c = {.handle = h};

		assert_true(other >= 0);
		assert_int_equal(f->ops->ioctl(f->sim, other, DRM_IOCTL_GEM_CLOSE, &c), -EINVAL);
		f->ops->close(f->sim, other);
	}
	fx_free(f);
}

static void test_gem_va_checks(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint32_t h = 0;

	(void)state;
	assert_int_equal(gem_create(f, 65536, AMDGPU_GEM_DOMAIN_GTT, 0, &h), 0);
	/* the reserved bottom (64 KiB from KFD 1.16), the hole, the top */
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, 0x8000, 0, 4096), -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, 0x10000, 0, 4096), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_UNMAP, 0, 0x10000, 0, 4096), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, 0x0000800000000000ULL, 0, 4096),
			 -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, (1ULL << 48) - 4096, 0, 4096), -EINVAL);
	/* flags, operation, handle */
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, 1u << 20, GPU_VA, 0, 4096), -EINVAL);
	assert_int_equal(gem_va(f, h, 9, RW, GPU_VA, 0, 4096), -EINVAL);
	assert_int_equal(gem_va(f, 77, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 4096), -ENOENT);
	/* page alignment, empty, past the BO */
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA + 8, 0, 4096), -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 100, 4096), -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 100), -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 0), -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 61440, 8192), -EINVAL);
	/* a mapping, then an overlap -EINVAL; unmap by start only */
	assert_int_equal(
	    gem_va(f, h, AMDGPU_VA_OP_MAP, RW | AMDGPU_VM_PAGE_NOALLOC, GPU_VA, 0, 65536), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA + 4096, 0, 4096), -EINVAL);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_UNMAP, 0, GPU_VA + 4096, 0, 4096), -ENOENT);
	/* CLEAR takes no handle and splits: the ends stay mapped */
	assert_int_equal(gem_va(f, 0, AMDGPU_VA_OP_CLEAR, 0, GPU_VA + 8192, 0, 8192), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA + 8192, 0, 8192), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA + 16384, 0, 4096), -EINVAL);
	assert_int_equal(gem_va(f, 0, AMDGPU_VA_OP_CLEAR, 0, GPU_VA, 0, 0), -EINVAL);
	/* REPLACE clears the range first */
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_REPLACE, RW, GPU_VA, 0, 65536), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_UNMAP, 0, GPU_VA, 0, 0), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_UNMAP, 0, GPU_VA, 0, 0), -ENOENT);
	/* a GEM mapping cannot overlap a KFD BO's mapping: one VM */
	{
		uint64_t kh, va = fx_va(f, 65536);
		uint32_t ids[1] = {f->gpu_id[0]};

		assert_int_equal(fx_alloc(f, 0, GTT_W, va, 65536, &kh, NULL), 0);
		assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, kh, ids, 1, NULL), 0);
		assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, va, 0, 4096), -EINVAL);
	}
	/* the argument unreadable */
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_GEM_VA, (void *)16), -EFAULT);
	fx_free(f);
}

/* An AQL ring at GPU address ring_va (CPU view `cpu`), pointers in a KFD
 * BO: two barrier packets must be consumed. */
static void run_ring(struct fx *f, uint64_t ring_va, uint8_t *cpu)
{
	struct vkfd_kfd_create_queue_args q;
	uint64_t ph, poff = 0, pva = fx_va(f, 4096), t0;
	uint32_t ids[1] = {f->gpu_id[0]};
	uint64_t *db, *ptrs;

	assert_int_equal(fx_alloc(f, 0, GTT_W, pva, 4096, &ph, &poff), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, ph, ids, 1, NULL), 0);
	ptrs = f->ops->mmap(f->sim, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			    (off_t)poff);
	assert_true(ptrs != MAP_FAILED);
	for (unsigned i = 0; i < 65536 / 64; i++)
		*(uint16_t *)(cpu + i * 64) = 1; /* INVALID */
	memset(&q, 0, sizeof(q));
	q.base.ring_base_address = ring_va;
	q.base.ring_size = 65536;
	q.base.read_pointer_address = pva + 0x80;
	q.base.write_pointer_address = pva + 0x38;
	q.base.gpu_id = f->gpu_id[0];
	q.base.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	q.base.queue_percentage = 100;
	q.base.queue_priority = 7;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_QUEUE, &q.base), 0);
	db = f->ops->mmap(f->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
			  (off_t)(q.base.doorbell_offset & ~0x1fffULL));
	assert_true(db != MAP_FAILED);
	for (unsigned i = 0; i < 2; i++) {
		memset(cpu + i * 64, 0, 64);
		__atomic_store_n((uint16_t *)(cpu + i * 64), (uint16_t)(3 | (1 << 8)),
				 __ATOMIC_RELEASE);
	}
	ptrs[0x38 / 8] = 2;
	__atomic_store_n(&db[(q.base.doorbell_offset & 0x1fff) / 8], 1, __ATOMIC_RELEASE);
	t0 = fx_now_ns();
	while (__atomic_load_n(&ptrs[0x80 / 8], __ATOMIC_ACQUIRE) < 2 &&
	       fx_now_ns() - t0 < 5000000000ULL)
		usleep(1000);
	assert_int_equal(ptrs[0x80 / 8], 2);
	{
		struct kfd_ioctl_destroy_queue_args d = {.queue_id = q.base.queue_id};

		assert_int_equal(fx_ioctl(f, AMDKFD_IOC_DESTROY_QUEUE, &d), 0);
	}
	f->ops->munmap(f->sim, db, 8192);
	f->ops->munmap(f->sim, ptrs, 4096);
}

static void test_engine_reads_gem_mapping(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t *cpu;
	uint32_t h = 0;

	(void)state;
	assert_int_equal(gem_create(f, 65536, AMDGPU_GEM_DOMAIN_GTT, 0, &h), 0);
	cpu = gem_cpu(f, h, 65536);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 65536), 0);
	run_ring(f, GPU_VA, cpu);
	f->ops->munmap(f->sim, cpu, 65536);
	/* GEM_CLOSE takes the file's mappings of it away */
	assert_int_equal(gem_close(f, h), 0);
	assert_int_equal(gem_create(f, 65536, AMDGPU_GEM_DOMAIN_VRAM, 0, &h), 0);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 65536), 0);
	fx_free(f);
}

/* A KFD GTT BO of `size` at a fixture VA, mapped on GPU 0, CPU view. */
static uint8_t *kfd_bo(struct fx *f, uint64_t size, uint64_t *va_out)
{
	uint64_t h, off = 0, va = fx_va(f, size);
	uint32_t ids[1] = {f->gpu_id[0]};
	void *p;

	assert_int_equal(fx_alloc(f, 0, GTT_W, va, size, &h, &off), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), 0);
	p = f->ops->mmap(f->sim, NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			 (off_t)off);
	assert_true(p != MAP_FAILED);
	*va_out = va;
	return p;
}

/* The SDMA engine copies between two GEM objects mapped only by GEM_VA,
 * the destination in the VM's upper half (the packet carries the
 * sign-extended address, the GMC folds it). */
static void test_sdma_copies_between_gem_mappings(void **state)
{
	const uint64_t hi_va = 0xffff800000100000ULL;
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	uint64_t ring_va, ptr_va, t0;
	uint8_t *ring, *src, *dst;
	uint64_t *ptrs, *db;
	uint32_t hs = 0, hd = 0;

	(void)state;
	assert_int_equal(gem_create(f, 65536, AMDGPU_GEM_DOMAIN_GTT, 0, &hs), 0);
	assert_int_equal(gem_create(f, 65536, AMDGPU_GEM_DOMAIN_VRAM, 0, &hd), 0);
	src = gem_cpu(f, hs, 65536);
	dst = gem_cpu(f, hd, 65536);
	for (unsigned i = 0; i < 65536; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	assert_int_equal(gem_va(f, hs, AMDGPU_VA_OP_MAP, AMDGPU_VM_PAGE_READABLE, GPU_VA, 0, 65536),
			 0);
	assert_int_equal(gem_va(f, hd, AMDGPU_VA_OP_MAP, RW, hi_va, 0, 65536), 0);
	ring = kfd_bo(f, 4096, &ring_va);
	ptrs = (uint64_t *)kfd_bo(f, 4096, &ptr_va);
	memset(&q, 0, sizeof(q));
	q.base.ring_base_address = ring_va;
	q.base.ring_size = 4096;
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
		/* COPY_LINEAR 64 KiB (count - 1), then a NOP */
		uint32_t pk[8] = {1,
				  65536 - 1,
				  0,
				  (uint32_t)GPU_VA,
				  (uint32_t)(GPU_VA >> 32),
				  (uint32_t)hi_va,
				  (uint32_t)(hi_va >> 32),
				  0};

		memcpy(ring, pk, sizeof(pk));
		__atomic_store_n(&ptrs[1], (uint64_t)sizeof(pk), __ATOMIC_RELEASE);
		__atomic_store_n(&db[(q.base.doorbell_offset & 0x1fff) / 8], (uint64_t)sizeof(pk),
				 __ATOMIC_RELEASE);
	}
	t0 = fx_now_ns();
	while (__atomic_load_n(&ptrs[0], __ATOMIC_ACQUIRE) < 32 && fx_now_ns() - t0 < 5000000000ULL)
		usleep(1000);
	assert_int_equal(ptrs[0], 32);
	assert_memory_equal(dst, src, 65536);
	{
		struct kfd_ioctl_destroy_queue_args d = {.queue_id = q.base.queue_id};

		assert_int_equal(fx_ioctl(f, AMDKFD_IOC_DESTROY_QUEUE, &d), 0);
	}
	f->ops->munmap(f->sim, db, 8192);
	f->ops->munmap(f->sim, src, 65536);
	f->ops->munmap(f->sim, dst, 65536);
	fx_free(f);
}

/* The 1.15 flow: a KFD BO exported, imported on the render fd (the same
 * handle each time), mapped with GEM_VA only, used by the engine. */
static void test_kfd_dmabuf_gem_va(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_export_dmabuf_args ex;
	struct drm_prime_handle ph;
	uint64_t kh, off = 0, va = fx_va(f, 65536);
	uint32_t h = 0;
	uint8_t *cpu;
	uint64_t cap_prime = 0;

	(void)state;
	{
		struct drm_get_cap c = {.capability = DRM_CAP_PRIME};

		assert_int_equal(rioctl(f, DRM_IOCTL_GET_CAP, &c), 0);
		cap_prime = c.value;
	}
	assert_int_equal(cap_prime, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
	assert_int_equal(fx_alloc(f, 0, GTT_W, va, 65536, &kh, &off), 0);
	memset(&ex, 0, sizeof(ex));
	ex.handle = kh;
	ex.flags = O_CLOEXEC;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), 0);
	memset(&ph, 0, sizeof(ph));
	ph.fd = (int)ex.dmabuf_fd;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), 0);
	h = ph.handle;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), 0);
	assert_int_equal(ph.handle, h);
	/* not a dmabuf -EINVAL, not an fd -EBADF */
	ph.fd = f->kfd;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), -EINVAL);
	ph.fd = -1;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), -EBADF);
	cpu = f->ops->mmap(f->sim, NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			   (off_t)off);
	assert_true(cpu != MAP_FAILED);
	/* never mapped through KFD: only GEM_VA puts it in the VM */
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 65536), 0);
	run_ring(f, GPU_VA, cpu);
	f->ops->munmap(f->sim, cpu, 65536);
	close((int)ex.dmabuf_fd);
	fx_free(f);
}

/* GEM BOs exported as dmabufs: KFD imports them; VM_ALWAYS_VALID -EPERM */
static void test_prime_export(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_import_dmabuf_args im;
	struct kfd_ioctl_get_dmabuf_info_args gi;
	struct drm_prime_handle ph;
	uint32_t h = 0, h2 = 0;

	(void)state;
	assert_int_equal(gem_create(f, 8192, AMDGPU_GEM_DOMAIN_VRAM, 0, &h), 0);
	memset(&ph, 0, sizeof(ph));
	ph.handle = h;
	ph.flags = 0x4; /* not DRM_CLOEXEC | DRM_RDWR */
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -EINVAL);
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	ph.handle = 55;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -ENOENT);
	ph.handle = h;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	memset(&gi, 0, sizeof(gi));
	gi.dmabuf_fd = (uint32_t)ph.fd;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_DMABUF_INFO, &gi), 0);
	assert_int_equal(gi.size, 8192);
	assert_int_equal(gi.gpu_id, f->gpu_id[0]);
	assert_true(gi.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM);
	memset(&im, 0, sizeof(im));
	im.va_addr = fx_va(f, 8192);
	im.gpu_id = f->gpu_id[0];
	im.dmabuf_fd = (uint32_t)ph.fd;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_IMPORT_DMABUF, &im), 0);
	close(ph.fd);
	assert_int_equal(
	    gem_create(f, 4096, AMDGPU_GEM_DOMAIN_GTT, AMDGPU_GEM_CREATE_VM_ALWAYS_VALID, &h2), 0);
	ph.handle = h2;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -EPERM);
	fx_free(f);
}

/* The dmabuf holds the memory: closing the only GEM handle keeps it, a new
 * import sees the same bytes (drm_gem_prime_handle_to_fd's reference). */
static void test_dmabuf_outlives_handle(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct drm_prime_handle ph;
	uint32_t h = 0;
	uint8_t *cpu;

	(void)state;
	assert_int_equal(gem_create(f, 4096, AMDGPU_GEM_DOMAIN_GTT, 0, &h), 0);
	cpu = gem_cpu(f, h, 4096);
	memset(cpu, 0x5a, 4096);
	f->ops->munmap(f->sim, cpu, 4096);
	memset(&ph, 0, sizeof(ph));
	ph.handle = h;
	ph.flags = DRM_CLOEXEC;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	assert_int_equal(gem_close(f, h), 0);
	ph.handle = 0;
	assert_int_equal(rioctl(f, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), 0);
	cpu = gem_cpu(f, ph.handle, 4096);
	assert_int_equal(cpu[0], 0x5a);
	assert_int_equal(cpu[4095], 0x5a);
	f->ops->munmap(f->sim, cpu, 4096);
	close(ph.fd);
	fx_free(f);
}

/* GEM_VA before ACQUIRE_VM maps in the file's VM, which the KFD process
 * then takes over with its mappings (amdgpu_vm_make_compute). */
static void test_va_before_acquire(void **state)
{
	struct fx *f = fx_new(NULL, false);
	struct kfd_ioctl_acquire_vm_args av = {.drm_fd = (uint32_t)f->rfd[0],
					       .gpu_id = f->gpu_id[0]};
	uint8_t *cpu;
	uint32_t h = 0;

	(void)state;
	assert_int_equal(gem_create(f, 65536, AMDGPU_GEM_DOMAIN_GTT, 0, &h), 0);
	cpu = gem_cpu(f, h, 65536);
	assert_int_equal(gem_va(f, h, AMDGPU_VA_OP_MAP, RW, GPU_VA, 0, 65536), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	run_ring(f, GPU_VA, cpu);
	f->ops->munmap(f->sim, cpu, 65536);
	fx_free(f);
}

/* VRAM objects are charged to the GPU: AMDGPU_INFO_MEMORY sees them */
static void test_gem_accounting(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct drm_amdgpu_memory_info mi0, mi1;
	struct drm_amdgpu_info in;
	uint32_t h = 0;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.query = AMDGPU_INFO_MEMORY;
	in.return_pointer = (uintptr_t)&mi0;
	in.return_size = sizeof(mi0);
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_INFO, &in), 0);
	assert_int_equal(gem_create(f, 1 << 20, AMDGPU_GEM_DOMAIN_VRAM, 0, &h), 0);
	in.return_pointer = (uintptr_t)&mi1;
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_INFO, &in), 0);
	assert_int_equal(mi1.vram.heap_usage - mi0.vram.heap_usage, 1 << 20);
	assert_int_equal(gem_close(f, h), 0);
	assert_int_equal(rioctl(f, DRM_IOCTL_AMDGPU_INFO, &in), 0);
	assert_int_equal(mi1.vram.heap_usage, mi0.vram.heap_usage);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gem_create_checks),
	    cmocka_unit_test(test_gem_va_checks),
	    cmocka_unit_test(test_engine_reads_gem_mapping),
	    cmocka_unit_test(test_sdma_copies_between_gem_mappings),
	    cmocka_unit_test(test_kfd_dmabuf_gem_va),
	    cmocka_unit_test(test_prime_export),
	    cmocka_unit_test(test_dmabuf_outlives_handle),
	    cmocka_unit_test(test_va_before_acquire),
	    cmocka_unit_test(test_gem_accounting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
