// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: KFD ioctls libhsakmt
 * issues, driven through shim_backend_vkfd against an in-process host
 * context on kfdsim (direct transport), checking what is written back and
 * the errno of each bad argument.
 * This program: the topology, version, apertures, VM acquisition, the
 * simple setters, clock counters, struct sizes and the render node.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "translate_harness.h"

static void test_topology_tree(void **state)
{
	char buf[256];

	(void)state;
	/* node 0 is the guest's CPU, composed from its own CPUs */
	assert_true(read_file("nodes/0/gpu_id", buf, sizeof(buf)) > 0);
	assert_int_equal(strtol(buf, NULL, 10), 0);
	assert_int_equal(prop("nodes/0/properties", "cpu_cores_count"),
			 sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(prop("nodes/0/properties", "simd_count"), 0);
	assert_true(prop("nodes/0/mem_banks/0/properties", "size_in_bytes") > 0);
	/* the host's GPU node 0 follows it */
	assert_true(gpu_id != 0);
	assert_true(prop("nodes/1/properties", "simd_count") > 0);
	assert_true(minor_ >= 128);
	/* GPU -> CPU link added and counted */
	{
		long long n = prop("nodes/1/properties", "io_links_count");
		char rel[128];

		assert_true(n >= 1);
		snprintf(rel, sizeof(rel), "nodes/1/io_links/%lld/properties", n - 1);
		assert_int_equal(prop(rel, "node_from"), 1);
		assert_int_equal(prop(rel, "node_to"), 0);
	}
	assert_int_equal(prop("nodes/0/io_links/0/properties", "node_to"), 1);
	assert_true(read_file("system_properties", buf, sizeof(buf)) > 0);
	assert_true(read_file("generation_id", buf, sizeof(buf)) > 0);
	/* host-identifying properties are not in the guest's tree */
	assert_int_equal(prop("nodes/1/properties", "unique_id"), -1);
}

static void test_version_and_unknown(void **state)
{
	struct kfd_ioctl_get_version_args v = {0, 0};
	uint64_t junk[8] = {0};

	(void)state;
	assert_int_equal(kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v), 0);
	assert_int_equal(v.major_version, 1);
	assert_true(v.minor_version >= 1);
	/* capped at the newest version the guest serves: a 1.19 host's
	 * CREATE_PROCESS is not carried */
	assert_true(v.minor_version <= BK_KFD_MINOR_MAX);
	if (getenv("VKFDSIM_KFD_MINOR") && !strcmp(getenv("VKFDSIM_KFD_MINOR"), "19"))
		assert_int_equal(v.minor_version, BK_KFD_MINOR_MAX);
	/* unknown and out-of-tree numbers, and unsupported features */
	assert_int_equal(kio(kfd, RW, 0x82, 16, junk), -ENOTTY);
	assert_int_equal(kio(kfd, RW, 0x80, 16, junk), -ENOTTY);
	assert_int_equal(kio(kfd, RW, 0x85, 16, junk), -ENOTTY);
	assert_int_equal(kio(kfd, RW, 0x60, 16, junk), -ENOTTY);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CRIU_OP), 56, junk), -EACCES);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_QUEUE_WAVE_STATE), 24, junk), -EFAULT);
	/* the debugger: not carried, refused as a kernel without HWS */
	assert_int_equal(kio(kfd, RW, _IOC_NR(VKFD_KFD_IOC_DBG_TRAP), 32, junk), -EINVAL);
	/* SMI for a GPU this process does not have */
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SMI_EVENTS), 8, junk), -EINVAL);
	assert_int_equal(kio(kfd, RW, 0x0d, 8, junk), -ENOTTY);
	assert_int_equal(kio(kfd, RW, _IOC_NR(VKFD_KFD_IOC_CREATE_PROCESS), 8, junk), -ENOTTY);
	/* SVM is served (test_translate_svm): address 0 is no range */
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SVM), 24, junk), -EINVAL);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_IMPORT_DMABUF), 24, junk), -EINVAL);
	assert_int_equal(B.ioctl(kfd, _IOC(RW, 'd', 1, 8), junk), -ENOTTY);
	/* a bad argument pointer is EFAULT, not a crash */
	assert_int_equal(
	    kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), 8, (void *)(uintptr_t)8), -EFAULT);
	/* not our fd */
	assert_int_equal(B.ioctl(12345, _IOC(_IOC_READ, 'K', 1, 8), &v), -EBADF);
}

static void test_apertures(void **state)
{
	struct kfd_process_device_apertures ap[4];
	struct kfd_ioctl_get_process_apertures_new_args a;
	struct kfd_ioctl_get_process_apertures_args old;

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW), sizeof(a), &a),
			 0);
	assert_int_equal(a.num_of_nodes, 1); /* count first */
	memset(ap, 0xa5, sizeof(ap));
	a.kfd_process_device_apertures_ptr = (uintptr_t)ap;
	a.num_of_nodes = 4;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW), sizeof(a), &a),
			 0);
	assert_int_equal(a.num_of_nodes, 1);
	assert_int_equal(ap[0].gpu_id, gpu_id);
	assert_true(ap[0].gpuvm_limit > ap[0].gpuvm_base);
	assert_int_equal(ap[0].pad, 0);
	/* entries past the count are untouched */
	assert_int_equal(ap[1].gpu_id, 0xa5a5a5a5u);
	a.kfd_process_device_apertures_ptr = 16;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW), sizeof(a), &a),
			 -EFAULT);
	memset(&old, 0xff, sizeof(old));
	assert_int_equal(
	    kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_PROCESS_APERTURES), sizeof(old), &old), 0);
	assert_int_equal(old.num_of_nodes, 1);
	assert_int_equal(old.process_apertures[0].gpu_id, gpu_id);
	assert_int_equal(old.process_apertures[1].gpu_id, 0);
}

static void test_acquire_vm(void **state)
{
	struct kfd_ioctl_acquire_vm_args a;
	int other;

	(void)state;
	/* the same render fd again is fine, as in the kernel */
	a.drm_fd = (uint32_t)rfd;
	a.gpu_id = gpu_id;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(a), &a), 0);
	/* another render fd for an already acquired GPU */
	other = B.open_render(minor_, O_RDWR);
	assert_true(other >= 0);
	a.drm_fd = (uint32_t)other;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(a), &a),
			 -EBUSY);
	B.close(other);
	a.drm_fd = 99999;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(a), &a),
			 -EINVAL);
	a.drm_fd = (uint32_t)rfd;
	a.gpu_id = gpu_id ^ 0x5a5a;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(a), &a),
			 -EINVAL);
	assert_int_equal(B.open_render(7, O_RDWR), -ENOENT);
}

static void test_simple_setters(void **state)
{
	struct kfd_ioctl_set_memory_policy_args mp;
	struct kfd_ioctl_set_scratch_backing_va_args sv;
	struct kfd_ioctl_set_trap_handler_args th;
	struct kfd_ioctl_set_xnack_mode_args x = {-1};

	(void)state;
	memset(&mp, 0, sizeof(mp));
	mp.gpu_id = gpu_id;
	mp.default_policy = 0;
	mp.alternate_policy = 1;
	assert_int_equal(
	    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_MEMORY_POLICY), sizeof(mp), &mp), 0);
	mp.gpu_id = 0xdead;
	assert_int_equal(
	    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_MEMORY_POLICY), sizeof(mp), &mp), -EINVAL);
	memset(&sv, 0, sizeof(sv));
	sv.gpu_id = gpu_id;
	sv.va_addr = va_reserve(1 << 20) >> 16;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SET_SCRATCH_BACKING_VA), sizeof(sv), &sv),
			 0);
	memset(&th, 0, sizeof(th));
	th.gpu_id = gpu_id;
	th.tba_addr = va_reserve(PAGE);
	th.tma_addr = va_reserve(PAGE);
	assert_int_equal(
	    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_TRAP_HANDLER), sizeof(th), &th), 0);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SET_XNACK_MODE), sizeof(x), &x), 0);
	assert_true(x.xnack_enabled == 0 || x.xnack_enabled == 1);
}

static void test_clock_counters(void **state)
{
	struct kfd_ioctl_get_clock_counters_args c1, c2;
	struct timespec ts;
	uint64_t before, after;

	(void)state;
	memset(&c1, 0, sizeof(c1));
	c1.gpu_id = gpu_id;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	before = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_CLOCK_COUNTERS), sizeof(c1), &c1), 0);
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	after = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	/* the guest's own raw monotonic clock, in ns */
	assert_true(c1.cpu_clock_counter >= before);
	assert_true(c1.cpu_clock_counter <= after);
	assert_int_equal(c1.system_clock_freq, 1000000000ull);
	usleep(20000);
	c2 = c1;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_CLOCK_COUNTERS), sizeof(c2), &c2), 0);
	usleep(2000);
	c1 = c2;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_CLOCK_COUNTERS), sizeof(c1), &c1), 0);
	assert_true(c1.gpu_clock_counter > c2.gpu_clock_counter);
	assert_true(c1.system_clock_counter - c2.system_clock_counter >= 2000000ull);
	/* a node without GPU (ROCr asks for node 0): no error, gpu counter
	 * 0, CPU clocks and frequency as for a GPU */
	c1.gpu_id = 0;
	c1.gpu_clock_counter = 1234;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_CLOCK_COUNTERS), sizeof(c1), &c1), 0);
	assert_int_equal(c1.gpu_clock_counter, 0);
	assert_int_equal(c1.system_clock_freq, 1000000000ull);
	assert_true(c1.cpu_clock_counter > c2.cpu_clock_counter);
}

static void test_sizes_and_misc(void **state)
{
	uint8_t big[64];
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	struct kfd_ioctl_get_available_memory_args am;
	struct kfd_ioctl_get_tile_config_args tc;
	uint32_t tiles[4] = {0xaaaa, 0xaaaa, 0xaaaa, 0xaaaa};
	uint64_t mva = va_reserve(PAGE);
	void *m;
	int r;

	(void)state;
	/* a longer argument than the kernel's: its tail is left alone */
	memset(big, 0xcc, sizeof(big));
	assert_int_equal(kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(big), big), 0);
	assert_int_equal(big[0], 1);
	for (size_t i = 8; i < sizeof(big); i++)
		assert_int_equal(big[i], 0xcc);
	/* a shorter one is zero-extended: no gpu_id / flags -> EINVAL, and
	 * nothing past the declared size is written */
	memset(big, 0, sizeof(big));
	memcpy(big, &(uint64_t){va_reserve(PAGE)}, 8);
	memcpy(big + 8, &(uint64_t){PAGE}, 8);
	memset(big + 32, 0xcc, 32);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU), 32, big), -EINVAL);
	for (size_t i = 32; i < sizeof(big); i++)
		assert_int_equal(big[i], 0xcc);

	memset(&am, 0, sizeof(am));
	am.gpu_id = gpu_id;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_AVAILABLE_MEMORY), sizeof(am), &am), 0);
	assert_true(am.available > 0);
	am.gpu_id = 0xdead;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_AVAILABLE_MEMORY), sizeof(am), &am),
			 -EINVAL);

	/* tile config: at most the caller's capacity is written */
	memset(&tc, 0, sizeof(tc));
	tc.gpu_id = gpu_id;
	tc.tile_config_ptr = (uintptr_t)tiles;
	tc.num_tile_configs = 2;
	r = kio(kfd, RW, _IOC_NR(AMDKFD_IOC_GET_TILE_CONFIG), sizeof(tc), &tc);
	if (r == 0) {
		assert_true(tc.num_tile_configs <= 2);
		assert_int_equal(tiles[2], 0xaaaa);
		assert_int_equal(tiles[3], 0xaaaa);
	} else {
		fail_msg("GET_TILE_CONFIG: %d", r);
	}

	/* the HDP page: MMIO_REMAP, one page, mmap on the kfd fd */
	assert_int_equal(
	    alloc_bo(mva, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP | (1u << 31) | (1u << 26), &a),
	    0);
	assert_int_equal(a.mmap_offset & VKFD_KFD_MMAP_TYPE_MASK, VKFD_KFD_MMAP_TYPE_MMIO);
	m = B.mmap((void *)(uintptr_t)mva, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   rfd, (off_t)a.mmap_offset);
	assert_true(m == MAP_FAILED); /* not a render-node offset */
	m = B.mmap((void *)(uintptr_t)mva, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   kfd, (off_t)a.mmap_offset);
	assert_ptr_equal(m, (void *)(uintptr_t)mva);
	((volatile uint32_t *)m)[0] = 1; /* HDP_MEM_FLUSH_CNTL */
	m = B.mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, kfd, (off_t)a.mmap_offset);
	assert_true(m == MAP_FAILED); /* larger than the page */
	assert_int_equal(free_bo(a.handle), 0);
	assert_true(B.mmap(NULL, PAGE, PROT_READ, MAP_SHARED, kfd, (off_t)a.mmap_offset) ==
		    MAP_FAILED);
}

static void test_render_drm(void **state)
{
	struct {
		int32_t major, minor, patch, pad;
		uint64_t name_len, name, date_len, date, desc_len, desc;
	} v;
	char name[32];
	struct {
		uint64_t ptr;
		uint32_t size, query;
		uint32_t u[4];
	} info;
	uint32_t accel = 0;

	int r;

	(void)state;
	memset(&v, 0, sizeof(v));
	r = B.ioctl(rfd, _IOC(RW, 'd', 0x00, sizeof(v)), &v);
	/* kfdsim does not model DRM ioctls on render nodes: the host's
	 * answer is passed through unchanged (docs/guest-vkfd-backend.md) */
	if (r == -ENOTTY) {
		memset(&info, 0, sizeof(info));
		info.ptr = (uintptr_t)&accel;
		info.size = 4;
		assert_int_equal(B.ioctl(rfd, _IOC(_IOC_WRITE, 'd', 0x45, sizeof(info)), &info),
				 -ENOTTY);
		assert_int_equal(accel, 0);
	} else {
		assert_int_equal(r, 0);
		assert_int_equal(v.major, 3);
		assert_int_equal(v.name_len, 6);
		memset(name, 0, sizeof(name));
		v.name = (uintptr_t)name;
		v.name_len = sizeof(name);
		assert_int_equal(B.ioctl(rfd, _IOC(RW, 'd', 0x00, sizeof(v)), &v), 0);
		assert_string_equal(name, "amdgpu");
		memset(&info, 0, sizeof(info));
		info.ptr = (uintptr_t)&accel;
		info.size = 4;
		info.query = 0x00; /* ACCEL_WORKING */
		assert_int_equal(B.ioctl(rfd, _IOC(_IOC_WRITE, 'd', 0x45, sizeof(info)), &info), 0);
		assert_int_equal(accel, 1);
	}
	/* answered locally, whatever the device */
	v.name_len = 4;
	v.name = 8;
	assert_int_equal(B.ioctl(rfd, _IOC(RW, 'd', 0x00, 32), &v), -EINVAL);
	assert_int_equal(B.ioctl(rfd, _IOC(RW, 'd', 0x00, sizeof(v)), (void *)(uintptr_t)8),
			 -EFAULT);
	memset(&info, 0, sizeof(info));
	info.ptr = (uintptr_t)&accel;
	info.size = 4;
	info.query = 0x15; /* READ_MMR_REG with count 0 */
	assert_int_equal(B.ioctl(rfd, _IOC(_IOC_WRITE, 'd', 0x45, sizeof(info)), &info), -EINVAL);
	info.query = 0x7777;
	assert_int_equal(B.ioctl(rfd, _IOC(_IOC_WRITE, 'd', 0x45, sizeof(info)), &info), -EINVAL);
	info.query = 0;
	info.size = 0;
	assert_int_equal(B.ioctl(rfd, _IOC(_IOC_WRITE, 'd', 0x45, sizeof(info)), &info), -EINVAL);
	assert_int_equal(B.ioctl(rfd, _IOC(RW, 'd', 0x46, 32), &info), -ENOTTY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topology_tree),  cmocka_unit_test(test_version_and_unknown),
	    cmocka_unit_test(test_apertures),      cmocka_unit_test(test_acquire_vm),
	    cmocka_unit_test(test_simple_setters), cmocka_unit_test(test_clock_counters),
	    cmocka_unit_test(test_sizes_and_misc), cmocka_unit_test(test_render_drm),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
