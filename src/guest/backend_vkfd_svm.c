// SPDX-License-Identifier: MIT
/*
 * vkfd backend: SVM (AMDKFD_IOC_SVM) for a process with XNACK off, answered
 * in the guest as amdkfd answers it (docs/guest-vkfd-backend.md, "SVM").
 *
 * The attributes live here, per interval (src/svm/svm_ranges.c, amdkfd's
 * splitting and defaults). Where a SET_ATTR gives a GPU access, the CPU
 * pages become host-backed memory at the same address, as USERPTR
 * conversion does for libhsakmt's own host memory (GPU VA == CPU VA):
 * "pieces", each a GTT BO (an arena slice up to 2 MiB, a blob of its own
 * above) created over a gap no piece covers yet, so ranges that grow,
 * split or overlap earlier ones never alias a page; the contents are
 * copied in and the piece is GPU-mapped on every GPU with access. The
 * host sees ordinary BOs: no protocol change.
 *
 * A CPU unmap (the shim's munmap/MAP_FIXED notification) removes the
 * pages from the ranges and frees the pieces there (the part of a piece
 * that stays mapped becomes a piece of its own first). Unmaps the shim
 * cannot see (brk, glibc's internal munmap) are found at the next SVM
 * ioctl, as kfdsim finds all of them: a piece whose pages no longer hold
 * its blob is freed and its ranges dropped.
 *
 * Everything here runs under bk_mem_lock, which guards each connection's
 * SVM state (freed with the connection, under that lock).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"
#include "proc_maps.h"
#include "svm_ranges.h"

#define BK_SVM_TASK_SIZE   0x7ffffffff000ull /* x86-64 user VA limit */
#define BK_SVM_MINOR       5u                /* the ioctl: KFD 1.5 */
#define BK_SVM_CLR_MINOR   6u                /* GET_ATTR's CLR_FLAGS: 1.6 */
#define BK_SVM_HDR         sizeof(struct kfd_ioctl_svm_args)
#define BK_SVM_MAX_IOCSIZE 16383u /* _IOC_SIZE's limit */

/* Host-backed memory under SVM ranges: one BO at GPU VA == CPU VA. */
struct bk_svm_piece {
	uint64_t start, end;
	uint64_t handle;
	uint32_t mapped;        /* GPU indices whose VM maps it */
	unsigned long long ino; /* the blob's file here, 0 if it has none */
};

struct bk_svm {
	struct svm_ranges ranges;
	struct bk_svm_piece *p; /* sorted by start, no overlap */
	size_t np, cap;
	uint32_t gpu_ids[VKFD_MAX_GPUS];
	unsigned int n_gpus;
	int kfd_minor; /* the host's, -1 until asked */
	int xnack;     /* the process's XNACK mode, -1 until asked */
};

/* connections with an SVM state (a fast path for every munmap) */
static atomic_uint bk_svm_states;

/* ------------------------------------------------------------------ */
/* CPU mappings                                                        */
/* ------------------------------------------------------------------ */

/* The CPU mappings overlapping [s, e) (proc_maps_overlapping): their
 * number, -ENOMEM, or -EFAULT when /proc/self/maps cannot be read. */
static ssize_t bk_svm_vmas(uint64_t s, uint64_t e, struct proc_maps_vma **out)
{
	ssize_t n = proc_maps_overlapping(s, e, out);

	return n < 0 && n != -ENOMEM ? -EFAULT : n;
}

/* [s, e) still holds a piece's blob: shared mappings, of its file when
 * it has one here. */
static bool bk_svm_holds_blob(const struct proc_maps_vma *v, size_t n, const struct bk_svm_piece *p)
{
	uint64_t at = p->start;

	for (size_t i = 0; i < n && at < p->end; i++) {
		if (v[i].end <= at)
			continue;
		if (v[i].start > at || v[i].perms[3] != 's' || (p->ino && v[i].inode != p->ino))
			return false;
		at = v[i].end;
	}
	return at >= p->end;
}

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */

static int bk_svm_gpu_index(void *ctx, uint32_t gpu_id)
{
	const struct bk_svm *s = ctx;

	for (unsigned int i = 0; i < s->n_gpus; i++)
		if (s->gpu_ids[i] == gpu_id)
			return (int)i;
	return -1;
}

static struct svm_gpus bk_svm_gpus(struct bk_svm *s)
{
	/* new pages: no GPU access with XNACK off, every GPU with it on */
	uint32_t all = s->n_gpus >= 32 ? UINT32_MAX : (1u << s->n_gpus) - 1;

	return (struct svm_gpus){
	    .index = bk_svm_gpu_index, .ctx = s, .default_access = s->xnack > 0 ? all : 0};
}

static struct bk_svm *bk_svm_state_locked(struct bk_conn *c)
{
	struct bk_svm *s;

	BK_ASSERT_MEM_LOCKED();
	if (c->svm)
		return c->svm;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->kfd_minor = -1;
	s->xnack = -1;
	bk_table_lock();
	s->n_gpus = bk.n_gpus < VKFD_MAX_GPUS ? bk.n_gpus : VKFD_MAX_GPUS;
	for (unsigned int i = 0; i < s->n_gpus; i++)
		s->gpu_ids[i] = bk.gpus[i].gpu_id;
	bk_table_unlock();
	c->svm = s;
	atomic_fetch_add(&bk_svm_states, 1);
	return s;
}

void bk_svm_conn_free_locked(struct bk_conn *c)
{
	if (!c->svm)
		return;
	/* the pieces are BOs of c: freed with its BO list */
	svm_ranges_fini(&c->svm->ranges);
	free(c->svm->p);
	free(c->svm);
	c->svm = NULL;
	atomic_fetch_sub(&bk_svm_states, 1);
}

/* The KFD minor version the host serves (capped as GET_VERSION is) and
 * the process's XNACK mode, asked once. */
static int bk_svm_minor_locked(struct bk_conn *c, struct bk_svm *s)
{
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;
	struct vkfd_req_set_xnack_mode xreq;
	struct vkfd_rsp_set_xnack_mode xrsp;
	int r;

	if (s->xnack < 0) {
		memset(&xreq, 0, sizeof(xreq));
		xreq.xnack_enabled = -1; /* a query */
		r = bk_call(c, VKFD_CMD_SET_XNACK_MODE, &xreq, sizeof(xreq), &xrsp, sizeof(xrsp));
		s->xnack = !r && xrsp.xnack_enabled > 0 ? 1 : 0;
	}
	if (s->kfd_minor >= 0)
		return s->kfd_minor;
	memset(&req, 0, sizeof(req));
	r = bk_call(c, VKFD_CMD_GET_VERSION, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	s->kfd_minor = (int)(rsp.minor < BK_KFD_MINOR_MAX ? rsp.minor : BK_KFD_MINOR_MAX);
	return s->kfd_minor;
}

void bk_svm_note_xnack(struct bk_conn *c, int32_t mode)
{
	bk_mem_lock_take();
	if (c->svm)
		c->svm->xnack = mode > 0 ? 1 : 0;
	bk_mem_lock_release();
}

/* ------------------------------------------------------------------ */
/* Pieces                                                              */
/* ------------------------------------------------------------------ */

static size_t bk_svm_piece_lb(const struct bk_svm *s, uint64_t va)
{
	size_t lo = 0, hi = s->np;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->p[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static unsigned long long bk_blob_ino(const struct vkfd_guest_blob *blob)
{
	struct stat st;

	return blob->fd >= 0 && fstat(blob->fd, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* Take the piece at index i out of s and c and send its FREE (the host
 * frees the BO, its GPU mappings and its VA); the CPU range is left as it
 * is. Its memory (blob or arena slice) stays until
 * bk_svm_piece_drop_locked: the CPU pages still hold it. NULL if gone. */
static struct bk_bo *bk_svm_piece_unlink_locked(struct bk_conn *c, struct bk_svm *s, size_t i)
{
	struct bk_bo *b, **pp;
	uint64_t handle = s->p[i].handle;

	BK_ASSERT_MEM_LOCKED();
	memmove(&s->p[i], &s->p[i + 1], (s->np - i - 1) * sizeof(s->p[0]));
	s->np--;
	bk_table_lock();
	for (pp = &c->bos; (b = *pp); pp = &b->next)
		if (b->handle == handle && b->svm)
			break;
	if (b)
		*pp = b->next;
	bk_table_unlock();
	if (!b)
		return NULL;
	bk_log("svm piece %#" PRIx64 "-%#" PRIx64 " freed", b->cpu_va, b->cpu_va + b->size);
	b->userptr_mapped = false; /* never restored over what is there now */
	bk_send_free(c, b->handle);
	return b;
}

/* The memory of an unlinked piece goes (the CPU mapping keeps what it
 * maps alive until it is unmapped). */
static void bk_svm_piece_drop_locked(struct bk_conn *c, struct bk_bo *b)
{
	if (!b)
		return;
	if (b->has_blob)
		vkfd_guest_blob_destroy(c->g, &b->blob);
	if (b->arena)
		bk_arena_put_locked(b->arena, b->arena_offset, b->size);
	free(b);
}

static void bk_svm_piece_free_locked(struct bk_conn *c, struct bk_svm *s, size_t i)
{
	bk_svm_piece_drop_locked(c, bk_svm_piece_unlink_locked(c, s, i));
}

/* The GPU a new piece is allocated on: the first of mask (one the
 * process acquired), GPU 0 for none. */
static uint32_t bk_svm_alloc_gpu(const struct bk_svm *s, uint32_t mask)
{
	for (unsigned int g = 0; g < s->n_gpus; g++)
		if ((mask >> g) & 1u)
			return s->gpu_ids[g];
	return s->gpu_ids[0];
}

/* A new piece over [va, va+len), which lies in one CPU mapping of
 * protection prot and no piece covers: a GTT BO at GPU VA == CPU VA on
 * the GPU of mask's first bit, the pages' contents copied into it and its
 * blob mapped over them. Not yet GPU-mapped. Its index in s, or -errno. */
static ssize_t bk_svm_piece_new_locked(struct bk_conn *c, struct bk_svm *s, uint64_t va,
				       uint64_t len, int prot, uint32_t mask)
{
	uint32_t gpu_id = bk_svm_alloc_gpu(s, mask);
	uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE |
			 KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;
	struct vkfd_rsp_alloc_memory rsp;
	struct bk_arena *a = NULL;
	struct bk_svm_piece np;
	uint64_t off = 0;
	struct bk_bo *b;
	size_t i;
	int r;

	BK_ASSERT_MEM_LOCKED();
	if (s->np == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct bk_svm_piece *n = realloc(s->p, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->p = n;
		s->cap = nc;
	}
	if (prot & PROT_WRITE)
		flags |= VKFD_KFD_ALLOC_WRITABLE;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (bk_arena_wanted(c, flags, va, len, true) && bk_arena_take_locked(c, len, &a, &off))
		a = NULL;
	r = bk_alloc_host(c, va, len, gpu_id, flags, a, off, &rsp, &b->async_alloc);
	if (!r && a && (!(rsp.map_flags & VKFD_ALLOC_MAP_ARENA) || rsp.blob_size != len)) {
		bk_send_free(c, rsp.handle);
		r = -EPROTO; /* the host answered for another kind of BO */
	}
	if (r) {
		if (a)
			bk_arena_put_locked(a, off, len);
		free(b);
		return r;
	}
	b->handle = rsp.handle;
	b->va = b->cpu_va = va;
	b->size = len;
	b->blob_size = rsp.blob_size;
	b->gpu_id = gpu_id;
	b->kfd_flags = flags | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
	b->map_info = rsp.map_info;
	b->map_flags = rsp.map_flags;
	b->userptr = true;
	b->svm = true;
	b->arena = a;
	b->arena_offset = off;
	r = bk_userptr_len(b) ? 0 : -EIO;
	if (!r)
		r = bk_userptr_convert_locked(c, b);
	/* the blob is mapped read-write; the CPU keeps the mapping's rights */
	if (!r && prot != (PROT_READ | PROT_WRITE) && mprotect((void *)(uintptr_t)va, len, prot))
		r = -errno;
	if (r) {
		b->userptr_mapped = false;
		if (b->has_blob)
			vkfd_guest_blob_destroy(c->g, &b->blob);
		bk_send_free(c, b->handle);
		if (a)
			bk_arena_put_locked(a, off, len);
		free(b);
		return r;
	}
	bk_table_lock();
	b->next = c->bos;
	c->bos = b;
	bk_table_unlock();
	np = (struct bk_svm_piece){.start = va,
				   .end = va + len,
				   .handle = b->handle,
				   .ino = bk_blob_ino(a ? &a->blob : &b->blob)};
	i = bk_svm_piece_lb(s, va);
	memmove(&s->p[i + 1], &s->p[i], (s->np - i) * sizeof(s->p[0]));
	s->p[i] = np;
	s->np++;
	bk_log("svm piece %#" PRIx64 "-%#" PRIx64 "%s", va, va + len, a ? " (arena)" : "");
	return (ssize_t)i;
}

/* Map piece i on the GPUs of mask it is not mapped on yet. */
static int bk_svm_piece_map_locked(struct bk_conn *c, struct bk_svm *s, size_t i, uint32_t mask)
{
	struct bk_svm_piece *p = &s->p[i];
	struct vkfd_req_map_memory req;
	struct vkfd_rsp_map_memory rsp;
	uint32_t want = mask & ~p->mapped;
	int r;

	if (!want)
		return 0;
	memset(&req, 0, sizeof(req));
	req.handle = p->handle;
	for (unsigned int g = 0; g < s->n_gpus; g++)
		if ((want >> g) & 1u)
			req.device_ids[req.n_devices++] = s->gpu_ids[g];
	memset(&rsp, 0, sizeof(rsp));
	r = bk_call(c, VKFD_CMD_MAP_MEMORY, &req, VKFD_REQ_MAP_MEMORY_LEN(req.n_devices), &rsp,
		    sizeof(rsp));
	for (uint32_t k = 0, g = 0; g < s->n_gpus && k < rsp.n_success && k < req.n_devices; g++)
		if ((want >> g) & 1u) {
			p->mapped |= 1u << g;
			k++;
		}
	return r;
}

/* Pieces over all of [s0, e0), which the CPU mappings v cover, mapped on
 * the GPUs of mask. */
static int bk_svm_back_locked(struct bk_conn *c, struct bk_svm *s, uint64_t s0, uint64_t e0,
			      uint32_t mask, const struct proc_maps_vma *v, size_t nv)
{
	uint64_t at = s0;
	int r = 0;

	while (at < e0 && !r) {
		size_t i = bk_svm_piece_lb(s, at);
		uint64_t gap_end;

		if (i < s->np && s->p[i].start <= at) {
			r = bk_svm_piece_map_locked(c, s, i, mask);
			at = s->p[i].end;
			continue;
		}
		gap_end = i < s->np && s->p[i].start < e0 ? s->p[i].start : e0;
		/* one piece per CPU mapping in the gap: each keeps its rights */
		for (size_t k = 0; k < nv && !r && at < gap_end; k++) {
			uint64_t ps = v[k].start > at ? v[k].start : at;
			uint64_t pe = v[k].end < gap_end ? v[k].end : gap_end;
			ssize_t ni;

			if (ps >= pe)
				continue;
			ni = bk_svm_piece_new_locked(c, s, ps, pe - ps, proc_maps_prot(v[k].perms),
						     mask);
			if (ni < 0)
				r = (int)ni;
			else
				r = bk_svm_piece_map_locked(c, s, (size_t)ni, mask);
			at = pe;
		}
		if (!r && at < gap_end)
			r = -EFAULT; /* cannot happen: the range was checked */
	}
	return r;
}

/* The CPU unmapped what the shim did not see (brk, glibc's own munmap):
 * pieces whose pages no longer hold their blob are freed and their
 * ranges dropped, ranges without CPU pages lose them (kfdsim does the
 * same at each SVM ioctl; the kernel at the unmap). */
static int bk_svm_drop_unmapped_locked(struct bk_conn *c, struct bk_svm *s)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	struct proc_maps_vma *v;
	ssize_t nv;
	int r = 0;

	if (s->ranges.n) {
		lo = s->ranges.r[0].start;
		hi = s->ranges.r[s->ranges.n - 1].end;
	}
	if (s->np) {
		lo = s->p[0].start < lo ? s->p[0].start : lo;
		hi = s->p[s->np - 1].end > hi ? s->p[s->np - 1].end : hi;
	}
	if (lo >= hi)
		return 0;
	nv = bk_svm_vmas(lo, hi, &v);
	if (nv < 0)
		return (int)nv;
	for (size_t i = 0; i < s->np && !r;) {
		if (bk_svm_holds_blob(v, (size_t)nv, &s->p[i])) {
			i++;
			continue;
		}
		bk_log("svm piece %#" PRIx64 "-%#" PRIx64 " was unmapped unseen", s->p[i].start,
		       s->p[i].end);
		r = svm_ranges_remove(&s->ranges, s->p[i].start, s->p[i].end);
		bk_svm_piece_free_locked(c, s, i);
	}
	/* the gaps between CPU mappings leave the ranges */
	{
		uint64_t at = lo;

		for (ssize_t k = 0; k < nv && !r; k++) {
			if (v[k].start > at)
				r = svm_ranges_remove(&s->ranges, at, v[k].start);
			if (v[k].end > at)
				at = v[k].end;
		}
		if (!r && at < hi)
			r = svm_ranges_remove(&s->ranges, at, hi);
	}
	free(v);
	return r;
}

/* ------------------------------------------------------------------ */
/* The ioctl                                                           */
/* ------------------------------------------------------------------ */

/* svm_range_check_vm: a BO of the process at a GPU VA in [s, e) (the
 * guest does not know which BOs are mapped: every one counts). */
static int bk_svm_check_vm(struct bk_conn *c, uint64_t s, uint64_t e)
{
	int r = 0;

	bk_table_lock();
	for (struct bk_bo *b = c->bos; b && !r; b = b->next)
		if (!b->svm && b->va && s < b->va + b->size && b->va < e)
			r = -EADDRINUSE;
	bk_table_unlock();
	return r;
}

static int bk_svm_set_locked(struct bk_conn *c, struct bk_svm *s, uint64_t s0, uint64_t e0,
			     const struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	struct svm_gpus g = bk_svm_gpus(s);
	struct proc_maps_vma *v;
	size_t first, last;
	ssize_t nv;
	int r;

	r = svm_ranges_check_attrs(&g, at, n);
	if (r)
		return r;
	nv = bk_svm_vmas(s0, e0, &v);
	if (nv < 0)
		return (int)nv;
	r = proc_maps_covered(v, (size_t)nv, s0, e0) ? bk_svm_check_vm(c, s0, e0) : -EFAULT;
	if (!r)
		r = svm_ranges_set(&s->ranges, s0, e0, at, n, &g, &first, &last);
	if (r || !svm_ranges_update_mapping(at, n))
		goto out;
	/* XNACK off: every GPU with access maps the range now; a GPU that
	 * lost access keeps its mapping, as the kernel leaves it */
	for (size_t i = first; i < last && !r; i++) {
		const struct svm_range rg = s->ranges.r[i];
		uint32_t want = rg.access | rg.aip;

		if (!want)
			continue;
		bk_table_lock();
		for (unsigned int gi = 0; gi < s->n_gpus; gi++)
			if (((want >> gi) & 1u) && c->acquired[gi] < 0)
				r = -EINVAL; /* svm_range_map_to_gpus: no VM bound */
		bk_table_unlock();
		if (!r)
			r = bk_svm_back_locked(c, s, rg.start, rg.end, want, v, (size_t)nv);
	}
out:
	free(v);
	return r;
}

static int bk_svm_get_locked(struct bk_conn *c, struct bk_svm *s, uint64_t s0, uint64_t e0,
			     struct kfd_ioctl_svm_attribute *at, uint32_t n)
{
	struct svm_gpus g = bk_svm_gpus(s);
	struct proc_maps_vma *v;
	ssize_t nv;
	bool ok;
	int r;

	nv = bk_svm_vmas(s0, e0, &v);
	if (nv < 0)
		return (int)nv;
	ok = proc_maps_covered(v, (size_t)nv, s0, e0);
	free(v);
	r = ok ? bk_svm_check_vm(c, s0, e0) : -EFAULT;
	if (!r)
		r = svm_ranges_get(&s->ranges, s0, e0, at, n, &g,
				   s->kfd_minor >= (int)BK_SVM_CLR_MINOR);
	return r;
}

/* kfd_ioctl_svm. The attributes follow the 24-byte header; libhsakmt
 * puts their size in the ioctl's size, which is what the kernel copies in
 * and out (also on failure). */
int bk_svm_ioctl(struct bk_conn *c, uint64_t uarg, uint32_t usize)
{
	struct kfd_ioctl_svm_args *a;
	struct bk_svm *s;
	uint64_t s0, e0;
	int r, w;

	if (usize < BK_SVM_HDR || usize > BK_SVM_MAX_IOCSIZE)
		return -EINVAL;
	a = calloc(1, usize);
	if (!a)
		return -ENOMEM;
	r = bk_read_user(a, uarg, usize);
	if (r) {
		free(a);
		return r;
	}
	bk_mem_lock_take();
	s = bk_svm_state_locked(c);
	r = s ? bk_svm_minor_locked(c, s) : -ENOMEM;
	if (r >= 0)
		r = (uint32_t)r < BK_SVM_MINOR ? -ENOTTY : 0;
	if (r)
		goto out;
	if ((usize - BK_SVM_HDR) / sizeof(a->attrs[0]) < a->nattr) {
		r = -EINVAL;
		goto out;
	}
	s0 = a->start_addr;
	e0 = s0 + a->size;
	if ((s0 | a->size) & (uint64_t)(sysconf(_SC_PAGESIZE) - 1) || !s0 || !a->size) {
		r = -EINVAL;
		goto out;
	}
	/* no CPU mapping reaches past the user address space */
	if (e0 < s0 || e0 > BK_SVM_TASK_SIZE) {
		r = a->op <= KFD_IOCTL_SVM_OP_GET_ATTR ? -EFAULT : -EINVAL;
		goto out;
	}
	r = bk_svm_drop_unmapped_locked(c, s);
	if (r)
		goto out;
	if (a->op == KFD_IOCTL_SVM_OP_SET_ATTR)
		r = bk_svm_set_locked(c, s, s0, e0, a->attrs, a->nattr);
	else if (a->op == KFD_IOCTL_SVM_OP_GET_ATTR)
		r = bk_svm_get_locked(c, s, s0, e0, a->attrs, a->nattr);
	else
		r = -EINVAL;
out:
	bk_mem_lock_release();
	bk_log("svm op %u %#" PRIx64 " size %#" PRIx64 " nattr %u: %d", a->op,
	       (uint64_t)a->start_addr, (uint64_t)a->size, a->nattr, r);
	w = bk_write_user(uarg, a, usize);
	free(a);
	return r ? r : w;
}

/* ------------------------------------------------------------------ */
/* CPU unmaps                                                          */
/* ------------------------------------------------------------------ */

/* [s, e) is being unmapped or replaced in c's process: it leaves the
 * ranges; pieces inside it are freed; the part of a piece outside it
 * becomes a piece of its own (its contents copied from the old blob,
 * still mapped there), mapped on the same GPUs, before the old piece is
 * freed. With bk_mem_lock. */
static void bk_svm_unmap_locked(struct bk_conn *c, struct bk_svm *s, uint64_t us, uint64_t ue)
{
	size_t i;

	if (svm_ranges_remove(&s->ranges, us, ue))
		bk_log("svm: no memory to trim ranges at %#" PRIx64, us);
	while ((i = bk_svm_piece_lb(s, us)) < s->np && s->p[i].start < ue) {
		struct bk_svm_piece old = s->p[i];
		const uint64_t keep[2][2] = {{old.start, us}, {ue, old.end}};
		uint64_t made[8][2];
		struct proc_maps_vma *v = NULL;
		struct bk_bo *ob;
		ssize_t nv = 0;
		size_t nmade = 0;

		if (old.start < us || ue < old.end)
			nv = bk_svm_vmas(old.start, old.end, &v);
		/* the host frees the old BO and its VA first (it refuses a BO
		 * over another's VA); the pages kept still hold its memory,
		 * which the new pieces copy before it goes */
		ob = bk_svm_piece_unlink_locked(c, s, i);
		for (int k = 0; k < 2 && nv > 0; k++) {
			for (ssize_t m = 0; m < nv && keep[k][0] < keep[k][1]; m++) {
				uint64_t ps = v[m].start > keep[k][0] ? v[m].start : keep[k][0];
				uint64_t pe = v[m].end < keep[k][1] ? v[m].end : keep[k][1];

				if (ps >= pe)
					continue;
				if (nmade == sizeof(made) / sizeof(made[0]) ||
				    bk_svm_piece_new_locked(c, s, ps, pe - ps,
							    proc_maps_prot(v[m].perms),
							    old.mapped) < 0) {
					bk_log("svm: cannot keep %#" PRIx64 "-%#" PRIx64
					       " after a partial unmap",
					       ps, pe);
					continue;
				}
				made[nmade][0] = ps;
				made[nmade++][1] = pe;
			}
		}
		free(v);
		bk_svm_piece_drop_locked(c, ob);
		for (size_t k = 0; k < nmade; k++) {
			size_t ni = bk_svm_piece_lb(s, made[k][0]);

			if (ni < s->np && s->p[ni].start == made[k][0] &&
			    bk_svm_piece_map_locked(c, s, ni, old.mapped))
				bk_log("svm: cannot map %#" PRIx64 " again", made[k][0]);
		}
	}
}

void bk_svm_munmap_notify(void *addr, size_t len)
{
	uint64_t s = (uintptr_t)addr, e = s + len;

	/* USERPTR first: it lets go of the pieces' CPU ranges there */
	bk_munmap_notify(addr, len);
	if (atomic_load(&bk_svm_states) == 0)
		return;
	if (e < s)
		e = UINT64_MAX;
	bk_mem_lock_take();
	for (unsigned int f = 0; f <= BK_MAX_FILES; f++) {
		struct bk_conn *c;

		bk_table_lock();
		if (f == BK_MAX_FILES)
			c = bk.kept;
		else
			c = bk.files[f].kind == BK_KFD ? bk.files[f].conn : NULL;
		/* one connection may sit behind several files: once */
		for (unsigned int k = 0; c && k < f && k < BK_MAX_FILES; k++)
			if (bk.files[k].kind == BK_KFD && bk.files[k].conn == c)
				c = NULL;
		bk_table_unlock();
		/* connections are freed under bk_mem_lock: c stays */
		if (c && !c->dead && c->svm && c->pid == bk_self_pid())
			bk_svm_unmap_locked(c, c->svm, s, e);
	}
	bk_mem_lock_release();
}
