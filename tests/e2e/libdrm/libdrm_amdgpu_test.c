// SPDX-License-Identifier: MIT
/*
 * libdrm_amdgpu on the shim's render node: the entry points ROCr and
 * libhsakmt use (amdgpu_device_initialize, amdgpu_query_info,
 * amdgpu_query_gpu_info, amdgpu_read_mm_registers,
 * amdgpu_get_marketing_name) must succeed on every GPU and agree with the
 * KFD topology the same process reads from sysfs. Run under vkfd-run,
 * natively and through vkfd. Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amdgpu.h>
#include <amdgpu_drm.h>

#include "libdrm_check.h"

static void check_gpu(unsigned node)
{
	long long minor = topo_prop(node, "drm_render_minor");
	long long gfx = topo_prop(node, "gfx_target_version");
	uint32_t major = 0, minor_v = 0, accel = 0, reg = 0;
	struct amdgpu_gpu_info gi;
	amdgpu_device_handle dev;
	const char *name;
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/dev/dri/renderD%lld", minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	if (fd < 0)
		return;
	r = amdgpu_device_initialize(fd, &major, &minor_v, &dev);
	CHECK(r == 0, "amdgpu_device_initialize: %d", r);
	if (r) {
		close(fd);
		return;
	}
	CHECK(major == 3, "DRM major %u", major);

	r = amdgpu_query_info(dev, AMDGPU_INFO_ACCEL_WORKING, sizeof(accel), &accel);
	CHECK(r == 0 && accel == 1, "ACCEL_WORKING: %d, %u", r, accel);

	memset(&gi, 0, sizeof(gi));
	r = amdgpu_query_gpu_info(dev, &gi);
	CHECK(r == 0, "amdgpu_query_gpu_info: %d", r);
	CHECK(gi.asic_id == (uint32_t)topo_prop(node, "device_id"), "asic_id %#x, topology %#llx",
	      gi.asic_id, topo_prop(node, "device_id"));
	CHECK(gi.family_id == (gfx / 10000 == 9 ? AMDGPU_FAMILY_AI : AMDGPU_FAMILY_NV),
	      "family %u for gfx_target_version %lld", gi.family_id, gfx);
	CHECK(gi.cu_active_number ==
		  (uint32_t)(topo_prop(node, "simd_count") / topo_prop(node, "simd_per_cu")),
	      "cu_active_number %u", gi.cu_active_number);
	CHECK(gi.num_shader_engines * gi.num_shader_arrays_per_engine ==
		  (uint32_t)topo_prop(node, "array_count"),
	      "%u SEs x %u SHs, topology array_count %lld", gi.num_shader_engines,
	      gi.num_shader_arrays_per_engine, topo_prop(node, "array_count"));
	CHECK(gi.max_engine_clk == (uint64_t)topo_prop(node, "max_engine_clk_fcompute") * 1000,
	      "max_engine_clk %llu kHz", (unsigned long long)gi.max_engine_clk);
	CHECK(gi.gpu_counter_freq > 0, "gpu_counter_freq 0");

	/* GB_ADDR_CONFIG as amdgpu_query_gpu_info read it at init */
	r = amdgpu_read_mm_registers(dev, 0x263e, 1, 0xffffffff, 0, &reg);
	CHECK(r == 0 && reg == gi.gb_addr_cfg && reg != 0, "GB_ADDR_CONFIG: %d, %#x vs %#x", r, reg,
	      gi.gb_addr_cfg);
	/* a register outside the allow-list is refused */
	r = amdgpu_read_mm_registers(dev, 0x1234, 1, 0xffffffff, 0, &reg);
	CHECK(r != 0, "register 0x1234 was readable");

	name = amdgpu_get_marketing_name(dev);
	CHECK(name && strstr(name, "AMD"), "marketing name %s", name ? name : "(null)");
	printf("node %u renderD%lld: asic %#x family %u CUs %u \"%s\"\n", node, minor, gi.asic_id,
	       gi.family_id, gi.cu_active_number, name ? name : "");

	amdgpu_device_deinitialize(dev);
	close(fd);
}

int main(void)
{
	unsigned gpus = 0;
	int kfd;

	/* libhsakmt opens KFD before the render nodes; through vkfd the
	 * render-node queries travel on that connection */
	kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (kfd < 0) {
		fprintf(stderr, "open /dev/kfd: %s\n", strerror(errno));
		return 1;
	}
	for (unsigned n = 0; n < 64; n++) {
		long long gpu_id = topo_prop(n, "drm_render_minor");

		if (gpu_id < 0)
			break;
		if (gpu_id == 0)
			continue; /* CPU node */
		check_gpu(n);
		gpus++;
	}
	close(kfd);
	CHECK(gpus > 0, "no GPU node in the topology");
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("PASS: %u GPU(s)\n", gpus);
	return 0;
}
