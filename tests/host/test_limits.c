// SPDX-License-Identifier: MIT
/* Guest-controlled growth of host tables stays within the context's quotas. */
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

#define GTT (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)

/* BIND_BLOB may give one BO several ids, but never more ids than the BO
 * quota: a guest binding ids in a loop cannot grow host memory. */
static void test_blob_ids_bounded_by_bo_quota(void **state)
{
	struct vkfd_host_quota q;
	struct vkfd_blob b;
	struct harness h;
	uint64_t va, handle;
	uint32_t seq;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.max_bos = 4;
	assert_int_equal(h_lib_init(0, &q), 0);
	assert_int_equal(h_open(&h, 1), 0);
	va = h_va(&h, 4096);
	assert_int_equal(h_alloc(&h, va, 4096, GTT, &handle, NULL), 0);
	for (uint64_t id = 1; id <= 10; id++)
		h_bind(&h, handle, id);
	/* a sync call after the binds: they have all run */
	{
		struct vkfd_req_get_version gv;

		memset(&gv, 0, sizeof(gv));
		seq = h_add(&h, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), NULL);
		assert_int_equal(h_flush(&h), 0);
		assert_int_equal(h_wait_seqno(&h, seq), 0);
	}
	for (uint64_t id = 1; id <= 4; id++) {
		assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, id, 4096, 1, &b), 0);
		close(b.fd);
	}
	for (uint64_t id = 5; id <= 10; id++)
		assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, id, 4096, 1, &b), -EINVAL);
	/* freeing the BO releases its ids: new binds fit again */
	h_free(&h, handle);
	assert_int_equal(h_alloc(&h, va, 4096, GTT, &handle, NULL), 0);
	h_bind(&h, handle, 11);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 11, 4096, 1, &b), 0);
	close(b.fd);
	h_close(&h);
	h_lib_fini();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blob_ids_bounded_by_bo_quota),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
