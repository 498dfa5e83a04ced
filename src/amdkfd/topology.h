/* SPDX-License-Identifier: MIT */
/*
 * Sanitized KFD topology export (DESIGN 11). Read once from the device's
 * sysfs tree; only GPU nodes allowed by the GPU mask are exported, renumbered
 * 0..n-1 in host order. The guest composes its CPU nodes itself, so CPU nodes
 * and links to them are not exported. Host-identifying properties are
 * removed, drm_render_minor is rewritten to 128 + exported index, and memory
 * sizes are capped by the per-context quota.
 */
#ifndef VKFD_TOPOLOGY_H
#define VKFD_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#define TOPO_MAX_GPUS 16

struct topo_file {
	char path[96]; /* relative to .../kfd/kfd/topology/ */
	char *data;
	uint32_t len;
};

struct topo_gpu {
	uint32_t host_node; /* node number in the host tree */
	uint32_t gpu_id;    /* KFD gpu_id (also the id the guest uses) */
	int render_minor;   /* host render node minor */
	uint64_t vram_size; /* as exported (capped) */
	uint32_t eop_size_hint;
};

struct topo_export {
	struct topo_gpu gpus[TOPO_MAX_GPUS];
	uint32_t n_gpus;
	struct topo_file *files;
	uint32_t n_files;
};

/* root: the device's sysfs_root ("" for the real device). gpu_mask: host
 * node ids to export (bit n = node n), 0 = all. vram_cap/gtt_cap: 0 = no cap.
 * 0 or -errno (-ENODEV when no GPU is left). */
int topo_export_build(struct topo_export *t, const char *root, uint32_t gpu_mask,
		      uint64_t vram_cap);
void topo_export_free(struct topo_export *t);
/* index of gpu_id in the export, or -1 */
int topo_export_find_gpu(const struct topo_export *t, uint32_t gpu_id);

#endif
