/* SPDX-License-Identifier: MIT */
/*
 * kfdsim: a software model of the amdkfd UAPI and the GPU engines behind it.
 * It is the embedded default device of vkfd and the native baseline.
 */
#ifndef VKFD_KFDSIM_H
#define VKFD_KFDSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "vkfd/device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KFDSIM_MAX_GPUS 8

struct kfdsim_config {
	unsigned gpu_count;       /* 1..KFDSIM_MAX_GPUS, default 1 */
	char target[16];          /* "gfx90a" (default), "gfx1030" */
	uint64_t vram_size;       /* bytes per GPU, default 16 GiB */
	uint64_t gtt_size;        /* bytes of system memory for GTT, default 8 GiB */
	uint32_t kfd_minor;       /* KFD ioctl minor version modelled, default 17 */
	bool secondary_processes; /* model AMDKFD_IOC_CREATE_PROCESS (nr 0x27) */
	/* Directory to materialise the sysfs tree in; empty = a private
	 * temporary directory removed by kfdsim_destroy(). */
	char sysfs_dir[256];
};

/* Fill defaults, then apply VKFDSIM_GPUS, VKFDSIM_TARGET, VKFDSIM_VRAM_MB,
 * VKFDSIM_KFD_MINOR from the environment. Returns 0 or -EINVAL on a bad
 * value. */
void kfdsim_config_default(struct kfdsim_config *cfg);
int kfdsim_config_from_env(struct kfdsim_config *cfg);

struct kfdsim;

/* Create a simulated machine. Returns NULL and sets errno on failure. */
struct kfdsim *kfdsim_create(const struct kfdsim_config *cfg);
/* Destroy it: every process, BO, queue, event, engine thread and fd it
 * created is released; the private sysfs directory is removed. */
void kfdsim_destroy(struct kfdsim *sim);

/* The device seam; pass the struct kfdsim * as `dev`. */
const struct vkfd_device_ops *kfdsim_device_ops(void);
/* What a kfdsim made from cfg reports through query_caps (for a capset
 * asked before any kfdsim exists). 0 or -EINVAL. */
int kfdsim_config_caps(const struct kfdsim_config *cfg, struct vkfd_device_caps *caps);

/* Render minor of GPU index i (128 + i), or -1. */
int kfdsim_render_minor(const struct kfdsim *sim, unsigned gpu_index);

/* True when fd was returned by this sim and is still open. */
bool kfdsim_owns_fd(struct kfdsim *sim, int fd);

#ifdef __cplusplus
}
#endif
#endif
