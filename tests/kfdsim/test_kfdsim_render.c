// SPDX-License-Identifier: MIT
/*
 * kfdsim render-node conformance: the DRM and AMDGPU_INFO ioctls libdrm_amdgpu
 * issues, checked against libdrm's own UAPI headers and against the KFD view
 * of the same GPU (sysfs topology, GET_TILE_CONFIG, memory accounting).
 */
#include "sim_fixture.h"

#include <limits.h>

#include <amdgpu_drm.h>
#include <drm.h>

static char *node_props(struct fx *f, unsigned gpu)
{
	static char path[PATH_MAX + 128];
	const char *root = f->ops->sysfs_root(f->sim);
	unsigned long long minor;

	for (unsigned n = 0; n < 16; n++) {
		snprintf(path, sizeof(path),
			 "%s/sys/devices/virtual/kfd/kfd/topology/nodes/%u/properties", root, n);
		if (fx_prop(path, "drm_render_minor", &minor) == 0 &&
		    (int)minor == kfdsim_render_minor(f->sim, gpu))
			return path;
	}
	fail_msg("no topology node for gpu %u", gpu);
	return NULL;
}

static unsigned long long prop(const char *path, const char *key)
{
	unsigned long long v = 0;

	assert_int_equal(fx_prop(path, key, &v), 0);
	return v;
}

static int info(struct fx *f, unsigned gpu, struct drm_amdgpu_info *in)
{
	return f->ops->ioctl(f->sim, f->rfd[gpu], DRM_IOCTL_AMDGPU_INFO, in);
}

static int query(struct fx *f, unsigned gpu, uint32_t q, void *out, uint32_t size)
{
	struct drm_amdgpu_info in;

	memset(&in, 0, sizeof(in));
	in.query = q;
	in.return_pointer = (uintptr_t)out;
	in.return_size = size;
	return info(f, gpu, &in);
}

static struct fx *new_sim(const char *target, uint64_t vram)
{
	struct kfdsim_config cfg;

	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "%s", target);
	cfg.vram_size = vram;
	return fx_new(&cfg, true);
}

static void test_version_and_client(void **state)
{
	struct fx *f = new_sim("gfx90a", 4ULL << 30);
	struct drm_version v;
	struct drm_client c;
	char name[32], date[32], desc[32];

	(void)state;
	/* libdrm's drmGetVersion: lengths first, then the strings */
	memset(&v, 0, sizeof(v));
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_VERSION, &v), 0);
	assert_int_equal(v.version_major, 3);
	assert_int_equal(v.name_len, strlen("amdgpu"));
	assert_true(v.date_len > 0 && v.desc_len > 0);
	memset(name, 'X', sizeof(name));
	memset(date, 0, sizeof(date));
	memset(desc, 0, sizeof(desc));
	v.name = name;
	v.date = date;
	v.desc = desc;
	v.date_len = sizeof(date) - 1;
	v.desc_len = sizeof(desc) - 1;
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_VERSION, &v), 0);
	assert_memory_equal(name, "amdgpu", 6);
	assert_int_equal(name[6], 'X'); /* no terminator, like the kernel */
	/* a short buffer gets only what fits, the length says the whole */
	memset(name, 'X', sizeof(name));
	v.name_len = 2;
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_VERSION, &v), 0);
	assert_memory_equal(name, "amXXXX", 6);
	assert_int_equal(v.name_len, 6);
	v.name = (char *)16; /* unmapped */
	v.name_len = 6;
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_VERSION, &v), -EFAULT);

	memset(&c, 0xff, sizeof(c));
	c.idx = 0;
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_GET_CLIENT, &c), 0);
	assert_int_equal(c.auth, 1);
	assert_int_equal(c.pid, (unsigned long)getpid());
	assert_int_equal(c.magic, 0);
	c.idx = 1;
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_GET_CLIENT, &c), -EINVAL);
	/* DRM ioctls are render-node ioctls: the KFD fd does not take them */
	assert_int_not_equal(f->ops->ioctl(f->sim, f->kfd, DRM_IOCTL_VERSION, &v), 0);
	fx_free(f);
}

static void check_dev_info(const char *target, uint32_t family)
{
	struct fx *f = new_sim(target, 8ULL << 30);
	struct drm_amdgpu_info_device d;
	struct kfd_ioctl_get_tile_config_args tc;
	uint32_t tiles[32], macro[16], reg = 0, accel = 0;
	const char *p = node_props(f, 0);
	unsigned bits = 0;

	memset(&d, 0, sizeof(d));
	assert_int_equal(query(f, 0, AMDGPU_INFO_ACCEL_WORKING, &accel, sizeof(accel)), 0);
	assert_int_equal(accel, 1);
	assert_int_equal(query(f, 0, AMDGPU_INFO_DEV_INFO, &d, sizeof(d)), 0);
	assert_int_equal(d.family, family);
	assert_int_equal(d.device_id, prop(p, "device_id"));
	assert_int_equal(d.cu_active_number, prop(p, "simd_count") / prop(p, "simd_per_cu"));
	assert_int_equal(d.num_shader_engines * d.num_shader_arrays_per_engine,
			 prop(p, "array_count"));
	assert_int_equal(d.num_shader_arrays_per_engine, prop(p, "simd_arrays_per_engine"));
	assert_int_equal(d.num_cu_per_sh, prop(p, "cu_per_simd_array"));
	assert_int_equal(d.max_engine_clock, prop(p, "max_engine_clk_fcompute") * 1000);
	assert_int_equal(d.wave_front_size, prop(p, "wave_front_size"));
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 4; j++)
			bits += (unsigned)__builtin_popcount(d.cu_bitmap[i][j]);
	assert_int_equal(bits, d.cu_active_number);
	assert_true(d.gpu_counter_freq > 0);
	assert_true(d.external_rev > d.chip_rev);
	assert_true(d.virtual_address_offset < d.virtual_address_max);
	assert_true(d.high_va_offset < d.high_va_max);
	assert_int_equal(d.virtual_address_alignment, 4096);

	/* GB_ADDR_CONFIG as libdrm reads it equals KFD's tile config */
	memset(&tc, 0, sizeof(tc));
	tc.gpu_id = f->gpu_id[0];
	tc.tile_config_ptr = (uintptr_t)tiles;
	tc.macro_tile_config_ptr = (uintptr_t)macro;
	tc.num_tile_configs = 32;
	tc.num_macro_tile_configs = 16;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_TILE_CONFIG, &tc), 0);
	{
		struct drm_amdgpu_info in;

		memset(&in, 0, sizeof(in));
		in.query = AMDGPU_INFO_READ_MMR_REG;
		in.return_pointer = (uintptr_t)&reg;
		in.return_size = sizeof(reg);
		in.read_mmr_reg.dword_offset = 0x263e;
		in.read_mmr_reg.count = 1;
		in.read_mmr_reg.instance = 0xffffffff;
		assert_int_equal(info(f, 0, &in), 0);
		assert_int_equal(reg, tc.gb_addr_config);
	}
	fx_free(f);
}

static void test_dev_info_gfx90a(void **state)
{
	(void)state;
	check_dev_info("gfx90a", AMDGPU_FAMILY_AI);
}

static void test_dev_info_gfx1030(void **state)
{
	(void)state;
	check_dev_info("gfx1030", AMDGPU_FAMILY_NV);
}

static void test_mmr_whitelist(void **state)
{
	struct fx *f = new_sim("gfx90a", 4ULL << 30);
	struct drm_amdgpu_info in;
	uint32_t regs[200];

	(void)state;
	memset(&in, 0, sizeof(in));
	in.query = AMDGPU_INFO_READ_MMR_REG;
	in.return_pointer = (uintptr_t)regs;
	in.return_size = sizeof(regs);
	in.read_mmr_reg.instance = 0xffffffff;
	in.read_mmr_reg.dword_offset = 0x2644; /* GB_TILE_MODE0: not on gfx9 */
	in.read_mmr_reg.count = 1;
	assert_int_equal(info(f, 0, &in), -EFAULT);
	in.read_mmr_reg.dword_offset = 0x263e; /* a run past the allowed one */
	in.read_mmr_reg.count = 2;
	assert_int_equal(info(f, 0, &in), -EFAULT);
	in.read_mmr_reg.count = 129;
	assert_int_equal(info(f, 0, &in), -EINVAL);
	in.read_mmr_reg.dword_offset = 0xffffffff;
	in.read_mmr_reg.count = 2;
	assert_int_equal(info(f, 0, &in), -EFAULT);
	fx_free(f);
}

static void test_memory_follows_allocations(void **state)
{
	struct fx *f = new_sim("gfx90a", 4ULL << 30);
	struct drm_amdgpu_info_vram_gtt vg;
	struct drm_amdgpu_memory_info m0, m1;
	uint64_t h = 0, off = 0, size = 8ULL << 20;

	(void)state;
	assert_int_equal(query(f, 0, AMDGPU_INFO_VRAM_GTT, &vg, sizeof(vg)), 0);
	assert_int_equal(vg.vram_size, 4ULL << 30);
	assert_int_equal(vg.gtt_size, f->cfg.gtt_size);
	assert_int_equal(query(f, 0, AMDGPU_INFO_MEMORY, &m0, sizeof(m0)), 0);
	assert_int_equal(m0.vram.total_heap_size, 4ULL << 30);
	assert_true(m0.vram.max_allocation <= m0.vram.usable_heap_size);
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, fx_va(f, size), size, &h, &off), 0);
	assert_int_equal(query(f, 0, AMDGPU_INFO_MEMORY, &m1, sizeof(m1)), 0);
	assert_int_equal(m1.vram.heap_usage, m0.vram.heap_usage + size);
	assert_int_equal(fx_free_bo(f, h), 0);
	assert_int_equal(query(f, 0, AMDGPU_INFO_MEMORY, &m1, sizeof(m1)), 0);
	assert_int_equal(m1.vram.heap_usage, m0.vram.heap_usage);
	fx_free(f);
}

static void test_hw_ip_and_fw(void **state)
{
	struct fx *f = new_sim("gfx90a", 4ULL << 30);
	const char *p = node_props(f, 0);
	struct drm_amdgpu_info_hw_ip ip;
	struct drm_amdgpu_info_firmware fw;
	struct drm_amdgpu_info in;
	uint32_t count = 0;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.query = AMDGPU_INFO_HW_IP_COUNT;
	in.return_pointer = (uintptr_t)&count;
	in.return_size = sizeof(count);
	in.query_hw_ip.type = AMDGPU_HW_IP_DMA;
	assert_int_equal(info(f, 0, &in), 0);
	assert_int_equal(count, prop(p, "num_sdma_engines"));
	in.query = AMDGPU_INFO_HW_IP_INFO;
	in.return_pointer = (uintptr_t)&ip;
	in.return_size = sizeof(ip);
	assert_int_equal(info(f, 0, &in), 0);
	assert_int_equal(__builtin_popcount(ip.available_rings), prop(p, "num_sdma_engines"));
	in.query_hw_ip.type = AMDGPU_HW_IP_COMPUTE;
	assert_int_equal(info(f, 0, &in), 0);
	assert_true(ip.available_rings != 0);
	assert_int_equal(ip.hw_ip_version_major, prop(p, "gfx_target_version") / 10000);
	in.query_hw_ip.type = AMDGPU_HW_IP_NUM;
	assert_int_equal(info(f, 0, &in), -EINVAL);
	in.query_hw_ip.type = AMDGPU_HW_IP_COMPUTE;
	in.query_hw_ip.ip_instance = 1;
	assert_int_equal(info(f, 0, &in), -EINVAL);

	memset(&in, 0, sizeof(in));
	in.query = AMDGPU_INFO_FW_VERSION;
	in.return_pointer = (uintptr_t)&fw;
	in.return_size = sizeof(fw);
	in.query_fw.fw_type = AMDGPU_INFO_FW_GFX_MEC;
	assert_int_equal(info(f, 0, &in), 0);
	assert_int_equal(fw.ver, prop(p, "fw_version"));
	in.query_fw.fw_type = 0x99;
	assert_int_equal(info(f, 0, &in), -EINVAL);
	fx_free(f);
}

static void test_hostile_info(void **state)
{
	struct fx *f = new_sim("gfx90a", 4ULL << 30);
	uint8_t buf[512];
	struct drm_amdgpu_info in;

	(void)state;
	/* the answer is cut to return_size; nothing past it is written */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(query(f, 0, AMDGPU_INFO_DEV_INFO, buf, 8), 0);
	for (size_t i = 8; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);
	/* a longer buffer (newer libdrm) gets the modelled struct, rest intact */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(query(f, 0, AMDGPU_INFO_DEV_INFO, buf, sizeof(buf)), 0);
	assert_int_equal(buf[sizeof(struct drm_amdgpu_info_device)], 0xa5);
	assert_int_equal(buf[sizeof(buf) - 1], 0xa5);

	assert_int_equal(query(f, 0, AMDGPU_INFO_DEV_INFO, NULL, 64), -EINVAL);
	assert_int_equal(query(f, 0, AMDGPU_INFO_DEV_INFO, buf, 0), -EINVAL);
	assert_int_equal(query(f, 0, AMDGPU_INFO_DEV_INFO, (void *)16, 64), -EFAULT);
	assert_int_equal(query(f, 0, 0x7777, buf, 64), -EINVAL);
	/* the argument itself unreadable */
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], DRM_IOCTL_AMDGPU_INFO, (void *)16),
			 -EFAULT);
	/* an unknown DRM ioctl number, like drm_ioctl */
	memset(&in, 0, sizeof(in));
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0],
				       DRM_IOW(DRM_COMMAND_BASE + 0x3f, struct drm_amdgpu_info),
				       &in),
			 -EINVAL);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_version_and_client),
	    cmocka_unit_test(test_dev_info_gfx90a),
	    cmocka_unit_test(test_dev_info_gfx1030),
	    cmocka_unit_test(test_mmr_whitelist),
	    cmocka_unit_test(test_memory_follows_allocations),
	    cmocka_unit_test(test_hw_ip_and_fw),
	    cmocka_unit_test(test_hostile_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
