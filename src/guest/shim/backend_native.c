// SPDX-License-Identifier: MIT
/*
 * The shim's "native" backend: kfdsim in the application's own process, no
 * virtualization in between. This is the baseline vkfd is measured against.
 *
 * One simulated machine per process, created on first use from
 * VKFDSIM_GPUS / VKFDSIM_TARGET / VKFDSIM_VRAM_MB. Its sysfs tree lives in a
 * directory the backend creates and removes at exit (shim_tmpdir.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vkfd/kfdsim.h"

#include "shim_backend.h"
#include "shim_core.h"
#include "shim_tmpdir.h"

static pthread_mutex_t native_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kfdsim *sim;
static const struct vkfd_device_ops *ops;
static char sysfs_dir[256];
static pid_t sysfs_owner; /* the process that must remove sysfs_dir */

__attribute__((destructor)) static void native_exit(void)
{
	/* The simulated machine itself is left to process teardown: other
	 * threads of the application may still be inside it. Its sysfs tree
	 * on disk is removed here. */
	if (sysfs_dir[0] && sysfs_owner == getpid()) {
		shim_tmpdir_remove(sysfs_dir);
		sysfs_dir[0] = '\0';
	}
}

static int make_sysfs_dir(struct kfdsim_config *cfg)
{
	size_t n;
	int ret;

	ret = shim_tmpdir_create("vkfd-native", sysfs_dir, sizeof(sysfs_dir));
	if (ret)
		return ret;
	n = strlen(sysfs_dir);
	if (n >= sizeof(cfg->sysfs_dir)) {
		shim_tmpdir_remove(sysfs_dir);
		sysfs_dir[0] = '\0';
		return -ENAMETOOLONG;
	}
	sysfs_owner = getpid();
	memcpy(cfg->sysfs_dir, sysfs_dir, n + 1);
	return 0;
}

static int native_init(void)
{
	struct kfdsim_config cfg;
	int ret = 0;

	pthread_mutex_lock(&native_lock);
	if (sim)
		goto out;
	ret = kfdsim_config_from_env(&cfg);
	if (ret) {
		shim_log("native backend: bad VKFDSIM_* setting in the environment");
		goto out;
	}
	ret = make_sysfs_dir(&cfg);
	if (ret)
		goto out;
	sim = kfdsim_create(&cfg);
	if (!sim) {
		ret = -(errno ? errno : ENODEV);
		shim_log("native backend: kfdsim_create failed: %s", strerror(-ret));
		native_exit();
		goto out;
	}
	ops = kfdsim_device_ops();
	shim_debug("native backend: kfdsim with %u GPU(s) %s, sysfs in %s", cfg.gpu_count,
		   cfg.target, sysfs_dir);
out:
	pthread_mutex_unlock(&native_lock);
	return ret;
}

static const char *native_sysfs_root(void)
{
	return ops->sysfs_root(sim);
}

/* kfdsim does not know the open flags; honour O_CLOEXEC like open(2). */
static int apply_cloexec(int fd, int flags)
{
	if (fd >= 0 && fcntl(fd, F_SETFD, (flags & O_CLOEXEC) ? FD_CLOEXEC : 0) < 0) {
		int err = errno;

		ops->close(sim, fd);
		return -err;
	}
	return fd;
}

static int native_open_kfd(int flags)
{
	return apply_cloexec(ops->open_kfd(sim), flags);
}

static int native_open_render(int minor, int flags)
{
	for (unsigned i = 0; i < KFDSIM_MAX_GPUS; i++) {
		if (kfdsim_render_minor(sim, i) == minor)
			return apply_cloexec(ops->open_render(sim, minor), flags);
	}
	return -ENOENT;
}

static int native_ioctl(int fd, unsigned long request, void *arg)
{
	return ops->ioctl(sim, fd, request, arg);
}

static void *native_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return ops->mmap(sim, addr, len, prot, flags, fd, off);
}

static int native_close(int fd)
{
	return ops->close(sim, fd);
}

static void native_atfork_child(void)
{
	/* The parent's simulated machine (its engine threads, its sysfs
	 * directory) is not ours: leave it alone and build a new one on the
	 * next access. */
	pthread_mutex_init(&native_lock, NULL);
	sim = NULL;
	sysfs_dir[0] = '\0';
}

const struct shim_backend shim_backend_native = {
    .name = "native",
    .init = native_init,
    .sysfs_root = native_sysfs_root,
    .open_kfd = native_open_kfd,
    .open_render = native_open_render,
    .ioctl = native_ioctl,
    .mmap = native_mmap,
    .munmap_notify = NULL,
    .close = native_close,
    .atfork_child = native_atfork_child,
};
