// SPDX-License-Identifier: MIT
#include "topology.h"
#include "host_log.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_DIR      "/sys/devices/virtual/kfd/kfd/topology"
#define TOPO_FILE_MAX (64 * 1024)

/* Properties that identify the host machine or its PCI layout. */
/* snprintf's result w fits a buffer of cap bytes (checked, so that a path
 * is never silently cut, and -Wformat-truncation has nothing to say) */
static bool fits(int w, size_t cap)
{
	return w >= 0 && (size_t)w < cap;
}

static const char *const hidden_props[] = {
    "unique_id", "location_id", "domain", "hive_id", NULL,
};

static char *read_small_file(const char *path, uint32_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, TOPO_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, TOPO_FILE_MAX, f);
	fclose(f);
	buf[n] = '\0';
	*len = (uint32_t)n;
	return buf;
}

static int prop_u64(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			*val = strtoull(p + klen + 1, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

static int add_file(struct topo_export *t, const char *path, char *data, uint32_t len)
{
	struct topo_file *n = realloc(t->files, (t->n_files + 1) * sizeof(*n));

	if (!n) {
		free(data);
		return -ENOMEM;
	}
	t->files = n;
	memset(&n[t->n_files], 0, sizeof(n[0]));
	if (!fits(snprintf(n[t->n_files].path, sizeof(n[0].path), "%s", path), sizeof(n[0].path))) {
		free(data);
		return -ENAMETOOLONG;
	}
	n[t->n_files].data = data;
	n[t->n_files].len = len;
	t->n_files++;
	return 0;
}

static bool hidden(const char *key, size_t klen)
{
	for (int i = 0; hidden_props[i]; i++)
		if (strlen(hidden_props[i]) == klen && !strncmp(key, hidden_props[i], klen))
			return true;
	return false;
}

/*
 * Rewrite a "key value\n" file line by line. `rewrite` returns true and sets
 * *val when a key's value must be replaced.
 */
typedef bool (*rewrite_fn)(void *arg, const char *key, size_t klen, uint64_t old, uint64_t *val,
			   bool *drop);

static char *sanitize(const char *in, uint32_t *out_len, rewrite_fn fn, void *arg)
{
	size_t cap = strlen(in) + 64 * 8 + 1, o = 0;
	char *out = calloc(1, cap);
	const char *p = in;

	if (!out)
		return NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t llen = nl ? (size_t)(nl - p) : strlen(p);
		const char *sp = memchr(p, ' ', llen);
		size_t klen = sp ? (size_t)(sp - p) : llen;
		uint64_t val = 0;
		bool drop = false;

		if (klen && !hidden(p, klen)) {
			if (sp && fn && fn(arg, p, klen, strtoull(sp + 1, NULL, 10), &val, &drop)) {
				int w = drop ? 0
					     : snprintf(out + o, cap - o, "%.*s %" PRIu64 "\n",
							(int)klen, p, val);

				if (!fits(w, cap - o))
					break; /* a line that does not fit ends the file */
				o += (size_t)w;
			} else if (o + llen + 2 < cap) {
				memcpy(out + o, p, llen);
				o += llen;
				out[o++] = '\n';
			}
		}
		p += llen;
		if (*p == '\n')
			p++;
		if (o + 64 >= cap)
			break;
	}
	out[o] = '\0';
	*out_len = (uint32_t)o;
	return out;
}

struct node_rw {
	uint32_t index;
	uint64_t vram_cap;
	uint64_t heap_type; /* of the bank being read (listed before its size) */
	uint64_t fb_bytes;  /* frame-buffer banks as exported */
};

/* HSA_MEM_HEAP_TYPE_FB_PUBLIC / FB_PRIVATE: the GPU's local memory */
#define TOPO_HEAP_FB_PUBLIC  1
#define TOPO_HEAP_FB_PRIVATE 2

static bool node_rewrite(void *arg, const char *key, size_t klen, uint64_t old, uint64_t *val,
			 bool *drop)
{
	struct node_rw *rw = arg;

	(void)drop;
	if (klen == 16 && !strncmp(key, "drm_render_minor", klen)) {
		*val = 128 + rw->index;
		return true;
	}
	if (klen == 14 && !strncmp(key, "local_mem_size", klen) && rw->vram_cap &&
	    old > rw->vram_cap) {
		*val = rw->vram_cap;
		return true;
	}
	return false;
}

static bool bank_rewrite(void *arg, const char *key, size_t klen, uint64_t old, uint64_t *val,
			 bool *drop)
{
	struct node_rw *rw = arg;

	(void)drop;
	if (klen == 9 && !strncmp(key, "heap_type", klen)) {
		rw->heap_type = old;
		return false;
	}
	if (klen == 13 && !strncmp(key, "size_in_bytes", klen)) {
		bool capped = rw->vram_cap && old > rw->vram_cap;
		uint64_t size = capped ? rw->vram_cap : old;

		if (rw->heap_type == TOPO_HEAP_FB_PUBLIC || rw->heap_type == TOPO_HEAP_FB_PRIVATE)
			rw->fb_bytes += size;
		*val = size;
		return capped;
	}
	return false;
}

struct link_rw {
	const struct topo_export *t;
	bool to_gpu;
};

static bool link_rewrite(void *arg, const char *key, size_t klen, uint64_t old, uint64_t *val,
			 bool *drop)
{
	struct link_rw *rw = arg;

	(void)drop;
	if ((klen == 7 && !strncmp(key, "node_to", klen)) ||
	    (klen == 9 && !strncmp(key, "node_from", klen))) {
		for (uint32_t i = 0; i < rw->t->n_gpus; i++) {
			if (rw->t->gpus[i].host_node == old) {
				*val = i;
				return true;
			}
		}
		return false;
	}
	return false;
}

static int export_subdir(struct topo_export *t, const char *host_node_dir, uint32_t idx,
			 const char *sub, rewrite_fn fn, void *arg, bool links)
{
	char dpath[512], fpath[600], rel[96];
	uint32_t count = 0;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t len;
		char *raw, *clean;
		uint64_t to;

		if (!fits(snprintf(fpath, sizeof(fpath), "%s/%s/%u/properties", host_node_dir, sub,
				   i),
			  sizeof(fpath)))
			return -ENAMETOOLONG;
		raw = read_small_file(fpath, &len);
		if (!raw)
			break;
		/* links to nodes that are not exported (CPU, filtered GPU) are dropped */
		if (links && !prop_u64(raw, "node_to", &to)) {
			bool keep = false;

			for (uint32_t g = 0; g < t->n_gpus; g++)
				keep |= t->gpus[g].host_node == to;
			if (!keep) {
				free(raw);
				continue;
			}
		}
		clean = sanitize(raw, &len, fn, arg);
		free(raw);
		if (!clean)
			return -ENOMEM;
		if (!fits(
			snprintf(rel, sizeof(rel), "nodes/%u/%s/%u/properties", idx, sub, count++),
			sizeof(rel))) {
			free(clean);
			return -ENAMETOOLONG;
		}
		if (add_file(t, rel, clean, len))
			return -ENOMEM;
	}
	(void)dpath;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int topo_export_build(struct topo_export *t, const char *root, uint32_t gpu_mask, uint64_t vram_cap)
{
	char dir[512], path[700], rel[96];
	uint32_t nodes[256], n_nodes = 0;
	struct dirent *de;
	DIR *d;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!fits(snprintf(dir, sizeof(dir), "%s%s/nodes", root ? root : "", TOPO_DIR),
		  sizeof(dir)))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -ENODEV;
	while ((de = readdir(d)) && n_nodes < 256) {
		char *end;
		unsigned long v = strtoul(de->d_name, &end, 10);

		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end && v < 4096)
			nodes[n_nodes++] = (uint32_t)v;
	}
	closedir(d);
	qsort(nodes, n_nodes, sizeof(nodes[0]), cmp_u32);

	for (uint32_t i = 0; i < n_nodes && t->n_gpus < TOPO_MAX_GPUS; i++) {
		uint64_t gpu_id = 0, minor = 0, simd = 0, vram = 0;
		uint32_t len;
		char *txt;

		if (gpu_mask && (nodes[i] >= 32 || !(gpu_mask & (1u << nodes[i]))))
			continue;
		if (!fits(snprintf(path, sizeof(path), "%s/%u/gpu_id", dir, nodes[i]),
			  sizeof(path)))
			continue;
		txt = read_small_file(path, &len);
		if (!txt)
			continue;
		gpu_id = strtoull(txt, NULL, 10);
		free(txt);
		if (!fits(snprintf(path, sizeof(path), "%s/%u/properties", dir, nodes[i]),
			  sizeof(path)))
			continue;
		txt = read_small_file(path, &len);
		if (!txt)
			continue;
		prop_u64(txt, "simd_count", &simd);
		prop_u64(txt, "drm_render_minor", &minor);
		prop_u64(txt, "local_mem_size", &vram);
		free(txt);
		if (!gpu_id || !simd)
			continue; /* CPU node: the guest builds its own */
		t->gpus[t->n_gpus] = (struct topo_gpu){
		    .host_node = nodes[i],
		    .gpu_id = (uint32_t)gpu_id,
		    .render_minor = (int)minor,
		    .vram_size = vram_cap && vram > vram_cap ? vram_cap : vram,
		};
		t->n_gpus++;
	}
	if (!t->n_gpus)
		return -ENODEV;

	for (uint32_t g = 0; g < t->n_gpus; g++) {
		struct node_rw rw = {.index = g, .vram_cap = vram_cap};
		struct link_rw lrw = {.t = t};
		char ndir[600];
		uint32_t len;
		char *txt, *clean;

		if (!fits(snprintf(ndir, sizeof(ndir), "%s/%u", dir, t->gpus[g].host_node),
			  sizeof(ndir)) ||
		    !fits(snprintf(path, sizeof(path), "%s/properties", ndir), sizeof(path))) {
			ret = -ENAMETOOLONG;
			goto fail;
		}
		txt = read_small_file(path, &len);
		if (!txt) {
			ret = -EIO;
			goto fail;
		}
		clean = sanitize(txt, &len, node_rewrite, &rw);
		free(txt);
		if (!fits(snprintf(rel, sizeof(rel), "nodes/%u/properties", g), sizeof(rel))) {
			free(clean);
			ret = -ENAMETOOLONG;
			goto fail;
		}
		if (!clean || add_file(t, rel, clean, len)) {
			ret = -ENOMEM;
			goto fail;
		}
		txt = fits(snprintf(path, sizeof(path), "%s/name", ndir), sizeof(path))
			  ? read_small_file(path, &len)
			  : NULL;
		if (txt) {
			if (!fits(snprintf(rel, sizeof(rel), "nodes/%u/name", g), sizeof(rel))) {
				free(txt);
				ret = -ENAMETOOLONG;
				goto fail;
			}
			if (add_file(t, rel, txt, len)) {
				ret = -ENOMEM;
				goto fail;
			}
		}
		txt = calloc(1, 16);
		if (!txt) {
			ret = -ENOMEM;
			goto fail;
		}
		len = (uint32_t)snprintf(txt, 16, "%u\n", t->gpus[g].gpu_id);
		if (!fits(snprintf(rel, sizeof(rel), "nodes/%u/gpu_id", g), sizeof(rel))) {
			free(txt);
			ret = -ENAMETOOLONG;
			goto fail;
		}
		if (add_file(t, rel, txt, len)) {
			ret = -ENOMEM;
			goto fail;
		}
		ret = export_subdir(t, ndir, g, "mem_banks", bank_rewrite, &rw, false);
		/* recent kernels show local_mem_size 0: the banks say it */
		if (!t->gpus[g].vram_size) {
			t->gpus[g].vram_size = rw.fb_bytes;
			if (vram_cap && t->gpus[g].vram_size > vram_cap)
				t->gpus[g].vram_size = vram_cap;
		}
		if (!ret)
			ret = export_subdir(t, ndir, g, "caches", NULL, NULL, false);
		if (!ret)
			ret = export_subdir(t, ndir, g, "io_links", link_rewrite, &lrw, true);
		if (!ret)
			ret = export_subdir(t, ndir, g, "p2p_links", link_rewrite, &lrw, true);
		if (ret)
			goto fail;
	}
	vkfd_info("topology: exporting %u GPU node(s), %u files", t->n_gpus, t->n_files);
	return 0;
fail:
	topo_export_free(t);
	return ret;
}

void topo_export_free(struct topo_export *t)
{
	for (uint32_t i = 0; i < t->n_files; i++)
		free(t->files[i].data);
	free(t->files);
	memset(t, 0, sizeof(*t));
}

int topo_export_find_gpu(const struct topo_export *t, uint32_t gpu_id)
{
	if (!gpu_id)
		return -1;
	for (uint32_t i = 0; i < t->n_gpus; i++)
		if (t->gpus[i].gpu_id == gpu_id)
			return (int)i;
	return -1;
}
