// SPDX-License-Identifier: MIT
/*
 * The simulated machine's topology: GPU targets, gpu_id generation and the
 * sysfs tree libhsakmt reads (files and formats as kfd_topology.c prints
 * them: "name value\n" lines in node_show/mem_show/cache_show/iolink_show
 * order).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kfd_sysfs.h>

#include "sim_priv.h"

#define TOPO_SUBDIR "/sys/devices/virtual/kfd/kfd/topology"

/* Watch address mask bits (kfd_sysfs.h of 6.x kernels). */
#define DBG_WATCH_LO_GFX9  6ULL
#define DBG_WATCH_LO_GFX10 7ULL
#define DBG_WATCH_HI       (29ULL << 4)

/* Debugger capability and debug_prop bits (kfd_sysfs.h since 6.4; the
 * build host's header may be older). */
#ifndef HSA_CAP_TRAP_DEBUG_SUPPORT
#define HSA_CAP_TRAP_DEBUG_SUPPORT                             0x00008000u
#define HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED 0x00010000u
#define HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED          0x00020000u
#define HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED 0x00040000u
#define HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED                  0x20000000u
#endif
#ifndef HSA_DBG_DISPATCH_INFO_ALWAYS_VALID
#define HSA_DBG_DISPATCH_INFO_ALWAYS_VALID 0x00000400ULL
#endif

#define GC_IP(maj, min, rev) (((uint32_t)(maj) << 16) | ((uint32_t)(min) << 8) | (rev))

/* Doorbell type 2.0 (SOC15) and 4 watch points (log2 = 2). */
#define GPU_CAPS                                                                                   \
	((HSA_CAP_DOORBELL_TYPE_2_0 << HSA_CAP_DOORBELL_TYPE_TOTALBITS_SHIFT) |                    \
	 HSA_CAP_WATCH_POINTS_SUPPORTED | (2u << HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT))

static const struct sim_target targets[] = {
    {
	/* Instinct MI210 (Aldebaran), 104 CUs */
	.name = "gfx90a",
	.asic = "aldebaran",
	.gfx_target_version = 90010,
	.gc_ip = GC_IP(9, 4, 2),
	.device_id = 0x740f,
	.cu_count = 104,
	.simd_per_cu = 4,
	.wave_front_size = 64,
	.max_waves_per_simd = 8,
	.array_count = 8,
	.simd_arrays_per_engine = 1,
	.cu_per_simd_array = 16,
	.lds_kb = 64,
	.gds_kb = 0,
	.num_gws = 64,
	.max_slots_scratch_cu = 32,
	.num_sdma = 2,
	.num_sdma_xgmi = 3,
	.sdma_queues_per_engine = 8,
	.sdma_ip_major = 4, /* SDMA 4.4.0 */
	.sdma_ip_minor = 4,
	.num_cp_queues = 24,
	.max_clk_mhz = 1700,
	.fw_version = 71,
	.sdma_fw_version = 8,
	.l1_kb = 16,
	.l2_kb = 8192,
	.debug_prop = DBG_WATCH_LO_GFX9 | DBG_WATCH_HI,
	/* RAS on GFX and UMC, as the board ships: kfd_topology.c reports
	 * SRAM and memory EDC and RAS event notification (ROCr then names
	 * the ISA gfx90a:sramecc+, clinfo shows ECC) */
	.capability = GPU_CAPS | HSA_CAP_SRAM_EDCSUPPORTED | HSA_CAP_MEM_EDCSUPPORTED |
		      HSA_CAP_RASEVENTNOTIFY,
	.vram_width = 4096, /* HBM2e, 1.6 GHz */
	.vram_clk_mhz = 1600,
	.gb_addr_config = 0x2a114042,
	.xnack_capable = true,
    },
    {
	/* Radeon RX 6900 XT (Navi 21), 80 CUs */
	.name = "gfx1030",
	.asic = "sienna_cichlid",
	.gfx_target_version = 100300,
	.gc_ip = GC_IP(10, 3, 0),
	.device_id = 0x73bf,
	.cu_count = 80,
	.simd_per_cu = 2,
	.wave_front_size = 32,
	.max_waves_per_simd = 16,
	.array_count = 8,
	.simd_arrays_per_engine = 2,
	.cu_per_simd_array = 10,
	.lds_kb = 64,
	.gds_kb = 0,
	.num_gws = 0,
	.max_slots_scratch_cu = 32,
	.num_sdma = 4,
	.num_sdma_xgmi = 0,
	.sdma_queues_per_engine = 8, /* kfd_device.c: SDMA 5.2.0 */
	.sdma_ip_major = 5,          /* SDMA 5.2.0 */
	.sdma_ip_minor = 2,
	.num_cp_queues = 24,
	.max_clk_mhz = 2250,
	.fw_version = 115,
	.sdma_fw_version = 83,
	.l1_kb = 16,
	.l2_kb = 4096,
	.debug_prop = DBG_WATCH_LO_GFX10 | DBG_WATCH_HI,
	.capability = GPU_CAPS, /* consumer board: no RAS */
	.vram_width = 256,      /* GDDR6 */
	.vram_clk_mhz = 1000,
	.gb_addr_config = 0x00000444,
	.xnack_capable = false,
    },
};

const struct sim_target *sim_target_find(const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}

/* Multiplicative hash like the kernel's hash_32, 16 bits wide. */
static uint32_t hash16(uint32_t v)
{
	return (v * 0x61C88647u) >> 16;
}

int sim_topology_init(struct kfdsim *sim)
{
	const struct sim_target *t = sim_target_find(sim->cfg.target);

	if (!t)
		return -EINVAL;
	for (unsigned i = 0; i < sim->ngpus; i++) {
		struct sim_gpu *g = &sim->gpus[i];
		uint32_t id;
		uint32_t buf[6];

		g->index = i;
		g->node_id = i + 1;
		g->t = t;
		/* PCI bus 3 + i, device 0, function 0 */
		g->location_id = (3 + i) << 8;
		buf[0] = 0;
		buf[1] = g->location_id >> 8;
		buf[2] = t->device_id;
		buf[3] = (uint32_t)sim->cfg.vram_size;
		buf[4] = (uint32_t)(sim->cfg.vram_size >> 32);
		buf[5] = t->cu_count * t->simd_per_cu;
		id = 0;
		for (unsigned k = 0; k < 6; k++)
			id ^= hash16(buf[k] + k);
		/* Non-zero and unique, like kfd_generate_gpu_id. */
		for (;;) {
			bool clash = id == 0;

			for (unsigned j = 0; j < i; j++)
				clash |= sim->gpus[j].gpu_id == id;
			if (!clash)
				break;
			id = (id + 1) & 0xffff;
		}
		g->gpu_id = id;
		g->unique_id = 0x5ead0000feed0000ULL ^ ((uint64_t)id << 20) ^ i;
	}
	return 0;
}

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

struct sbuf {
	char data[4096];
	size_t len;
};

static void __attribute__((format(printf, 2, 3))) sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->data))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, sizeof(b->data) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
	if (b->len > sizeof(b->data))
		b->len = sizeof(b->data);
}

static void u32p(struct sbuf *b, const char *name, uint32_t v)
{
	sb_add(b, "%s %u\n", name, v);
}

static void u64p(struct sbuf *b, const char *name, uint64_t v)
{
	sb_add(b, "%s %llu\n", name, (unsigned long long)v);
}

static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[PATH_MAX];
	int fd;
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static int write_sb(const char *dir, const char *name, const struct sbuf *b)
{
	return write_file(dir, name, b->data, b->len);
}

static uint32_t cpu_max_mhz(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "re");
	unsigned long khz = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &khz) != 1)
		khz = 0;
	fclose(f);
	return (uint32_t)(khz / 1000);
}

struct node_props {
	uint32_t cpu_cores, simd, mem_banks, caches, io_links, simd_id_base;
	const struct sim_target *t;
	const struct sim_gpu *g;
	uint32_t render_minor;
};

/* KFD 1.4 moved SRAM EDC to bit 26; older kernels set bit 19. */
/* kfd_topology_set_dbg_firmware_support: the MEC firmware that can run the
 * debugger, for the modelled GC versions. */
static bool dbg_firmware_supported(const struct sim_target *t)
{
	switch (t->gc_ip) {
	case GC_IP(9, 4, 2):
		return t->fw_version >= 51;
	case GC_IP(10, 3, 0):
		return t->fw_version >= 89;
	default:
		return true; /* unlisted devices are assumed to support it */
	}
}

uint32_t sim_topology_capability(const struct sim_target *t, uint32_t kfd_minor)
{
	uint32_t c = t->capability;

	if (kfd_minor < 4 && (c & HSA_CAP_SRAM_EDCSUPPORTED))
		c = (c & ~(uint32_t)HSA_CAP_SRAM_EDCSUPPORTED) | 0x00080000u;
	/* the SVM API (1.5): a kernel with CONFIG_HSA_AMD_SVM whose GPUs have
	 * their VRAM registered for migration, as on 6.x distribution kernels */
	if (kfd_minor >= 5)
		c |= HSA_CAP_SVMAPI_SUPPORTED;
	/* kfd_topology_set_capabilities, with the debugger API (1.13) */
	if (kfd_minor >= 13) {
		c |= HSA_CAP_TRAP_DEBUG_SUPPORT |
		     HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED |
		     HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED;
		/* precise memory from GC 9.4.2 on GFX9 and from GC 11 on */
		if ((t->gc_ip >= GC_IP(9, 4, 2) && t->gc_ip < GC_IP(10, 0, 0)) ||
		    t->gc_ip >= GC_IP(11, 0, 0))
			c |= HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED;
		if (dbg_firmware_supported(t))
			c |= HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED;
	}
	return c;
}

uint64_t sim_topology_debug_prop(const struct sim_target *t, uint32_t kfd_minor)
{
	uint64_t d = t->debug_prop;

	/* the trap handler sets up the dispatch ttmps unasked where precise
	 * memory is not offered: GFX9 before 9.4.2, GFX10 */
	if (kfd_minor >= 13 && (t->gc_ip < GC_IP(9, 4, 2) ||
				(t->gc_ip >= GC_IP(10, 0, 0) && t->gc_ip < GC_IP(11, 0, 0))))
		d |= HSA_DBG_DISPATCH_INFO_ALWAYS_VALID;
	return d;
}

static void node_properties(struct sbuf *b, const struct node_props *n, uint32_t ccompute,
			    uint32_t kfd_minor)
{
	const struct sim_target *t = n->t;
	bool gpu = n->g != NULL;

	u32p(b, "cpu_cores_count", n->cpu_cores);
	u32p(b, "simd_count", n->simd);
	u32p(b, "mem_banks_count", n->mem_banks);
	u32p(b, "caches_count", n->caches);
	u32p(b, "io_links_count", n->io_links);
	u32p(b, "p2p_links_count", 0);
	u32p(b, "cpu_core_id_base", 0);
	u32p(b, "simd_id_base", n->simd_id_base);
	u32p(b, "max_waves_per_simd", gpu ? t->max_waves_per_simd : 0);
	u32p(b, "lds_size_in_kb", gpu ? t->lds_kb : 0);
	u32p(b, "gds_size_in_kb", gpu ? t->gds_kb : 0);
	u32p(b, "num_gws", gpu ? t->num_gws : 0);
	u32p(b, "wave_front_size", gpu ? t->wave_front_size : 0);
	u32p(b, "array_count", gpu ? t->array_count : 0);
	u32p(b, "simd_arrays_per_engine", gpu ? t->simd_arrays_per_engine : 0);
	u32p(b, "cu_per_simd_array", gpu ? t->cu_per_simd_array : 0);
	u32p(b, "simd_per_cu", gpu ? t->simd_per_cu : 0);
	u32p(b, "max_slots_scratch_cu", gpu ? t->max_slots_scratch_cu : 0);
	u32p(b, "gfx_target_version", gpu ? t->gfx_target_version : 0);
	u32p(b, "vendor_id", gpu ? 0x1002 : 0);
	u32p(b, "device_id", gpu ? t->device_id : 0);
	u32p(b, "location_id", gpu ? n->g->location_id : 0);
	u32p(b, "domain", 0);
	u32p(b, "drm_render_minor", gpu ? n->render_minor : 0);
	u64p(b, "hive_id", 0);
	u32p(b, "num_sdma_engines", gpu ? t->num_sdma : 0);
	u32p(b, "num_sdma_xgmi_engines", gpu ? t->num_sdma_xgmi : 0);
	u32p(b, "num_sdma_queues_per_engine", gpu ? t->sdma_queues_per_engine : 0);
	u32p(b, "num_cp_queues", gpu ? t->num_cp_queues : 0);
	if (gpu) {
		u32p(b, "max_engine_clk_fcompute", t->max_clk_mhz);
		u64p(b, "local_mem_size", 0);
		u32p(b, "fw_version", t->fw_version);
		u32p(b, "capability", sim_topology_capability(t, kfd_minor));
		u64p(b, "debug_prop", sim_topology_debug_prop(t, kfd_minor));
		u32p(b, "sdma_fw_version", t->sdma_fw_version);
		u64p(b, "unique_id", n->g->unique_id);
		u32p(b, "num_xcc", 1);
	}
	u32p(b, "max_engine_clk_ccompute", ccompute);
}

static int write_mem_bank(const char *node_dir, uint32_t heap, uint64_t size, uint32_t width,
			  uint32_t clk)
{
	char dir[PATH_MAX];
	struct sbuf b = {.len = 0};
	int r;

	snprintf(dir, sizeof(dir), "%s/mem_banks/0", node_dir);
	r = mkdirs(dir);
	if (r)
		return r;
	u32p(&b, "heap_type", heap);
	u64p(&b, "size_in_bytes", size);
	u32p(&b, "flags", 0);
	u32p(&b, "width", width);
	u32p(&b, "mem_clk_max", clk);
	return write_sb(dir, "properties", &b);
}

static int write_cache(const char *node_dir, unsigned idx, uint32_t proc_id, uint32_t level,
		       uint32_t size_kb, uint32_t type, unsigned siblings)
{
	char dir[PATH_MAX];
	struct sbuf b = {.len = 0};
	int r;

	snprintf(dir, sizeof(dir), "%s/caches/%u", node_dir, idx);
	r = mkdirs(dir);
	if (r)
		return r;
	u32p(&b, "processor_id_low", proc_id);
	u32p(&b, "level", level);
	u32p(&b, "size", size_kb);
	u32p(&b, "cache_line_size", level == 1 ? 64 : 128);
	u32p(&b, "cache_lines_per_tag", 1);
	u32p(&b, "association", 16);
	u32p(&b, "latency", 1);
	u32p(&b, "type", type);
	sb_add(&b, "sibling_map ");
	for (unsigned i = 0; i < 32; i++)
		sb_add(&b, "%d%c", i < siblings ? 1 : 0, i == 31 ? '\n' : ',');
	return write_sb(dir, "properties", &b);
}

/* kfd_set_recommended_sdma_engines outside 8-socket MI300 hives: a
 * GPU <-> CPU link recommends every ordinary SDMA engine of the GPU (ids
 * 0 .. num_sdma - 1), on the GPU's link and on the CPU's link back. */
static uint32_t rec_sdma_mask(const struct sim_target *t)
{
	return t->num_sdma >= 32 ? ~0u : (1u << t->num_sdma) - 1;
}

/* The property exists from KFD 1.17 on (it came with SDMA_BY_ENG_ID). */
static int write_io_link(const char *node_dir, unsigned idx, uint32_t from, uint32_t to,
			 const struct sim_gpu *gpu, uint32_t kfd_minor)
{
	char dir[PATH_MAX];
	struct sbuf b = {.len = 0};
	int r;

	snprintf(dir, sizeof(dir), "%s/io_links/%u", node_dir, idx);
	r = mkdirs(dir);
	if (r)
		return r;
	u32p(&b, "type", HSA_IOLINK_TYPE_PCIEXPRESS);
	u32p(&b, "version_major", 0);
	u32p(&b, "version_minor", 0);
	u32p(&b, "node_from", from);
	u32p(&b, "node_to", to);
	u32p(&b, "weight", 20);
	u32p(&b, "min_latency", 0);
	u32p(&b, "max_latency", 0);
	u32p(&b, "min_bandwidth", 312);
	u32p(&b, "max_bandwidth", 31508);
	u32p(&b, "recommended_transfer_size", 0);
	if (kfd_minor >= 17)
		u32p(&b, "recommended_sdma_engine_id_mask", rec_sdma_mask(gpu->t));
	u32p(&b, "flags", 1);
	return write_sb(dir, "properties", &b);
}

int sim_topology_write(struct kfdsim *sim)
{
	char topo[PATH_MAX], node[PATH_MAX + 32], sub[PATH_MAX + 64];
	struct sbuf b = {.len = 0};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);
	uint32_t mhz = cpu_max_mhz();
	int r;

	if (ncpu < 1)
		ncpu = 1;
	if (snprintf(topo, sizeof(topo), "%s%s", sim->root, TOPO_SUBDIR) >= (int)sizeof(topo))
		return -ENAMETOOLONG;
	r = mkdirs(topo);
	if (r)
		return r;
	u64p(&b, "platform_oem", 0);
	u64p(&b, "platform_id", 0);
	u64p(&b, "platform_rev", 0);
	r = write_sb(topo, "system_properties", &b);
	if (!r)
		r = write_file(topo, "generation_id", "1\n", 2);
	if (r)
		return r;

	for (unsigned n = 0; n <= sim->ngpus && !r; n++) {
		struct node_props np = {0};
		const struct sim_gpu *g = n ? &sim->gpus[n - 1] : NULL;
		char line[64];

		snprintf(node, sizeof(node), "%s/nodes/%u", topo, n);
		r = mkdirs(node);
		if (r)
			break;
		snprintf(sub, sizeof(sub), "%s/p2p_links", node);
		r = mkdirs(sub);
		if (!r && !g) {
			snprintf(sub, sizeof(sub), "%s/caches", node);
			r = mkdirs(sub);
		}
		if (r)
			break;
		snprintf(line, sizeof(line), "%u\n", g ? g->gpu_id : 0);
		r = write_file(node, "gpu_id", line, strlen(line));
		if (!r) {
			snprintf(line, sizeof(line), "%s\n", g ? g->t->asic : "");
			r = write_file(node, "name", line, strlen(line));
		}
		if (r)
			break;
		np.g = g;
		np.t = g ? g->t : NULL;
		np.mem_banks = 1;
		if (g) {
			np.simd = g->t->cu_count * g->t->simd_per_cu;
			np.caches = 2;
			np.io_links = 1;
			np.simd_id_base = 0x80001000u + 0x1000u * g->index;
			np.render_minor = 128 + g->index;
		} else {
			np.cpu_cores = (uint32_t)ncpu;
			np.io_links = sim->ngpus;
		}
		b.len = 0;
		node_properties(&b, &np, mhz, sim->cfg.kfd_minor);
		r = write_sb(node, "properties", &b);
		if (r)
			break;
		if (g) {
			r = write_mem_bank(node, HSA_MEM_HEAP_TYPE_FB_PUBLIC, sim->cfg.vram_size,
					   g->t->vram_width, g->t->vram_clk_mhz);
			if (!r)
				r = write_cache(node, 0, np.simd_id_base, 1, g->t->l1_kb,
						HSA_CACHE_TYPE_DATA | HSA_CACHE_TYPE_HSACU, 1);
			if (!r)
				r = write_cache(node, 1, np.simd_id_base, 2, g->t->l2_kb,
						HSA_CACHE_TYPE_DATA | HSA_CACHE_TYPE_HSACU,
						g->t->cu_count < 32 ? g->t->cu_count : 32);
			if (!r)
				r = write_io_link(node, 0, n, 0, g, sim->cfg.kfd_minor);
		} else {
			r = write_mem_bank(node, HSA_MEM_HEAP_TYPE_SYSTEM,
					   (uint64_t)(pages > 0 ? pages : 0) *
					       (uint64_t)(psize > 0 ? psize : 4096),
					   64, 0);
			for (unsigned k = 0; k < sim->ngpus && !r; k++)
				r = write_io_link(node, k, 0, k + 1, &sim->gpus[k],
						  sim->cfg.kfd_minor);
		}
	}
	return r;
}
