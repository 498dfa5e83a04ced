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
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

struct bk_state bk;

pthread_mutex_t bk_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t bk_mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* the holders the _locked assertions check (backend_vkfd_internal.h) */
_Thread_local unsigned int bk_lock_depth;
_Thread_local unsigned int bk_mem_lock_depth;
_Thread_local const struct bk_conn *bk_ev_lock_holder;

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

/* After fork, in the child: only this thread survives and the locks may
 * be held by threads that are gone. */
void bk_locks_reset_child(void)
{
	pthread_mutex_init(&bk_lock, NULL);
	pthread_mutex_init(&bk_mem_lock, NULL);
	bk_lock_depth = 0;
	bk_mem_lock_depth = 0;
	bk_ev_lock_holder = NULL;
}

/* After fork the table still holds the parent's entries (they answer EBADF
 * in the child). The child may close such an fd behind our back and get the
 * same number again from a new open: its own entry must win. */
struct bk_file *bk_file_get_locked(int fd)
{
	struct bk_file *inherited = NULL;
	pid_t self = getpid();

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
	pid_t self = getpid();

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
	if (bk.inited && bk.pid == getpid())
		goto out;
	c = bk_conn_new(&r);
	if (!c)
		goto out;
	bk.pid = getpid();
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

/* A kept process stays kept when the open that wanted it fails. */
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

	bk_table_lock();
	if (bk.kept && bk.kept->pid == getpid() && !bk.kept->dead) {
		c = bk.kept;
		bk.kept = NULL;
		reused = true;
	} else if (bk.spare && bk.spare->pid == getpid()) {
		c = bk.spare;
		bk.spare = NULL;
	}
	bk_table_unlock();
	if (!c) {
		c = bk_conn_new(&r);
		if (!c)
			return r;
	}
	fd = eventfd(0, EFD_NONBLOCK | ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0));
	if (fd < 0) {
		r = -errno;
		bk_open_failed(c, reused);
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
		return -EMFILE;
	}
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
		bool keep = c->refs == 1 && !c->dead && !bk.kept && c->pid == getpid();

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

static void bk_atfork_child(void)
{
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

static int bk_ioctl_get_version(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_get_version *a = arg;
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	r = bk_call(c, VKFD_CMD_GET_VERSION, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	a->major = rsp.major;
	/* never a version whose additions the guest does not serve: 1.18's
	 * misc_process_flag and 1.19's CREATE_PROCESS are not carried
	 * (docs/kfd-uapi.md) */
	a->minor = rsp.minor < BK_KFD_MINOR_MAX ? rsp.minor : BK_KFD_MINOR_MAX;
	return 0;
}

static int bk_get_apertures(struct bk_conn *c, struct vkfd_rsp_get_process_apertures *rsp)
{
	struct vkfd_req_get_process_apertures req;
	int r;

	memset(&req, 0, sizeof(req));
	req.max_nodes = VKFD_MAX_GPUS;
	r = bk_call(c, VKFD_CMD_GET_PROCESS_APERTURES, &req, sizeof(req), rsp, sizeof(*rsp));
	if (!r && rsp->num_nodes > VKFD_MAX_GPUS)
		r = -EIO;
	return r;
}

static void bk_ap_copy(struct bk_aperture *d, const struct vkfd_aperture *s)
{
	memset(d, 0, sizeof(*d));
	d->lds_base = s->lds_base;
	d->lds_limit = s->lds_limit;
	d->scratch_base = s->scratch_base;
	d->scratch_limit = s->scratch_limit;
	d->gpuvm_base = s->gpuvm_base;
	d->gpuvm_limit = s->gpuvm_limit;
	d->gpu_id = s->gpu_id;
}

static int bk_ioctl_get_process_apertures(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_get_apertures_old *a = arg;
	struct vkfd_rsp_get_process_apertures rsp;
	uint32_t n;
	int r;

	(void)usize;
	r = bk_get_apertures(c, &rsp);
	if (r)
		return r;
	n = rsp.num_nodes < BK_OLD_APERTURES ? rsp.num_nodes : BK_OLD_APERTURES;
	memset(a, 0, sizeof(*a));
	for (uint32_t i = 0; i < n; i++)
		bk_ap_copy(&a->ap[i], &rsp.apertures[i]);
	a->num_of_nodes = n;
	return 0;
}

static int bk_ioctl_get_process_apertures_new(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_get_apertures_new *a = arg;
	struct vkfd_rsp_get_process_apertures rsp;
	struct bk_aperture ap[VKFD_MAX_GPUS];
	uint32_t n;
	int r;

	(void)usize;
	r = bk_get_apertures(c, &rsp);
	if (r)
		return r;
	if (a->num_of_nodes == 0) {
		/* the kernel answers the count first */
		a->num_of_nodes = rsp.num_nodes;
		return 0;
	}
	n = a->num_of_nodes < rsp.num_nodes ? a->num_of_nodes : rsp.num_nodes;
	for (uint32_t i = 0; i < n; i++)
		bk_ap_copy(&ap[i], &rsp.apertures[i]);
	a->num_of_nodes = n;
	return bk_write_user(a->apertures_ptr, ap, n * sizeof(ap[0]));
}

static int bk_ioctl_acquire_vm(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_acquire_vm *a = arg;
	struct vkfd_req_gpu req;
	struct vkfd_rsp_empty rsp;
	struct bk_file *f;
	int gi, r;

	(void)usize;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpu_id);
	f = bk_file_get_locked((int)a->drm_fd);
	if (gi < 0) {
		r = -EINVAL;
	} else if (!f || f->kind != BK_RENDER || f->pid != getpid()) {
		r = -EINVAL; /* kernel: fget/not a DRM file */
	} else if (f->gpu != gi) {
		r = -EINVAL; /* a render node of another GPU */
	} else if (c->acquired[gi] >= 0) {
		r = c->acquired[gi] == (int)a->drm_fd ? 0 : -EBUSY;
		bk_table_unlock();
		return r;
	} else if (f->vm_owner && f->vm_owner != c) {
		r = -EBUSY; /* another KFD process owns this file's VM */
	} else {
		r = 1;
	}
	bk_table_unlock();
	if (r <= 0)
		return r;
	memset(&req, 0, sizeof(req));
	req.gpu_id = a->gpu_id;
	r = bk_call(c, VKFD_CMD_ACQUIRE_VM, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	bk_table_lock();
	f = bk_file_get_locked((int)a->drm_fd);
	if (f && f->kind == BK_RENDER) {
		f->vm_owner = c;
		c->acquired[gi] = (int)a->drm_fd;
	}
	bk_table_unlock();
	return 0;
}

static int bk_ioctl_set_memory_policy(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_set_memory_policy *a = arg;
	struct vkfd_req_set_memory_policy req;
	struct vkfd_rsp_empty rsp;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.alternate_aperture_base = a->alternate_aperture_base;
	req.alternate_aperture_size = a->alternate_aperture_size;
	req.gpu_id = a->gpu_id;
	req.default_policy = a->default_policy;
	req.alternate_policy = a->alternate_policy;
	return bk_call(c, VKFD_CMD_SET_MEMORY_POLICY, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int bk_ioctl_set_scratch_backing_va(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_scratch_va *a = arg;
	struct vkfd_req_set_scratch_backing_va req;
	struct vkfd_rsp_empty rsp;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.va_addr = a->va_addr;
	req.gpu_id = a->gpu_id;
	return bk_call(c, VKFD_CMD_SET_SCRATCH_BACKING_VA, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int bk_ioctl_set_trap_handler(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_trap_handler *a = arg;
	struct vkfd_req_set_trap_handler req;
	struct vkfd_rsp_empty rsp;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.tba_addr = a->tba_addr;
	req.tma_addr = a->tma_addr;
	req.gpu_id = a->gpu_id;
	return bk_call(c, VKFD_CMD_SET_TRAP_HANDLER, &req, sizeof(req), &rsp, sizeof(rsp));
}

static int bk_ioctl_set_xnack_mode(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_xnack *a = arg;
	struct vkfd_req_set_xnack_mode req;
	struct vkfd_rsp_set_xnack_mode rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.xnack_enabled = a->xnack_enabled;
	r = bk_call(c, VKFD_CMD_SET_XNACK_MODE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		a->xnack_enabled = rsp.xnack_enabled;
	return r;
}

static int bk_ioctl_available_memory(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_available_memory *a = arg;
	struct vkfd_req_gpu req;
	struct vkfd_rsp_available_memory rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.gpu_id = a->gpu_id;
	r = bk_call(c, VKFD_CMD_AVAILABLE_MEMORY, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		a->available = rsp.available;
	return r;
}

static int bk_ioctl_runtime_enable(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_runtime_enable *a = arg;
	struct vkfd_req_runtime_enable req;
	struct vkfd_rsp_runtime_enable rsp;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.r_debug = a->r_debug;
	req.mode_mask = a->mode_mask;
	req.capabilities_mask = a->capabilities_mask;
	r = bk_call(c, VKFD_CMD_RUNTIME_ENABLE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		a->capabilities_mask = rsp.capabilities_mask;
	return r;
}

/* The guest's own CPU clocks; the GPU counter is the host's, sampled once
 * (twice, to learn its rate) and then extrapolated with the guest's
 * boottime clock. */
static int bk_ioctl_get_clock_counters(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_clock_counters *a = arg;
	struct vkfd_req_gpu req;
	struct vkfd_rsp_get_clock_counters rsp;
	uint64_t now;
	int gi, r;

	(void)usize;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpu_id);
	bk_table_unlock();
	if (gi < 0) {
		/* the kernel: a node without GPU (ROCr asks for node 0, the
		 * CPU) gets gpu counter 0 and the CPU clocks, no error */
		a->gpu_clock_counter = 0;
		goto cpu;
	}
	bk_ev_lock(c);
	if (!c->clk[gi].have_rate) {
		memset(&req, 0, sizeof(req));
		req.gpu_id = a->gpu_id;
		bk_ev_unlock(c);
		r = bk_call(c, VKFD_CMD_GET_CLOCK_COUNTERS, &req, sizeof(req), &rsp, sizeof(rsp));
		if (r)
			return r;
		now = bk_clock_ns(CLOCK_BOOTTIME);
		bk_ev_lock(c);
		if (!c->clk[gi].have) {
			c->clk[gi].have = true;
			c->clk[gi].gpu0 = rsp.gpu_clock_counter;
			c->clk[gi].host_sys0 = rsp.system_clock_counter;
			c->clk[gi].guest_sys0 = now;
		} else if (!c->clk[gi].have_rate &&
			   rsp.system_clock_counter > c->clk[gi].host_sys0 + 1000000ull) {
			c->clk[gi].rate = (double)(rsp.gpu_clock_counter - c->clk[gi].gpu0) /
					  (double)(rsp.system_clock_counter - c->clk[gi].host_sys0);
			c->clk[gi].gpu0 = rsp.gpu_clock_counter;
			c->clk[gi].guest_sys0 = now;
			c->clk[gi].have_rate = true;
		}
		bk_ev_unlock(c);
		a->gpu_clock_counter = rsp.gpu_clock_counter;
	} else {
		now = bk_clock_ns(CLOCK_BOOTTIME);
		a->gpu_clock_counter =
		    c->clk[gi].gpu0 +
		    (uint64_t)((double)(now - c->clk[gi].guest_sys0) * c->clk[gi].rate);
		bk_ev_unlock(c);
	}
cpu:
	a->cpu_clock_counter = bk_clock_ns(CLOCK_MONOTONIC_RAW);
	a->system_clock_counter = bk_clock_ns(CLOCK_BOOTTIME);
	a->system_clock_freq = 1000000000ull;
	return 0;
}

static int bk_ioctl_get_tile_config(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct bk_tile_config *a = arg;
	struct vkfd_req_get_tile_config req;
	struct vkfd_rsp_get_tile_config rsp;
	uint32_t nt, nm;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	req.gpu_id = a->gpu_id;
	req.num_tile_configs = a->num_tile_configs < VKFD_MAX_TILE_CONFIGS ? a->num_tile_configs
									   : VKFD_MAX_TILE_CONFIGS;
	req.num_macro_tile_configs = a->num_macro_tile_configs < VKFD_MAX_MACRO_TILE_CONFIGS
					 ? a->num_macro_tile_configs
					 : VKFD_MAX_MACRO_TILE_CONFIGS;
	r = bk_call(c, VKFD_CMD_GET_TILE_CONFIG, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	nt = rsp.num_tile_configs < req.num_tile_configs ? rsp.num_tile_configs
							 : req.num_tile_configs;
	nm = rsp.num_macro_tile_configs < req.num_macro_tile_configs ? rsp.num_macro_tile_configs
								     : req.num_macro_tile_configs;
	a->gb_addr_config = rsp.gb_addr_config;
	a->num_banks = rsp.num_banks;
	a->num_ranks = rsp.num_ranks;
	a->num_tile_configs = nt;
	a->num_macro_tile_configs = nm;
	r = bk_write_user(a->tile_config_ptr, rsp.tile_config, nt * 4u);
	if (!r)
		r = bk_write_user(a->macro_tile_config_ptr, rsp.macro_tile_config, nm * 4u);
	return r;
}

/* DBG_TRAP (KFD 1.13) is not carried: the host's KFD process is shared by
 * every context of a server on a real device, so its snapshots, queue
 * suspension and exception state would reach across guests, and the
 * notification fd is a guest fd. The guest answers every op as a kernel
 * that cannot debug its queues (sched_policy=2, no hardware scheduler):
 * -EINVAL before the pid is even looked up (docs/security.md). */
static int bk_ioctl_dbg_trap(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EINVAL;
}

/* The dma-buf ioctls: only virtio-gpu resources could be imported or
 * exported, and a guest fd is not one; answered as for a foreign fd. */
static int bk_ioctl_get_dmabuf_info(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EINVAL;
}

static int bk_ioctl_import_dmabuf(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EINVAL;
}

static int bk_ioctl_export_dmabuf(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EINVAL;
}

/* SVM in a kernel built without CONFIG_HSA_AMD_SVM */
static int bk_ioctl_svm(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EPERM;
}

/* CRIU_OP for a caller without CAP_CHECKPOINT_RESTORE: a guest process
 * never checkpoints through vkfd */
static int bk_ioctl_criu_op(struct bk_conn *c, void *arg, uint32_t usize)
{
	(void)c;
	(void)arg;
	(void)usize;
	return -EACCES;
}

#define BK_IN  1u
#define BK_OUT 2u

struct bk_ioctl_desc {
	uint32_t size; /* the struct this side knows */
	uint32_t dir;  /* the kernel's direction, not the caller's */
	bk_handler fn;
};

static const struct bk_ioctl_desc bk_ioctls[] = {
    [BK_NR_GET_VERSION] = {8, BK_OUT, bk_ioctl_get_version},
    [BK_NR_CREATE_QUEUE] = {96, BK_IN | BK_OUT, bk_ioctl_create_queue},
    [BK_NR_DESTROY_QUEUE] = {8, BK_IN | BK_OUT, bk_ioctl_destroy_queue},
    [BK_NR_SET_MEMORY_POLICY] = {32, BK_IN, bk_ioctl_set_memory_policy},
    [BK_NR_GET_CLOCK_COUNTERS] = {40, BK_IN | BK_OUT, bk_ioctl_get_clock_counters},
    [BK_NR_GET_PROCESS_APERTURES] = {400, BK_OUT, bk_ioctl_get_process_apertures},
    [BK_NR_UPDATE_QUEUE] = {24, BK_IN, bk_ioctl_update_queue},
    [BK_NR_CREATE_EVENT] = {32, BK_IN | BK_OUT, bk_ioctl_create_event},
    [BK_NR_DESTROY_EVENT] = {8, BK_IN, bk_ioctl_destroy_event},
    [BK_NR_SET_EVENT] = {8, BK_IN, bk_ioctl_set_event},
    [BK_NR_RESET_EVENT] = {8, BK_IN, bk_ioctl_reset_event},
    [BK_NR_WAIT_EVENTS] = {24, BK_IN | BK_OUT, bk_ioctl_wait_events},
    /* 0x0d..0x10, the deprecated debugger ioctls (docs/protocol.md
     * section 12), and CREATE_PROCESS (0x27, KFD 1.19, not served) have
     * no entry: -ENOTTY without reading the argument */
    [BK_NR_SET_SCRATCH_BACKING_VA] = {16, BK_IN | BK_OUT, bk_ioctl_set_scratch_backing_va},
    [BK_NR_GET_TILE_CONFIG] = {40, BK_IN | BK_OUT, bk_ioctl_get_tile_config},
    [BK_NR_SET_TRAP_HANDLER] = {24, BK_IN, bk_ioctl_set_trap_handler},
    [BK_NR_GET_PROCESS_APERTURES_NEW] = {16, BK_IN | BK_OUT, bk_ioctl_get_process_apertures_new},
    [BK_NR_ACQUIRE_VM] = {8, BK_IN, bk_ioctl_acquire_vm},
    [BK_NR_ALLOC_MEMORY_OF_GPU] = {40, BK_IN | BK_OUT, bk_ioctl_alloc_memory_of_gpu},
    [BK_NR_FREE_MEMORY_OF_GPU] = {8, BK_IN, bk_ioctl_free_memory_of_gpu},
    [BK_NR_MAP_MEMORY_TO_GPU] = {24, BK_IN | BK_OUT, bk_ioctl_map_memory_to_gpu},
    [BK_NR_UNMAP_MEMORY_FROM_GPU] = {24, BK_IN | BK_OUT, bk_ioctl_unmap_memory_from_gpu},
    [BK_NR_SET_CU_MASK] = {16, BK_IN, bk_ioctl_set_cu_mask},
    [BK_NR_GET_QUEUE_WAVE_STATE] = {24, BK_IN | BK_OUT, bk_ioctl_get_queue_wave_state},
    [BK_NR_GET_DMABUF_INFO] = {32, BK_IN | BK_OUT, bk_ioctl_get_dmabuf_info},
    [BK_NR_IMPORT_DMABUF] = {24, BK_IN | BK_OUT, bk_ioctl_import_dmabuf},
    [BK_NR_ALLOC_QUEUE_GWS] = {16, BK_IN | BK_OUT, bk_ioctl_alloc_queue_gws},
    [BK_NR_SMI_EVENTS] = {8, BK_IN | BK_OUT, bk_ioctl_smi_events},
    /* like a kernel built without SVM support */
    [BK_NR_SVM] = {24, BK_IN | BK_OUT, bk_ioctl_svm},
    [BK_NR_SET_XNACK_MODE] = {4, BK_IN | BK_OUT, bk_ioctl_set_xnack_mode},
    [BK_NR_CRIU_OP] = {56, BK_IN | BK_OUT, bk_ioctl_criu_op},
    [BK_NR_AVAILABLE_MEMORY] = {16, BK_IN | BK_OUT, bk_ioctl_available_memory},
    [BK_NR_EXPORT_DMABUF] = {16, BK_IN | BK_OUT, bk_ioctl_export_dmabuf},
    [BK_NR_RUNTIME_ENABLE] = {16, BK_IN | BK_OUT, bk_ioctl_runtime_enable},
    [BK_NR_DBG_TRAP] = {32, BK_IN | BK_OUT, bk_ioctl_dbg_trap},
};

#define BK_ARG_MAX 400

int bk_kfd_ioctl(struct bk_conn *c, unsigned long request, void *arg)
{
	const struct bk_ioctl_desc *d;
	unsigned int nr = _IOC_NR(request);
	uint32_t usize = _IOC_SIZE(request);
	uint64_t buf[BK_ARG_MAX / 8];
	uint32_t n;
	int r, w;

	if (_IOC_TYPE(request) != 'K')
		return -ENOTTY;
	if (nr >= sizeof(bk_ioctls) / sizeof(bk_ioctls[0]) || !bk_ioctls[nr].fn)
		return -ENOTTY; /* includes the out-of-tree 0x80..0x85 */
	d = &bk_ioctls[nr];
	memset(buf, 0, sizeof(buf));
	/* the kernel copies what the caller declared and zero-extends */
	n = usize < d->size ? usize : d->size;
	if ((d->dir & BK_IN) && n) {
		r = bk_read_user(buf, (uintptr_t)arg, n);
		if (r)
			return r;
	}
	r = d->fn(c, buf, usize);
	if ((d->dir & BK_OUT) && n) {
		w = bk_write_user((uintptr_t)arg, buf, n);
		if (w && !r)
			r = w;
	}
	return r;
}

static struct bk_conn *bk_any_conn_locked(void)
{
	BK_ASSERT_TABLE_LOCKED();
	for (unsigned int i = 0; i < BK_MAX_FILES; i++)
		if (bk.files[i].kind == BK_KFD && bk.files[i].conn && !bk.files[i].conn->dead &&
		    bk.files[i].pid == getpid())
			return bk.files[i].conn;
	return bk.spare && !bk.spare->dead ? bk.spare : NULL;
}

static int bk_amdgpu_query(struct bk_conn *c, uint32_t gpu_id, uint32_t query, uint64_t p0,
			   uint64_t p1, void *out, uint32_t out_size, uint32_t *got)
{
	struct vkfd_req_amdgpu_query req;
	uint8_t rspbuf[sizeof(struct vkfd_rsp_amdgpu_query) + VKFD_MAX_AMDGPU_QUERY];
	struct vkfd_rsp_amdgpu_query *rsp = (void *)rspbuf;
	int r;

	if (out_size == 0 || out_size > VKFD_MAX_AMDGPU_QUERY)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.gpu_id = gpu_id;
	req.query = query;
	req.out_size = out_size;
	req.param0 = p0;
	req.param1 = p1;
	r = bk_call(c, VKFD_CMD_AMDGPU_QUERY, &req, sizeof(req), rspbuf,
		    sizeof(*rsp) + ((out_size + 7u) & ~7u));
	if (r)
		return r;
	if (rsp->size > out_size)
		return -EIO;
	memset(out, 0, out_size);
	memcpy(out, rsp + 1, rsp->size);
	*got = rsp->size;
	return 0;
}

#include "backend_vkfd_drm.h"

int bk_render_ioctl(int fd, unsigned long request, void *arg)
{
	struct bk_conn *c = NULL;
	struct bk_file *f;
	uint32_t gpu_id = 0;
	bool free_it;
	int r;

	bk_table_lock();
	f = bk_file_get_locked(fd);
	if (f && f->kind == BK_RENDER) {
		/* the VM owner if any; else any KFD process of ours (the
		 * queries are read-only); borrowed for the call */
		c = f->vm_owner && !f->vm_owner->dead ? f->vm_owner : bk_any_conn_locked();
		gpu_id = f->gpu >= 0 ? bk.gpus[f->gpu].gpu_id : 0;
		if (c)
			c->users++;
	}
	bk_table_unlock();
	if (!c)
		return f ? -ENODEV : -EBADF;
	r = bk_drm_ioctl(c, gpu_id, request, arg);
	bk_table_lock();
	free_it = --c->users == 0 && c->closed;
	bk_table_unlock();
	if (free_it) {
		bk_mem_lock_take();
		bk_conn_free(c);
		bk_mem_lock_release();
	}
	return r;
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
	if (copy.pid != getpid())
		return -EBADF;
	if (copy.kind == BK_RENDER)
		return bk_render_ioctl(fd, request, arg);
	/* a KFD process is bound to the process that opened it */
	if (!copy.conn || copy.conn->dead || copy.conn->pid != getpid())
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
    .munmap_notify = bk_munmap_notify,
    .close = bk_close,
    .atfork_child = bk_atfork_child,
};
