// SPDX-License-Identifier: MIT
/*
 * Resolution of the real C library functions behind the interposers.
 */
/* The interposers define both foo and foo64: keep the headers from
 * redirecting foo to foo64 (meson builds with _FILE_OFFSET_BITS=64; on
 * x86-64 both have the same ABI). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "shim_real.h"

static struct shim_real real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* The legacy __xstat family only exists as compat symbols in glibc >= 2.33,
 * which plain dlsym() does not return: ask for the x86-64 base version. */
static void *resolve(const char *name, const char *compat_version)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p && compat_version)
		p = dlvsym(RTLD_NEXT, name, compat_version);
	return p;
}

#define RESOLVE(field, name)        (*(void **)&real.field = resolve(name, NULL))
#define RESOLVE_COMPAT(field, name) (*(void **)&real.field = resolve(name, "GLIBC_2.2.5"))

static void real_init(void)
{
	RESOLVE(open, "open");
	RESOLVE(open64, "open64");
	RESOLVE(openat, "openat");
	RESOLVE(openat64, "openat64");
	RESOLVE(open_2, "__open_2");
	RESOLVE(open64_2, "__open64_2");
	RESOLVE(openat_2, "__openat_2");
	RESOLVE(openat64_2, "__openat64_2");
	RESOLVE(fopen, "fopen");
	RESOLVE(fopen64, "fopen64");
	RESOLVE(opendir, "opendir");
	RESOLVE(stat, "stat");
	RESOLVE(stat64, "stat64");
	RESOLVE(lstat, "lstat");
	RESOLVE(lstat64, "lstat64");
	RESOLVE(fstatat, "fstatat");
	RESOLVE(fstatat64, "fstatat64");
	RESOLVE(fstat, "fstat");
	RESOLVE(fstat64, "fstat64");
	RESOLVE_COMPAT(fxstat, "__fxstat");
	RESOLVE_COMPAT(fxstat64, "__fxstat64");
	RESOLVE(statx, "statx");
	RESOLVE_COMPAT(xstat, "__xstat");
	RESOLVE_COMPAT(xstat64, "__xstat64");
	RESOLVE_COMPAT(lxstat, "__lxstat");
	RESOLVE_COMPAT(lxstat64, "__lxstat64");
	RESOLVE_COMPAT(fxstatat, "__fxstatat");
	RESOLVE_COMPAT(fxstatat64, "__fxstatat64");
	RESOLVE(access, "access");
	RESOLVE(faccessat, "faccessat");
	RESOLVE(readlink, "readlink");
	RESOLVE(readlinkat, "readlinkat");
	RESOLVE(realpath, "realpath");
	RESOLVE(realpath_chk, "__realpath_chk");
	RESOLVE(ioctl, "ioctl");
	RESOLVE(mmap, "mmap");
	RESOLVE(mmap64, "mmap64");
	RESOLVE(munmap, "munmap");
	RESOLVE(madvise, "madvise");
	RESOLVE(mremap, "mremap");
	RESOLVE(close, "close");
	RESOLVE(dup, "dup");
	RESOLVE(dup2, "dup2");
	RESOLVE(dup3, "dup3");
	RESOLVE(fcntl, "fcntl");
	RESOLVE(fcntl64, "fcntl64");
	RESOLVE(popen, "popen");
	RESOLVE(pclose, "pclose");
}

const struct shim_real *shim_real_get(void)
{
	pthread_once(&real_once, real_init);
	return &real;
}
