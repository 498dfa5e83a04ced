// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: arbitrary batches into vkfd_host_context_submit_cmd(),
 * before and after the context's shared memory exists, over kfdsim.
 *
 * Input: byte 0 = flags (bit 0: also feed the input before creating the
 * shared memory; bit 1: submit fences on ring 0 and a wait ring), bytes
 * 1..2 = little-endian split point, the rest = batch bytes, cut into two
 * submits at the split point. Each input gets a fresh context that is
 * destroyed at the end, so every run also exercises teardown.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vkfd/host.h"
#include "vkfd_protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	(void)cookie;
	(void)ctx_id;
	(void)ring;
	(void)fence_id;
}

static int lib_ready;

static void lib_init(void)
{
	struct vkfd_host_config cfg;

	setenv("VKFD_DEBUG", "none", 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	cfg.device = VKFD_DEVICE_SIM;
	cfg.retire_fence = no_retire;
	/* keep one input's resources small and bounded */
	cfg.quota.vram_bytes = 256ull << 20;
	cfg.quota.gtt_bytes = 256ull << 20;
	cfg.quota.max_bos = 256;
	cfg.quota.max_queues = 8;
	cfg.quota.max_events = 64;
	cfg.quota.max_pending_waits = 4;
	if (vkfd_host_init(&cfg) == 0)
		lib_ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vkfd_host_context *ctx;
	struct vkfd_blob blob;
	uint8_t flags;
	size_t split;

	if (!lib_ready)
		lib_init();
	if (!lib_ready || size < 3)
		return 0;
	flags = data[0];
	split = (size_t)data[1] | (size_t)data[2] << 8;
	data += 3;
	size -= 3;
	if (split > size)
		split = size;

	if (vkfd_host_context_create(1, "fuzz", NULL, &ctx))
		return 0;
	if (flags & 1)
		vkfd_host_context_submit_cmd(ctx, data, size); /* no shmem yet: refused */
	if (vkfd_host_context_get_blob(ctx, 0, 0, VKFD_SHMEM_SIZE, 1, &blob) == 0) {
		vkfd_host_context_submit_cmd(ctx, data, split);
		if (flags & 2)
			vkfd_host_context_submit_fence(ctx, 0, 0, 1);
		vkfd_host_context_submit_cmd(ctx, data + split, size - split);
		if (flags & 2) {
			vkfd_host_context_submit_fence(ctx, 0, 1 + (flags >> 2) % 63, 2);
			vkfd_host_context_retire_fences(ctx);
		}
		close(blob.fd);
	}
	vkfd_host_context_destroy(ctx);
	return 0;
}
