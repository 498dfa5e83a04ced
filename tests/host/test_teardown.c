// SPDX-License-Identifier: MIT
/* Teardown at any moment releases every host resource (fds, threads, sim
 * memory); parked KFD calls never block submit_cmd or unrelated get_blob. */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"

#define GTT  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define VRAM (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE)

/* A context holding one of everything. */
static void populate(struct harness *h, int *blob_fd)
{
	struct vkfd_rsp_create_queue rsp;
	struct vkfd_blob blob;
	uint64_t ring, ctl, page, vram, db;
	uint32_t ev;

	assert_true(h_gtt(h, 4096, &ring) != 0);
	assert_true(h_gtt(h, 4096, &ctl) != 0);
	page = h_gtt(h, 4096 * 8, NULL);
	assert_int_equal(h_alloc(h, h_va(h, 8 << 20), 8 << 20, VRAM, &vram, NULL), 0);
	assert_int_equal(h_map(h, vram), 0);
	assert_int_equal(
	    h_alloc(h, h_va(h, 8192), 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, &db, NULL), 0);
	h_bind(h, vram, 1);
	assert_int_equal(vkfd_host_context_get_blob(h->ctx, 1, 1, 8 << 20, 1, &blob), 0);
	*blob_fd = blob.fd;
	assert_int_equal(
	    h_create_queue(h, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, ring, ctl, ctl + 8, 0, &rsp), 0);
	assert_int_equal(h_create_event(h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	h_add_wait_event(h, 1, ev, 0xffffffff, NULL);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h->ctx, 0, 1, 1), 0);
}

static void test_destroy_releases_everything(void **state)
{
	uint64_t base_bytes = kfdsim_bytes_allocated(host_g.sim);
	int base_fds = h_fd_count();
	struct harness h;
	int blob_fd;

	(void)state;
	for (int round = 0; round < 3; round++) {
		assert_int_equal(h_open(&h, 1), 0);
		populate(&h, &blob_fd);
		/* kfdsim's byte count is in-process only; fds count on both */
		if (!h_real_device())
			assert_true(kfdsim_bytes_allocated(host_g.sim) > base_bytes);
		assert_true(h_fd_count() > base_fds);
		close(blob_fd); /* the VMM's copy of the exported blob */
		h_close(&h);
		if (!h_real_device())
			assert_int_equal(kfdsim_bytes_allocated(host_g.sim), base_bytes);
		assert_int_equal(h_fd_count(), base_fds);
	}
}

static void test_destroy_with_queued_batches(void **state)
{
	uint64_t base_bytes = kfdsim_bytes_allocated(host_g.sim);
	int base_fds = h_fd_count();
	struct harness h;

	(void)state;
	assert_int_equal(h_open(&h, 2), 0);
	for (int i = 0; i < 200; i++) {
		struct vkfd_req_alloc_memory r;

		memset(&r, 0, sizeof(r));
		r.va = h_va(&h, 4096);
		r.size = 4096;
		r.gpu_id = h.gpu_id;
		r.flags = GTT;
		h_add(&h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), NULL);
		if (i % 20 == 19)
			assert_int_equal(h_flush(&h), 0);
	}
	h_close(&h); /* destroy while the executor is still busy */
	if (!h_real_device())
		assert_int_equal(kfdsim_bytes_allocated(host_g.sim), base_bytes);
	assert_int_equal(h_fd_count(), base_fds);
}

struct blob_call {
	struct vkfd_host_context *ctx;
	uint64_t blob_id, size;
	int ret;
	int fd;
	volatile int done;
};

static void *get_blob_thread(void *arg)
{
	struct blob_call *c = arg;
	struct vkfd_blob b;

	c->ret = vkfd_host_context_get_blob(c->ctx, 1, c->blob_id, c->size, 1, &b);
	c->fd = b.fd;
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void latch_case(unsigned nr)
{
	struct harness h;
	struct vkfd_req_get_version gv;
	struct blob_call call;
	pthread_t t;
	uint64_t early, victim, qh = 0;
	uint32_t s;
	int i;

	H_SIM_ONLY("needs kfdsim_latch_ioctl");
	assert_int_equal(h_open(&h, 3), 0);
	/* a BO bound to a blob in an earlier submit */
	assert_int_equal(h_alloc(&h, h_va(&h, 65536), 65536, GTT, &early, NULL), 0);
	h_bind(&h, early, 500);
	assert_int_equal(h_alloc(&h, h_va(&h, 4096), 4096, GTT, &victim, NULL), 0);
	if (nr == 0x03) {
		uint64_t ring = 0, ctl = 0;
		struct vkfd_rsp_create_queue rsp;

		assert_true(h_gtt(&h, 4096, &ring) && h_gtt(&h, 4096, &ctl));
		assert_int_equal(
		    h_create_queue(&h, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, ring, ctl, ctl + 8, 0, &rsp),
		    0);
		qh = rsp.queue;
	}
	kfdsim_latch_ioctl(host_g.sim, nr);
	/* the parked call */
	if (nr == 0x18) {
		struct vkfd_req_map_memory m;

		memset(&m, 0, sizeof(m));
		m.handle = victim;
		m.n_devices = 1;
		m.device_ids[0] = h.gpu_id;
		s = h_add(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL);
	} else {
		struct vkfd_req_handle f;

		memset(&f, 0, sizeof(f));
		f.handle = nr == 0x17 ? victim : qh;
		s = h_add(&h, nr == 0x17 ? VKFD_CMD_FREE_MEMORY : VKFD_CMD_DESTROY_QUEUE, &f,
			  sizeof(f), NULL);
	}
	assert_int_equal(h_flush(&h), 0);
	for (i = 0; i < 2000 && kfdsim_latch_parked(host_g.sim, nr) == 0; i++)
		usleep(1000);
	assert_int_equal(kfdsim_latch_parked(host_g.sim, nr), 1);
	/* the VMM thread is never blocked by it */
	memset(&gv, 0, sizeof(gv));
	h_add(&h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, 0, 77), 0);
	memset(&call, 0, sizeof(call));
	call.ctx = h.ctx;
	call.blob_id = 500;
	call.size = 65536;
	assert_int_equal(pthread_create(&t, NULL, get_blob_thread, &call), 0);
	for (i = 0; i < 5000 && !__atomic_load_n(&call.done, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_true(__atomic_load_n(&call.done, __ATOMIC_ACQUIRE)); /* returned while parked */
	assert_int_equal(call.ret, 0);
	close(call.fd);
	/* the parked command has not completed */
	assert_false(vkfd_seqno_passed(
	    vkfd_load_acquire_u32(&((struct vkfd_shmem_hdr *)h.shmem)->seqno), s));
	kfdsim_latch_release(host_g.sim, nr);
	pthread_join(t, NULL);
	assert_int_equal(h_wait_seqno(&h, s), 0);
	h_close(&h);
}

static void test_latched_map(void **state)
{
	(void)state;
	latch_case(0x18); /* MAP_MEMORY_TO_GPU */
}

static void test_latched_free(void **state)
{
	(void)state;
	latch_case(0x17); /* FREE_MEMORY_OF_GPU */
}

static void test_latched_destroy_queue(void **state)
{
	(void)state;
	latch_case(0x03); /* DESTROY_QUEUE */
}

/* get_blob never waits on the executor: with the executor parked in a KFD
 * call (a guest can keep it busy at will) the VMM thread still gets the
 * blob of a bind submitted behind it, and a bind of a handle the host does
 * not know yet leaves its id unbound. */
static void test_get_blob_does_not_wait_for_the_executor(void **state)
{
	struct vkfd_req_map_memory m;
	struct vkfd_blob b;
	struct harness h;
	uint64_t victim, later;

	(void)state;
	H_SIM_ONLY("needs kfdsim_latch_ioctl");
	assert_int_equal(h_open(&h, 5), 0);
	assert_int_equal(h_alloc(&h, h_va(&h, 4096), 4096, GTT, &victim, NULL), 0);
	assert_int_equal(h_alloc(&h, h_va(&h, 8192), 8192, GTT, &later, NULL), 0);
	kfdsim_latch_ioctl(host_g.sim, 0x18);
	memset(&m, 0, sizeof(m));
	m.handle = victim;
	m.n_devices = 1;
	m.device_ids[0] = h.gpu_id;
	h_add(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL);
	assert_int_equal(h_flush(&h), 0);
	for (int i = 0; i < 2000 && kfdsim_latch_parked(host_g.sim, 0x18) == 0; i++)
		usleep(1000);
	assert_int_equal(kfdsim_latch_parked(host_g.sim, 0x18), 1);
	h_bind(&h, later, 600);     /* queued behind the parked MAP */
	h_bind(&h, later + 1, 601); /* no such BO */
	/* answered on this thread while the executor is still parked */
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 600, 8192, 1, &b), 0);
	assert_int_equal(b.size, 8192);
	close(b.fd);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 601, 8192, 1, &b), -EINVAL);
	assert_int_equal(kfdsim_latch_parked(host_g.sim, 0x18), 1); /* still parked */
	kfdsim_latch_release(host_g.sim, 0x18);
	h_close(&h);
}

static void test_reset_destroys_contexts(void **state)
{
	struct harness a, b;
	uint64_t base = kfdsim_bytes_allocated(host_g.sim);
	int base_fds = h_fd_count();
	uint64_t handle;

	(void)state;
	assert_int_equal(h_open(&a, 6), 0);
	/* the real device has one KFD process per host process: no B there */
	memset(&b, 0, sizeof(b));
	b.shmem_fd = -1;
	if (!h_real_device())
		assert_int_equal(h_open(&b, 7), 0);
	assert_int_equal(h_alloc(&a, h_va(&a, 1 << 20), 1 << 20, GTT, &handle, NULL), 0);
	vkfd_host_reset();
	if (!h_real_device())
		assert_int_equal(kfdsim_bytes_allocated(host_g.sim), base);
	a.ctx = b.ctx = NULL; /* already destroyed by the reset */
	h_close(&a);
	h_close(&b);
	assert_int_equal(h_fd_count(), base_fds);
	/* the configuration stays: new contexts work */
	assert_int_equal(h_open(&a, 8), 0);
	h_close(&a);
}

static void test_queue_flood_is_bounded(void **state)
{
	struct vkfd_req_map_memory m;
	struct vkfd_builder b;
	struct harness h;
	uint8_t *batch;
	uint64_t victim;
	int i, ret = 0;

	(void)state;
	H_SIM_ONLY("needs kfdsim_latch_ioctl");
	batch = calloc(1, VKFD_MAX_BATCH_SIZE);
	assert_non_null(batch);
	assert_int_equal(h_open(&h, 4), 0);
	assert_int_equal(h_alloc(&h, h_va(&h, 4096), 4096, GTT, &victim, NULL), 0);
	/* park the executor, then keep submitting */
	kfdsim_latch_ioctl(host_g.sim, 0x18);
	memset(&m, 0, sizeof(m));
	m.handle = victim;
	m.n_devices = 1;
	m.device_ids[0] = h.gpu_id;
	h_add(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL);
	assert_int_equal(h_flush(&h), 0);
	vkfd_builder_init(&b, batch, VKFD_MAX_BATCH_SIZE, 1);
	for (;;) {
		struct vkfd_req_get_version gv;

		memset(&gv, 0, sizeof(gv));
		if (vkfd_builder_add(&b, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), 0, NULL))
			break;
	}
	for (i = 0; i < 1000; i++) {
		ret = vkfd_host_context_submit_cmd(h.ctx, batch, b.len);
		if (ret)
			break;
	}
	assert_int_equal(ret, -ENOMEM);
	assert_true(i <= 512);
	assert_int_equal(((struct vkfd_shmem_hdr *)h.shmem)->async_error, VKFD_ASYNC_ERR_NO_MEMORY);
	kfdsim_latch_release(host_g.sim, 0x18);
	h_close(&h);
	free(batch);
}

/* Millions of tiny batches: every queued byte the host spends is charged,
 * not only the payload, so the flood stops within the same budget. */
static void test_tiny_batch_flood_is_bounded(void **state)
{
	struct vkfd_req_map_memory m;
	struct vkfd_req_get_version gv;
	struct vkfd_builder b;
	uint8_t batch[64];
	struct harness h;
	uint64_t victim;
	size_t i, limit;
	int ret = 0;

	(void)state;
	H_SIM_ONLY("needs kfdsim_latch_ioctl");
	assert_int_equal(h_open(&h, 8), 0);
	assert_int_equal(h_alloc(&h, h_va(&h, 4096), 4096, GTT, &victim, NULL), 0);
	kfdsim_latch_ioctl(host_g.sim, 0x18);
	memset(&m, 0, sizeof(m));
	m.handle = victim;
	m.n_devices = 1;
	m.device_ids[0] = h.gpu_id;
	h_add(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL);
	assert_int_equal(h_flush(&h), 0);
	memset(&gv, 0, sizeof(gv));
	vkfd_builder_init(&b, batch, sizeof(batch), 1);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), 0, NULL), 0);
	/* each queued batch holds at least its payload and its queue entry */
	limit = HOST_MAX_QUEUED_BYTES / (b.len + sizeof(struct exec_item));
	for (i = 0; i <= limit; i++) {
		ret = vkfd_host_context_submit_cmd(h.ctx, batch, b.len);
		if (ret)
			break;
	}
	assert_int_equal(ret, -ENOMEM);
	assert_true(i <= limit);
	assert_int_equal(((struct vkfd_shmem_hdr *)h.shmem)->async_error, VKFD_ASYNC_ERR_NO_MEMORY);
	kfdsim_latch_release(host_g.sim, 0x18);
	h_close(&h);
}

/* Fence callbacks counted while vkfd_host_context_destroy() runs. */
static int destroying, late_retires;

static void count_late_retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	(void)cookie;
	(void)ctx_id;
	(void)ring;
	(void)fence_id;
	if (__atomic_load_n(&destroying, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&late_retires, 1, __ATOMIC_ACQ_REL);
}

/* A VMM frees its fence bookkeeping around destroy (virglrenderer's vtest
 * does before it): fences still pending when destroy starts must not reach
 * the callback, neither from the destroying thread nor a library thread. */
static void destroy_with_pending_fences(uint32_t flags)
{
	struct vkfd_host_config cfg;
	struct vkfd_req_get_version gv;
	struct harness h;
	uint64_t page;
	uint32_t ev;

	h_lib_fini();
	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.flags = flags;
	cfg.device = h_device();
	cfg.retire_fence = count_late_retire;
	assert_int_equal(vkfd_host_init(&cfg), 0);
	assert_int_equal(h_open(&h, 10), 0);
	page = h_gtt(&h, 4096 * 8, NULL);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev), 0);
	/* waits that only destroy ends: their fences are pending at destroy */
	for (uint32_t r = 1; r <= 4; r++) {
		h_add_wait_event(&h, r, ev, 0xffffffff, NULL);
		assert_int_equal(h_flush(&h), 0);
		assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, r, 100 + r), 0);
	}
	/* POLL mode: ring-0 fences become ready but are never retired by us */
	if (!(flags & VKFD_HOST_FLAG_ASYNC_FENCES)) {
		for (uint32_t i = 0; i < 8; i++) {
			memset(&gv, 0, sizeof(gv));
			h_add(&h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL);
			assert_int_equal(h_flush(&h), 0);
			assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, 0, 200 + i), 0);
		}
	}
	__atomic_store_n(&destroying, 1, __ATOMIC_RELEASE);
	h_close(&h); /* cancels the waits, drops the fences */
	/* every library thread of the context is joined: nothing comes later */
	assert_int_equal(__atomic_load_n(&late_retires, __ATOMIC_ACQUIRE), 0);
	__atomic_store_n(&destroying, 0, __ATOMIC_RELEASE);
	h_lib_fini();
	assert_int_equal(h_lib_init(0, NULL), 0);
}

static void test_destroy_drops_pending_fences_poll(void **state)
{
	(void)state;
	destroy_with_pending_fences(0);
}

static void test_destroy_drops_pending_fences_async(void **state)
{
	(void)state;
	destroy_with_pending_fences(VKFD_HOST_FLAG_ASYNC_FENCES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_destroy_releases_everything),
	    cmocka_unit_test(test_destroy_with_queued_batches),
	    cmocka_unit_test(test_latched_map),
	    cmocka_unit_test(test_latched_free),
	    cmocka_unit_test(test_latched_destroy_queue),
	    cmocka_unit_test(test_get_blob_does_not_wait_for_the_executor),
	    cmocka_unit_test(test_reset_destroys_contexts),
	    cmocka_unit_test(test_queue_flood_is_bounded),
	    cmocka_unit_test(test_tiny_batch_flood_is_bounded),
	    cmocka_unit_test(test_destroy_drops_pending_fences_poll),
	    cmocka_unit_test(test_destroy_drops_pending_fences_async),
	};

	return cmocka_run_group_tests(tests, h_setup_lib, h_teardown_lib);
}
