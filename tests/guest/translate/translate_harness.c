// SPDX-License-Identifier: MIT
/*
 * The shared harness of the translation tests (translate_harness.h).
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

int kfd = -1, rfd = -1;
uint32_t gpu_id;
int minor_;
char topo[PATH_MAX];

int kio(int fd, unsigned int dir, unsigned int nr, size_t size, void *arg)
{
	return B.ioctl(fd, _IOC(dir, 'K', nr, size), arg);
}

int read_file(const char *rel, char *buf, size_t cap)
{
	char path[PATH_MAX + 256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", topo, rel);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

long long prop(const char *rel, const char *key)
{
	char buf[8192], k[128];
	const char *p;

	if (read_file(rel, buf, sizeof(buf)) < 0)
		return -1;
	snprintf(k, sizeof(k), "\n%s ", key);
	if (!strncmp(buf, k + 1, strlen(k + 1)))
		return strtoll(buf + strlen(k + 1), NULL, 10);
	p = strstr(buf, k);
	return p ? strtoll(p + strlen(k), NULL, 10) : -1;
}

/* A reserved VA range, as libhsakmt takes from its apertures. */
uint64_t va_reserve(size_t size)
{
	void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	assert_true(p != MAP_FAILED);
	return (uintptr_t)p;
}

/* Gives [va, va + size), a CPU mapping inside a va_reserve() range, back
 * to that range (PROT_NONE, in one MAP_FIXED mmap) instead of unmapping
 * it. The host runs in this process (direct transport): a hole would let
 * its threads place a mapping there (kfdsim's BO backings), which the
 * range's own final munmap would then take from under them. */
void va_unmap_in_reserve(uint64_t va, size_t size)
{
	void *want = (void *)(uintptr_t)va;

	assert_ptr_equal(mmap(want, size, PROT_NONE,
			      MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
			 want);
}

int alloc_bo(uint64_t va, uint64_t size, uint32_t flags,
	     struct kfd_ioctl_alloc_memory_of_gpu_args *a)
{
	memset(a, 0, sizeof(*a));
	a->va_addr = va;
	a->size = size;
	a->gpu_id = gpu_id;
	a->flags = flags;
	if (flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR)
		a->mmap_offset = va;
	return kio(kfd, RW, _IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU), sizeof(*a), a);
}

int free_bo(uint64_t handle)
{
	struct kfd_ioctl_free_memory_of_gpu_args f = {handle};

	return kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_FREE_MEMORY_OF_GPU), sizeof(f), &f);
}

int map_bo(unsigned int nr, uint64_t handle, uint32_t *ids, uint32_t n, uint32_t *n_success)
{
	struct kfd_ioctl_map_memory_to_gpu_args m = {handle, (uintptr_t)ids, n, *n_success};
	int r = kio(kfd, RW, nr, sizeof(m), &m);

	*n_success = m.n_success;
	return r;
}

int alloc_userptr(uint64_t gva, uint64_t cpu, uint64_t size,
		  struct kfd_ioctl_alloc_memory_of_gpu_args *a)
{
	memset(a, 0, sizeof(*a));
	a->va_addr = gva;
	a->mmap_offset = cpu;
	a->size = size;
	a->gpu_id = gpu_id;
	a->flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31);
	return kio(kfd, RW, _IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU), sizeof(*a), a);
}

int group_setup(void **state)
{
	char buf[64];
	const char *root;
	struct kfd_ioctl_get_version_args v = {0, 0};
	struct kfd_ioctl_acquire_vm_args avm;
	int r;

	(void)state;
	setenv("VKFD_TRANSPORT", "direct", 1);
	r = B.init();
	if (r) {
		fprintf(stderr, "init: %s\n", strerror(-r));
		return -1;
	}
	root = B.sysfs_root();
	snprintf(topo, sizeof(topo), "%s/sys/devices/virtual/kfd/kfd/topology", root);
	if (read_file("nodes/1/gpu_id", buf, sizeof(buf)) <= 0)
		return -1;
	gpu_id = (uint32_t)strtoul(buf, NULL, 10);
	minor_ = (int)prop("nodes/1/properties", "drm_render_minor");
	kfd = B.open_kfd(O_RDWR | O_CLOEXEC);
	rfd = B.open_render(minor_, O_RDWR | O_CLOEXEC);
	if (kfd < 0 || rfd < 0)
		return -1;
	if (kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v))
		return -1;
	avm.drm_fd = (uint32_t)rfd;
	avm.gpu_id = gpu_id;
	return kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(avm), &avm);
}

int group_teardown(void **state)
{
	(void)state;
	if (rfd >= 0)
		B.close(rfd);
	if (kfd >= 0)
		B.close(kfd);
	return 0;
}
