/*
 * Copyright 2026 The vkfd authors
 * SPDX-License-Identifier: MIT
 *
 * The amdkfd context type: a thin forwarder from struct virgl_context to
 * libvkfd-host, which decodes, validates and executes the guest's KFD
 * command stream on a per-context executor thread.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vkfd/host.h>

#include "util/macros.h"

#include "virgl_context.h"
#include "virgl_resource.h"
#include "virgl_util.h"
#include "virglrenderer.h"
#include "virglrenderer_hw.h"

#include "vkfd_renderer.h"

/* Highest capset version probed; the wire protocol negotiates its own
 * versions inside the capset, so this only guards against a library that
 * starts numbering capset layouts.
 */
#define VKFD_RENDERER_MAX_CAPSET_VERSION 8

struct vkfd_renderer_context {
   struct virgl_context base;
   struct vkfd_host_context *host;
};

static struct {
   bool initialized;
   bool async_fences;
} vkfd_state;

static inline struct vkfd_renderer_context *
to_vkfd_context(struct virgl_context *base)
{
   return (struct vkfd_renderer_context *)base;
}

/* Called exactly once per fence, in order per ring: from a vkfd thread in
 * async mode, else from vkfd_host_context_retire_fences() on our thread.
 */
static void
vkfd_renderer_retire_fence(void *cookie,
                           UNUSED uint32_t ctx_id,
                           uint32_t ring_idx,
                           uint64_t fence_id)
{
   struct vkfd_renderer_context *ctx = cookie;

   if (ctx->base.fence_retire)
      ctx->base.fence_retire(&ctx->base, ring_idx, fence_id);
}

static void
vkfd_renderer_context_destroy(struct virgl_context *base)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   /* Joins vkfd's threads: no retire callback runs after this returns. */
   vkfd_host_context_destroy(ctx->host);
   free(ctx);
}

static void
vkfd_renderer_context_attach_resource(struct virgl_context *base,
                                      struct virgl_resource *res)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);
   int fd = -1;

   /* Only memory the guest could import is passed on; GL-only resources
    * stay unknown to vkfd and an IMPORT of them fails there.
    */
   switch (res->fd_type) {
   case VIRGL_RESOURCE_FD_DMABUF:
   case VIRGL_RESOURCE_FD_SHM:
      fd = res->fd;
      break;
   default:
      break;
   }

   int ret = vkfd_host_context_attach_resource(ctx->host, res->res_id, fd,
                                               res->map_size);
   if (ret)
      virgl_debug("amdkfd: ctx %u: attach of res %u failed: %d\n",
                  base->ctx_id, res->res_id, ret);
}

static void
vkfd_renderer_context_detach_resource(struct virgl_context *base,
                                      struct virgl_resource *res)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   vkfd_host_context_detach_resource(ctx->host, res->res_id);
}

static int
vkfd_renderer_context_transfer_3d(UNUSED struct virgl_context *base,
                                  UNUSED struct virgl_resource *res,
                                  UNUSED const struct vrend_transfer_info *info,
                                  UNUSED int transfer_mode)
{
   /* Blobs are shared memory; there is nothing to copy. */
   return -EINVAL;
}

static int
vkfd_renderer_context_get_blob(struct virgl_context *base,
                               uint32_t res_id,
                               uint64_t blob_id,
                               uint64_t blob_size,
                               uint32_t blob_flags,
                               struct virgl_context_blob *blob)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);
   struct vkfd_blob out;

   memset(&out, 0, sizeof(out));
   out.fd = -1;

   int ret = vkfd_host_context_get_blob(ctx->host, res_id, blob_id, blob_size,
                                        blob_flags, &out);
   if (ret)
      return ret;

   /* virglrenderer can map only dma-bufs and shm; anything else would
    * reach the venus allocator, so refuse it here.
    */
   switch (out.fd_type) {
   case VKFD_BLOB_FD_DMABUF:
      blob->type = VIRGL_RESOURCE_FD_DMABUF;
      break;
   case VKFD_BLOB_FD_SHM:
      blob->type = VIRGL_RESOURCE_FD_SHM;
      break;
   default:
      close(out.fd);
      return -EINVAL;
   }

   switch (out.map_info) {
   case VKFD_BLOB_MAP_CACHED:
      blob->map_info = VIRGL_RENDERER_MAP_CACHE_CACHED;
      break;
   case VKFD_BLOB_MAP_UNCACHED:
      blob->map_info = VIRGL_RENDERER_MAP_CACHE_UNCACHED;
      break;
   case VKFD_BLOB_MAP_WC:
      blob->map_info = VIRGL_RENDERER_MAP_CACHE_WC;
      break;
   default:
      close(out.fd);
      return -EINVAL;
   }

   blob->u.fd = out.fd;
   blob->resource_flags = 0;
   if (out.info & VKFD_BLOB_INFO_DOORBELL)
      blob->resource_flags |= VIRGL_RENDERER_RESOURCE_FLAG_DOORBELL;
   memset(&blob->vulkan_info, 0, sizeof(blob->vulkan_info));
   return 0;
}

static int
vkfd_renderer_context_submit_cmd(struct virgl_context *base,
                                 const void *buffer,
                                 size_t size)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   /* Framing is checked and the batch copied; it runs on vkfd's executor. */
   return vkfd_host_context_submit_cmd(ctx->host, buffer, size);
}

static int
vkfd_renderer_context_get_fencing_fd(struct virgl_context *base)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   if (vkfd_state.async_fences)
      return -1;

   return vkfd_host_context_get_fencing_fd(ctx->host);
}

static void
vkfd_renderer_context_retire_fences(struct virgl_context *base)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   if (!vkfd_state.async_fences)
      vkfd_host_context_retire_fences(ctx->host);
}

static int
vkfd_renderer_context_submit_fence(struct virgl_context *base,
                                   uint32_t flags,
                                   uint32_t ring_idx,
                                   uint64_t fence_id)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   return vkfd_host_context_submit_fence(ctx->host, flags, ring_idx, fence_id);
}

int
vkfd_renderer_get_doorbell_fd(struct virgl_context *base)
{
   struct vkfd_renderer_context *ctx = to_vkfd_context(base);

   int fd = vkfd_host_context_get_doorbell_fd(ctx->host);
   if (fd < 0)
      return fd;

   /* the library keeps its own; the VMM gets a descriptor it may close */
   int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
   return dup_fd >= 0 ? dup_fd : -errno;
}

void
vkfd_renderer_get_cap_set(uint32_t *max_ver, uint32_t *max_size)
{
   *max_ver = 0;
   *max_size = 0;

   for (uint32_t v = 0; v <= VKFD_RENDERER_MAX_CAPSET_VERSION; v++) {
      size_t size = vkfd_host_capset_size(v);

      if (size && size <= UINT32_MAX) {
         *max_ver = v;
         *max_size = (uint32_t)size;
      }
   }
}

void
vkfd_renderer_fill_caps(uint32_t version, void *caps)
{
   uint32_t max_ver, max_size;

   /* The caller's buffer holds the size reported for the highest version,
    * and a lower version passes its check: answer a version the library
    * does not speak, or a failed fill, with zeros (never heap contents).
    */
   vkfd_renderer_get_cap_set(&max_ver, &max_size);
   if (!caps || !max_size)
      return;

   memset(caps, 0, max_size);
   size_t size = vkfd_host_capset_size(version);
   if (!size || size > max_size)
      return;
   if (vkfd_host_capset_fill(version, caps, size) < 0)
      memset(caps, 0, max_size);
}

int
vkfd_renderer_init(uint32_t virgl_flags)
{
   struct vkfd_host_config cfg;

   if (vkfd_state.initialized)
      return 0;

   memset(&cfg, 0, sizeof(cfg));
   cfg.api_version = VKFD_HOST_API_VERSION;
   cfg.device = VKFD_DEVICE_AUTO;
   cfg.retire_fence = vkfd_renderer_retire_fence;
   if (virgl_flags & VIRGL_RENDERER_ASYNC_FENCE_CB)
      cfg.flags |= VKFD_HOST_FLAG_ASYNC_FENCES;

   int ret = vkfd_host_init(&cfg);
   if (ret) {
      virgl_error("amdkfd: vkfd_host_init failed: %d\n", ret);
      return ret;
   }

   vkfd_state.async_fences = !!(cfg.flags & VKFD_HOST_FLAG_ASYNC_FENCES);
   vkfd_state.initialized = true;
   return 0;
}

void
vkfd_renderer_fini(void)
{
   if (!vkfd_state.initialized)
      return;

   vkfd_host_fini();
   memset(&vkfd_state, 0, sizeof(vkfd_state));
}

void
vkfd_renderer_reset(void)
{
   /* virgl_context_table_reset() already destroyed our contexts; this drops
    * whatever the library still holds.
    */
   if (vkfd_state.initialized)
      vkfd_host_reset();
}

int
vkfd_renderer_create(uint32_t ctx_id,
                     size_t debug_len,
                     const char *debug_name,
                     struct virgl_context **out)
{
   char name[64];
   struct vkfd_renderer_context *ctx;

   *out = NULL;
   if (!vkfd_state.initialized)
      return -EINVAL;

   /* The guest's name is not NUL-terminated and may be any length. */
   memset(name, 0, sizeof(name));
   if (debug_name && debug_len)
      memcpy(name, debug_name, MIN2(debug_len, sizeof(name) - 1));

   ctx = calloc(1, sizeof(*ctx));
   if (!ctx)
      return -ENOMEM;

   int ret = vkfd_host_context_create(ctx_id, name, ctx, &ctx->host);
   if (ret) {
      virgl_error("amdkfd: ctx %u: create failed: %d\n", ctx_id, ret);
      free(ctx);
      return ret;
   }

   ctx->base.destroy = vkfd_renderer_context_destroy;
   ctx->base.attach_resource = vkfd_renderer_context_attach_resource;
   ctx->base.detach_resource = vkfd_renderer_context_detach_resource;
   ctx->base.transfer_3d = vkfd_renderer_context_transfer_3d;
   ctx->base.get_blob = vkfd_renderer_context_get_blob;
   ctx->base.submit_cmd = vkfd_renderer_context_submit_cmd;
   ctx->base.get_fencing_fd = vkfd_renderer_context_get_fencing_fd;
   ctx->base.retire_fences = vkfd_renderer_context_retire_fences;
   ctx->base.submit_fence = vkfd_renderer_context_submit_fence;
   ctx->base.get_doorbell_fd = vkfd_renderer_get_doorbell_fd;
   ctx->base.supports_fence_sharing = false;

   *out = &ctx->base;
   return 0;
}
