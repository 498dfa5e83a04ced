// SPDX-License-Identifier: MIT
/*
 * vkfd backend: writing the guest's KFD topology tree, a private temp
 * directory laid out like sysfs. The host exports only GPU nodes; the CPU
 * node is composed here from the guest's own CPUs and GPU nodes are
 * renumbered to follow it. Pure file work: no state, no locks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

/* mkdir -p of the directory part of root/rel. 0 or -errno. */
int bk_topo_mkdirs(const char *root, const char *rel)
{
	char path[BK_TOPO_MAX_PATH + 64];
	size_t rl = strlen(root);
	int n = snprintf(path, sizeof(path), "%s/%s", root, rel);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + rl + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* A relative path from the host must stay inside the tree: no absolute
 * paths, no "..", no empty components, printable ASCII only. */
bool bk_topo_rel_ok(const char *rel, size_t len)
{
	if (len == 0 || len >= BK_TOPO_MAX_PATH || rel[0] == '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)rel[i];

		if (c <= 0x20 || c >= 0x7f)
			return false;
		if (c == '/' && (i + 1 == len || rel[i + 1] == '/'))
			return false;
		if (c == '.' && (i == 0 || rel[i - 1] == '/') &&
		    (i + 1 == len || rel[i + 1] == '/' ||
		     (rel[i + 1] == '.' && (i + 2 == len || rel[i + 2] == '/'))))
			return false;
	}
	return true;
}

int bk_topo_write(const char *root, const char *rel, const void *data, size_t len)
{
	char path[BK_TOPO_MAX_PATH + 64];
	int fd, r;
	size_t done = 0;

	r = bk_topo_mkdirs(root, rel);
	if (r)
		return r;
	r = snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t w = write(fd, (const char *)data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EIO;
			close(fd);
			return r;
		}
		done += (size_t)w;
	}
	close(fd);
	return 0;
}

int bk_topo_writef(const char *root, const char *rel, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EOVERFLOW;
	return bk_topo_write(root, rel, buf, (size_t)n);
}

/* Guest CPU facts for the composed CPU node. */
struct bk_cpu_info {
	unsigned int cores;
	unsigned int mhz;
	uint64_t mem_bytes;
};

static void bk_cpu_info_read(struct bk_cpu_info *ci)
{
	char line[256];
	FILE *f;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long psz = sysconf(_SC_PAGESIZE);

	memset(ci, 0, sizeof(*ci));
	ci->cores = n > 0 ? (unsigned int)n : 1;
	if (pages > 0 && psz > 0)
		ci->mem_bytes = (uint64_t)pages * (uint64_t)psz;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *c;

		if (strncmp(line, "cpu MHz", 7))
			continue;
		c = strchr(line, ':');
		if (c) {
			double mhz = strtod(c + 1, NULL);

			if (mhz > 0 && mhz < 1e6)
				ci->mhz = (unsigned int)mhz;
		}
		break;
	}
	fclose(f);
}

/* CPU node `node` with io links to the GPU nodes first_gpu..first_gpu+n-1. */
int bk_topo_cpu_node(const char *root, unsigned int node, unsigned int first_gpu,
		     unsigned int n_gpus)
{
	struct bk_cpu_info ci;
	char rel[128];
	int r;

	bk_cpu_info_read(&ci);
	snprintf(rel, sizeof(rel), "nodes/%u/gpu_id", node);
	r = bk_topo_writef(root, rel, "0\n");
	if (!r) {
		snprintf(rel, sizeof(rel), "nodes/%u/name", node);
		r = bk_topo_writef(root, rel, "\n");
	}
	if (!r) {
		snprintf(rel, sizeof(rel), "nodes/%u/properties", node);
		r = bk_topo_writef(root, rel,
				   "cpu_cores_count %u\nsimd_count 0\nmem_banks_count 1\n"
				   "caches_count 0\nio_links_count %u\np2p_links_count 0\n"
				   "cpu_core_id_base 0\nsimd_id_base 0\n"
				   "max_waves_per_simd 0\nlds_size_in_kb 0\n"
				   "gds_size_in_kb 0\nnum_gws 0\nwave_front_size 0\n"
				   "array_count 0\nsimd_arrays_per_engine 0\n"
				   "cu_per_simd_array 0\nsimd_per_cu 0\n"
				   "max_slots_scratch_cu 0\ngfx_target_version 0\n"
				   "vendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\n"
				   "drm_render_minor 0\nhive_id 0\nnum_sdma_engines 0\n"
				   "num_sdma_xgmi_engines 0\n"
				   "num_sdma_queues_per_engine 0\nnum_cp_queues 0\n"
				   "max_engine_clk_ccompute %u\n",
				   ci.cores, n_gpus, ci.mhz);
	}
	if (!r) {
		snprintf(rel, sizeof(rel), "nodes/%u/mem_banks/0/properties", node);
		r = bk_topo_writef(root, rel,
				   "heap_type 0\nsize_in_bytes %llu\nflags 0\nwidth 64\n"
				   "mem_clk_max 0\n",
				   (unsigned long long)ci.mem_bytes);
	}
	for (unsigned int i = 0; !r && i < n_gpus; i++) {
		snprintf(rel, sizeof(rel), "nodes/%u/io_links/%u/properties", node, i);
		/* type 2 = PCIe, like a CPU node's links to discrete GPUs */
		r = bk_topo_writef(root, rel,
				   "type 2\nversion_major 0\nversion_minor 0\n"
				   "node_from %u\nnode_to %u\nweight 20\nmin_latency 0\n"
				   "max_latency 0\nmin_bandwidth 0\nmax_bandwidth 0\n"
				   "recommended_transfer_size 0\nflags 1\n",
				   node, first_gpu + i);
	}
	return r;
}

/* Rewrites "nodes/<n>/rest" to "nodes/<n+shift>/rest"; other paths are
 * copied. Returns false if the result does not fit. */
bool bk_topo_renumber_path(const char *in, unsigned int shift, unsigned int *node_out, char *out,
			   size_t out_size)
{
	unsigned long n;
	char *end;
	int r;

	*node_out = UINT_MAX;
	if (strncmp(in, "nodes/", 6) || in[6] < '0' || in[6] > '9') {
		r = snprintf(out, out_size, "%s", in);
		return r >= 0 && (size_t)r < out_size;
	}
	n = strtoul(in + 6, &end, 10);
	if (n > 4096 || (*end && *end != '/'))
		return false;
	*node_out = (unsigned int)n;
	r = snprintf(out, out_size, "nodes/%lu%s", n + shift, end);
	return r >= 0 && (size_t)r < out_size;
}

/* In an io_links / p2p_links properties file, shift node_from and node_to
 * (export indices of GPU nodes, < n_gpus) by `shift`; anything else would
 * name a node the host does not export and becomes CPU node 0. Writes at most
 * out_size-1 bytes; returns the new length or -EOVERFLOW. */
ssize_t bk_topo_fix_links(const char *in, size_t len, unsigned int shift, unsigned int n_gpus,
			  char *out, size_t out_size)
{
	size_t o = 0, i = 0;

	while (i < len) {
		size_t e = i;
		char line[256];
		int w;

		while (e < len && in[e] != '\n')
			e++;
		if (e - i >= sizeof(line))
			return -EOVERFLOW;
		memcpy(line, in + i, e - i);
		line[e - i] = '\0';
		if (!strncmp(line, "node_from ", 10) || !strncmp(line, "node_to ", 8)) {
			char *sp = strchr(line, ' ');
			unsigned long v = strtoul(sp + 1, NULL, 10);

			*sp = '\0';
			v = v < n_gpus ? v + shift : 0;
			w = snprintf(out + o, out_size - o, "%s %lu\n", line, v);
		} else {
			w = snprintf(out + o, out_size - o, "%s\n", line);
		}
		if (w < 0 || (size_t)w >= out_size - o)
			return -EOVERFLOW;
		o += (size_t)w;
		i = e + 1;
	}
	return (ssize_t)o;
}

/* A GPU node's properties with io_links_count and p2p_links_count set to
 * what the guest's tree really holds (the exported link files plus the
 * GPU->CPU link the guest adds); keys the host left out are appended.
 * New length or -EOVERFLOW. */
/* The guest's PCI location of exported GPU K: the host removes its own
 * (location_id, domain), but libdrm and ROCr identify a GPU by it, so every
 * guest GPU gets a distinct one of its own: domain 0, bus 0xc0 + K,
 * device 0, function 0 (a high bus, away from the guest's real devices). */
#define BK_TOPO_PCI_BUS_BASE 0xc0u

/* Replace location_id/domain in properties text in[0, len) (out holds
 * out_size bytes, may alias nothing) with those of guest GPU k. Length or
 * -EOVERFLOW. */
ssize_t bk_topo_set_location(const char *in, size_t len, char *out, size_t out_size, unsigned int k)
{
	size_t o = 0, i = 0;
	int w;

	while (i < len) {
		size_t e = i;

		while (e < len && in[e] != '\n')
			e++;
		if (!(e - i > 12 && !strncmp(in + i, "location_id ", 12)) &&
		    !(e - i > 7 && !strncmp(in + i, "domain ", 7)) && e > i) {
			if (e - i + 1 > out_size - o)
				return -EOVERFLOW;
			memcpy(out + o, in + i, e - i);
			o += e - i;
			out[o++] = '\n';
		}
		i = e + 1;
	}
	w = snprintf(out + o, out_size - o, "location_id %u\ndomain 0\n",
		     (BK_TOPO_PCI_BUS_BASE + k) << 8);
	if (w < 0 || (size_t)w >= out_size - o)
		return -EOVERFLOW;
	return (ssize_t)(o + (size_t)w);
}

ssize_t bk_topo_set_link_counts(const char *in, size_t len, char *out, size_t out_size,
				unsigned int io, unsigned int p2p)
{
	size_t o = 0, i = 0;
	bool seen_io = false, seen_p2p = false;
	int w;

	while (i < len) {
		size_t e = i;
		char line[256];

		while (e < len && in[e] != '\n')
			e++;
		if (e - i >= sizeof(line))
			return -EOVERFLOW;
		memcpy(line, in + i, e - i);
		line[e - i] = '\0';
		if (!strncmp(line, "io_links_count ", 15)) {
			seen_io = true;
			w = snprintf(out + o, out_size - o, "io_links_count %u\n", io);
		} else if (!strncmp(line, "p2p_links_count ", 16)) {
			seen_p2p = true;
			w = snprintf(out + o, out_size - o, "p2p_links_count %u\n", p2p);
		} else if (e > i) {
			w = snprintf(out + o, out_size - o, "%s\n", line);
		} else {
			w = 0;
		}
		if (w < 0 || (size_t)w >= out_size - o)
			return -EOVERFLOW;
		o += (size_t)w;
		i = e + 1;
	}
	if (!seen_io) {
		w = snprintf(out + o, out_size - o, "io_links_count %u\n", io);
		if (w < 0 || (size_t)w >= out_size - o)
			return -EOVERFLOW;
		o += (size_t)w;
	}
	if (!seen_p2p) {
		w = snprintf(out + o, out_size - o, "p2p_links_count %u\n", p2p);
		if (w < 0 || (size_t)w >= out_size - o)
			return -EOVERFLOW;
		o += (size_t)w;
	}
	return (ssize_t)o;
}

/* Link directory of a node path: "nodes/K/io_links/L/..." gives kind 1,
 * "nodes/K/p2p_links/L/..." kind 2, with *link = L and *tail pointing at
 * what follows L ("" or "/..."); else 0; -1 when L is not a number. */
int bk_topo_link_of(const char *rel, unsigned long *link, const char **tail)
{
	const char *p = strchr(rel + 6, '/');
	int kind = 0;
	char *end;

	if (strncmp(rel, "nodes/", 6) || !p)
		return 0;
	if (!strncmp(p, "/io_links/", 10)) {
		kind = 1;
		p += 10;
	} else if (!strncmp(p, "/p2p_links/", 11)) {
		kind = 2;
		p += 11;
	} else {
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -1;
	*link = strtoul(p, &end, 10);
	if (*end != '/' && *end != '\0')
		return -1;
	*tail = end;
	return kind;
}

/* The GPU->CPU link the host does not export (type 2 = PCIe). */
int bk_topo_gpu_cpu_link(const char *root, unsigned int node, unsigned long link,
			 unsigned int cpu_node)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "nodes/%u/io_links/%lu/properties", node, link);
	return bk_topo_writef(root, rel,
			      "type 2\nversion_major 0\nversion_minor 0\n"
			      "node_from %u\nnode_to %u\nweight 20\nmin_latency 0\n"
			      "max_latency 0\nmin_bandwidth 0\nmax_bandwidth 0\n"
			      "recommended_transfer_size 0\nflags 1\n",
			      node, cpu_node);
}

/* rm -rf of our own private tree (paths we created; no symlinks inside). */
void bk_topo_remove(const char *dir)
{
	char cmdpath[BK_TOPO_MAX_PATH + 64];
	struct stat st;
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(cmdpath, sizeof(cmdpath), "%s/%s", dir, de->d_name);
		if (lstat(cmdpath, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			bk_topo_remove(cmdpath);
		else
			unlink(cmdpath);
	}
	closedir(d);
	rmdir(dir);
}
