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

/* Many ids over several BOs: every bound id is found (hash chains and
 * table growth keep them all), freeing a BO drops exactly its ids, and ids
 * chosen by the guest (a sequence, powers of two) do not get lost. */
static void test_many_blob_ids(void **state)
{
	/* a sequence above 2^32 (so it never meets the powers of two) */
	const uint64_t BLOB_SEQ = (1ull << 32) + 1;
	enum { N_BO = 8, PER_BO = 300 };
	uint64_t handle[N_BO], va[N_BO];
	struct vkfd_blob b;
	struct harness h;

	(void)state;
	assert_int_equal(h_lib_init(0, NULL), 0);
	assert_int_equal(h_open(&h, 2), 0);
	for (int i = 0; i < N_BO; i++) {
		va[i] = h_va(&h, 4096);
		assert_int_equal(h_alloc(&h, va[i], 4096, GTT, &handle[i], NULL), 0);
	}
	for (uint64_t k = 0; k < PER_BO; k++)
		for (int i = 0; i < N_BO; i++) {
			struct vkfd_req_bind_blob r;

			memset(&r, 0, sizeof(r));
			r.handle = handle[i];
			r.blob_id =
			    k < 60 && i == 0 ? 1ull << (k + 4) : BLOB_SEQ + k * N_BO + (uint64_t)i;
			h_add(&h, VKFD_CMD_BIND_BLOB, &r, sizeof(r), NULL);
		}
	assert_int_equal(h_flush(&h), 0);
	h_free(&h, handle[3]); /* drops its ids only */
	for (uint64_t k = 0; k < PER_BO; k++)
		for (int i = 0; i < N_BO; i++) {
			uint64_t id =
			    k < 60 && i == 0 ? 1ull << (k + 4) : BLOB_SEQ + k * N_BO + (uint64_t)i;

			if (i == 3) {
				assert_int_equal(
				    vkfd_host_context_get_blob(h.ctx, 1, id, 4096, 1, &b), -EINVAL);
				continue;
			}
			assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, id, 4096, 1, &b), 0);
			close(b.fd);
		}
	h_close(&h);
	h_lib_fini();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blob_ids_bounded_by_bo_quota),
	    cmocka_unit_test(test_many_blob_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
