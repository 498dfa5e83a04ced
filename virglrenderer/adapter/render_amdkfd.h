/*
 * Copyright 2026 The vkfd authors
 * SPDX-License-Identifier: MIT
 */

#ifndef RENDER_AMDKFD_H
#define RENDER_AMDKFD_H

#include "render_common.h"

#include "virgl_resource.h"

struct virgl_context;

typedef void (*render_amdkfd_retire_fence_fn)(uint32_t ctx_id,
                                              uint32_t ring_idx,
                                              uint64_t fence_id);

#ifdef ENABLE_AMDKFD

bool
render_amdkfd_init(render_amdkfd_retire_fence_fn retire_fence);

void
render_amdkfd_fini(void);

struct virgl_context *
render_amdkfd_create_context(uint32_t ctx_id, uint32_t name_len, const char *name);

void
render_amdkfd_destroy_context(struct virgl_context *ctx);

bool
render_amdkfd_submit_cmd(struct virgl_context *ctx, void *cmd, uint32_t size);

bool
render_amdkfd_submit_fence(struct virgl_context *ctx,
                           uint32_t flags,
                           uint32_t ring_idx,
                           uint64_t fence_id);

bool
render_amdkfd_create_resource(struct virgl_context *ctx,
                              uint32_t res_id,
                              uint64_t blob_id,
                              uint64_t blob_size,
                              uint32_t blob_flags,
                              enum virgl_resource_fd_type *out_fd_type,
                              int *out_res_fd,
                              uint32_t *out_map_info,
                              uint32_t *out_resource_flags,
                              struct virgl_resource_vulkan_info *out_vulkan_info);

int
render_amdkfd_get_doorbell_fd(struct virgl_context *ctx);

bool
render_amdkfd_import_resource(struct virgl_context *ctx,
                              uint32_t res_id,
                              enum virgl_resource_fd_type fd_type,
                              int fd,
                              uint64_t size);

void
render_amdkfd_destroy_resource(struct virgl_context *ctx, uint32_t res_id);

#endif /* ENABLE_AMDKFD */

#endif /* RENDER_AMDKFD_H */
