// SPDX-License-Identifier: MIT
/* Isolation between contexts, the one-KFD-process policy, the per-GPU
 * active-context limit, quotas and ASYNC fence mode. Each test initialises
 * the library with its own configuration. */
#include <errno.h>
#include <linux/kfd_ioctl.h>
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
#include "kfd_uapi_ext.h"

#define GTT  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define VRAM (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE)

static int lib_init_cfg(uint32_t flags, const struct vkfd_host_quota *q, uint32_t per_gpu)
{
	struct vkfd_host_config cfg;

	(void)h_lib_init; /* harness callback wiring is reused below */
	if (!per_gpu)
		return h_lib_init(flags, q);
	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.flags = flags;
	cfg.device = h_device();
	cfg.max_active_contexts_per_gpu = per_gpu;
	if (q)
		cfg.quota = *q;
	return vkfd_host_init(&cfg);
}

static void test_framing_error_loses_only_that_context(void **state)
{
	struct harness a, b;
	struct vkfd_req_get_version gv;
	uint8_t bad[40];
	struct vkfd_req_hdr *hdr = (void *)bad;

	(void)state;
	H_SIM_ONLY("needs two KFD processes in this host process");
	assert_int_equal(h_lib_init(0, NULL), 0);
	assert_int_equal(h_open(&a, 1), 0);
	assert_int_equal(h_open(&b, 2), 0);
	memset(bad, 0, sizeof(bad));
	hdr->cmd = VKFD_CMD_GET_VERSION;
	hdr->len = 44; /* not a multiple of 8 */
	assert_int_equal(vkfd_host_context_submit_cmd(a.ctx, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(vkfd_load_acquire_u32(&((struct vkfd_shmem_hdr *)a.shmem)->async_error),
			 VKFD_ASYNC_ERR_PROTOCOL);
	memset(&gv, 0, sizeof(gv));
	/* A refuses further work */
	assert_int_equal(h_call(&a, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL, 0), -EIO);
	/* B is untouched */
	assert_int_equal(h_call(&b, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL, 0), 0);
	assert_int_equal(((struct vkfd_shmem_hdr *)b.shmem)->async_error, 0);
	/* fences of the lost context do not hang */
	assert_int_equal(vkfd_host_context_submit_fence(a.ctx, 0, 5, 42), 0);
	vkfd_host_context_retire_fences(a.ctx);
	assert_true(h_fence_retired(1, 5, 42));
	h_close(&a);
	h_close(&b);
	h_lib_fini();
}

static void test_one_kfd_process_policy(void **state)
{
	struct harness a, b;

	(void)state;
	assert_int_equal(h_lib_init(VKFD_HOST_FLAG_ONE_KFD_PROCESS, NULL), 0);
	assert_int_equal(h_open(&a, 1), 0);
	/* kfdsim without secondary processes: refused like the real device */
	assert_int_equal(h_open_bare(&b, 2), -EBUSY);
	assert_null(b.ctx);
	h_close(&b);
	h_close(&a);
	/* once the first is gone, a new one is accepted */
	assert_int_equal(h_open(&b, 3), 0);
	h_close(&b);
	h_lib_fini();
}

static int make_queue(struct harness *h, uint64_t *queue)
{
	struct vkfd_req_create_queue r;
	struct vkfd_rsp_create_queue rsp;
	uint64_t ring, ctl;
	int ret;

	if (!h_gtt(h, 4096, &ring) || !h_gtt(h, 4096, &ctl))
		return -EIO;
	memset(&r, 0, sizeof(r));
	r.ring_base_address = ring;
	r.ring_size = 4096;
	r.write_pointer_address = ctl;
	r.read_pointer_address = ctl + 8;
	r.gpu_id = h->gpu_id;
	r.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	r.queue_percentage = 100;
	memset(&rsp, 0, sizeof(rsp));
	ret = h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp));
	*queue = rsp.queue;
	return ret;
}

static void test_active_context_limit(void **state)
{
	struct harness c[3];
	uint64_t q;

	(void)state;
	H_SIM_ONLY("needs three KFD processes in this host process");
	assert_int_equal(lib_init_cfg(0, NULL, 2), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(h_open(&c[i], 10 + i), 0);
	assert_int_equal(make_queue(&c[0], &q), 0);
	assert_int_equal(make_queue(&c[0], &q), 0); /* same context: no new slot */
	assert_int_equal(make_queue(&c[1], &q), 0);
	assert_int_equal(make_queue(&c[2], &q), -EBUSY);
	h_close(&c[0]); /* releases its slot */
	assert_int_equal(make_queue(&c[2], &q), 0);
	h_close(&c[1]);
	h_close(&c[2]);
	h_lib_fini();
}

static void test_event_and_wait_quotas(void **state)
{
	struct vkfd_host_quota qt;
	struct harness h;
	uint64_t page;
	uint32_t ev[3];
	struct vkfd_req_wait_events w;
	uint32_t off1, off2, s1, s2;

	(void)state;
	memset(&qt, 0, sizeof(qt));
	qt.max_events = 2;
	qt.max_pending_waits = 1;
	assert_int_equal(h_lib_init(0, &qt), 0);
	assert_int_equal(h_open(&h, 1), 0);
	page = h_gtt(&h, 4096 * 8, NULL);
	assert_int_equal(h_create_event(&h, page, KFD_IOC_EVENT_SIGNAL, 1, &ev[0]), 0);
	assert_int_equal(h_create_event(&h, 0, KFD_IOC_EVENT_SIGNAL, 1, &ev[1]), 0);
	assert_int_equal(h_create_event(&h, 0, KFD_IOC_EVENT_SIGNAL, 1, &ev[2]), -ENOMEM);
	memset(&w, 0, sizeof(w));
	w.num_events = 1;
	w.timeout_ms = 0xffffffff;
	w.events[0].event_id = ev[0];
	w.ring_idx = 1;
	s1 = h_add(&h, VKFD_CMD_WAIT_EVENTS, &w, VKFD_REQ_WAIT_EVENTS_LEN(1), &off1);
	w.ring_idx = 2;
	s2 = h_add(&h, VKFD_CMD_WAIT_EVENTS, &w, VKFD_REQ_WAIT_EVENTS_LEN(1), &off2);
	assert_int_equal(h_flush(&h), 0);
	/* one wait thread allowed: the second wait is refused, not queued */
	assert_int_equal(h_wait_slot(&h, off2, s2, 2000), 0);
	assert_int_equal(((struct vkfd_rsp_hdr *)h_rsp(&h, off2))->ret, -EBUSY);
	assert_int_not_equal(h_wait_slot(&h, off1, s1, 20), 0); /* still pending */
	h_close(&h);                                            /* cancels the pending wait */
	h_lib_fini();
}

static int async_calls;

static void async_cb(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	(void)cookie;
	(void)ctx_id;
	(void)ring;
	(void)fence_id;
	__atomic_fetch_add(&async_calls, 1, __ATOMIC_SEQ_CST);
}

static uint64_t available_vram(struct harness *h)
{
	struct vkfd_req_gpu r;
	struct vkfd_rsp_available_memory rsp;

	memset(&r, 0, sizeof(r));
	memset(&rsp, 0, sizeof(rsp));
	r.gpu_id = h->gpu_id;
	assert_int_equal(h_call(h, VKFD_CMD_AVAILABLE_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
	return rsp.available;
}

/* Memory queries answer from the context's own budget: what B allocates
 * never shows in A's answers (with and without a quota). */
static void test_memory_answers_hide_other_contexts(void **state)
{
	static const uint64_t quotas[] = {0, 256ull << 20};

	(void)state;
	H_SIM_ONLY("needs two KFD processes in this host process");
	for (unsigned i = 0; i < 2; i++) {
		struct vkfd_host_quota q;
		struct harness a, b;
		uint64_t before, ha, hb;

		memset(&q, 0, sizeof(q));
		q.vram_bytes = quotas[i];
		assert_int_equal(lib_init_cfg(0, quotas[i] ? &q : NULL, 0), 0);
		assert_int_equal(h_open(&a, 1), 0);
		assert_int_equal(h_open(&b, 2), 0);
		before = available_vram(&a);
		assert_true(before > (64ull << 20));
		assert_int_equal(h_alloc(&b, h_va(&b, 64 << 20), 64 << 20, VRAM, &hb, NULL), 0);
		assert_int_equal(available_vram(&a), before);
		/* A's own allocation does count */
		assert_int_equal(h_alloc(&a, h_va(&a, 32 << 20), 32 << 20, VRAM, &ha, NULL), 0);
		assert_int_equal(available_vram(&a), before - (32ull << 20));
		h_close(&b);
		h_close(&a);
		h_lib_fini();
	}
}

/* A buffer one guest process shares reaches another context only as a
 * resource the VMM attached to it (IMPORT_RESOURCE: docs/security.md,
 * "Isolation"). Contexts 1 and 2 are one VM, whose VMM attaches 1's blob
 * to 2; context 3 is another VM's, to which nothing was attached: no
 * resource id names the buffer there. */
static void test_shared_buffer_stays_in_its_vm(void **state)
{
	struct harness a, a2, b;
	struct vkfd_req_import_resource ir;
	struct vkfd_rsp_import_resource irsp;
	struct vkfd_req_get_resource_info gi;
	struct vkfd_blob blob, blob2;
	const uint64_t size = 1 << 20;
	uint64_t handle;
	uint8_t *pa, *pa2;

	(void)state;
	H_SIM_ONLY("needs three KFD processes in this host process");
	assert_int_equal(lib_init_cfg(0, NULL, 0), 0);
	assert_int_equal(h_open(&a, 1), 0);
	assert_int_equal(h_open(&a2, 2), 0);
	assert_int_equal(h_open(&b, 3), 0);
	assert_int_equal(h_alloc(&a, h_va(&a, size), size, GTT, &handle, NULL), 0);
	h_bind(&a, handle, 3);
	assert_int_equal(vkfd_host_context_get_blob(a.ctx, 1, 3, size, 3, &blob), 0);
	pa = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, blob.fd, 0);
	assert_true(pa != MAP_FAILED);
	memset(pa, 0x3c, size);
	/* the first VM's VMM shares it with its other context */
	assert_int_equal(vkfd_host_context_attach_resource(a2.ctx, 5, blob.fd, size), 0);
	close(blob.fd);
	memset(&ir, 0, sizeof(ir));
	ir.va = h_va(&a2, size);
	ir.gpu_id = a2.gpu_id;
	ir.res_id = 5;
	assert_int_equal(
	    h_call(&a2, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), &irsp, sizeof(irsp)), 0);
	h_bind(&a2, irsp.handle, 9);
	assert_int_equal(vkfd_host_context_get_blob(a2.ctx, 2, 9, size, 3, &blob2), 0);
	pa2 = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, blob2.fd, 0);
	assert_true(pa2 != MAP_FAILED);
	close(blob2.fd);
	assert_int_equal(pa2[0], 0x3c);
	pa2[size - 1] = 0xc3;
	assert_int_equal(pa[size - 1], 0xc3);
	/* the other VM's context: no resource id resolves, the exporter's
	 * id included */
	ir.va = h_va(&b, size);
	ir.gpu_id = b.gpu_id;
	memset(&gi, 0, sizeof(gi));
	for (uint32_t id = 0; id < 64; id++) {
		ir.res_id = id;
		gi.res_id = id;
		assert_int_equal(h_call(&b, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), NULL, 0),
				 -ENOENT);
		assert_int_equal(h_call(&b, VKFD_CMD_GET_RESOURCE_INFO, &gi, sizeof(gi), NULL, 0),
				 -ENOENT);
	}
	munmap(pa2, size);
	munmap(pa, size);
	vkfd_host_context_detach_resource(a2.ctx, 5);
	h_close(&b);
	h_close(&a2);
	h_close(&a);
	h_lib_fini();
}

static void test_async_fences(void **state)
{
	struct vkfd_host_config cfg;
	struct vkfd_req_get_version gv;
	struct harness h;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.flags = VKFD_HOST_FLAG_ASYNC_FENCES;
	cfg.device = h_device();
	assert_int_equal(vkfd_host_init(&cfg), -EINVAL); /* ASYNC needs a callback */
	cfg.retire_fence = async_cb;
	assert_int_equal(vkfd_host_init(&cfg), 0);
	assert_int_equal(h_open(&h, 1), 0);
	assert_int_equal(vkfd_host_context_get_fencing_fd(h.ctx), -EINVAL);
	memset(&gv, 0, sizeof(gv));
	h_add(&h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL);
	assert_int_equal(h_flush(&h), 0);
	assert_int_equal(vkfd_host_context_submit_fence(h.ctx, 0, 0, 7), 0);
	for (int i = 0; i < 2000 && !__atomic_load_n(&async_calls, __ATOMIC_SEQ_CST); i++)
		usleep(1000);
	assert_int_equal(async_calls, 1); /* retired by a library thread */
	h_close(&h);
	h_lib_fini();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_framing_error_loses_only_that_context),
	    cmocka_unit_test(test_one_kfd_process_policy),
	    cmocka_unit_test(test_active_context_limit),
	    cmocka_unit_test(test_event_and_wait_quotas),
	    cmocka_unit_test(test_async_fences),
	    cmocka_unit_test(test_memory_answers_hide_other_contexts),
	    cmocka_unit_test(test_shared_buffer_stays_in_its_vm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
