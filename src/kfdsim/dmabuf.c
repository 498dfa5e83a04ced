// SPDX-License-Identifier: MIT
/*
 * Dmabufs (kfd_chardev.c EXPORT_DMABUF, IMPORT_DMABUF, GET_DMABUF_INFO, and
 * the PRIME exports of render_gem.c): kfdsim's dmabufs are dups of the
 * backing memfd, recognised by device and inode in the machine-wide export
 * registry. A KFD BO's memfd is named after its GPU and domain, so the
 * kfdsim of another process (each process natively has its own) can
 * import a dmabuf it receives over a socket, as any process on a machine
 * can import any amdgpu dmabuf (ROCr's IPC, docs/kfdsim.md "IPC").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_priv.h"

/* Drop the exports no descriptor of this process refers to any more (the
 * kernel frees a dmabuf with its last file reference; kfdsim's dmabufs are
 * dups of the backing's memfd, which kfdsim itself keeps open). Without
 * /proc nothing is dropped. sim->lock held. */
void sim_exports_prune_locked(struct kfdsim *sim)
{
	struct {
		dev_t dev;
		ino_t ino;
		int fd;
	} open_fds[1024];
	size_t n = 0, i;
	DIR *d;
	struct dirent *e;

	/* Only strong exports (PRIME exports of GEM objects) are ever dropped
	 * here; without one, skip the scan of every descriptor of the
	 * process, which also reads descriptors other threads own. */
	for (i = 0; i < sim->nexports && !sim->exports[i].strong; i++)
		;
	if (i == sim->nexports)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(d) || fstat(fd, &st))
			continue;
		if (n == sizeof(open_fds) / sizeof(open_fds[0])) {
			closedir(d);
			return; /* too many to tell: keep everything */
		}
		open_fds[n].dev = st.st_dev;
		open_fds[n].ino = st.st_ino;
		open_fds[n].fd = fd;
		n++;
	}
	closedir(d);
	for (i = 0; i < sim->nexports;) {
		struct sim_export *x = &sim->exports[i];
		bool seen = !x->strong;

		for (size_t k = 0; k < n && !seen; k++)
			seen = open_fds[k].dev == x->dev && open_fds[k].ino == x->ino &&
			       open_fds[k].fd != x->backing->memfd;
		if (seen) {
			i++;
			continue;
		}
		{
			struct sim_backing *b = x->backing;

			*x = sim->exports[--sim->nexports];
			sim_backing_put_locked(b);
		}
	}
}

void sim_exports_release(struct kfdsim *sim)
{
	while (sim->nexports) {
		struct sim_export x = sim->exports[--sim->nexports];

		if (x.strong)
			sim_backing_put_locked(x.backing);
	}
}

int sim_export_register(struct kfdsim *sim, struct sim_backing *b, uint32_t gpu_id, uint32_t flags,
			bool strong)
{
	bool found = false;
	int r = 0;

	pthread_mutex_lock(&sim->lock);
	sim_exports_prune_locked(sim);
	for (size_t i = 0; i < sim->nexports; i++)
		found |= sim->exports[i].backing == b;
	if (!found && sim->nexports == sim->exports_cap) {
		size_t cap = sim->exports_cap ? sim->exports_cap * 2 : 16;
		struct sim_export *n = realloc(sim->exports, cap * sizeof(*n));

		if (n) {
			sim->exports = n;
			sim->exports_cap = cap;
		} else {
			r = -ENOMEM;
		}
	}
	if (!found && !r) {
		struct sim_export *e = &sim->exports[sim->nexports++];

		e->dev = b->dev;
		e->ino = b->ino;
		e->backing = b;
		e->gpu_id = gpu_id;
		e->flags = flags;
		e->strong = strong;
		if (strong)
			sim_backing_get(b);
	}
	pthread_mutex_unlock(&sim->lock);
	return r;
}

int sim_ioctl_export_dmabuf(struct sim_process *p, void *args)
{
	struct vkfd_kfd_export_dmabuf_args *a = args;
	struct kfdsim *sim = p->sim;
	struct sim_pdd *pdd;
	struct sim_bo *bo;
	int r = 0, fd;

	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, KFDSIM_HANDLE_GPU_ID(a->handle));
	bo = pdd ? sim_bo_lookup(pdd, a->handle) : NULL;
	if (!bo) {
		r = -EINVAL;
		goto out;
	}
	if (bo->userptr) {
		r = -EPERM;
		goto out;
	}
	if (!(bo->flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT))) {
		r = -EINVAL;
		goto out;
	}
	fd = fcntl(bo->backing->memfd, (a->flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* weak: kfdsim forgets the dmabuf when the BO's memory goes */
	r = sim_export_register(sim, bo->backing, pdd->gpu->gpu_id, bo->flags, false);
	if (r) {
		close(fd);
		goto out;
	}
	a->dmabuf_fd = (uint32_t)fd;
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

/* Find an export by fd; returns -EBADF for a bad fd, -EINVAL for a file
 * that is not a buffer kfdsim exported (or whose BO is gone). */
int sim_export_lookup(struct kfdsim *sim, int fd, struct sim_export *out, bool take_ref)
{
	struct stat st;
	int r = -EINVAL;

	if (fd < 0 || fstat(fd, &st) != 0)
		return -EBADF;
	pthread_mutex_lock(&sim->lock);
	for (size_t i = 0; i < sim->nexports; i++) {
		if (sim->exports[i].dev == st.st_dev && sim->exports[i].ino == st.st_ino) {
			*out = sim->exports[i];
			if (take_ref)
				sim_backing_get(out->backing);
			r = 0;
			break;
		}
	}
	pthread_mutex_unlock(&sim->lock);
	return r;
}

void sim_dmabuf_name(char *name, bool vram, bool public_, uint32_t gpu_id)
{
	snprintf(name, SIM_DMABUF_NAME_MAX, "kfdsim-%s-%08x%s", vram ? "vram" : "gtt", gpu_id,
		 public_ ? "-public" : "");
}

/* A dmabuf that another kfdsim exported: a memfd named by
 * sim_dmabuf_name for a GPU this machine has. Its GPU and the flags an
 * import gives (amdgpu_amdkfd_gpuvm_import_dmabuf: the domain, writable,
 * executable), or -EINVAL for any other file. */
static int foreign_dmabuf(struct kfdsim *sim, int fd, const struct stat *st, uint32_t *gpu_id,
			  uint32_t *flags)
{
	char path[32], link[128], kind[5];
	unsigned int id;
	int pos = 0;
	ssize_t n;
	const char *rest;
	bool known = false;

	if (!S_ISREG(st->st_mode) || st->st_nlink != 0 || st->st_size <= 0 ||
	    (uint64_t)st->st_size % SIM_PAGE_SIZE)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -EINVAL;
	link[n] = '\0';
	/* exactly as sim_dmabuf_name wrote it: 8 hex digits of GPU id */
	if (sscanf(link, "/memfd:kfdsim-%4[a-z]-%8x%n", kind, &id, &pos) != 2 ||
	    (size_t)pos != strlen("/memfd:kfdsim--") + strlen(kind) + 8)
		return -EINVAL;
	rest = link + pos;
	*flags = 0;
	if (!strncmp(rest, "-public", 7)) {
		*flags |= KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
		rest += 7;
	}
	if (strcmp(rest, " (deleted)"))
		return -EINVAL;
	if (!strcmp(kind, "vram"))
		*flags |= KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
	else if (!strcmp(kind, "gtt"))
		*flags |= KFD_IOC_ALLOC_MEM_FLAGS_GTT;
	else
		return -EINVAL;
	for (unsigned i = 0; i < sim->ngpus; i++)
		known |= sim->gpus[i].gpu_id == id;
	if (!known)
		return -EINVAL;
	*gpu_id = id;
	*flags |= VKFD_KFD_ALLOC_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;
	return 0;
}

/* Import a foreign dmabuf: a backing of its own on a dup of the memfd,
 * registered (weakly, like EXPORT_DMABUF's) so the same file is found
 * again; the caller holds the one reference. */
static int foreign_adopt(struct kfdsim *sim, int fd, struct sim_export *out)
{
	struct sim_backing *b;
	struct stat st;
	uint32_t gpu_id, flags;
	int r;

	if (fstat(fd, &st))
		return -EBADF;
	r = foreign_dmabuf(sim, fd, &st, &gpu_id, &flags);
	if (r)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->sim = sim;
	b->refs = 1;
	b->size = (uint64_t)st.st_size;
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->memfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (b->memfd < 0) {
		r = -errno;
		free(b);
		return r;
	}
	b->host = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, b->memfd, 0);
	if (b->host == MAP_FAILED) {
		close(b->memfd);
		free(b);
		return -ENOMEM;
	}
	r = sim_export_register(sim, b, gpu_id, flags, false);
	if (r) {
		sim_backing_put(b, NULL);
		return r;
	}
	*out = (struct sim_export){
	    .dev = b->dev, .ino = b->ino, .backing = b, .gpu_id = gpu_id, .flags = flags};
	return 0;
}

int sim_ioctl_import_dmabuf(struct sim_process *p, void *args)
{
	struct kfd_ioctl_import_dmabuf_args *a = args;
	struct kfdsim *sim = p->sim;
	struct sim_export e;
	struct sim_pdd *pdd;
	struct sim_bo *bo;
	int r;

	r = sim_export_lookup(sim, (int)a->dmabuf_fd, &e, true);
	if (r == -EINVAL)
		r = foreign_adopt(sim, (int)a->dmabuf_fd, &e);
	if (r)
		return r;
	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, a->gpu_id);
	r = pdd ? sim_pdd_bind(pdd) : -EINVAL;
	bo = r ? NULL : calloc(1, sizeof(*bo));
	if (!r && !bo)
		r = -ENOMEM;
	if (r)
		goto fail;
	bo->pdd = pdd;
	bo->flags = e.flags & ~KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;
	bo->va = a->va_addr;
	bo->size = e.backing->size;
	bo->alloc_size = e.backing->size;
	bo->backing = e.backing;
	bo->imported = true;
	pthread_mutex_lock(&sim->lock);
	bo->mmap_offset = sim->next_fake_offset;
	sim->next_fake_offset += bo->alloc_size;
	pthread_mutex_unlock(&sim->lock);
	r = sim_bo_idr_alloc(pdd, bo);
	if (r) {
		free(bo);
		goto fail;
	}
	a->handle = bo->handle;
	pthread_mutex_unlock(&p->lock);
	return 0;
fail:
	pthread_mutex_unlock(&p->lock);
	sim_backing_put(e.backing, NULL);
	return r;
}

int sim_ioctl_get_dmabuf_info(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_dmabuf_info_args *a = args;
	struct sim_export e;
	int r;

	r = sim_export_lookup(p->sim, (int)a->dmabuf_fd, &e, false);
	if (r == -EINVAL) {
		struct stat st;

		/* another process's kfdsim exported it */
		if (fstat((int)a->dmabuf_fd, &st) ||
		    foreign_dmabuf(p->sim, (int)a->dmabuf_fd, &st, &a->gpu_id, &e.flags))
			return -EINVAL;
		a->size = (uint64_t)st.st_size;
		a->flags = e.flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |
				      KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
		a->metadata_size = 0;
		return 0;
	}
	if (r)
		return r;
	a->size = e.backing->size;
	a->gpu_id = e.gpu_id;
	a->flags = (e.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) ? KFD_IOC_ALLOC_MEM_FLAGS_VRAM
							    : KFD_IOC_ALLOC_MEM_FLAGS_GTT;
	if (e.flags & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC)
		a->flags |= KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
	/* KFD BOs carry no metadata */
	a->metadata_size = 0;
	return 0;
}
