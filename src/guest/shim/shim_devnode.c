// SPDX-License-Identifier: MIT
/*
 * Identities of the virtual GPU device files (see shim_devnode.h).
 *
 * libdrm decides what a DRM fd is from fstat (a character device with
 * major 226) and then from sysfs under /sys/dev/char/226:<minor>: device/drm
 * must exist and list card<N>/renderD<N> (drmNodeIsDRM,
 * drmGetPrimaryDeviceNameFromFd, drmGetRenderDeviceNameFromFd),
 * device/subsystem must be a link ending in "/pci" (drmParseSubsystemType),
 * the realpath of device must hold uevent with PCI_SLOT_NAME and the
 * vendor/device/subsystem_vendor/subsystem_device/revision files or config
 * (drmGetDevice2), and /dev/dri must list the nodes whose stat gives back the
 * same st_rdev. libdrm_amdgpu's amdgpu_device_initialize shares a device
 * handle between two fds whenever drmGetPrimaryDeviceNameFromFd fails for
 * either, so without these every GPU after the first got the first one's.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_devnode.h"
#include "shim_fdtable.h"
#include "shim_path.h"
#include "shim_tmpdir.h"

#define MAX_GPUS       64 /* render minors 128..191 */
#define RENDER_BASE    128
#define KFD_TOPO_NODES "/sys/devices/virtual/kfd/kfd/topology/nodes"

struct gpu {
	unsigned render_minor; /* drm_render_minor of the KFD node */
	unsigned domain, bus, devfn;
	unsigned vendor, device, gfx_target_version;
	char slot[16];    /* "0000:03:00.0" */
	char devdir[128]; /* "sys/devices/pci0000:03/0000:03:00.0" under the tree */
};

static pthread_mutex_t tree_lock = PTHREAD_MUTEX_INITIALIZER;
static char tree_dir[256];
static pid_t tree_owner;
static int tree_err;
static struct gpu gpus[MAX_GPUS];
static unsigned ngpus;

/* ---- reading the backend's KFD topology ---- */

static int read_gpu(const char *root, unsigned node, struct gpu *g, bool *is_gpu)
{
	char path[PATH_MAX], name[64];
	unsigned long long v;
	unsigned location = 0;
	FILE *f;

	*is_gpu = false;
	if ((size_t)snprintf(path, sizeof(path), "%s" KFD_TOPO_NODES "/%u/properties", root,
			     node) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	memset(g, 0, sizeof(*g));
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "drm_render_minor"))
			g->render_minor = (unsigned)v;
		else if (!strcmp(name, "location_id"))
			location = (unsigned)v;
		else if (!strcmp(name, "domain"))
			g->domain = (unsigned)v;
		else if (!strcmp(name, "vendor_id"))
			g->vendor = (unsigned)v;
		else if (!strcmp(name, "device_id"))
			g->device = (unsigned)v;
		else if (!strcmp(name, "gfx_target_version"))
			g->gfx_target_version = (unsigned)v;
	}
	fclose(f);
	/* CPU nodes have no render node. */
	if (g->render_minor < RENDER_BASE || g->render_minor >= RENDER_BASE + MAX_GPUS)
		return 0;
	/* location_id is the PCI bus << 8 | devfn, as amdkfd fills it. */
	g->bus = (location >> 8) & 0xff;
	g->devfn = location & 0xff;
	g->domain &= 0xffff;
	snprintf(g->slot, sizeof(g->slot), "%04x:%02x:%02x.%x", g->domain, g->bus, g->devfn >> 3,
		 g->devfn & 7);
	snprintf(g->devdir, sizeof(g->devdir), "sys/devices/pci%04x:%02x/%s", g->domain, g->bus,
		 g->slot);
	*is_gpu = true;
	return 0;
}

static int load_gpus(const char *root)
{
	ngpus = 0;
	for (unsigned node = 0; node < 256; node++) {
		struct gpu g;
		bool is_gpu;
		int r = read_gpu(root, node, &g, &is_gpu);

		if (r == -ENOENT)
			break; /* nodes are numbered without gaps */
		if (r)
			return r;
		if (!is_gpu)
			continue;
		for (unsigned i = 0; i < ngpus; i++)
			if (gpus[i].render_minor == g.render_minor || !strcmp(gpus[i].slot, g.slot))
				return -EINVAL; /* two GPUs with one identity */
		if (ngpus < MAX_GPUS)
			gpus[ngpus++] = g;
	}
	return 0;
}

/* ---- writing the tree ---- */

static int mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int mkdirs(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + strlen(tree_dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int put(const char *dir, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", tree_dir, dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ok = fwrite(data, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -EIO;
}

static int putf(const char *dir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int putf(const char *dir, const char *name, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -ENAMETOOLONG;
	return put(dir, name, text, (size_t)n);
}

/* <tree>/<dir>/<name> -> target */
static int link_to(const char *target, const char *dir, const char *name)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", tree_dir, dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return symlink(target, path) ? -errno : 0;
}

/* One DRM minor directory (drm/card<N> or drm/renderD<N>) of g. */
static int write_minor(const struct gpu *g, const char *name, unsigned minor)
{
	char dir[256], target[320];
	int r;

	snprintf(dir, sizeof(dir), "%s/drm/%s", g->devdir, name);
	r = mkdirs("%s/%s", tree_dir, dir);
	r = r ? r : putf(dir, "dev", "%u:%u\n", SHIM_DRM_MAJOR, minor);
	r = r ? r
	      : putf(dir, "uevent", "MAJOR=%u\nMINOR=%u\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n",
		     SHIM_DRM_MAJOR, minor, name);
	snprintf(target, sizeof(target), "../../../%s", g->slot);
	r = r ? r : link_to(target, dir, "device");
	r = r ? r : link_to("../../../../../class/drm", dir, "subsystem");
	/* /sys/class/drm/<name> and /sys/dev/char/226:<minor> -> it */
	snprintf(target, sizeof(target), "../../%s", dir + strlen("sys/"));
	r = r ? r : link_to(target, "sys/class/drm", name);
	if (!r) {
		char num[32];

		snprintf(num, sizeof(num), "%u:%u", SHIM_DRM_MAJOR, minor);
		r = link_to(target, "sys/dev/char", num);
	}
	/* /dev/dri/<name>: listed by readdir; stat is answered by the shim. */
	return r ? r : put("dev/dri", name, "", 0);
}

static int write_gpu(const struct gpu *g)
{
	/* The PCI class the boards report: gfx9 Instinct parts are display
	 * controllers (0x0380), the others VGA controllers (0x0300). */
	unsigned cls = g->gfx_target_version / 10000 == 9 ? 0x038000 : 0x030000;
	unsigned char config[256] = {0};
	char name[32], target[320];
	int r;

	r = mkdirs("%s/%s", tree_dir, g->devdir);
	/* The topology carries no subsystem ids or revision: 0. */
	r = r ? r
	      : putf(g->devdir, "uevent",
		     "DRIVER=amdgpu\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:0000\n"
		     "PCI_SLOT_NAME=%s\nMODALIAS=pci:v%08Xd%08Xsv%08Xsd00000000bc%02Xsc%02Xi00\n",
		     cls, g->vendor, g->device, g->vendor, g->slot, g->vendor, g->device, g->vendor,
		     cls >> 16, (cls >> 8) & 0xff);
	r = r ? r : putf(g->devdir, "vendor", "0x%04x\n", g->vendor);
	r = r ? r : putf(g->devdir, "device", "0x%04x\n", g->device);
	r = r ? r : putf(g->devdir, "subsystem_vendor", "0x%04x\n", g->vendor);
	r = r ? r : putf(g->devdir, "subsystem_device", "0x0000\n");
	r = r ? r : putf(g->devdir, "revision", "0x00\n");
	r = r ? r : putf(g->devdir, "class", "0x%06x\n", cls);
	config[0] = g->vendor & 0xff;
	config[1] = g->vendor >> 8;
	config[2] = g->device & 0xff;
	config[3] = g->device >> 8;
	config[9] = cls & 0xff;
	config[10] = (cls >> 8) & 0xff;
	config[11] = cls >> 16;
	config[44] = config[0];
	config[45] = config[1];
	r = r ? r : put(g->devdir, "config", config, sizeof(config));
	r = r ? r : link_to("../../../bus/pci", g->devdir, "subsystem");
	r = r ? r : link_to("../../../bus/pci/drivers/amdgpu", g->devdir, "driver");
	snprintf(target, sizeof(target), "../../../devices/%s", g->devdir + strlen("sys/devices/"));
	r = r ? r : link_to(target, "sys/bus/pci/devices", g->slot);
	/* The card minor is the render minor's index (card0 with renderD128),
	 * as the kernel numbers them for one driver. */
	snprintf(name, sizeof(name), "card%u", g->render_minor - RENDER_BASE);
	r = r ? r : write_minor(g, name, g->render_minor - RENDER_BASE);
	snprintf(name, sizeof(name), "renderD%u", g->render_minor);
	return r ? r : write_minor(g, name, g->render_minor);
}

static int build_tree(const char *root)
{
	int r = load_gpus(root);

	if (r)
		return r;
	r = shim_tmpdir_create("vkfd-devnode", tree_dir, sizeof(tree_dir));
	if (r)
		return r;
	tree_owner = getpid();
	r = mkdirs("%s/sys/bus/pci/drivers/amdgpu", tree_dir);
	r = r ? r : mkdirs("%s/sys/bus/pci/devices", tree_dir);
	r = r ? r : mkdirs("%s/sys/class/drm", tree_dir);
	r = r ? r : mkdirs("%s/sys/dev/char", tree_dir);
	r = r ? r : mkdirs("%s/dev/dri", tree_dir);
	for (unsigned i = 0; i < ngpus && !r; i++)
		r = write_gpu(&gpus[i]);
	return r;
}

__attribute__((destructor)) static void devnode_exit(void)
{
	if (tree_dir[0] && tree_owner == getpid())
		shim_tmpdir_remove(tree_dir);
}

/* Make sure the GPU list and the tree exist (once per process; a fork
 * child writes its own). 0 or -errno (-ENODEV without a backend). */
static int ensure_tree(void)
{
	const struct shim_backend *b;
	const char *root;
	int err;

	pthread_mutex_lock(&tree_lock);
	if (tree_owner && tree_owner != getpid()) {
		tree_dir[0] = '\0';
		tree_owner = 0;
		tree_err = 0;
		ngpus = 0;
	}
	if (!tree_owner && !tree_err) {
		shim_enter();
		b = shim_backend_get();
		root = b ? b->sysfs_root() : NULL;
		if (!root) {
			/* no backend (yet): nothing is modelled; try again later */
			err = -ENODEV;
			shim_leave();
			pthread_mutex_unlock(&tree_lock);
			return err;
		}
		tree_err = build_tree(root);
		if (tree_err) {
			shim_log("cannot write the device identity tree: %s", strerror(-tree_err));
			if (tree_dir[0])
				shim_tmpdir_remove(tree_dir);
			tree_dir[0] = '\0';
		} else {
			shim_debug("device identities of %u GPU(s) in %s", ngpus, tree_dir);
		}
		shim_leave();
	}
	err = tree_err;
	pthread_mutex_unlock(&tree_lock);
	return err;
}

static const struct gpu *gpu_by_render(unsigned minor)
{
	for (unsigned i = 0; i < ngpus; i++)
		if (gpus[i].render_minor == minor)
			return &gpus[i];
	return NULL;
}

/* A DRM minor (card or render) of a modelled GPU. */
static bool modelled_minor(unsigned minor)
{
	if (minor < RENDER_BASE)
		return gpu_by_render(minor + RENDER_BASE) != NULL;
	return gpu_by_render(minor) != NULL;
}

/* "<digits>" (1..3 digits) at p, followed by '\0' or '/'; *end after it. */
static bool parse_minor(const char *p, unsigned *out, const char **end)
{
	unsigned n = 0, d = 0;

	while (*p >= '0' && *p <= '9') {
		if (++d > 3)
			return false;
		n = n * 10 + (unsigned)(*p++ - '0');
	}
	if (!d || (*p != '\0' && *p != '/'))
		return false;
	*out = n;
	*end = p;
	return true;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- identities ---- */

static void kfd_id(struct shim_devid *id)
{
	id->rdev_major = 0;
	id->rdev_minor = 0;
	id->ino = 1000;
}

static void drm_id(unsigned minor, struct shim_devid *id)
{
	id->rdev_major = SHIM_DRM_MAJOR;
	id->rdev_minor = minor;
	id->ino = 2000 + minor;
}

bool shim_devnode_path(const char *path, struct shim_devid *id)
{
	const char *end;
	unsigned minor;
	bool ok;

	if (shim_busy() || !path)
		return false;
	switch (shim_path_classify(path, NULL, NULL)) {
	case SHIM_PATH_KFD:
		shim_enter();
		ok = shim_backend_get() != NULL;
		shim_leave();
		if (ok)
			kfd_id(id);
		return ok;
	default:
		break;
	}
	if (starts(path, "/dev/dri/renderD")) {
		if (!parse_minor(path + strlen("/dev/dri/renderD"), &minor, &end) || *end ||
		    minor < RENDER_BASE)
			return false;
	} else if (starts(path, "/dev/dri/card")) {
		if (!parse_minor(path + strlen("/dev/dri/card"), &minor, &end) || *end ||
		    minor >= RENDER_BASE)
			return false;
	} else {
		return false;
	}
	if (ensure_tree() || !modelled_minor(minor))
		return false;
	drm_id(minor, id);
	return true;
}

bool shim_devnode_fd(int fd, struct shim_devid *id)
{
	struct shim_devfile *f;

	if (shim_busy() || !shim_fd_any())
		return false;
	f = shim_fd_get(fd);
	if (!f)
		return false;
	if (f->kind == SHIM_FD_KFD)
		kfd_id(id);
	else
		drm_id((unsigned)f->minor, id);
	shim_fd_put(f);
	return true;
}

int shim_devnode_fd_name(int fd, char *buf, size_t len)
{
	struct shim_devfile *f;
	int n;

	if (shim_busy() || !shim_fd_any())
		return -1;
	f = shim_fd_get(fd);
	if (!f)
		return -1;
	if (f->kind == SHIM_FD_KFD)
		n = snprintf(buf, len, "/dev/kfd");
	else
		n = snprintf(buf, len, "/dev/dri/renderD%d", f->minor);
	shim_fd_put(f);
	return n;
}

/* ---- path redirection ---- */

/* Is path one of ours? Pure string work plus the GPU list. */
static bool modelled_path(const char *path)
{
	const char *p, *end;
	unsigned minor;

	if (!strcmp(path, "/dev/dri") || !strcmp(path, "/dev/dri/"))
		return ngpus > 0;
	if (starts(path, "/sys/dev/char/226:"))
		return parse_minor(path + strlen("/sys/dev/char/226:"), &minor, &end) &&
		       modelled_minor(minor);
	if (starts(path, "/sys/class/drm/")) {
		p = path + strlen("/sys/class/drm/");
		if (starts(p, "renderD"))
			return parse_minor(p + 7, &minor, &end) && minor >= RENDER_BASE &&
			       modelled_minor(minor);
		if (starts(p, "card"))
			return parse_minor(p + 4, &minor, &end) && minor < RENDER_BASE &&
			       modelled_minor(minor);
		return false;
	}
	if (starts(path, "/sys/bus/pci/devices/")) {
		p = path + strlen("/sys/bus/pci/devices/");
		for (unsigned i = 0; i < ngpus; i++) {
			size_t n = strlen(gpus[i].slot);

			if (!strncmp(p, gpus[i].slot, n) && (p[n] == '\0' || p[n] == '/'))
				return true;
		}
		return false;
	}
	for (unsigned i = 0; i < ngpus; i++) {
		/* "/" + devdir without its leading "sys/devices/..." kept */
		size_t n = strlen(gpus[i].devdir);

		if (!strncmp(path + 1, gpus[i].devdir, n) &&
		    (path[n + 1] == '\0' || path[n + 1] == '/'))
			return true;
	}
	return false;
}

int shim_devnode_map(const char *path, char *buf, size_t len)
{
	int err;

	if (!starts(path, "/sys/dev/char/226:") && !starts(path, "/sys/class/drm/") &&
	    !starts(path, "/sys/bus/pci/devices/") && !starts(path, "/sys/devices/pci") &&
	    strcmp(path, "/dev/dri") != 0 && strcmp(path, "/dev/dri/") != 0)
		return 0;
	err = ensure_tree();
	if (err == -ENODEV)
		return 0; /* nothing is modelled: the real path answers */
	if (err)
		return err;
	if (!modelled_path(path))
		return 0;
	if ((size_t)snprintf(buf, len, "%s%s", tree_dir, path) >= len)
		return -ENAMETOOLONG;
	shim_debug("device path %s -> %s", path, buf);
	return 1;
}
