// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: IPC (EXPORT_DMABUF,
 * IMPORT_DMABUF, GET_DMABUF_INFO; docs/guest-vkfd-backend.md, "IPC").
 * Unlike the other translate tests this one runs over vtest against real
 * vkfd-servers, because sharing needs two host contexts and a server that
 * scopes them: two KFD connections (two guest processes' host contexts)
 * on server 1 share a BO; a connection on server 2 (another guest) must
 * not be able to attach it, nor anything else that is not a shared blob.
 * argv[1]: the vkfd-server binary.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "server_harness.h"
#include "translate_harness.h"

#define SIZE (16 * PAGE)

/* One KFD process of the shim: its kfd fd and the render fd whose VM it
 * acquired. */
struct proc {
	int kfd, rfd;
};

static struct test_server guest1, guest2;
/* exporter and importer in guest 1, a process of guest 2 */
static struct proc pa, pb, pc;

static int open_proc(struct proc *p)
{
	struct kfd_ioctl_get_version_args v = {0, 0};
	struct kfd_ioctl_acquire_vm_args avm;

	p->kfd = B.open_kfd(O_RDWR | O_CLOEXEC);
	p->rfd = B.open_render(minor_, O_RDWR | O_CLOEXEC);
	if (p->kfd < 0 || p->rfd < 0)
		return -1;
	if (kio(p->kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v))
		return -1;
	avm.drm_fd = (uint32_t)p->rfd;
	avm.gpu_id = gpu_id;
	return kio(p->kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(avm), &avm);
}

/* The harness helpers act on the global kfd/rfd: switch process. */
static void as(const struct proc *p)
{
	kfd = p->kfd;
	rfd = p->rfd;
}

static int export_bo(uint64_t handle, uint32_t flags, int *fd)
{
	struct vkfd_kfd_export_dmabuf_args e = {handle, flags, 0};
	int r = kio(kfd, RW, _IOC_NR(VKFD_KFD_IOC_EXPORT_DMABUF), sizeof(e), &e);

	*fd = r ? -1 : (int)e.dmabuf_fd;
	return r;
}

static int import_fd(int fd, uint64_t va, uint32_t gpu, uint64_t *handle)
{
	struct kfd_ioctl_import_dmabuf_args i;
	int r;

	memset(&i, 0, sizeof(i));
	i.va_addr = va;
	i.gpu_id = gpu;
	i.dmabuf_fd = (uint32_t)fd;
	r = kio(kfd, RW, _IOC_NR(AMDKFD_IOC_IMPORT_DMABUF), sizeof(i), &i);
	*handle = r ? 0 : i.handle;
	return r;
}

static int dmabuf_info(int fd, struct kfd_ioctl_get_dmabuf_info_args *info)
{
	memset(info, 0, sizeof(*info));
	info->dmabuf_fd = (uint32_t)fd;
	return kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_DMABUF_INFO), sizeof(*info), info);
}

/* A round trip on the process's own connection: everything it sent
 * before (e.g. the release of a blob) has been handled by its worker. */
static void sync_proc(void)
{
	struct kfd_ioctl_get_available_memory_args m = {0, gpu_id, 0};

	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_AVAILABLE_MEMORY), sizeof(m), &m), 0);
}

/* A CPU-visible VRAM BO of the current process (what ROCr's IPC exports:
 * device memory) filled with `seed`, mapped to its GPU. */
static uint64_t filled_bo(uint64_t va, uint32_t seed)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	uint32_t *p;

	assert_int_equal(alloc_bo(va, SIZE, VRAM_FLAGS, &a), 0);
	p = B.mmap((void *)(uintptr_t)va, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, rfd,
		   (off_t)a.mmap_offset);
	assert_ptr_equal(p, (void *)(uintptr_t)va);
	for (uint32_t i = 0; i < SIZE / 4; i++)
		p[i] = i ^ seed;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), a.handle, ids, 1, &ns), 0);
	return a.handle;
}

static void test_share_within_guest(void **state)
{
	uint64_t va = va_reserve(SIZE), va2 = va_reserve(SIZE), h, hb;
	struct kfd_ioctl_get_dmabuf_info_args info;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	struct stat s1, s2;
	uint32_t *m;
	int fd, fd2;

	(void)state;
	as(&pa);
	h = filled_bo(va, 0x5eed);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* a second export: a new fd of the same object, no CLOEXEC asked */
	assert_int_equal(export_bo(h, 0, &fd2), 0);
	assert_false(fcntl(fd2, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fstat(fd, &s1), 0);
	assert_int_equal(fstat(fd2, &s2), 0);
	assert_true(s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev);
	close(fd2);
	/* the fd is the BO's memory (vtest: the host's file itself) */
	m = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(m[0], 0x5eed);
	assert_int_equal(m[SIZE / 4 - 1], (SIZE / 4 - 1) ^ 0x5eed);
	munmap(m, SIZE);

	/* another process of the same guest */
	as(&pb);
	assert_int_equal(dmabuf_info(fd, &info), 0);
	assert_int_equal(info.size, SIZE);
	assert_int_equal(info.gpu_id, gpu_id);
	assert_true(info.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM);
	/* with a metadata buffer of any declared size: the actual size back,
	 * never more than the buffer written */
	{
		uint8_t md[64];

		memset(md, 0xa5, sizeof(md));
		memset(&info, 0, sizeof(info));
		info.dmabuf_fd = (uint32_t)fd;
		info.metadata_ptr = (uintptr_t)md;
		info.metadata_size = UINT32_MAX;
		assert_int_equal(
		    kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_DMABUF_INFO), sizeof(info), &info), 0);
		assert_int_equal(info.size, SIZE);
		assert_true(info.metadata_size <= sizeof(md));
		for (size_t i = info.metadata_size; i < sizeof(md); i++)
			assert_int_equal(md[i], 0xa5);
	}
	assert_int_equal(import_fd(fd, va2, gpu_id, &hb), 0);
	assert_true(hb != 0);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), hb, ids, 1, &ns), 0);
	assert_int_equal(ns, 1);
	/* an import has no CPU mapping, as the kernel gives it no offset */
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), hb, ids, 1, &ns), 0);
	assert_int_equal(free_bo(hb), 0);
	assert_int_equal(free_bo(hb), -EINVAL);

	as(&pa);
	assert_int_equal(free_bo(h), 0);
	close(fd);
}

static void test_second_guest_cannot_attach(void **state)
{
	uint64_t va = va_reserve(SIZE), va2 = va_reserve(SIZE), h, hc, hx;
	struct kfd_ioctl_get_dmabuf_info_args info;
	int fd, fdc;

	(void)state;
	as(&pa);
	h = filled_bo(va, 1);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	/* guest 2 holds guest 1's fd (on vtest both are host processes):
	 * its server never attaches it */
	as(&pc);
	assert_int_equal(dmabuf_info(fd, &info), -EINVAL);
	assert_int_equal(import_fd(fd, va2, gpu_id, &hx), -EINVAL);
	/* and the other way round: guest 2's own export is importable in
	 * guest 2 only */
	hc = filled_bo(va2, 2);
	assert_int_equal(export_bo(hc, O_CLOEXEC, &fdc), 0);
	as(&pb);
	assert_int_equal(import_fd(fdc, va_reserve(SIZE), gpu_id, &hx), -EINVAL);
	assert_int_equal(dmabuf_info(fdc, &info), -EINVAL);
	as(&pc);
	assert_int_equal(dmabuf_info(fdc, &info), 0);
	assert_int_equal(info.size, SIZE);
	assert_int_equal(free_bo(hc), 0);
	as(&pa);
	assert_int_equal(free_bo(h), 0);
	close(fd);
	close(fdc);
}

static void test_hostile_fds(void **state)
{
	uint64_t va = va_reserve(SIZE), h;
	struct kfd_ioctl_get_dmabuf_info_args info;
	int fds[4], closed;

	(void)state;
	as(&pb);
	/* not an fd at all: dma_buf_get's -EBADF */
	closed = dup(0);
	assert_true(closed >= 0);
	close(closed);
	assert_int_equal(import_fd(closed, va, gpu_id, &h), -EBADF);
	assert_int_equal(import_fd(-1, va, gpu_id, &h), -EBADF);
	assert_int_equal(dmabuf_info(-1, &info), -EBADF);
	/* fds of something else: a memfd the process made, /dev/null, the
	 * shim's own KFD fd */
	fds[0] = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	assert_true(fds[0] >= 0);
	assert_int_equal(ftruncate(fds[0], SIZE), 0);
	fds[1] = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(fds[1] >= 0);
	fds[2] = pb.kfd;
	fds[3] = pb.rfd;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(import_fd(fds[i], va, gpu_id, &h), -EINVAL);
		assert_int_equal(dmabuf_info(fds[i], &info), -EINVAL);
	}
	close(fds[0]);
	close(fds[1]);
	/* nothing of the failures is left in the process's table */
	assert_int_equal(free_bo(h), -EINVAL);
}

static void test_hostile_export_and_gpu(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	uint64_t va = va_reserve(SIZE), va2 = va_reserve(SIZE), h, hx;
	struct stat s1, s2;
	int fd, fdx;

	(void)state;
	as(&pa);
	assert_int_equal(export_bo(0x1234567, O_CLOEXEC, &fdx), -EINVAL);
	/* a doorbell BO is not memory that can be shared */
	assert_int_equal(alloc_bo(va_reserve(2 * PAGE), 2 * PAGE,
				  KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | (1u << 31) | (1u << 26), &a),
			 0);
	assert_int_equal(export_bo(a.handle, O_CLOEXEC, &fdx), -EINVAL);
	assert_int_equal(free_bo(a.handle), 0);
	/* nor is a small GTT BO, a slice of an arena the host shares with
	 * the process's other BOs (vkfd-server offers arenas) */
	assert_int_equal(alloc_bo(va_reserve(SIZE), SIZE, GTT_FLAGS, &a), 0);
	assert_int_equal(export_bo(a.handle, O_CLOEXEC, &fdx), -EINVAL);
	assert_int_equal(free_bo(a.handle), 0);
	h = filled_bo(va, 3);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	as(&pb);
	/* unknown GPU, unaligned and zero VA */
	assert_int_equal(import_fd(fd, va2, gpu_id ^ 0x5a5a, &hx), -EINVAL);
	assert_int_equal(import_fd(fd, va2 + 8, gpu_id, &hx), -EINVAL);
	assert_int_equal(import_fd(fd, 0, gpu_id, &hx), -EINVAL);
	/* an import re-exported is the same object, as the kernel answers,
	 * and a third process of the guest can import that */
	assert_int_equal(import_fd(fd, va2, gpu_id, &hx), 0);
	assert_int_equal(export_bo(hx, 0, &fdx), 0);
	assert_int_equal(fstat(fd, &s1), 0);
	assert_int_equal(fstat(fdx, &s2), 0);
	assert_true(s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev);
	assert_int_equal(free_bo(hx), 0);
	as(&pa);
	assert_int_equal(import_fd(fdx, va_reserve(SIZE), gpu_id, &hx), 0);
	assert_int_equal(free_bo(hx), 0);
	close(fdx);
	as(&pa);
	assert_int_equal(free_bo(h), 0);
	close(fd);
}

static void test_double_import(void **state)
{
	uint64_t va = va_reserve(SIZE), v1 = va_reserve(SIZE), v2 = va_reserve(SIZE), h, h1, h2;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	int fd;

	(void)state;
	as(&pa);
	h = filled_bo(va, 4);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	as(&pb);
	assert_int_equal(import_fd(fd, v1, gpu_id, &h1), 0);
	/* the same VA twice overlaps; another VA is a second BO */
	assert_int_not_equal(import_fd(fd, v1, gpu_id, &h2), 0);
	assert_int_equal(import_fd(fd, v2, gpu_id, &h2), 0);
	assert_true(h1 != h2);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), h2, ids, 1, &ns), 0);
	assert_int_equal(free_bo(h1), 0);
	assert_int_equal(free_bo(h2), 0);
	as(&pa);
	assert_int_equal(free_bo(h), 0);
	close(fd);
}

/* The host chooses an import's handle while the guest chooses every
 * allocation's (protocol 1.1): allocations after imports, sent without a
 * reply, must never name an index an import holds, or the host would
 * take the context down. */
static void test_allocations_after_imports(void **state)
{
	uint64_t va = va_reserve(SIZE), h, imp[4], bos[16];
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	int fd;

	(void)state;
	as(&pa);
	h = filled_bo(va, 6);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	as(&pb);
	for (int i = 0; i < 4; i++)
		assert_int_equal(import_fd(fd, va_reserve(SIZE), gpu_id, &imp[i]), 0);
	/* freeing one import puts its index back for the guest's choice */
	assert_int_equal(free_bo(imp[1]), 0);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(alloc_bo(va_reserve(SIZE), SIZE, GTT_FLAGS, &a), 0);
		bos[i] = a.handle;
		for (int j = 0; j < 4; j++)
			assert_true(j == 1 || bos[i] != imp[j]);
	}
	/* a round trip: the context survived the allocations sent without one */
	sync_proc();
	for (int i = 0; i < 16; i++)
		assert_int_equal(free_bo(bos[i]), 0);
	for (int i = 0; i < 4; i++)
		if (i != 1)
			assert_int_equal(free_bo(imp[i]), 0);
	sync_proc();
	as(&pa);
	assert_int_equal(free_bo(h), 0);
	close(fd);
}

static void test_free_while_imported(void **state)
{
	uint64_t va = va_reserve(SIZE), v1 = va_reserve(SIZE), h, h1, hx;
	uint32_t ids[1] = {gpu_id}, ns = 0;
	struct kfd_ioctl_get_dmabuf_info_args info;
	int fd;

	(void)state;
	as(&pa);
	h = filled_bo(va, 5);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	as(&pb);
	assert_int_equal(import_fd(fd, v1, gpu_id, &h1), 0);
	/* the exporter frees its BO: the importer's BO stays usable */
	as(&pa);
	assert_int_equal(free_bo(h), 0);
	sync_proc();
	as(&pb);
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), h1, ids, 1, &ns), 0);
	ns = 0;
	assert_int_equal(map_bo(_IOC_NR(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU), h1, ids, 1, &ns), 0);
	/* but the export is gone: the same fd no longer attaches */
	assert_int_equal(import_fd(fd, va_reserve(SIZE), gpu_id, &hx), -EINVAL);
	assert_int_equal(dmabuf_info(fd, &info), -EINVAL);
	assert_int_equal(free_bo(h1), 0);
	close(fd);
}

/* Threads of one process importing the same fd at once, each at its own
 * VA: every import is its own BO. */
struct importer {
	int fd;
	uint64_t va, handle;
	int r;
};

static void *importer_main(void *arg)
{
	struct importer *im = arg;

	im->r = import_fd(im->fd, im->va, gpu_id, &im->handle);
	return NULL;
}

static void test_concurrent_imports(void **state)
{
	enum { T = 4 };
	struct importer im[T];
	pthread_t th[T];
	uint64_t va = va_reserve(SIZE), h;
	int fd;

	(void)state;
	as(&pa);
	h = filled_bo(va, 6);
	assert_int_equal(export_bo(h, O_CLOEXEC, &fd), 0);
	as(&pb);
	for (int i = 0; i < T; i++) {
		im[i] = (struct importer){.fd = fd, .va = va_reserve(SIZE)};
		assert_int_equal(pthread_create(&th[i], NULL, importer_main, &im[i]), 0);
	}
	for (int i = 0; i < T; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(im[i].r, 0);
		for (int j = 0; j < i; j++)
			assert_true(im[i].handle != im[j].handle);
	}
	for (int i = 0; i < T; i++)
		assert_int_equal(free_bo(im[i].handle), 0);
	as(&pa);
	assert_int_equal(free_bo(h), 0);
	close(fd);
}

static int setup(void **state)
{
	char buf[64];
	const char *root;

	(void)state;
	if (harness_start(&guest1, NULL) || harness_start(&guest2, NULL))
		return -1;
	setenv("VKFD_TRANSPORT", "vtest", 1);
	setenv("VKFD_SOCKET", guest1.sock, 1);
	if (B.init())
		return -1;
	root = B.sysfs_root();
	snprintf(topo, sizeof(topo), "%s/sys/devices/virtual/kfd/kfd/topology", root);
	if (read_file("nodes/1/gpu_id", buf, sizeof(buf)) <= 0)
		return -1;
	gpu_id = (uint32_t)strtoul(buf, NULL, 10);
	minor_ = (int)prop("nodes/1/properties", "drm_render_minor");
	if (open_proc(&pa) || open_proc(&pb))
		return -1;
	/* a connection opened now goes to the other server: another guest */
	setenv("VKFD_SOCKET", guest2.sock, 1);
	return open_proc(&pc);
}

static int teardown(void **state)
{
	const struct proc *ps[] = {&pa, &pb, &pc};

	(void)state;
	for (int i = 0; i < 3; i++) {
		if (ps[i]->rfd >= 0)
			B.close(ps[i]->rfd);
		if (ps[i]->kfd >= 0)
			B.close(ps[i]->kfd);
	}
	harness_stop(&guest1);
	harness_stop(&guest2);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_share_within_guest),
	    cmocka_unit_test(test_second_guest_cannot_attach),
	    cmocka_unit_test(test_hostile_fds),
	    cmocka_unit_test(test_hostile_export_and_gpu),
	    cmocka_unit_test(test_double_import),
	    cmocka_unit_test(test_free_while_imported),
	    cmocka_unit_test(test_allocations_after_imports),
	    cmocka_unit_test(test_concurrent_imports),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s VKFD_SERVER\n", argv[0]);
		return 2;
	}
	harness_set_server_bin(argv[1]);
	pa.kfd = pa.rfd = pb.kfd = pb.rfd = pc.kfd = pc.rfd = -1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
