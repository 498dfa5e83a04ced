// SPDX-License-Identifier: MIT
/*
 * Path classification and sysfs redirection.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "shim_core.h"
#include "shim_cpucache.h"
#include "shim_devnode.h"
#include "shim_path.h"

#define KFD_SYSFS_DEV "/sys/devices/virtual/kfd/kfd"
/* In real sysfs this is a symlink chain to the same device directory. */
#define KFD_SYSFS_CLASS "/sys/class/kfd/kfd"
#define RENDER_PREFIX   "/dev/dri/renderD"

/* path starts with prefix and continues with '\0' or '/'. */
static const char *under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n) != 0)
		return NULL;
	if (path[n] != '\0' && path[n] != '/')
		return NULL;
	return path + n;
}

enum shim_path_kind shim_path_classify(const char *path, const char **rest, int *minor)
{
	const char *r;

	if (!path || path[0] != '/')
		return SHIM_PATH_OTHER;
	if (strcmp(path, "/dev/kfd") == 0)
		return SHIM_PATH_KFD;
	if (strncmp(path, RENDER_PREFIX, strlen(RENDER_PREFIX)) == 0) {
		const char *p = path + strlen(RENDER_PREFIX);
		int n = 0, digits = 0;

		/* renderD minors are 128..255 in the kernel; accept up to 3
		 * digits and let the backend decide which exist. */
		while (*p >= '0' && *p <= '9' && digits < 4) {
			n = n * 10 + (*p - '0');
			p++;
			digits++;
		}
		if (digits == 0 || digits > 3 || *p != '\0')
			return SHIM_PATH_OTHER;
		if (minor)
			*minor = n;
		return SHIM_PATH_RENDER;
	}
	r = under(path, KFD_SYSFS_DEV);
	if (!r)
		r = under(path, KFD_SYSFS_CLASS);
	if (r) {
		if (rest)
			*rest = r;
		return SHIM_PATH_SYSFS;
	}
	return SHIM_PATH_OTHER;
}

int shim_path_sysfs(const char *rest, char *buf, size_t len)
{
	const struct shim_backend *b;
	const char *root;
	int n;

	shim_enter();
	b = shim_backend_get();
	root = b ? b->sysfs_root() : NULL;
	shim_leave();
	if (!b)
		return -(errno ? errno : ENODEV);
	if (!root)
		return -ENODEV;
	n = snprintf(buf, len, "%s%s%s", root, KFD_SYSFS_DEV, rest);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int shim_path_map(const char *path, char *buf, size_t len, const char **out)
{
	const char *rest;
	int ret;

	*out = path;
	if (shim_busy() || !path)
		return 0;
	if (shim_path_classify(path, &rest, NULL) != SHIM_PATH_SYSFS) {
		ret = shim_cpucache_map(path, buf, len);
		if (ret == 0)
			ret = shim_devnode_map(path, buf, len);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
		if (ret > 0)
			*out = buf;
		return 0;
	}
	ret = shim_path_sysfs(rest, buf, len);
	if (ret) {
		errno = -ret;
		return -1;
	}
	shim_debug("sysfs %s -> %s", path, buf);
	*out = buf;
	return 0;
}
