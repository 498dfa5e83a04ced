// SPDX-License-Identifier: MIT
/*
 * vkfd backend: USERPTR. A registered CPU range becomes host-backed shared
 * memory (a blob mapped over it, its contents copied in) and goes back to
 * private anonymous memory on FREE (docs/guest-vkfd-backend.md, "USERPTR").
 * An arena range goes back page by page: only the pages no other BO holds
 * (registrations sharing pages: backend_vkfd_userptr_share.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"
#include "proc_maps.h"

static void bk_deferred_settle_locked(uint64_t s, uint64_t e, bool replace);

/* The CPU range a USERPTR registration covers: all of it, or for
 * AQL_QUEUE_MEM only the first half (libhsakmt maps pages only there; the
 * GPU sees that half twice). */
bool bk_userptr_len(struct bk_bo *b)
{
	uint64_t want = (b->map_flags & VKFD_ALLOC_MAP_MIRRORED) ? b->size / 2 : b->size;

	if ((b->map_flags & VKFD_ALLOC_MAP_NONE) || b->blob_size < want || want == 0)
		return false;
	b->uptr_len = want;
	return true;
}

/* What the CPU range [s, e) of a new USERPTR already holds, with bk_lock:
 * -EBUSY if it overlaps a converted USERPTR range (converting again would
 * move those pages to a second blob, and the first BO's GPU view would go
 * stale), -EFAULT if it overlaps another BO's VA: there the CPU holds that
 * BO's blob mapping (a PFN mapping: the kernel cannot take user pages from
 * it either) or libhsakmt's reservation, else 0. */
int bk_userptr_overlap_locked(uint64_t s, uint64_t e)
{
	BK_ASSERT_TABLE_LOCKED();
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_conn *c = bk.files[i].conn;

		if (bk.files[i].kind != BK_KFD || !c)
			continue;
		for (struct bk_bo *b = c->bos; b; b = b->next) {
			if (b->userptr && b->userptr_mapped && s < b->cpu_va + b->uptr_len &&
			    b->cpu_va < e)
				return -EBUSY;
			if (!b->userptr && s < b->va + b->size && b->va < e)
				return -EFAULT;
		}
	}
	return 0;
}

struct bk_cover {
	uint64_t cur, end;
	bool (*ok)(const struct proc_maps_line *, const void *);
	const void *arg;
};

static int bk_cover_line(const struct proc_maps_line *m, void *arg)
{
	struct bk_cover *c = arg;

	if (c->cur >= c->end)
		return 1;
	if (m->end <= c->cur)
		return 0;
	if (m->start > c->cur || !c->ok(m, c->arg))
		return 1;
	c->cur = m->end;
	return 0;
}

/* True if [va, va+len) is covered without a gap by mappings of
 * /proc/self/maps that all pass ok(line, arg). */
static bool bk_maps_cover(uint64_t va, uint64_t len,
			  bool (*ok)(const struct proc_maps_line *, const void *), const void *arg)
{
	struct bk_cover c = {.cur = va, .end = va + len, .ok = ok, .arg = arg};

	if (proc_maps_walk(bk_cover_line, &c) < 0)
		return false;
	return c.cur >= c.end;
}

/* Readable private anonymous memory (the heap counts). */
static bool bk_line_anon_private(const struct proc_maps_line *m, const void *arg)
{
	(void)arg;
	return m->perms[0] == 'r' && m->perms[3] == 'p' && m->inode == 0 && !m->path_cut &&
	       (!m->path[0] || !strcmp(m->path, "[heap]"));
}

/* True if [va, va+len) lies entirely in readable private anonymous
 * mappings: there, a page that is neither present nor swapped has never
 * been written and reads as zero. */
static bool bk_range_anon_private(uint64_t va, uint64_t len)
{
	int q = bk_procmap_anon_private(va, len);

	if (q >= 0)
		return q;
	bk_stats_count(&bk_stats.maps_scans);
	return bk_maps_cover(va, len, bk_line_anon_private, NULL);
}

/* Copy the pages of a private anonymous range that hold data (present or
 * swapped, from /proc/self/pagemap) into dst, which is zero-filled: pages
 * never touched are skipped. libhsakmt registers freshly mapped ranges
 * (a 60 MiB CWSR area on gfx90a), so this avoids copying zeroes. */
static int bk_copy_populated(uint8_t *dst, uint64_t va, uint64_t len)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t ent[512];
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return bk_read_user(dst, va, len);
	for (uint64_t i = 0, n = len / pg; !r && i < n;) {
		size_t k = n - i < 512 ? (size_t)(n - i) : 512;
		ssize_t got = pread(fd, ent, k * 8, (off_t)((va / pg + i) * 8));

		if (got != (ssize_t)(k * 8)) {
			r = bk_read_user(dst + i * pg, va + i * pg, len - i * pg);
			break;
		}
		for (size_t j = 0; !r && j < k;) {
			size_t run = j;

			while (run < k && (ent[run] & (3ull << 62)))
				run++;
			if (run > j)
				r = bk_read_user(dst + (i + j) * pg, va + (i + j) * pg,
						 (run - j) * pg);
			j = run > j ? run : j + 1;
		}
		i += k;
	}
	close(fd);
	return r;
}

/* With bk_mem_lock. */
int bk_userptr_copy_in(uint8_t *dst, uint64_t va, uint64_t len)
{
	uint64_t t0 = bk_prof_begin();
	bool anon = bk_range_anon_private(va, len);

	BK_ASSERT_MEM_LOCKED();
	bk_prof_op(BK_PROF_UPTR_MAPS_SCAN, t0);
	if (anon)
		return bk_copy_populated(dst, va, len);
	return bk_read_user(dst, va, len);
}

/* The blob a BO's memory is in and where: a slice of its arena's blob, or
 * a blob of its own (bound and created on first use). */
static int bk_bo_mem_blob_locked(struct bk_conn *c, struct bk_bo *b,
				 const struct vkfd_guest_blob **blob, uint64_t *off)
{
	int r;

	if (b->arena) {
		*blob = &b->arena->blob;
		*off = b->arena_offset;
		return 0;
	}
	r = bk_bo_blob_locked(c, b);
	*blob = &b->blob;
	*off = 0;
	return r;
}

/* USERPTR: the CPU range becomes host-backed shared memory, GPU-mapped at
 * the BO's VA, which may differ from the CPU address
 * (docs/guest-vkfd-backend.md, "USERPTR"). Called with bk_mem_lock. */
int bk_userptr_convert_locked(struct bk_conn *c, struct bk_bo *b)
{
	const struct vkfd_guest_blob *blob;
	uint64_t off;
	void *tmp;
	int r;

	BK_ASSERT_MEM_LOCKED();
	uint64_t t0 = bk_clock_ns(CLOCK_MONOTONIC), t1, t2, t0p = bk_prof_begin();

	/* a freed range not yet given back: its contents first */
	bk_deferred_settle_locked(b->cpu_va, b->cpu_va + b->uptr_len, false);

	r = bk_bo_mem_blob_locked(c, b, &blob, &off);
	if (r)
		return r;
	t1 = bk_clock_ns(CLOCK_MONOTONIC);
	tmp = vkfd_guest_blob_map(c->g, blob, NULL, b->uptr_len, off, PROT_READ | PROT_WRITE);
	if (tmp == MAP_FAILED)
		return -errno;
	/* current contents first (the blob is zeroed by the host); then the
	 * blob replaces the pages */
	r = bk_userptr_copy_in(tmp, b->cpu_va, b->uptr_len);
	munmap(tmp, b->uptr_len);
	t2 = bk_clock_ns(CLOCK_MONOTONIC);
	bk_log("userptr %#" PRIx64 " at %#" PRIx64 ": blob %" PRIu64 " us, copy %" PRIu64 " us",
	       b->uptr_len, b->cpu_va, (t1 - t0) / 1000, (t2 - t1) / 1000);
	if (r)
		return r;
	if (vkfd_guest_blob_map(c->g, blob, (void *)(uintptr_t)b->cpu_va, b->uptr_len, off,
				PROT_READ | PROT_WRITE) == MAP_FAILED)
		return -errno;
	b->userptr_mapped = true;
	bk_prof_op(BK_PROF_UPTR_COPY_IN, t0p);
	return 0;
}

/* Copy the converted range into dst (zero-filled). When the blob is a
 * file that knows its holes (a memfd: SEEK_DATA/SEEK_HOLE; swapped pages
 * count as data), only its data extents are copied. */
/* An arena slice whose blob is a file here (a memfd, vtest): the pages of
 * the range that hold data are those the mapping shows resident (mincore
 * on a shared file mapping asks the file's page cache, swapped shmem pages
 * included). SEEK_DATA/SEEK_HOLE would scan the arena around the range,
 * every other BO's pages too (measured: frees of hsa_storm took 6x
 * longer). A blob without a file here (virtgpu: a device mapping, whose
 * residency says nothing about the host's pages) is copied whole. */
static int bk_copy_arena_data(uint8_t *dst, const struct bk_arena *a, uint64_t cpu_va, uint64_t len)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), n = len / pg;
	unsigned char vec[512];

	if (a->blob.fd < 0)
		return bk_read_user(dst, cpu_va, len);
	for (uint64_t i = 0; i < n;) {
		uint64_t k = n - i < sizeof(vec) ? n - i : sizeof(vec);

		if (mincore((void *)(uintptr_t)(cpu_va + i * pg), k * pg, vec))
			return bk_read_user(dst + i * pg, cpu_va + i * pg, (n - i) * pg);
		for (uint64_t j = 0; j < k;) {
			uint64_t run = j;

			while (run < k && (vec[run] & 1))
				run++;
			if (run > j &&
			    bk_read_user(dst + (i + j) * pg, cpu_va + (i + j) * pg, (run - j) * pg))
				return -EFAULT;
			j = run > j ? run : j + 1;
		}
		i += k;
	}
	return 0;
}

static int bk_copy_blob_data(uint8_t *dst, const struct bk_bo *b)
{
	off_t pos = 0, end = (off_t)b->uptr_len;

	if (b->arena)
		return bk_copy_arena_data(dst, b->arena, b->cpu_va, b->uptr_len);
	if (!b->has_blob || b->blob.fd < 0 || lseek(b->blob.fd, 0, SEEK_HOLE) < 0)
		return bk_read_user(dst, b->cpu_va, b->uptr_len);
	while (pos < end) {
		off_t d = lseek(b->blob.fd, pos, SEEK_DATA), h;

		if (d < 0)
			return errno == ENXIO ? 0
					      : bk_read_user(dst + pos, b->cpu_va + (uint64_t)pos,
							     (size_t)(end - pos));
		if (d >= end)
			break;
		h = lseek(b->blob.fd, d, SEEK_HOLE);
		if (h < 0 || h > end)
			h = end;
		if (bk_read_user(dst + d, b->cpu_va + (uint64_t)d, (size_t)(h - d)))
			return -EFAULT;
		pos = h;
	}
	return 0;
}

void bk_arena_run_restore_locked(const struct bk_arena *a, uint64_t cpu_va, uint64_t len)
{
	uint64_t t0 = bk_prof_begin();
	void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (tmp == MAP_FAILED)
		return;
	if (bk_copy_arena_data(tmp, a, cpu_va, len) ||
	    mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(uintptr_t)cpu_va) ==
		MAP_FAILED)
		munmap(tmp, len);
	bk_prof_op(BK_PROF_UPTR_RESTORE, t0);
}

/* Restore, when mapped, the pages of one arena range of a BO that no
 * other BO holds (count 1: the caller's put frees them); the pages other
 * BOs still hold stay the arena's. */
static void bk_arena_range_restore_locked(const struct bk_arena *a, uint64_t off, uint64_t cpu_va,
					  uint64_t len, bool mapped)
{
	const uint64_t pg = BK_ARENA_PAGE;

	for (uint64_t i = 0; mapped && i < len;) {
		uint64_t j = i;

		while (j < len && bk_arena_refs(a, off + j) <= 1)
			j += pg;
		if (j > i)
			bk_arena_run_restore_locked(a, cpu_va + i, j - i);
		while (j < len && bk_arena_refs(a, off + j) > 1)
			j += pg;
		i = j;
	}
}

/* Give a converted range back as private anonymous memory with the same
 * contents. Called with bk_mem_lock. */
void bk_userptr_restore_locked(struct bk_bo *b)
{
	uint64_t t0 = bk_prof_begin();
	void *tmp;

	BK_ASSERT_MEM_LOCKED();
	if (!b->userptr_mapped)
		return;
	tmp = mmap(NULL, b->uptr_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tmp == MAP_FAILED)
		return;
	if (bk_copy_blob_data(tmp, b) ||
	    mremap(tmp, b->uptr_len, b->uptr_len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)(uintptr_t)b->cpu_va) == MAP_FAILED)
		munmap(tmp, b->uptr_len);
	b->userptr_mapped = false;
	bk_prof_op(BK_PROF_UPTR_RESTORE, t0);
}

/*
 * Deferred copy-back (docs/guest-vkfd-backend.md, "Freeing host memory").
 * libhsakmt backs its own host memory (hsaKmtAllocMemory) with USERPTR BOs
 * whose GPU VA is the CPU address, inside an aperture it reserved itself,
 * and replaces the range right after FREE (mmap MAP_FIXED PROT_NONE to keep
 * the VA reserved, preceded by munmap when that fails). Copying it back into
 * private memory at FREE costs O(size) for contents that die a moment
 * later. So FREE of such a BO frees the host BO (the GPU mapping goes, as
 * with the kernel) but keeps the blob mapped over the range: the blob's
 * memory lives as long as the guest holds the blob, so the CPU still reads
 * the same bytes. Then:
 *  - munmap or MAP_FIXED mmap covering the whole range drops the blob;
 *  - a partial munmap, madvise, mremap, fork, a new USERPTR over it, or
 *    closing the KFD process restores it (the copy-back) first.
 * Registered user memory (GPU VA != CPU VA) is restored at FREE: it may be
 * malloc's, and glibc's internal madvise/munmap of its heap are not seen
 * here, so it must be private anonymous memory again at once.
 */
static atomic_uint bk_n_deferred; /* entries on all uptr_freed lists */
/* VKFD_USERPTR_EAGER_RESTORE set: copy back at FREE always (the old way,
 * for comparison in vkfd-bench); -1 until read, under bk_mem_lock */
static int bk_userptr_eager = -1;

/* The connections that may hold deferred ranges; with bk_mem_lock, which
 * keeps them alive (they are freed with it held). */
static unsigned int bk_deferred_conns_locked(struct bk_conn **out)
{
	unsigned int n = 0;

	BK_ASSERT_MEM_LOCKED();
	bk_table_lock();
	for (unsigned int i = 0; i <= BK_MAX_FILES; i++) {
		struct bk_conn *c = i < BK_MAX_FILES
					? (bk.files[i].kind == BK_KFD ? bk.files[i].conn : NULL)
					: bk.kept;
		unsigned int k;

		if (!c || c->dead || !c->uptr_freed)
			continue;
		for (k = 0; k < n && out[k] != c; k++)
			;
		if (k == n)
			out[n++] = c;
	}
	bk_table_unlock();
	return n;
}

/* A shared mapping, of the file whose inode *arg names when not NULL. */
static bool bk_line_shared_file(const struct proc_maps_line *m, const void *arg)
{
	const uint64_t *ino = arg;

	return m->perms[3] == 's' && (!ino || m->inode == *ino);
}

/* True if [cpu_va, +uptr_len) still holds b's blob mapping: shared, and
 * the blob's file where the blob has one. A range unmapped behind the
 * shim's back (a raw syscall) must not be restored over whatever the
 * program mapped there since. */
static bool bk_range_still_blob(const struct bk_bo *b)
{
	const struct vkfd_guest_blob *blob = b->arena ? &b->arena->blob : &b->blob;
	struct stat st;
	uint64_t ino;
	bool by_inode = blob->fd >= 0 && fstat(blob->fd, &st) == 0;

	ino = by_inode ? (uint64_t)st.st_ino : 0;
	return bk_maps_cover(b->cpu_va, b->uptr_len, bk_line_shared_file, by_inode ? &ino : NULL);
}

/* A deferred arena slice goes back to its arena. Dropped because the
 * caller is about to replace the range (replacing), the range still maps
 * the slice until the caller's munmap or mmap runs: it is made an
 * inaccessible reservation first, so the slice's next owner is never
 * reachable through the old address, whatever the caller does next
 * (libhsakmt's replacing mmap may fail and be retried after a munmap). A
 * range restored, or found unmapped unseen (the program's own mapping may
 * be there now), is left alone. With bk_mem_lock. */
static void bk_arena_slice_end_locked(struct bk_bo *b, bool replacing)
{
	BK_ASSERT_MEM_LOCKED();
	if (replacing)
		mmap((void *)(uintptr_t)b->cpu_va, b->uptr_len, PROT_NONE,
		     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	bk_arena_put_locked(b->arena, b->arena_offset, b->size);
}

/* Does b hold every page of its arena range alone (no registration
 * shares one)? */
static bool bk_arena_slice_sole_locked(const struct bk_bo *b)
{
	for (uint64_t o = 0; o < b->uptr_len; o += BK_ARENA_PAGE)
		if (bk_arena_refs(b->arena, b->arena_offset + o) != 1)
			return false;
	return true;
}

/* End a deferred range: copy it back (restore) or let it go (the caller
 * is about to replace all of it). With bk_mem_lock. */
static void bk_deferred_end_locked(struct bk_conn *c, struct bk_bo *b, bool restore)
{
	const bool replacing = !restore;

	BK_ASSERT_MEM_LOCKED();
	if (restore && !bk_range_still_blob(b)) {
		bk_log("userptr %#" PRIx64 " at %#" PRIx64 " was unmapped unseen: not restored",
		       b->uptr_len, b->cpu_va);
		restore = false;
	}
	bk_log("userptr %#" PRIx64 " at %#" PRIx64 " freed earlier: %s", b->uptr_len, b->cpu_va,
	       restore ? "restored" : "dropped");
	if (restore)
		bk_userptr_restore_locked(b);
	if (b->arena)
		bk_arena_slice_end_locked(b, replacing);
	else
		vkfd_guest_blob_destroy(c->g, &b->blob);
	atomic_fetch_sub(&bk_n_deferred, 1);
	free(b);
}

/* Settle the deferred ranges that overlap [s, e): dropped if replace and
 * [s, e) covers all of one, else restored. With bk_mem_lock. */
static void bk_deferred_settle_locked(uint64_t s, uint64_t e, bool replace)
{
	struct bk_conn *cs[BK_MAX_FILES + 1];
	unsigned int n;

	BK_ASSERT_MEM_LOCKED();
	if (atomic_load(&bk_n_deferred) == 0)
		return;
	n = bk_deferred_conns_locked(cs);
	for (unsigned int i = 0; i < n; i++) {
		for (struct bk_bo **pp = &cs[i]->uptr_freed, *b; (b = *pp);) {
			uint64_t bs = b->cpu_va, be = b->cpu_va + b->uptr_len;

			if (s >= be || bs >= e) {
				pp = &b->next;
				continue;
			}
			*pp = b->next;
			bk_deferred_end_locked(cs[i], b, !(replace && s <= bs && be <= e));
		}
	}
}

void bk_userptr_settle_locked(uint64_t s, uint64_t e)
{
	bk_deferred_settle_locked(s, e, false);
}

/* FREE of a converted BO, with bk_mem_lock, after it left the BO list:
 * true if the range was kept mapped for a deferred copy-back (the BO and
 * its blob or arena slice now belong to c->uptr_freed), false if the
 * caller destroys the blob, puts the slice and frees the BO as before (the
 * range was restored here, or is gone). */
bool bk_userptr_release_locked(struct bk_conn *c, struct bk_bo *b)
{
	BK_ASSERT_MEM_LOCKED();
	/* a shared registration: each range's pages no other BO holds go
	 * back now, and it lets go of every range */
	if (b->pieces) {
		for (uint32_t i = 0; i < b->n_pieces; i++) {
			const struct bk_uptr_piece *p = &b->pieces[i];

			bk_arena_range_restore_locked(p->arena, p->off, p->cpu_va, p->len,
						      b->userptr_mapped);
			bk_arena_put_locked(p->arena, p->off, p->len);
		}
		free(b->pieces);
		b->pieces = NULL;
		b->n_pieces = 0;
		b->userptr_mapped = false;
		return false;
	}
	if (!b->userptr_mapped)
		return false;
	if (bk_userptr_eager < 0)
		bk_userptr_eager = getenv("VKFD_USERPTR_EAGER_RESTORE") != NULL;
	/* An arena slice of libhsakmt's own memory is deferred like a blob:
	 * the slice stays held (and mapped over the range) until the range
	 * is replaced or restored, then goes back to its arena. A slice whose
	 * pages a shared registration also holds, registered memory and the
	 * eager knob: its pages no other BO holds go back now (the caller's
	 * put), copied back into private memory; never left mapped over the
	 * freed range, since the next BO may get them. */
	if (b->arena &&
	    (b->va != b->cpu_va || bk_userptr_eager || !bk_arena_slice_sole_locked(b))) {
		bk_arena_range_restore_locked(b->arena, b->arena_offset, b->cpu_va, b->uptr_len,
					      true);
		b->userptr_mapped = false;
		return false;
	}
	if (!b->arena && (b->va != b->cpu_va || !b->has_blob || bk_userptr_eager)) {
		bk_userptr_restore_locked(b);
		return false;
	}
	bk_log("userptr %#" PRIx64 " at %#" PRIx64 " freed: copy-back deferred", b->uptr_len,
	       b->cpu_va);
	b->next = c->uptr_freed;
	c->uptr_freed = b;
	atomic_fetch_add(&bk_n_deferred, 1);
	return true;
}

/* A connection going away: its deferred ranges are restored (the
 * application's memory stays valid after close), or only forgotten in a
 * forked child, where they belong to the parent. With bk_mem_lock, or for
 * a connection that never had one. */
void bk_userptr_conn_free_locked(struct bk_conn *c)
{
	while (c->uptr_freed) {
		struct bk_bo *b = c->uptr_freed;

		BK_ASSERT_MEM_LOCKED();
		c->uptr_freed = b->next;
		if (c->dead) {
			atomic_fetch_sub(&bk_n_deferred, 1);
			free(b);
		} else {
			bk_deferred_end_locked(c, b, true);
		}
	}
}

void bk_munmap_notify(void *addr, size_t len)
{
	uint64_t s = (uintptr_t)addr, e = s + len, t0 = bk_prof_begin();

	if (e < s)
		e = UINT64_MAX;
	if (atomic_load(&bk_n_deferred) != 0) {
		bk_mem_lock_take();
		bk_deferred_settle_locked(s, e, true);
		bk_mem_lock_release();
	}
	bk_table_lock();
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_conn *c = bk.files[i].conn;

		if (bk.files[i].kind != BK_KFD || !c)
			continue;
		for (struct bk_bo *b = c->bos; b; b = b->next)
			if (b->userptr && b->userptr_mapped && s < b->cpu_va + b->uptr_len &&
			    b->cpu_va < e)
				b->userptr_mapped = false;
	}
	bk_table_unlock();
	bk_prof_op(BK_PROF_MUNMAP_NOTIFY, t0);
}

/* madvise or mremap of [addr, addr+len): a deferred range there is
 * restored first, so the call acts on private anonymous memory. */
void bk_remap_notify(void *addr, size_t len)
{
	uint64_t s = (uintptr_t)addr, e = s + len;

	if (atomic_load(&bk_n_deferred) == 0)
		return;
	if (e < s)
		e = UINT64_MAX;
	bk_mem_lock_take();
	bk_deferred_settle_locked(s, e, false);
	bk_mem_lock_release();
}

/* Before fork: the child must get private copies, as the kernel's
 * copy-on-write would give it. */
void bk_atfork_prepare(void)
{
	if (atomic_load(&bk_n_deferred) == 0)
		return;
	bk_mem_lock_take();
	bk_deferred_settle_locked(0, UINT64_MAX, false);
	bk_mem_lock_release();
}
