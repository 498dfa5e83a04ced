// SPDX-License-Identifier: MIT
/*
 * Interposers that look paths and fds up without opening them: the stat
 * family (the glibc >= 2.33 functions, statx and the legacy __xstat entry
 * points), access, faccessat, readlink, readlinkat and realpath. Virtual
 * sysfs paths are redirected; /dev/kfd and the modelled /dev/dri nodes, and
 * fds opened from them, are reported as character devices while the backend
 * works (shim_devnode.c); /proc/self/fd links of device fds name the node.
 */
/* The interposers define both foo and foo64: keep the headers from
 * redirecting foo to foo64 (meson builds with _FILE_OFFSET_BITS=64; on
 * x86-64 both have the same ABI). */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_devnode.h"
#include "shim_fdtable.h"
#include "shim_path.h"
#include "shim_real.h"

/* A device node as the kernel's devtmpfs reports it. The kernel gives
 * /dev/kfd a dynamic char major; the virtual one has no real device number,
 * so its st_rdev is 0. Render and card nodes are 226:<minor>. */
#define FILL_DEV_STAT(st, id)                                                                      \
	do {                                                                                       \
		memset((st), 0, sizeof(*(st)));                                                    \
		(st)->st_dev = makedev(0, 5);                                                      \
		(st)->st_ino = (id).ino;                                                           \
		(st)->st_mode = S_IFCHR | 0666;                                                    \
		(st)->st_nlink = 1;                                                                \
		(st)->st_rdev = makedev((id).rdev_major, (id).rdev_minor);                         \
		(st)->st_blksize = 4096;                                                           \
		(st)->st_atime = (st)->st_mtime = (st)->st_ctime = time(NULL);                     \
	} while (0)

/* Map path; on a lookup failure return -1 from the caller. */
#define MAP_OR_FAIL(path, buf, mapped)                                                             \
	do {                                                                                       \
		if (shim_path_map(path, buf, sizeof(buf), &mapped))                                \
			return -1;                                                                 \
	} while (0)

int stat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->stat(m, st);
}

int stat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->stat64(m, st);
}

int lstat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->lstat(m, st);
}

int lstat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->lstat64(m, st);
}

/* fstatat(fd, "", st, AT_EMPTY_PATH) on a device fd. */
static bool empty_path_fd(int dirfd, const char *path, int flags, struct shim_devid *id)
{
	return (flags & AT_EMPTY_PATH) && path && !path[0] && shim_devnode_fd(dirfd, id);
}

/* Relative paths against a directory fd are not virtual. */
static int map_at(int dirfd, const char *path, char *buf, size_t len, const char **out)
{
	*out = path;
	if (dirfd != AT_FDCWD && path && path[0] != '/')
		return 0;
	return shim_path_map(path, buf, len, out);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id) || empty_path_fd(dirfd, path, flags, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	return shim_real_get()->fstatat(dirfd, m, st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id) || empty_path_fd(dirfd, path, flags, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	return shim_real_get()->fstatat64(dirfd, m, st, flags);
}

/* Legacy entry points still used by binaries built against glibc < 2.33. */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

#define LEGACY_BODY(fn, ...)                                                                       \
	do {                                                                                       \
		if (!shim_real_get()->fn) {                                                        \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		return shim_real_get()->fn(__VA_ARGS__);                                           \
	} while (0)

int __xstat(int ver, const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(xstat, ver, m, st);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(xstat64, ver, m, st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(lxstat, ver, m, st);
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(lxstat64, ver, m, st);
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id) || empty_path_fd(dirfd, path, flags, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	LEGACY_BODY(fxstatat, ver, dirfd, m, st, flags);
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id) || empty_path_fd(dirfd, path, flags, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	LEGACY_BODY(fxstatat64, ver, dirfd, m, st, flags);
}

int fstat(int fd, struct stat *st)
{
	struct shim_devid id;

	if (shim_devnode_fd(fd, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	return shim_real_get()->fstat(fd, st);
}

int fstat64(int fd, struct stat64 *st)
{
	struct shim_devid id;

	if (shim_devnode_fd(fd, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	return shim_real_get()->fstat64(fd, st);
}

int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);

int __fxstat(int ver, int fd, struct stat *st)
{
	struct shim_devid id;

	if (shim_devnode_fd(fd, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	LEGACY_BODY(fxstat, ver, fd, st);
}

int __fxstat64(int ver, int fd, struct stat64 *st)
{
	struct shim_devid id;

	if (shim_devnode_fd(fd, &id)) {
		FILL_DEV_STAT(st, id);
		return 0;
	}
	LEGACY_BODY(fxstat64, ver, fd, st);
}

static void fill_statx(const struct shim_devid *id, struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = STATX_BASIC_STATS;
	stx->stx_blksize = 4096;
	stx->stx_nlink = 1;
	stx->stx_mode = S_IFCHR | 0666;
	stx->stx_ino = id->ino;
	stx->stx_atime.tv_sec = stx->stx_mtime.tv_sec = stx->stx_ctime.tv_sec = time(NULL);
	stx->stx_rdev_major = id->rdev_major;
	stx->stx_rdev_minor = id->rdev_minor;
	stx->stx_dev_major = 0;
	stx->stx_dev_minor = 5;
}

int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id) || empty_path_fd(dirfd, path, flags, &id)) {
		fill_statx(&id, stx);
		return 0;
	}
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	if (!shim_real_get()->statx) {
		errno = ENOSYS;
		return -1;
	}
	return shim_real_get()->statx(dirfd, m, flags, mask, stx);
}

int access(const char *path, int mode)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id))
		return (mode & X_OK) ? (errno = EACCES, -1) : 0;
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->access(m, mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];
	const char *m;
	struct shim_devid id;

	if (shim_devnode_path(path, &id))
		return (mode & X_OK) ? (errno = EACCES, -1) : 0;
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	return shim_real_get()->faccessat(dirfd, m, mode, flags);
}

/* readlink of /proc/self/fd/<N> (or /proc/<own pid>/fd/<N>,
 * /proc/thread-self/fd/<N>) naming a device fd: the device node's path,
 * not the backend's descriptor (a memfd or a socket). -2 when path is not
 * such a link. */
static ssize_t proc_fd_link(const char *path, char *out, size_t len)
{
	char name[64], own[32];
	const char *p = NULL;
	char *end;
	long fd;
	int n;

	if (shim_busy() || !path || !shim_fd_any() || strncmp(path, "/proc/", 6) != 0)
		return -2;
	snprintf(own, sizeof(own), "/proc/%d/fd/", (int)getpid());
	if (!strncmp(path, "/proc/self/fd/", 14))
		p = path + 14;
	else if (!strncmp(path, "/proc/thread-self/fd/", 21))
		p = path + 21;
	else if (!strncmp(path, own, strlen(own)))
		p = path + strlen(own);
	if (!p || *p < '0' || *p > '9')
		return -2;
	errno = 0;
	fd = strtol(p, &end, 10);
	if (*end || errno || fd > INT_MAX)
		return -2;
	n = shim_devnode_fd_name((int)fd, name, sizeof(name));
	if (n < 0)
		return -2;
	if ((size_t)n > len)
		n = (int)len; /* readlink truncates silently */
	memcpy(out, name, (size_t)n);
	return n;
}

ssize_t readlink(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	const char *m;
	ssize_t n = proc_fd_link(path, out, len);

	if (n != -2)
		return n;
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->readlink(m, out, len);
}

ssize_t readlinkat(int dirfd, const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	const char *m;
	ssize_t n = -2;

	if (dirfd == AT_FDCWD || (path[0] == '/'))
		n = proc_fd_link(path, out, len);
	if (n != -2)
		return n;
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	return shim_real_get()->readlinkat(dirfd, m, out, len);
}

char *realpath(const char *path, char *resolved)
{
	char buf[PATH_MAX];
	const char *m;

	if (shim_path_map(path, buf, sizeof(buf), &m))
		return NULL;
	return shim_real_get()->realpath(m, resolved);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	char buf[PATH_MAX];
	const char *m;

	if (shim_path_map(path, buf, sizeof(buf), &m))
		return NULL;
	if (!shim_real_get()->realpath_chk)
		return shim_real_get()->realpath(m, resolved);
	return shim_real_get()->realpath_chk(m, resolved, resolvedlen);
}
