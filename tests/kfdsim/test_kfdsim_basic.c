// SPDX-License-Identifier: MIT
/* kfdsim conformance: topology, configuration, fds, version gates,
 * apertures, ACQUIRE_VM and the small per-process ioctls. */
#include "sim_fixture.h"

#define TOPO "/sys/devices/virtual/kfd/kfd/topology"

static void node_file(struct fx *f, unsigned node, const char *rel, char *out, size_t len)
{
	snprintf(out, len, "%s" TOPO "/nodes/%u/%s", f->ops->sysfs_root(f->sim), node, rel);
}

static void test_topology_gfx90a(void **state)
{
	struct fx *f = fx_new(NULL, false);
	char path[512];
	unsigned long long v;
	FILE *fp;
	unsigned gpu_id = 0;

	(void)state;
	node_file(f, 0, "properties", path, sizeof(path));
	assert_int_equal(fx_prop(path, "cpu_cores_count", &v), 0);
	assert_int_equal(v, (unsigned long long)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(fx_prop(path, "io_links_count", &v), 0);
	assert_int_equal(v, 1);
	node_file(f, 1, "properties", path, sizeof(path));
	assert_int_equal(fx_prop(path, "gfx_target_version", &v), 0);
	assert_int_equal(v, 90010);
	assert_int_equal(fx_prop(path, "vendor_id", &v), 0);
	assert_int_equal(v, 4098);
	assert_int_equal(fx_prop(path, "device_id", &v), 0);
	assert_int_equal(v, 0x740f);
	assert_int_equal(fx_prop(path, "drm_render_minor", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(fx_prop(path, "caches_count", &v), 0);
	assert_true(v > 0);
	assert_int_equal(fx_prop(path, "simd_count", &v), 0);
	assert_int_equal(v, 104 * 4);
	assert_int_equal(fx_prop(path, "wave_front_size", &v), 0);
	assert_int_equal(v, 64);
	/* the SVM API (HSA_CAP_SVMAPI_SUPPORTED), modelled from KFD 1.5 */
	assert_int_equal(fx_prop(path, "capability", &v), 0);
	assert_int_equal(v & 0x08000000ULL, 0x08000000ULL);
	node_file(f, 1, "gpu_id", path, sizeof(path));
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_int_equal(fscanf(fp, "%u", &gpu_id), 1);
	fclose(fp);
	assert_int_equal(gpu_id, f->gpu_id[0]);
	assert_true(gpu_id != 0 && gpu_id <= 0xffff);
	node_file(f, 1, "mem_banks/0/properties", path, sizeof(path));
	assert_int_equal(fx_prop(path, "heap_type", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(fx_prop(path, "size_in_bytes", &v), 0);
	assert_int_equal(v, f->cfg.vram_size);
	node_file(f, 1, "caches/0/properties", path, sizeof(path));
	assert_int_equal(fx_prop(path, "level", &v), 0);
	assert_int_equal(v, 1);
	node_file(f, 1, "io_links/0/properties", path, sizeof(path));
	assert_int_equal(fx_prop(path, "node_to", &v), 0);
	assert_int_equal(v, 0);
	snprintf(path, sizeof(path), "%s" TOPO "/system_properties", f->ops->sysfs_root(f->sim));
	assert_int_equal(fx_prop(path, "platform_oem", &v), 0);
	fx_free(f);
}

static void test_topology_gfx1030_multi(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f;
	char path[512];
	unsigned long long v;

	(void)state;
	kfdsim_config_default(&cfg);
	strcpy(cfg.target, "gfx1030");
	cfg.gpu_count = 3;
	f = fx_new(&cfg, false);
	assert_int_equal(f->ngpus, 3);
	for (unsigned i = 0; i < 3; i++) {
		node_file(f, i + 1, "properties", path, sizeof(path));
		assert_int_equal(fx_prop(path, "gfx_target_version", &v), 0);
		assert_int_equal(v, 100300);
		assert_int_equal(fx_prop(path, "device_id", &v), 0);
		assert_int_equal(v, 0x73bf);
		assert_int_equal(fx_prop(path, "drm_render_minor", &v), 0);
		assert_int_equal(v, 128 + i);
		assert_int_equal(kfdsim_render_minor(f->sim, i), 128 + (int)i);
		assert_true(f->gpu_id[i] != 0);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(f->gpu_id[i], f->gpu_id[j]);
	}
	assert_int_equal(kfdsim_render_minor(f->sim, 3), -1);
	node_file(f, 0, "properties", path, sizeof(path));
	assert_int_equal(fx_prop(path, "io_links_count", &v), 0);
	assert_int_equal(v, 3);
	fx_free(f);
}

static void test_private_sysfs_removed(void **state)
{
	struct kfdsim *sim = kfdsim_create(NULL);
	char root[512];

	(void)state;
	assert_non_null(sim);
	snprintf(root, sizeof(root), "%s", kfdsim_device_ops()->sysfs_root(sim));
	assert_int_equal(access(root, F_OK), 0);
	kfdsim_destroy(sim);
	assert_int_equal(access(root, F_OK), -1);
}

static void test_config_env(void **state)
{
	struct kfdsim_config cfg;

	(void)state;
	setenv("VKFDSIM_GPUS", "2", 1);
	setenv("VKFDSIM_TARGET", "gfx1030", 1);
	setenv("VKFDSIM_VRAM_MB", "512", 1);
	setenv("VKFDSIM_KFD_MINOR", "11", 1);
	assert_int_equal(kfdsim_config_from_env(&cfg), 0);
	assert_int_equal(cfg.gpu_count, 2);
	assert_string_equal(cfg.target, "gfx1030");
	assert_int_equal(cfg.vram_size, 512ULL << 20);
	assert_int_equal(cfg.kfd_minor, 11);
	setenv("VKFDSIM_KFD_MINOR", "20", 1);
	assert_int_equal(kfdsim_config_from_env(&cfg), -EINVAL);
	setenv("VKFDSIM_KFD_MINOR", "11", 1);
	setenv("VKFDSIM_GPUS", "9", 1);
	assert_int_equal(kfdsim_config_from_env(&cfg), -EINVAL);
	setenv("VKFDSIM_GPUS", "1", 1);
	setenv("VKFDSIM_TARGET", "gfx9999", 1);
	assert_int_equal(kfdsim_config_from_env(&cfg), -EINVAL);
	setenv("VKFDSIM_TARGET", "gfx90a", 1);
	setenv("VKFDSIM_VRAM_MB", "12abc", 1);
	assert_int_equal(kfdsim_config_from_env(&cfg), -EINVAL);
	unsetenv("VKFDSIM_GPUS");
	unsetenv("VKFDSIM_TARGET");
	unsetenv("VKFDSIM_VRAM_MB");
	unsetenv("VKFDSIM_KFD_MINOR");
	assert_int_equal(kfdsim_config_from_env(&cfg), 0);
	assert_int_equal(cfg.gpu_count, 1);
	assert_int_equal(cfg.kfd_minor, 17);
	cfg.gpu_count = 0;
	assert_null(kfdsim_create(&cfg));
	assert_int_equal(errno, EINVAL);
}

static void test_version_and_gates(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_get_version_args v = {0};
	struct vkfd_kfd_export_dmabuf_args ex = {0};
	struct vkfd_kfd_runtime_enable_args re = {0};
	struct fx *f;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 11;
	f = fx_new(&cfg, true);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), 0);
	assert_int_equal(v.major_version, 1);
	assert_int_equal(v.minor_version, 11);
	/* EXPORT_DMABUF is KFD 1.12, RUNTIME_ENABLE 1.13 */
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_EXPORT_DMABUF, &ex), -ENOTTY);
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_RUNTIME_ENABLE, &re), -ENOTTY);
	fx_free(f);

	f = fx_new(NULL, true);
	re.mode_mask = KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_RUNTIME_ENABLE, &re), 0);
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_RUNTIME_ENABLE, &re), -EBUSY);
	re.mode_mask = 0;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_RUNTIME_ENABLE, &re), 0);
	fx_free(f);
}

static void test_unknown_nr(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t buf[64] = {0};

	(void)state;
	/* libhsakmt 5.2.3's DKMS debug ioctl; SMI for no GPU; DBG_TRAP for a
	 * pid with no KFD process here */
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x82, uint8_t[32]), buf), -ENOTTY);
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x1f, uint8_t[8]), buf), -EINVAL); /* gpuid 0 */
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x26, uint8_t[32]), buf), -ESRCH);
	/* SVM of address 0 (test_kfdsim_svm has the rest); CRIU for a
	 * caller without CAP_CHECKPOINT_RESTORE */
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x20, uint8_t[24]), buf), -EINVAL);
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x22, uint8_t[56]), buf), -EACCES);
	/* wave state: no such queue, then CWSR disabled (cwsr_enable=0) */
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x1b, uint8_t[24]), buf), -EFAULT);
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x00, uint8_t[8]), buf), -ENOTTY);
	/* removed debugger ioctls */
	assert_int_equal(fx_ioctl(f, _IOW('K', 0x0d, uint8_t[8]), buf), -EPERM);
	/* a NULL argument for an ioctl that reads it */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_CLOCK_COUNTERS, NULL), -EFAULT);
	fx_free(f);
}

static void test_short_and_long_sizes(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint8_t big[128];
	uint32_t small[1] = {0};

	(void)state;
	/* a longer struct on a write-only (_IOR) ioctl: the kernel zeroes
	 * and copies back the caller's whole size */
	memset(big, 0x5a, sizeof(big));
	assert_int_equal(fx_ioctl(f, _IOR('K', 0x01, uint8_t[128]), big), 0);
	assert_int_equal(((uint32_t *)big)[0], 1);
	assert_int_equal(big[100], 0);
	/* on a read-write ioctl the tail goes in and comes back as it was */
	memset(big, 0x5a, sizeof(big));
	((uint32_t *)big)[8] = f->gpu_id[0]; /* clock counters: gpu_id at 32 */
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x05, uint8_t[128]), big), 0);
	assert_int_equal(((uint64_t *)big)[3], 1000000000ULL);
	assert_int_equal(big[100], 0x5a);
	/* a shorter one: only that much is written */
	assert_int_equal(fx_ioctl(f, _IOR('K', 0x01, uint32_t), small), 0);
	assert_int_equal(small[0], 1);
	fx_free(f);
}

static void test_fd_rules(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_get_version_args v;
	int kfd2;

	(void)state;
	assert_true(kfdsim_owns_fd(f->sim, f->kfd));
	assert_true(kfdsim_owns_fd(f->sim, f->rfd[0]));
	assert_false(kfdsim_owns_fd(f->sim, 0));
	assert_int_equal(f->ops->ioctl(f->sim, -1, AMDKFD_IOC_GET_VERSION, &v), -EBADF);
	assert_int_equal(f->ops->ioctl(f->sim, 0, AMDKFD_IOC_GET_VERSION, &v), -EBADF);
	/* render nodes take no KFD ioctls */
	assert_int_equal(f->ops->ioctl(f->sim, f->rfd[0], AMDKFD_IOC_GET_VERSION, &v), -ENOTTY);
	kfd2 = f->ops->open_kfd(f->sim);
	assert_true(kfd2 >= 0);
	assert_int_equal(f->ops->close(f->sim, kfd2), 0);
	assert_false(kfdsim_owns_fd(f->sim, kfd2));
	assert_int_equal(f->ops->ioctl(f->sim, kfd2, AMDKFD_IOC_GET_VERSION, &v), -EBADF);
	assert_int_equal(f->ops->close(f->sim, kfd2), -EBADF);
	assert_int_equal(f->ops->open_render(f->sim, 127), -ENOENT);
	assert_int_equal(f->ops->open_render(f->sim, 129), -ENOENT);
	fx_free(f);
}

static void test_apertures(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_process_device_apertures ap[4];
	struct kfd_ioctl_get_process_apertures_new_args a = {0};
	struct kfd_ioctl_get_process_apertures_args old;
	struct fx *f;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.gpu_count = 2;
	f = fx_new(&cfg, false);
	/* num_of_nodes 0 asks for the count */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a), 0);
	assert_int_equal(a.num_of_nodes, 2);
	/* room for one: one entry */
	memset(ap, 0xee, sizeof(ap));
	a.kfd_process_device_apertures_ptr = (uintptr_t)ap;
	a.num_of_nodes = 1;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a), 0);
	assert_int_equal(a.num_of_nodes, 1);
	assert_int_equal(ap[0].gpu_id, f->gpu_id[0]);
	assert_int_equal(ap[0].lds_base, 1ULL << 48);
	assert_int_equal(ap[0].lds_limit, (1ULL << 48) | 0xffffffffULL);
	assert_int_equal(ap[0].scratch_base, 2ULL << 48);
	assert_int_equal(ap[0].scratch_limit, (2ULL << 48) | 0xffffffffULL);
	assert_int_equal(ap[0].gpuvm_limit, (1ULL << 47) - 1);
	assert_true(ap[0].gpuvm_base > 0 && ap[0].gpuvm_base <= 0x10000);
	assert_int_equal(ap[1].gpu_id, 0xeeeeeeee);
	/* a bad pointer */
	a.kfd_process_device_apertures_ptr = 8;
	a.num_of_nodes = 2;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a), -EFAULT);
	memset(&old, 0, sizeof(old));
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_PROCESS_APERTURES, &old), 0);
	assert_int_equal(old.num_of_nodes, 2);
	assert_int_equal(old.process_apertures[1].gpu_id, f->gpu_id[1]);
	fx_free(f);
}

static void test_acquire_vm(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_acquire_vm_args av;
	struct fx *f;
	int kfd2, r2, rfd0b;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.gpu_count = 2;
	f = fx_new(&cfg, false);
	/* not a render fd */
	av = (struct kfd_ioctl_acquire_vm_args){.drm_fd = (uint32_t)f->kfd, .gpu_id = f->gpu_id[0]};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), -EINVAL);
	av.drm_fd = 100000;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), -EINVAL);
	/* unknown gpu */
	av = (struct kfd_ioctl_acquire_vm_args){.drm_fd = (uint32_t)f->rfd[0], .gpu_id = 1};
	if (f->gpu_id[0] != 1 && f->gpu_id[1] != 1)
		assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), -EINVAL);
	/* render node of the other GPU */
	av = (struct kfd_ioctl_acquire_vm_args){.drm_fd = (uint32_t)f->rfd[1],
						.gpu_id = f->gpu_id[0]};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), -EINVAL);
	av.drm_fd = (uint32_t)f->rfd[0];
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	/* the same file again: 0; another file: -EBUSY */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	rfd0b = f->ops->open_render(f->sim, 128);
	assert_true(rfd0b >= 0);
	av.drm_fd = (uint32_t)rfd0b;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), -EBUSY);
	/* a render file already holding another process's VM */
	kfd2 = f->ops->open_kfd(f->sim);
	assert_true(kfd2 >= 0);
	av.drm_fd = (uint32_t)f->rfd[0];
	assert_int_equal(f->ops->ioctl(f->sim, kfd2, AMDKFD_IOC_ACQUIRE_VM, &av), -EINVAL);
	av.drm_fd = (uint32_t)rfd0b;
	assert_int_equal(f->ops->ioctl(f->sim, kfd2, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	/* closing the render fd keeps the VM usable (the process holds it) */
	assert_int_equal(f->ops->close(f->sim, rfd0b), 0);
	r2 = fx_alloc(f, 1, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, fx_va(f, 4096), 4096, NULL, NULL);
	assert_int_equal(r2, -ENODEV); /* GPU 1 has no VM in process 1 */
	assert_int_equal(f->ops->close(f->sim, kfd2), 0);
	fx_free(f);
}

static void test_memory_policy(void **state)
{
	struct fx *f = fx_new(NULL, false);
	struct kfd_ioctl_set_memory_policy_args a = {.gpu_id = f->gpu_id[0]};
	struct kfd_ioctl_acquire_vm_args av = {.drm_fd = (uint32_t)f->rfd[0],
					       .gpu_id = f->gpu_id[0]};

	(void)state;
	a.default_policy = 2;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), -EINVAL);
	a.default_policy = KFD_IOC_CACHE_POLICY_COHERENT;
	a.alternate_policy = 7;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), -EINVAL);
	a.alternate_policy = KFD_IOC_CACHE_POLICY_NONCOHERENT;
	/* before ACQUIRE_VM the process is not bound to the device */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), -ESRCH);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), 0);
	/* APE1 base must have its low 16 bits clear */
	a.alternate_aperture_base = 0x12345;
	a.alternate_aperture_size = 0x10000;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), -EINVAL);
	a.alternate_aperture_base = 0x10000000;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), 0);
	a.gpu_id = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_MEMORY_POLICY, &a), -EINVAL);
	fx_free(f);
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void test_clock_counters(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_get_clock_counters_args a = {.gpu_id = f->gpu_id[0]}, b;
	uint64_t before, after;

	(void)state;
	before = raw_ns();
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_CLOCK_COUNTERS, &a), 0);
	after = raw_ns();
	assert_int_equal(a.system_clock_freq, 1000000000ULL);
	assert_true(a.cpu_clock_counter >= before && a.cpu_clock_counter <= after);
	assert_true(a.gpu_clock_counter > 0);
	assert_true(a.system_clock_counter > 0);
	usleep(2000);
	b = (struct kfd_ioctl_get_clock_counters_args){.gpu_id = f->gpu_id[0]};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_CLOCK_COUNTERS, &b), 0);
	/* 2 ms at 100 MHz is at least 200000 ticks */
	assert_true(b.gpu_clock_counter - a.gpu_clock_counter >= 200000);
	assert_true(b.system_clock_counter - a.system_clock_counter >= 2000000);
	/* a node without GPU: counter 0, no error */
	b.gpu_id = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_CLOCK_COUNTERS, &b), 0);
	assert_int_equal(b.gpu_clock_counter, 0);
	fx_free(f);
}

static void test_xnack_mode(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_set_xnack_mode_args x = {.xnack_enabled = -1};
	struct fx *f = fx_new(NULL, true);

	(void)state;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), 0);
	assert_int_equal(x.xnack_enabled, 0);
	x.xnack_enabled = 1;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), 0);
	x.xnack_enabled = -1;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), 0);
	assert_int_equal(x.xnack_enabled, 1);
	fx_free(f);

	kfdsim_config_default(&cfg);
	strcpy(cfg.target, "gfx1030");
	f = fx_new(&cfg, true);
	x.xnack_enabled = 1;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), -EPERM);
	x.xnack_enabled = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), 0);
	fx_free(f);
}

static void test_scratch_trap_tile(void **state)
{
	struct fx *f = fx_new(NULL, false);
	struct kfd_ioctl_set_scratch_backing_va_args s = {.va_addr = 0x1234,
							  .gpu_id = f->gpu_id[0]};
	struct kfd_ioctl_set_trap_handler_args t = {.tba_addr = 0x1000, .gpu_id = f->gpu_id[0]};
	struct kfd_ioctl_acquire_vm_args av = {.drm_fd = (uint32_t)f->rfd[0],
					       .gpu_id = f->gpu_id[0]};
	struct kfd_ioctl_get_tile_config_args tc = {.gpu_id = f->gpu_id[0]};
	uint32_t tiles[64], macro[64];

	(void)state;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_SCRATCH_BACKING_VA, &s), -ENODEV);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_TRAP_HANDLER, &t), -ESRCH);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_SCRATCH_BACKING_VA, &s), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_TRAP_HANDLER, &t), 0);
	s.gpu_id = t.gpu_id = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_SCRATCH_BACKING_VA, &s), -EINVAL);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_TRAP_HANDLER, &t), -EINVAL);
	memset(tiles, 0xff, sizeof(tiles));
	tc.tile_config_ptr = (uintptr_t)tiles;
	tc.macro_tile_config_ptr = (uintptr_t)macro;
	tc.num_tile_configs = 64;
	tc.num_macro_tile_configs = 64;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_TILE_CONFIG, &tc), 0);
	assert_int_equal(tc.num_tile_configs, 32);
	assert_int_equal(tc.num_macro_tile_configs, 16);
	assert_int_equal(tiles[0], 0);
	assert_int_equal(tiles[40], 0xffffffff);
	assert_true(tc.gb_addr_config != 0);
	tc.tile_config_ptr = 16;
	tc.num_tile_configs = 4;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_TILE_CONFIG, &tc), -EFAULT);
	assert_int_equal(tc.num_tile_configs, 0);
	tc.gpu_id = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_TILE_CONFIG, &tc), -EINVAL);
	fx_free(f);
}

static void test_hooks_inject(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_get_version_args v;

	(void)state;
	kfdsim_inject_ioctl_error(f->sim, 0x01, 2, EIO);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), -EIO);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), 0);
	kfdsim_inject_ioctl_error(f->sim, 0x01, 1, ENOMEM);
	kfdsim_inject_ioctl_error(f->sim, 0x01, 0, 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), 0);
	fx_free(f);
}

static void test_secondary_process(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_get_version_args v;
	struct kfd_ioctl_acquire_vm_args av;
	uint8_t buf[64] = {0};
	uint64_t h, off;
	struct fx *f = fx_new(NULL, true);

	(void)state;
	/* not configured: the number does not exist */
	assert_int_equal(fx_ioctl(f, _IO('K', 0x27), NULL), -ENOTTY);
	fx_free(f);
	/* KFD 1.19 has it whatever cfg.secondary_processes says */
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 19;
	f = fx_new(&cfg, true);
	assert_int_equal(fx_ioctl(f, _IO('K', 0x27), NULL), 0);
	fx_free(f);

	kfdsim_config_default(&cfg);
	cfg.secondary_processes = true;
	cfg.kfd_minor = 19;
	f = fx_new(&cfg, true);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), 0);
	assert_int_equal(v.minor_version, 19);
	/* a primary: SVM is served (address 0 is refused) */
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x20, uint8_t[24]), buf), -EINVAL);
	assert_int_equal(fx_ioctl(f, _IO('K', 0x27), NULL), 0);
	/* the fd now holds a fresh secondary process: no VM yet */
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, fx_va(f, 4096), 4096, &h, NULL), -ENODEV);
	/* the primary is gone, so its render file can be acquired again */
	av = (struct kfd_ioctl_acquire_vm_args){.drm_fd = (uint32_t)f->rfd[0],
						.gpu_id = f->gpu_id[0]};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ACQUIRE_VM, &av), 0);
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, fx_va(f, 4096), 4096, &h, NULL), 0);
	/* secondaries refuse USERPTR, SVM and the debugger */
	off = (uintptr_t)f->va;
	assert_int_equal(
	    fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, (uintptr_t)f->va, 4096, &h, &off),
	    -EOPNOTSUPP);
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x20, uint8_t[24]), buf), -EOPNOTSUPP);
	assert_int_equal(fx_ioctl(f, _IOWR('K', 0x26, uint8_t[32]), buf), -EOPNOTSUPP);
	/* one process per fd: a second CREATE_PROCESS fails */
	assert_int_equal(fx_ioctl(f, _IO('K', 0x27), NULL), -EINVAL);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topology_gfx90a),
	    cmocka_unit_test(test_topology_gfx1030_multi),
	    cmocka_unit_test(test_private_sysfs_removed),
	    cmocka_unit_test(test_config_env),
	    cmocka_unit_test(test_version_and_gates),
	    cmocka_unit_test(test_unknown_nr),
	    cmocka_unit_test(test_short_and_long_sizes),
	    cmocka_unit_test(test_fd_rules),
	    cmocka_unit_test(test_apertures),
	    cmocka_unit_test(test_acquire_vm),
	    cmocka_unit_test(test_memory_policy),
	    cmocka_unit_test(test_clock_counters),
	    cmocka_unit_test(test_xnack_mode),
	    cmocka_unit_test(test_scratch_trap_tile),
	    cmocka_unit_test(test_hooks_inject),
	    cmocka_unit_test(test_secondary_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
