// SPDX-License-Identifier: MIT
/* kfdsim conformance: CREATE/DESTROY/UPDATE_QUEUE argument checks,
 * doorbell offsets, SDMA limits, SET_CU_MASK, ALLOC_QUEUE_GWS, latches,
 * and a queue actually served by the engine. */
#include <pthread.h>

#include "sim_fixture.h"

#define GTT_W    (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)
#define TOPO_DIR "/sys/devices/virtual/kfd/kfd/topology"

struct qbufs {
	uint64_t ring, rptr, wptr;
	uint64_t ring_h, ptr_h;
	uint8_t *cpu; /* CPU view of ring (64 KiB) + pointers page */
};

static uint64_t map_bo(struct fx *f, uint64_t va, uint64_t size, uint64_t *handle)
{
	uint64_t off = 0;
	uint32_t ids[1] = {f->gpu_id[0]};
	void *p;

	assert_int_equal(fx_alloc(f, 0, GTT_W, va, size, handle, &off), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, *handle, ids, 1, NULL), 0);
	p = f->ops->mmap(f->sim, (void *)(uintptr_t)va, size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, f->rfd[0], (off_t)off);
	assert_ptr_equal(p, (void *)(uintptr_t)va);
	return va;
}

/* A 64 KiB ring BO and, right behind it, a one-page BO holding rptr/wptr
 * (like ROCr's amd_queue_t), both mapped on GPU 0. */
static void make_bufs(struct fx *f, struct qbufs *b)
{
	uint64_t va = fx_va(f, 65536 + 4096);

	b->ring = map_bo(f, va, 65536, &b->ring_h);
	map_bo(f, va + 65536, 4096, &b->ptr_h);
	b->cpu = (uint8_t *)(uintptr_t)va;
	b->rptr = va + 65536 + 0x80;
	b->wptr = va + 65536 + 0x38;
}

static void qargs(struct fx *f, const struct qbufs *b, struct vkfd_kfd_create_queue_args *q,
		  uint32_t type)
{
	memset(q, 0, sizeof(*q));
	q->base.ring_base_address = b->ring;
	q->base.ring_size = 65536;
	q->base.read_pointer_address = b->rptr;
	q->base.write_pointer_address = b->wptr;
	q->base.gpu_id = f->gpu_id[0];
	q->base.queue_type = type;
	q->base.queue_percentage = 100;
	q->base.queue_priority = 7;
}

static int create_q(struct fx *f, struct vkfd_kfd_create_queue_args *q)
{
	return fx_ioctl(f, AMDKFD_IOC_CREATE_QUEUE, &q->base);
}

static int destroy_q(struct fx *f, uint32_t id)
{
	struct kfd_ioctl_destroy_queue_args d = {.queue_id = id};

	return fx_ioctl(f, AMDKFD_IOC_DESTROY_QUEUE, &d);
}

static void test_create_queue_checks(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b;

	(void)state;
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	q.base.queue_percentage = 101;
	assert_int_equal(create_q(f, &q), -EINVAL);
	/* only the low byte is the percentage */
	q.base.queue_percentage = 0x0164;
	q.base.queue_priority = 16;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.queue_priority = 15;
	q.base.ring_size = 3000;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.ring_size = 65536;
	q.base.queue_type = 7;
	assert_int_equal(create_q(f, &q), -VKFD_KFD_ENOTSUPP);
	q.base.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	q.base.read_pointer_address = 0x7ffffffffffeULL;
	assert_int_equal(create_q(f, &q), -EFAULT);
	q.base.read_pointer_address = b.rptr;
	q.base.eop_buffer_address = ~0ULL;
	assert_int_equal(create_q(f, &q), -EFAULT);
	q.base.eop_buffer_address = 0;
	q.base.ctx_save_restore_address = 1ULL << 60;
	assert_int_equal(create_q(f, &q), -EFAULT);
	q.base.ctx_save_restore_address = 0;
	q.base.gpu_id = 0;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.gpu_id = f->gpu_id[0];
	/* KFD 1.17 (kfd_queue_acquire_buffers): unmapped pointers and rings */
	q.base.write_pointer_address = fx_va(f, 4096);
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.write_pointer_address = b.wptr;
	q.base.ring_size = 1u << 20;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.ring_size = 65536;
	q.base.ring_base_address = b.ring + 4096;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.ring_base_address = b.ring;
	/* EOP (compute): the node's 4 KiB size */
	q.base.eop_buffer_address = b.rptr & ~4095ULL;
	q.base.eop_buffer_size = 8192;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.eop_buffer_size = 4096;
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(destroy_q(f, q.base.queue_id), 0);
	q.base.eop_buffer_address = 0;
	q.base.eop_buffer_size = 0;
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(q.base.queue_id, 0);
	assert_int_equal(q.base.doorbell_offset, (3ULL << 62) | ((uint64_t)f->gpu_id[0] << 46));
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(q.base.queue_id, 1);
	assert_int_equal(q.base.doorbell_offset & 0x1fff, 8);
	/* queue buffers cannot be unmapped while a queue uses them */
	{
		uint32_t ids[1] = {f->gpu_id[0]};

		assert_int_equal(
		    fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, b.ring_h, ids, 1, NULL), -EBUSY);
		assert_int_equal(destroy_q(f, 0), 0);
		assert_int_equal(
		    fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, b.ring_h, ids, 1, NULL), -EBUSY);
		assert_int_equal(destroy_q(f, 1), 0);
		assert_int_equal(
		    fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, b.ring_h, ids, 1, NULL), 0);
		assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, b.ptr_h, ids, 1, NULL),
				 0);
	}
	fx_free(f);
}

/* 6.12's exact mapping sizes (default) and VKFDSIM_QUEUE_BUFFERS=contain. */
static void test_exact_queue_buffers(void **state)
{
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b;
	struct fx *f;

	(void)state;
	/* VKFDSIM_QUEUE_BUFFERS=contain only wants containment: pointers
	 * inside the ring BO */
	setenv("VKFDSIM_QUEUE_BUFFERS", "contain", 1);
	f = fx_new(NULL, true);
	unsetenv("VKFDSIM_QUEUE_BUFFERS");
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	q.base.write_pointer_address = b.ring + 0x38;
	q.base.ring_size = 32768;
	assert_int_equal(create_q(f, &q), 0);
	fx_free(f);

	f = fx_new(NULL, true); /* exact is the default */
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	/* wptr/rptr: a one-page mapping starting at their page */
	q.base.write_pointer_address = b.ring + 0x38;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.write_pointer_address = b.wptr;
	/* the ring: a mapping of exactly the ring size */
	q.base.ring_size = 32768;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.ring_size = 65536;
	/* EOP: a mapping of exactly 4 KiB */
	q.base.eop_buffer_address = b.ring;
	q.base.eop_buffer_size = 4096;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.eop_buffer_address = b.rptr & ~4095ULL;
	assert_int_equal(create_q(f, &q), 0);
	/* SDMA queues need no EOP but the same pointer and ring rules */
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_SDMA);
	q.base.read_pointer_address = b.ring + 0x80;
	assert_int_equal(create_q(f, &q), -EINVAL);
	q.base.read_pointer_address = b.rptr;
	assert_int_equal(create_q(f, &q), 0);
	fx_free(f);
}

static void test_ring_size_clamp(void **state)
{
	struct kfdsim_config cfg;
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b;
	struct fx *f;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 11; /* no buffer checks: an unmapped ring is accepted */
	f = fx_new(&cfg, true);
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE);
	q.base.ring_size = 256;
	q.base.ring_base_address = 0x100000;
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(q.base.ring_size, KFD_MIN_QUEUE_RING_SIZE);
	q.base.ring_size = 0;
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(q.base.ring_size, KFD_MIN_QUEUE_RING_SIZE);
	fx_free(f);
}

static void test_queue_before_acquire(void **state)
{
	struct fx *f = fx_new(NULL, false);
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b = {.ring = 0x100000, .rptr = 0x200000, .wptr = 0x200008};

	(void)state;
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	assert_int_equal(create_q(f, &q), -ESRCH);
	fx_free(f);
}

static void test_destroy_update(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	struct kfd_ioctl_update_queue_args u;
	struct qbufs b;

	(void)state;
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	assert_int_equal(create_q(f, &q), 0);
	u = (struct kfd_ioctl_update_queue_args){.ring_base_address = b.ring,
						 .queue_id = q.base.queue_id,
						 .ring_size = 65536,
						 .queue_percentage = 0,
						 .queue_priority = 3};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), 0);
	u.queue_percentage = 100;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), 0);
	u.queue_percentage = 101;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.queue_percentage = 50;
	u.queue_priority = 16;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.queue_priority = 1;
	u.ring_size = 1000;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.ring_size = 32768; /* exact: the ring's mapping is 64 KiB */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
	u.ring_size = 65536;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), 0);
	/* a new ring must be mapped; the queue's reference moves to it */
	{
		uint32_t ids[1] = {f->gpu_id[0]};
		uint64_t h2, ring2 = map_bo(f, fx_va(f, 65536), 65536, &h2);

		u.ring_base_address = fx_va(f, 65536);
		assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), -EINVAL);
		u.ring_base_address = ring2;
		assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), 0);
		assert_int_equal(fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h2, ids, 1, NULL),
				 -EBUSY);
		assert_int_equal(
		    fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, b.ring_h, ids, 1, NULL), 0);
		q.base.ring_base_address = ring2; /* for the re-create below */
	}
	/* unknown queue: pqm_update_queue_properties answers -EFAULT */
	u.queue_id = 55;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_UPDATE_QUEUE, &u), -EFAULT);
	assert_int_equal(destroy_q(f, 55), -EINVAL);
	assert_int_equal(destroy_q(f, 5000), -EINVAL);
	assert_int_equal(destroy_q(f, q.base.queue_id), 0);
	assert_int_equal(destroy_q(f, q.base.queue_id), -EINVAL);
	/* the id and doorbell are free again */
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(q.base.queue_id, 0);
	assert_int_equal(q.base.doorbell_offset & 0x1fff, 0);
	fx_free(f);
}

static void test_sdma_queues(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b;
	unsigned n = 0;

	(void)state;
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_SDMA);
	assert_int_equal(create_q(f, &q), 0);
	/* SDMA doorbells come from the reserved block 0x0E0.. of the slice */
	assert_int_equal((q.base.doorbell_offset & 0x1fff) / 8, 0xe0);
	n = 1;
	while (create_q(f, &q) == 0)
		n++;
	/* gfx90a model: 2 engines x 8 queues */
	assert_int_equal(n, 16);
	assert_int_equal(create_q(f, &q), -ENOMEM);
	assert_int_equal(destroy_q(f, 3), 0);
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(q.base.queue_id, 3);
	fx_free(f);
}

/* Create a queue by engine id; its id in *id. */
static int create_on(struct fx *f, const struct qbufs *b, uint32_t engine, uint32_t *id)
{
	struct vkfd_kfd_create_queue_args q;
	int r;

	qargs(f, b, &q, KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID);
	q.sdma_engine_id = engine;
	r = fx_ioctl(f, VKFD_KFD_IOC_CREATE_QUEUE, &q);
	if (!r && id)
		*id = q.base.queue_id;
	return r;
}

static int create_type(struct fx *f, const struct qbufs *b, uint32_t type)
{
	struct vkfd_kfd_create_queue_args q;

	qargs(f, b, &q, type);
	return fx_ioctl(f, VKFD_KFD_IOC_CREATE_QUEUE, &q);
}

/* CREATE_QUEUE type 4 (KFD 1.17) on gfx90a: engines 0-1 are ordinary SDMA
 * engines, 2-4 xGMI ones, 8 queues each (kfd_device_queue_manager.c's
 * allocate_sdma_queue, kfd_chardev.c's engine id check). */
static void test_sdma_by_engine_id(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct qbufs b;
	uint32_t ids[8], id;

	(void)state;
	make_bufs(f, &b);
	/* engines the GPU does not have */
	assert_int_equal(create_on(f, &b, 5, NULL), -EINVAL);
	assert_int_equal(create_on(f, &b, 0xffffffffu, NULL), -EINVAL);
	/* engine 1: eight queues, then full, though engine 0 has room */
	for (int i = 0; i < 8; i++)
		assert_int_equal(create_on(f, &b, 1, &ids[i]), 0);
	assert_int_equal(create_on(f, &b, 1, NULL), -ENOMEM);
	for (int i = 0; i < 8; i++)
		assert_int_equal(create_on(f, &b, 0, NULL), 0);
	assert_int_equal(create_on(f, &b, 0, NULL), -ENOMEM);
	/* they count as ordinary SDMA queues: that class is full now */
	assert_int_equal(create_type(f, &b, KFD_IOC_QUEUE_TYPE_SDMA), -ENOMEM);
	/* a freed engine-1 slot goes to the next plain SDMA queue */
	assert_int_equal(destroy_q(f, ids[3]), 0);
	assert_int_equal(create_type(f, &b, KFD_IOC_QUEUE_TYPE_SDMA), 0);
	assert_int_equal(create_on(f, &b, 1, NULL), -ENOMEM);
	assert_int_equal(destroy_q(f, ids[5]), 0);
	assert_int_equal(create_on(f, &b, 1, &id), 0);

	/* xGMI engine 2: its own eight, counted in the xGMI class */
	for (int i = 0; i < 8; i++)
		assert_int_equal(create_on(f, &b, 2, NULL), 0);
	assert_int_equal(create_on(f, &b, 2, NULL), -ENOMEM);
	for (int i = 0; i < 16; i++)
		assert_int_equal(create_type(f, &b, KFD_IOC_QUEUE_TYPE_SDMA_XGMI), 0);
	assert_int_equal(create_type(f, &b, KFD_IOC_QUEUE_TYPE_SDMA_XGMI), -ENOMEM);
	assert_int_equal(create_on(f, &b, 4, NULL), -ENOMEM);
	fx_free(f);
}

/* gfx1030 has four ordinary engines and no xGMI ones; a KFD older than
 * 1.17 does not know type 4 at all. */
static void test_sdma_by_engine_id_limits(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f;
	struct qbufs b;

	(void)state;
	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "gfx1030");
	f = fx_new(&cfg, true);
	make_bufs(f, &b);
	assert_int_equal(create_on(f, &b, 4, NULL), -EINVAL);
	for (int i = 0; i < 8; i++)
		assert_int_equal(create_on(f, &b, 3, NULL), 0);
	assert_int_equal(create_on(f, &b, 3, NULL), -ENOMEM);
	assert_int_equal(create_on(f, &b, 2, NULL), 0);
	fx_free(f);

	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 16;
	f = fx_new(&cfg, true);
	make_bufs(f, &b);
	assert_int_equal(create_on(f, &b, 0, NULL), -VKFD_KFD_ENOTSUPP);
	fx_free(f);
}

/* The SDMA properties that go with type 4, as the kernel reports them:
 * engine counts per class, queues per engine (kfd_device.c: 8 on SDMA 4.4
 * and 5.2.0), and each GPU <-> CPU link recommending the GPU's ordinary
 * engines (kfd_set_recommended_sdma_engines), on both link directions;
 * not reported before KFD 1.17. */
static void check_sdma_props(const char *target, uint32_t minor, unsigned long long sdma,
			     unsigned long long xgmi)
{
	struct kfdsim_config cfg;
	char path[512];
	unsigned long long v;
	const char *root;
	struct fx *f;

	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "%s", target);
	cfg.kfd_minor = minor;
	f = fx_new(&cfg, false);
	root = f->ops->sysfs_root(f->sim);
	snprintf(path, sizeof(path), "%s%s/nodes/1/properties", root, TOPO_DIR);
	assert_int_equal(fx_prop(path, "num_sdma_engines", &v), 0);
	assert_int_equal(v, sdma);
	assert_int_equal(fx_prop(path, "num_sdma_xgmi_engines", &v), 0);
	assert_int_equal(v, xgmi);
	assert_int_equal(fx_prop(path, "num_sdma_queues_per_engine", &v), 0);
	assert_int_equal(v, 8);
	for (unsigned node = 0; node < 2; node++) {
		snprintf(path, sizeof(path), "%s%s/nodes/%u/io_links/0/properties", root, TOPO_DIR,
			 node);
		if (minor < 17) {
			assert_int_equal(fx_prop(path, "recommended_sdma_engine_id_mask", &v),
					 -ENOENT);
			continue;
		}
		assert_int_equal(fx_prop(path, "recommended_sdma_engine_id_mask", &v), 0);
		assert_int_equal(v, (1ull << sdma) - 1);
	}
	fx_free(f);
}

static void test_sdma_topology(void **state)
{
	(void)state;
	check_sdma_props("gfx90a", 17, 2, 3);
	check_sdma_props("gfx1030", 17, 4, 0);
	check_sdma_props("gfx90a", 16, 2, 3);
}

static void test_cu_mask_and_gws(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q, q2;
	struct kfd_ioctl_set_cu_mask_args cm;
	struct kfd_ioctl_alloc_queue_gws_args g;
	uint32_t mask[40];
	struct qbufs b;

	(void)state;
	memset(mask, 0xff, sizeof(mask));
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	assert_int_equal(create_q(f, &q), 0);
	q2 = q;
	assert_int_equal(create_q(f, &q2), 0);
	cm = (struct kfd_ioctl_set_cu_mask_args){
	    .queue_id = q.base.queue_id, .num_cu_mask = 33, .cu_mask_ptr = (uintptr_t)mask};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_CU_MASK, &cm), -EINVAL);
	cm.num_cu_mask = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_CU_MASK, &cm), -EINVAL);
	cm.num_cu_mask = 128;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_CU_MASK, &cm), 0);
	/* more than 1024 bits are cut, not refused */
	cm.num_cu_mask = 40 * 32;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_CU_MASK, &cm), 0);
	cm.cu_mask_ptr = 32;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_CU_MASK, &cm), -EFAULT);
	cm.cu_mask_ptr = (uintptr_t)mask;
	cm.queue_id = 99;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_CU_MASK, &cm), -EFAULT);

	g = (struct kfd_ioctl_alloc_queue_gws_args){.queue_id = 99, .num_gws = 1};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), -EINVAL);
	g.queue_id = q.base.queue_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), 0);
	assert_int_equal(g.first_gws, 0);
	/* one GWS queue per process and device */
	g.queue_id = q2.base.queue_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), -EBUSY);
	g.queue_id = q.base.queue_id;
	g.num_gws = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), -EINVAL);
	fx_free(f);

	/* the gfx1030 model has no GWS */
	kfdsim_config_default(&cfg);
	strcpy(cfg.target, "gfx1030");
	f = fx_new(&cfg, true);
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	assert_int_equal(create_q(f, &q), 0);
	g = (struct kfd_ioctl_alloc_queue_gws_args){.queue_id = q.base.queue_id, .num_gws = 1};
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), -ENODEV);
	fx_free(f);
}

static void test_xnack_busy_with_queue(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	struct kfd_ioctl_set_xnack_mode_args x = {.xnack_enabled = 1};
	struct qbufs b;

	(void)state;
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), -EBUSY);
	x.xnack_enabled = -1;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_SET_XNACK_MODE, &x), 0);
	fx_free(f);
}

/* AQL barrier-AND packet (header type 3), no dependencies, no signal. */
static void put_barrier(uint8_t *slot)
{
	uint16_t header = 3 | (1 << 8); /* type BARRIER_AND, barrier bit */

	memset(slot, 0, 64);
	__atomic_store_n((uint16_t *)slot, header, __ATOMIC_RELEASE);
}

static void test_engine_serves_doorbell(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b;
	uint64_t *db, *rptr, *wptr, t0;

	(void)state;
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	rptr = (uint64_t *)(b.cpu + 65536 + 0x80);
	wptr = (uint64_t *)(b.cpu + 65536 + 0x38);
	/* empty AQL slots hold type INVALID (1) */
	for (unsigned i = 0; i < 65536 / 64; i++)
		*(uint16_t *)(b.cpu + i * 64) = 1;
	assert_int_equal(create_q(f, &q), 0);
	db = f->ops->mmap(f->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
			  (off_t)(q.base.doorbell_offset & ~0x1fffULL));
	assert_true(db != MAP_FAILED);
	put_barrier(b.cpu);
	put_barrier(b.cpu + 64);
	*wptr = 2;
	__atomic_store_n(&db[(q.base.doorbell_offset & 0x1fff) / 8], 1, __ATOMIC_RELEASE);
	t0 = fx_now_ns();
	while (__atomic_load_n(rptr, __ATOMIC_ACQUIRE) < 2 && fx_now_ns() - t0 < 5000000000ULL)
		usleep(1000);
	assert_int_equal(*rptr, 2);
	assert_int_equal(destroy_q(f, q.base.queue_id), 0);
	f->ops->munmap(f->sim, db, 8192);
	fx_free(f);
}

struct latch_arg {
	struct fx *f;
	uint64_t handle;
	int ret;
};

static void *free_in_thread(void *arg)
{
	struct latch_arg *a = arg;

	a->ret = fx_free_bo(a->f, a->handle);
	return NULL;
}

static void test_latch(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct latch_arg a = {.f = f, .ret = 1};
	pthread_t t;
	uint64_t t0;

	(void)state;
	assert_int_equal(fx_alloc(f, 0, GTT_W, fx_va(f, 4096), 4096, &a.handle, NULL), 0);
	kfdsim_latch_ioctl(f->sim, 0x17);
	pthread_create(&t, NULL, free_in_thread, &a);
	t0 = fx_now_ns();
	while (kfdsim_latch_parked(f->sim, 0x17) == 0 && fx_now_ns() - t0 < 5000000000ULL)
		usleep(1000);
	assert_int_equal(kfdsim_latch_parked(f->sim, 0x17), 1);
	usleep(10000);
	assert_int_equal(__atomic_load_n(&a.ret, __ATOMIC_ACQUIRE), 1); /* still parked */
	kfdsim_latch_release(f->sim, 0x17);
	pthread_join(t, NULL);
	assert_int_equal(a.ret, 0);
	assert_int_equal(kfdsim_latch_parked(f->sim, 0x17), 0);
	fx_free(f);
}

static void test_close_with_queues(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_create_queue_args q;
	struct qbufs b;

	(void)state;
	make_bufs(f, &b);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
	assert_int_equal(create_q(f, &q), 0);
	qargs(f, &b, &q, KFD_IOC_QUEUE_TYPE_SDMA);
	assert_int_equal(create_q(f, &q), 0);
	assert_int_equal(f->ops->close(f->sim, f->kfd), 0);
	assert_int_equal(kfdsim_bytes_allocated(f->sim), 0);
	/* destroy with fds still open releases the rest (checked by ASan) */
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_queue_checks),
	    cmocka_unit_test(test_exact_queue_buffers),
	    cmocka_unit_test(test_ring_size_clamp),
	    cmocka_unit_test(test_queue_before_acquire),
	    cmocka_unit_test(test_destroy_update),
	    cmocka_unit_test(test_sdma_queues),
	    cmocka_unit_test(test_sdma_by_engine_id),
	    cmocka_unit_test(test_sdma_by_engine_id_limits),
	    cmocka_unit_test(test_sdma_topology),
	    cmocka_unit_test(test_cu_mask_and_gws),
	    cmocka_unit_test(test_xnack_busy_with_queue),
	    cmocka_unit_test(test_engine_serves_doorbell),
	    cmocka_unit_test(test_latch),
	    cmocka_unit_test(test_close_with_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
