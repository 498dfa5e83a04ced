/*
 * Copyright 2026 The vkfd authors
 * SPDX-License-Identifier: MIT
 */

#ifndef VKFD_RENDERER_H
#define VKFD_RENDERER_H

#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "virgl_util.h"

struct virgl_context;

#ifdef ENABLE_AMDKFD

/* Capset queries work before vkfd_renderer_init(); VMMs ask at realize time. */
void
vkfd_renderer_get_cap_set(uint32_t *max_ver, uint32_t *max_size);

void
vkfd_renderer_fill_caps(uint32_t version, void *caps);

/* virgl_flags are the VIRGL_RENDERER_* init flags; ASYNC_FENCE_CB selects
 * retirement from vkfd's threads, otherwise fences are polled through the
 * per-context fencing fd and retire_fences.
 */
int
vkfd_renderer_init(uint32_t virgl_flags);

void
vkfd_renderer_fini(void);

void
vkfd_renderer_reset(void);

/* Returns 0 or a negative errno; *out is a context ready for
 * virgl_context_add() once the caller set ctx_id and fence_retire.
 */
int
vkfd_renderer_create(uint32_t ctx_id,
                     size_t debug_len,
                     const char *debug_name,
                     struct virgl_context **out);

/* A dup of the context's doorbell-relay eventfd, or a negative errno. */
int
vkfd_renderer_get_doorbell_fd(struct virgl_context *ctx);

#else /* ENABLE_AMDKFD */

static inline void
vkfd_renderer_get_cap_set(uint32_t *max_ver, uint32_t *max_size)
{
   *max_ver = 0;
   *max_size = 0;
}

static inline void
vkfd_renderer_fill_caps(UNUSED uint32_t version, UNUSED void *caps)
{
}

static inline int
vkfd_renderer_init(UNUSED uint32_t virgl_flags)
{
   virgl_error("amdkfd context support was not enabled in virglrenderer\n");
   return -ENODEV;
}

static inline void
vkfd_renderer_fini(void)
{
}

static inline void
vkfd_renderer_reset(void)
{
}

static inline int
vkfd_renderer_create(UNUSED uint32_t ctx_id,
                     UNUSED size_t debug_len,
                     UNUSED const char *debug_name,
                     struct virgl_context **out)
{
   *out = NULL;
   return -ENODEV;
}

static inline int
vkfd_renderer_get_doorbell_fd(UNUSED struct virgl_context *ctx)
{
   return -ENOTSUP;
}

#endif /* ENABLE_AMDKFD */

#endif /* VKFD_RENDERER_H */
