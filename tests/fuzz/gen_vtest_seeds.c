// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpus of fuzz_vtest_worker: vtest client sessions as raw
 * byte streams, the way the guest library's vtest transport talks to
 * vkfd-server (handshake, capset, context, the shared-memory blob, fenced
 * command batches, syncs), plus sessions that break the protocol at one
 * point each. Usage: gen_vtest_seeds OUTDIR [STAMP]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkfd/host.h"
#include "vkfd_codec.h"
#include "vtest_wire.h"

#define STREAM_DWORDS (64u * 1024u)

struct stream {
	uint32_t dw[STREAM_DWORDS];
	size_t n;
};

static void put(struct stream *s, uint32_t v)
{
	if (s->n < STREAM_DWORDS)
		s->dw[s->n++] = v;
}

static void msg(struct stream *s, uint32_t cmd, const uint32_t *payload, uint32_t ndw)
{
	put(s, ndw);
	put(s, cmd);
	for (uint32_t i = 0; i < ndw; i++)
		put(s, payload[i]);
}

static void handshake(struct stream *s, uint32_t version)
{
	static const char name[8] = "fuzzer";
	uint32_t v[2];

	/* CREATE_RENDERER's length counts bytes; 8 keeps the stream aligned. */
	put(s, sizeof(name));
	put(s, VTW_CMD_CREATE_RENDERER);
	memcpy(v, name, sizeof(name));
	put(s, v[0]);
	put(s, v[1]);
	msg(s, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	v[0] = version;
	msg(s, VTW_CMD_PROTOCOL_VERSION, v, 1);
	v[0] = VTW_PARAM_MAX_TIMELINE_COUNT;
	msg(s, VTW_CMD_GET_PARAM, v, 1);
	v[0] = VKFD_CAPSET_ID;
	v[1] = 1;
	msg(s, VTW_CMD_GET_CAPSET, v, 2);
}

static void context(struct stream *s)
{
	uint32_t cap = VKFD_CAPSET_ID;
	uint32_t blob[VTW_CREATE_BLOB_DWORDS] = {
	    VTW_BLOB_TYPE_HOST3D, VTW_BLOB_FLAG_MAPPABLE, VKFD_SHMEM_SIZE, 0, 0, 0,
	};

	msg(s, VTW_CMD_CONTEXT_INIT, &cap, 1);
	msg(s, VTW_CMD_RESOURCE_CREATE_BLOB, blob, VTW_CREATE_BLOB_DWORDS);
}

/* A command batch built with the codec: HELLO, GET_VERSION, topology. */
static uint32_t command_batch(uint32_t *out, size_t cap_bytes)
{
	struct vkfd_builder b;
	struct vkfd_req_hello hello = {.version_min = 1, .version_max = 1};
	struct vkfd_req_get_version ver;
	struct vkfd_req_get_topology topo = {.offset = 0, .max_len = 4096};

	memset(&ver, 0, sizeof(ver));
	vkfd_builder_init(&b, out, cap_bytes, 1);
	vkfd_builder_add(&b, VKFD_CMD_HELLO, &hello, sizeof(hello), 0, NULL);
	vkfd_builder_add(&b, VKFD_CMD_GET_VERSION, &ver, sizeof(ver), 256, NULL);
	vkfd_builder_add(&b, VKFD_CMD_GET_TOPOLOGY, &topo, sizeof(topo), 512, NULL);
	return (uint32_t)((b.len + 3) / 4);
}

/* SUBMIT_CMD2 with one batch on `ring` signalling sync `sync_id` to 1. */
static void submit(struct stream *s, uint32_t ring, uint32_t sync_id)
{
	uint32_t p[1 + VTW_BATCH_DWORDS + 3 + 1024];
	uint32_t cmd_off = 1 + VTW_BATCH_DWORDS + 3;
	uint32_t ncmd = command_batch(p + cmd_off, sizeof(p) - cmd_off * 4);

	memset(p, 0, (1 + VTW_BATCH_DWORDS + 3) * 4);
	p[0] = 1;
	p[1 + VTW_BATCH_FLAGS] = VTW_SUBMIT_FLAG_RING_IDX;
	p[1 + VTW_BATCH_CMD_OFFSET] = cmd_off;
	p[1 + VTW_BATCH_CMD_SIZE] = ncmd;
	p[1 + VTW_BATCH_SYNC_OFFSET] = 1 + VTW_BATCH_DWORDS;
	p[1 + VTW_BATCH_SYNC_COUNT] = 1;
	p[1 + VTW_BATCH_RING_IDX] = ring;
	p[1 + VTW_BATCH_DWORDS] = sync_id;
	p[1 + VTW_BATCH_DWORDS + 1] = 1;
	msg(s, VTW_CMD_SUBMIT_CMD2, p, cmd_off + ncmd);
}

static void syncs(struct stream *s)
{
	uint32_t create[2] = {0, 0};
	uint32_t id = 1;
	uint32_t write[3] = {1, 5, 0};
	uint32_t wait[5] = {VTW_SYNC_WAIT_FLAG_ANY, 100, 1, 1, 0};

	msg(s, VTW_CMD_SYNC_CREATE, create, 2);
	submit(s, 0, 1);
	submit(s, 3, 1);
	msg(s, VTW_CMD_SYNC_WAIT, wait, 5);
	msg(s, VTW_CMD_SYNC_READ, &id, 1);
	msg(s, VTW_CMD_SYNC_WRITE, write, 3);
	msg(s, VTW_CMD_SYNC_UNREF, &id, 1);
}

static int write_seed(const char *dir, const char *name, const struct stream *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	fwrite(s->dw, 4, s->n, f);
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static struct stream s;
	uint32_t v;
	int failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUTDIR [STAMP]\n", argv[0]);
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}

	s.n = 0;
	handshake(&s, VTW_PROTOCOL_VERSION);
	failed += !!write_seed(argv[1], "handshake", &s);

	s.n = 0;
	handshake(&s, VTW_PROTOCOL_VERSION);
	context(&s);
	syncs(&s);
	v = 1;
	msg(&s, VTW_CMD_RESOURCE_UNREF, &v, 1);
	failed += !!write_seed(argv[1], "session", &s);

	/* Version 2 client: every v3 command after the handshake is refused. */
	s.n = 0;
	handshake(&s, 2);
	context(&s);
	failed += !!write_seed(argv[1], "old-version", &s);

	/* Commands that need a context, sent before CONTEXT_INIT. */
	s.n = 0;
	handshake(&s, VTW_PROTOCOL_VERSION);
	submit(&s, 0, 1);
	failed += !!write_seed(argv[1], "no-context", &s);

	/* A SHAREABLE blob (id 1 is unbound: refused), then an import whose
	 * fd never comes (a byte stream carries none). */
	s.n = 0;
	handshake(&s, VTW_PROTOCOL_VERSION);
	context(&s);
	{
		uint32_t blob[VTW_CREATE_BLOB_DWORDS] = {
		    VTW_BLOB_TYPE_HOST3D,
		    VTW_BLOB_FLAG_MAPPABLE | VTW_BLOB_FLAG_SHAREABLE,
		    4096,
		    0,
		    1,
		    0,
		};

		msg(&s, VTW_CMD_RESOURCE_CREATE_BLOB, blob, VTW_CREATE_BLOB_DWORDS);
	}
	v = VTW_PARAM_VKFD_IMPORT_FD;
	msg(&s, VTW_CMD_GET_PARAM, &v, 1);
	msg(&s, VTW_CMD_RESOURCE_IMPORT_FD, NULL, 0);
	put(&s, 0x78);
	failed += !!write_seed(argv[1], "import-fd", &s);

	/* A header announcing more payload than the stream holds. */
	s.n = 0;
	handshake(&s, VTW_PROTOCOL_VERSION);
	context(&s);
	put(&s, 1u << 20);
	put(&s, VTW_CMD_SUBMIT_CMD2);
	put(&s, 1);
	failed += !!write_seed(argv[1], "truncated", &s);

	if (failed) {
		fprintf(stderr, "%d seeds could not be written to %s\n", failed, argv[1]);
		return 1;
	}
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (!f || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
	}
	return 0;
}
