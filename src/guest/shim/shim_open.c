// SPDX-License-Identifier: MIT
/*
 * Interposers that open files: open/openat (all glibc entry points), fopen
 * and opendir. glibc's fopen and opendir do not call the interposable open,
 * so each is caught separately. /sys/module/amdgpu/initstate is answered
 * by shim_module.c.
 */
/* The interposers define both foo and foo64: keep the headers from
 * redirecting foo to foo64 (meson builds with _FILE_OFFSET_BITS=64; on
 * x86-64 both have the same ABI). */
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_fdtable.h"
#include "shim_module.h"
#include "shim_path.h"
#include "shim_real.h"

static int device_open(enum shim_path_kind kind, int minor, int flags)
{
	const struct shim_backend *b;
	enum shim_fd_kind fk;
	int fd, ret;

	shim_enter();
	b = shim_backend_get();
	if (!b) {
		fd = -(errno ? errno : ENODEV);
		goto out;
	}
	if (kind == SHIM_PATH_KFD) {
		fd = b->open_kfd(flags);
		fk = SHIM_FD_KFD;
	} else {
		fd = b->open_render(minor, flags);
		fk = SHIM_FD_RENDER;
	}
	if (kind == SHIM_PATH_KFD)
		shim_debug("open(/dev/kfd) -> backend %s: %d", b->name, fd);
	else
		shim_debug("open(/dev/dri/renderD%d) -> backend %s: %d", minor, b->name, fd);
	if (fd < 0)
		goto out;
	ret = shim_fd_register(fd, fk, minor);
	if (ret) {
		b->close(fd);
		fd = ret;
	}
out:
	shim_leave();
	return fd;
}

/* The common body of every open variant. Returns fd or -1/errno. */
static int open_common(int dirfd, const char *path, int flags, mode_t mode)
{
	const struct shim_real *real = shim_real_get();
	char buf[PATH_MAX];
	int minor = -1, fd;
	enum shim_path_kind kind;

	if (shim_busy() || !path || (path[0] != '/' && dirfd != AT_FDCWD))
		return real->openat(dirfd, path, flags, mode);
	if (shim_module_path(path)) {
		fd = shim_module_open(path, flags);
		/* without a working backend the real file (if any) answers */
		if (fd >= 0 || errno != ENODEV)
			return fd;
		return real->openat(dirfd, path, flags, mode);
	}
	kind = shim_path_classify(path, NULL, &minor);
	switch (kind) {
	case SHIM_PATH_OTHER:
	case SHIM_PATH_SYSFS: {
		const char *mapped;

		if (shim_path_map(path, buf, sizeof(buf), &mapped))
			return -1;
		return real->openat(dirfd, mapped, flags, mode);
	}
	case SHIM_PATH_KFD:
	case SHIM_PATH_RENDER:
		fd = device_open(kind, minor, flags);
		/* A render minor the backend does not model is a real node. */
		if (kind == SHIM_PATH_RENDER && (fd == -ENOENT || fd == -ENODEV))
			break;
		if (fd < 0) {
			errno = -fd;
			return -1;
		}
		return fd;
	}
	return real->openat(dirfd, path, flags, mode);
}

static bool wants_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define GET_MODE(flags, last, mode)                                                                \
	do {                                                                                       \
		if (wants_mode(flags)) {                                                           \
			va_list ap;                                                                \
			va_start(ap, last);                                                        \
			mode = (mode_t)va_arg(ap, int);                                            \
			va_end(ap);                                                                \
		}                                                                                  \
	} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, flags, mode);
	return open_common(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, flags, mode);
	return open_common(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, flags, mode);
	return open_common(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, flags, mode);
	return open_common(dirfd, path, flags | O_LARGEFILE, mode);
}

/* _FORTIFY_SOURCE entry points (no mode argument by construction). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

int __open_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags | O_LARGEFILE, 0);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags, 0);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags | O_LARGEFILE, 0);
}

/* fopen on a device node: open it through the shim and wrap the fd. */
static FILE *fopen_device(const char *path, const char *mode)
{
	int flags, fd;
	FILE *f;

	if (mode[0] == 'r')
		flags = strchr(mode, '+') ? O_RDWR : O_RDONLY;
	else
		flags = strchr(mode, '+') ? O_RDWR : O_WRONLY;
	if (strchr(mode, 'e'))
		flags |= O_CLOEXEC;
	fd = open_common(AT_FDCWD, path, flags, 0);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f) {
		int err = errno;

		close(fd); /* our interposer: releases the device file */
		errno = err;
	}
	return f;
}

static FILE *fopen_common(const char *path, const char *mode,
			  FILE *(*real_fopen)(const char *, const char *))
{
	char buf[PATH_MAX];
	const char *mapped;

	if (shim_busy() || !path || !mode)
		return real_fopen(path, mode);
	if (shim_module_path(path))
		return fopen_device(path, mode);
	switch (shim_path_classify(path, NULL, NULL)) {
	case SHIM_PATH_KFD:
		return fopen_device(path, mode);
	case SHIM_PATH_RENDER:
		return real_fopen(path, mode);
	default:
		if (shim_path_map(path, buf, sizeof(buf), &mapped))
			return NULL;
		return real_fopen(mapped, mode);
	}
}

FILE *fopen(const char *path, const char *mode)
{
	return fopen_common(path, mode, shim_real_get()->fopen);
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen_common(path, mode, shim_real_get()->fopen64);
}

DIR *opendir(const char *path)
{
	char buf[PATH_MAX];
	const char *mapped;

	if (shim_path_map(path, buf, sizeof(buf), &mapped))
		return NULL;
	return shim_real_get()->opendir(mapped);
}
