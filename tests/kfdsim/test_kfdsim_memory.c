// SPDX-License-Identifier: MIT
/* kfdsim conformance: ALLOC/FREE/MAP/UNMAP, mmap offsets on render and kfd
 * fds, capacity, AQL double mapping, dmabuf export/import. */
#include <fcntl.h>

#include "sim_fixture.h"

#define VRAM_W (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE)
#define GTT_W  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)

static void test_alloc_args(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_alloc_memory_of_gpu_args a = {
	    .va_addr = fx_va(f, 4096), .gpu_id = f->gpu_id[0], .flags = VRAM_W};

	(void)state;
	/* size 0 */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), -EINVAL);
	a.size = 4096;
	/* no domain */
	a.flags = VKFD_KFD_ALLOC_WRITABLE;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), -EINVAL);
	a.flags = VRAM_W;
	/* beyond any memory limit: the reservation fails */
	a.size = ~0ULL;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), -ENOMEM);
	a.size = 1ULL << 40;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), -ENOMEM);
	a.size = 4096;
	a.gpu_id = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), -EINVAL);
	a.gpu_id = f->gpu_id[0];
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), 0);
	/* handle = gpu_id << 32 | idr id (the first id is 0) */
	assert_int_equal(a.handle >> 32, f->gpu_id[0]);
	assert_int_equal(a.handle & 0xffffffffULL, 0);
	/* GEM-like fake offset */
	assert_true(a.mmap_offset >= 0x10000000ULL);
	assert_int_equal(a.mmap_offset & 4095, 0);
	fx_free(f);
}

static void test_alloc_before_acquire(void **state)
{
	struct fx *f = fx_new(NULL, false);

	(void)state;
	assert_int_equal(fx_alloc(f, 0, VRAM_W, fx_va(f, 4096), 4096, NULL, NULL), -ENODEV);
	fx_free(f);
}

static void test_vram_render_mmap(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint64_t va = fx_va(f, 65536), h, off = 0, base = kfdsim_bytes_allocated(f->sim);
	uint8_t *m1, *m2;

	(void)state;
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va, 65536, &h, &off), 0);
	assert_int_equal(kfdsim_bytes_allocated(f->sim), base + 65536);
	m1 = f->ops->mmap(f->sim, (void *)(uintptr_t)va, 65536, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_FIXED, f->rfd[0], (off_t)off);
	assert_ptr_equal(m1, (void *)(uintptr_t)va);
	/* fresh BOs read as zero */
	assert_int_equal(m1[12345], 0);
	memset(m1, 0x3c, 65536);
	/* a second mapping of the last page sees the same memory */
	m2 = f->ops->mmap(f->sim, NULL, 4096, PROT_READ, MAP_SHARED, f->rfd[0],
			  (off_t)(off + 61440));
	assert_true(m2 != MAP_FAILED);
	assert_int_equal(m2[100], 0x3c);
	assert_int_equal(f->ops->munmap(f->sim, m2, 4096), 0);
	/* beyond the BO, or no BO at that offset */
	errno = 0;
	assert_true(f->ops->mmap(f->sim, NULL, 8192, PROT_READ, MAP_SHARED, f->rfd[0],
				 (off_t)(off + 61440)) == MAP_FAILED);
	assert_int_equal(errno, EACCES);
	assert_true(f->ops->mmap(f->sim, NULL, 4096, PROT_READ, MAP_SHARED, f->rfd[0],
				 (off_t)(off + (1ULL << 40))) == MAP_FAILED);
	/* a render fd without a VM maps nothing */
	{
		int r2 = f->ops->open_render(f->sim, 128);

		assert_true(f->ops->mmap(f->sim, NULL, 4096, PROT_READ, MAP_SHARED, r2,
					 (off_t)off) == MAP_FAILED);
		f->ops->close(f->sim, r2);
	}
	assert_int_equal(fx_free_bo(f, h), 0);
	assert_int_equal(kfdsim_bytes_allocated(f->sim), base);
	fx_free(f);
}

static void test_capacity(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_get_available_memory_args av = {0};
	uint64_t h1, h2, h3;
	struct fx *f;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.vram_size = 64ULL << 20;
	cfg.gtt_size = 32ULL << 20;
	f = fx_new(&cfg, true);
	av.gpu_id = f->gpu_id[0];
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_AVAILABLE_MEMORY, &av), 0);
	assert_int_equal(av.available, 64ULL << 20);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, fx_va(f, 48 << 20), 48ULL << 20, &h1, NULL), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_AVAILABLE_MEMORY, &av), 0);
	assert_int_equal(av.available, 16ULL << 20);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, fx_va(f, 32 << 20), 32ULL << 20, &h2, NULL),
			 -ENOMEM);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, fx_va(f, 16 << 20), 16ULL << 20, &h2, NULL), 0);
	assert_int_equal(fx_free_bo(f, h1), 0);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, fx_va(f, 32 << 20), 32ULL << 20, &h1, NULL), 0);
	/* GTT has its own limit */
	assert_int_equal(fx_alloc(f, 0, GTT_W, fx_va(f, 33 << 20), 33ULL << 20, &h3, NULL),
			 -ENOMEM);
	assert_int_equal(fx_alloc(f, 0, GTT_W, fx_va(f, 32 << 20), 32ULL << 20, &h3, NULL), 0);
	av.gpu_id = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_AVAILABLE_MEMORY, &av), -EINVAL);
	fx_free(f);
}

static void test_doorbell_and_mmio(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint64_t h, off = 0, expect;
	uint64_t *db;
	uint8_t *mmio;

	(void)state;
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, fx_va(f, 8192), 4096, &h, &off),
	    -EINVAL);
	off = 0;
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | VKFD_KFD_ALLOC_WRITABLE,
				  fx_va(f, 8192), 8192, &h, &off),
			 0);
	expect = (3ULL << 62) | ((uint64_t)f->gpu_id[0] << 46);
	assert_int_equal(off, expect);
	/* kfd-fd mmap of the slice: exactly 8 KiB */
	assert_true(f->ops->mmap(f->sim, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
				 (off_t)off) == MAP_FAILED);
	db = f->ops->mmap(f->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
			  (off_t)off);
	assert_true(db != MAP_FAILED);
	db[3] = 42;
	f->ops->munmap(f->sim, db, 8192);
	/* MMIO remap: one page, zero-filled, kfd offset type 0 */
	off = 0;
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP, fx_va(f, 8192), 8192, &h, &off),
	    -EINVAL);
	assert_int_equal(fx_alloc(f, 0,
				  KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP | VKFD_KFD_ALLOC_WRITABLE,
				  fx_va(f, 4096), 4096, &h, &off),
			 0);
	assert_int_equal(off, (uint64_t)f->gpu_id[0] << 46);
	assert_true(f->ops->mmap(f->sim, NULL, 8192, PROT_READ, MAP_SHARED, f->kfd, (off_t)off) ==
		    MAP_FAILED);
	mmio = f->ops->mmap(f->sim, NULL, 4096, PROT_READ, MAP_SHARED, f->kfd, (off_t)off);
	assert_true(mmio != MAP_FAILED);
	assert_int_equal(mmio[0], 0);
	f->ops->munmap(f->sim, mmio, 4096);
	/* another gpu id, or RESERVED_MEM: -EINVAL */
	errno = 0;
	assert_true(f->ops->mmap(f->sim, NULL, 4096, PROT_READ, MAP_SHARED, f->kfd,
				 (off_t)((uint64_t)(f->gpu_id[0] ^ 1) << 46)) == MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(f->ops->mmap(f->sim, NULL, 8192, PROT_READ, MAP_SHARED, f->kfd,
				 (off_t)((1ULL << 62) | ((uint64_t)f->gpu_id[0] << 46))) ==
		    MAP_FAILED);
	fx_free(f);
}

static void test_userptr(void **state)
{
	struct fx *f = fx_new(NULL, true);
	size_t len = 3 * 4096;
	uint8_t *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t h, off = 0;
	struct vkfd_kfd_export_dmabuf_args ex = {0};
	uint32_t ids[1] = {f->gpu_id[0]};

	(void)state;
	assert_true(mem != MAP_FAILED);
	off = (uintptr_t)mem + 1;
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, (uintptr_t)mem, len, &h, &off),
	    -EINVAL);
	/* memory that is not mapped */
	off = (uintptr_t)f->va; /* PROT_NONE but mapped: accepted */
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, (uintptr_t)f->va, 4096, &h, &off), 0);
	assert_int_equal(fx_free_bo(f, h), 0);
	off = 0x10000; /* below mmap_min_addr: never mapped */
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, 0x10000, 4096, &h, &off),
			 -EFAULT);
	off = (uintptr_t)mem;
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | VKFD_KFD_ALLOC_WRITABLE,
				  (uintptr_t)mem, len, &h, &off),
			 0);
	assert_int_equal(off, (uintptr_t)mem);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), 0);
	ex.handle = h;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), -EPERM);
	assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h, ids, 1, NULL), 0);
	assert_int_equal(fx_free_bo(f, h), 0);
	munmap(mem, len);
	fx_free(f);
}

static void test_map_rules(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f;
	uint64_t va, h;
	uint32_t ids[2], ns;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.gpu_count = 2;
	f = fx_new(&cfg, true);
	va = fx_va(f, 65536);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va, 65536, &h, NULL), 0);
	ids[0] = f->gpu_id[0];
	ids[1] = 0xdead;
	/* n_devices 0; n_success > n_devices */
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 0, NULL), -EINVAL);
	ns = 3;
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 2, &ns), -EINVAL);
	/* bad pointer */
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, (uint32_t *)8, 1, NULL),
			 -EFAULT);
	/* unknown handle: the kernel answers -ENOMEM */
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h + 5, ids, 1, NULL), -ENOMEM);
	/* second id is bad: first mapped, n_success = 1 */
	ns = 0;
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 2, &ns), -EINVAL);
	assert_int_equal(ns, 1);
	/* resume at n_success: ids[0] is skipped, so a bad one there is ignored */
	ids[0] = 0xdead;
	ids[1] = f->gpu_id[1];
	ns = 1;
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 2, &ns), 0);
	assert_int_equal(ns, 2);
	/* mapping again is harmless */
	ids[0] = f->gpu_id[0];
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 2, NULL), 0);
	/* still mapped: FREE refuses */
	assert_int_equal(fx_free_bo(f, h), -EBUSY);
	assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h, ids, 2, NULL), 0);
	/* not mapped any more */
	assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h, ids, 1, NULL), -EINVAL);
	assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h + 5, ids, 1, NULL), -ENOMEM);
	assert_int_equal(fx_free_bo(f, h), 0);
	assert_int_equal(fx_free_bo(f, h), -EINVAL);
	assert_int_equal(fx_free_bo(f, 0xdeadULL << 32), -EINVAL);
	fx_free(f);
}

static void test_map_peer_without_vm(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f;
	uint64_t h;
	uint32_t ids[1];
	struct kfd_ioctl_acquire_vm_args av;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.gpu_count = 2;
	f = fx_new(&cfg, false);
	av = (struct kfd_ioctl_acquire_vm_args){.drm_fd = (uint32_t)f->rfd[0],
						.gpu_id = f->gpu_id[0]};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, fx_va(f, 4096), 4096, &h, NULL), 0);
	ids[0] = f->gpu_id[1];
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), -ENODEV);
	fx_free(f);
}

static void test_va_overlap_and_range(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint64_t va = fx_va(f, 1 << 20), h1, h2, h3;
	uint32_t ids[1] = {f->gpu_id[0]};

	(void)state;
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va, 65536, &h1, NULL), 0);
	/* ALLOC does not check VA (only SVM ranges); MAP does */
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va + 4096, 4096, &h2, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h1, ids, 1, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h2, ids, 1, NULL), -EINVAL);
	/* right behind: fine */
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va + 65536, 4096, &h3, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h3, ids, 1, NULL), 0);
	/* beyond the GPUVM range, or not page aligned */
	assert_int_equal(fx_alloc(f, 0, VRAM_W, 1ULL << 47, 4096, &h2, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h2, ids, 1, NULL), -EINVAL);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va + (512 << 10) + 8, 4096, &h2, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h2, ids, 1, NULL), -EINVAL);
	fx_free(f);
}

static void test_aql_queue_mem(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint64_t va = fx_va(f, 1 << 20), h, h2, base = kfdsim_bytes_allocated(f->sim);
	uint32_t ids[1] = {f->gpu_id[0]};

	(void)state;
	assert_int_equal(
	    fx_alloc(f, 0, GTT_W | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, va, 65536, &h, NULL), 0);
	/* half the size is allocated */
	assert_int_equal(kfdsim_bytes_allocated(f->sim), base + 32768);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), 0);
	/* the second half of the VA range is taken by the double mapping */
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va + 49152, 4096, &h2, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h2, ids, 1, NULL), -EINVAL);
	assert_int_equal(fx_free_bo(f, h2), 0);
	assert_int_equal(fx_alloc(f, 0, VRAM_W, va + 65536, 4096, &h2, NULL), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h2, ids, 1, NULL), 0);
	fx_free(f);
}

static void test_dmabuf(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint64_t va = fx_va(f, 65536), h, off = 0, ih;
	struct vkfd_kfd_export_dmabuf_args ex = {0};
	struct kfd_ioctl_get_dmabuf_info_args info = {0};
	struct kfd_ioctl_import_dmabuf_args im = {0};
	int kfd2, rfd2[FX_MAX_GPUS], tmp;
	uint8_t *m1, *m2;
	struct fx g;

	(void)state;
	assert_int_equal(
	    fx_alloc(f, 0, VRAM_W | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC, va, 65536, &h, &off), 0);
	m1 = f->ops->mmap(f->sim, NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			  (off_t)off);
	assert_true(m1 != MAP_FAILED);
	strcpy((char *)m1, "shared");
	ex.handle = h + 77;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), -EINVAL);
	ex.handle = h;
	ex.flags = O_CLOEXEC;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), 0);
	assert_true((int)ex.dmabuf_fd >= 0);
	assert_true(fcntl((int)ex.dmabuf_fd, F_GETFD) & FD_CLOEXEC);
	info.dmabuf_fd = ex.dmabuf_fd;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_DMABUF_INFO, &info), 0);
	assert_int_equal(info.size, 65536);
	assert_int_equal(info.gpu_id, f->gpu_id[0]);
	assert_int_equal(info.flags, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
	/* another process imports it and sees the same bytes */
	g = *f;
	assert_int_equal(fx_open_process(&g, &kfd2, rfd2, true), 0);
	im.dmabuf_fd = ex.dmabuf_fd;
	im.gpu_id = f->gpu_id[0];
	im.va_addr = va;
	assert_int_equal(f->ops->ioctl(f->sim, kfd2, AMDKFD_IOC_IMPORT_DMABUF, &im), 0);
	ih = im.handle;
	assert_int_equal(ih >> 32, f->gpu_id[0]);
	/* its mmap offset: map it through the importer's render fd */
	{
		uint64_t probe = 0x10000000ULL;
		bool found = false;

		for (; probe < 0x10000000ULL + (64ULL << 20) && !found; probe += 4096) {
			m2 = f->ops->mmap(f->sim, NULL, 4096, PROT_READ, MAP_SHARED, rfd2[0],
					  (off_t)probe);
			if (m2 != MAP_FAILED) {
				found = !strcmp((char *)m2, "shared");
				f->ops->munmap(f->sim, m2, 4096);
			}
		}
		assert_true(found);
	}
	/* a file that is not an exported buffer, a bad fd */
	tmp = open("/dev/null", O_RDONLY);
	im.dmabuf_fd = (uint32_t)tmp;
	assert_int_equal(f->ops->ioctl(f->sim, kfd2, AMDKFD_IOC_IMPORT_DMABUF, &im), -EINVAL);
	info.dmabuf_fd = (uint32_t)tmp;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_DMABUF_INFO, &info), -EINVAL);
	close(tmp);
	im.dmabuf_fd = 99999;
	assert_int_equal(f->ops->ioctl(f->sim, kfd2, AMDKFD_IOC_IMPORT_DMABUF, &im), -EBADF);
	/* freeing the exporter's BO keeps the importer's copy alive */
	f->ops->munmap(f->sim, m1, 65536);
	assert_int_equal(fx_free_bo(f, h), 0);
	assert_true(kfdsim_bytes_allocated(f->sim) >= 65536);
	assert_int_equal(f->ops->close(f->sim, kfd2), 0);
	assert_int_equal(kfdsim_bytes_allocated(f->sim), 0);
	close((int)ex.dmabuf_fd);
	for (unsigned i = 0; i < g.ngpus; i++)
		f->ops->close(f->sim, rfd2[i]);
	fx_free(f);
}

static void test_close_releases_everything(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint32_t ids[1] = {f->gpu_id[0]};
	uint64_t h;

	(void)state;
	for (int i = 0; i < 8; i++) {
		assert_int_equal(
		    fx_alloc(f, 0, i & 1 ? VRAM_W : GTT_W, fx_va(f, 65536), 65536, &h, NULL), 0);
		assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), 0);
	}
	assert_int_equal(kfdsim_bytes_allocated(f->sim), 8 * 65536);
	assert_int_equal(f->ops->close(f->sim, f->kfd), 0);
	assert_int_equal(kfdsim_bytes_allocated(f->sim), 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alloc_args),
	    cmocka_unit_test(test_alloc_before_acquire),
	    cmocka_unit_test(test_vram_render_mmap),
	    cmocka_unit_test(test_capacity),
	    cmocka_unit_test(test_doorbell_and_mmio),
	    cmocka_unit_test(test_userptr),
	    cmocka_unit_test(test_map_rules),
	    cmocka_unit_test(test_map_peer_without_vm),
	    cmocka_unit_test(test_va_overlap_and_range),
	    cmocka_unit_test(test_aql_queue_mem),
	    cmocka_unit_test(test_dmabuf),
	    cmocka_unit_test(test_close_releases_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
