// SPDX-License-Identifier: MIT
/*
 * vkfd-info: what a guest sees of a vkfd host, through the guest library:
 * capset, negotiated protocol version, host KFD version and the exported
 * topology (one section per sysfs file).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vkfd/guest.h>

#include "vkfd_codec.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: vkfd-info [--transport vtest|virtgpu|auto] [--socket PATH]\n"
		   "                 [--no-topology]\n");
}

/* by bit; bits without a name here are printed in the hex value only */
static const char *const feature_names[] = {
    [0] = "event-hints",     [1] = "event-ages",     [2] = "vram-export",   [3] = "import-resource",
    [4] = "amdgpu-query",    [5] = "doorbell-relay", [6] = "multi-context", [7] = "sim-device",
    [8] = "guest-handles",   [9] = "async-alloc",    [10] = "async-map",    [11] = "arenas",
    [12] = "userptr-pieces", [13] = "strict-alloc",
};

static void print_capset(const struct vkfd_capset *c)
{
	printf("capset %u:\n", VIRTIO_GPU_CAPSET_AMDKFD);
	printf("  wire format:        %u\n", c->wire_format);
	printf("  protocol versions:  %u..%u\n", c->version_min, c->version_max);
	printf("  context type:       %u\n", c->context_type);
	printf("  features:           0x%" PRIx64, c->features);
	for (unsigned i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
		if (feature_names[i] && (c->features & (1ull << i)))
			printf(" %s", feature_names[i]);
	printf("\n");
	printf("  host KFD version:   %u.%u (minimum supported %u.%u)\n", c->kfd_major,
	       c->kfd_minor, c->min_kfd_major, c->min_kfd_minor);
	printf("  min host kernel:    %u.%u.%u\n", c->min_kernel_version >> 16,
	       (c->min_kernel_version >> 8) & 0xff, c->min_kernel_version & 0xff);
	printf("  shmem size:         %u\n", c->shmem_size);
	printf("  rings:              %u\n", c->num_rings);
	printf("  max batch size:     %u\n", c->max_batch_size);
	printf("  GPUs:               %u\n", c->num_gpus);
}

static int print_version(struct vkfd_guest *g)
{
	struct vkfd_req_get_version req;
	struct vkfd_rsp_get_version rsp;
	int r;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_GET_VERSION;
	r = vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r || rsp.hdr.ret) {
		fprintf(stderr, "vkfd-info: GET_VERSION failed: %s\n",
			strerror(r ? -r : -rsp.hdr.ret));
		return -1;
	}
	printf("KFD version (as the guest sees it): %u.%u\n", rsp.major, rsp.minor);
	return 0;
}

/* Fetch the whole topology export, restarting if its generation changes. */
static int fetch_topology(struct vkfd_guest *g, uint8_t **out, size_t *out_len)
{
	const uint32_t chunk = VKFD_TOPOLOGY_MAX_CHUNK;
	size_t rsp_size = sizeof(struct vkfd_rsp_get_topology) + chunk;
	uint8_t *rspbuf = malloc(rsp_size);
	uint8_t *data = NULL;
	uint64_t total = 0, off = 0;
	uint32_t gen = 0;
	int r = 0, restarts = 0;

	if (!rspbuf)
		return -ENOMEM;
	for (;;) {
		struct vkfd_req_get_topology req;
		struct vkfd_rsp_get_topology rsp;

		memset(&req, 0, sizeof(req));
		req.hdr.cmd = VKFD_CMD_GET_TOPOLOGY;
		req.offset = off;
		req.max_len = chunk;
		r = vkfd_guest_call(g, &req, sizeof(req), rspbuf, rsp_size);
		if (r)
			break;
		memcpy(&rsp, rspbuf, sizeof(rsp));
		if (rsp.hdr.ret) {
			r = rsp.hdr.ret;
			break;
		}
		if (rsp.total_len > VKFD_TOPOLOGY_MAX_SIZE || rsp.chunk_len > chunk ||
		    off + rsp.chunk_len > rsp.total_len) {
			r = -EPROTO;
			break;
		}
		if (off == 0) {
			free(data);
			total = rsp.total_len;
			gen = rsp.generation;
			data = malloc(total ? total : 1);
			if (!data) {
				r = -ENOMEM;
				break;
			}
		} else if (rsp.generation != gen || rsp.total_len != total) {
			if (++restarts > 5) {
				r = -EAGAIN;
				break;
			}
			off = 0;
			continue;
		}
		memcpy(data + off, rspbuf + sizeof(rsp), rsp.chunk_len);
		off += rsp.chunk_len;
		if (off >= total)
			break;
		if (rsp.chunk_len == 0) {
			r = -EPROTO;
			break;
		}
	}
	free(rspbuf);
	if (r) {
		free(data);
		return r;
	}
	*out = data;
	*out_len = (size_t)total;
	return 0;
}

static int print_topology(struct vkfd_guest *g)
{
	uint8_t *data = NULL;
	size_t len = 0, off = 0;
	struct vkfd_topo_entry e;
	unsigned files = 0;
	int r = fetch_topology(g, &data, &len);

	if (r) {
		fprintf(stderr, "vkfd-info: GET_TOPOLOGY failed: %s\n", strerror(-r));
		return -1;
	}
	printf("topology (%zu bytes):\n", len);
	while ((r = vkfd_topo_next(data, len, &off, &e)) == 1) {
		files++;
		printf("--- %.*s\n", (int)e.path_len, e.path);
		fwrite(e.data, 1, e.data_len, stdout);
		if (e.data_len && e.data[e.data_len - 1] != '\n')
			putchar('\n');
	}
	free(data);
	if (r < 0) {
		fprintf(stderr, "vkfd-info: malformed topology export\n");
		return -1;
	}
	printf("topology files: %u\n", files);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"transport", required_argument, NULL, 't'},
	    {"socket", required_argument, NULL, 's'},
	    {"no-topology", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	enum vkfd_transport tr = VKFD_TRANSPORT_AUTO;
	const char *sock = NULL;
	int topology = 1, c, rc = 0;
	struct vkfd_capset cs;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "vtest"))
				tr = VKFD_TRANSPORT_VTEST;
			else if (!strcmp(optarg, "virtgpu"))
				tr = VKFD_TRANSPORT_VIRTGPU;
			else if (!strcmp(optarg, "auto"))
				tr = VKFD_TRANSPORT_AUTO;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 's':
			sock = optarg;
			break;
		case 'n':
			topology = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	struct vkfd_guest *g = vkfd_guest_connect(tr, sock);

	if (!g) {
		fprintf(stderr, "vkfd-info: cannot connect: %s\n", strerror(errno));
		return 1;
	}
	memset(&cs, 0, sizeof(cs));
	vkfd_guest_capset(g, &cs, sizeof(cs));
	printf("transport: %s\n", vkfd_guest_transport_name(g));
	printf("negotiated protocol version: %u\n", vkfd_guest_wire_version(g));
	print_capset(&cs);
	if (print_version(g))
		rc = 1;
	if (topology && print_topology(g))
		rc = 1;
	vkfd_guest_disconnect(g);
	return rc;
}
