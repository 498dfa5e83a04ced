// SPDX-License-Identifier: MIT
/*
 * The shared harness of the translation tests (test_translate_*.c): the
 * group setup that brings up the shim's vkfd backend against an in-process
 * host context on kfdsim (direct transport), opens /dev/kfd and the render
 * node and acquires the GPU's VM, and the ioctl and memory helpers.
 */
#ifndef VKFD_TRANSLATE_HARNESS_H
#define VKFD_TRANSLATE_HARNESS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "shim/shim_backend.h"
#include "backend_vkfd_internal.h"

#define B    shim_backend_vkfd
#define PAGE 4096ul
#define RW   (_IOC_READ | _IOC_WRITE)

#define GTT_FLAGS  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | (1u << 31) | (1u << 26))
#define VRAM_FLAGS (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | (1u << 31) | (1u << 29))

/* Set by group_setup: the KFD fd, the render fd whose VM is acquired, the
 * GPU's id and render minor, and the topology directory of the shim. */
extern int kfd, rfd;
extern uint32_t gpu_id;
extern int minor_;
extern char topo[PATH_MAX];

int kio(int fd, unsigned int dir, unsigned int nr, size_t size, void *arg);
int read_file(const char *rel, char *buf, size_t cap);
long long prop(const char *rel, const char *key);
/* A reserved VA range, as libhsakmt takes from its apertures. */
uint64_t va_reserve(size_t size);
/* A mapping inside a va_reserve() range goes back to the range; never
 * munmap part of a range that is unmapped whole later (the host shares
 * this process and may map into the hole). */
void va_unmap_in_reserve(uint64_t va, size_t size);
int alloc_bo(uint64_t va, uint64_t size, uint32_t flags,
	     struct kfd_ioctl_alloc_memory_of_gpu_args *a);
int free_bo(uint64_t handle);
/* A USERPTR BO: GPU VA gva over the CPU range at cpu. */
int alloc_userptr(uint64_t gva, uint64_t cpu, uint64_t size,
		  struct kfd_ioctl_alloc_memory_of_gpu_args *a);
int map_bo(unsigned int nr, uint64_t handle, uint32_t *ids, uint32_t n, uint32_t *n_success);

/* cmocka group setup and teardown of every test_translate_* program. */
int group_setup(void **state);
int group_teardown(void **state);

#endif
