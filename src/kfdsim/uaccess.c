// SPDX-License-Identifier: MIT
/*
 * Copies between kfdsim and caller-supplied pointers embedded in ioctl
 * arguments (apertures_ptr, events_ptr, device_ids_array_ptr, ...). The
 * kernel turns a bad pointer into -EFAULT; so do we, by letting the kernel
 * do the copy (process_vm_readv/writev on ourselves) instead of touching
 * the pointer directly.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sim_priv.h"

/*
 * Our pid, cached: getpid() is a system call, and every copy needs it. A
 * fork()ed child must not copy from its parent's address space, so the
 * atfork handler forgets the cached value in the child (0 = look it up).
 */
static pid_t self_pid;
static pthread_once_t self_pid_once = PTHREAD_ONCE_INIT;

static void self_pid_forget(void)
{
	__atomic_store_n(&self_pid, 0, __ATOMIC_RELAXED);
}

static void self_pid_init(void)
{
	pthread_atfork(NULL, NULL, self_pid_forget);
}

static pid_t self(void)
{
	pid_t p;

	pthread_once(&self_pid_once, self_pid_init);
	p = __atomic_load_n(&self_pid, __ATOMIC_RELAXED);
	if (!p) {
		p = getpid();
		__atomic_store_n(&self_pid, p, __ATOMIC_RELAXED);
	}
	return p;
}

/* process_vm_* may be filtered by a seccomp profile; then trust the caller. */
static int vm_copy(bool write, void *local, uint64_t remote, size_t len)
{
	struct iovec l = {.iov_base = local, .iov_len = len};
	struct iovec r = {.iov_base = (void *)(uintptr_t)remote, .iov_len = len};
	ssize_t n;

	if (len == 0)
		return 0;
	if (remote == 0 || remote + len < remote)
		return -EFAULT;
	n = write ? process_vm_writev(self(), &l, 1, &r, 1, 0)
		  : process_vm_readv(self(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		if (write)
			memcpy(r.iov_base, local, len);
		else
			memcpy(local, r.iov_base, len);
		return 0;
	}
	return -EFAULT;
}

int sim_copy_from_user(void *dst, uint64_t src, size_t len)
{
	return vm_copy(false, dst, src, len);
}

int sim_copy_to_user(uint64_t dst, const void *src, size_t len)
{
	return vm_copy(true, (void *)src, dst, len);
}

/* The range must be mapped in this process (USERPTR registration). */
int sim_check_user_range(uint64_t addr, uint64_t len)
{
	unsigned char vec[1024];
	uint64_t chunk = sizeof(vec) * SIM_PAGE_SIZE;

	if (len == 0 || addr + len < addr || addr + len > SIM_TASK_SIZE)
		return -EFAULT;
	for (uint64_t off = 0; off < len; off += chunk) {
		uint64_t n = len - off < chunk ? len - off : chunk;

		if (mincore((void *)(uintptr_t)(addr + off), n, vec) != 0)
			return -EFAULT;
	}
	return 0;
}
