// SPDX-License-Identifier: MIT
/*
 * Interposers that look paths up without opening them: the stat family (the
 * glibc >= 2.33 functions and the legacy __xstat entry points), access,
 * faccessat, readlink and realpath. Virtual sysfs paths are redirected;
 * /dev/kfd is reported as a character device while the backend works.
 */
/* The interposers define both foo and foo64: keep the headers from
 * redirecting foo to foo64 (meson builds with _FILE_OFFSET_BITS=64; on
 * x86-64 both have the same ABI). */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_path.h"
#include "shim_real.h"

/* The kernel gives /dev/kfd a dynamic char major; the virtual node has no
 * real device number, so st_rdev is 0. */
static bool kfd_node(const char *path)
{
	bool ok;

	if (shim_busy() || shim_path_classify(path, NULL, NULL) != SHIM_PATH_KFD)
		return false;
	shim_enter();
	ok = shim_backend_get() != NULL;
	shim_leave();
	return ok;
}

#define FILL_KFD_STAT(st)                                                                          \
	do {                                                                                       \
		memset((st), 0, sizeof(*(st)));                                                    \
		(st)->st_mode = S_IFCHR | 0666;                                                    \
		(st)->st_nlink = 1;                                                                \
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

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->stat(m, st);
}

int stat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->stat64(m, st);
}

int lstat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->lstat(m, st);
}

int lstat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->lstat64(m, st);
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

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
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

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
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

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(xstat, ver, m, st);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(xstat64, ver, m, st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(lxstat, ver, m, st);
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	MAP_OR_FAIL(path, buf, m);
	LEGACY_BODY(lxstat64, ver, m, st);
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
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

	if (kfd_node(path)) {
		FILL_KFD_STAT(st);
		return 0;
	}
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	LEGACY_BODY(fxstatat64, ver, dirfd, m, st, flags);
}

int access(const char *path, int mode)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path))
		return (mode & X_OK) ? (errno = EACCES, -1) : 0;
	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->access(m, mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];
	const char *m;

	if (kfd_node(path))
		return (mode & X_OK) ? (errno = EACCES, -1) : 0;
	if (map_at(dirfd, path, buf, sizeof(buf), &m))
		return -1;
	return shim_real_get()->faccessat(dirfd, m, mode, flags);
}

ssize_t readlink(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	const char *m;

	MAP_OR_FAIL(path, buf, m);
	return shim_real_get()->readlink(m, out, len);
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
