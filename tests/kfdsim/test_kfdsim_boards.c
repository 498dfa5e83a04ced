// SPDX-License-Identifier: MIT
/* kfdsim conformance: what the topology says about each modelled board,
 * as the kernel reports it for that board (kfd_topology.c, kfd_crat.c):
 * RAS/ECC capability bits, VRAM bus width and clock. */
#include <linux/kfd_sysfs.h>

#include "sim_fixture.h"

#define TOPO_DIR "/sys/devices/virtual/kfd/kfd/topology"

/* The bit KFD 1.3 and older used for SRAM EDC (1.4 moved it to bit 26). */
#define SRAM_EDC_BEFORE_1_4 0x00080000u

struct board {
	const char *target;
	bool ras; /* SRAM + memory EDC and RAS event notification */
	unsigned long long width, clk;
};

static void check_board(const struct board *bd, uint32_t kfd_minor)
{
	struct kfdsim_config cfg;
	char path[512];
	unsigned long long v = 0;
	const char *root;
	struct fx *f;
	uint32_t sram_bit = kfd_minor >= 4 ? HSA_CAP_SRAM_EDCSUPPORTED : SRAM_EDC_BEFORE_1_4;
	uint32_t other_bit = kfd_minor >= 4 ? SRAM_EDC_BEFORE_1_4 : HSA_CAP_SRAM_EDCSUPPORTED;

	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "%s", bd->target);
	cfg.kfd_minor = kfd_minor;
	f = fx_new(&cfg, false);
	root = f->ops->sysfs_root(f->sim);
	snprintf(path, sizeof(path), "%s%s/nodes/1/properties", root, TOPO_DIR);
	assert_int_equal(fx_prop(path, "capability", &v), 0);
	assert_int_equal(!!(v & sram_bit), bd->ras);
	assert_int_equal(v & other_bit, 0);
	assert_int_equal(!!(v & HSA_CAP_MEM_EDCSUPPORTED), bd->ras);
	assert_int_equal(!!(v & HSA_CAP_RASEVENTNOTIFY), bd->ras);
	/* the SVM API from KFD 1.5 on */
	assert_int_equal(!!(v & HSA_CAP_SVMAPI_SUPPORTED), kfd_minor >= 5);
	snprintf(path, sizeof(path), "%s%s/nodes/1/mem_banks/0/properties", root, TOPO_DIR);
	assert_int_equal(fx_prop(path, "width", &v), 0);
	assert_int_equal(v, bd->width);
	assert_int_equal(fx_prop(path, "mem_clk_max", &v), 0);
	assert_int_equal(v, bd->clk);
	fx_free(f);
}

/* Instinct MI210: RAS on, sramecc+ (ROCr reads the SRAM EDC bit), ECC
 * memory; 4096-bit HBM2e at 1.6 GHz. */
static void test_mi210(void **state)
{
	static const struct board mi210 = {"gfx90a", true, 4096, 1600};

	(void)state;
	check_board(&mi210, 17);
	check_board(&mi210, 3);
}

/* Radeon RX 6900 XT: no RAS; 256-bit GDDR6, memory clock 1000 MHz. */
static void test_rx6900xt(void **state)
{
	static const struct board rx = {"gfx1030", false, 256, 1000};

	(void)state;
	check_board(&rx, 17);
}

#define CAP_TRAP_DEBUG     0x00008000u /* HSA_CAP_TRAP_DEBUG_SUPPORT */
#define CAP_TRAP_OVERRIDE  0x00010000u
#define CAP_LAUNCH_MODE    0x00020000u
#define CAP_PRECISE_MEMORY 0x00040000u
#define CAP_DEBUG_FIRMWARE 0x20000000u
#define DBG_DISPATCH_INFO  0x00000400u /* HSA_DBG_DISPATCH_INFO_ALWAYS_VALID */
#define DBG_WATCH_LO_MASK  0x0000000fu

static void check_debug_caps(const char *target, uint32_t kfd_minor, uint32_t want_cap,
			     uint32_t want_prop, uint32_t watch_lo)
{
	struct kfdsim_config cfg;
	char path[512];
	unsigned long long cap = 0, prop = 0;
	struct fx *f;

	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "%s", target);
	cfg.kfd_minor = kfd_minor;
	f = fx_new(&cfg, false);
	snprintf(path, sizeof(path), "%s%s/nodes/1/properties", f->ops->sysfs_root(f->sim),
		 TOPO_DIR);
	assert_int_equal(fx_prop(path, "capability", &cap), 0);
	assert_int_equal(fx_prop(path, "debug_prop", &prop), 0);
	assert_int_equal(cap & (CAP_TRAP_DEBUG | CAP_TRAP_OVERRIDE | CAP_LAUNCH_MODE |
				CAP_PRECISE_MEMORY | CAP_DEBUG_FIRMWARE),
			 want_cap);
	assert_int_equal(prop & DBG_DISPATCH_INFO, want_prop);
	assert_int_equal(prop & DBG_WATCH_LO_MASK, watch_lo);
	fx_free(f);
}

/* kfd_topology_set_capabilities (6.4+, KFD 1.13): trap debugging, wave
 * launch override and mode everywhere; GC 9.4.2 (gfx90a) precise memory,
 * GC 10.3 (gfx1030) dispatch info in the ttmps instead; the MEC firmware
 * of both is new enough for the debugger. Below 1.13 none of it. */
static void test_debug_capabilities(void **state)
{
	const uint32_t base =
	    CAP_TRAP_DEBUG | CAP_TRAP_OVERRIDE | CAP_LAUNCH_MODE | CAP_DEBUG_FIRMWARE;

	(void)state;
	check_debug_caps("gfx90a", 17, base | CAP_PRECISE_MEMORY, 0, 6);
	check_debug_caps("gfx1030", 17, base, DBG_DISPATCH_INFO, 7);
	check_debug_caps("gfx90a", 13, base | CAP_PRECISE_MEMORY, 0, 6);
	check_debug_caps("gfx90a", 12, 0, 0, 6);
	check_debug_caps("gfx1030", 12, 0, 0, 7);
}

/* KFD 1.18: SET_MEMORY_POLICY's last word is misc_process_flag; only GC
 * 9.5.0 acts on MFMA high precision, so on the modelled boards the call
 * succeeds and nothing changes (the field was padding before). */
static void test_misc_process_flag(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_set_memory_policy_args a;
	struct fx *f;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 18;
	f = fx_new(&cfg, true);
	memset(&a, 0, sizeof(a));
	a.gpu_id = f->gpu_id[0];
	a.default_policy = KFD_IOC_CACHE_POLICY_COHERENT;
	a.alternate_policy = KFD_IOC_CACHE_POLICY_COHERENT;
	memcpy((uint8_t *)&a + sizeof(a) - 4, &(uint32_t){1u}, 4); /* MFMA_HIGH_PRECISION */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mi210),
	    cmocka_unit_test(test_rx6900xt),
	    cmocka_unit_test(test_misc_process_flag),
	    cmocka_unit_test(test_debug_capabilities),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
