// SPDX-License-Identifier: MIT
/*
 * The identities of the shim's virtual DRM device files, as libdrm and
 * libdrm_amdgpu see them: for every GPU of the KFD topology,
 * /dev/dri/renderD<N>, /dev/dri/card<N-128> and fds opened from them are
 * character devices 226:<minor> (stat, fstat, fstatat, statx, access),
 * /proc/self/fd links name the node, and drmGetNodeTypeFromFd,
 * drmGetRenderDeviceNameFromFd, drmGetPrimaryDeviceNameFromFd and
 * drmGetDevice2 give one distinct answer per GPU that agrees with the
 * topology (drm_render_minor, domain, location_id, vendor_id, device_id).
 * amdgpu_device_initialize gives one handle per GPU (its fd_compare uses
 * drmGetPrimaryDeviceNameFromFd) and the same handle again for a duplicate
 * of an fd. Run under vkfd-run, natively and through vkfd. Exit 0 pass,
 * 1 fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <amdgpu.h>
#include <xf86drm.h>

#include "libdrm_check.h"

#define MAX_GPUS 16

struct gpu {
	unsigned node, minor;
	int fd;
	amdgpu_device_handle dev;
	char *primary, *render;
};

static void check_chr(const struct stat *st, unsigned minor, const char *what)
{
	CHECK(S_ISCHR(st->st_mode), "%s: mode 0%o is not a character device", what,
	      (unsigned)st->st_mode);
	CHECK(major(st->st_rdev) == 226 && minor(st->st_rdev) == minor,
	      "%s: rdev %u:%u, want 226:%u", what, major(st->st_rdev), minor(st->st_rdev), minor);
}

static void check_nodes(struct gpu *g)
{
	char path[64], card[64], link[128], procfd[64];
	struct statx stx;
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/dev/dri/renderD%u", g->minor);
	snprintf(card, sizeof(card), "/dev/dri/card%u", g->minor - 128);
	CHECK(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
	check_chr(&st, g->minor, path);
	CHECK(stat(card, &st) == 0, "stat %s: %s", card, strerror(errno));
	check_chr(&st, g->minor - 128, card);
	CHECK(access(path, F_OK) == 0 && access(card, F_OK) == 0, "access %s/%s", path, card);
	CHECK(fstatat(AT_FDCWD, path, &st, 0) == 0, "fstatat %s", path);
	check_chr(&st, g->minor, "fstatat");

	g->fd = open(path, O_RDWR | O_CLOEXEC);
	CHECK(g->fd >= 0, "open %s: %s", path, strerror(errno));
	if (g->fd < 0)
		return;
	CHECK(fstat(g->fd, &st) == 0, "fstat: %s", strerror(errno));
	check_chr(&st, g->minor, "fstat");
	CHECK(fstatat(g->fd, "", &st, AT_EMPTY_PATH) == 0, "fstatat AT_EMPTY_PATH");
	check_chr(&st, g->minor, "fstatat(fd, \"\", AT_EMPTY_PATH)");
	CHECK(statx(g->fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0, "statx fd");
	CHECK(S_ISCHR(stx.stx_mode) && stx.stx_rdev_major == 226 && stx.stx_rdev_minor == g->minor,
	      "statx: mode 0%o rdev %u:%u", stx.stx_mode, stx.stx_rdev_major, stx.stx_rdev_minor);
	snprintf(procfd, sizeof(procfd), "/proc/self/fd/%d", g->fd);
	n = readlink(procfd, link, sizeof(link) - 1);
	CHECK(n > 0, "readlink %s: %s", procfd, strerror(errno));
	if (n > 0) {
		link[n] = '\0';
		CHECK(!strcmp(link, path), "%s -> %s, want %s", procfd, link, path);
	}
}

static void check_libdrm(struct gpu *g)
{
	char path[64], card[64];
	drmDevicePtr dev = NULL;
	long long location = topo_prop(g->node, "location_id");
	long long domain = topo_prop(g->node, "domain");
	int r, dup_fd;
	struct stat st;

	snprintf(path, sizeof(path), "/dev/dri/renderD%u", g->minor);
	snprintf(card, sizeof(card), "/dev/dri/card%u", g->minor - 128);
	CHECK(drmGetNodeTypeFromFd(g->fd) == DRM_NODE_RENDER, "node type %d (errno %s)",
	      drmGetNodeTypeFromFd(g->fd), strerror(errno));
	g->render = drmGetRenderDeviceNameFromFd(g->fd);
	g->primary = drmGetPrimaryDeviceNameFromFd(g->fd);
	CHECK(g->render && !strcmp(g->render, path), "render name %s, want %s",
	      g->render ? g->render : "(null)", path);
	CHECK(g->primary && !strcmp(g->primary, card), "primary name %s, want %s",
	      g->primary ? g->primary : "(null)", card);

	/* libdrm_amdgpu keeps a duplicate of the fd: it must be the same device. */
	dup_fd = fcntl(g->fd, F_DUPFD_CLOEXEC, 0);
	CHECK(dup_fd >= 0, "dup: %s", strerror(errno));
	if (dup_fd >= 0) {
		char *name = drmGetPrimaryDeviceNameFromFd(dup_fd);

		CHECK(fstat(dup_fd, &st) == 0, "fstat dup");
		check_chr(&st, g->minor, "fstat of a dup");
		CHECK(name && g->primary && !strcmp(name, g->primary), "dup's primary name %s",
		      name ? name : "(null)");
		free(name);
		close(dup_fd);
	}

	r = drmGetDevice2(g->fd, DRM_DEVICE_GET_PCI_REVISION, &dev);
	CHECK(r == 0, "drmGetDevice2: %s", strerror(-r));
	if (r)
		return;
	CHECK(dev->bustype == DRM_BUS_PCI, "bustype %d", dev->bustype);
	CHECK((dev->available_nodes & (1 << DRM_NODE_RENDER)) &&
		  (dev->available_nodes & (1 << DRM_NODE_PRIMARY)),
	      "available nodes 0x%x", dev->available_nodes);
	if (dev->available_nodes & (1 << DRM_NODE_RENDER))
		CHECK(!strcmp(dev->nodes[DRM_NODE_RENDER], path), "render node %s",
		      dev->nodes[DRM_NODE_RENDER]);
	if (dev->available_nodes & (1 << DRM_NODE_PRIMARY))
		CHECK(!strcmp(dev->nodes[DRM_NODE_PRIMARY], card), "primary node %s",
		      dev->nodes[DRM_NODE_PRIMARY]);
	if (dev->bustype == DRM_BUS_PCI) {
		drmPciBusInfoPtr b = dev->businfo.pci;
		drmPciDeviceInfoPtr d = dev->deviceinfo.pci;

		CHECK(b->domain == domain, "domain %u, topology %lld", b->domain, domain);
		CHECK(((unsigned)b->bus << 8 | (unsigned)b->dev << 3 | b->func) == location,
		      "bus %02x:%02x.%u, topology location_id 0x%llx", b->bus, b->dev, b->func,
		      location);
		CHECK(d->vendor_id == topo_prop(g->node, "vendor_id"), "vendor 0x%x", d->vendor_id);
		CHECK(d->device_id == topo_prop(g->node, "device_id"), "device 0x%x", d->device_id);
	}
	drmFreeDevice(&dev);
}

int main(void)
{
	struct gpu gpus[MAX_GPUS];
	unsigned n = 0;
	uint32_t major, minor;

	for (unsigned node = 0; node < 64 && n < MAX_GPUS; node++) {
		long long m = topo_prop(node, "drm_render_minor");

		if (m < 0)
			break;
		if (m == 0)
			continue; /* a CPU node */
		memset(&gpus[n], 0, sizeof(gpus[n]));
		gpus[n].node = node;
		gpus[n].minor = (unsigned)m;
		gpus[n].fd = -1;
		n++;
	}
	CHECK(n > 0, "no GPU in the KFD topology");
	for (unsigned i = 0; i < n; i++) {
		check_nodes(&gpus[i]);
		if (gpus[i].fd >= 0)
			check_libdrm(&gpus[i]);
	}
	/* One distinct answer per GPU. */
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			CHECK(gpus[i].primary && gpus[j].primary &&
				  strcmp(gpus[i].primary, gpus[j].primary) != 0,
			      "GPUs %u and %u share the primary name %s", i, j,
			      gpus[i].primary ? gpus[i].primary : "(null)");

	/* One libdrm_amdgpu device handle per GPU; a duplicate fd gets its GPU's. */
	for (unsigned i = 0; i < n; i++) {
		int r;

		if (gpus[i].fd < 0)
			continue;
		r = amdgpu_device_initialize(gpus[i].fd, &major, &minor, &gpus[i].dev);
		CHECK(r == 0, "amdgpu_device_initialize(GPU %u): %d", i, r);
		for (unsigned j = 0; j < i && r == 0; j++)
			CHECK(gpus[j].dev != gpus[i].dev, "GPUs %u and %u share a device handle", j,
			      i);
	}
	for (unsigned i = 0; i < n; i++) {
		amdgpu_device_handle again = NULL;
		int d;

		if (!gpus[i].dev)
			continue;
		d = fcntl(gpus[i].fd, F_DUPFD_CLOEXEC, 0);
		CHECK(d >= 0 && amdgpu_device_initialize(d, &major, &minor, &again) == 0,
		      "amdgpu_device_initialize on a dup");
		CHECK(again == gpus[i].dev, "a dup of GPU %u's fd got another handle", i);
		if (again)
			amdgpu_device_deinitialize(again);
		if (d >= 0)
			close(d);
	}
	for (unsigned i = 0; i < n; i++) {
		if (gpus[i].dev)
			amdgpu_device_deinitialize(gpus[i].dev);
		if (gpus[i].fd >= 0)
			close(gpus[i].fd);
		free(gpus[i].primary);
		free(gpus[i].render);
	}
	if (failures) {
		fprintf(stderr, "drm_identity_test: %d failure(s) on %u GPU(s)\n", failures, n);
		return 1;
	}
	printf("drm_identity_test: %u GPU(s), each its own DRM device\n", n);
	return 0;
}
