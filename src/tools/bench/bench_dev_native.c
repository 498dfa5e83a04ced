// SPDX-License-Identifier: MIT
/*
 * vkfd-bench native path: raw KFD ioctls on kfdsim through its device seam
 * (kfdsim_device_ops()), no protocol. This is the baseline the virtual
 * paths are compared with; it costs what an application on kfdsim pays.
 * The same KFD ioctl ops drive the shim's vkfd backend for the storm's
 * direct and vtest paths (bench_shim_ops, opened by bench_dev_shim.c), so
 * both sides of a ratio issue the same ioctls.
 */
#include "bench_dev_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kfd_ioctl.h>

#include "vkfd/kfdsim.h"

#define DOORBELL_SLICE 8192u

static int sim_ioctl(struct bench_dev *d, int fd, unsigned long req, void *arg)
{
	return d->kops->ioctl(d->sim, fd, req, arg);
}

static void *sim_mmap(struct bench_dev *d, void *addr, size_t len, int prot, int flags, int fd,
		      off_t off)
{
	return d->kops->mmap(d->sim, addr, len, prot, flags, fd, off);
}

static int sim_munmap(struct bench_dev *d, void *addr, size_t len)
{
	return d->kops->munmap(d->sim, addr, len);
}

static const struct bench_kfd_seam sim_seam = {
    .ioctl = sim_ioctl,
    .mmap = sim_mmap,
    .munmap = sim_munmap,
};

static int kio(struct bench_dev *d, unsigned long req, void *arg)
{
	__atomic_fetch_add(&d->counts.commands, 1, __ATOMIC_RELAXED);
	return d->seam->ioctl(d, d->kfd, req, arg);
}

static int n_open(struct bench_dev *d, char *why, size_t why_len)
{
	struct kfd_process_device_apertures ap[KFDSIM_MAX_GPUS];
	struct kfd_ioctl_get_process_apertures_new_args a;
	struct kfd_ioctl_acquire_vm_args av;
	struct kfdsim_config cfg;
	int r, minor;

	kfdsim_config_default(&cfg);
	if (kfdsim_config_from_env(&cfg)) {
		snprintf(why, why_len, "bad VKFDSIM_* environment");
		return -EINVAL;
	}
	d->sim = kfdsim_create(&cfg);
	if (!d->sim) {
		snprintf(why, why_len, "kfdsim_create: %s", strerror(errno));
		return -errno;
	}
	d->kops = kfdsim_device_ops();
	d->seam = &sim_seam;
	d->kfd = d->kops->open_kfd(d->sim);
	if (d->kfd < 0) {
		r = d->kfd;
		snprintf(why, why_len, "kfdsim open_kfd: %s", strerror(-r));
		goto fail;
	}
	memset(ap, 0, sizeof(ap));
	memset(&a, 0, sizeof(a));
	a.kfd_process_device_apertures_ptr = (uintptr_t)ap;
	a.num_of_nodes = KFDSIM_MAX_GPUS;
	r = kio(d, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a);
	if (r || a.num_of_nodes == 0) {
		snprintf(why, why_len, "GET_PROCESS_APERTURES_NEW: %s",
			 r ? strerror(-r) : "no GPU");
		r = r ? r : -ENODEV;
		goto fail;
	}
	d->gpu_id = ap[0].gpu_id;
	minor = kfdsim_render_minor(d->sim, 0);
	d->rfd = d->kops->open_render(d->sim, minor);
	if (d->rfd < 0) {
		r = d->rfd;
		snprintf(why, why_len, "kfdsim open_render(%d): %s", minor, strerror(-r));
		goto fail;
	}
	memset(&av, 0, sizeof(av));
	av.drm_fd = (uint32_t)d->rfd;
	av.gpu_id = d->gpu_id;
	r = kio(d, AMDKFD_IOC_ACQUIRE_VM, &av);
	if (r) {
		snprintf(why, why_len, "ACQUIRE_VM: %s", strerror(-r));
		goto fail;
	}
	return 0;
fail:
	if (d->rfd >= 0)
		d->kops->close(d->sim, d->rfd);
	if (d->kfd >= 0)
		d->kops->close(d->sim, d->kfd);
	kfdsim_destroy(d->sim);
	d->sim = NULL;
	return r;
}

static void n_close(struct bench_dev *d)
{
	if (d->rfd >= 0)
		d->kops->close(d->sim, d->rfd);
	if (d->kfd >= 0)
		d->kops->close(d->sim, d->kfd);
	kfdsim_destroy(d->sim);
	d->sim = NULL;
}

static int n_alloc(struct bench_dev *d, enum bench_mem mem, uint64_t va, uint64_t size,
		   struct bench_bo *bo)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	int r;

	memset(&a, 0, sizeof(a));
	a.va_addr = va;
	a.size = size;
	a.gpu_id = d->gpu_id;
	switch (mem) {
	case BENCH_MEM_VRAM:
		a.flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | BENCH_ALLOC_WRITABLE |
			  KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	case BENCH_MEM_GTT:
		a.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | BENCH_ALLOC_WRITABLE |
			  KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	case BENCH_MEM_EVENT_PAGE:
		a.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | BENCH_ALLOC_WRITABLE |
			  KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED |
			  KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	case BENCH_MEM_DOORBELL:
		a.flags = KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | BENCH_ALLOC_WRITABLE |
			  KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
		break;
	}
	r = kio(d, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
	if (r)
		return r;
	bo->handle = a.handle;
	bo->mmap_offset = a.mmap_offset;
	return 0;
}

static int n_map_common(struct bench_dev *d, struct bench_bo *bo, unsigned long req)
{
	struct kfd_ioctl_map_memory_to_gpu_args a;
	uint32_t id = d->gpu_id;

	memset(&a, 0, sizeof(a));
	a.handle = bo->handle;
	a.device_ids_array_ptr = (uintptr_t)&id;
	a.n_devices = 1;
	return kio(d, req, &a);
}

static int n_map(struct bench_dev *d, struct bench_bo *bo)
{
	return n_map_common(d, bo, AMDKFD_IOC_MAP_MEMORY_TO_GPU);
}

static int n_unmap(struct bench_dev *d, struct bench_bo *bo, bool async)
{
	(void)async;
	return n_map_common(d, bo, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU);
}

/* VRAM/GTT through the render fd at the BO's mmap offset, the doorbell
 * slice through the KFD fd, as libhsakmt does. */
static int n_cpu_map(struct bench_dev *d, struct bench_bo *bo)
{
	int fd = bo->doorbell ? d->kfd : d->rfd;
	void *p;

	__atomic_fetch_add(&d->counts.commands, 1, __ATOMIC_RELAXED);
	p = d->seam->mmap(d, (void *)(uintptr_t)bo->va, bo->size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_FIXED, fd, (off_t)bo->mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	return 0;
}

static int n_cpu_unmap(struct bench_dev *d, struct bench_bo *bo)
{
	int r;

	__atomic_fetch_add(&d->counts.commands, 1, __ATOMIC_RELAXED);
	r = d->seam->munmap(d, (void *)(uintptr_t)bo->va, bo->size);
	if (r < 0)
		r = -errno;
	bench_dev_va_release(d, bo->va, bo->size);
	return r;
}

static int n_free(struct bench_dev *d, struct bench_bo *bo, bool async)
{
	struct kfd_ioctl_free_memory_of_gpu_args a;

	(void)async;
	memset(&a, 0, sizeof(a));
	a.handle = bo->handle;
	return kio(d, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
}

static int n_event_create(struct bench_dev *d, uint64_t page, bool auto_reset, uint32_t *id)
{
	struct kfd_ioctl_create_event_args a;
	int r;

	memset(&a, 0, sizeof(a));
	a.event_page_offset = page;
	a.event_type = KFD_IOC_EVENT_SIGNAL;
	a.auto_reset = auto_reset ? 1 : 0;
	r = kio(d, AMDKFD_IOC_CREATE_EVENT, &a);
	if (!r)
		*id = a.event_id;
	return r;
}

static int n_event_set(struct bench_dev *d, uint32_t id, bool async)
{
	struct kfd_ioctl_set_event_args a = {.event_id = id};

	(void)async;
	return kio(d, AMDKFD_IOC_SET_EVENT, &a);
}

static int n_event_reset(struct bench_dev *d, uint32_t id, bool async)
{
	struct kfd_ioctl_reset_event_args a = {.event_id = id};

	(void)async;
	return kio(d, AMDKFD_IOC_RESET_EVENT, &a);
}

static int n_event_wait(struct bench_dev *d, uint32_t id, uint32_t timeout_ms, uint32_t *result)
{
	struct kfd_event_data ev;
	struct kfd_ioctl_wait_events_args a;
	int r;

	memset(&ev, 0, sizeof(ev));
	memset(&a, 0, sizeof(a));
	ev.event_id = id;
	a.events_ptr = (uintptr_t)&ev;
	a.num_events = 1;
	a.timeout = timeout_ms;
	r = kio(d, AMDKFD_IOC_WAIT_EVENTS, &a);
	if (!r)
		*result = a.wait_result;
	return r;
}

static int n_clock(struct bench_dev *d, uint64_t *gpu_clock)
{
	struct kfd_ioctl_get_clock_counters_args a;
	int r;

	memset(&a, 0, sizeof(a));
	a.gpu_id = d->gpu_id;
	r = kio(d, AMDKFD_IOC_GET_CLOCK_COUNTERS, &a);
	if (!r)
		*gpu_clock = a.gpu_clock_counter;
	return r;
}

static int n_sync(struct bench_dev *d)
{
	(void)d;
	return 0;
}

static int n_queue_create(struct bench_dev *d, uint64_t ring_va, uint32_t ring_size,
			  uint64_t rptr_va, uint64_t wptr_va, struct bench_queue *q)
{
	struct kfd_ioctl_create_queue_args a;
	int r;

	memset(&a, 0, sizeof(a));
	a.ring_base_address = ring_va;
	a.ring_size = ring_size;
	a.read_pointer_address = rptr_va;
	a.write_pointer_address = wptr_va;
	a.gpu_id = d->gpu_id;
	a.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	a.queue_percentage = 100;
	a.queue_priority = 7;
	r = kio(d, AMDKFD_IOC_CREATE_QUEUE, &a);
	if (r)
		return r;
	q->handle = a.queue_id;
	q->doorbell = (volatile uint64_t *)(uintptr_t)(d->doorbell.va +
						       (a.doorbell_offset & (DOORBELL_SLICE - 1)));
	return 0;
}

static int n_queue_destroy(struct bench_dev *d, struct bench_queue *q)
{
	struct kfd_ioctl_destroy_queue_args a;

	memset(&a, 0, sizeof(a));
	a.queue_id = (uint32_t)q->handle;
	return kio(d, AMDKFD_IOC_DESTROY_QUEUE, &a);
}

const struct bench_dev_ops bench_shim_ops = {
    .open = bench_shim_open,
    .close = bench_shim_close,
    .alloc = n_alloc,
    .map = n_map,
    .cpu_map = n_cpu_map,
    .cpu_unmap = n_cpu_unmap,
    .unmap = n_unmap,
    .free = n_free,
    .event_create = n_event_create,
    .event_set = n_event_set,
    .event_reset = n_event_reset,
    .event_wait = n_event_wait,
    .clock = n_clock,
    .sync = bench_shim_sync,
    .flush = bench_shim_sync,
    .queue_create = n_queue_create,
    .queue_destroy = n_queue_destroy,
};

const struct bench_dev_ops bench_native_ops = {
    .open = n_open,
    .close = n_close,
    .alloc = n_alloc,
    .map = n_map,
    .cpu_map = n_cpu_map,
    .cpu_unmap = n_cpu_unmap,
    .unmap = n_unmap,
    .free = n_free,
    .event_create = n_event_create,
    .event_set = n_event_set,
    .event_reset = n_event_reset,
    .event_wait = n_event_wait,
    .clock = n_clock,
    .sync = n_sync,
    .flush = n_sync,
    .queue_create = n_queue_create,
    .queue_destroy = n_queue_destroy,
};
