/*
 * Copyright 2026 The vkfd authors
 * SPDX-License-Identifier: MIT
 *
 * amdkfd contexts in a render-server worker.  KFD keys its process on the
 * host mm, so each guest context needs a process of its own: the process
 * and minijail workers give it one, the thread worker does not (a second
 * context in the same worker process is refused by vkfd with EBUSY unless
 * the kernel offers secondary KFD processes).
 */

#include "render_amdkfd.h"

#include <errno.h>
#include <unistd.h>

#include "virgl_context.h"
#include "virglrenderer.h"
#include "vkfd_renderer.h"

static render_amdkfd_retire_fence_fn render_amdkfd_retire;

static void
render_amdkfd_fence_retire(struct virgl_context *ctx, uint32_t ring_idx, uint64_t fence_id)
{
   /* runs on a vkfd thread; render_context_update_timeline is atomic */
   render_amdkfd_retire(ctx->ctx_id, ring_idx, fence_id);
}

bool
render_amdkfd_init(render_amdkfd_retire_fence_fn retire_fence)
{
   /* Nothing polls a worker: fences always retire from vkfd's threads.
    * The proxy in the VMM process applies the VMM's own fence mode.
    */
   int ret = vkfd_renderer_init(VIRGL_RENDERER_ASYNC_FENCE_CB);
   if (ret) {
      render_log("failed to initialize amdkfd: %d", ret);
      return false;
   }

   render_amdkfd_retire = retire_fence;
   return true;
}

void
render_amdkfd_fini(void)
{
   vkfd_renderer_fini();
   render_amdkfd_retire = NULL;
}

struct virgl_context *
render_amdkfd_create_context(uint32_t ctx_id, uint32_t name_len, const char *name)
{
   struct virgl_context *ctx;

   int ret = vkfd_renderer_create(ctx_id, name_len, name, &ctx);
   if (ret) {
      render_log("failed to create amdkfd context %u: %d", ctx_id, ret);
      return NULL;
   }

   ctx->ctx_id = ctx_id;
   ctx->in_fence_fd = -1;
   ctx->capset_id = VIRGL_RENDERER_CAPSET_AMDKFD;
   ctx->fence_retire = render_amdkfd_fence_retire;
   return ctx;
}

void
render_amdkfd_destroy_context(struct virgl_context *ctx)
{
   ctx->destroy(ctx);
}

bool
render_amdkfd_submit_cmd(struct virgl_context *ctx, void *cmd, uint32_t size)
{
   /* A malformed batch is the guest's fault: vkfd answers it through the
    * context's shared memory (or marks the context lost).  Returning false
    * would end the worker, so only log it.
    */
   int ret = ctx->submit_cmd(ctx, cmd, size);
   if (ret)
      render_log("amdkfd context %u: submit of %u bytes failed: %d", ctx->ctx_id, size,
                 ret);
   return true;
}

bool
render_amdkfd_submit_fence(struct virgl_context *ctx,
                           uint32_t flags,
                           uint32_t ring_idx,
                           uint64_t fence_id)
{
   return !ctx->submit_fence(ctx, flags, ring_idx, fence_id);
}

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
                              struct virgl_resource_vulkan_info *out_vulkan_info)
{
   struct virgl_context_blob blob;

   memset(&blob, 0, sizeof(blob));
   int ret = ctx->get_blob(ctx, res_id, blob_id, blob_size, blob_flags, &blob);
   if (ret)
      return false;

   /* the proxy adds F_SEAL_SEAL itself and checks the size */
   *out_fd_type = blob.type;
   *out_res_fd = blob.u.fd;
   *out_map_info = blob.map_info;
   *out_resource_flags = blob.resource_flags;
   memset(out_vulkan_info, 0, sizeof(*out_vulkan_info));
   return true;
}

int
render_amdkfd_get_doorbell_fd(struct virgl_context *ctx)
{
   /* a new descriptor, closed once it was sent to the proxy */
   return ctx->get_doorbell_fd ? ctx->get_doorbell_fd(ctx) : -ENOTSUP;
}

bool
render_amdkfd_import_resource(struct virgl_context *ctx,
                              uint32_t res_id,
                              enum virgl_resource_fd_type fd_type,
                              int fd,
                              uint64_t size)
{
   struct virgl_resource res;

   memset(&res, 0, sizeof(res));
   res.res_id = res_id;
   res.fd_type = fd_type;
   res.fd = fd;
   res.map_size = size;

   /* vkfd duplicates the fd; a refused attach only makes the guest's
    * later IMPORT fail, it is no reason to end the worker.
    */
   ctx->attach_resource(ctx, &res);
   close(fd);
   return true;
}

void
render_amdkfd_destroy_resource(struct virgl_context *ctx, uint32_t res_id)
{
   struct virgl_resource res;

   memset(&res, 0, sizeof(res));
   res.res_id = res_id;
   res.fd_type = VIRGL_RESOURCE_FD_INVALID;
   res.fd = -1;
   ctx->detach_resource(ctx, &res);
}
