// SPDX-License-Identifier: MIT
/*
 * Throughput of the host path on kfdsim (reported in docs/architecture.md):
 * synchronous round trips, and a model-loading pattern of BO creation,
 * mapping, blob export and batched frees. Assertions are functional, plus
 * lower bounds on time only.
 */
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

#define GTT  (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define N_BO 1000

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Spin on the header seqno, as a guest does before falling back to a fence. */
static void spin_seqno(struct harness *h, uint32_t s)
{
	struct vkfd_shmem_hdr *hdr = h->shmem;

	while (!vkfd_seqno_passed(vkfd_load_acquire_u32(&hdr->seqno), s))
		;
}

static void test_sync_round_trip(void **state)
{
	static double lat[2000];
	struct harness h;

	(void)state;
	assert_int_equal(h_lib_init(0, NULL), 0);
	assert_int_equal(h_open(&h, 1), 0);
	for (int i = 0; i < 2000; i++) {
		struct vkfd_req_get_version r;
		double t0;
		uint32_t s;

		memset(&r, 0, sizeof(r));
		t0 = now_us();
		s = h_add(&h, VKFD_CMD_GET_VERSION, &r, sizeof(r), NULL);
		assert_int_equal(h_flush(&h), 0);
		spin_seqno(&h, s);
		lat[i] = now_us() - t0;
		assert_true(lat[i] > 0.0);
	}
	qsort(lat, 2000, sizeof(double), cmp_d);
	print_message("sync round trip (submit -> seqno): median %.1f us, p99 %.1f us\n", lat[1000],
		      lat[1980]);
	h_close(&h);
	h_lib_fini();
}

static void test_model_load_pattern(void **state)
{
	static uint64_t handles[N_BO];
	struct harness h;
	double t0, t_alloc, t_blob, t_free;
	int i;

	(void)state;
	assert_int_equal(h_lib_init(0, NULL), 0);
	assert_int_equal(h_open(&h, 1), 0);
	t0 = now_us();
	/* ALLOC is synchronous (the guest needs the handle): spin on seqno */
	for (i = 0; i < N_BO; i++) {
		struct vkfd_req_alloc_memory a;
		struct vkfd_rsp_alloc_memory *rsp;
		uint32_t off, s;

		memset(&a, 0, sizeof(a));
		a.va = h_va(&h, 2 << 20);
		a.size = 2 << 20;
		a.gpu_id = h.gpu_id;
		a.flags = GTT;
		s = h_add(&h, VKFD_CMD_ALLOC_MEMORY, &a, sizeof(a), &off);
		assert_int_equal(h_flush(&h), 0);
		spin_seqno(&h, s);
		rsp = h_rsp(&h, off);
		assert_int_equal(rsp->hdr.ret, 0);
		handles[i] = rsp->handle;
	}
	t_alloc = now_us();
	/* MAP + BIND in one batch, then the VMM's get_blob for it */
	for (i = 0; i < N_BO; i++) {
		struct vkfd_req_map_memory m;
		struct vkfd_req_bind_blob b;
		struct vkfd_blob blob;

		memset(&m, 0, sizeof(m));
		m.handle = handles[i];
		m.n_devices = 1;
		m.device_ids[0] = h.gpu_id;
		h_add(&h, VKFD_CMD_MAP_MEMORY, &m, VKFD_REQ_MAP_MEMORY_LEN(1), NULL);
		memset(&b, 0, sizeof(b));
		b.handle = handles[i];
		b.blob_id = 1000 + (uint64_t)i;
		h_add(&h, VKFD_CMD_BIND_BLOB, &b, sizeof(b), NULL);
		assert_int_equal(h_flush(&h), 0);
		assert_int_equal(
		    vkfd_host_context_get_blob(h.ctx, 1, 1000 + (uint64_t)i, 2 << 20, 1, &blob), 0);
		close(blob.fd);
	}
	t_blob = now_us();
	/* frees are async and batched */
	for (i = 0; i < N_BO; i++) {
		struct vkfd_req_handle f;
		uint32_t s;

		memset(&f, 0, sizeof(f));
		f.handle = handles[i];
		s = h_add(&h, VKFD_CMD_FREE_MEMORY, &f, sizeof(f), NULL);
		if (i % 64 == 63 || i == N_BO - 1) {
			assert_int_equal(h_flush(&h), 0);
			if (i == N_BO - 1)
				assert_int_equal(h_wait_seqno(&h, s), 0);
		}
	}
	t_free = now_us();
	assert_true(t_free > t0);
	print_message("%d x ALLOC 2 MiB (sync): %.1f ms (%.1f us each)\n", N_BO,
		      (t_alloc - t0) / 1e3, (t_alloc - t0) / N_BO);
	print_message("%d x MAP+BIND batch + get_blob: %.1f ms (%.1f us each)\n", N_BO,
		      (t_blob - t_alloc) / 1e3, (t_blob - t_alloc) / N_BO);
	print_message("%d x FREE (async, 64 per batch): %.1f ms\n", N_BO, (t_free - t_blob) / 1e3);
	h_close(&h);
	h_lib_fini();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sync_round_trip),
	    cmocka_unit_test(test_model_load_pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
