// SPDX-License-Identifier: MIT
/*
 * vkfd-bench protocol paths (direct, vtest): vkfd protocol commands through
 * the guest library, the way the guest backend issues them: synchronous
 * calls for what returns data, asynchronous requests for frees, unmaps and
 * event sets, fenced calls for waits, BIND_BLOB + blob creation + blob map
 * for CPU mappings.
 */
#include "bench_dev_priv.h"
#include "bench_server.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kfd_ioctl.h>

#include "vkfd/guest.h"
#include "vkfd_protocol.h"

static int pcall(struct bench_dev *d, uint32_t cmd, void *req, uint32_t len, void *rsp,
		 uint32_t rsp_len)
{
	struct vkfd_req_hdr *h = req;
	int r;

	h->cmd = cmd;
	h->len = len;
	__atomic_fetch_add(&d->counts.commands, 1, __ATOMIC_RELAXED);
	r = vkfd_guest_call(d->g, req, len, rsp, rsp_len);
	if (r)
		return r;
	return ((struct vkfd_rsp_hdr *)rsp)->ret;
}

static int pasync(struct bench_dev *d, uint32_t cmd, void *req, uint32_t len)
{
	struct vkfd_req_hdr *h = req;

	h->cmd = cmd;
	h->len = len;
	__atomic_fetch_add(&d->counts.commands, 1, __ATOMIC_RELAXED);
	return vkfd_guest_call_async(d->g, req, len);
}

static int p_open(struct bench_dev *d, char *why, size_t why_len)
{
	struct vkfd_req_get_process_apertures ra;
	struct vkfd_rsp_get_process_apertures pa;
	struct vkfd_req_gpu rg;
	struct vkfd_rsp_empty re;
	const char *sock = NULL;
	int r;

	if (d->path == BENCH_VTEST) {
		sock = bench_server_socket(why, why_len);
		if (!sock)
			return -ENOENT;
		d->g = vkfd_guest_connect(VKFD_TRANSPORT_VTEST, sock);
	} else if (d->path == BENCH_VIRTGPU) {
		/* the host is the VMM's: no server of ours, no host statistics */
		d->g = vkfd_guest_connect(VKFD_TRANSPORT_VIRTGPU, NULL);
	} else {
		/* the in-process host's threads inherit the second CPU */
		bench_pin(1);
		d->g = vkfd_guest_connect(VKFD_TRANSPORT_DIRECT, NULL);
		bench_pin(0);
	}
	if (!d->g) {
		r = -errno;
		snprintf(why, why_len, "vkfd_guest_connect(%s): %s", bench_path_name(d->path),
			 strerror(errno));
		return r ? r : -EIO;
	}
	memset(&ra, 0, sizeof(ra));
	memset(&pa, 0, sizeof(pa));
	ra.max_nodes = 1;
	r = pcall(d, VKFD_CMD_GET_PROCESS_APERTURES, &ra, sizeof(ra), &pa, sizeof(pa));
	if (r || pa.num_nodes == 0) {
		snprintf(why, why_len, "GET_PROCESS_APERTURES: %s", r ? strerror(-r) : "no GPU");
		r = r ? r : -ENODEV;
		goto fail;
	}
	d->gpu_id = pa.apertures[0].gpu_id;
	memset(&rg, 0, sizeof(rg));
	rg.gpu_id = d->gpu_id;
	r = pcall(d, VKFD_CMD_ACQUIRE_VM, &rg, sizeof(rg), &re, sizeof(re));
	if (r) {
		snprintf(why, why_len, "ACQUIRE_VM: %s", strerror(-r));
		goto fail;
	}
	return 0;
fail:
	vkfd_guest_disconnect(d->g);
	d->g = NULL;
	return r;
}

static void blob_drop(struct bench_dev *d, struct bench_bo *bo)
{
	uint64_t t0;

	if (!bo->blob)
		return;
	t0 = bench_now_ns();
	vkfd_guest_blob_destroy(d->g, bo->blob);
	d->counts.last_blob_destroy_ns += bench_now_ns() - t0;
	free(bo->blob);
	bo->blob = NULL;
}

static void p_close(struct bench_dev *d)
{
	blob_drop(d, &d->event_page);
	blob_drop(d, &d->doorbell);
	vkfd_guest_disconnect(d->g);
	d->g = NULL;
}

static int p_alloc(struct bench_dev *d, enum bench_mem mem, uint64_t va, uint64_t size,
		   struct bench_bo *bo)
{
	struct vkfd_req_alloc_memory req;
	struct vkfd_rsp_alloc_memory rsp;
	int r;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.va = va;
	req.size = size;
	req.gpu_id = d->gpu_id;
	switch (mem) {
	case BENCH_MEM_VRAM:
		req.flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | BENCH_ALLOC_WRITABLE |
			    KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	case BENCH_MEM_GTT:
		req.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | BENCH_ALLOC_WRITABLE |
			    KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	case BENCH_MEM_EVENT_PAGE:
		req.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | BENCH_ALLOC_WRITABLE |
			    KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED |
			    KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	case BENCH_MEM_DOORBELL:
		req.flags = KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | BENCH_ALLOC_WRITABLE |
			    KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	}
	r = pcall(d, VKFD_CMD_ALLOC_MEMORY, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	bo->handle = rsp.handle;
	bo->blob_size = rsp.blob_size;
	bo->map_flags = rsp.map_flags;
	return 0;
}

static int p_map_common(struct bench_dev *d, struct bench_bo *bo, uint32_t cmd)
{
	struct vkfd_req_map_memory req;
	struct vkfd_rsp_map_memory rsp;
	uint32_t len = VKFD_REQ_MAP_MEMORY_LEN(1);

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.handle = bo->handle;
	req.n_devices = 1;
	req.device_ids[0] = d->gpu_id;
	if (cmd == VKFD_CMD_UNMAP_MEMORY_ASYNC)
		return pasync(d, cmd, &req, len);
	return pcall(d, cmd, &req, len, &rsp, sizeof(rsp));
}

static int p_map(struct bench_dev *d, struct bench_bo *bo)
{
	return p_map_common(d, bo, VKFD_CMD_MAP_MEMORY);
}

static int p_unmap(struct bench_dev *d, struct bench_bo *bo, bool async)
{
	return p_map_common(d, bo, async ? VKFD_CMD_UNMAP_MEMORY_ASYNC : VKFD_CMD_UNMAP_MEMORY);
}

static int p_cpu_map(struct bench_dev *d, struct bench_bo *bo)
{
	struct vkfd_guest_blob *b;
	struct vkfd_req_bind_blob req;
	uint64_t id, t0;
	void *p;
	int r;

	if (bo->map_flags & VKFD_ALLOC_MAP_NONE)
		return -EINVAL;
	if (bo->map_flags & VKFD_ALLOC_MAP_MIRRORED)
		return -EOPNOTSUPP; /* the benchmark allocates no AQL_QUEUE_MEM */
	if (!bo->blob) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		t0 = bench_now_ns();
		id = vkfd_guest_blob_id_alloc(d->g);
		memset(&req, 0, sizeof(req));
		req.handle = bo->handle;
		req.blob_id = id;
		r = pasync(d, VKFD_CMD_BIND_BLOB, &req, sizeof(req));
		if (!r)
			r = vkfd_guest_blob_create(d->g, id, bo->blob_size,
						   VKFD_GUEST_BLOB_MAPPABLE, b);
		if (r) {
			free(b);
			return r;
		}
		d->counts.blob_creates++;
		d->counts.last_blob_create_ns = bench_now_ns() - t0;
		bo->blob = b;
	}
	t0 = bench_now_ns();
	p = vkfd_guest_blob_map(d->g, bo->blob, (void *)(uintptr_t)bo->va, bo->blob_size, 0,
				PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED)
		return -errno;
	d->counts.last_blob_map_ns = bench_now_ns() - t0;
	return 0;
}

static int p_cpu_unmap(struct bench_dev *d, struct bench_bo *bo)
{
	int r = bench_dev_va_release(d, bo->va, bo->blob_size);

	blob_drop(d, bo);
	return r;
}

static int p_free(struct bench_dev *d, struct bench_bo *bo, bool async)
{
	struct vkfd_req_handle req;

	(void)async; /* FREE_MEMORY is asynchronous in the protocol */
	memset(&req, 0, sizeof(req));
	req.handle = bo->handle;
	blob_drop(d, bo);
	return pasync(d, VKFD_CMD_FREE_MEMORY, &req, sizeof(req));
}

static int p_event_create(struct bench_dev *d, uint64_t page, bool auto_reset, uint32_t *id)
{
	struct vkfd_req_create_event req;
	struct vkfd_rsp_create_event rsp;
	int r;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.event_page = page;
	req.event_type = KFD_IOC_EVENT_SIGNAL;
	req.auto_reset = auto_reset ? 1 : 0;
	r = pcall(d, VKFD_CMD_CREATE_EVENT, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		*id = rsp.event_id;
	return r;
}

static int p_event_cmd(struct bench_dev *d, uint32_t id, bool async, uint32_t sync_cmd,
		       uint32_t async_cmd)
{
	struct vkfd_req_event req;
	struct vkfd_rsp_empty rsp;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.event_id = id;
	if (async)
		return pasync(d, async_cmd, &req, sizeof(req));
	return pcall(d, sync_cmd, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int p_event_set(struct bench_dev *d, uint32_t id, bool async)
{
	return p_event_cmd(d, id, async, VKFD_CMD_SET_EVENT, VKFD_CMD_SET_EVENT_ASYNC);
}

static int p_event_reset(struct bench_dev *d, uint32_t id, bool async)
{
	return p_event_cmd(d, id, async, VKFD_CMD_RESET_EVENT, VKFD_CMD_RESET_EVENT_ASYNC);
}

static int p_event_wait(struct bench_dev *d, uint32_t id, uint32_t timeout_ms, uint32_t *result)
{
	struct vkfd_req_wait_events req;
	/* 4 KiB; only one event's worth of it is copied */
	struct vkfd_rsp_wait_events rsp;
	uint32_t len = VKFD_REQ_WAIT_EVENTS_LEN(1);
	struct vkfd_req_hdr *h = &req.hdr;
	int r;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.num_events = 1;
	req.timeout_ms = timeout_ms;
	req.events[0].event_id = id;
	h->cmd = VKFD_CMD_WAIT_EVENTS;
	h->len = len;
	__atomic_fetch_add(&d->counts.commands, 1, __ATOMIC_RELAXED);
	r = vkfd_guest_call_wait(d->g, &req, len, &rsp, VKFD_RSP_WAIT_EVENTS_LEN(1));
	if (r)
		return r;
	if (rsp.hdr.ret)
		return rsp.hdr.ret;
	*result = rsp.wait_result;
	return 0;
}

static int p_clock(struct bench_dev *d, uint64_t *gpu_clock)
{
	struct vkfd_req_gpu req;
	struct vkfd_rsp_get_clock_counters rsp;
	int r;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.gpu_id = d->gpu_id;
	r = pcall(d, VKFD_CMD_GET_CLOCK_COUNTERS, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		*gpu_clock = rsp.gpu_clock_counter;
	return r;
}

/* A synchronous call is processed after every request queued before it. */
static int p_sync(struct bench_dev *d)
{
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	return pcall(d, VKFD_CMD_GET_VERSION, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int p_flush(struct bench_dev *d)
{
	return vkfd_guest_flush(d->g);
}

static int p_hdp_flush(struct bench_dev *d)
{
	struct vkfd_req_gpu req;

	memset(&req, 0, sizeof(req));
	req.gpu_id = d->gpu_id;
	return pasync(d, VKFD_CMD_HDP_FLUSH, &req, sizeof(req));
}

static const volatile uint32_t *p_seqno_word(struct bench_dev *d)
{
	size_t size = 0;
	const volatile uint8_t *shm = vkfd_guest_shmem(d->g, &size);

	if (!shm || size < sizeof(struct vkfd_shmem_hdr))
		return NULL;
	return (const volatile uint32_t *)(shm + offsetof(struct vkfd_shmem_hdr, seqno));
}

static int p_queue_create(struct bench_dev *d, uint64_t ring_va, uint32_t ring_size,
			  uint64_t rptr_va, uint64_t wptr_va, struct bench_queue *q)
{
	struct vkfd_req_create_queue req;
	struct vkfd_rsp_create_queue rsp;
	int r;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.ring_base_address = ring_va;
	req.ring_size = ring_size;
	req.read_pointer_address = rptr_va;
	req.write_pointer_address = wptr_va;
	req.gpu_id = d->gpu_id;
	req.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	req.queue_percentage = 100;
	req.queue_priority = 7;
	r = pcall(d, VKFD_CMD_CREATE_QUEUE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	if ((uint64_t)rsp.doorbell_index * 8u + 8u > d->doorbell.blob_size)
		return -ERANGE;
	q->handle = rsp.queue;
	q->doorbell =
	    (volatile uint64_t *)(uintptr_t)(d->doorbell.va + (uint64_t)rsp.doorbell_index * 8u);
	return 0;
}

static int p_queue_destroy(struct bench_dev *d, struct bench_queue *q)
{
	struct vkfd_req_handle req;
	struct vkfd_rsp_empty rsp;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.handle = q->handle;
	return pcall(d, VKFD_CMD_DESTROY_QUEUE, &req, sizeof(req), &rsp, sizeof(rsp));
}

const struct bench_dev_ops bench_proto_ops = {
    .open = p_open,
    .close = p_close,
    .alloc = p_alloc,
    .map = p_map,
    .cpu_map = p_cpu_map,
    .cpu_unmap = p_cpu_unmap,
    .unmap = p_unmap,
    .free = p_free,
    .event_create = p_event_create,
    .event_set = p_event_set,
    .event_reset = p_event_reset,
    .event_wait = p_event_wait,
    .clock = p_clock,
    .sync = p_sync,
    .flush = p_flush,
    .hdp_flush = p_hdp_flush,
    .seqno_word = p_seqno_word,
    .queue_create = p_queue_create,
    .queue_destroy = p_queue_destroy,
};
