// SPDX-License-Identifier: MIT
/*
 * vkfd-bench through the shim's own code: the storm's direct and vtest
 * paths issue the KFD ioctls native issues (bench_dev_native.c's ops) to
 * the LD_PRELOAD shim's vkfd backend (shim_backend_vkfd, linked in), so
 * the figures are what an application under the shim pays, whatever
 * protocol the backend chooses (docs/design-protocol-1.1.md section 6).
 *
 * The backend is one per process, as in the shim: its transport comes from
 * the environment when a connection is made (VKFD_TRANSPORT, VKFD_SOCKET),
 * so each open sets it first, and each close ends the backend's KFD
 * process (bk_release_kept) so that every run gets a fresh host context.
 */
#include "bench_dev_priv.h"
#include "bench_server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kfd_ioctl.h>

#include "backend_vkfd_internal.h"

#define B shim_backend_vkfd

static int shim_ioctl(struct bench_dev *d, int fd, unsigned long req, void *arg)
{
	(void)d;
	return B.ioctl(fd, req, arg);
}

static void *shim_mmap(struct bench_dev *d, void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	(void)d;
	return B.mmap(addr, len, prot, flags, fd, off);
}

/* What the shim does for an application's munmap: tell the backend, unmap. */
static int shim_munmap(struct bench_dev *d, void *addr, size_t len)
{
	(void)d;
	B.munmap_notify(addr, len);
	return munmap(addr, len);
}

static const struct bench_kfd_seam shim_seam = {
    .ioctl = shim_ioctl,
    .mmap = shim_mmap,
    .munmap = shim_munmap,
};

/* A number from the backend's topology tree (what libhsakmt reads). */
static long long topo_value(const char *rel, const char *key)
{
	char path[PATH_MAX + 128], buf[8192], k[64];
	const char *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/devices/virtual/kfd/kfd/topology/%s", B.sysfs_root(),
		 rel);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!key)
		return strtoll(buf, NULL, 10);
	snprintf(k, sizeof(k), "%s ", key);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, k, strlen(k)))
			return strtoll(p + strlen(k), NULL, 10);
	return -1;
}

int bench_shim_open(struct bench_dev *d, char *why, size_t why_len)
{
	struct kfd_ioctl_acquire_vm_args av;
	long long id, minor;
	int r;

	d->seam = &shim_seam;
	if (d->path == BENCH_VTEST) {
		const char *sock = bench_server_socket(why, why_len);

		if (!sock)
			return -ENOENT;
		setenv("VKFD_TRANSPORT", "vtest", 1);
		setenv("VKFD_SOCKET", sock, 1);
	} else {
		setenv("VKFD_TRANSPORT", "direct", 1);
		unsetenv("VKFD_SOCKET");
	}
	/* the in-process host's threads inherit the second CPU (direct) */
	bench_pin(1);
	r = B.init();
	if (!r) {
		d->kfd = B.open_kfd(O_RDWR | O_CLOEXEC);
		r = d->kfd < 0 ? d->kfd : 0;
	}
	bench_pin(0);
	if (r) {
		snprintf(why, why_len, "shim backend (%s): %s", bench_path_name(d->path),
			 strerror(-r));
		return r;
	}
	id = topo_value("nodes/1/gpu_id", NULL);
	minor = topo_value("nodes/1/properties", "drm_render_minor");
	if (id <= 0 || minor < 0) {
		snprintf(why, why_len, "shim backend: no GPU in its topology");
		r = -ENODEV;
		goto fail;
	}
	d->gpu_id = (uint32_t)id;
	d->rfd = B.open_render((int)minor, O_RDWR | O_CLOEXEC);
	if (d->rfd < 0) {
		r = d->rfd;
		snprintf(why, why_len, "shim backend open_render(%lld): %s", minor, strerror(-r));
		goto fail;
	}
	memset(&av, 0, sizeof(av));
	av.drm_fd = (uint32_t)d->rfd;
	av.gpu_id = d->gpu_id;
	r = B.ioctl(d->kfd, AMDKFD_IOC_ACQUIRE_VM, &av);
	if (r) {
		snprintf(why, why_len, "ACQUIRE_VM through the shim: %s", strerror(-r));
		goto fail;
	}
	return 0;
fail:
	bench_shim_close(d);
	return r;
}

void bench_shim_close(struct bench_dev *d)
{
	if (d->rfd >= 0)
		B.close(d->rfd);
	if (d->kfd >= 0)
		B.close(d->kfd);
	d->rfd = d->kfd = -1;
	/* as at process exit: the host context goes with the KFD process */
	bk_release_kept();
}

/* AVAILABLE_MEMORY is a synchronous call in the backend: the host has run
 * everything queued before it when it answers. */
int bench_shim_sync(struct bench_dev *d)
{
	struct kfd_ioctl_get_available_memory_args a;

	memset(&a, 0, sizeof(a));
	a.gpu_id = d->gpu_id;
	return B.ioctl(d->kfd, AMDKFD_IOC_AVAILABLE_MEMORY, &a);
}

int bench_shim_backend_counts(struct bench_dev *d, uint64_t *sync, uint64_t *async, uint64_t *blobs,
			      uint64_t *submits)
{
	struct bk_file *f;
	struct bk_conn *c = NULL;

	if (d->ops != &bench_shim_ops)
		return -EOPNOTSUPP;
	bk_table_lock();
	f = bk_file_get_locked(d->kfd);
	if (f)
		c = f->conn;
	if (c) {
		*sync = __atomic_load_n(&c->n_sync, __ATOMIC_RELAXED);
		*async = __atomic_load_n(&c->n_async, __ATOMIC_RELAXED);
		*blobs = __atomic_load_n(&c->n_blobs, __ATOMIC_RELAXED);
		*submits = vkfd_guest_submit_count(c->g);
	}
	bk_table_unlock();
	return c ? 0 : -EBADF;
}
