// SPDX-License-Identifier: MIT
/* Memory commands: alloc/map/unmap/free, VA checks, handles, quotas. */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "kfd_uapi_ext.h"

#define GTT  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define VRAM (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE)

static int setup(void **state)
{
	static struct harness h;
	struct vkfd_host_quota q;

	memset(&q, 0, sizeof(q));
	q.vram_bytes = 64ull << 20;
	q.gtt_bytes = 64ull << 20;
	q.max_bos = 64;
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

static void test_alloc_map_free(void **state)
{
	struct harness *h = *state;
	struct vkfd_rsp_alloc_memory ar;
	uint64_t va = h_va(h, 2 << 20), handle;

	assert_int_equal(h_alloc(h, va, 2 << 20, VRAM, &handle, &ar), 0);
	assert_true(handle != 0);
	/* kfdsim VRAM is a memfd; real VRAM is write-combined */
	assert_int_equal(ar.map_info, h_real_device() ? VKFD_MAP_WC : VKFD_MAP_CACHED);
	assert_int_equal(h_map(h, handle), 0);
	assert_int_equal(h_unmap(h, handle), 0);
	assert_int_equal(h_map(h, handle), 0);
	h_free(h, handle); /* unmaps first, then frees */
	/* use after free: the handle is dead */
	assert_int_equal(h_map(h, handle), -EINVAL);
	/* the VA range is free again */
	assert_int_equal(h_alloc(h, va, 2 << 20, VRAM, &handle, NULL), 0);
	h_free(h, handle);
}

static void test_alloc_checks(void **state)
{
	struct harness *h = *state;
	uint64_t va = h_va(h, 4 << 20), handle, h2;

	assert_int_equal(h_alloc(h, va, 0, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(h_alloc(h, va + 1, 4096, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(h_alloc(h, va, 4097, GTT, NULL, NULL), -EINVAL);
	assert_int_equal(h_alloc(h, va, 4096, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, NULL, NULL),
			 -EINVAL);
	assert_int_equal(h_alloc(h, va, 4096, VKFD_KFD_ALLOC_WRITABLE, NULL, NULL),
			 -EINVAL); /* no memory type */
	assert_int_equal(h_alloc(h, va, 4096, GTT | KFD_IOC_ALLOC_MEM_FLAGS_VRAM, NULL, NULL),
			 -EINVAL); /* two memory types */
	assert_int_equal(h_alloc(h, va, 4096, GTT | (1u << 10), NULL, NULL), -EINVAL);
	assert_int_equal(h_alloc(h, 0, 4096, GTT, NULL, NULL), -EINVAL); /* va 0: VRAM only */
	assert_int_equal(h_alloc(h, va, 4096, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP | 0, NULL, NULL),
			 0);
	assert_int_equal(
	    h_alloc(h, va + 4096, 8192, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP, NULL, NULL), -EINVAL);
	assert_int_equal(h_alloc(h, va + (1 << 20), 12288,
				 GTT | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, NULL, NULL),
			 -EINVAL);
	/* outside the GPU VM aperture */
	assert_int_equal(h_alloc(h, (h->ap.gpuvm_limit + 1) & ~4095ull, 4096, GTT, NULL, NULL),
			 -EINVAL);
	assert_int_equal(h_alloc(h, UINT64_MAX & ~4095ull, 8192, GTT, NULL, NULL), -EINVAL);
	/* unknown gpu id */
	{
		struct vkfd_req_alloc_memory r;

		memset(&r, 0, sizeof(r));
		r.va = va + (2 << 20);
		r.size = 4096;
		r.gpu_id = h->gpu_id + 1;
		r.flags = GTT;
		assert_int_equal(h_call(h, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), NULL, 0), -EINVAL);
	}
	/* va 0 (VRAM for export only) has no GPU mapping: MAP is refused and
	 * the GPUVM base stays free for a later, checked allocation */
	assert_int_equal(h_alloc(h, 0, 1 << 20,
				 KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE, &h2, NULL),
			 0);
	assert_int_equal(h_map(h, h2), -EINVAL);
	assert_int_equal(h_unmap(h, h2), -EINVAL);
	h_free(h, h2);
	/* overlap */
	assert_int_equal(h_alloc(h, va + (2 << 20), 1 << 20, GTT, &handle, NULL), 0);
	assert_int_equal(h_alloc(h, va + (2 << 20) + 4096, 4096, GTT, &h2, NULL), -EADDRINUSE);
	assert_int_equal(h_alloc(h, va + (1 << 20), 2 << 20, GTT, &h2, NULL), -EADDRINUSE);
	h_free(h, handle);
}

static void test_map_n_success(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_map_memory r;
	struct vkfd_rsp_map_memory rsp;
	uint64_t handle;

	assert_int_equal(h_alloc(h, h_va(h, 4096), 4096, GTT, &handle, NULL), 0);
	memset(&r, 0, sizeof(r));
	r.handle = handle;
	r.n_devices = 2;
	r.device_ids[0] = h->gpu_id;
	r.device_ids[1] = 0xdead; /* not exported */
	assert_int_equal(
	    h_call(h, VKFD_CMD_MAP_MEMORY, &r, VKFD_REQ_MAP_MEMORY_LEN(2), &rsp, sizeof(rsp)),
	    -EINVAL);
	assert_int_equal(rsp.n_success, 1); /* stopped at the bad id */
	/* count larger than what len carries */
	r.n_devices = 3;
	assert_int_equal(
	    h_call(h, VKFD_CMD_MAP_MEMORY, &r, VKFD_REQ_MAP_MEMORY_LEN(2), &rsp, sizeof(rsp)),
	    -EINVAL);
	r.n_devices = 0;
	assert_int_equal(h_call(h, VKFD_CMD_MAP_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)), -EINVAL);
	r.n_devices = 1;
	r.n_success = 2;
	assert_int_equal(h_call(h, VKFD_CMD_MAP_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)), -EINVAL);
	assert_int_equal(h_unmap(h, handle), 0);
	h_free(h, handle);
}

static void test_foreign_and_forged_handles(void **state)
{
	struct harness *h = *state, a, b;
	uint64_t mine, theirs[2];

	(void)h;
	H_SIM_ONLY("needs two KFD processes in this host process");
	/* two fresh contexts: A holds one BO, B two; B's second handle names
	 * a slot that does not exist in A */
	assert_int_equal(h_open(&a, 11), 0);
	assert_int_equal(h_open(&b, 12), 0);
	assert_int_equal(h_alloc(&a, h_va(&a, 4096), 4096, GTT, &mine, NULL), 0);
	assert_int_equal(h_alloc(&b, h_va(&b, 4096), 4096, GTT, &theirs[0], NULL), 0);
	assert_int_equal(h_alloc(&b, h_va(&b, 4096), 4096, GTT, &theirs[1], NULL), 0);
	assert_int_equal(h_map(&a, theirs[1]), -EINVAL);
	assert_int_equal(h_map(&a, 0), -EINVAL);
	assert_int_equal(h_map(&a, mine + (1ull << 32)), -EINVAL); /* wrong generation */
	assert_int_equal(h_map(&a, (mine & ~0xffffffffull) | 0xffff), -EINVAL);
	assert_int_equal(h_map(&b, theirs[1]), 0);
	assert_int_equal(h_map(&a, mine), 0);
	h_close(&a);
	/* B is unaffected by A's destruction */
	assert_int_equal(h_unmap(&b, theirs[1]), 0);
	h_close(&b);
}

static void test_double_free(void **state)
{
	struct harness *h = *state;
	uint64_t handle, h2;

	assert_int_equal(h_alloc(h, h_va(h, 4096), 4096, GTT, &handle, NULL), 0);
	h_free(h, handle);
	h_free(h, handle); /* async: logged, nothing happens */
	assert_int_equal(h_alloc(h, h_va(h, 4096), 4096, GTT, &h2, NULL), 0);
	assert_true(h2 != handle); /* slot reuse gets a new generation */
	assert_int_equal(h_map(h, handle), -EINVAL);
	assert_int_equal(h_map(h, h2), 0);
	h_free(h, h2);
}

static void test_quota(void **state)
{
	struct harness *h = *state;
	uint64_t a, b;

	/* 64 MiB VRAM quota */
	assert_int_equal(h_alloc(h, h_va(h, 48 << 20), 48 << 20, VRAM, &a, NULL), 0);
	assert_int_equal(h_alloc(h, h_va(h, 32 << 20), 32 << 20, VRAM, &b, NULL), -ENOMEM);
	/* AQL memory is counted at half its size */
	assert_int_equal(h_alloc(h, h_va(h, 32 << 20), 32 << 20,
				 VRAM | KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, &b, NULL),
			 0);
	{
		struct vkfd_req_gpu r;
		struct vkfd_rsp_available_memory rsp;

		memset(&r, 0, sizeof(r));
		r.gpu_id = h->gpu_id;
		assert_int_equal(
		    h_call(h, VKFD_CMD_AVAILABLE_MEMORY, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
		assert_true(rsp.available <= (64ull << 20) - (48ull << 20) - (16ull << 20));
	}
	h_free(h, a);
	h_free(h, b);
	assert_int_equal(h_alloc(h, h_va(h, 64 << 20), 64 << 20, VRAM, &a, NULL), 0);
	h_free(h, a);
}

static void test_bo_count_quota(void **state)
{
	struct harness *h = *state;
	uint64_t handles[80];
	int n = 0, ret = 0;

	while (n < 80) {
		ret = h_alloc(h, h_va(h, 4096), 4096, GTT, &handles[n], NULL);
		if (ret)
			break;
		n++;
	}
	assert_int_equal(ret, -ENOMEM);
	assert_true(n <= 64);
	while (n--)
		h_free(h, handles[n]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alloc_map_free),
	    cmocka_unit_test(test_alloc_checks),
	    cmocka_unit_test(test_map_n_success),
	    cmocka_unit_test(test_foreign_and_forged_handles),
	    cmocka_unit_test(test_double_free),
	    cmocka_unit_test(test_quota),
	    cmocka_unit_test(test_bo_count_quota),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
