/* SPDX-License-Identifier: MIT */
/*
 * kfdsim's test hooks (fault injection, latches, accounting): for tests
 * only. Not installed and not exported by libvkfd-host or the preload;
 * tests reach them by linking the static kfdsim or host archives.
 */
#ifndef VKFD_KFDSIM_TEST_HOOKS_H
#define VKFD_KFDSIM_TEST_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "vkfd/kfdsim.h"

/* The nth (1-based) future call of ioctl nr `nr` fails with -err; 0 clears. */
void kfdsim_inject_ioctl_error(struct kfdsim *sim, unsigned nr, unsigned nth, int err);
/* Park every call of ioctl nr `nr` (e.g. MAP_MEMORY_TO_GPU, FREE_MEMORY_OF_GPU,
 * DESTROY_QUEUE) until kfdsim_latch_release(); returns how many are parked. */
void kfdsim_latch_ioctl(struct kfdsim *sim, unsigned nr);
void kfdsim_latch_release(struct kfdsim *sim, unsigned nr);
unsigned kfdsim_latch_parked(struct kfdsim *sim, unsigned nr);
/* Report a GPU reset (hardware exception event) to every process on gpu i. */
void kfdsim_inject_gpu_reset(struct kfdsim *sim, unsigned gpu_index);

/* WAIT_EVENTS calls asleep right now (all processes): a test that must act
 * while a wait is blocked polls it instead of sleeping a guessed time. */
unsigned kfdsim_blocked_waits(struct kfdsim *sim);

/* Engines of every kfdsim in this process: false, an idle engine never
 * polls its doorbell and waits for a wake-up (ring_doorbell, set_active,
 * stop), so a test sees whether a ring wakes it; true (the default), it
 * polls as ROCr's own doorbell stores need. */
void kfdsim_test_engine_idle_poll(bool on);

/* Bytes of BO memory currently allocated (all processes), for leak tests. */
uint64_t kfdsim_bytes_allocated(struct kfdsim *sim);

#endif
