/* SPDX-License-Identifier: MIT */
/*
 * GPU memory access for the engines. Every access goes through
 * env->translate, one contiguous piece at a time, so a range may span
 * several GPU mappings and an unmapped piece is found exactly. On an
 * untranslatable piece these helpers report a VM fault (which halts the
 * queue) and return ENGINE_DEAD; long operations also honour stop() and
 * set_active(false) between pieces.
 */
#ifndef KFDSIM_ENGINE_MEM_H
#define KFDSIM_ENGINE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "engine_internal.h"

/* Pieces never exceed this, so a long operation reaches a preemption
 * point at least every ENGINE_MEM_PIECE bytes. */
#define ENGINE_MEM_PIECE (64u * 1024u)
#define ENGINE_PAGE_SIZE 4096u

/* Host pointer for up to `max` bytes at va (at least 1 when max > 0);
 * *len gets the usable length. NULL if the first byte's page is not
 * mapped (no fault reported). */
void *engine_mem_span(struct sim_engine_queue *q, uint64_t va, uint64_t max, bool write,
		      uint64_t *len);

/* Host pointer to exactly [va, va+len) inside one mapping, or a reported
 * VM fault at va and NULL. For small fixed-size objects (signals,
 * descriptors, ring slots). */
void *engine_mem_object(struct sim_engine_queue *q, uint64_t va, uint64_t len, bool write);

enum engine_status engine_mem_read(struct sim_engine_queue *q, uint64_t va, void *dst,
				   uint64_t len);
enum engine_status engine_mem_write(struct sim_engine_queue *q, uint64_t va, const void *src,
				    uint64_t len);
/* dst[i] = src[i] for `bytes` bytes, forward in pieces. */
enum engine_status engine_mem_copy(struct sim_engine_queue *q, uint64_t dst, uint64_t src,
				   uint64_t bytes);
/* Repeat the 4-byte little-endian pattern `value` over `bytes` bytes
 * starting at byte 0 of the pattern (bytes need not be a multiple of 4). */
enum engine_status engine_mem_fill32(struct sim_engine_queue *q, uint64_t dst, uint32_t value,
				     uint64_t bytes);

#endif
