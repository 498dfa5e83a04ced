/* SPDX-License-Identifier: MIT */
/*
 * The command handlers (cmd_*.c) and what the layers above them call: the
 * executor's dispatch table and the context teardown. Handlers call down
 * into the core (host_internal.h) and the leaf tables, never into one
 * another (docs/architecture.md, "Host library layers").
 */
#ifndef VKFD_HOST_CMD_H
#define VKFD_HOST_CMD_H

#include "host_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* cmd handlers: run on the executor, write at most v->rsp_size bytes. */
struct cmd_ctx {
	struct vkfd_host_context *ctx;
	const struct vkfd_cmd_view *v;
	uint8_t *rsp; /* private, zeroed, v->rsp_size bytes */
	uint32_t rsp_len;
	bool deferred; /* response will be written by another thread */
	/* The request, copied once by the executor into a private buffer and
	 * zero-extended to this side's struct (vkfd_cmd_req_size()): an older
	 * guest's shorter request reads as zeros, a newer one's tail is not
	 * seen. Handlers read it through CMD_REQ. */
	const void *req;
	uint32_t req_size;
};

/* c->req as the handler's request struct. The codec's table and the handler
 * must name the same struct; a size that differs is a host bug, caught on
 * the first call of that command (every command has a test). */
static inline const void *cmd_req(const struct cmd_ctx *c, size_t size, const char *fn)
{
	if (size != c->req_size) {
		fprintf(stderr, "vkfd-host: %s reads a %zu-byte request, the codec decoded %u\n",
			fn, size, c->req_size);
		abort();
	}
	return c->req;
}
#define CMD_REQ(c, type) ((const type *)cmd_req((c), sizeof(type), __func__))

/* handlers (cmd_*.c); each returns 0 or -errno placed in the response */
int cmd_hello(struct cmd_ctx *c);
int cmd_get_version(struct cmd_ctx *c);
int cmd_get_topology(struct cmd_ctx *c);
int cmd_get_process_apertures(struct cmd_ctx *c);
int cmd_acquire_vm(struct cmd_ctx *c);
int cmd_set_memory_policy(struct cmd_ctx *c);
int cmd_set_scratch_backing_va(struct cmd_ctx *c);
int cmd_set_trap_handler(struct cmd_ctx *c);
int cmd_set_xnack_mode(struct cmd_ctx *c);
int cmd_get_clock_counters(struct cmd_ctx *c);
int cmd_available_memory(struct cmd_ctx *c);
int cmd_runtime_enable(struct cmd_ctx *c);
int cmd_get_tile_config(struct cmd_ctx *c);
int cmd_amdgpu_query(struct cmd_ctx *c);
int cmd_alloc_memory(struct cmd_ctx *c);
int cmd_alloc_memory_async(struct cmd_ctx *c);
int cmd_free_memory(struct cmd_ctx *c);
int cmd_map_memory(struct cmd_ctx *c);
int cmd_map_memory_async(struct cmd_ctx *c);
int cmd_unmap_memory(struct cmd_ctx *c);
int cmd_bind_blob(struct cmd_ctx *c);
int cmd_import_resource(struct cmd_ctx *c);
int cmd_get_resource_info(struct cmd_ctx *c);
int cmd_create_arena(struct cmd_ctx *c);
int cmd_destroy_arena(struct cmd_ctx *c);
int cmd_alloc_userptr_pieces(struct cmd_ctx *c);
int cmd_create_queue(struct cmd_ctx *c);
int cmd_destroy_queue(struct cmd_ctx *c);
int cmd_update_queue(struct cmd_ctx *c);
int cmd_set_cu_mask(struct cmd_ctx *c);
int cmd_alloc_queue_gws(struct cmd_ctx *c);
int cmd_doorbell_notify(struct cmd_ctx *c);
int cmd_hdp_flush(struct cmd_ctx *c);
int cmd_create_event(struct cmd_ctx *c);
int cmd_destroy_event(struct cmd_ctx *c);
int cmd_set_event(struct cmd_ctx *c);
int cmd_reset_event(struct cmd_ctx *c);
int cmd_wait_events(struct cmd_ctx *c);

/* teardown (host_context.c), after the executor and the wait threads stopped */
void host_events_cancel(struct vkfd_host_context *ctx);
void host_queues_release(struct vkfd_host_context *ctx);
void host_bos_release(struct vkfd_host_context *ctx);
/* after host_bos_release */
void host_arenas_release(struct vkfd_host_context *ctx);

#endif
