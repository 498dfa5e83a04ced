// SPDX-License-Identifier: MIT
/*
 * vkfd backend: is a CPU range private anonymous memory, asked of the
 * kernel per mapping (PROCMAP_QUERY on /proc/self/maps, Linux 6.11)
 * instead of by reading the whole maps file. A USERPTR conversion asks
 * this for every registration (backend_vkfd_userptr.c, "copy costs"); in
 * a ROCr process with hundreds of mappings the full read cost 0.36 ms per
 * conversion (docs/performance.md, "The real-ROCr storm's alloc and free
 * phases").
 * Where the kernel does not know the query the caller reads the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

/* The query's layout and flags as the kernel's UAPI defines them
 * (include/uapi/linux/fs.h since 6.11); the C library's headers of older
 * distributions do not have them. */
struct bk_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
_Static_assert(sizeof(struct bk_procmap_query) == 104, "procmap_query layout");

#define BK_PROCMAP_QUERY        _IOWR('f', 17, struct bk_procmap_query)
#define BK_PROCMAP_VMA_READABLE 0x01ull
#define BK_PROCMAP_VMA_SHARED   0x08ull

/* 0 = not known yet, 1 = the kernel answers, -1 = it does not (read the
 * file); a racy first use only stores the same answer. VKFD_GUEST_MAPS_SCAN=1
 * starts at -1: the maps file is read as before (a measurement baseline). */
static int bk_procmap_works;

int bk_procmap_anon_private(uint64_t va, uint64_t len)
{
	uint64_t cur = va, end = va + len;
	int fd, r = 1;

	if (__atomic_load_n(&bk_procmap_works, __ATOMIC_RELAXED) == 0) {
		const char *e = getenv("VKFD_GUEST_MAPS_SCAN");

		if (e && !strcmp(e, "1"))
			__atomic_store_n(&bk_procmap_works, -1, __ATOMIC_RELAXED);
	}
	if (__atomic_load_n(&bk_procmap_works, __ATOMIC_RELAXED) < 0)
		return -1;
	/* opened per call: an fd of /proc/self/maps names the process that
	 * opened it, which a forked child is not */
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (r == 1 && cur < end) {
		struct bk_procmap_query q;
		char name[16];

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_addr = cur; /* the mapping covering cur, or ENOENT */
		q.vma_name_addr = (uintptr_t)name;
		q.vma_name_size = sizeof(name);
		if (ioctl(fd, BK_PROCMAP_QUERY, &q) != 0) {
			if (errno == ENOENT) {
				r = 0; /* a hole */
				break;
			}
			if (errno == ENAMETOOLONG) {
				r = 0; /* a long name: a file or a named mapping */
				break;
			}
			r = -1; /* unknown to this kernel (or refused): read the file */
			if (errno == ENOTTY || errno == EINVAL)
				__atomic_store_n(&bk_procmap_works, -1, __ATOMIC_RELAXED);
			break;
		}
		/* what bk_line_anon_private accepts: readable, private, no
		 * file, no name or the heap's */
		if (!(q.vma_flags & BK_PROCMAP_VMA_READABLE) ||
		    (q.vma_flags & BK_PROCMAP_VMA_SHARED) || q.inode != 0 ||
		    (q.vma_name_size != 0 && strncmp(name, "[heap]", sizeof(name)) != 0) ||
		    q.vma_end <= cur)
			r = 0;
		cur = q.vma_end;
	}
	close(fd);
	if (r >= 0)
		__atomic_store_n(&bk_procmap_works, 1, __ATOMIC_RELAXED);
	return r;
}
