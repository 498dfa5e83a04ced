// SPDX-License-Identifier: MIT
/*
 * Interposers on file descriptors: ioctl, mmap, munmap, close and the dup
 * family. Calls on device fds go to the backend; everything else goes to
 * the C library untouched.
 */
/* The interposers define both foo and foo64: keep the headers from
 * redirecting foo to foo64 (meson builds with _FILE_OFFSET_BITS=64; on
 * x86-64 both have the same ABI). */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_fdtable.h"
#include "shim_real.h"

/* AMDKFD_IOC_ACQUIRE_VM: struct kfd_ioctl_acquire_vm_args. */
#define KFD_NR_ACQUIRE_VM   0x15
#define KFD_NR_CREATE_QUEUE 0x02
#define KFD_NR_SVM          0x20
struct acquire_vm_args {
	uint32_t drm_fd;
	uint32_t gpu_id;
};

/* ACQUIRE_VM names a render fd inside its argument. libdrm_amdgpu (2.4.124)
 * keeps one device per GPU and libhsakmt then passes the device's own fd, a
 * dup the backend has never seen: name the backend's fd instead. The copy is
 * made with process_vm_readv so a bad pointer stays -EFAULT. */
static int acquire_vm(const struct shim_backend *b, int kfd, unsigned long request, void *arg)
{
	struct acquire_vm_args a;
	struct shim_devfile *r;
	struct iovec l = {.iov_base = &a, .iov_len = sizeof(a)};
	struct iovec rm = {.iov_base = arg, .iov_len = sizeof(a)};

	if (_IOC_SIZE(request) != sizeof(a) ||
	    process_vm_readv(getpid(), &l, 1, &rm, 1, 0) != (ssize_t)sizeof(a))
		return b->ioctl(kfd, request, arg);
	r = a.drm_fd <= INT32_MAX ? shim_fd_get((int)a.drm_fd) : NULL;
	if (!r)
		return b->ioctl(kfd, request, arg);
	if (r->kind == SHIM_FD_RENDER && shim_fd_current(r))
		a.drm_fd = (uint32_t)r->backend_fd;
	shim_fd_put(r);
	return b->ioctl(kfd, request, &a);
}

/* Which queue ROCr created (the version matrix checks that copies run on
 * SDMA queues): queue_type at offset 40 of kfd_ioctl_create_queue_args,
 * sdma_engine_id at 88 since KFD 1.17 (the struct grew from 88 to 96). */
static void log_create_queue(const void *arg, size_t size)
{
	uint32_t type, engine = 0, gpu_id, queue_id;

	memcpy(&gpu_id, (const char *)arg + 36, 4);
	memcpy(&type, (const char *)arg + 40, 4);
	memcpy(&queue_id, (const char *)arg + 52, 4);
	if (size >= 96)
		memcpy(&engine, (const char *)arg + 88, 4);
	shim_debug("create_queue gpu_id %u type %u sdma_engine_id %u -> queue %u", gpu_id, type,
		   engine, queue_id);
}

/* What an SVM call asked (the version matrix checks how libhsakmt
 * registered locked memory): kfd_ioctl_svm_args is start_addr, size, op,
 * nattr (24 bytes), then nattr {type, value} pairs; at most the pairs the
 * ioctl size holds, and 8 of them, are shown. */
static void log_svm(const void *arg, size_t size)
{
	static const char *const names[] = {"preferred_loc",   "prefetch_loc", "access",
					    "access_in_place", "no_access",    "set_flags",
					    "clr_flags",       "granularity"};
	uint64_t start, len;
	uint32_t op, nattr, shown;
	char line[512];
	int n;

	memcpy(&start, arg, 8);
	memcpy(&len, (const char *)arg + 8, 8);
	memcpy(&op, (const char *)arg + 16, 4);
	memcpy(&nattr, (const char *)arg + 20, 4);
	shown = (uint32_t)((size - 24) / 8);
	if (nattr < shown)
		shown = nattr;
	if (shown > 8)
		shown = 8;
	n = snprintf(line, sizeof(line), "svm %s 0x%llx size 0x%llx nattr %u:",
		     op == 0   ? "set_attr"
		     : op == 1 ? "get_attr"
			       : "op?",
		     (unsigned long long)start, (unsigned long long)len, nattr);
	for (uint32_t i = 0; i < shown && n > 0 && (size_t)n < sizeof(line); i++) {
		uint32_t type, value;

		memcpy(&type, (const char *)arg + 24 + 8 * i, 4);
		memcpy(&value, (const char *)arg + 28 + 8 * i, 4);
		if (type < sizeof(names) / sizeof(names[0]))
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s 0x%x", names[type],
				      value);
		else
			n += snprintf(line + n, sizeof(line) - (size_t)n, " type%u 0x%x", type,
				      value);
	}
	shim_debug("%s", line);
}

static int device_ioctl(struct shim_devfile *f, unsigned long request, void *arg)
{
	const struct shim_backend *b;
	int ret;

	/* amdkfd refuses a KFD fd used by another process than its opener;
	 * an inherited fd's device state no longer exists in this child. */
	if (!shim_fd_current(f))
		return -EBADF;
	shim_enter();
	b = shim_backend_get();
	if (b && f->kind == SHIM_FD_KFD && _IOC_TYPE(request) == 'K' &&
	    _IOC_NR(request) == KFD_NR_ACQUIRE_VM)
		ret = acquire_vm(b, f->backend_fd, request, arg);
	else
		ret = b ? b->ioctl(f->backend_fd, request, arg) : -EBADF;
	shim_leave();
	shim_debug("ioctl(%d, dir %lu type '%c' nr 0x%02lx size %lu) -> %d", f->backend_fd,
		   (unsigned long)_IOC_DIR(request), (int)_IOC_TYPE(request),
		   (unsigned long)_IOC_NR(request), (unsigned long)_IOC_SIZE(request), ret);
	if (shim_debug_on && ret == 0 && f->kind == SHIM_FD_KFD && _IOC_TYPE(request) == 'K' &&
	    _IOC_NR(request) == KFD_NR_CREATE_QUEUE && _IOC_SIZE(request) >= 88)
		log_create_queue(arg, _IOC_SIZE(request));
	if (shim_debug_on && ret == 0 && f->kind == SHIM_FD_KFD && _IOC_TYPE(request) == 'K' &&
	    _IOC_NR(request) == KFD_NR_SVM && _IOC_SIZE(request) >= 24)
		log_svm(arg, _IOC_SIZE(request));
	return ret;
}

int ioctl(int fd, unsigned long request, ...)
{
	struct shim_devfile *f;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!shim_busy()) {
		f = shim_fd_get(fd);
		if (f) {
			ret = device_ioctl(f, request, arg);
			shim_fd_put(f);
			if (ret < 0) {
				errno = -ret;
				return -1;
			}
			return ret;
		}
	}
	return shim_real_get()->ioctl(fd, request, arg);
}

static void *device_mmap(struct shim_devfile *f, void *addr, size_t len, int prot, int flags,
			 off_t off)
{
	const struct shim_backend *b;
	void *p;
	int err = 0;

	if (!shim_fd_current(f)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	shim_enter();
	b = shim_backend_get();
	if (b) {
		p = b->mmap(addr, len, prot, flags, f->backend_fd, off);
		err = errno;
	} else {
		p = MAP_FAILED;
		err = ENODEV;
	}
	shim_leave();
	shim_debug("mmap(%p, 0x%zx, prot %d, flags 0x%x, fd %d, off 0x%llx) -> %p", addr, len, prot,
		   flags, f->backend_fd, (unsigned long long)off, p);
	errno = err;
	return p;
}

static void *mmap_common(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct shim_devfile *f;
	void *p;

	if (shim_busy() || (flags & MAP_ANONYMOUS) || fd < 0)
		return NULL;
	f = shim_fd_get(fd);
	if (!f)
		return NULL;
	p = device_mmap(f, addr, len, prot, flags, off);
	shim_fd_put(f);
	return p;
}

/* The backend is told before a mapping replaces [addr, addr+len), as
 * for munmap. */
static void replace_notify(void *addr, size_t len)
{
	const struct shim_backend *b = shim_backend_peek();

	if (b && b->munmap_notify && !shim_busy()) {
		shim_enter();
		b->munmap_notify(addr, len);
		shim_leave();
	}
}

static void remap_notify(void *addr, size_t len)
{
	const struct shim_backend *b = shim_backend_peek();

	if (b && b->remap_notify && !shim_busy()) {
		shim_enter();
		b->remap_notify(addr, len);
		shim_leave();
	}
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (flags & MAP_FIXED)
		replace_notify(addr, len);
	p = mmap_common(addr, len, prot, flags, fd, off);

	return p ? p : shim_real_get()->mmap(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	void *p;

	if (flags & MAP_FIXED)
		replace_notify(addr, len);
	p = mmap_common(addr, len, prot, flags, fd, (off_t)off);

	return p ? p : shim_real_get()->mmap64(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	replace_notify(addr, len);
	return shim_real_get()->munmap(addr, len);
}

int madvise(void *addr, size_t len, int advice)
{
	remap_notify(addr, len);
	return shim_real_get()->madvise(addr, len, advice);
}

void *mremap(void *old_addr, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
		replace_notify(new_addr, new_len);
	}
	remap_notify(old_addr, old_len);
	if (flags & MREMAP_FIXED)
		return shim_real_get()->mremap(old_addr, old_len, new_len, flags, new_addr);
	return shim_real_get()->mremap(old_addr, old_len, new_len, flags);
}

int close(int fd)
{
	struct shim_devfile *f;

	if (shim_busy())
		return shim_real_get()->close(fd);
	f = shim_fd_remove(fd);
	if (!f)
		return shim_real_get()->close(fd);
	/* The backend's own number stays open while other numbers (dups) or
	 * calls in flight still use the device file. */
	if (fd != f->backend_fd)
		shim_real_get()->close(fd);
	shim_fd_put(f);
	return 0;
}

/* newfd is a fresh real duplicate of a device fd: track it too. */
static int track_dup(struct shim_devfile *f, int newfd)
{
	int ret;

	if (newfd < 0)
		return newfd;
	ret = shim_fd_register_dup(newfd, f);
	if (ret) {
		shim_real_get()->close(newfd);
		errno = -ret;
		return -1;
	}
	shim_debug("dup of device fd %d -> %d", f->backend_fd, newfd);
	return newfd;
}

int dup(int fd)
{
	struct shim_devfile *f = shim_busy() ? NULL : shim_fd_get(fd);
	int ret;

	if (!f)
		return shim_real_get()->dup(fd);
	ret = track_dup(f, shim_real_get()->dup(fd));
	shim_fd_put(f);
	return ret;
}

/* dup2/dup3 silently close their target. A device file's own backend
 * number cannot be replaced while other numbers still use it. */
static int release_target(int fd2)
{
	struct shim_devfile *f = shim_fd_get(fd2);
	int busy;

	if (!f)
		return 0;
	busy = fd2 == f->backend_fd && f->refs > 2; /* table + our get */
	shim_fd_put(f);
	if (busy)
		return -EBUSY;
	f = shim_fd_remove(fd2);
	if (f) {
		if (fd2 != f->backend_fd)
			shim_real_get()->close(fd2);
		shim_fd_put(f);
	}
	return 0;
}

static int dup3_common(int fd, int fd2, int flags, bool is_dup2)
{
	const struct shim_real *real = shim_real_get();
	struct shim_devfile *f;
	int ret;

	if (shim_busy() || fd == fd2)
		return is_dup2 ? real->dup2(fd, fd2) : real->dup3(fd, fd2, flags);
	f = shim_fd_get(fd);
	if (fcntl(fd, F_GETFD) < 0) {
		/* EBADF must leave fd2 alone, as the kernel does. */
		if (f)
			shim_fd_put(f);
		return -1;
	}
	ret = release_target(fd2);
	if (ret) {
		if (f)
			shim_fd_put(f);
		errno = -ret;
		return -1;
	}
	ret = is_dup2 ? real->dup2(fd, fd2) : real->dup3(fd, fd2, flags);
	if (f) {
		ret = track_dup(f, ret);
		shim_fd_put(f);
	}
	return ret;
}

int dup2(int fd, int fd2)
{
	return dup3_common(fd, fd2, 0, true);
}

int dup3(int fd, int fd2, int flags)
{
	return dup3_common(fd, fd2, flags, false);
}

static int fcntl_common(int fd, int cmd, void *arg, int (*real_fcntl)(int, int, ...))
{
	struct shim_devfile *f;
	int ret;

	if (shim_busy() || (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC))
		return real_fcntl(fd, cmd, arg);
	f = shim_fd_get(fd);
	if (!f)
		return real_fcntl(fd, cmd, arg);
	ret = track_dup(f, real_fcntl(fd, cmd, arg));
	shim_fd_put(f);
	return ret;
}

/* Like glibc, take the optional third argument as a pointer-sized value:
 * int and pointer arguments share the same register on x86-64. */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(fd, cmd, arg, shim_real_get()->fcntl);
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(fd, cmd, arg, shim_real_get()->fcntl64);
}
