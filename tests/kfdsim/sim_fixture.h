/* SPDX-License-Identifier: MIT */
/*
 * Shared setup for the kfdsim conformance tests: a machine, one KFD
 * process with its VM acquired on every GPU, and a reserved VA range for
 * GPU VA = CPU VA allocations.
 */
#ifndef KFDSIM_TEST_FIXTURE_H
#define KFDSIM_TEST_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"
#include "sim_kfd_internal.h"

#define FX_VA_SIZE  (256ULL << 20)
#define FX_MAX_GPUS 4

struct fx {
	struct kfdsim_config cfg;
	struct kfdsim *sim;
	const struct vkfd_device_ops *ops;
	int kfd;
	int rfd[FX_MAX_GPUS];
	uint32_t gpu_id[FX_MAX_GPUS];
	unsigned ngpus;
	uint8_t *va;
	uint64_t va_next;
};

static inline int fx_ioctl(struct fx *f, unsigned long req, void *arg)
{
	return f->ops->ioctl(f->sim, f->kfd, req, arg);
}

/* Open a KFD process and fetch gpu ids; acquire VMs when asked. */
static inline int fx_open_process(struct fx *f, int *kfd, int *rfd, bool acquire)
{
	struct kfd_process_device_apertures ap[FX_MAX_GPUS];
	struct kfd_ioctl_get_process_apertures_new_args a = {
	    .kfd_process_device_apertures_ptr = (uintptr_t)ap,
	    .num_of_nodes = FX_MAX_GPUS,
	};
	int r;

	*kfd = f->ops->open_kfd(f->sim);
	if (*kfd < 0)
		return *kfd;
	r = f->ops->ioctl(f->sim, *kfd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a);
	if (r)
		return r;
	f->ngpus = a.num_of_nodes;
	for (unsigned i = 0; i < a.num_of_nodes; i++) {
		f->gpu_id[i] = ap[i].gpu_id;
		rfd[i] = f->ops->open_render(f->sim, 128 + (int)i);
		if (rfd[i] < 0)
			return rfd[i];
		if (acquire) {
			struct kfd_ioctl_acquire_vm_args av = {.drm_fd = (uint32_t)rfd[i],
							       .gpu_id = ap[i].gpu_id};

			r = f->ops->ioctl(f->sim, *kfd, AMDKFD_IOC_ACQUIRE_VM, &av);
			if (r)
				return r;
		}
	}
	return 0;
}

static inline struct fx *fx_new(const struct kfdsim_config *cfg, bool acquire)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	if (cfg)
		f->cfg = *cfg;
	else
		kfdsim_config_default(&f->cfg);
	f->sim = kfdsim_create(&f->cfg);
	assert_non_null(f->sim);
	f->ops = kfdsim_device_ops();
	assert_int_equal(fx_open_process(f, &f->kfd, f->rfd, acquire), 0);
	f->va =
	    mmap(NULL, FX_VA_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(f->va != MAP_FAILED);
	/* 2 MiB aligned like libhsakmt's reservations */
	f->va_next = ((uintptr_t)f->va + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
	return f;
}

static inline void fx_free(struct fx *f)
{
	munmap(f->va, FX_VA_SIZE);
	kfdsim_destroy(f->sim);
	free(f);
}

static inline uint64_t fx_va(struct fx *f, uint64_t size)
{
	uint64_t va = f->va_next;

	f->va_next += (size + 0xffff) & ~0xffffULL;
	assert_true(f->va_next <= (uintptr_t)f->va + FX_VA_SIZE);
	return va;
}

static inline int fx_alloc(struct fx *f, unsigned gpu, uint32_t flags, uint64_t va, uint64_t size,
			   uint64_t *handle, uint64_t *offset)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a = {
	    .va_addr = va, .size = size, .gpu_id = f->gpu_id[gpu], .flags = flags};
	int r;

	if (offset)
		a.mmap_offset = *offset;
	r = fx_ioctl(f, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
	if (handle)
		*handle = a.handle;
	if (offset)
		*offset = a.mmap_offset;
	return r;
}

static inline int fx_map(struct fx *f, unsigned long req, uint64_t handle, const uint32_t *ids,
			 uint32_t n, uint32_t *n_success)
{
	struct kfd_ioctl_map_memory_to_gpu_args a = {
	    .handle = handle,
	    .device_ids_array_ptr = (uintptr_t)ids,
	    .n_devices = n,
	    .n_success = n_success ? *n_success : 0,
	};
	int r = fx_ioctl(f, req, &a);

	if (n_success)
		*n_success = a.n_success;
	return r;
}

static inline int fx_free_bo(struct fx *f, uint64_t handle)
{
	struct kfd_ioctl_free_memory_of_gpu_args a = {.handle = handle};

	return fx_ioctl(f, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
}

static inline uint64_t fx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read "key value" from a sysfs-style properties file. */
static inline int fx_prop(const char *path, const char *key, unsigned long long *val)
{
	char line[256], k[128];
	unsigned long long v;
	FILE *fp = fopen(path, "r");
	int r = -ENOENT;

	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%127s %llu", k, &v) == 2 && !strcmp(k, key)) {
			*val = v;
			r = 0;
			break;
		}
	}
	fclose(fp);
	return r;
}

#endif
