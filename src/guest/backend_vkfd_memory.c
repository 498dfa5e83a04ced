// SPDX-License-Identifier: MIT
/*
 * vkfd backend: memory. ALLOC/FREE/MAP/UNMAP_MEMORY, the blob behind a BO
 * (bound and created on first CPU mapping) and mmap of BOs, doorbells and
 * MMIO on the KFD and render fds. USERPTR ranges: backend_vkfd_userptr.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

/* A new blob id bound to b (BIND_BLOB, sent without a reply) and the blob
 * created with `flags`: the host refuses a bad bind by failing the
 * create. Called with bk_mem_lock held. */
int bk_bind_new_blob_locked(struct bk_conn *c, const struct bk_bo *b, uint32_t flags,
			    struct vkfd_guest_blob *out)
{
	struct vkfd_req_bind_blob req;
	uint64_t id, t0 = bk_prof_begin();
	int r;

	BK_ASSERT_MEM_LOCKED();
	id = vkfd_guest_blob_id_alloc(c->g);
	memset(&req, 0, sizeof(req));
	req.handle = b->handle;
	req.blob_id = id;
	r = bk_call_async(c, VKFD_CMD_BIND_BLOB, &req, sizeof(req));
	if (r)
		return r;
	bk_stats_count(&bk_stats.blobs);
	r = vkfd_guest_blob_create(c->g, id, b->blob_size, flags, out);
	bk_prof_op(BK_PROF_BLOB_CREATE, t0);
	return r;
}

/* Called with bk_mem_lock held. */
int bk_bo_blob_locked(struct bk_conn *c, struct bk_bo *b)
{
	int r;

	BK_ASSERT_MEM_LOCKED();
	if (b->has_blob)
		return 0;
	if (b->map_flags & (VKFD_ALLOC_MAP_NONE | VKFD_ALLOC_MAP_ARENA))
		return -EINVAL; /* an arena BO is a slice of its arena's blob */
	r = bk_bind_new_blob_locked(c, b, VKFD_GUEST_BLOB_MAPPABLE, &b->blob);
	if (r) {
		bk_log("blob create for bo %#" PRIx64 ": %d", b->handle, r);
		return r < 0 ? r : -EIO;
	}
	b->has_blob = true;
	__atomic_fetch_add(&c->n_blobs, 1, __ATOMIC_RELAXED);
	return 0;
}

int bk_send_free(struct bk_conn *c, uint64_t handle)
{
	struct vkfd_req_handle req;
	int r;

	memset(&req, 0, sizeof(req));
	req.handle = handle;
	r = bk_call_async(c, VKFD_CMD_FREE_MEMORY, &req, sizeof(req));
	/* queued after the FREE, a reuse of the index is in stream order */
	if (!r)
		bk_handle_release(c, handle);
	return r;
}

/* arena 0: an ordinary BO (1.0's 40-byte request unless 1.1 fields are set) */
/* The GTT allocations ALLOC_MEMORY_ASYNC may carry (docs/protocol.md
 * 14.2); USERPTR conversions are GTT allocations with these flags too. */
#define BK_ASYNC_ALLOC_FLAGS                                                                       \
	(KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE |                                   \
	 KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC |                     \
	 KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE | KFD_IOC_ALLOC_MEM_FLAGS_COHERENT |                \
	 KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT)

/* Would the host refuse this allocation? Alignment and overlap with the
 * guest's own BOs; under the strict rule (VKFD_FEAT_STRICT_ALLOC,
 * docs/protocol.md 14.6) also the GPU's VM and aperture, everything else
 * the host checks for an arena BO (flags, handle, arena range) being the
 * caller's. Without the rule the host checks the rest and a failure
 * becomes the handle's deferred error. */
static bool bk_alloc_checkable(struct bk_conn *c, uint64_t va, uint64_t size, uint32_t gpu_id)
{
	long pg = sysconf(_SC_PAGESIZE);
	bool ok;
	int gi;

	if (!va || (va | size) & (uint64_t)(pg - 1) || va + size < va)
		return false;
	bk_table_lock();
	ok = true;
	if (c->features & VKFD_FEAT_STRICT_ALLOC) {
		gi = bk_gpu_index_locked(gpu_id);
		/* the host's aperture test: [va, va + size - 1] inside */
		ok = gi >= 0 && c->acquired[gi] >= 0 && c->have_ap[gi] && va >= c->gpuvm_base[gi] &&
		     va + size - 1 <= c->gpuvm_limit[gi];
	}
	for (struct bk_bo *b = c->bos; b && ok; b = b->next)
		if (b->va && va < b->va + b->size && b->va < va + size)
			ok = false;
	bk_table_unlock();
	return ok;
}

/* A range of an arena about to be handed out by an ALLOC_MEMORY_ASYNC reads
 * zero: the host does not zero it (docs/protocol.md 14.3), as the guest may
 * write it before the host runs the ALLOC. A blob that is a file here
 * (vtest's memfd) has the range punched, as the host would; otherwise it
 * is cleared through a mapping. */
static int bk_arena_zero(struct bk_conn *c, const struct bk_arena *a, uint64_t off, uint64_t size)
{
	void *p;

	if (a->blob.fd >= 0 && fallocate(a->blob.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					 (off_t)off, (off_t)size) == 0)
		return 0;
	p = vkfd_guest_blob_map(c->g, &a->blob, NULL, size, off, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED)
		return -errno;
	memset(p, 0, size);
	munmap(p, size);
	return 0;
}

/*
 * ALLOC_MEMORY, or ALLOC_MEMORY_ASYNC when the host granted protocol 1.1's
 * allocation and the BO is a range of an arena (docs/protocol.md 14): then
 * the answer is made here, as the host would make it, and nothing waits.
 * Only an arena BO goes without a reply: its CPU mapping is a slice of the
 * arena's blob, so no BIND_BLOB ever names it, while a BIND_BLOB of a BO
 * the host has not created yet is refused (get_blob never waits on guest
 * work, docs/security.md). Everything else stays synchronous, so -ENOMEM
 * is exact when memory is tight (ROCr frees caches and retries). The
 * handle is chosen here when the host allows it.
 */
int bk_alloc_host(struct bk_conn *c, uint64_t va, uint64_t size, uint32_t gpu_id, uint32_t flags,
		  const struct bk_arena *arena, uint64_t arena_offset,
		  struct vkfd_rsp_alloc_memory *rsp, bool *sent_async)
{
	struct vkfd_req_alloc_memory req;
	bool gtt = flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT, async;
	size_t len = sizeof(req);
	int r;

	memset(&req, 0, sizeof(req));
	req.va = va;
	req.size = size;
	req.gpu_id = gpu_id;
	req.flags = flags;
	if (arena) {
		req.alloc_flags = VKFD_ALLOC_ARENA;
		req.arena_id = arena->id;
		req.arena_offset = arena_offset;
	}
	/* the strict rule checks the VA against the apertures: know them */
	if (arena && (c->features & VKFD_FEAT_STRICT_ALLOC))
		(void)bk_apertures_known(c);
	bk_alloc_lock(c);
	req.new_handle = bk_handle_take_locked(c);
	if (!arena && !req.new_handle)
		len = offsetof(struct vkfd_req_alloc_memory, new_handle);
	async = arena && req.new_handle && (c->features & VKFD_FEAT_ASYNC_ALLOC) &&
		!(flags & ~BK_ASYNC_ALLOC_FLAGS) && (flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT) &&
		bk_alloc_checkable(c, va, size, gpu_id) &&
		bk_arena_zero(c, arena, arena_offset, size) == 0;
	if (async) {
		r = bk_call_async(c, VKFD_CMD_ALLOC_MEMORY_ASYNC, &req, sizeof(req));
		if (!r) {
			/* a GTT request; its bytes were charged with the arena */
			bk_budget_count_locked(c, 0);
			bk_alloc_unlock(c);
			/* what the host answers for an arena BO */
			memset(rsp, 0, sizeof(*rsp));
			rsp->handle = req.new_handle;
			rsp->blob_size = size;
			rsp->map_info = VKFD_MAP_CACHED;
			rsp->map_flags = VKFD_ALLOC_MAP_ARENA;
			*sent_async = true;
			return 0;
		}
	} else {
		if (gtt)
			bk_budget_count_locked(c, arena ? 0 : size);
		r = bk_call(c, VKFD_CMD_ALLOC_MEMORY, &req, len, rsp, sizeof(*rsp));
		if (!r && req.new_handle && rsp->handle != req.new_handle)
			r = -EIO; /* the host must use the handle it was given */
	}
	if (r && req.new_handle)
		bk_handle_untake_locked(c, req.new_handle);
	bk_alloc_unlock(c);
	return r;
}

/* An arena BO: a range of an arena and ALLOC naming it. 1: no arena could
 * take it (the caller makes an ordinary BO), 0 or -errno of the ALLOC. */
static int bk_alloc_in_arena(struct bk_conn *c, uint64_t va, uint64_t size, uint32_t gpu_id,
			     uint32_t flags, struct bk_bo *b, struct vkfd_rsp_alloc_memory *rsp)
{
	struct bk_arena *a;
	uint64_t off;
	int r;

	bk_mem_lock_take();
	r = bk_arena_take_locked(c, size, &a, &off);
	if (r) {
		bk_mem_lock_release();
		bk_log("no arena for %#" PRIx64 " bytes (%d): a blob of its own", size, r);
		return 1;
	}
	r = bk_alloc_host(c, va, size, gpu_id, flags, a, off, rsp, &b->async_alloc);
	if (r)
		bk_arena_put_locked(a, off, size);
	else if (!(rsp->map_flags & VKFD_ALLOC_MAP_ARENA) || rsp->blob_size != size)
		r = -EPROTO; /* the host answered for another kind of BO */
	if (r == -EPROTO) {
		bk_send_free(c, rsp->handle);
		bk_arena_put_locked(a, off, size);
	}
	if (!r) {
		b->arena = a;
		b->arena_offset = off;
		bk_stats_count(&bk_stats.arena_bos);
	}
	bk_mem_lock_release();
	return r;
}

int bk_ioctl_alloc_memory_of_gpu(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args *a = arg;
	struct vkfd_rsp_alloc_memory rsp;
	struct bk_bo *b;
	uint32_t flags = a->flags;
	bool userptr = flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
	long pg = sysconf(_SC_PAGESIZE);
	int gi, r;

	(void)usize;
	if (a->size == 0)
		return -EINVAL;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpu_id);
	bk_table_unlock();
	if (gi < 0)
		return -EINVAL;
	if (userptr) {
		/* page granular (libhsakmt registers whole pages); the GPU VA
		 * may differ from the CPU address */
		if ((a->va_addr | a->mmap_offset | a->size) & (uint64_t)(pg - 1) ||
		    a->va_addr + a->size < a->va_addr || a->mmap_offset + a->size < a->mmap_offset)
			return -EINVAL;
		flags = (flags & ~KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) | KFD_IOC_ALLOC_MEM_FLAGS_GTT;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	r = 1;
	if (bk_arena_wanted(c, flags, a->va_addr, a->size, userptr))
		r = bk_alloc_in_arena(c, a->va_addr, a->size, a->gpu_id, flags, b, &rsp);
	if (r == 1)
		r = bk_alloc_host(c, a->va_addr, a->size, a->gpu_id, flags, NULL, 0, &rsp,
				  &b->async_alloc);
	if (r) {
		free(b);
		return r;
	}
	b->handle = rsp.handle;
	b->va = a->va_addr;
	b->size = a->size;
	b->blob_size = rsp.blob_size;
	b->gpu_id = a->gpu_id;
	b->kfd_flags = a->flags;
	b->map_info = rsp.map_info;
	b->map_flags = rsp.map_flags;
	b->userptr = userptr;
	b->cpu_va = userptr ? a->mmap_offset : 0;

	bk_log("alloc va %#" PRIx64 " size %#" PRIx64 " flags %#x -> %#" PRIx64 " blob %#" PRIx64
	       " map_flags %#x",
	       (uint64_t)a->va_addr, (uint64_t)a->size, a->flags, rsp.handle, rsp.blob_size,
	       rsp.map_flags);
	bk_mem_lock_take();
	if (userptr) {
		bool share = false;

		r = bk_userptr_len(b) ? 0 : -EIO;
		if (!r) {
			bk_table_lock();
			r = bk_userptr_overlap_locked(b->cpu_va, b->cpu_va + b->uptr_len);
			/* pages another registration converted: a BO over them
			 * instead of this one (backend_vkfd_userptr.c) */
			share = r == -EBUSY && bk_userptr_shareable_locked(c, b);
			bk_table_unlock();
		}
		if (!r)
			r = bk_userptr_convert_locked(c, b);
		if (r || share) {
			if (b->has_blob)
				vkfd_guest_blob_destroy(c->g, &b->blob);
			bk_send_free(c, b->handle);
			if (b->arena)
				bk_arena_put_locked(b->arena, b->arena_offset, b->size);
			b->has_blob = false;
			b->arena = NULL;
			if (share)
				r = bk_userptr_share_locked(c, b, flags);
		}
		if (r) {
			bk_mem_lock_release();
			free(b);
			return r;
		}
	}
	bk_table_lock();
	if (!(flags & (KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)) &&
	    !userptr)
		b->cookie = bk.next_cookie++ << BK_COOKIE_SHIFT;
	b->next = c->bos;
	c->bos = b;
	bk_table_unlock();
	bk_mem_lock_release();

	a->handle = b->handle;
	if (flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)
		a->mmap_offset = VKFD_KFD_MMAP_TYPE_MMIO |
				 ((uint64_t)(a->gpu_id & 0xffff) << VKFD_KFD_MMAP_GPU_ID_SHIFT);
	else if (flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL)
		a->mmap_offset = VKFD_KFD_MMAP_TYPE_DOORBELL |
				 ((uint64_t)(a->gpu_id & 0xffff) << VKFD_KFD_MMAP_GPU_ID_SHIFT);
	else if (!userptr)
		a->mmap_offset = b->cookie;
	return 0;
}

int bk_ioctl_free_memory_of_gpu(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_free_memory_of_gpu_args *a = arg;
	struct bk_bo *b, **pp;
	bool kept;
	int r;

	(void)usize;
	bk_mem_lock_take();
	bk_table_lock();
	/* an SVM piece is no handle the application was given */
	for (pp = &c->bos; (b = *pp); pp = &b->next)
		if (b->handle == a->handle && !b->svm)
			break;
	if (!b) {
		r = -EINVAL;
	} else if (b->event_page) {
		r = -EPERM; /* the kernel refuses to free the signal page */
	} else {
		*pp = b->next;
		r = 0;
	}
	bk_table_unlock();
	if (r) {
		bk_mem_lock_release();
		return r;
	}
	/* a USERPTR range is given back (now or deferred: backend_vkfd_userptr.c) */
	kept = b->userptr && bk_userptr_release_locked(c, b);
	if (b->has_blob && !kept) {
		uint64_t t0 = bk_prof_begin();

		vkfd_guest_blob_destroy(c->g, &b->blob);
		bk_prof_op(BK_PROF_BLOB_DESTROY, t0);
	}
	bk_ipc_bo_release(c, b);
	r = bk_send_free(c, b->handle);
	/* the host frees it before any later ALLOC in the stream: the range
	 * may be handed out again at once (a deferred USERPTR slice: when its
	 * range is replaced or restored) */
	if (b->arena && !kept)
		bk_arena_put_locked(b->arena, b->arena_offset, b->size);
	bk_mem_lock_release();
	if (!kept)
		free(b);
	return r;
}

/* MAP and UNMAP take the same argument layout. */
_Static_assert(sizeof(struct kfd_ioctl_unmap_memory_from_gpu_args) ==
		   sizeof(struct kfd_ioctl_map_memory_to_gpu_args),
	       "map/unmap args");
_Static_assert(offsetof(struct kfd_ioctl_unmap_memory_from_gpu_args, n_success) ==
		   offsetof(struct kfd_ioctl_map_memory_to_gpu_args, n_success),
	       "map/unmap args");

/*
 * May this MAP go without a reply (MAP_MEMORY_ASYNC, docs/protocol.md
 * 14.5)? Only where the kernel's synchronous MAP gives nothing that stream
 * order and the relay's map barrier do not: the host runs every later
 * request after the map, and the relay rings no doorbell stored after it
 * until the map has run. That covers GPU work started through a doorbell
 * and every later ioctl (CREATE_QUEUE's checks of its ring, EOP and
 * context-save areas, SET_SCRATCH_BACKING_VA, CREATE_EVENT's event page).
 * It does not cover what the GPU reaches without a doorbell or a later
 * ioctl, nor a caller that needs the kernel's errno, so these stay
 * synchronous:
 * - scratch: libhsakmt allocates scratch backing as VRAM that is neither
 *   EXECUTABLE nor PUBLIC (every other libhsakmt VRAM allocation is
 *   EXECUTABLE), and a queue waiting for scratch resumes without a new
 *   doorbell;
 * - registered application memory (USERPTR) and imported BOs (IPC,
 *   interop): their errors (an evicted or revoked source) are not the
 *   guest's to predict;
 * - DOORBELL, MMIO_REMAP and AQL_QUEUE_MEM BOs, and the event page: the
 *   queue and event machinery itself;
 * - a BO without a GPU VA, or a GPU id the guest does not know (the
 *   kernel's n_success then matters);
 * - a BO allocated with ALLOC_MEMORY_ASYNC, unless the host granted the
 *   strict rule (VKFD_FEAT_STRICT_ALLOC): otherwise its MAP is the
 *   synchronous use that reports a deferred ALLOC error. Under the rule
 *   such a BO is an arena BO that passed every check the host makes, also
 *   when it is a USERPTR conversion: the host's BO is then a range of the
 *   arena, not the application's pages, so nothing about it is beyond the
 *   guest's prediction; a failure loses the context.
 * bk_table_lock held.
 */
static bool bk_map_async_ok_locked(const struct bk_conn *c, const struct bk_bo *b)
{
	const uint32_t kind = KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |
			      KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
			      KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;

	const bool strict = b->async_alloc && (c->features & VKFD_FEAT_STRICT_ALLOC);

	if (!(c->features & VKFD_FEAT_ASYNC_MAP) || !b->va)
		return false;
	/* a USERPTR conversion that is an arena BO under the strict rule */
	if ((b->userptr && !(strict && b->arena)) || b->imported || b->event_page)
		return false;
	if (b->kfd_flags & kind & ~(strict ? KFD_IOC_ALLOC_MEM_FLAGS_USERPTR : 0u))
		return false;
	/* the MAP is where an asynchronous ALLOC's deferred error is answered
	 * (docs/protocol.md 14.2) */
	if (b->async_alloc && !strict)
		return false;
	if ((b->kfd_flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) &&
	    !(b->kfd_flags & (KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC)))
		return false; /* scratch backing */
	return true;
}

/*
 * MAP and UNMAP. async_cmd, when not 0, is the command that carries the
 * request without a reply; it is used when the guest can check everything
 * the kernel would refuse (the handle and every GPU id are known), else
 * the synchronous command gives the kernel's errno and n_success.
 *
 * UNMAP without a reply (docs/design-protocol-1.1.md, section 4): the
 * kernel's unmap fails only for an unknown handle or GPU id, which are
 * checked here, and nothing the application does afterwards depends on
 * the unmap having run except later commands on the same BO or range,
 * which the host executes after it in stream order. So the guest answers
 * at once, as the kernel would, and a host-side failure (a BO freed by
 * another thread in between) is only logged by the host, as for FREE.
 */
static int bk_map_common(struct bk_conn *c, void *arg, uint32_t cmd, uint32_t async_cmd)
{
	struct kfd_ioctl_map_memory_to_gpu_args *a = arg;
	struct vkfd_req_map_memory req;
	struct vkfd_rsp_map_memory rsp;
	const struct bk_bo *b;
	bool known, queues = false;
	int r;

	if (a->n_devices == 0 || a->n_success > a->n_devices || a->n_devices > VKFD_MAX_MAP_DEVICES)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	r = bk_read_user(req.device_ids, a->device_ids_array_ptr, a->n_devices * sizeof(uint32_t));
	if (r)
		return r;
	bk_table_lock();
	b = bk_bo_find_locked(c, a->handle);
	known = b != NULL;
	/* application memory being unregistered (hsa_amd_memory_unlock) stays
	 * in use after this call, so as with the kernel no GPU work started
	 * afterwards may still reach it: a queued unmap would let work the
	 * guest starts through a doorbell run before it (the relay does not
	 * wait for the stream), read the range and race its FREE */
	if (b && b->userptr && b->va != b->cpu_va)
		async_cmd = 0;
	if (cmd == VKFD_CMD_MAP_MEMORY)
		async_cmd = b && bk_map_async_ok_locked(c, b) ? VKFD_CMD_MAP_MEMORY_ASYNC : 0;
	/* the kernel stops at the first unknown GPU: only the synchronous
	 * command tells how far it got */
	for (uint32_t i = a->n_success; known && async_cmd && i < a->n_devices; i++)
		if (bk_gpu_index_locked(req.device_ids[i]) < 0)
			async_cmd = 0;
	queues = c->n_queues > 0;
	bk_table_unlock();
	if (!known)
		return -EINVAL;
	if (a->n_success == a->n_devices)
		return 0; /* nothing left: the kernel's loop does nothing */
	req.handle = a->handle;
	req.n_devices = a->n_devices;
	req.n_success = a->n_success;
	if (async_cmd == VKFD_CMD_MAP_MEMORY_ASYNC) {
		/* the barrier's seqno is stored before this returns, so before
		 * any doorbell the caller stores after the ioctl */
		r = bk_call_async_barrier(c, async_cmd, &req,
					  VKFD_REQ_MAP_MEMORY_LEN(a->n_devices));
		/* with a queue, GPU work may follow at once (ROCr maps a buffer
		 * and copies into it): the relay holds its doorbell until the
		 * host has run this MAP, so send it now rather than with the
		 * next synchronous call or the flusher's 1 ms. A submit without
		 * a reply; without queues the MAP rides with what follows */
		if (!r && queues) {
			int f = vkfd_guest_flush(c->g);

			if (f)
				r = bk_transport_err(f);
		}
		if (!r)
			a->n_success = a->n_devices;
		return r;
	}
	if (async_cmd) {
		r = bk_call_async(c, async_cmd, &req, VKFD_REQ_MAP_MEMORY_LEN(a->n_devices));
		if (!r)
			a->n_success = a->n_devices;
		return r;
	}
	r = bk_call(c, cmd, &req, VKFD_REQ_MAP_MEMORY_LEN(a->n_devices), &rsp, sizeof(rsp));
	/* partial progress is written back even on failure, as the kernel
	 * does, so that a retry resumes there */
	if (rsp.n_success >= a->n_success && rsp.n_success <= a->n_devices)
		a->n_success = rsp.n_success;
	return r;
}

int bk_ioctl_map_memory_to_gpu(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)usize;
	return bk_map_common(c, arg, VKFD_CMD_MAP_MEMORY, 0);
}

/*
 * UNMAP without a reply (docs/design-protocol-1.1.md, section 4): the
 * kernel's unmap fails only for an unknown handle or GPU id, which are
 * checked here, and nothing the application does afterwards depends on
 * the unmap having run except later commands on the same BO or range,
 * which the host executes after it in stream order. So the guest answers
 * at once, as the kernel would, and a host-side failure (a BO freed by
 * another thread in between) is only logged by the host, as for FREE.
 * Not for registered application memory, nor where the kernel's errno
 * must be exact (an unknown GPU): bk_map_common.
 */
int bk_ioctl_unmap_memory_from_gpu(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)usize;
	return bk_map_common(c, arg, VKFD_CMD_UNMAP_MEMORY, VKFD_CMD_UNMAP_MEMORY_ASYNC);
}

static void *bk_map_blob_at_locked(struct bk_conn *c, struct bk_bo *b, void *addr, size_t len,
				   int prot, int flags)
{
	int r;

	BK_ASSERT_MEM_LOCKED();
	if (len > b->blob_size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (b->arena) /* its slice of the arena's blob */
		return vkfd_guest_blob_map(c->g, &b->arena->blob, (flags & MAP_FIXED) ? addr : NULL,
					   len, b->arena_offset, prot);
	r = bk_bo_blob_locked(c, b);
	if (r) {
		errno = -r;
		return MAP_FAILED;
	}
	return vkfd_guest_blob_map(c->g, &b->blob, (flags & MAP_FIXED) ? addr : NULL, len, 0, prot);
}

void *bk_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct bk_conn *c = NULL;
	struct bk_bo *b = NULL;
	struct bk_file *f;
	uint64_t o = (uint64_t)off;
	void *ret;

	if (len == 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	bk_mem_lock_take();
	bk_table_lock();
	f = bk_file_get_locked(fd);
	if (!f || f->pid != bk_self_pid()) {
		bk_table_unlock();
		bk_mem_lock_release();
		errno = EBADF;
		return MAP_FAILED;
	}
	if (f->kind == BK_RENDER) {
		b = bk_bo_by_cookie_locked(o, &c);
		/* a GEM offset is only valid on the render file whose VM
		 * the BO's process acquired */
		if (b && (c != f->vm_owner || f->gpu < 0 || bk.gpus[f->gpu].gpu_id != b->gpu_id))
			b = NULL;
	} else if (f->conn && !f->conn->dead) {
		uint64_t type = o & VKFD_KFD_MMAP_TYPE_MASK;
		uint32_t gid =
		    (uint32_t)((o & VKFD_KFD_MMAP_GPU_ID_MASK) >> VKFD_KFD_MMAP_GPU_ID_SHIFT);
		uint32_t want =
		    type == VKFD_KFD_MMAP_TYPE_DOORBELL ? KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL
		    : type == VKFD_KFD_MMAP_TYPE_MMIO   ? KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP
							: 0;

		c = f->conn;
		if (want && !(o & ~(VKFD_KFD_MMAP_TYPE_MASK | VKFD_KFD_MMAP_GPU_ID_MASK))) {
			for (b = c->bos; b; b = b->next)
				if ((b->kfd_flags & want) && (b->gpu_id & 0xffff) == gid)
					break;
		}
	}
	bk_table_unlock();
	if (!b) {
		bk_mem_lock_release();
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (b->map_flags & VKFD_ALLOC_MAP_NONE || prot == PROT_NONE) {
		/* no CPU access: reserve the range like the kernel's
		 * PROT_NONE mapping, without making a blob */
		ret =
		    mmap(addr, len, PROT_NONE,
			 (flags & MAP_FIXED) | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	} else {
		ret = bk_map_blob_at_locked(c, b, addr, len, prot, flags);
	}
	bk_mem_lock_release();
	return ret;
}
