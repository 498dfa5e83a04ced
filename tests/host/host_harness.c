// SPDX-License-Identifier: MIT
#include "host_harness.h"
#include "doorbell_relay.h"
#include "host_internal.h"
#include "kfd_uapi_ext.h"

#include <dirent.h>
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_RETIRED 4096

static struct {
	pthread_mutex_t lock;
	uint32_t ctx[MAX_RETIRED], ring[MAX_RETIRED];
	uint64_t id[MAX_RETIRED];
	int n;
} retired = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void on_retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	(void)cookie;
	pthread_mutex_lock(&retired.lock);
	if (retired.n < MAX_RETIRED) {
		retired.ctx[retired.n] = ctx_id;
		retired.ring[retired.n] = ring;
		retired.id[retired.n] = fence_id;
		retired.n++;
	}
	pthread_mutex_unlock(&retired.lock);
}

int h_fence_count(uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	int n = 0;

	pthread_mutex_lock(&retired.lock);
	for (int i = 0; i < retired.n; i++)
		if (retired.ctx[i] == ctx_id && retired.ring[i] == ring &&
		    retired.id[i] == fence_id)
			n++;
	pthread_mutex_unlock(&retired.lock);
	return n;
}

bool h_fence_retired(uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	return h_fence_count(ctx_id, ring, fence_id) > 0;
}

bool h_real_device(void)
{
	const char *v = getenv("VKFD_TEST_DEVICE");

	return v && !strcmp(v, "real");
}

enum vkfd_host_device h_device(void)
{
	return h_real_device() ? VKFD_DEVICE_REAL : VKFD_DEVICE_SIM;
}

const char *h_device_env(void)
{
	return h_real_device() ? "real" : "sim";
}

int h_lib_init(uint32_t flags, const struct vkfd_host_quota *quota)
{
	struct vkfd_host_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.flags = flags;
	cfg.device = h_device();
	cfg.retire_fence = on_retire;
	if (quota)
		cfg.quota = *quota;
	return vkfd_host_init(&cfg);
}

void h_lib_fini(void)
{
	vkfd_host_fini();
}

uint32_t h_first_seqno = 1000;

int h_setup_lib(void **state)
{
	(void)state;
	return h_lib_init(0, NULL);
}

int h_teardown_lib(void **state)
{
	(void)state;
	h_lib_fini();
	return 0;
}

int h_setup_lib_ctx(void **state)
{
	static struct harness h;

	if (h_lib_init(0, NULL))
		return -1;
	if (h_open(&h, 1)) {
		h_lib_fini();
		return -1;
	}
	*state = &h;
	return 0;
}

int h_teardown_lib_ctx(void **state)
{
	h_close(*state);
	h_lib_fini();
	return 0;
}

int h_open_bare(struct harness *h, uint32_t ctx_id)
{
	memset(h, 0, sizeof(*h));
	h->shmem_fd = -1;
	h->ctx_id = ctx_id;
	h->seqno = h_first_seqno;
	h->next_fence = 1;
	h->next_blob = 100;
	h->batch = calloc(1, VKFD_MAX_BATCH_SIZE);
	if (!h->batch)
		return -ENOMEM;
	vkfd_builder_init(&h->b, h->batch, VKFD_MAX_BATCH_SIZE, h->seqno);
	return vkfd_host_context_create(ctx_id, "test", NULL, &h->ctx);
}

int h_open(struct harness *h, uint32_t ctx_id)
{
	struct vkfd_req_get_process_apertures ga;
	struct vkfd_rsp_get_process_apertures gr;
	struct vkfd_req_hello hello;
	struct vkfd_rsp_hello hr;
	struct vkfd_req_gpu acq;
	struct vkfd_blob blob;
	int ret;

	ret = h_open_bare(h, ctx_id);
	if (ret)
		return ret;
	ret = vkfd_host_context_get_blob(h->ctx, 0, 0, VKFD_SHMEM_SIZE, 1, &blob);
	if (ret)
		return ret;
	h->shmem_fd = blob.fd;
	h->shmem = mmap(NULL, VKFD_SHMEM_SIZE, PROT_READ, MAP_SHARED, blob.fd, 0);
	if (h->shmem == MAP_FAILED)
		return -errno;
	memset(&hello, 0, sizeof(hello));
	hello.version_min = 1;
	hello.version_max = 1;
	ret = h_call(h, VKFD_CMD_HELLO, &hello, sizeof(hello), &hr, sizeof(hr));
	if (ret)
		return ret;
	memset(&ga, 0, sizeof(ga));
	ga.max_nodes = VKFD_MAX_GPUS;
	ret = h_call(h, VKFD_CMD_GET_PROCESS_APERTURES, &ga, sizeof(ga), &gr, sizeof(gr));
	if (ret)
		return ret;
	if (gr.num_nodes < 1)
		return -ENODEV;
	h->ap = gr.apertures[0];
	h->gpu_id = gr.apertures[0].gpu_id;
	/* stay clear of the aperture's start; 1 GiB aligned */
	h->next_va = (h->ap.gpuvm_base + (1ull << 30)) & ~((1ull << 30) - 1);
	memset(&acq, 0, sizeof(acq));
	acq.gpu_id = h->gpu_id;
	return h_call(h, VKFD_CMD_ACQUIRE_VM, &acq, sizeof(acq), NULL, 0);
}

void h_close(struct harness *h)
{
	if (h->ctx)
		vkfd_host_context_destroy(h->ctx);
	if (h->shmem && h->shmem != MAP_FAILED)
		munmap(h->shmem, VKFD_SHMEM_SIZE);
	if (h->shmem_fd >= 0)
		close(h->shmem_fd);
	free(h->batch);
	memset(h, 0, sizeof(*h));
}

uint32_t h_add(struct harness *h, uint32_t cmd, void *req, uint32_t len, uint32_t *rsp_off)
{
	uint32_t need = vkfd_rsp_size(cmd, req, len), off, seq = 0;

	if (need < sizeof(struct vkfd_rsp_hdr))
		need = sizeof(struct vkfd_rsp_hdr);
	need = (need + 7) & ~7u;
	if (h->rsp_next + need > VKFD_RSP_AREA_SIZE)
		h->rsp_next = 0;
	off = h->rsp_next;
	h->rsp_next += need;
	h->add_failed = vkfd_builder_add(&h->b, cmd, req, len, off, &seq) != 0;
	if (h->add_failed)
		return 0;
	if (rsp_off)
		*rsp_off = off;
	return seq;
}

int h_flush(struct harness *h)
{
	int ret = vkfd_host_context_submit_cmd(h->ctx, h->batch, h->b.len);

	vkfd_builder_reset(&h->b);
	return ret;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

int h_wait_seqno(struct harness *h, uint32_t s)
{
	struct vkfd_shmem_hdr *hdr = h->shmem;

	for (int i = 0; i < 50000; i++) {
		if (vkfd_seqno_processed(vkfd_load_acquire_u32(&hdr->seqno), s, h->seqno - 1,
					 h->b.seqno - 1))
			return 0;
		if (vkfd_load_acquire_u32(&hdr->async_error))
			return -EIO;
		sleep_us(100);
	}
	return -ETIMEDOUT;
}

void *h_rsp(struct harness *h, uint32_t rsp_off)
{
	return vkfd_shmem_rsp(h->shmem, rsp_off);
}

int h_wait_slot(struct harness *h, uint32_t rsp_off, uint32_t s, int ms)
{
	struct vkfd_rsp_hdr *rh = h_rsp(h, rsp_off);

	for (int i = 0; i < ms * 10; i++) {
		if (vkfd_load_acquire_u32(&rh->seqno) == s)
			return 0;
		sleep_us(100);
	}
	return -ETIMEDOUT;
}

int h_call(struct harness *h, uint32_t cmd, void *req, uint32_t len, void *rsp, uint32_t rsp_len)
{
	struct vkfd_rsp_hdr *rh;
	uint32_t off, s;
	int ret;

	s = h_add(h, cmd, req, len, &off);
	if (h->add_failed)
		return -ENOSPC;
	ret = h_flush(h);
	if (ret)
		return ret;
	ret = h_wait_seqno(h, s);
	if (ret)
		return ret;
	rh = h_rsp(h, off);
	if (vkfd_load_acquire_u32(&rh->seqno) != s)
		return -EPROTO;
	if (rsp && rsp_len)
		memcpy(rsp, rh, rsp_len);
	return rh->ret;
}

int h_async(struct harness *h, uint32_t cmd, void *req, uint32_t len)
{
	uint32_t s = h_add(h, cmd, req, len, NULL);
	int ret;

	if (h->add_failed)
		return -ENOSPC;
	ret = h_flush(h);
	return ret ? ret : h_wait_seqno(h, s);
}

int h_alloc(struct harness *h, uint64_t va, uint64_t size, uint32_t flags, uint64_t *handle,
	    struct vkfd_rsp_alloc_memory *out)
{
	struct vkfd_req_alloc_memory r;
	struct vkfd_rsp_alloc_memory rsp;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&rsp, 0, sizeof(rsp));
	r.va = va;
	r.size = size;
	r.gpu_id = h->gpu_id;
	r.flags = flags;
	ret = h_call(h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp));
	if (handle)
		*handle = rsp.handle;
	if (out)
		*out = rsp;
	return ret;
}

static int map_unmap(struct harness *h, uint32_t cmd, uint64_t handle)
{
	struct vkfd_req_map_memory r;
	struct vkfd_rsp_map_memory rsp;

	memset(&r, 0, sizeof(r));
	r.handle = handle;
	r.n_devices = 1;
	r.device_ids[0] = h->gpu_id;
	return h_call(h, cmd, &r, VKFD_REQ_MAP_MEMORY_LEN(1), &rsp, sizeof(rsp));
}

int h_map(struct harness *h, uint64_t handle)
{
	return map_unmap(h, VKFD_CMD_MAP_MEMORY, handle);
}

int h_unmap(struct harness *h, uint64_t handle)
{
	return map_unmap(h, VKFD_CMD_UNMAP_MEMORY, handle);
}

void h_free(struct harness *h, uint64_t handle)
{
	struct vkfd_req_handle r;

	memset(&r, 0, sizeof(r));
	r.handle = handle;
	h_async(h, VKFD_CMD_FREE_MEMORY, &r, sizeof(r));
}

uint64_t h_va(struct harness *h, uint64_t size)
{
	uint64_t va = h->next_va;

	h->next_va += (size + 0x1fffff) & ~0x1fffffull; /* 2 MiB steps, as libhsakmt */
	return va;
}

uint64_t h_gtt(struct harness *h, uint64_t size, uint64_t *va_out)
{
	uint64_t va = h_va(h, size), handle = 0;

	if (h_alloc(h, va, size, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, &handle,
		    NULL) ||
	    h_map(h, handle))
		return 0;
	if (va_out)
		*va_out = va;
	return handle;
}

void h_bind(struct harness *h, uint64_t handle, uint64_t blob_id)
{
	struct vkfd_req_bind_blob r;

	memset(&r, 0, sizeof(r));
	r.handle = handle;
	r.blob_id = blob_id;
	h_add(h, VKFD_CMD_BIND_BLOB, &r, sizeof(r), NULL);
	h_flush(h);
}

int h_bo_make(struct harness *h, struct h_bo *b, uint64_t size, uint32_t flags)
{
	struct vkfd_rsp_alloc_memory ar;
	struct vkfd_blob blob;
	int r;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->size = size;
	b->va = h_va(h, size);
	r = h_alloc(h, b->va, size, flags, &b->handle, &ar);
	if (!r && !(flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL))
		r = h_map(h, b->handle);
	if (r)
		return r;
	h_bind(h, b->handle, h->next_blob);
	r = vkfd_host_context_get_blob(h->ctx, 1, h->next_blob, ar.blob_size, 1, &blob);
	h->next_blob++;
	if (r)
		return r;
	b->fd = blob.fd;
	b->blob_info = blob.info;
	b->cpu = mmap(NULL, blob.size, PROT_READ | PROT_WRITE, MAP_SHARED, blob.fd, 0);
	if (b->cpu == MAP_FAILED) {
		b->cpu = NULL;
		return -EIO;
	}
	return 0;
}

void h_bo_drop(struct h_bo *b)
{
	if (b->cpu)
		munmap(b->cpu, b->size);
	if (b->fd >= 0)
		close(b->fd);
}

int h_create_event(struct harness *h, uint64_t page, uint32_t type, uint32_t auto_reset,
		   uint32_t *id)
{
	struct vkfd_req_create_event r;
	struct vkfd_rsp_create_event rsp;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&rsp, 0, sizeof(rsp));
	r.event_page = page;
	r.event_type = type;
	r.auto_reset = auto_reset;
	ret = h_call(h, VKFD_CMD_CREATE_EVENT, &r, sizeof(r), &rsp, sizeof(rsp));
	if (id)
		*id = rsp.event_id;
	return ret;
}

int h_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own fd */
}

int h_hello(struct harness *h, uint64_t features, uint64_t *granted)
{
	struct vkfd_req_hello r;
	struct vkfd_rsp_hello rsp;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&rsp, 0, sizeof(rsp));
	r.version_min = 1;
	r.version_max = 1;
	r.features = features;
	ret = h_call(h, VKFD_CMD_HELLO, &r, sizeof(r), &rsp, sizeof(rsp));
	*granted = rsp.features;
	return ret;
}

int h_create_queue(struct harness *h, uint32_t type, uint64_t ring, uint64_t wptr, uint64_t rptr,
		   uint32_t priority, struct vkfd_rsp_create_queue *rsp)
{
	struct vkfd_req_create_queue r;

	memset(&r, 0, sizeof(r));
	memset(rsp, 0, sizeof(*rsp));
	r.ring_base_address = ring;
	r.ring_size = 4096;
	r.write_pointer_address = wptr;
	r.read_pointer_address = rptr;
	r.gpu_id = h->gpu_id;
	r.queue_type = type;
	r.queue_percentage = 100;
	r.queue_priority = priority;
	return h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), rsp, sizeof(*rsp));
}

uint32_t h_add_wait_event(struct harness *h, uint32_t ring, uint32_t event_id, uint32_t timeout_ms,
			  uint32_t *rsp_off)
{
	struct vkfd_req_wait_events w;

	memset(&w, 0, sizeof(w));
	w.ring_idx = ring;
	w.num_events = 1;
	w.timeout_ms = timeout_ms;
	w.events[0].event_id = event_id;
	return h_add(h, VKFD_CMD_WAIT_EVENTS, &w, VKFD_REQ_WAIT_EVENTS_LEN(1), rsp_off);
}

int h_destroy_queue(struct harness *h, uint64_t queue)
{
	struct vkfd_req_handle d;

	memset(&d, 0, sizeof(d));
	d.handle = queue;
	return h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0);
}

uint64_t h_wait_u64(const volatile uint64_t *p, uint64_t want, int ms)
{
	uint64_t v = __atomic_load_n(p, __ATOMIC_ACQUIRE);

	for (int i = 0; i < ms && v != want; i++) {
		sleep_us(1000);
		v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	}
	return v;
}

uint32_t h_wait_u32(const volatile uint32_t *p, uint32_t want, int ms)
{
	uint32_t v = __atomic_load_n(p, __ATOMIC_ACQUIRE);

	for (int i = 0; i < ms && v != want; i++) {
		sleep_us(1000);
		v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	}
	return v;
}

bool h_relay_settle(struct doorbell_relay *r, int ms)
{
	struct doorbell_relay_stats a, b;

	doorbell_relay_get_stats(r, &a);
	for (int i = 0; i < ms; i++) {
		sleep_us(1000);
		doorbell_relay_get_stats(r, &b);
		if (b.scans >= a.scans + 3)
			return true;
	}
	return false;
}

volatile uint64_t *h_real_doorbell(struct harness *h, uint32_t index)
{
	struct doorbell_relay_stats st;

	doorbell_relay_get_stats(h->ctx->relay, &st);
	return h->ctx->gpu[0].real_db ? h->ctx->gpu[0].real_db + index : NULL;
}
