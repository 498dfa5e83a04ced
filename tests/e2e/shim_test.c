// SPDX-License-Identifier: MIT
/*
 * The preload shim's interposition layer with its native (kfdsim) backend.
 * This program is linked against libvkfd-preload.so, so the shim's open,
 * ioctl, close, ... come before the C library's, exactly as with
 * LD_PRELOAD.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* AMDKFD_IOC_GET_VERSION from the KFD UAPI ('K', nr 1, 8 bytes, read). */
struct get_version_args {
	uint32_t major_version;
	uint32_t minor_version;
};
#define KFD_GET_VERSION _IOR('K', 0x01, struct get_version_args)
/* An ioctl number no amdkfd has. */
#define KFD_UNKNOWN _IOWR('K', 0x7e, struct get_version_args)

#define SYSFS_TOPO "/sys/devices/virtual/kfd/kfd/topology"
#define CLASS_TOPO "/sys/class/kfd/kfd/topology"

static int kfd_version(int fd, struct get_version_args *v)
{
	memset(v, 0xff, sizeof(*v));
	return ioctl(fd, KFD_GET_VERSION, v);
}

static void test_open_kfd_get_version(void **state)
{
	struct get_version_args v;
	int fd;

	(void)state;
	fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(kfd_version(fd, &v), 0);
	assert_int_equal(v.major_version, 1);
	assert_true(v.minor_version >= 1);
	/* An unknown ioctl fails like the syscall: -1 and an errno. */
	errno = 0;
	assert_int_equal(ioctl(fd, KFD_UNKNOWN, &v), -1);
	assert_true(errno == ENOTTY || errno == EINVAL);
	assert_int_equal(close(fd), 0);
	/* The number is gone: the real close answers now. */
	errno = 0;
	assert_int_equal(ioctl(fd, KFD_GET_VERSION, &v), -1);
	assert_int_equal(errno, EBADF);
}

static void test_open_variants(void **state)
{
	struct get_version_args v;
	int fd;

	(void)state;
	fd = openat(AT_FDCWD, "/dev/kfd", O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	assert_int_equal(kfd_version(fd, &v), 0);
	assert_int_equal(close(fd), 0);
	fd = open64("/dev/kfd", O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(kfd_version(fd, &v), 0);
	assert_int_equal(close(fd), 0);
}

static void read_first_line(FILE *f, char *buf, size_t len)
{
	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	fclose(f);
}

static void test_sysfs_redirect(void **state)
{
	char a[256], b[256];
	struct dirent *de;
	struct stat st;
	unsigned nodes = 0;
	DIR *d;
	int fd;
	ssize_t n;

	(void)state;
	/* fopen and open see the same file, under both sysfs spellings. */
	read_first_line(fopen(SYSFS_TOPO "/system_properties", "r"), a, sizeof(a));
	read_first_line(fopen64(CLASS_TOPO "/system_properties", "r"), b, sizeof(b));
	assert_string_equal(a, b);
	fd = open(SYSFS_TOPO "/system_properties", O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, b, strlen(a));
	assert_int_equal(n, (ssize_t)strlen(a));
	assert_memory_equal(a, b, strlen(a));
	assert_int_equal(close(fd), 0);

	d = opendir(SYSFS_TOPO "/nodes");
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			nodes++;
	closedir(d);
	/* A CPU node and at least one GPU node. */
	assert_true(nodes >= 2);

	assert_int_equal(stat(SYSFS_TOPO "/nodes/1/gpu_id", &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(access(CLASS_TOPO "/nodes/1/properties", R_OK), 0);
	errno = 0;
	assert_int_equal(access(SYSFS_TOPO "/nodes/99/properties", R_OK), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_kfd_node_stat(void **state)
{
	struct stat st;

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(stat("/dev/kfd", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(access("/dev/kfd", R_OK | W_OK), 0);
}

static void test_other_paths_untouched(void **state)
{
	char buf[64];
	int fd;

	(void)state;
	fd = open("/proc/self/status", O_RDONLY);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf)) > 0);
	assert_int_equal(close(fd), 0);
	/* Look-alike prefixes are not the KFD device. */
	errno = 0;
	assert_int_equal(open("/sys/devices/virtual/kfd/kfdx/topology", O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(open("/dev/kfdx", O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	/* A render minor the backend does not model is left to the system. */
	errno = 0;
	assert_int_equal(open("/dev/dri/renderD250", O_RDWR), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_render_node(void **state)
{
	int fd;

	(void)state;
	fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
}

/* The virtual nodes and their fds look like the kernel's character devices,
 * with the sysfs device tree libdrm follows (docs/guest.md, "Device
 * identities"); paths and fds that are not modelled stay real. */
static void test_device_identities(void **state)
{
	char link[64], line[128], slot[32] = "";
	struct stat st;
	struct dirent *de;
	bool card = false, render = false;
	long long location = -1;
	int kfd, rfd;
	ssize_t n;
	FILE *f;
	DIR *d;

	(void)state;
	kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	assert_true(kfd >= 0);
	assert_int_equal(fstat(kfd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", kfd);
	memset(line, 0, sizeof(line));
	assert_int_equal(readlink(link, line, sizeof(line)), 8);
	assert_string_equal(line, "/dev/kfd");
	/* readlink truncates without a terminator, as the kernel does */
	memset(line, 0, sizeof(line));
	assert_int_equal(readlink(link, line, 4), 4);
	assert_string_equal(line, "/dev");

	rfd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	assert_true(rfd >= 0);
	assert_int_equal(fstat(rfd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(226, 128));
	assert_int_equal(stat("/dev/dri/card0", &st), 0);
	assert_int_equal(st.st_rdev, makedev(226, 0));
	/* one GPU: a minor it does not model is not made up */
	assert_int_equal(stat("/dev/dri/renderD191", &st), -1);
	assert_int_equal(stat("/sys/dev/char/226:191", &st), -1);

	/* the PCI slot under /sys/dev/char agrees with the topology */
	f = fopen(SYSFS_TOPO "/nodes/1/properties", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "location_id %lld", &location) == 1)
			break;
	fclose(f);
	assert_true(location >= 0);
	f = fopen("/sys/dev/char/226:128/device/uevent", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PCI_SLOT_NAME=%31s", slot) == 1)
			break;
	fclose(f);
	snprintf(line, sizeof(line), "0000:%02llx:%02llx.%llx", location >> 8, (location >> 3) & 31,
		 location & 7);
	assert_string_equal(slot, line);
	n = readlink("/sys/dev/char/226:128/device/subsystem", line, sizeof(line) - 1);
	assert_true(n > 4);
	line[n] = '\0';
	assert_string_equal(strrchr(line, '/'), "/pci");

	d = opendir("/dev/dri");
	assert_non_null(d);
	while ((de = readdir(d))) {
		card |= !strcmp(de->d_name, "card0");
		render |= !strcmp(de->d_name, "renderD128");
	}
	closedir(d);
	assert_true(card && render);

	assert_int_equal(close(rfd), 0);
	assert_int_equal(close(kfd), 0);
	/* a closed number is an ordinary bad fd again */
	errno = 0;
	assert_int_equal(fstat(rfd, &st), -1);
	assert_int_equal(errno, EBADF);
	/* ordinary files keep their own identity */
	assert_int_equal(stat("/proc/self/status", &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

static void test_dup_family(void **state)
{
	struct get_version_args v;
	int fd, d1, d2, d3, spare;

	(void)state;
	fd = open("/dev/kfd", O_RDWR);
	assert_true(fd >= 0);
	d1 = dup(fd);
	d2 = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	assert_true(d1 >= 0 && d1 != fd);
	assert_true(d2 >= 100);
	assert_int_equal(kfd_version(d1, &v), 0);
	assert_int_equal(kfd_version(d2, &v), 0);
	/* The device file lives while any number refers to it. */
	assert_int_equal(close(fd), 0);
	assert_int_equal(kfd_version(d1, &v), 0);
	assert_int_equal(v.major_version, 1);

	/* dup2 onto an unrelated fd makes that number a device fd ... */
	spare = open("/dev/null", O_RDONLY);
	assert_true(spare >= 0);
	d3 = dup2(d1, spare);
	assert_int_equal(d3, spare);
	assert_int_equal(kfd_version(d3, &v), 0);
	/* ... and dup2 of a plain fd over it turns it back. */
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(dup2(fd, d3), d3);
	errno = 0;
	assert_int_equal(kfd_version(d3, &v), -1);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(close(fd), 0);
	assert_int_equal(close(d3), 0);

	assert_int_equal(close(d1), 0);
	assert_int_equal(kfd_version(d2, &v), 0);
	assert_int_equal(close(d2), 0);
	errno = 0;
	assert_int_equal(kfd_version(d2, &v), -1);
	assert_int_equal(errno, EBADF);
}

/* ROCm 6.x rocminfo's module check. */
static void test_amdgpu_initstate(void **state)
{
	char line[16] = {0};
	FILE *f;
	int fd;

	(void)state;
	f = fopen("/sys/module/amdgpu/initstate", "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "live\n");
	assert_int_equal(fclose(f), 0);
	fd = open("/sys/module/amdgpu/initstate", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	memset(line, 0, sizeof(line));
	assert_int_equal(read(fd, line, sizeof(line) - 1), 5);
	assert_string_equal(line, "live\n");
	assert_int_equal(close(fd), 0);
	errno = 0;
	assert_int_equal(open("/sys/module/amdgpu/initstate", O_WRONLY), -1);
	assert_int_equal(errno, EACCES);
}

/* AMDKFD_IOC_ACQUIRE_VM ('K', nr 0x15, 8 bytes, write). */
struct acquire_vm_args {
	uint32_t drm_fd;
	uint32_t gpu_id;
};
#define KFD_ACQUIRE_VM _IOW('K', 0x15, struct acquire_vm_args)

/* libdrm_amdgpu 2.4.124 hands libhsakmt its own dup of the render fd, which
 * then names it in ACQUIRE_VM: the shim must name the backend's file. */
static void test_acquire_vm_with_dup(void **state)
{
	struct acquire_vm_args a;
	unsigned gpu_id = 0;
	FILE *f;
	int kfd, rfd, dfd;

	(void)state;
	f = fopen(SYSFS_TOPO "/nodes/1/gpu_id", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%u", &gpu_id), 1);
	fclose(f);
	kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	rfd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	assert_true(kfd >= 0 && rfd >= 0);
	dfd = fcntl(rfd, F_DUPFD_CLOEXEC, 0);
	assert_true(dfd >= 0 && dfd != rfd);
	a.drm_fd = (uint32_t)dfd;
	a.gpu_id = gpu_id;
	assert_int_equal(ioctl(kfd, KFD_ACQUIRE_VM, &a), 0);
	/* the same file again through its first number */
	a.drm_fd = (uint32_t)rfd;
	assert_int_equal(ioctl(kfd, KFD_ACQUIRE_VM, &a), 0);
	/* a bad argument pointer stays the backend's -EFAULT */
	errno = 0;
	assert_int_equal(ioctl(kfd, KFD_ACQUIRE_VM, (void *)16), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(close(dfd), 0);
	assert_int_equal(close(rfd), 0);
	assert_int_equal(close(kfd), 0);
}

static void test_popen_lsmod(void **state)
{
	char line[256];
	bool found = false;
	FILE *p;

	(void)state;
	p = popen("lsmod | grep amdgpu", "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (strncmp(line, "amdgpu ", 7) == 0)
			found = true;
	assert_true(found);
	assert_int_equal(pclose(p), 0);

	/* Other commands really run. */
	p = popen("echo vkfd-$((40 + 2))", "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	assert_string_equal(line, "vkfd-42\n");
	assert_int_equal(pclose(p), 0);
}

static void test_fork_child(void **state)
{
	struct get_version_args v;
	int fd, status;
	pid_t pid;

	(void)state;
	char parent_root[PATH_MAX];

	fd = open("/dev/kfd", O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(kfd_version(fd, &v), 0);
	/* realpath shows where the virtual sysfs really lives. */
	assert_non_null(realpath(SYSFS_TOPO, parent_root));
	assert_string_not_equal(parent_root, SYSFS_TOPO);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int code = 0, fd2;

		/* Like amdkfd: the parent's KFD fd is not usable here. */
		errno = 0;
		if (kfd_version(fd, &v) != -1 || errno != EBADF)
			code |= 1;
		if (close(fd) != 0)
			code |= 2;
		/* A fresh open gets a working device of the child's own. */
		fd2 = open("/dev/kfd", O_RDWR);
		if (fd2 < 0 || kfd_version(fd2, &v) != 0 || v.major_version != 1)
			code |= 4;
		if (access(SYSFS_TOPO "/system_properties", R_OK) != 0)
			code |= 8;
		/* ... with its own simulated machine and sysfs tree. */
		{
			char child_root[PATH_MAX];

			if (!realpath(SYSFS_TOPO, child_root) ||
			    strcmp(child_root, parent_root) == 0)
				code |= 16;
		}
		close(fd2);
		_exit(code);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent's fd is unaffected by the child. */
	assert_int_equal(kfd_version(fd, &v), 0);
	assert_int_equal(close(fd), 0);
}

/* libhsakmt needs per-CPU cache directories; they exist either in the host's
 * sysfs or in the shim's fallback tree, under both spellings. */
static void test_cpu_caches(void **state)
{
	char line[64];
	struct dirent *de;
	unsigned indexes = 0;
	unsigned level = 0;
	DIR *d;
	FILE *f;

	(void)state;
	d = opendir("/sys/devices/system/node/node0/cpu0/cache");
	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "index", 5) == 0)
			indexes++;
	closedir(d);
	assert_true(indexes >= 1);
	f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/level", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%u", &level), 1);
	fclose(f);
	assert_true(level >= 1 && level <= 4);
	read_first_line(fopen("/sys/devices/system/node/node0/cpu0/cache/index0/size", "r"), line,
			sizeof(line));
	assert_non_null(strchr(line, 'K'));
	assert_int_equal(access("/sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_map", R_OK),
			 0);
	/* A CPU the machine does not have has no caches. */
	errno = 0;
	assert_null(opendir("/sys/devices/system/cpu/cpu4000/cache"));
	assert_int_equal(errno, ENOENT);
}

#define THREADS 4
#define ROUNDS  200

static void *hammer(void *arg)
{
	struct get_version_args v;
	intptr_t bad = 0;

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
		int d = fd >= 0 ? dup(fd) : -1;

		if (fd < 0 || d < 0 || kfd_version(d, &v) != 0 || v.major_version != 1)
			bad++;
		if (fd >= 0 && close(fd) != 0)
			bad++;
		if (d >= 0 && close(d) != 0)
			bad++;
	}
	return (void *)bad;
}

static void test_threads(void **state)
{
	pthread_t t[THREADS];
	void *ret;

	(void)state;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_int_equal((intptr_t)ret, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_kfd_get_version),
	    cmocka_unit_test(test_open_variants),
	    cmocka_unit_test(test_sysfs_redirect),
	    cmocka_unit_test(test_kfd_node_stat),
	    cmocka_unit_test(test_other_paths_untouched),
	    cmocka_unit_test(test_render_node),
	    cmocka_unit_test(test_device_identities),
	    cmocka_unit_test(test_dup_family),
	    cmocka_unit_test(test_popen_lsmod),
	    cmocka_unit_test(test_amdgpu_initstate),
	    cmocka_unit_test(test_acquire_vm_with_dup),
	    cmocka_unit_test(test_fork_child),
	    cmocka_unit_test(test_cpu_caches),
	    cmocka_unit_test(test_threads),
	};

	/* The simulated machine comes from the environment; pin it. */
	setenv("VKFD_BACKEND", "native", 1);
	setenv("VKFDSIM_GPUS", "1", 1);
	unsetenv("VKFDSIM_TARGET");
	unsetenv("VKFDSIM_VRAM_MB");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
