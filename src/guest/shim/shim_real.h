/* SPDX-License-Identifier: MIT */
/*
 * The C library functions the shim interposes, resolved with
 * dlsym(RTLD_NEXT) so that the shim can always reach the real ones.
 */
#ifndef VKFD_SHIM_REAL_H
#define VKFD_SHIM_REAL_H

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

struct shim_real {
	int (*open)(const char *path, int flags, ...);
	int (*open64)(const char *path, int flags, ...);
	int (*openat)(int dirfd, const char *path, int flags, ...);
	int (*openat64)(int dirfd, const char *path, int flags, ...);
	int (*open_2)(const char *path, int flags);
	int (*open64_2)(const char *path, int flags);
	int (*openat_2)(int dirfd, const char *path, int flags);
	int (*openat64_2)(int dirfd, const char *path, int flags);
	FILE *(*fopen)(const char *path, const char *mode);
	FILE *(*fopen64)(const char *path, const char *mode);
	DIR *(*opendir)(const char *path);
	int (*stat)(const char *path, struct stat *st);
	int (*stat64)(const char *path, struct stat64 *st);
	int (*lstat)(const char *path, struct stat *st);
	int (*lstat64)(const char *path, struct stat64 *st);
	int (*fstatat)(int dirfd, const char *path, struct stat *st, int flags);
	int (*fstatat64)(int dirfd, const char *path, struct stat64 *st, int flags);
	int (*fstat)(int fd, struct stat *st);
	int (*fstat64)(int fd, struct stat64 *st);
	int (*fxstat)(int ver, int fd, struct stat *st);
	int (*fxstat64)(int ver, int fd, struct stat64 *st);
	int (*statx)(int dirfd, const char *path, int flags, unsigned mask, struct statx *st);
	int (*xstat)(int ver, const char *path, struct stat *st);
	int (*xstat64)(int ver, const char *path, struct stat64 *st);
	int (*lxstat)(int ver, const char *path, struct stat *st);
	int (*lxstat64)(int ver, const char *path, struct stat64 *st);
	int (*fxstatat)(int ver, int dirfd, const char *path, struct stat *st, int flags);
	int (*fxstatat64)(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
	int (*access)(const char *path, int mode);
	int (*faccessat)(int dirfd, const char *path, int mode, int flags);
	ssize_t (*readlink)(const char *path, char *buf, size_t len);
	ssize_t (*readlinkat)(int dirfd, const char *path, char *buf, size_t len);
	char *(*realpath)(const char *path, char *resolved);
	char *(*realpath_chk)(const char *path, char *resolved, size_t resolvedlen);
	int (*ioctl)(int fd, unsigned long request, ...);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	void *(*mmap64)(void *addr, size_t len, int prot, int flags, int fd, off64_t off);
	int (*munmap)(void *addr, size_t len);
	int (*madvise)(void *addr, size_t len, int advice);
	void *(*mremap)(void *old_addr, size_t old_len, size_t new_len, int flags, ...);
	int (*close)(int fd);
	int (*dup)(int fd);
	int (*dup2)(int fd, int fd2);
	int (*dup3)(int fd, int fd2, int flags);
	int (*fcntl)(int fd, int cmd, ...);
	int (*fcntl64)(int fd, int cmd, ...);
	FILE *(*popen)(const char *cmd, const char *mode);
	int (*pclose)(FILE *f);
};

/* The resolved functions; valid after shim_real_get() returned. A function
 * the C library does not export (an old compat symbol) is NULL. */
const struct shim_real *shim_real_get(void);

#endif
