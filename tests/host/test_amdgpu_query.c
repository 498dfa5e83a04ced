// SPDX-License-Identifier: MIT
/*
 * AMDGPU_QUERY on kfdsim: the host forwards the render-node queries to the
 * device's render fd through the seam. Answers must equal what the device
 * itself says (a second kfdsim with the same configuration), memory figures
 * follow the context's quota and own usage, and every bound holds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <amdgpu_drm.h>

#include "host_harness.h"
#include "kfd_uapi_ext.h"
#include "vkfd/kfdsim.h"

#define VRAM_QUOTA (512ull << 20)
#define VRAM       (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE)

struct rsp {
	struct vkfd_rsp_amdgpu_query hdr;
	uint8_t data[VKFD_MAX_AMDGPU_QUERY];
};

static int setup(void **state)
{
	static struct harness h;
	struct vkfd_host_quota q;

	memset(&q, 0, sizeof(q));
	q.vram_bytes = VRAM_QUOTA;
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

static int q(struct harness *h, uint32_t query, uint32_t out_size, uint64_t p0, uint64_t p1,
	     struct rsp *out)
{
	struct vkfd_req_amdgpu_query r;
	uint32_t len = (uint32_t)sizeof(out->hdr) + ((out_size + 7u) & ~7u);

	memset(&r, 0, sizeof(r));
	memset(out, 0x5a, sizeof(*out));
	if (len > sizeof(*out))
		len = sizeof(*out); /* an over-limit request gets only an error */
	r.gpu_id = h->gpu_id;
	r.query = query;
	r.out_size = out_size;
	r.param0 = p0;
	r.param1 = p1;
	return h_call(h, VKFD_CMD_AMDGPU_QUERY, &r, sizeof(r), out, len);
}

/* The same query asked of a kfdsim configured like the host's. */
static void direct(uint32_t query, void *out, uint32_t size, uint32_t reg)
{
	const struct vkfd_device_ops *ops = kfdsim_device_ops();
	struct kfdsim_config cfg;
	struct drm_amdgpu_info in;
	struct kfdsim *sim;
	int fd;

	kfdsim_config_default(&cfg);
	assert_int_equal(kfdsim_config_from_env(&cfg), 0);
	sim = kfdsim_create(&cfg);
	assert_non_null(sim);
	fd = ops->open_render(sim, kfdsim_render_minor(sim, 0));
	assert_true(fd >= 0);
	memset(&in, 0, sizeof(in));
	in.query = query;
	in.return_pointer = (uintptr_t)out;
	in.return_size = size;
	in.read_mmr_reg.dword_offset = reg;
	in.read_mmr_reg.count = 1;
	in.read_mmr_reg.instance = 0xffffffff;
	assert_int_equal(ops->ioctl(sim, fd, DRM_IOCTL_AMDGPU_INFO, &in), 0);
	ops->close(sim, fd);
	kfdsim_destroy(sim);
}

static void test_feature_offered(void **state)
{
	struct vkfd_capset c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(vkfd_host_capset_fill(VKFD_PROTO_VERSION_MAX, &c, sizeof(c)), sizeof(c));
	assert_true(c.features & VKFD_FEAT_AMDGPU_QUERY);
	assert_true(c.features & VKFD_FEAT_SIM_DEVICE);
}

static void test_version_and_accel(void **state)
{
	struct harness *h = *state;
	struct vkfd_amdgpu_drm_version v;
	struct rsp r;
	uint32_t accel;

	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_DRM_VERSION, sizeof(v), 0, 0, &r), 0);
	assert_int_equal(r.hdr.size, sizeof(v));
	memcpy(&v, r.data, sizeof(v));
	assert_int_equal(v.major, 3);
	assert_string_equal(v.name, "amdgpu");
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_ACCEL_WORKING, 4, 0, 0, &r), 0);
	assert_int_equal(r.hdr.size, 4);
	memcpy(&accel, r.data, 4);
	assert_int_equal(accel, 1);
}

static void test_dev_info_matches_device(void **state)
{
	struct harness *h = *state;
	struct drm_amdgpu_info_device mine;
	struct rsp r;
	uint32_t reg = 0, want = 0;

	memset(&mine, 0, sizeof(mine));
	direct(AMDGPU_INFO_DEV_INFO, &mine, sizeof(mine), 0);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_DEV_INFO, sizeof(mine), 0, 0, &r), 0);
	assert_int_equal(r.hdr.size, sizeof(mine));
	assert_memory_equal(r.data, &mine, sizeof(mine));
	assert_true(mine.device_id != 0 && mine.cu_active_number != 0);

	/* a bigger capacity than the device's struct: the tail is zero,
	 * never stale host bytes */
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_DEV_INFO, VKFD_MAX_AMDGPU_QUERY, 0, 0, &r), 0);
	assert_int_equal(r.hdr.size, VKFD_MAX_AMDGPU_QUERY);
	assert_memory_equal(r.data, &mine, sizeof(mine));
	for (size_t i = sizeof(mine); i < VKFD_MAX_AMDGPU_QUERY; i++)
		assert_int_equal(r.data[i], 0);
	/* a smaller one: a prefix */
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_DEV_INFO, 8, 0, 0, &r), 0);
	assert_int_equal(r.hdr.size, 8);
	assert_memory_equal(r.data, &mine, 8);

	direct(AMDGPU_INFO_READ_MMR_REG, &want, sizeof(want), 0x263e);
	assert_int_equal(
	    q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 4, 0x263e, 1 | (0xffffffffull << 32), &r), 0);
	memcpy(&reg, r.data, 4);
	assert_int_equal(reg, want);
	assert_true(reg != 0);
}

static void test_memory_follows_quota(void **state)
{
	struct harness *h = *state;
	struct drm_amdgpu_info_vram_gtt vg;
	struct drm_amdgpu_memory_info m;
	uint64_t va = h_va(h, 2 << 20), handle;
	struct rsp r;

	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_VRAM_GTT, sizeof(vg), 0, 0, &r), 0);
	memcpy(&vg, r.data, sizeof(vg));
	assert_int_equal(vg.vram_size, VRAM_QUOTA);
	assert_true(vg.gtt_size > 0);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_MEMORY, sizeof(m), 0, 0, &r), 0);
	memcpy(&m, r.data, sizeof(m));
	assert_int_equal(m.vram.total_heap_size, VRAM_QUOTA);
	assert_true(m.vram.max_allocation <= VRAM_QUOTA);
	assert_int_equal(m.vram.heap_usage, 0);

	assert_int_equal(h_alloc(h, va, 2 << 20, VRAM, &handle, NULL), 0);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_MEMORY, sizeof(m), 0, 0, &r), 0);
	memcpy(&m, r.data, sizeof(m));
	assert_int_equal(m.vram.heap_usage, 2 << 20);
	h_free(h, handle);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_MEMORY, sizeof(m), 0, 0, &r), 0);
	memcpy(&m, r.data, sizeof(m));
	assert_int_equal(m.vram.heap_usage, 0);
}

static void test_hw_ip_fw(void **state)
{
	struct harness *h = *state;
	struct drm_amdgpu_info_hw_ip ip;
	struct drm_amdgpu_info_firmware fw;
	struct rsp r;
	uint32_t n;

	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_HW_IP_COUNT, 4, AMDGPU_HW_IP_COMPUTE, 0, &r), 0);
	memcpy(&n, r.data, 4);
	assert_int_equal(n, 1);
	assert_int_equal(
	    q(h, VKFD_AMDGPU_QUERY_HW_IP_INFO, sizeof(ip), AMDGPU_HW_IP_COMPUTE, 0, &r), 0);
	memcpy(&ip, r.data, sizeof(ip));
	assert_true(ip.available_rings != 0);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_HW_IP_INFO, sizeof(ip), AMDGPU_HW_IP_NUM, 0, &r),
			 -EINVAL);
	assert_int_equal(
	    q(h, VKFD_AMDGPU_QUERY_FW_VERSION, sizeof(fw), AMDGPU_INFO_FW_GFX_MEC, 0, &r), 0);
	memcpy(&fw, r.data, sizeof(fw));
	assert_true(fw.ver != 0);
}

static void test_bounds(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_amdgpu_query req;
	struct rsp r;

	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_DEV_INFO, 0, 0, 0, &r), -EINVAL);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_DEV_INFO, VKFD_MAX_AMDGPU_QUERY + 1, 0, 0, &r),
			 -EINVAL);
	assert_int_equal(q(h, 0x99, 64, 0, 0, &r), -EINVAL);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_ACCEL_WORKING, 3, 0, 0, &r), -EINVAL);
	/* register reads: host allow-list, count and capacity first */
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 4, 0x1234, 1, &r), -EINVAL);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 4, 0x263e, 0, &r), -EINVAL);
	assert_int_equal(
	    q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 64, 0x2644, VKFD_MAX_MMR_REGS + 1, &r), -EINVAL);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 4, 0x2644, 2, &r), -EINVAL);
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 4, 0x263e | (1ull << 32), 1, &r),
			 -EINVAL);
	/* allowed by the host, not by the device's (gfx9) list: forwarded */
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_READ_MMR_REG, 4, 0x2644, 1, &r), -EFAULT);
	/* unknown gpu */
	memset(&req, 0, sizeof(req));
	req.gpu_id = h->gpu_id ^ 0x5555;
	req.query = VKFD_AMDGPU_QUERY_ACCEL_WORKING;
	req.out_size = 4;
	assert_int_equal(h_call(h, VKFD_CMD_AMDGPU_QUERY, &req, sizeof(req), NULL, 0), -EINVAL);
	/* the context survives all of it */
	assert_int_equal(q(h, VKFD_AMDGPU_QUERY_ACCEL_WORKING, 4, 0, 0, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_feature_offered),
	    cmocka_unit_test(test_version_and_accel),
	    cmocka_unit_test(test_dev_info_matches_device),
	    cmocka_unit_test(test_memory_follows_quota),
	    cmocka_unit_test(test_hw_ip_fw),
	    cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
