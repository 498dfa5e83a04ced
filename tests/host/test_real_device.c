// SPDX-License-Identifier: MIT
/*
 * Proof that the host-real-* suites exercise the real device backend: the
 * library runs on vkfd_real_device_ops() with no in-process kfdsim, and the
 * /dev/kfd and render-node descriptors it holds came from open(2) calls that
 * the LD_PRELOAD shim answered (kfdsim memfds behind them, which the kernel
 * itself would not treat as KFD devices).
 *
 * Only meaningful with VKFD_TEST_DEVICE=real under the shim; otherwise the
 * program skips (exit 77).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfd_uapi_ext.h"
#include "vkfd/device.h"

#include <linux/kfd_ioctl.h>

static int setup(void **state)
{
	(void)state;
	return h_lib_init(0, NULL);
}

static int teardown(void **state)
{
	(void)state;
	h_lib_fini();
	return 0;
}

/* The name of fd's /proc/self/fd link, or "" */
/* The kernel's view of an fd: readlink(3) is interposed by the shim, which
 * names its virtual device nodes there, so ask the system call. */
static void fd_link(int fd, char *buf, size_t len)
{
	char path[64];
	long n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, path, buf, len - 1);
	buf[n < 0 ? 0 : n] = '\0';
}

/* What a program sees through the C library. */
static void fd_link_libc(int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, len - 1);
	buf[n < 0 ? 0 : n] = '\0';
}

static void test_library_runs_on_real_ops(void **state)
{
	struct vkfd_capset c;

	(void)state;
	assert_ptr_equal(host_g.ops, vkfd_real_device_ops());
	assert_string_equal(host_g.ops->name, "kfd");
	/* the real backend answers from the KFD version alone */
	assert_false(host_g.caps.flags &
		     (VKFD_DEVICE_CAP_SIMULATED | VKFD_DEVICE_CAP_COHERENT_MEMFD |
		      VKFD_DEVICE_CAP_PROCESS_PER_OPEN));
	assert_int_equal(!!(host_g.caps.flags & VKFD_DEVICE_CAP_EXPORT_DMABUF),
			 host_g.caps.kfd_minor >= 12);
	assert_int_equal(!!(host_g.caps.flags & VKFD_DEVICE_CAP_EVENT_AGES),
			 host_g.caps.kfd_minor >= 14);
	assert_null(host_g.sim);
	assert_true(host_g.topo.n_gpus >= 1);
	memset(&c, 0, sizeof(c));
	assert_int_equal(vkfd_host_capset_fill(1, &c, sizeof(c)), (int)sizeof(c));
	assert_false(c.features & VKFD_FEAT_SIM_DEVICE);
	assert_int_equal(c.kfd_major, 1);
	assert_int_equal(c.kfd_minor, host_g.caps.kfd_minor);
}

static void test_device_fds_come_from_the_shim(void **state)
{
	struct kfd_ioctl_get_version_args v;
	struct harness h;
	char link[256];
	int fd, base = h_fd_count();

	(void)state;
	assert_int_equal(h_open(&h, 1), 0);
	fd = h.ctx->kfd_fd;
	assert_true(fd >= 0);
	/* open("/dev/kfd") was answered by the shim's kfdsim */
	fd_link(fd, link, sizeof(link));
	print_message("context kfd fd %d -> %s\n", fd, link);
	assert_non_null(strstr(link, "memfd:kfdsim-kfd"));
	/* ... and looks like the device node to the program */
	fd_link_libc(fd, link, sizeof(link));
	assert_string_equal(link, "/dev/kfd");
	/* ioctl(2) through the C library reaches the shim ... */
	memset(&v, 0, sizeof(v));
	assert_int_equal(ioctl(fd, AMDKFD_IOC_GET_VERSION, &v), 0);
	assert_int_equal(v.major_version, 1);
	assert_int_equal(v.minor_version, host_g.caps.kfd_minor);
	/* ... while the kernel sees only a memfd */
	memset(&v, 0, sizeof(v));
	errno = 0;
	assert_int_equal(syscall(SYS_ioctl, fd, AMDKFD_IOC_GET_VERSION, &v), -1);
	assert_int_equal(errno, ENOTTY);

	/* ACQUIRE_VM took a render node the shim opened */
	fd = h.ctx->gpu[0].render_fd;
	assert_true(fd >= 0);
	fd_link(fd, link, sizeof(link));
	print_message("context render fd %d -> %s\n", fd, link);
	assert_non_null(strstr(link, "memfd:kfdsim-renderD"));

	h_close(&h);
	/* everything the context opened through the shim is closed again */
	assert_int_equal(h_fd_count(), base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_library_runs_on_real_ops),
	    cmocka_unit_test(test_device_fds_come_from_the_shim),
	};

	if (!h_real_device() || !getenv("LD_PRELOAD")) {
		printf("skip: needs VKFD_TEST_DEVICE=real and the shim in LD_PRELOAD\n");
		return 77;
	}
	setenv("VKFD_DEVICE", h_device_env(), 1);
	return cmocka_run_group_tests_name("real-device", tests, setup, teardown);
}
