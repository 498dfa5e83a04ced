/* SPDX-License-Identifier: MIT */
/*
 * Shared-memory regions handed to the guest (the context's shmem, the shadow
 * doorbell page): a zero-filled memfd of a fixed size, sealed against
 * shrinking and growing so the guest side can never make a host access fault.
 * F_SEAL_SEAL is not set: virglrenderer's render-server proxy seals it.
 */
#ifndef VKFD_SHMEM_H
#define VKFD_SHMEM_H

#include <stddef.h>

struct shmem_region {
	int fd;
	void *map;
	size_t size;
};

/* 0 or -errno; on success fd and map are valid (map is shared, RW). */
int shmem_region_create(struct shmem_region *r, const char *name, size_t size);
void shmem_region_destroy(struct shmem_region *r);

#endif
