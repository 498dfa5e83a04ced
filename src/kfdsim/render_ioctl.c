// SPDX-License-Identifier: MIT
/*
 * DRM and amdgpu ioctls on kfdsim render fds: the subset libdrm_amdgpu's
 * amdgpu_device_initialize / amdgpu_query_gpu_info and ROCr issue
 * (DRM_IOCTL_VERSION, GET_CLIENT, GET_CAP, AMDGPU_INFO). Every answer is
 * derived from the same target table and configuration as the KFD topology,
 * so both views of a GPU agree. kfdsim builds without libdrm, so the UAPI
 * layouts are written here from the documented ABI; the conformance test
 * compiles against libdrm's headers and checks the sizes agree.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/ioctl.h>

#include "sim_priv.h"

/* ---- DRM core UAPI (drm.h) ---- */
struct rsim_drm_version {
	int version_major;
	int version_minor;
	int version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct rsim_drm_client {
	int idx;
	int auth;
	unsigned long pid;
	unsigned long uid;
	unsigned long magic;
	unsigned long iocs;
};

struct rsim_drm_get_cap {
	uint64_t capability;
	uint64_t value;
};

#define RSIM_NR_VERSION     0x00
#define RSIM_NR_GET_CLIENT  0x05
#define RSIM_NR_GET_CAP     0x0c
#define RSIM_NR_AMDGPU_INFO (0x40 + 0x05) /* DRM_COMMAND_BASE + DRM_AMDGPU_INFO */

#define RSIM_CAP_PRIME               0x5
#define RSIM_CAP_TIMESTAMP_MONOTONIC 0x6

/* ---- amdgpu UAPI (amdgpu_drm.h) ---- */
struct rsim_amdgpu_info {
	uint64_t return_pointer;
	uint32_t return_size;
	uint32_t query;
	union {
		struct {
			uint32_t type;
			uint32_t ip_instance;
		} query_hw_ip;
		struct {
			uint32_t dword_offset;
			uint32_t count;
			uint32_t instance;
			uint32_t flags;
		} read_mmr_reg;
		struct {
			uint32_t fw_type;
			uint32_t ip_instance;
			uint32_t index;
			uint32_t pad;
		} query_fw;
	};
};
_Static_assert(sizeof(struct rsim_amdgpu_info) == 32, "drm_amdgpu_info");

#define Q_ACCEL_WORKING 0x00
#define Q_HW_IP_INFO    0x02
#define Q_HW_IP_COUNT   0x03
#define Q_FW_VERSION    0x0e
#define Q_VRAM_GTT      0x14
#define Q_READ_MMR_REG  0x15
#define Q_DEV_INFO      0x16
#define Q_MEMORY        0x19

#define HW_IP_GFX     0
#define HW_IP_COMPUTE 1
#define HW_IP_DMA     2
#define HW_IP_NUM     9

#define FW_GFX_MEC 0x08
#define FW_SDMA    0x0b
#define FW_MAX     0x15 /* AMDGPU_INFO_FW_TOC, highest in 2.4.114's header */

#define MMR_GB_ADDR_CONFIG 0x263e
#define MMR_MAX_COUNT      128 /* the kernel's bound on read_mmr_reg.count */

struct rsim_info_device {
	uint32_t device_id;
	uint32_t chip_rev;
	uint32_t external_rev;
	uint32_t pci_rev;
	uint32_t family;
	uint32_t num_shader_engines;
	uint32_t num_shader_arrays_per_engine;
	uint32_t gpu_counter_freq; /* kHz */
	uint64_t max_engine_clock; /* kHz */
	uint64_t max_memory_clock; /* kHz */
	uint32_t cu_active_number;
	uint32_t cu_ao_mask;
	uint32_t cu_bitmap[4][4];
	uint32_t enabled_rb_pipes_mask;
	uint32_t num_rb_pipes;
	uint32_t num_hw_gfx_contexts;
	uint32_t pad0;
	uint64_t ids_flags;
	uint64_t virtual_address_offset;
	uint64_t virtual_address_max;
	uint32_t virtual_address_alignment;
	uint32_t pte_fragment_size;
	uint32_t gart_page_size;
	uint32_t ce_ram_size;
	uint32_t vram_type;
	uint32_t vram_bit_width;
	uint32_t vce_harvest_config;
	uint32_t gc_double_offchip_lds_buf;
	uint64_t prim_buf_gpu_addr;
	uint64_t pos_buf_gpu_addr;
	uint64_t cntl_sb_buf_gpu_addr;
	uint64_t param_buf_gpu_addr;
	uint32_t prim_buf_size;
	uint32_t pos_buf_size;
	uint32_t cntl_sb_buf_size;
	uint32_t param_buf_size;
	uint32_t wave_front_size;
	uint32_t num_shader_visible_vgprs;
	uint32_t num_cu_per_sh;
	uint32_t num_tcc_blocks;
	uint32_t gs_vgt_table_depth;
	uint32_t gs_prim_buffer_depth;
	uint32_t max_gs_waves_per_vgt;
	uint32_t pad1;
	uint32_t cu_ao_bitmap[4][4];
	uint64_t high_va_offset;
	uint64_t high_va_max;
	uint32_t pa_sc_tile_steering_override;
	uint64_t tcc_disabled_mask;
};
_Static_assert(sizeof(struct rsim_info_device) == 368, "drm_amdgpu_info_device (2.4.114)");

struct rsim_hw_ip {
	uint32_t major;
	uint32_t minor;
	uint64_t capabilities_flags;
	uint32_t ib_start_alignment;
	uint32_t ib_size_alignment;
	uint32_t available_rings;
	uint32_t pad;
};

struct rsim_heap {
	uint64_t total_heap_size;
	uint64_t usable_heap_size;
	uint64_t heap_usage;
	uint64_t max_allocation;
};

/* What the render node knows beyond the KFD target table. */
struct render_model {
	const char *target;
	uint32_t family;
	uint32_t chip_rev;
	uint32_t ext_rev_base; /* external_rev = chip_rev + base */
	uint32_t pci_rev;      /* selects the marketing name in amdgpu.ids */
	uint32_t mem_clk_mhz;
	uint32_t vram_type;
	uint32_t vram_bit_width;
	uint32_t gfx_rings;
	uint32_t compute_rings;
	uint32_t gc_major, gc_minor, sdma_major, sdma_minor;
	uint32_t rb_per_se;
	uint32_t tcc_blocks;
	uint32_t ce_ram_size;
};

static const struct render_model models[] = {
    /* Aldebaran: no graphics rings, HBM2e; pci_rev 0x02 names MI210 */
    {"gfx90a", 141, 0, 0x3c, 0x02, 1600, 6, 4096, 0, 8, 9, 4, 4, 4, 4, 16, 0},
    /* Sienna Cichlid: pci_rev 0xc0 names RX 6900 XT */
    {"gfx1030", 143, 0, 0x28, 0xc0, 2000, 9, 256, 1, 8, 10, 3, 5, 2, 4, 16, 0x8000},
};

static const struct render_model *model_of(const struct sim_target *t)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].target, t->name))
			return &models[i];
	return NULL;
}

/* The VM size (max_pfn pages) and GMC hole; the reserved ends are
 * sim_va_reserved_bottom/top (render_gem.c). */
#define VM_SIZE    (1ULL << 48)
#define HOLE_START 0x0000800000000000ULL
#define HOLE_END   0xffff800000000000ULL

static uint32_t low_bits(uint32_t n)
{
	return n >= 32 ? UINT32_MAX : (1u << n) - 1;
}

static void fill_dev_info(struct kfdsim *sim, const struct sim_gpu *g, const struct render_model *m,
			  struct rsim_info_device *d)
{
	const struct sim_target *t = g->t;
	uint32_t se = t->array_count / t->simd_arrays_per_engine;
	uint32_t sh = t->simd_arrays_per_engine;
	uint32_t per_sh = t->cu_count / t->array_count, extra = t->cu_count % t->array_count;
	uint64_t vm_size = VM_SIZE - sim_va_reserved_top(sim);

	memset(d, 0, sizeof(*d));
	d->device_id = t->device_id;
	d->chip_rev = m->chip_rev;
	d->external_rev = m->chip_rev + m->ext_rev_base;
	d->pci_rev = m->pci_rev;
	d->family = m->family;
	d->num_shader_engines = se;
	d->num_shader_arrays_per_engine = sh;
	d->gpu_counter_freq = (uint32_t)(SIM_GPU_CLOCK_HZ / 1000);
	d->max_engine_clock = (uint64_t)t->max_clk_mhz * 1000;
	d->max_memory_clock = (uint64_t)m->mem_clk_mhz * 1000;
	d->cu_active_number = t->cu_count;
	/* CUs spread evenly over the shader arrays; SEs 4..7 use columns 2..3
	 * of the 4x4 bitmap as the kernel lays it out for 8-SE parts. */
	for (uint32_t i = 0, n = 0; i < se; i++) {
		for (uint32_t j = 0; j < sh; j++, n++) {
			uint32_t cus = per_sh + (n < extra ? 1 : 0);
			uint32_t col = j + (i / 4) * sh;

			if (col > 3)
				continue;
			d->cu_bitmap[i % 4][col] = low_bits(cus);
			d->cu_ao_bitmap[i % 4][col] = low_bits(cus);
			if (i < 2 && j < 2)
				d->cu_ao_mask |= (low_bits(cus) & 0xff) << (i * 16 + j * 8);
		}
	}
	d->num_rb_pipes = se * m->rb_per_se;
	d->enabled_rb_pipes_mask = low_bits(d->num_rb_pipes);
	d->num_hw_gfx_contexts = 8;
	d->virtual_address_offset = sim_va_reserved_bottom(sim);
	d->virtual_address_max = vm_size < HOLE_START ? vm_size : HOLE_START;
	d->virtual_address_alignment = SIM_PAGE_SIZE;
	d->pte_fragment_size = 1u << 21;
	d->gart_page_size = SIM_PAGE_SIZE;
	d->ce_ram_size = m->ce_ram_size;
	d->vram_type = m->vram_type;
	d->vram_bit_width = m->vram_bit_width;
	d->wave_front_size = t->wave_front_size;
	d->num_shader_visible_vgprs = 256;
	d->num_cu_per_sh = t->cu_per_simd_array;
	d->num_tcc_blocks = m->tcc_blocks;
	d->high_va_offset = HOLE_END;
	d->high_va_max = HOLE_END | vm_size;
}

static int fill_hw_ip(const struct sim_gpu *g, const struct render_model *m, uint32_t type,
		      struct rsim_hw_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	switch (type) {
	case HW_IP_GFX:
		if (!m->gfx_rings)
			break;
		ip->major = m->gc_major;
		ip->minor = m->gc_minor;
		ip->ib_start_alignment = 32;
		ip->ib_size_alignment = 32;
		ip->available_rings = low_bits(m->gfx_rings);
		break;
	case HW_IP_COMPUTE:
		ip->major = m->gc_major;
		ip->minor = m->gc_minor;
		ip->ib_start_alignment = 32;
		ip->ib_size_alignment = 32;
		ip->available_rings = low_bits(m->compute_rings);
		break;
	case HW_IP_DMA:
		ip->major = m->sdma_major;
		ip->minor = m->sdma_minor;
		ip->ib_start_alignment = 256;
		ip->ib_size_alignment = 4;
		ip->available_rings = low_bits(g->t->num_sdma);
		break;
	default:
		/* multimedia blocks are not modelled: no rings */
		break;
	}
	return 0;
}

static uint32_t hw_ip_count(const struct sim_gpu *g, const struct render_model *m, uint32_t type)
{
	switch (type) {
	case HW_IP_GFX:
		return m->gfx_rings ? 1 : 0;
	case HW_IP_COMPUTE:
		return 1;
	case HW_IP_DMA:
		return g->t->num_sdma;
	default:
		return 0;
	}
}

static void fill_heap(struct rsim_heap *h, uint64_t total, uint64_t used)
{
	h->total_heap_size = total;
	h->usable_heap_size = total;
	h->heap_usage = used;
	h->max_allocation = total / 4 * 3;
}

/* Copy at most the answer's size, as the kernel does (min of both). */
static int answer(const struct rsim_amdgpu_info *in, const void *data, size_t len)
{
	size_t n = in->return_size < len ? in->return_size : len;

	return sim_copy_to_user(in->return_pointer, data, n) ? -EFAULT : 0;
}

static int amdgpu_info(struct kfdsim *sim, const struct sim_gpu *g, struct rsim_amdgpu_info *in)
{
	const struct render_model *m = model_of(g->t);

	if (!m)
		return -ENODEV;
	if (!in->return_pointer || !in->return_size)
		return -EINVAL;

	switch (in->query) {
	case Q_ACCEL_WORKING: {
		uint32_t v = 1;

		return answer(in, &v, sizeof(v));
	}
	case Q_DEV_INFO: {
		struct rsim_info_device d;

		fill_dev_info(sim, g, m, &d);
		return answer(in, &d, sizeof(d));
	}
	case Q_READ_MMR_REG: {
		uint32_t regs[MMR_MAX_COUNT];
		uint32_t count = in->read_mmr_reg.count;

		if (count > MMR_MAX_COUNT)
			return -EINVAL;
		memset(regs, 0, sizeof(regs));
		/* the kernel's per-ASIC whitelist; kfdsim models only the
		 * register libdrm reads on gfx9 and later */
		for (uint32_t i = 0; i < count; i++) {
			if ((uint64_t)in->read_mmr_reg.dword_offset + i != MMR_GB_ADDR_CONFIG)
				return -EFAULT;
			regs[i] = g->t->gb_addr_config;
		}
		return answer(in, regs, (size_t)count * 4);
	}
	case Q_VRAM_GTT: {
		uint64_t v[3] = {sim->cfg.vram_size, sim->cfg.vram_size, sim->cfg.gtt_size};

		return answer(in, v, sizeof(v));
	}
	case Q_MEMORY: {
		struct rsim_heap h[3];
		uint64_t vram_used, gtt_used;

		pthread_mutex_lock(&sim->lock);
		vram_used = g->vram_used;
		gtt_used = sim->gtt_used;
		pthread_mutex_unlock(&sim->lock);
		memset(h, 0, sizeof(h));
		fill_heap(&h[0], sim->cfg.vram_size, vram_used);
		fill_heap(&h[1], sim->cfg.vram_size, vram_used);
		fill_heap(&h[2], sim->cfg.gtt_size, gtt_used);
		return answer(in, h, sizeof(h));
	}
	case Q_FW_VERSION: {
		uint32_t fw[2] = {0, 0};
		uint32_t type = in->query_fw.fw_type, idx = in->query_fw.index;

		if (in->query_fw.ip_instance != 0 || type == 0 || type > FW_MAX)
			return -EINVAL;
		if (type == FW_GFX_MEC) {
			if (idx > 1)
				return -EINVAL;
			fw[0] = g->t->fw_version;
		} else if (type == FW_SDMA) {
			if (idx >= g->t->num_sdma)
				return -EINVAL;
			fw[0] = g->t->sdma_fw_version;
		}
		return answer(in, fw, sizeof(fw));
	}
	case Q_HW_IP_INFO: {
		struct rsim_hw_ip ip;

		if (in->query_hw_ip.type >= HW_IP_NUM || in->query_hw_ip.ip_instance != 0)
			return -EINVAL;
		fill_hw_ip(g, m, in->query_hw_ip.type, &ip);
		return answer(in, &ip, sizeof(ip));
	}
	case Q_HW_IP_COUNT: {
		uint32_t n;

		if (in->query_hw_ip.type >= HW_IP_NUM)
			return -EINVAL;
		n = hw_ip_count(g, m, in->query_hw_ip.type);
		return answer(in, &n, sizeof(n));
	}
	default:
		return -EINVAL;
	}
}

/* drm_copy_field: report the full length, copy what fits, no NUL. */
static int copy_field(char *ubuf, size_t *ulen, const char *value)
{
	size_t len = *ulen, vlen = strlen(value);

	*ulen = vlen;
	if (len > vlen)
		len = vlen;
	if (len && ubuf && sim_copy_to_user((uint64_t)(uintptr_t)ubuf, value, len))
		return -EFAULT;
	return 0;
}

static int drm_version(struct rsim_drm_version *v)
{
	int r;

	v->version_major = 3;
	v->version_minor = 49; /* amdgpu in Linux 6.1 */
	v->version_patchlevel = 0;
	r = copy_field(v->name, &v->name_len, "amdgpu");
	if (!r)
		r = copy_field(v->date, &v->date_len, "20150101");
	if (!r)
		r = copy_field(v->desc, &v->desc_len, "AMD GPU");
	return r;
}

static int drm_get_client(struct rsim_drm_client *c)
{
	if (c->idx != 0)
		return -EINVAL;
	/* render-node clients need no authentication */
	c->auth = 1;
	c->pid = (unsigned long)getpid();
	c->uid = 65534; /* the kernel reports overflowuid */
	c->magic = 0;
	c->iocs = 0;
	return 0;
}

static int drm_get_cap(struct rsim_drm_get_cap *c)
{
	switch (c->capability) {
	case RSIM_CAP_TIMESTAMP_MONOTONIC:
		c->value = 1;
		return 0;
	case RSIM_CAP_PRIME:
		/* DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT (render_gem.c) */
		c->value = 3;
		return 0;
	default:
		return -EINVAL;
	}
}

int sim_render_ioctl(struct kfdsim *sim, struct sim_render *rd, unsigned long request, void *arg)
{
	union {
		struct rsim_drm_version version;
		struct rsim_drm_client client;
		struct rsim_drm_get_cap cap;
		struct rsim_amdgpu_info info;
		uint64_t gem[8]; /* render_gem.c's argument structs */
	} k;
	unsigned gpu = rd->gpu;
	unsigned nr = _IOC_NR(request), udir = _IOC_DIR(request), kdir;
	size_t usize = _IOC_SIZE(request), ksize, n;
	int r;

	if (gpu >= sim->ngpus)
		return -ENODEV;
	_Static_assert(sizeof(k.gem) >= 40, "GEM argument space");
	if (_IOC_TYPE(request) != 'd')
		return -ENOTTY;
	switch (nr) {
	case RSIM_NR_VERSION:
		ksize = sizeof(k.version);
		kdir = _IOC_READ | _IOC_WRITE;
		break;
	case RSIM_NR_GET_CLIENT:
		ksize = sizeof(k.client);
		kdir = _IOC_READ | _IOC_WRITE;
		break;
	case RSIM_NR_GET_CAP:
		ksize = sizeof(k.cap);
		kdir = _IOC_READ | _IOC_WRITE;
		break;
	case RSIM_NR_AMDGPU_INFO:
		ksize = sizeof(k.info);
		kdir = _IOC_WRITE;
		break;
	case SIM_RNR_GEM_CLOSE:
	case SIM_RNR_GEM_VA:
		ksize = sim_render_gem_arg_size(nr);
		kdir = _IOC_WRITE;
		break;
	case SIM_RNR_PRIME_HANDLE_TO_FD:
	case SIM_RNR_PRIME_FD_TO_HANDLE:
	case SIM_RNR_GEM_CREATE:
	case SIM_RNR_GEM_MMAP:
		ksize = sim_render_gem_arg_size(nr);
		kdir = _IOC_READ | _IOC_WRITE;
		break;
	default:
		/* drm_ioctl answers unknown numbers with -EINVAL */
		return -EINVAL;
	}
	/* as drm_ioctl: copy in/out only in directions both sides declare,
	 * zero-extend a shorter user struct, ignore a longer one's tail */
	memset(&k, 0, sizeof(k));
	n = usize < ksize ? usize : ksize;
	if ((udir & kdir & _IOC_WRITE) && sim_copy_from_user(&k, (uint64_t)(uintptr_t)arg, n))
		return -EFAULT;

	switch (nr) {
	case RSIM_NR_VERSION:
		r = drm_version(&k.version);
		break;
	case RSIM_NR_GET_CLIENT:
		r = drm_get_client(&k.client);
		break;
	case RSIM_NR_GET_CAP:
		r = drm_get_cap(&k.cap);
		break;
	case RSIM_NR_AMDGPU_INFO:
		r = amdgpu_info(sim, &sim->gpus[gpu], &k.info);
		break;
	default:
		r = sim_render_gem_ioctl(sim, rd, nr, &k);
		break;
	}
	if (!r && (udir & kdir & _IOC_READ) && sim_copy_to_user((uint64_t)(uintptr_t)arg, &k, n))
		r = -EFAULT;
	return r;
}
