// SPDX-License-Identifier: MIT
/*
 * The preload shim's "vkfd" backend: every KFD ioctl an unmodified
 * libhsakmt issues becomes vkfd protocol commands carried by the guest
 * library to a host context. See docs/guest-vkfd-backend.md; the parts and
 * their locks are listed in backend_vkfd_internal.h.
 *
 * This part: the shim's entry points, the table of files the shim gave us,
 * the locks, and init/open/close/fork.
 *
 * Model: each open of /dev/kfd is one KFD "process" = one guest library
 * connection = one host context, represented by an eventfd. Render-node
 * fds are eventfds too; BO mmap offsets on them are guest-side cookies that
 * mmap() turns into blob mappings, created lazily on first CPU mapping.
 *
 * Every argument comes from an application we do not trust: lengths,
 * counts and embedded pointers are bounded and read with process_vm_readv
 * (EFAULT instead of a crash). Errors are the errno the kernel would give.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

struct bk_state bk;

pthread_mutex_t bk_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t bk_mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* the holders the _locked assertions check (backend_vkfd_internal.h) */
_Thread_local unsigned int bk_lock_depth;
_Thread_local unsigned int bk_mem_lock_depth;
_Thread_local const struct bk_conn *bk_ev_lock_holder;
_Thread_local const struct bk_conn *bk_alloc_lock_holder;

void bk_table_lock(void)
{
	pthread_mutex_lock(&bk_lock);
	bk_lock_depth++;
}

void bk_table_unlock(void)
{
	assert(bk_lock_depth > 0);
	bk_lock_depth--;
	pthread_mutex_unlock(&bk_lock);
}

void bk_mem_lock_take(void)
{
	assert(bk_lock_depth == 0); /* the order: bk_mem_lock, then bk_lock */
	pthread_mutex_lock(&bk_mem_lock);
	bk_mem_lock_depth++;
}

void bk_mem_lock_release(void)
{
	assert(bk_mem_lock_depth > 0);
	bk_mem_lock_depth--;
	pthread_mutex_unlock(&bk_mem_lock);
}

void bk_ev_lock(struct bk_conn *c)
{
	assert(!bk_ev_lock_holder); /* a leaf lock: one at a time */
	pthread_mutex_lock(&c->ev_lock);
	bk_ev_lock_holder = c;
}

void bk_ev_unlock(struct bk_conn *c)
{
	BK_ASSERT_EV_LOCKED(c);
	bk_ev_lock_holder = NULL;
	pthread_mutex_unlock(&c->ev_lock);
}

void bk_alloc_lock(struct bk_conn *c)
{
	assert(!bk_alloc_lock_holder); /* one connection's at a time */
	pthread_mutex_lock(&c->alloc_lock);
	bk_alloc_lock_holder = c;
}

void bk_alloc_unlock(struct bk_conn *c)
{
	BK_ASSERT_ALLOC_LOCKED(c);
	bk_alloc_lock_holder = NULL;
	pthread_mutex_unlock(&c->alloc_lock);
}

/* After fork, in the child: only this thread survives and the locks may
 * be held by threads that are gone. */
void bk_locks_reset_child(void)
{
	pthread_mutex_init(&bk_lock, NULL);
	pthread_mutex_init(&bk_mem_lock, NULL);
	bk_lock_depth = 0;
	bk_mem_lock_depth = 0;
	bk_ev_lock_holder = NULL;
	bk_alloc_lock_holder = NULL;
}

/* This process's pid, cached: every ioctl checks that its fd belongs to
 * the caller, and getpid() is a system call (several per ioctl, a tenth of
 * a model load's system calls). The child of a fork forgets it
 * (bk_atfork_child), as it forgets every connection of its parent. */
static pid_t bk_pid_cache;

pid_t bk_self_pid(void)
{
	pid_t p = __atomic_load_n(&bk_pid_cache, __ATOMIC_RELAXED);

	if (!p) {
		p = getpid();
		__atomic_store_n(&bk_pid_cache, p, __ATOMIC_RELAXED);
	}
	return p;
}

/* After fork the table still holds the parent's entries (they answer EBADF
 * in the child). The child may close such an fd behind our back and get the
 * same number again from a new open: its own entry must win. */
struct bk_file *bk_file_get_locked(int fd)
{
	struct bk_file *inherited = NULL;
	pid_t self = bk_self_pid();

	BK_ASSERT_TABLE_LOCKED();
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_file *f = &bk.files[i];

		if (!f->kind || f->fd != fd)
			continue;
		if (f->pid == self)
			return f;
		inherited = f;
	}
	return inherited;
}

static struct bk_file *bk_file_add_locked(int fd, enum bk_kind kind)
{
	pid_t self = bk_self_pid();

	BK_ASSERT_TABLE_LOCKED();
	/* A new open returned this number, so an inherited entry for it is
	 * gone for good (its connection was already marked dead at fork). */
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_file *f = &bk.files[i];

		if (f->kind && f->fd == fd && f->pid != self)
			f->kind = 0;
	}
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_file *f = &bk.files[i];

		if (f->kind)
			continue;
		memset(f, 0, sizeof(*f));
		f->fd = fd;
		f->kind = kind;
		f->pid = self;
		f->gpu = -1;
		return f;
	}
	return NULL;
}

int bk_gpu_index_locked(uint32_t gpu_id)
{
	BK_ASSERT_TABLE_LOCKED();
	for (unsigned int i = 0; i < bk.n_gpus; i++)
		if (bk.gpus[i].gpu_id == gpu_id)
			return (int)i;
	return -1;
}

struct bk_bo *bk_bo_find_locked(struct bk_conn *c, uint64_t handle)
{
	BK_ASSERT_TABLE_LOCKED();
	for (struct bk_bo *b = c->bos; b; b = b->next)
		if (b->handle == handle)
			return b;
	return NULL;
}

struct bk_bo *bk_bo_by_cookie_locked(uint64_t cookie, struct bk_conn **owner)
{
	BK_ASSERT_TABLE_LOCKED();
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_file *f = &bk.files[i];

		if (f->kind != BK_KFD || !f->conn || f->conn->dead)
			continue;
		for (struct bk_bo *b = f->conn->bos; b; b = b->next) {
			if (b->cookie == cookie) {
				*owner = f->conn;
				return b;
			}
		}
	}
	return NULL;
}

static int bk_init(void)
{
	struct bk_conn *c;
	int r = 0;
	static bool atexit_done;

	bk_table_lock();
	if (bk.inited && bk.pid == bk_self_pid())
		goto out;
	c = bk_conn_new(&r);
	if (!c)
		goto out;
	bk.pid = bk_self_pid();
	bk.next_cookie = 1;
	r = bk_topo_materialise_locked(c);
	if (r) {
		bk_log("topology: %s", strerror(-r));
		bk_cleanup_tree();
		bk_conn_free(c);
		goto out;
	}
	bk.spare = c;
	bk.inited = true;
	if (!atexit_done) {
		atexit(bk_cleanup_tree);
		atexit(bk_stats_report);
		atexit(bk_prof_report);
		atexit_done = true;
	}
out:
	bk_table_unlock();
	return r;
}

static const char *bk_sysfs_root(void)
{
	return bk.root;
}

/* A kept process stays kept when the open that wanted it fails. With
 * bk_mem_lock (bk_conn_free may restore freed USERPTR ranges). */
static void bk_open_failed(struct bk_conn *c, bool reused)
{
	if (reused) {
		bk_table_lock();
		if (!bk.kept) {
			bk.kept = c;
			c = NULL;
		}
		bk_table_unlock();
	}
	bk_conn_free(c);
}

static int bk_open_kfd(int flags)
{
	struct bk_conn *c = NULL;
	struct bk_file *f;
	bool reused = false;
	int fd, r = 0;

	/* bk_mem_lock while a kept process is in no table: its freed USERPTR
	 * ranges stay findable (backend_vkfd_userptr.c) */
	bk_mem_lock_take();
	bk_table_lock();
	if (bk.kept && bk.kept->pid == bk_self_pid() && !bk.kept->dead) {
		c = bk.kept;
		bk.kept = NULL;
		reused = true;
	} else if (bk.spare && bk.spare->pid == bk_self_pid()) {
		c = bk.spare;
		bk.spare = NULL;
	}
	bk_table_unlock();
	if (!c) {
		bk_mem_lock_release();
		c = bk_conn_new(&r);
		if (!c)
			return r;
		bk_mem_lock_take();
	}
	fd = eventfd(0, EFD_NONBLOCK | ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0));
	if (fd < 0) {
		r = -errno;
		bk_open_failed(c, reused);
		bk_mem_lock_release();
		return r;
	}
	bk_table_lock();
	f = bk_file_add_locked(fd, BK_KFD);
	if (f) {
		f->conn = c;
		c->kfd_fd = fd;
		c->refs = 1;
	}
	bk_table_unlock();
	if (!f) {
		close(fd);
		bk_open_failed(c, reused);
		bk_mem_lock_release();
		return -EMFILE;
	}
	bk_mem_lock_release();
	bk_log("open kfd -> fd %d", fd);
	return fd;
}

static int bk_open_render(int minor, int flags)
{
	struct bk_file *f;
	int gpu = -1, fd;

	bk_table_lock();
	for (unsigned int i = 0; i < bk.n_gpus; i++)
		if (bk.gpus[i].render_minor == minor)
			gpu = (int)i;
	bk_table_unlock();
	if (gpu < 0)
		return -ENOENT;
	fd = eventfd(0, EFD_NONBLOCK | ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0));
	if (fd < 0)
		return -errno;
	bk_table_lock();
	f = bk_file_add_locked(fd, BK_RENDER);
	if (f)
		f->gpu = gpu;
	bk_table_unlock();
	if (!f) {
		close(fd);
		return -EMFILE;
	}
	return fd;
}

static int bk_close(int fd)
{
	struct bk_conn *drop = NULL;
	struct bk_file *f;

	bk_mem_lock_take();
	bk_table_lock();
	f = bk_file_get_locked(fd);
	if (!f) {
		bk_table_unlock();
		bk_mem_lock_release();
		return close(fd) ? -errno : 0;
	}
	if (f->kind == BK_KFD && f->conn) {
		struct bk_conn *c = f->conn;
		bool keep = c->refs == 1 && !c->dead && !bk.kept && c->pid == bk_self_pid();

		/* render fds it acquired become free again, unless the
		 * process is kept: its VMs stay bound to it */
		for (unsigned int i = 0; i < BK_MAX_FILES && !keep; i++)
			if (bk.files[i].kind == BK_RENDER && bk.files[i].vm_owner == c)
				bk.files[i].vm_owner = NULL;
		if (--c->refs == 0) {
			/* a render-node call may still be borrowing it: the
			 * last such call frees it */
			if (keep) {
				c->kfd_fd = -1;
				bk.kept = c;
			} else if (c->users)
				c->closed = true;
			else
				drop = c;
		}
	} else if (f->kind == BK_RENDER) {
		for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
			struct bk_conn *c = bk.files[i].conn;

			if (bk.files[i].kind != BK_KFD || !c)
				continue;
			for (unsigned int g = 0; g < VKFD_MAX_GPUS; g++)
				if (c->acquired[g] == fd)
					c->acquired[g] = -1;
		}
		for (unsigned int g = 0; bk.kept && g < VKFD_MAX_GPUS; g++)
			if (bk.kept->acquired[g] == fd)
				bk.kept->acquired[g] = -1;
	}
	memset(f, 0, sizeof(*f));
	bk_table_unlock();
	/* Destroying the connection destroys the host context, which frees
	 * every object it held, as closing /dev/kfd does. Mappings the
	 * application still has stay valid (blob fds are independent). */
	bk_conn_free(drop);
	bk_mem_lock_release();
	return close(fd) ? -errno : 0;
}

/* The process's KFD process ends, as the kernel's does when the mm goes
 * away: the connection kept after the last close (and its host context)
 * is released. For a program that runs several KFD processes one after
 * another in one process (vkfd-bench's storm through the backend). */
void bk_release_kept(void)
{
	struct bk_conn *c;

	bk_mem_lock_take();
	bk_table_lock();
	c = bk.kept;
	bk.kept = NULL;
	bk_table_unlock();
	bk_conn_free(c);
	bk_mem_lock_release();
}

static void bk_atfork_child(void)
{
	__atomic_store_n(&bk_pid_cache, 0, __ATOMIC_RELAXED);
	bk_locks_reset_child();
	/* Every inherited connection belongs to the parent's host context:
	 * mark it dead (ioctls on the inherited fds give EBADF like the
	 * kernel) and never send or disconnect on it. */
	for (unsigned int i = 0; i < BK_MAX_FILES; i++) {
		struct bk_file *f = &bk.files[i];

		if (f->kind == BK_KFD && f->conn)
			f->conn->dead = true;
		if (f->kind == BK_RENDER)
			f->vm_owner = NULL;
	}
	if (bk.spare)
		bk.spare->dead = true;
	bk.spare = NULL;
	/* the parent's kept process is not the child's (as with the kernel,
	 * where the child has its own mm) */
	if (bk.kept)
		bk.kept->dead = true;
	bk.kept = NULL;
	/* init runs again in the child: new connection, its own tree */
	bk.inited = false;
	bk.root_ours = false;
}

static int bk_ioctl(int fd, unsigned long request, void *arg)
{
	struct bk_file *f;
	struct bk_file copy;

	bk_table_lock();
	f = bk_file_get_locked(fd);
	if (f)
		copy = *f;
	bk_table_unlock();
	if (!f)
		return -EBADF;
	if (copy.pid != bk_self_pid())
		return -EBADF;
	if (copy.kind == BK_RENDER)
		return bk_render_ioctl(fd, request, arg);
	/* a KFD process is bound to the process that opened it */
	if (!copy.conn || copy.conn->dead || copy.conn->pid != bk_self_pid())
		return -EBADF;
	if (bk_debug > 0) {
		uint64_t t0 = bk_clock_ns(CLOCK_MONOTONIC), dt;
		int r = bk_kfd_ioctl(copy.conn, request, arg);

		dt = bk_clock_ns(CLOCK_MONOTONIC) - t0;
		bk_log("kfd ioctl nr %#x -> %d in %" PRIu64 " us (t=%" PRIu64 " ms, tid %d)",
		       (unsigned int)_IOC_NR(request), r, dt / 1000, t0 / 1000000 % 100000,
		       (int)gettid());
		return r;
	}
	return bk_kfd_ioctl(copy.conn, request, arg);
}

const struct shim_backend shim_backend_vkfd = {
    .name = "vkfd",
    .init = bk_init,
    .sysfs_root = bk_sysfs_root,
    .open_kfd = bk_open_kfd,
    .open_render = bk_open_render,
    .ioctl = bk_ioctl,
    .mmap = bk_mmap,
    .munmap_notify = bk_svm_munmap_notify,
    .remap_notify = bk_remap_notify,
    .atfork_prepare = bk_atfork_prepare,
    .close = bk_close,
    .atfork_child = bk_atfork_child,
};
