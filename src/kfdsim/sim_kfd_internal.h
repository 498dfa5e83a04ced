/* SPDX-License-Identifier: MIT */
/*
 * Kernel-internal KFD facts kfdsim models on top of the shared ABI
 * (src/kfd_uapi/kfd_uapi_ext.h): the BO handle layout, the event id
 * ranges and the version that added signal-event ages.
 */
#ifndef KFDSIM_KFD_INTERNAL_H
#define KFDSIM_KFD_INTERNAL_H

#include <stdint.h>

#include "kfd_uapi_ext.h"

/* 1.14: the first 8 bytes of kfd_event_data carry last_event_age for
 * signal events (in and out). */
#define KFDSIM_EVENT_AGE_MINOR 14

/* BO handle = gpu_id << 32 | idr id. */
#define KFDSIM_MAKE_HANDLE(gpu_id, idr) (((uint64_t)(gpu_id) << 32) | (uint32_t)(idr))
#define KFDSIM_HANDLE_GPU_ID(h)         ((uint32_t)((h) >> 32))
#define KFDSIM_HANDLE_IDR(h)            ((uint32_t)((h)&0xffffffffULL))

/* Event ids (kfd_events.c). */
#define KFDSIM_FIRST_NONSIGNAL_EVENT_ID 0x40000000u
#define KFDSIM_LAST_NONSIGNAL_EVENT_ID  0xffffffffu
#define KFDSIM_UNSIGNALED_EVENT_SLOT    UINT64_MAX
#define KFDSIM_EVENT_TIMEOUT_IMMEDIATE  0u
#define KFDSIM_EVENT_TIMEOUT_INFINITE   0xffffffffu

#endif
