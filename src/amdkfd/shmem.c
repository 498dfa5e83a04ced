// SPDX-License-Identifier: MIT
#include "shmem.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int shmem_region_create(struct shmem_region *r, const char *name, size_t size)
{
	int fd, err;
	void *map;

	r->fd = -1;
	r->map = NULL;
	r->size = 0;
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		goto fail;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	r->fd = fd;
	r->map = map;
	r->size = size;
	return 0;
fail:
	err = -errno;
	close(fd);
	return err;
}

void shmem_region_destroy(struct shmem_region *r)
{
	if (r->map)
		munmap(r->map, r->size);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->map = NULL;
	r->size = 0;
}
