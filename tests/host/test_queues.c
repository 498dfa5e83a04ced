// SPDX-License-Identifier: MIT
/* Queues: address checks, handles, and an AQL dispatch through the shadow
 * doorbell page and the relay, executed by kfdsim's compute engine. */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "kfd_uapi_ext.h"

#define GTT (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)

static int setup(void **state)
{
	static struct harness h;
	struct vkfd_host_quota q;

	memset(&q, 0, sizeof(q));
	q.max_queues = 4;
	if (h_lib_init(0, &q) || h_open(&h, 1))
		return -1;
	*state = &h;
	return 0;
}

static int teardown(void **state)
{
	h_close(*state);
	h_lib_fini();
	return 0;
}

static void fill_queue_req(struct harness *h, struct vkfd_req_create_queue *r, uint64_t ring,
			   uint64_t ctl)
{
	memset(r, 0, sizeof(*r));
	r->ring_base_address = ring;
	r->ring_size = 4096;
	r->write_pointer_address = ctl;
	r->read_pointer_address = ctl + 0x80;
	r->gpu_id = h->gpu_id;
	r->queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	r->queue_percentage = 100;
	r->queue_priority = 7;
}

static void test_queue_address_checks(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_create_queue r;
	struct vkfd_rsp_create_queue rsp;
	uint64_t ring_va, ctl_va, unmapped, unmapped_va;

	assert_true(h_gtt(h, 4096, &ring_va) != 0);
	assert_true(h_gtt(h, 4096, &ctl_va) != 0);
	unmapped_va = h_va(h, 4096);
	assert_int_equal(h_alloc(h, unmapped_va, 4096, GTT, &unmapped, NULL), 0);

	fill_queue_req(h, &r, ring_va + 4096 * 64, ctl_va); /* ring outside any BO */
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EFAULT);
	fill_queue_req(h, &r, ring_va + 2048, ctl_va); /* ring crosses the BO's end */
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EFAULT);
	fill_queue_req(h, &r, ring_va, ctl_va + 4092); /* wptr straddles */
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EFAULT);
	fill_queue_req(h, &r, unmapped_va, ctl_va); /* allocated but not mapped */
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EFAULT);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.eop_buffer_address = unmapped_va;
	r.eop_buffer_size = 4096;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EFAULT);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.ctx_save_restore_address = 0x1000;
	r.ctx_save_restore_size = 4096;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EFAULT);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.ring_size = 3000;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.queue_percentage = 101;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.queue_priority = 16;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.gpu_id = 0x1234;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	/* valid, then destroy twice */
	fill_queue_req(h, &r, ring_va, ctl_va);
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
	assert_true(rsp.queue != 0);
	assert_true(rsp.doorbell_index < 1024);
	{
		struct vkfd_req_handle d;

		memset(&d, 0, sizeof(d));
		d.handle = rsp.queue;
		assert_int_equal(h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0), 0);
		assert_int_equal(h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0),
				 -EINVAL);
	}
}

static void test_queue_quota_and_handles(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_create_queue r;
	struct vkfd_rsp_create_queue rsp;
	uint64_t ring_va[5], ctl_va[5], spare_va, q[5];
	int n = 0, ret = 0;

	/* one ring and one pointer page per queue: kernels from 6.12 want each
	 * to be a GPU mapping of its own */
	for (int i = 0; i < 5; i++) {
		assert_true(h_gtt(h, 4096, &ring_va[i]) != 0);
		assert_true(h_gtt(h, 4096, &ctl_va[i]) != 0);
	}
	assert_true(h_gtt(h, 4096, &spare_va) != 0);
	for (n = 0; n < 5; n++) {
		fill_queue_req(h, &r, ring_va[n], ctl_va[n]);
		ret = h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp));
		if (ret)
			break;
		q[n] = rsp.queue;
	}
	assert_int_equal(n, 4); /* max_queues = 4 */
	assert_int_equal(ret, -ENOMEM);
	{
		struct vkfd_req_update_queue u;

		memset(&u, 0, sizeof(u));
		u.queue = q[0];
		u.ring_base_address = spare_va;
		u.ring_size = 4096;
		u.queue_percentage = 50;
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), 0);
		u.ring_base_address = spare_va + 2048; /* crosses the BO's end */
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), -EFAULT);
		u.queue = q[0] ^ (1ull << 33);
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), -EINVAL);
	}
	{
		struct vkfd_req_set_cu_mask m;

		memset(&m, 0, sizeof(m));
		m.queue = q[1];
		m.num_cu_mask = 64;
		m.cu_mask[0] = m.cu_mask[1] = 0xffffffff;
		assert_int_equal(
		    h_call(h, VKFD_CMD_SET_CU_MASK, &m, VKFD_REQ_SET_CU_MASK_LEN(64), NULL, 0), 0);
		m.num_cu_mask = 96; /* more words than len carries */
		assert_int_equal(
		    h_call(h, VKFD_CMD_SET_CU_MASK, &m, VKFD_REQ_SET_CU_MASK_LEN(64), NULL, 0),
		    -EINVAL);
		m.num_cu_mask = 33;
		assert_int_equal(h_call(h, VKFD_CMD_SET_CU_MASK, &m, sizeof(m), NULL, 0), -EINVAL);
	}
	for (int i = 0; i < n; i++) {
		struct vkfd_req_handle d;

		memset(&d, 0, sizeof(d));
		d.handle = q[i];
		assert_int_equal(h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0), 0);
	}
}

static int create_destroy(struct harness *h, struct vkfd_req_create_queue *r)
{
	struct vkfd_rsp_create_queue rsp;
	int ret = h_call(h, VKFD_CMD_CREATE_QUEUE, r, sizeof(*r), &rsp, sizeof(rsp));

	if (!ret) {
		struct vkfd_req_handle d;

		memset(&d, 0, sizeof(d));
		d.handle = rsp.queue;
		assert_int_equal(h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0), 0);
	}
	return ret;
}

/* Linux 6.12's buffer shapes, checked by the host on every kernel:
 * inside a mapped BO but the wrong shape is -EINVAL. */
static void test_queue_exact_shapes(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_create_queue r;
	uint64_t ring_va, ctl_va, two_va, aql_va, aql;

	assert_true(h_gtt(h, 4096, &ring_va) != 0);
	assert_true(h_gtt(h, 4096, &ctl_va) != 0);
	assert_true(h_gtt(h, 8192, &two_va) != 0);
	aql_va = h_va(h, 8192);
	assert_int_equal(
	    h_alloc(h, aql_va, 8192, GTT | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, &aql, NULL), 0);
	assert_int_equal(h_map(h, aql), 0);

	/* ROCr's layout: rptr and wptr in one page that is its own mapping */
	fill_queue_req(h, &r, ring_va, ctl_va);
	assert_int_equal(create_destroy(h, &r), 0);
	/* wptr / rptr: their page must be a one-page mapping */
	fill_queue_req(h, &r, ring_va, two_va);
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.read_pointer_address = two_va + 4096 + 0x80;
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	/* the ring: starts a mapping of exactly its size */
	fill_queue_req(h, &r, two_va, ctl_va);
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	fill_queue_req(h, &r, two_va + 4096, ctl_va);
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	fill_queue_req(h, &r, two_va, ctl_va);
	r.ring_size = 8192;
	assert_int_equal(create_destroy(h, &r), 0);
	/* rings under a page: only the start page is checked (as the kernel) */
	fill_queue_req(h, &r, two_va, ctl_va);
	r.ring_size = 2048;
	assert_int_equal(create_destroy(h, &r), 0);
	fill_queue_req(h, &r, ring_va + 2048, ctl_va);
	r.ring_size = 1024;
	assert_int_equal(create_destroy(h, &r), 0);
	fill_queue_req(h, &r, two_va + 4096, ctl_va);
	r.ring_size = 2048;
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	/* AQL queue memory is two mappings of half the BO: either half fits */
	fill_queue_req(h, &r, aql_va, ctl_va);
	assert_int_equal(create_destroy(h, &r), 0);
	fill_queue_req(h, &r, aql_va + 4096, ctl_va);
	assert_int_equal(create_destroy(h, &r), 0);
	fill_queue_req(h, &r, aql_va, ctl_va);
	r.ring_size = 8192;
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	/* EOP of a compute queue: a mapping of exactly its size */
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.eop_buffer_address = two_va;
	r.eop_buffer_size = 4096;
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	/* CWSR: must start a mapping (its full size is the kernel's check) */
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.ctx_save_restore_address = two_va + 4096;
	r.ctx_save_restore_size = 4096;
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	/* the control stack lies inside the save area */
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.ctx_save_restore_address = two_va;
	r.ctx_save_restore_size = 4096;
	r.ctl_stack_size = 8192;
	assert_int_equal(create_destroy(h, &r), -EINVAL);
	/* UPDATE_QUEUE: the new ring follows the ring rule */
	{
		struct vkfd_rsp_create_queue rsp;
		struct vkfd_req_update_queue u;
		struct vkfd_req_handle d;

		fill_queue_req(h, &r, ring_va, ctl_va);
		assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
				 0);
		memset(&u, 0, sizeof(u));
		u.queue = rsp.queue;
		u.ring_base_address = two_va;
		u.ring_size = 4096;
		u.queue_percentage = 100;
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), -EINVAL);
		u.ring_size = 8192;
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), 0);
		/* a (0, 0) ring disables the queue, as in the kernel; a ring
		 * enables it again */
		u.ring_base_address = 0;
		u.ring_size = 0;
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), 0);
		u.ring_base_address = two_va;
		u.ring_size = 8192;
		assert_int_equal(h_call(h, VKFD_CMD_UPDATE_QUEUE, &u, sizeof(u), NULL, 0), 0);
		memset(&d, 0, sizeof(d));
		d.handle = rsp.queue;
		assert_int_equal(h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0), 0);
	}
}

/* kfdsim builtin kernel descriptor: "KFDSIM01", u32 builtin id at 8. */
static void write_descriptor(void *p, uint32_t id)
{
	memset(p, 0, 64);
	memcpy(p, "KFDSIM01", 8);
	memcpy((uint8_t *)p + 8, &id, 4);
}

struct dispatch_pkt {
	uint16_t header, setup, wg[3], r0;
	uint32_t grid[3], priv, group;
	uint64_t kernel_object, kernarg, r2, completion;
};

static void test_dispatch_through_relay(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_create_queue r;
	struct vkfd_rsp_create_queue rsp;
	struct h_bo ring, ctl, code, dst, db;
	struct dispatch_pkt pkt;
	volatile uint64_t *wptr, *rptr, *bell;
	uint32_t *out;
	struct timespec t0, t1;
	int i;

	assert_int_equal(h_bo_make(h, &ring, 4096, GTT), 0);
	assert_int_equal(h_bo_make(h, &ctl, 4096, GTT), 0);
	assert_int_equal(h_bo_make(h, &code, 4096, GTT), 0);
	assert_int_equal(h_bo_make(h, &dst, 4096, GTT), 0);
	assert_int_equal(h_bo_make(h, &db, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL), 0);

	fill_queue_req(h, &r, ring.va, ctl.va);
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)), 0);

	/* kernel FILL_U32 {dst, value, count} */
	write_descriptor(code.cpu, 1);
	{
		uint8_t *ka = (uint8_t *)code.cpu + 256;
		uint64_t d = dst.va;
		uint32_t value = 0xc0ffee, count = 256;

		memcpy(ka, &d, 8);
		memcpy(ka + 8, &value, 4);
		memcpy(ka + 12, &count, 4);
	}
	memset(&pkt, 0, sizeof(pkt));
	pkt.setup = 1;
	pkt.wg[0] = pkt.wg[1] = pkt.wg[2] = 1;
	pkt.grid[0] = pkt.grid[1] = pkt.grid[2] = 1;
	pkt.kernel_object = code.va;
	pkt.kernarg = code.va + 256;
	memcpy((uint8_t *)ring.cpu + 2, (uint8_t *)&pkt + 2, sizeof(pkt) - 2);
	__atomic_store_n((uint16_t *)ring.cpu, (uint16_t)2 /* KERNEL_DISPATCH */, __ATOMIC_RELEASE);
	wptr = (volatile uint64_t *)ctl.cpu;
	rptr = (volatile uint64_t *)((uint8_t *)ctl.cpu + 0x80);
	__atomic_store_n(wptr, 1, __ATOMIC_RELEASE);
	/* ring the doorbell as ROCr does: a plain store to the shadow page */
	bell = (volatile uint64_t *)db.cpu + rsp.doorbell_index;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	__atomic_store_n(bell, 1, __ATOMIC_RELEASE);
	out = dst.cpu;
	for (i = 0; i < 3000 && __atomic_load_n(rptr, __ATOMIC_ACQUIRE) != 1; i++)
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(*rptr, 1);
	for (i = 0; i < 256; i++)
		assert_int_equal(out[i], 0xc0ffee);
	assert_int_equal(out[256], 0);
	print_message("dispatch through the relay completed in %.3f ms\n",
		      (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			  (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);

	{
		struct vkfd_req_handle d;

		memset(&d, 0, sizeof(d));
		d.handle = rsp.queue;
		assert_int_equal(h_call(h, VKFD_CMD_DESTROY_QUEUE, &d, sizeof(d), NULL, 0), 0);
	}
	h_bo_drop(&ring);
	h_bo_drop(&ctl);
	h_bo_drop(&code);
	h_bo_drop(&dst);
	h_bo_drop(&db);
}

static int setup_sdma(void **state)
{
	static struct harness h;
	struct vkfd_host_quota q;

	memset(&q, 0, sizeof(q));
	q.max_queues = 16;
	if (h_lib_init(0, &q) || h_open(&h, 1))
		return -1;
	*state = &h;
	return 0;
}

/* KFD 1.17 SDMA queues by engine id through the host context (kfdsim's
 * gfx90a: engines 0-1 ordinary, 2-4 xGMI, 8 queues each): the engine id
 * reaches the KFD, whose answers come back unchanged. */
static void test_sdma_queue_by_engine_id(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_create_queue r;
	struct vkfd_rsp_create_queue rsp;
	uint64_t ring_va, ctl_va;

	assert_true(h_gtt(h, 4096, &ring_va) != 0);
	assert_true(h_gtt(h, 4096, &ctl_va) != 0);
	fill_queue_req(h, &r, ring_va, ctl_va);
	r.queue_type = KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID;
	r.sdma_engine_id = 5; /* the GPU has engines 0-4 */
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -EINVAL);
	r.sdma_engine_id = 1;
	for (int i = 0; i < 8; i++)
		assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
				 0);
	/* engine 1 is full; engine 0 and the xGMI engine 3 are not */
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)),
			 -ENOMEM);
	r.sdma_engine_id = 0;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
	r.sdma_engine_id = 3;
	assert_int_equal(h_call(h, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
	/* an SDMA queue: its doorbell comes from the SDMA block 0x0E0.. */
	assert_int_equal(rsp.doorbell_index & 0x1e0u, 0xe0u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queue_address_checks),
	    cmocka_unit_test(test_queue_quota_and_handles),
	    cmocka_unit_test(test_queue_exact_shapes),
	    cmocka_unit_test(test_dispatch_through_relay),
	};

	const struct CMUnitTest sdma_tests[] = {
	    cmocka_unit_test(test_sdma_queue_by_engine_id),
	};
	int failed = cmocka_run_group_tests(tests, setup, teardown);

	/* a context with room for more queues than one SDMA engine has */
	failed += cmocka_run_group_tests(sdma_tests, setup_sdma, teardown);

	/* again with kfdsim checking containment only: the host's own checks
	 * must give the same answers on kernels without 6.12's rules */
	setenv("VKFDSIM_QUEUE_BUFFERS", "contain", 1);
	return failed + cmocka_run_group_tests(tests, setup, teardown);
}
