// SPDX-License-Identifier: MIT
/*
 * Dmabufs between two kfdsim instances, as between two processes that
 * each run kfdsim natively (ROCr 6.x's IPC: EXPORT_DMABUF in one, the fd
 * passed over a socket, GET_DMABUF_INFO and IMPORT_DMABUF in the other):
 * the importer sees the exporter's memory; a machine without that GPU,
 * and files that are not kfdsim BO memory, are refused.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "sim_fixture.h"

#define SZ (64 * 1024ULL)

static uint8_t *cpu_map(struct fx *f, uint64_t offset, size_t len)
{
	uint8_t *p = f->ops->mmap(f->sim, NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
				  (off_t)offset);

	assert_true(p != MAP_FAILED);
	return p;
}

static int export_bo(struct fx *f, uint32_t flags, uint8_t **cpu, uint64_t *h)
{
	struct vkfd_kfd_export_dmabuf_args ex = {0};
	uint64_t off = 0;
	uint32_t n = 0;

	assert_int_equal(fx_alloc(f, 0, flags | VKFD_KFD_ALLOC_WRITABLE, fx_va(f, SZ), SZ, h, &off),
			 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, *h, f->gpu_id, 1, &n), 0);
	*cpu = cpu_map(f, off, SZ);
	ex.handle = *h;
	ex.flags = O_CLOEXEC;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), 0);
	return (int)ex.dmabuf_fd;
}

/* The exporter lets go: CPU view, GPU mapping, BO. */
static int f_unmap_free(struct fx *f, uint64_t h, uint8_t *cpu)
{
	uint32_t n = 0;

	f->ops->munmap(f->sim, cpu, SZ);
	assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h, f->gpu_id, 1, &n), 0);
	return fx_free_bo(f, h);
}

static void test_import_other_instance(void **state)
{
	struct fx *a = fx_new(NULL, true), *b = fx_new(NULL, true);
	struct kfd_ioctl_get_dmabuf_info_args info = {0};
	struct kfd_ioctl_import_dmabuf_args im = {0};
	struct vkfd_kfd_export_dmabuf_args ex = {0};
	struct stat sa, sb;
	uint64_t ha;
	uint8_t *pa, *pb;
	uint32_t n = 0;
	int fd;

	(void)state;
	fd = export_bo(a, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC, &pa, &ha);
	for (uint64_t i = 0; i < SZ; i++)
		pa[i] = (uint8_t)(i * 7 + 1);
	/* the same configuration gives the same GPU id */
	assert_int_equal(a->gpu_id[0], b->gpu_id[0]);
	info.dmabuf_fd = (uint32_t)fd;
	assert_int_equal(fx_ioctl(b, AMDKFD_IOC_GET_DMABUF_INFO, &info), 0);
	assert_int_equal(info.size, SZ);
	assert_int_equal(info.gpu_id, b->gpu_id[0]);
	assert_int_equal(info.flags, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
	assert_int_equal(info.metadata_size, 0);
	im.va_addr = fx_va(b, SZ);
	im.gpu_id = b->gpu_id[0];
	im.dmabuf_fd = (uint32_t)fd;
	assert_int_equal(fx_ioctl(b, AMDKFD_IOC_IMPORT_DMABUF, &im), 0);
	assert_int_equal(fx_map(b, AMDKFD_IOC_MAP_MEMORY_TO_GPU, im.handle, b->gpu_id, 1, &n), 0);
	/* the importer's BO is the exporter's memory: its own export is
	 * the same file, and writes through either show in the other */
	ex.handle = im.handle;
	ex.flags = O_CLOEXEC;
	assert_int_equal(fx_ioctl(b, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), 0);
	assert_int_equal(fstat(fd, &sa), 0);
	assert_int_equal(fstat((int)ex.dmabuf_fd, &sb), 0);
	assert_true(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
	pb = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, (int)ex.dmabuf_fd, 0);
	assert_true(pb != MAP_FAILED);
	close((int)ex.dmabuf_fd);
	assert_memory_equal(pa, pb, SZ);
	pb[5] = 0xee;
	assert_int_equal(pa[5], 0xee);
	/* the exporter frees its BO and closes its dmabuf: the importer's
	 * memory stays */
	close(fd);
	assert_int_equal(f_unmap_free(a, ha, pa), 0);
	assert_int_equal(pb[SZ - 1], (uint8_t)((SZ - 1) * 7 + 1));
	munmap(pb, SZ);
	n = 0;
	assert_int_equal(fx_map(b, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, im.handle, b->gpu_id, 1, &n),
			 0);
	assert_int_equal(fx_free_bo(b, im.handle), 0);
	fx_free(a);
	fx_free(b);
}

/* A machine whose GPUs differ cannot import it; nor are other files. */
static void test_refused(void **state)
{
	struct kfdsim_config cfg;
	struct fx *a = fx_new(NULL, true), *c;
	struct kfd_ioctl_get_dmabuf_info_args info = {0};
	struct kfd_ioctl_import_dmabuf_args im = {0};
	uint64_t ha;
	uint8_t *pa;
	int fd, other;

	(void)state;
	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "gfx1030");
	c = fx_new(&cfg, true);
	fd = export_bo(a, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &pa, &ha);
	info.dmabuf_fd = (uint32_t)fd;
	assert_int_equal(fx_ioctl(c, AMDKFD_IOC_GET_DMABUF_INFO, &info), -EINVAL);
	im.va_addr = fx_va(c, SZ);
	im.gpu_id = c->gpu_id[0];
	im.dmabuf_fd = (uint32_t)fd;
	assert_int_equal(fx_ioctl(c, AMDKFD_IOC_IMPORT_DMABUF, &im), -EINVAL);
	/* a memfd by another name, a regular file */
	other = memfd_create("kfdsim-vram-1", 0);
	assert_true(other >= 0);
	assert_int_equal(ftruncate(other, 4096), 0);
	info.dmabuf_fd = (uint32_t)other;
	assert_int_equal(fx_ioctl(a, AMDKFD_IOC_GET_DMABUF_INFO, &info), -EINVAL);
	close(other);
	other = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0);
	info.dmabuf_fd = (uint32_t)other;
	assert_int_equal(fx_ioctl(a, AMDKFD_IOC_GET_DMABUF_INFO, &info), -EINVAL);
	close(other);
	close(fd);
	a->ops->munmap(a->sim, pa, SZ);
	fx_free(c);
	fx_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_import_other_instance),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
