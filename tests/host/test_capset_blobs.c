// SPDX-License-Identifier: MIT
/* Capset, shared memory (blob 0) and BO blobs over kfdsim. */
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

static void test_capset_before_init(void **state)
{
	struct vkfd_capset c;
	uint8_t big[128];

	(void)state;
	assert_int_equal(vkfd_host_capset_size(1), sizeof(c));
	assert_int_equal(vkfd_host_capset_size(0), 0);
	assert_int_equal(vkfd_host_capset_size(2), 0);
	/* a refused fill leaves zeros, not the caller's old bytes */
	memset(big, 0xaa, sizeof(big));
	assert_int_equal(vkfd_host_capset_fill(1, big, sizeof(c) - 1), -ENOSPC);
	for (size_t i = 0; i < sizeof(big); i++)
		assert_int_equal(big[i], i < sizeof(c) - 1 ? 0 : 0xaa);
	memset(big, 0xaa, sizeof(big));
	assert_int_equal(vkfd_host_capset_fill(2, big, sizeof(big)), -EINVAL);
	for (size_t i = 0; i < sizeof(big); i++)
		assert_int_equal(big[i], 0);
	memset(big, 0xaa, sizeof(big));
	assert_int_equal(vkfd_host_capset_fill(1, big, sizeof(big)), (int)sizeof(c));
	for (size_t i = sizeof(c); i < sizeof(big); i++)
		assert_int_equal(big[i], 0);
	memcpy(&c, big, sizeof(c));
	assert_int_equal(c.reserved, 0);
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), 0);
	assert_int_equal(c.context_type, VKFD_CONTEXT_TYPE_AMDKFD);
	assert_int_equal(c.kfd_major, 1);
	/* with VKFD_TEST_DEVICE=real the probe found the shim's /dev/kfd */
	if (h_real_device())
		assert_false(c.features & VKFD_FEAT_SIM_DEVICE);
	else
		assert_true(c.features & VKFD_FEAT_SIM_DEVICE);
	assert_int_equal(c.shmem_size, VKFD_SHMEM_SIZE);
	assert_int_equal(c.num_rings, 64);
	assert_true(c.num_gpus >= 1);
	assert_int_equal(c.reserved, 0);
	for (size_t i = sizeof(c); i < sizeof(big); i++)
		assert_int_equal(big[i], 0); /* nothing uninitialised leaves */
}

static int setup_lib(void **state)
{
	(void)state;
	return h_lib_init(0, NULL);
}

static int teardown_lib(void **state)
{
	(void)state;
	h_lib_fini();
	return 0;
}

static void test_init_twice(void **state)
{
	(void)state;
	assert_int_equal(h_lib_init(0, NULL), -EBUSY);
}

static void test_shmem_rules(void **state)
{
	struct harness h;
	struct vkfd_blob b;
	struct vkfd_shmem_hdr *hdr;
	void *map;
	uint8_t junk[16] = {0};

	(void)state;
	assert_int_equal(h_open_bare(&h, 1), 0);
	/* a batch before the shared memory exists is refused, context kept */
	assert_int_equal(vkfd_host_context_submit_cmd(h.ctx, junk, sizeof(junk)), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 0, 0, VKFD_SHMEM_SIZE, 3, &b), -EINVAL);
	assert_int_equal(b.fd, -1);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 0, 0, 4096, 1, &b), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 0, 0, VKFD_SHMEM_SIZE, 1, &b), 0);
	assert_true(b.fd >= 0);
	assert_int_equal(b.fd_type, VKFD_BLOB_FD_SHM);
	assert_int_equal(b.size, VKFD_SHMEM_SIZE);
	/* sealed against resizing */
	assert_int_not_equal(ftruncate(b.fd, 4096), 0);
	map = mmap(NULL, VKFD_SHMEM_SIZE, PROT_READ, MAP_SHARED, b.fd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(vkfd_shmem_check(map, VKFD_SHMEM_SIZE), 0);
	hdr = map;
	assert_int_equal(hdr->async_error, 0);
	/* exactly once */
	{
		struct vkfd_blob b2;

		assert_int_equal(vkfd_host_context_get_blob(h.ctx, 0, 0, VKFD_SHMEM_SIZE, 1, &b2),
				 -EINVAL);
	}
	munmap(map, VKFD_SHMEM_SIZE);
	close(b.fd);
	h_close(&h);
}

static void test_bo_blob_export(void **state)
{
	struct vkfd_rsp_alloc_memory ar;
	struct harness h;
	struct vkfd_blob b;
	uint64_t va, handle;
	uint32_t *p;

	(void)state;
	assert_int_equal(h_open(&h, 2), 0);
	va = h_va(&h, 1 << 20);
	assert_int_equal(h_alloc(&h, va, 1 << 20,
				 KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, &handle,
				 &ar),
			 0);
	assert_int_equal(ar.blob_size, 1 << 20);
	assert_int_equal(ar.map_flags, 0);
	/* unbound blob id */
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 9, 77, 1 << 20, 1, &b), -EINVAL);
	h_bind(&h, handle, 77);
	h_bind(&h, handle, 78); /* a BO may have several blob ids */
	/* bound when submitted; wrong size / flags first */
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 9, 77, 4096, 1, &b), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 9, 77, 1 << 20, 4, &b), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 9, 77, 1 << 20, 2, &b), -EINVAL);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 9, 77, 1 << 20, 3, &b), 0);
	/* the real device exports a dmabuf (AMDKFD_IOC_EXPORT_DMABUF) */
	assert_int_equal(b.fd_type, h_real_device() ? VKFD_BLOB_FD_DMABUF : VKFD_BLOB_FD_SHM);
	assert_int_equal(b.size, 1 << 20);
	/* one export per blob id */
	{
		struct vkfd_blob b2;

		assert_int_equal(vkfd_host_context_get_blob(h.ctx, 9, 77, 1 << 20, 1, &b2),
				 -EINVAL);
		assert_int_equal(vkfd_host_context_get_blob(h.ctx, 10, 78, 1 << 20, 1, &b2), 0);
		close(b2.fd);
	}
	/* the blob is the BO's memory: fresh allocations read as zero */
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
	assert_true(p != MAP_FAILED);
	for (int i = 0; i < (1 << 18); i += 1024)
		assert_int_equal(p[i], 0);
	munmap(p, 1 << 20);
	close(b.fd);
	h_close(&h);
}

static void test_aql_blob_is_half(void **state)
{
	struct vkfd_rsp_alloc_memory ar;
	struct harness h;
	struct vkfd_blob b;
	uint64_t va, handle;

	(void)state;
	assert_int_equal(h_open(&h, 3), 0);
	va = h_va(&h, 64 << 10);
	assert_int_equal(h_alloc(&h, va, 64 << 10,
				 KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE |
				     KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM,
				 &handle, &ar),
			 0);
	assert_int_equal(ar.blob_size, 32 << 10);
	assert_true(ar.map_flags & VKFD_ALLOC_MAP_MIRRORED);
	h_bind(&h, handle, 5);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 5, 64 << 10, 1, &b), -EINVAL);
	h_bind(&h, handle, 6);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 6, 32 << 10, 1, &b), 0);
	close(b.fd);
	h_close(&h);
}

static void test_doorbell_blob_is_shadow(void **state)
{
	struct vkfd_rsp_alloc_memory ar;
	struct harness h;
	struct vkfd_blob b;
	uint64_t va, handle;

	(void)state;
	assert_int_equal(h_open(&h, 4), 0);
	va = h_va(&h, 8192);
	assert_int_equal(h_alloc(&h, va, 4096, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, NULL, NULL),
			 -EINVAL);
	assert_int_equal(h_alloc(&h, va, 8192, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, &handle, &ar), 0);
	assert_true(ar.map_flags & VKFD_ALLOC_MAP_SHADOW);
	h_bind(&h, handle, 11);
	assert_int_equal(vkfd_host_context_get_blob(h.ctx, 1, 11, 8192, 1, &b), 0);
	assert_int_equal(b.fd_type, VKFD_BLOB_FD_SHM);
	assert_int_equal(b.size, 8192);
	close(b.fd);
	h_close(&h);
}

static void test_import_resource(void **state)
{
	struct vkfd_req_import_resource ir;
	struct vkfd_rsp_import_resource irsp;
	struct vkfd_req_get_resource_info gi;
	struct vkfd_rsp_get_resource_info grsp;
	struct harness a, b;
	struct vkfd_blob blob;
	uint64_t handle, va;

	(void)state;
	H_SIM_ONLY("needs two KFD processes in this host process");
	assert_int_equal(h_open(&a, 20), 0);
	assert_int_equal(h_open(&b, 21), 0);
	assert_int_equal(h_alloc(&a, h_va(&a, 1 << 20), 1 << 20,
				 KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, &handle,
				 NULL),
			 0);
	h_bind(&a, handle, 3);
	assert_int_equal(vkfd_host_context_get_blob(a.ctx, 1, 3, 1 << 20, 3, &blob), 0);
	/* the VMM shares A's blob with B as resource 7; resource 8 has no memory */
	assert_int_equal(vkfd_host_context_attach_resource(b.ctx, 7, blob.fd, 1 << 20), 0);
	assert_int_equal(vkfd_host_context_attach_resource(b.ctx, 7, blob.fd, 1 << 20), -EEXIST);
	assert_int_equal(vkfd_host_context_attach_resource(b.ctx, 8, -1, 4096), 0);
	close(blob.fd); /* B holds its own duplicate */

	memset(&gi, 0, sizeof(gi));
	gi.res_id = 7;
	gi.metadata_size = 64;
	assert_int_equal(
	    h_call(&b, VKFD_CMD_GET_RESOURCE_INFO, &gi, sizeof(gi), &grsp, sizeof(grsp)), 0);
	assert_int_equal(grsp.size, 1 << 20);
	assert_int_equal(grsp.gpu_id, b.gpu_id);
	assert_true(grsp.flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT);
	gi.metadata_size = VKFD_MAX_METADATA + 8;
	assert_int_equal(h_call(&b, VKFD_CMD_GET_RESOURCE_INFO, &gi, sizeof(gi), NULL, 0), -EINVAL);
	gi.metadata_size = 0;
	gi.res_id = 9;
	assert_int_equal(h_call(&b, VKFD_CMD_GET_RESOURCE_INFO, &gi, sizeof(gi), NULL, 0), -ENOENT);

	va = h_va(&b, 1 << 20);
	memset(&ir, 0, sizeof(ir));
	ir.va = va;
	ir.gpu_id = b.gpu_id;
	ir.res_id = 9;
	assert_int_equal(h_call(&b, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), NULL, 0), -ENOENT);
	ir.res_id = 8;
	assert_int_equal(h_call(&b, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), NULL, 0), -EINVAL);
	ir.res_id = 7;
	ir.va = 0;
	assert_int_equal(h_call(&b, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), NULL, 0), -EINVAL);
	ir.va = va;
	assert_int_equal(h_call(&b, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), &irsp, sizeof(irsp)),
			 0);
	assert_int_equal(irsp.size, 1 << 20);
	assert_int_equal(h_map(&b, irsp.handle), 0);
	/* the imported range is taken */
	assert_int_equal(h_call(&b, VKFD_CMD_IMPORT_RESOURCE, &ir, sizeof(ir), NULL, 0),
			 -EADDRINUSE);
	vkfd_host_context_detach_resource(b.ctx, 7);
	assert_int_equal(h_unmap(&b, irsp.handle), 0);
	h_free(&b, irsp.handle);
	h_close(&b);
	h_close(&a);
}

int main(void)
{
	const struct CMUnitTest before[] = {
	    cmocka_unit_test(test_capset_before_init),
	};
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_twice),
	    cmocka_unit_test(test_shmem_rules),
	    cmocka_unit_test(test_bo_blob_export),
	    cmocka_unit_test(test_aql_blob_is_half),
	    cmocka_unit_test(test_doorbell_blob_is_shadow),
	    cmocka_unit_test(test_import_resource),
	};
	int fails;

	setenv("VKFD_DEVICE", h_device_env(), 1);
	fails = cmocka_run_group_tests_name("capset", before, NULL, NULL);
	fails += cmocka_run_group_tests_name("blobs", tests, setup_lib, teardown_lib);
	return fails;
}
