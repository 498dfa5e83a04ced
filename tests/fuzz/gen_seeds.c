// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpus of fuzz_host_submit: well-formed batches built with
 * the protocol codec (a guest's typical session: hello, topology, VM,
 * memory, blobs, events, waits, queues), plus a few deliberately broken
 * framings. Usage: gen_seeds OUTDIR [STAMP]
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkfd_codec.h"

/* kfdsim's first GPU gets this gpu_id only by chance; the fuzzer mutates it.
 * Seeds use 0 as "unknown" and a plausible id. */
#define SEED_GPU 0x1002u
#define GTT      (KFD_IOC_ALLOC_MEM_FLAGS_GTT | 0x80000000u)

static uint8_t batch[VKFD_MAX_BATCH_SIZE];

static int write_seed(const char *dir, const char *name, uint8_t flags, const uint8_t *b,
		      size_t len, size_t split)
{
	char path[4096];
	FILE *f;
	uint8_t hdr[3] = {flags, (uint8_t)split, (uint8_t)(split >> 8)};

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	fwrite(hdr, 1, 3, f);
	fwrite(b, 1, len, f);
	fclose(f);
	return 0;
}

static void add(struct vkfd_builder *bld, uint32_t cmd, void *req, uint32_t len, uint32_t *off)
{
	uint32_t need = vkfd_rsp_size(cmd, req, len);

	need = (need + 7) & ~7u;
	if (*off + need > VKFD_RSP_AREA_SIZE)
		*off = 0;
	vkfd_builder_add(bld, cmd, req, len, *off, NULL);
	*off += need;
}

static size_t session(uint32_t gpu)
{
	struct vkfd_builder b;
	uint32_t off = 0;
	uint64_t va = 0x7f0000000000ull;

	vkfd_builder_init(&b, batch, sizeof(batch), 1);
	{
		struct vkfd_req_hello r = {.version_min = 1, .version_max = 1};

		add(&b, VKFD_CMD_HELLO, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_get_version r;

		memset(&r, 0, sizeof(r));
		add(&b, VKFD_CMD_GET_VERSION, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_get_topology r = {.offset = 0, .max_len = 4096};

		add(&b, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_get_process_apertures r = {.max_nodes = 4};

		add(&b, VKFD_CMD_GET_PROCESS_APERTURES, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_gpu r = {.gpu_id = gpu};

		add(&b, VKFD_CMD_ACQUIRE_VM, &r, sizeof(r), &off);
		add(&b, VKFD_CMD_GET_CLOCK_COUNTERS, &r, sizeof(r), &off);
		add(&b, VKFD_CMD_AVAILABLE_MEMORY, &r, sizeof(r), &off);
	}
	for (int i = 0; i < 3; i++) {
		struct vkfd_req_alloc_memory r = {
		    .va = va + (uint64_t)i * 0x200000,
		    .size = 0x10000,
		    .gpu_id = gpu,
		    .flags = GTT,
		};

		add(&b, VKFD_CMD_ALLOC_MEMORY, &r, sizeof(r), &off);
	}
	{
		/* handles as a host hands them out: index 1..3, generation 1 */
		struct vkfd_req_map_memory r;

		memset(&r, 0, sizeof(r));
		r.handle = VKFD_HANDLE(1, 1);
		r.n_devices = 1;
		r.device_ids[0] = gpu;
		add(&b, VKFD_CMD_MAP_MEMORY, &r, VKFD_REQ_MAP_MEMORY_LEN(1), &off);
		/* not granted by this HELLO: unknown to the context (14.5) */
		r.handle = VKFD_HANDLE(2, 1);
		add(&b, VKFD_CMD_MAP_MEMORY_ASYNC, &r, VKFD_REQ_MAP_MEMORY_LEN(1), &off);
	}
	{
		struct vkfd_req_bind_blob r = {.handle = VKFD_HANDLE(2, 1), .blob_id = 9};

		add(&b, VKFD_CMD_BIND_BLOB, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_create_event r = {
		    .event_page = VKFD_HANDLE(3, 1),
		    .event_type = KFD_IOC_EVENT_SIGNAL,
		    .auto_reset = 1,
		};

		add(&b, VKFD_CMD_CREATE_EVENT, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_event r = {.event_id = 1};

		add(&b, VKFD_CMD_SET_EVENT_ASYNC, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_wait_events r;

		memset(&r, 0, sizeof(r));
		r.ring_idx = 1;
		r.num_events = 1;
		r.timeout_ms = 0;
		r.events[0].event_id = 1;
		r.events[0].last_event_age = 1;
		add(&b, VKFD_CMD_WAIT_EVENTS, &r, VKFD_REQ_WAIT_EVENTS_LEN(1), &off);
	}
	{
		struct vkfd_req_create_queue r;

		memset(&r, 0, sizeof(r));
		r.ring_base_address = va;
		r.ring_size = 4096;
		r.write_pointer_address = va + 0x8000;
		r.read_pointer_address = va + 0x8080;
		r.gpu_id = gpu;
		r.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
		r.queue_percentage = 100;
		add(&b, VKFD_CMD_CREATE_QUEUE, &r, sizeof(r), &off);
	}
	{
		struct vkfd_req_handle r = {.handle = VKFD_HANDLE(1, 1)};

		add(&b, VKFD_CMD_DESTROY_QUEUE, &r, sizeof(r), &off);
		add(&b, VKFD_CMD_UNMAP_MEMORY_ASYNC, &r, sizeof(r), &off);
		add(&b, VKFD_CMD_FREE_MEMORY, &r, sizeof(r), &off);
	}
	return b.len;
}

int main(int argc, char **argv)
{
	size_t len;
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUTDIR [STAMP]\n", argv[0]);
		return 2;
	}
	mkdir(argv[1], 0755);
	len = session(SEED_GPU);
	ret |= write_seed(argv[1], "session", 3, batch, len, len / 2);
	ret |= write_seed(argv[1], "session-preshmem", 1, batch, len, len);
	len = session(0);
	ret |= write_seed(argv[1], "session-nogpu", 2, batch, len, 0);
	/* broken framings: the context must be lost, nothing else */
	{
		struct vkfd_req_hdr h = {.cmd = VKFD_CMD_GET_VERSION, .len = 20, .seqno = 1};

		ret |= write_seed(argv[1], "frame-unaligned", 0, (uint8_t *)&h, sizeof(h), 0);
		h.len = 4096 + 8;
		ret |= write_seed(argv[1], "frame-overrun", 2, (uint8_t *)&h, sizeof(h), 16);
		h.len = 16;
		h.rsp_off = VKFD_RSP_AREA_SIZE;
		ret |= write_seed(argv[1], "frame-rsp-out", 0, (uint8_t *)&h, sizeof(h), 0);
	}
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (f)
			fclose(f);
	}
	return ret ? 1 : 0;
}
