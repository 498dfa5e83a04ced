// SPDX-License-Identifier: MIT
/*
 * vkfd backend: the topology. The host's export (GET_TOPOLOGY, fetched in
 * chunks and restarted when its generation moves) is checked record by
 * record and materialised as the guest's own sysfs-like tree, with a CPU
 * node made from the guest's CPUs (docs/guest-vkfd-backend.md).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

#define BK_TOPO_RETRIES 4

static int bk_topo_fetch(struct bk_conn *c, uint8_t **out, size_t *out_len)
{
	size_t rsp_cap = sizeof(struct vkfd_rsp_get_topology) + VKFD_TOPOLOGY_MAX_CHUNK;
	struct vkfd_rsp_get_topology *rsp = malloc(rsp_cap);
	uint8_t *buf = NULL;
	int r = -EIO;

	if (!rsp)
		return -ENOMEM;
	for (int attempt = 0; attempt < BK_TOPO_RETRIES; attempt++) {
		uint64_t off = 0, total = 0;
		uint32_t gen = 0;
		bool restart = false;

		free(buf);
		buf = NULL;
		do {
			struct vkfd_req_get_topology req;

			memset(&req, 0, sizeof(req));
			req.offset = off;
			req.max_len = VKFD_TOPOLOGY_MAX_CHUNK;
			r = bk_call(c, VKFD_CMD_GET_TOPOLOGY, &req, sizeof(req), rsp, rsp_cap);
			if (r)
				goto out;
			if (off == 0) {
				total = rsp->total_len;
				gen = rsp->generation;
				if (total > VKFD_TOPOLOGY_MAX_SIZE) {
					r = -EOVERFLOW;
					goto out;
				}
				buf = malloc(total ? total : 1);
				if (!buf) {
					r = -ENOMEM;
					goto out;
				}
			} else if (rsp->generation != gen || rsp->total_len != total) {
				restart = true;
				break;
			}
			if (rsp->chunk_len > VKFD_TOPOLOGY_MAX_CHUNK ||
			    rsp->chunk_len > total - off || (rsp->chunk_len == 0 && off < total)) {
				r = -EPROTO;
				goto out;
			}
			memcpy(buf + off, rsp + 1, rsp->chunk_len);
			off += rsp->chunk_len;
		} while (off < total);
		if (restart)
			continue;
		*out = buf;
		*out_len = (size_t)total;
		buf = NULL;
		r = 0;
		goto out;
	}
	r = -EAGAIN;
out:
	free(buf);
	free(rsp);
	return r;
}

/* Value of "key N" in a properties text, or -1. */
long long bk_prop(const char *text, size_t len, const char *key)
{
	size_t kl = strlen(key);
	size_t i = 0;

	while (i < len) {
		size_t e = i;

		while (e < len && text[e] != '\n')
			e++;
		if (e - i > kl && !strncmp(text + i, key, kl) && text[i + kl] == ' ') {
			char num[32];
			size_t nl = e - i - kl - 1;

			if (nl >= sizeof(num))
				return -1;
			memcpy(num, text + i + kl + 1, nl);
			num[nl] = '\0';
			return strtoll(num, NULL, 10);
		}
		i = e + 1;
	}
	return -1;
}

#define BK_TOPO_FIXED_CAP (VKFD_TOPOLOGY_MAX_FILE + 4096)

static bool bk_topo_is_props(const char *rel, unsigned int node)
{
	char p[64];

	snprintf(p, sizeof(p), "nodes/%u/properties", node);
	return !strcmp(rel, p);
}

/* One export record, bounds-checked: 1 and *e filled, 0 at the end,
 * -EPROTO when malformed. */
struct bk_rec {
	char rel[BK_TOPO_MAX_PATH];
	const uint8_t *data;
	uint32_t data_len;
};

static int bk_rec_next(const uint8_t *buf, size_t len, size_t *off, struct bk_rec *e)
{
	struct vkfd_topo_record rec;
	size_t rsz;

	if (*off == len)
		return 0;
	if (len - *off < sizeof(rec))
		return -EPROTO;
	memcpy(&rec, buf + *off, sizeof(rec));
	if (rec.path_len == 0 || rec.path_len > VKFD_TOPOLOGY_MAX_PATH ||
	    rec.path_len >= sizeof(e->rel) || rec.data_len > VKFD_TOPOLOGY_MAX_FILE)
		return -EPROTO;
	rsz = (sizeof(rec) + rec.path_len + rec.data_len + 7) & ~(size_t)7;
	if (rsz > len - *off)
		return -EPROTO;
	if (!bk_topo_rel_ok((const char *)buf + *off + sizeof(rec), rec.path_len))
		return -EPROTO;
	memcpy(e->rel, buf + *off + sizeof(rec), rec.path_len);
	e->rel[rec.path_len] = '\0';
	e->data = buf + *off + sizeof(rec) + rec.path_len;
	e->data_len = rec.data_len;
	*off += rsz;
	return 1;
}

/* Materialise the export under troot, with one CPU node (node 0) made
 * from the guest's CPUs and the host's GPU nodes renumbered after it.
 * Link directories are renumbered densely and the link counts in each GPU
 * node's properties are set from the link files actually exported (the
 * guest's tree must be self-consistent whatever the host sent). */
int bk_topo_build_locked(const char *troot, const uint8_t *buf, size_t len)
{
	uint64_t io_mask[VKFD_MAX_GPUS] = {0}, p2p_mask[VKFD_MAX_GPUS] = {0};
	bool has_props[VKFD_MAX_GPUS] = {false};
	unsigned int n_nodes = 0;
	char *fixed = malloc(BK_TOPO_FIXED_CAP), *loc = malloc(BK_TOPO_FIXED_CAP);
	struct bk_rec e;
	size_t off;
	int r = 0;

	BK_ASSERT_TABLE_LOCKED();
	if (!fixed || !loc) {
		free(fixed);
		free(loc);
		return -ENOMEM;
	}
	memset(bk.gpus, 0, sizeof(bk.gpus));
	bk.n_gpus = 0;

	/* pass 0: nodes and the link indices each node really has */
	off = 0;
	while ((r = bk_rec_next(buf, len, &off, &e)) > 0) {
		char tmp[BK_TOPO_MAX_PATH + 16];
		const char *tail;
		unsigned long link;
		unsigned int node;
		int kind;

		if (!bk_topo_renumber_path(e.rel, 1, &node, tmp, sizeof(tmp)))
			r = -EPROTO;
		else if (node == UINT_MAX)
			continue;
		else if (node >= VKFD_MAX_GPUS)
			r = -EPROTO;
		if (r < 0)
			break;
		if (node + 1 > n_nodes)
			n_nodes = node + 1;
		kind = bk_topo_link_of(e.rel, &link, &tail);
		if (kind < 0 || (kind > 0 && link >= 64)) {
			r = -EPROTO;
			break;
		}
		if (kind == 1)
			io_mask[node] |= 1ull << link;
		else if (kind == 2)
			p2p_mask[node] |= 1ull << link;
	}
	if (r < 0)
		goto out;
	bk.n_gpus = n_nodes;

	/* pass 1: write the files */
	off = 0;
	while ((r = bk_rec_next(buf, len, &off, &e)) > 0) {
		char out[BK_TOPO_MAX_PATH + 64];
		const char *tail = "";
		unsigned long link = 0;
		unsigned int node;
		ssize_t fl;
		int kind;

		if (!bk_topo_renumber_path(e.rel, 1, &node, out, sizeof(out))) {
			r = -EPROTO;
			break;
		}
		kind = node == UINT_MAX ? 0 : bk_topo_link_of(e.rel, &link, &tail);
		if (kind > 0) {
			uint64_t m = kind == 1 ? io_mask[node] : p2p_mask[node];
			unsigned int dense =
			    (unsigned int)__builtin_popcountll(m & ((1ull << link) - 1));

			snprintf(out, sizeof(out), "nodes/%u/%s/%u%s", node + 1,
				 kind == 1 ? "io_links" : "p2p_links", dense, tail);
			fl = bk_topo_fix_links((const char *)e.data, e.data_len, 1, n_nodes, fixed,
					       BK_TOPO_FIXED_CAP);
		} else if (node != UINT_MAX && bk_topo_is_props(e.rel, node)) {
			long long m = bk_prop((const char *)e.data, e.data_len, "drm_render_minor");

			bk.gpus[node].render_minor = m >= 128 && m < 1024 ? (int)m : -1;
			has_props[node] = true;
			fl = bk_topo_set_link_counts(
			    (const char *)e.data, e.data_len, fixed, BK_TOPO_FIXED_CAP,
			    (unsigned int)__builtin_popcountll(io_mask[node]) + 1,
			    (unsigned int)__builtin_popcountll(p2p_mask[node]));
			if (fl >= 0) {
				memcpy(loc, fixed, (size_t)fl);
				fl = bk_topo_set_location(loc, (size_t)fl, fixed, BK_TOPO_FIXED_CAP,
							  node);
			}
		} else {
			if (node != UINT_MAX) {
				char p[64];

				snprintf(p, sizeof(p), "nodes/%u/gpu_id", node);
				if (!strcmp(e.rel, p)) {
					char num[32];
					size_t nl = e.data_len < sizeof(num) - 1 ? e.data_len
										 : sizeof(num) - 1;

					memcpy(num, e.data, nl);
					num[nl] = '\0';
					bk.gpus[node].gpu_id = (uint32_t)strtoul(num, NULL, 10);
				}
			}
			fl = (ssize_t)e.data_len;
			memcpy(fixed, e.data, e.data_len);
		}
		r = fl < 0 ? (int)fl : bk_topo_write(troot, out, fixed, (size_t)fl);
		if (r)
			break;
	}
	if (r < 0)
		goto out;
	r = 0;
	for (unsigned int k = 0; !r && k < bk.n_gpus; k++) {
		if (!has_props[k] || !bk.gpus[k].gpu_id)
			r = -EPROTO;
		else
			r = bk_topo_gpu_cpu_link(
			    troot, k + 1, (unsigned long)__builtin_popcountll(io_mask[k]), 0);
	}
	if (!r)
		r = bk_topo_cpu_node(troot, 0, 1, bk.n_gpus);
	/* the guest's own system properties; no generation changes */
	if (!r)
		r = bk_topo_writef(troot, "system_properties",
				   "platform_oem 0\nplatform_id 0\n"
				   "platform_rev 0\n");
	if (!r)
		r = bk_topo_writef(troot, "generation_id", "1\n");
out:
	free(fixed);
	free(loc);
	return r;
}

int bk_topo_materialise_locked(struct bk_conn *c)
{
	char tmpl[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	uint8_t *buf = NULL;
	size_t len = 0;
	int r;

	BK_ASSERT_TABLE_LOCKED();
	snprintf(tmpl, sizeof(tmpl), "%s/vkfd-topo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl))
		return -errno;
	snprintf(bk.root, sizeof(bk.root), "%s", tmpl);
	bk.root_ours = true;

	r = bk_topo_fetch(c, &buf, &len);
	if (r)
		return r;
	{
		char troot[PATH_MAX + 64];

		snprintf(troot, sizeof(troot), "%s%s", bk.root, BK_TOPO_SUBDIR);
		/* BK_TOPO_SUBDIR starts with '/': skip it for a relative path */
		r = bk_topo_mkdirs(bk.root, &(BK_TOPO_SUBDIR "/nodes/x")[1]);
		if (!r)
			r = bk_topo_build_locked(troot, buf, len);
	}
	free(buf);
	return r;
}

void bk_cleanup_tree(void)
{
	if (bk.root_ours && bk.pid == bk_self_pid() && bk.root[0])
		bk_topo_remove(bk.root);
}
