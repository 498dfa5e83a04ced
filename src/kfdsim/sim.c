// SPDX-License-Identifier: MIT
/*
 * kfdsim machine: creation, the table of fds it handed out, the device seam
 * (open/ioctl/mmap/close) and the test hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_priv.h"

int sim_memfd(const char *name, uint64_t size, dev_t *dev, ino_t *ino)
{
	struct stat st;
	/* BO memory leaves the host as SHM blobs: whoever maps it must not be
	 * able to shrink it under the engines (SIGBUS), and virglrenderer's
	 * render-server proxy adds its own seals, which a memfd created
	 * without MFD_ALLOW_SEALING (born with F_SEAL_SEAL) refuses. */
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	if ((size && ftruncate(fd, (off_t)size) != 0) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0 || fstat(fd, &st) != 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return fd;
}

struct kfdsim *kfdsim_create(const struct kfdsim_config *cfg_in)
{
	struct kfdsim_config cfg;
	struct kfdsim *sim;
	int r;

	if (cfg_in)
		cfg = *cfg_in;
	else
		kfdsim_config_default(&cfg);
	cfg.target[sizeof(cfg.target) - 1] = 0;
	cfg.sysfs_dir[sizeof(cfg.sysfs_dir) - 1] = 0;
	if (cfg.gpu_count < 1 || cfg.gpu_count > KFDSIM_MAX_GPUS || !sim_target_find(cfg.target) ||
	    cfg.vram_size < SIM_PAGE_SIZE || cfg.kfd_minor < 1 ||
	    cfg.kfd_minor > SIM_MAX_KFD_MINOR) {
		errno = EINVAL;
		return NULL;
	}
	sim = calloc(1, sizeof(*sim));
	if (!sim) {
		errno = ENOMEM;
		return NULL;
	}
	sim->cfg = cfg;
	sim->ngpus = cfg.gpu_count;
	sim->root_lock_fd = -1;
	{
		const char *qb = getenv("VKFDSIM_QUEUE_BUFFERS");

		/* Linux 6.12's exact sizes unless asked for containment only */
		sim->exact_queue_buffers = !qb || strcmp(qb, "contain");
	}
	sim->next_fake_offset = 0x10000000ULL; /* DRM_FILE_PAGE_OFFSET_START */
	pthread_mutex_init(&sim->lock, NULL);
	pthread_rwlock_init(&sim->kick_lock, NULL);
	pthread_mutex_init(&sim->smi_lock, NULL);
	pthread_cond_init(&sim->latch_cv, NULL);
	r = sim_topology_init(sim);
	if (r)
		goto fail;
	if (cfg.sysfs_dir[0]) {
		snprintf(sim->root, sizeof(sim->root), "%s", cfg.sysfs_dir);
	} else {
		r = sim_root_create(sim);
		if (r)
			goto fail;
	}
	r = sim_topology_write(sim);
	if (r)
		goto fail;
	return sim;
fail:
	sim_root_release(sim);
	pthread_cond_destroy(&sim->latch_cv);
	pthread_mutex_destroy(&sim->smi_lock);
	pthread_rwlock_destroy(&sim->kick_lock);
	pthread_mutex_destroy(&sim->lock);
	free(sim);
	errno = -r;
	return NULL;
}

static void file_release(struct kfdsim *sim, struct sim_file *f)
{
	/* called with sim->lock held; drops the file's object reference */
	if (f->kind == SIM_FILE_RENDER)
		sim_render_put_locked(sim, f->render);
}

/* The process a ring through fd kicks (kick_procs), with sim->lock;
 * -ENOMEM only when growing for a new fd. Once this returns, no ring
 * still uses the entry's old process. */
static int kick_set_locked(struct kfdsim *sim, int fd, struct sim_process *p)
{
	size_t idx = (size_t)fd;
	int r = 0;

	pthread_rwlock_wrlock(&sim->kick_lock);
	if (idx >= sim->kick_cap && p) {
		size_t cap = sim->kick_cap ? sim->kick_cap : 64;
		struct sim_process **n;

		while (cap <= idx)
			cap *= 2;
		n = realloc(sim->kick_procs, cap * sizeof(*n));
		if (n) {
			memset(n + sim->kick_cap, 0, (cap - sim->kick_cap) * sizeof(*n));
			sim->kick_procs = n;
			sim->kick_cap = cap;
		} else {
			r = -ENOMEM;
		}
	}
	if (!r && idx < sim->kick_cap)
		sim->kick_procs[idx] = p;
	pthread_rwlock_unlock(&sim->kick_lock);
	return r;
}

void kfdsim_destroy(struct kfdsim *sim)
{
	if (!sim)
		return;
	for (;;) {
		struct sim_file *f = NULL;
		size_t i;

		pthread_mutex_lock(&sim->lock);
		for (i = 0; i < sim->files_cap && !f; i++) {
			f = sim->files[i];
			if (f) {
				sim->files[i] = NULL;
				kick_set_locked(sim, f->fd, NULL);
			}
		}
		if (!f) {
			pthread_mutex_unlock(&sim->lock);
			break;
		}
		file_release(sim, f);
		pthread_mutex_unlock(&sim->lock);
		if (f->kind == SIM_FILE_KFD) {
			sim_process_close(f->proc);
			sim_process_put(f->proc);
		}
		close(f->fd);
		free(f);
	}
	sim_root_release(sim);
	sim_smi_release(sim);
	pthread_mutex_destroy(&sim->smi_lock);
	free(sim->files);
	free(sim->kick_procs);
	pthread_rwlock_destroy(&sim->kick_lock);
	sim_exports_release(sim);
	free(sim->exports);
	pthread_cond_destroy(&sim->latch_cv);
	pthread_mutex_destroy(&sim->lock);
	free(sim);
}

void sim_process_get(struct sim_process *p)
{
	pthread_mutex_lock(&p->sim->lock);
	p->refs++;
	pthread_mutex_unlock(&p->sim->lock);
}

void sim_process_put(struct sim_process *p)
{
	unsigned left;

	pthread_mutex_lock(&p->sim->lock);
	left = --p->refs;
	pthread_mutex_unlock(&p->sim->lock);
	if (!left)
		sim_process_destroy(p);
}

void sim_render_put_locked(struct kfdsim *sim, struct sim_render *r)
{
	if (r && --r->refs == 0) {
		sim_render_gem_release_locked(sim, r);
		free(r);
	}
}

static int file_add(struct kfdsim *sim, struct sim_file *f)
{
	size_t idx = (size_t)f->fd;

	pthread_mutex_lock(&sim->lock);
	if (idx >= sim->files_cap) {
		size_t cap = sim->files_cap ? sim->files_cap : 64;
		struct sim_file **n;

		while (cap <= idx)
			cap *= 2;
		n = realloc(sim->files, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&sim->lock);
			return -ENOMEM;
		}
		memset(n + sim->files_cap, 0, (cap - sim->files_cap) * sizeof(*n));
		sim->files = n;
		sim->files_cap = cap;
	}
	if (f->kind == SIM_FILE_KFD && kick_set_locked(sim, f->fd, f->proc)) {
		pthread_mutex_unlock(&sim->lock);
		return -ENOMEM;
	}
	sim->files[idx] = f;
	pthread_mutex_unlock(&sim->lock);
	return 0;
}

/* Lookup under sim->lock; the inode check catches an fd number that was
 * closed behind our back and reused. */
static struct sim_file *file_lookup_locked(struct kfdsim *sim, int fd)
{
	struct sim_file *f;
	struct stat st;

	if (fd < 0 || (size_t)fd >= sim->files_cap)
		return NULL;
	f = sim->files[fd];
	if (!f)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_ino != f->ino || st.st_dev != f->dev)
		return NULL;
	return f;
}

struct sim_render *sim_render_lookup(struct kfdsim *sim, int fd)
{
	struct sim_file *f = file_lookup_locked(sim, fd);

	return f && f->kind == SIM_FILE_RENDER ? f->render : NULL;
}

bool kfdsim_owns_fd(struct kfdsim *sim, int fd)
{
	bool r;

	if (!sim)
		return false;
	pthread_mutex_lock(&sim->lock);
	r = file_lookup_locked(sim, fd) != NULL;
	pthread_mutex_unlock(&sim->lock);
	return r;
}

static int sim_open_kfd(void *dev)
{
	struct kfdsim *sim = dev;
	struct sim_file *f;
	int fd, r;

	if (!sim)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	fd = sim_memfd("kfdsim-kfd", 0, &f->dev, &f->ino);
	if (fd < 0) {
		free(f);
		return fd;
	}
	f->fd = fd;
	f->kind = SIM_FILE_KFD;
	f->proc = sim_process_create(sim);
	if (!f->proc) {
		close(fd);
		free(f);
		return -ENOMEM;
	}
	r = file_add(sim, f);
	if (r) {
		sim_process_put(f->proc);
		close(fd);
		free(f);
		return r;
	}
	return fd;
}

static int sim_open_render(void *dev, int minor)
{
	struct kfdsim *sim = dev;
	struct sim_file *f;
	char name[32];
	int fd, r;

	if (!sim)
		return -EINVAL;
	if (minor < 128 || minor >= 128 + (int)sim->ngpus)
		return -ENOENT;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->render = calloc(1, sizeof(*f->render));
	if (!f->render) {
		free(f);
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "kfdsim-renderD%d", minor);
	fd = sim_memfd(name, 0, &f->dev, &f->ino);
	if (fd < 0) {
		free(f->render);
		free(f);
		return fd;
	}
	f->fd = fd;
	f->kind = SIM_FILE_RENDER;
	f->render->refs = 1;
	f->render->gpu = (unsigned)(minor - 128);
	r = file_add(sim, f);
	if (r) {
		free(f->render);
		close(fd);
		free(f);
		return r;
	}
	return fd;
}

static int sim_close(void *dev, int fd)
{
	struct kfdsim *sim = dev;
	struct sim_file *f;

	if (!sim)
		return -EINVAL;
	pthread_mutex_lock(&sim->lock);
	f = file_lookup_locked(sim, fd);
	if (!f) {
		pthread_mutex_unlock(&sim->lock);
		return -EBADF;
	}
	sim->files[fd] = NULL;
	if (f->kind == SIM_FILE_KFD)
		kick_set_locked(sim, fd, NULL);
	file_release(sim, f);
	pthread_mutex_unlock(&sim->lock);
	if (f->kind == SIM_FILE_KFD) {
		sim_process_close(f->proc);
		sim_process_put(f->proc);
	}
	close(fd);
	free(f);
	return 0;
}

/* AMDKFD_IOC_CREATE_PROCESS: the fd's process is replaced by a new
 * secondary process; the old one loses this fd's reference. */
static int create_secondary(struct kfdsim *sim, int fd)
{
	struct sim_process *newp, *old;
	struct sim_file *f;

	pthread_mutex_lock(&sim->lock);
	f = file_lookup_locked(sim, fd);
	if (!f || f->kind != SIM_FILE_KFD) {
		pthread_mutex_unlock(&sim->lock);
		return f ? -ENOTTY : -EBADF;
	}
	if (f->proc->secondary) {
		pthread_mutex_unlock(&sim->lock);
		return -EINVAL; /* each fd owns only one process */
	}
	pthread_mutex_unlock(&sim->lock);
	newp = sim_process_create(sim);
	if (!newp)
		return -ENOMEM;
	newp->secondary = true;
	pthread_mutex_lock(&sim->lock);
	f = file_lookup_locked(sim, fd);
	if (!f || f->kind != SIM_FILE_KFD || f->proc->secondary) {
		pthread_mutex_unlock(&sim->lock);
		sim_process_put(newp);
		return f ? -EINVAL : -EBADF;
	}
	old = f->proc;
	f->proc = newp;
	kick_set_locked(sim, fd, newp); /* an entry exists: cannot fail */
	pthread_mutex_unlock(&sim->lock);
	sim_process_close(old);
	sim_process_put(old);
	return 0;
}

static int sim_ioctl(void *dev, int fd, unsigned long request, void *arg)
{
	struct kfdsim *sim = dev;
	struct sim_file *f;
	struct sim_process *p;
	int r;

	if (!sim)
		return -EINVAL;
	/* CREATE_PROCESS is part of KFD 1.19; cfg.secondary_processes offers
	 * it below that too */
	if (_IOC_NR(request) == SIM_NR_CREATE_PROCESS &&
	    (sim->cfg.secondary_processes || sim->cfg.kfd_minor >= 19))
		return create_secondary(sim, fd);
	pthread_mutex_lock(&sim->lock);
	f = file_lookup_locked(sim, fd);
	if (!f) {
		pthread_mutex_unlock(&sim->lock);
		return -EBADF;
	}
	if (f->kind == SIM_FILE_RENDER) {
		struct sim_render *rd = f->render;

		/* a reference: a concurrent close must not free its GEM objects */
		rd->refs++;
		pthread_mutex_unlock(&sim->lock);
		r = sim_render_ioctl(sim, rd, request, arg);
		pthread_mutex_lock(&sim->lock);
		sim_render_put_locked(sim, rd);
		pthread_mutex_unlock(&sim->lock);
		return r;
	}
	if (f->kind != SIM_FILE_KFD) {
		pthread_mutex_unlock(&sim->lock);
		return -ENOTTY;
	}
	p = f->proc;
	p->refs++;
	pthread_mutex_unlock(&sim->lock);
	r = sim_ioctl_dispatch(sim, p, request, arg);
	sim_process_put(p);
	return r;
}

static void *map_backing(struct sim_backing *b, void *addr, size_t len, int prot, int flags,
			 uint64_t off)
{
	flags = (flags & ~(MAP_PRIVATE | MAP_ANONYMOUS)) | MAP_SHARED;
	return mmap(addr, len, prot, flags, b->memfd, (off_t)off);
}

static void *mmap_kfd(struct sim_process *p, void *addr, size_t len, int prot, int flags,
		      uint64_t off)
{
	uint64_t type = off & VKFD_KFD_MMAP_TYPE_MASK;
	struct sim_pdd *pdd = NULL;
	void *res = MAP_FAILED;
	int err = EINVAL;

	pthread_mutex_lock(&p->lock);
	if (type != VKFD_KFD_MMAP_TYPE_EVENTS) {
		pdd = sim_pdd_by_id(p, VKFD_KFD_MMAP_GET_GPU_ID(off));
		if (!pdd)
			goto out;
	}
	if (type == VKFD_KFD_MMAP_TYPE_DOORBELL) {
		/* kfd_doorbell_mmap: exactly the process doorbell slice */
		if (len != SIM_DOORBELL_SLICE)
			goto out;
		err = -sim_doorbells_get(pdd);
		if (err)
			goto out;
		res = map_backing(pdd->doorbells, addr, len, prot, flags, 0);
	} else if (type == VKFD_KFD_MMAP_TYPE_MMIO) {
		/* kfd_mmio_mmap: one page */
		if (len != SIM_PAGE_SIZE)
			goto out;
		err = -sim_mmio_get(pdd);
		if (err)
			goto out;
		res = map_backing(pdd->mmio, addr, len, prot, flags, 0);
	} else if (type == VKFD_KFD_MMAP_TYPE_EVENTS) {
		/* kfd_event_mmap: at most the 32 KiB signal page */
		pthread_mutex_lock(&p->ev_lock);
		if (len > KFD_SIGNAL_EVENT_LIMIT * 8 || !p->signal_own) {
			pthread_mutex_unlock(&p->ev_lock);
			goto out;
		}
		res = map_backing(p->signal_own, addr, len, prot, flags, 0);
		if (res != MAP_FAILED)
			p->signal_mapped = len;
		pthread_mutex_unlock(&p->ev_lock);
	} else {
		/* RESERVED_MEM (APU CWSR pages) is not modelled */
		goto out;
	}
	err = res == MAP_FAILED ? errno : 0;
out:
	pthread_mutex_unlock(&p->lock);
	if (res == MAP_FAILED)
		errno = err ? err : EINVAL;
	return res;
}

static void *mmap_render(struct kfdsim *sim, struct sim_render *r, void *addr, size_t len, int prot,
			 int flags, uint64_t off)
{
	struct sim_process *p;
	struct sim_backing *gem;
	struct sim_bo *bo;
	void *res = MAP_FAILED;
	int err = EINVAL;
	uint64_t rel = 0;

	/* a GEM object of this file (GEM_MMAP's offset) */
	gem = sim_render_gem_by_offset(r, off, len, &rel);
	if (gem) {
		sim_backing_get(gem);
		pthread_mutex_unlock(&sim->lock);
		res = map_backing(gem, addr, len, prot, flags, rel);
		err = res == MAP_FAILED ? errno : 0;
		sim_backing_put(gem, NULL);
		if (res == MAP_FAILED)
			errno = err;
		return res;
	}
	/* the owner pointer and its reference are taken under sim->lock */
	p = r->owner;
	if (!p) {
		pthread_mutex_unlock(&sim->lock);
		errno = EACCES;
		return MAP_FAILED;
	}
	p->refs++;
	pthread_mutex_unlock(&sim->lock);
	pthread_mutex_lock(&p->lock);
	bo = sim_bo_by_offset(&p->pdd[r->gpu], off, len);
	if (bo) {
		res = map_backing(bo->backing, addr, len, prot, flags, off - bo->mmap_offset);
		err = res == MAP_FAILED ? errno : 0;
	} else {
		err = EACCES;
	}
	pthread_mutex_unlock(&p->lock);
	sim_process_put(p);
	if (res == MAP_FAILED)
		errno = err;
	return res;
}

static void *sim_mmap(void *dev, void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	struct kfdsim *sim = dev;
	struct sim_file *f;
	struct sim_process *p;
	void *res;

	if (!sim || len == 0 || (offset & (off_t)(SIM_PAGE_SIZE - 1))) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	len = (len + SIM_PAGE_SIZE - 1) & ~(size_t)(SIM_PAGE_SIZE - 1);
	pthread_mutex_lock(&sim->lock);
	f = file_lookup_locked(sim, fd);
	if (!f) {
		pthread_mutex_unlock(&sim->lock);
		errno = EBADF;
		return MAP_FAILED;
	}
	if (f->kind == SIM_FILE_RENDER)
		return mmap_render(sim, f->render, addr, len, prot, flags, (uint64_t)offset);
	p = f->proc;
	p->refs++;
	pthread_mutex_unlock(&sim->lock);
	res = mmap_kfd(p, addr, len, prot, flags, (uint64_t)offset);
	sim_process_put(p);
	return res;
}

static int sim_munmap(void *dev, void *addr, size_t len)
{
	(void)dev;
	return munmap(addr, len) ? -errno : 0;
}

static const char *sim_sysfs_root(void *dev)
{
	struct kfdsim *sim = dev;

	return sim ? sim->root : "";
}

int kfdsim_config_caps(const struct kfdsim_config *cfg, struct vkfd_device_caps *caps)
{
	if (!cfg || !caps)
		return -EINVAL;
	memset(caps, 0, sizeof(*caps));
	caps->kfd_major = 1;
	caps->kfd_minor = cfg->kfd_minor;
	/* EXPORT_DMABUF is modelled at every version; each process is its own
	 * open; memory is memfds */
	caps->flags = VKFD_DEVICE_CAP_EXPORT_DMABUF | VKFD_DEVICE_CAP_PROCESS_PER_OPEN |
		      VKFD_DEVICE_CAP_COHERENT_MEMFD | VKFD_DEVICE_CAP_SIMULATED;
	if (cfg->kfd_minor >= KFDSIM_EVENT_AGE_MINOR)
		caps->flags |= VKFD_DEVICE_CAP_EVENT_AGES;
	return 0;
}

static int sim_query_caps(void *dev, struct vkfd_device_caps *caps)
{
	struct kfdsim *sim = dev;

	return sim ? kfdsim_config_caps(&sim->cfg, caps) : -EINVAL;
}

/* The store ROCr would make, then a wake-up of the engine that watches
 * that doorbell (sim_queues_doorbell_rung): its poll may be long asleep.
 * Every ring of vkfd's relay comes here, so it takes neither sim->lock
 * nor a process reference: kick_lock (read) keeps the fd's process alive
 * (sim_close clears the entry under the write lock before the process
 * can go). An fd closed behind kfdsim's back and reused still names its
 * old process until sim_close: a ring then wakes an engine that finds
 * nothing new, as a poll would. */
static void sim_ring_doorbell(void *dev, int fd, uint32_t gpu_id, uint32_t offset,
			      volatile uint64_t *slot, uint64_t value)
{
	struct kfdsim *sim = dev;

	__atomic_store_n(slot, value, __ATOMIC_RELEASE);
	if (!sim || fd < 0)
		return;
	pthread_rwlock_rdlock(&sim->kick_lock);
	if ((size_t)fd < sim->kick_cap && sim->kick_procs[fd])
		sim_queues_doorbell_rung(sim->kick_procs[fd], gpu_id,
					 (offset % SIM_DOORBELL_SLICE) / 8u);
	pthread_rwlock_unlock(&sim->kick_lock);
}

/* WAIT_EVENTS that reports when its waiters are registered (the device
 * seam's wait_events): sim_ioctl_wait_events calls the hook under the
 * process's event lock, right after registering, or this does after an
 * earlier failure. */
static int sim_wait_events(void *dev, int fd, struct kfd_ioctl_wait_events_args *args,
			   void (*registered)(void *arg), void *arg)
{
	int r;

	sim_events_hook_registered(registered, arg);
	r = sim_ioctl(dev, fd, AMDKFD_IOC_WAIT_EVENTS, args);
	sim_events_registered_now();
	return r;
}

static const struct vkfd_device_ops kfdsim_ops = {
    .name = "kfdsim",
    .open_kfd = sim_open_kfd,
    .open_render = sim_open_render,
    .ioctl = sim_ioctl,
    .mmap = sim_mmap,
    .munmap = sim_munmap,
    .close = sim_close,
    .sysfs_root = sim_sysfs_root,
    .query_caps = sim_query_caps,
    .ring_doorbell = sim_ring_doorbell,
    .wait_events = sim_wait_events,
};

const struct vkfd_device_ops *kfdsim_device_ops(void)
{
	return &kfdsim_ops;
}

int kfdsim_render_minor(const struct kfdsim *sim, unsigned gpu_index)
{
	if (!sim || gpu_index >= sim->ngpus)
		return -1;
	return 128 + (int)gpu_index;
}

void kfdsim_inject_ioctl_error(struct kfdsim *sim, unsigned nr, unsigned nth, int err)
{
	if (!sim || nr > 255)
		return;
	pthread_mutex_lock(&sim->lock);
	sim->inject[nr].nth = nth;
	sim->inject[nr].err = err < 0 ? -err : err;
	pthread_mutex_unlock(&sim->lock);
}

void kfdsim_latch_ioctl(struct kfdsim *sim, unsigned nr)
{
	if (!sim || nr > 255)
		return;
	pthread_mutex_lock(&sim->lock);
	sim->latch[nr].on = true;
	pthread_mutex_unlock(&sim->lock);
}

void kfdsim_latch_release(struct kfdsim *sim, unsigned nr)
{
	if (!sim || nr > 255)
		return;
	pthread_mutex_lock(&sim->lock);
	sim->latch[nr].on = false;
	pthread_cond_broadcast(&sim->latch_cv);
	pthread_mutex_unlock(&sim->lock);
}

unsigned kfdsim_latch_parked(struct kfdsim *sim, unsigned nr)
{
	unsigned n;

	if (!sim || nr > 255)
		return 0;
	pthread_mutex_lock(&sim->lock);
	n = sim->latch[nr].parked;
	pthread_mutex_unlock(&sim->lock);
	return n;
}

void kfdsim_inject_gpu_reset(struct kfdsim *sim, unsigned gpu_index)
{
	struct sim_process **procs = NULL;
	size_t n = 0;

	if (!sim || gpu_index >= sim->ngpus)
		return;
	pthread_mutex_lock(&sim->lock);
	procs = calloc(sim->files_cap ? sim->files_cap : 1, sizeof(*procs));
	for (size_t i = 0; procs && i < sim->files_cap; i++) {
		struct sim_file *f = sim->files[i];

		if (f && f->kind == SIM_FILE_KFD) {
			f->proc->refs++;
			procs[n++] = f->proc;
		}
	}
	pthread_mutex_unlock(&sim->lock);
	for (size_t i = 0; i < n; i++) {
		sim_events_hw_exception(procs[i], &sim->gpus[gpu_index], true);
		sim_queues_evict(procs[i], &procs[i]->pdd[gpu_index]);
		sim_process_put(procs[i]);
	}
	free(procs);
}

unsigned kfdsim_blocked_waits(struct kfdsim *sim)
{
	return atomic_load(&sim->blocked_waits);
}

uint64_t kfdsim_bytes_allocated(struct kfdsim *sim)
{
	uint64_t n;

	if (!sim)
		return 0;
	pthread_mutex_lock(&sim->lock);
	/* dmabufs whose last descriptor was closed free their memory now */
	sim_exports_prune_locked(sim);
	n = sim->bytes_allocated;
	pthread_mutex_unlock(&sim->lock);
	return n;
}
