/* SPDX-License-Identifier: MIT */
/*
 * kfdsim's builtin kernels: what a dispatch runs when its kernel_object
 * is a KFDSIM01 descriptor (kfdsim has no GPU ISA).
 */
#ifndef KFDSIM_BUILTIN_KERNELS_H
#define KFDSIM_BUILTIN_KERNELS_H

#include <stdint.h>

#include "engine_internal.h"

/* Run builtin `id` with the kernargs at GPU VA `kernarg`. ENGINE_OK when it
 * completed; ENGINE_STOPPED when stop() interrupted it; ENGINE_DEAD after
 * a VM fault or (unknown id) an illegal-instruction queue error. */
enum engine_status builtin_kernel_run(struct sim_engine_queue *q, uint32_t id, uint64_t kernarg);

#endif
