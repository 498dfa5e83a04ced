/* SPDX-License-Identifier: MIT */
/*
 * hsa_e2e's "matrix" mode: the workload the ROCm version matrix
 * (tests/e2e/matrix) runs on every ROCm release, natively and through vkfd.
 * Included once, by hsa_e2e.c, whose helpers (copy, dispatch, make_signal,
 * wait_signal, report, the pool finders) it uses.
 *
 * Same-GPU device->device copies name the CPU agent as the source agent:
 * ROCr's same-GPU blit is a GPU kernel (kfdsim runs no GPU ISA), while a
 * copy whose source agent is the CPU goes to its SDMA engine, which copies
 * between any two GPU virtual addresses.
 */
#ifndef VKFD_HSA_MATRIX_H
#define VKFD_HSA_MATRIX_H

#define MATRIX_MAX_GPUS 2
#define MATRIX_BIG      (1ull << 30) /* the largest copy: 1 GiB */

struct matrix {
	struct ctx g[MATRIX_MAX_GPUS];
	unsigned ngpus;
	uint64_t ticks_per_s;
};

static hsa_status_t matrix_find_agents(hsa_agent_t agent, void *data)
{
	struct matrix *m = data;
	hsa_device_type_t type;

	CHECK_HSA(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
	if (type == HSA_DEVICE_TYPE_GPU && m->ngpus < MATRIX_MAX_GPUS) {
		struct ctx *c = &m->g[m->ngpus++];

		c->gpu = agent;
		c->have_gpu = true;
		CHECK_HSA(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, c->gpu_name));
	} else if (type == HSA_DEVICE_TYPE_CPU && !m->g[0].have_cpu) {
		for (unsigned i = 0; i < MATRIX_MAX_GPUS; i++) {
			m->g[i].cpu = agent;
			m->g[i].have_cpu = true;
		}
	}
	return HSA_STATUS_SUCCESS;
}

static void matrix_setup(struct matrix *m)
{
	memset(m, 0, sizeof(*m));
	CHECK_HSA(hsa_init());
	CHECK_HSA(hsa_iterate_agents(matrix_find_agents, m));
	if (!m->ngpus || !m->g[0].have_cpu) {
		fprintf(stderr, "hsa_e2e: no %s agent\n", m->ngpus ? "CPU" : "GPU");
		exit(EXIT_SETUP);
	}
	CHECK_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &m->ticks_per_s));
	for (unsigned i = 0; i < m->ngpus; i++) {
		struct ctx *c = &m->g[i];

		CHECK_HSA(hsa_amd_agent_iterate_memory_pools(c->gpu, find_gpu_pool, c));
		CHECK_HSA(hsa_amd_agent_iterate_memory_pools(c->cpu, find_cpu_pool, c));
		if (!c->have_dev || !c->have_sys || !c->have_karg) {
			fprintf(stderr, "hsa_e2e: GPU %u: missing pool\n", i);
			exit(EXIT_SETUP);
		}
		CHECK_HSA(hsa_queue_create(c->gpu, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL,
					   UINT32_MAX, UINT32_MAX, &c->queue));
		printf("hsa_e2e: GPU %u: %s\n", i, c->gpu_name);
	}
}

/* A pattern that differs for every byte offset and every seed. */
static void pattern(uint8_t *p, size_t size, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	size_t i = 0;

	for (; i + 8 <= size; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < size; i++)
		p[i] = (uint8_t)(x >> (8 * (i & 7))) ^ (uint8_t)i;
}

/* Byte-for-byte comparison; prints where it first differs. */
static bool same_bytes(const char *what, const uint8_t *want, const uint8_t *got, size_t size)
{
	size_t bad = 0, first = 0;

	if (!memcmp(want, got, size))
		return true;
	for (size_t i = 0; i < size; i++)
		if (want[i] != got[i] && !bad++)
			first = i;
	fprintf(stderr, "hsa_e2e: %s: %zu of %zu bytes wrong, the first at offset %zu\n", what, bad,
		size, first);
	return false;
}

/* A wait that must time out: the signal stays at 1. */
static bool still_pending(struct matrix *m, hsa_signal_t s)
{
	hsa_signal_value_t v = hsa_signal_wait_scacquire(
	    s, HSA_SIGNAL_CONDITION_LT, 1, m->ticks_per_s / 20, HSA_WAIT_STATE_BLOCKED);

	return v == 1;
}

struct big_bufs {
	uint8_t *src, *dst;     /* system memory */
	uint8_t *dev_a, *dev_b; /* GPU 0's VRAM */
};

static void test_copy_sizes(struct matrix *m, struct big_bufs *b, size_t max_bytes)
{
	static const struct {
		size_t size, src_off, dev_off;
	} cases[] = {
	    {1, 0, 0},
	    {3, 1, 5},
	    {4097, 0, 0},
	    {(1u << 20) + 7, 3, 1},
	    {(4u << 20) + 1, 0, 0}, /* just past the 22-bit count of one SDMA v4 packet */
	    {(64u << 20) + 3, 0, 0},
	    {MATRIX_BIG, 0, 0},
	};
	struct ctx *c = &m->g[0];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = cases[i].size, so = cases[i].src_off, doff = cases[i].dev_off;
		char what[96];
		bool ok;

		if (n > max_bytes)
			continue;
		pattern(b->src + so, n, n);
		memset(b->dst, 0x5a, n + so);
		ok = copy(c, b->dev_a + doff, c->gpu, b->src + so, c->cpu, n) &&
		     copy(c, b->dst + so, c->cpu, b->dev_a + doff, c->gpu, n);
		snprintf(what, sizeof(what), "copy h2d+d2h %zu bytes (offsets %zu/%zu)", n, so,
			 doff);
		report(what, ok && same_bytes(what, b->src + so, b->dst + so, n));

		memset(b->dst, 0xa5, n + so);
		ok = copy(c, b->dev_b + so, c->gpu, b->dev_a + doff, c->cpu, n) &&
		     copy(c, b->dst + so, c->cpu, b->dev_b + so, c->gpu, n);
		snprintf(what, sizeof(what), "copy d2d %zu bytes (offsets %zu/%zu)", n, doff, so);
		report(what, ok && same_bytes(what, b->src + so, b->dst + so, n));
	}
}

/* Put a packet whose first 4 bytes are written last, and ring the doorbell. */
static void submit(struct ctx *c, const void *body, uint16_t header, uint16_t setup)
{
	hsa_queue_t *q = c->queue;
	uint64_t idx = hsa_queue_add_write_index_relaxed(q, 1);
	uint8_t *slot;

	while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size)
		;
	slot = (uint8_t *)q->base_address + 64 * (idx & (q->size - 1));
	memcpy(slot + 4, (const uint8_t *)body + 4, 60);
	__atomic_store_n((uint32_t *)slot, (uint32_t)header | (uint32_t)setup << 16,
			 __ATOMIC_RELEASE);
	hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
}

static uint16_t header_of(hsa_packet_type_t type)
{
	return (uint16_t)(type << HSA_PACKET_HEADER_TYPE | 1 << HSA_PACKET_HEADER_BARRIER |
			  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
			  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

/* FILL_U32 of count words at dst on c's queue, completing done; not waited. */
static void submit_fill(struct ctx *c, void *desc, void *karg, void *dst, uint32_t value,
			uint32_t count, hsa_signal_t done)
{
	struct {
		uint64_t dst;
		uint32_t value, count;
	} k = {(uint64_t)(uintptr_t)dst, value, count};
	hsa_kernel_dispatch_packet_t pkt;

	memcpy(karg, &k, sizeof(k));
	memset(&pkt, 0, sizeof(pkt));
	pkt.workgroup_size_x = pkt.workgroup_size_y = pkt.workgroup_size_z = 1;
	pkt.grid_size_x = pkt.grid_size_y = pkt.grid_size_z = 1;
	pkt.kernel_object = (uint64_t)(uintptr_t)desc;
	pkt.kernarg_address = karg;
	pkt.completion_signal = done;
	submit(c, &pkt, header_of(HSA_PACKET_TYPE_KERNEL_DISPATCH),
	       1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
}

/* count words at dev (GPU c) must be value, the word after them 0. */
static bool check_fill(struct ctx *c, uint8_t *dev, uint8_t *host, uint32_t value, uint32_t count)
{
	uint32_t bad = 0, w;

	memset(host, 0xee, (size_t)(count + 1) * 4);
	if (!copy(c, host, c->cpu, dev, c->gpu, (size_t)(count + 1) * 4))
		return false;
	for (uint32_t i = 0; i <= count; i++) {
		memcpy(&w, host + 4 * (size_t)i, 4);
		if (w != (i < count ? value : 0))
			bad++;
	}
	if (bad)
		fprintf(stderr, "hsa_e2e: FILL_U32 of %u words: %u wrong\n", count, bad);
	return bad == 0;
}

static void test_fill_and_barrier(struct matrix *m, struct big_bufs *b)
{
	const uint32_t count = (16u << 20) / 4; /* 16 MiB */
	struct ctx *c = &m->g[0];
	void *desc = make_descriptor(c, BUILTIN_FILL_U32);
	void *karg = alloc_in(c, c->karg_pool, 256);
	hsa_signal_t dep = make_signal(c, 1), bdone = make_signal(c, 1), done = make_signal(c, 1);
	hsa_barrier_and_packet_t bar;
	bool ok;

	/* A plain fill; the word after it must stay 0. */
	memset(b->src, 0, (size_t)(count + 1) * 4);
	ok = copy(c, b->dev_a, c->gpu, b->src, c->cpu, (size_t)(count + 1) * 4);
	submit_fill(c, desc, karg, b->dev_a, 0x600DF111u, count, done);
	ok = ok && wait_signal(done);
	report("FILL_U32 dispatch, 16 MiB",
	       ok && check_fill(c, b->dev_a, b->dst, 0x600DF111u, count));

	/* barrier-AND on a signal the host holds, then a fill behind it. */
	hsa_signal_store_screlease(done, 1);
	memset(&bar, 0, sizeof(bar));
	bar.dep_signal[0] = dep;
	bar.completion_signal = bdone;
	submit(c, &bar, header_of(HSA_PACKET_TYPE_BARRIER_AND), 0);
	submit_fill(c, desc, karg, b->dev_a, 0xBA55BA11u, count, done);
	report("barrier-AND holds the queue", still_pending(m, bdone) && still_pending(m, done));
	hsa_signal_store_screlease(dep, 0);
	ok = wait_signal(bdone) && wait_signal(done);
	report("barrier-AND released", ok && check_fill(c, b->dev_a, b->dst, 0xBA55BA11u, count));

	/* An async copy that depends on a signal. */
	hsa_signal_store_screlease(dep, 1);
	hsa_signal_store_screlease(done, 1);
	pattern(b->src, 1u << 20, 77);
	CHECK_HSA(
	    hsa_amd_memory_async_copy(b->dev_b, c->gpu, b->src, c->cpu, 1u << 20, 1, &dep, done));
	report("copy waits for its dependency", still_pending(m, done));
	hsa_signal_store_screlease(dep, 0);
	ok = wait_signal(done) && copy(c, b->dst, c->cpu, b->dev_b, c->gpu, 1u << 20);
	report("dependent copy contents",
	       ok && same_bytes("dependent copy", b->src, b->dst, 1u << 20));

	CHECK_HSA(hsa_signal_destroy(done));
	CHECK_HSA(hsa_signal_destroy(bdone));
	CHECK_HSA(hsa_signal_destroy(dep));
	CHECK_HSA(hsa_amd_memory_pool_free(karg));
	CHECK_HSA(hsa_amd_memory_pool_free(desc));
}

static void test_signal_timeouts(struct matrix *m)
{
	struct ctx *c = &m->g[0];
	hsa_signal_t s = make_signal(c, 1);
	hsa_signal_value_t v;

	report("blocked wait times out", still_pending(m, s));
	v = hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_EQ, 0, m->ticks_per_s / 50,
				    HSA_WAIT_STATE_ACTIVE);
	report("active wait times out", v == 1);
	hsa_signal_store_screlease(s, 0);
	v = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
				      HSA_WAIT_STATE_BLOCKED);
	report("wait on a set signal returns", v == 0);
	CHECK_HSA(hsa_signal_destroy(s));
}

/* FILL_U32 of 4096 words on GPU c's own queue into dst, checked through
 * GPU check's SDMA engine. */
static bool fill_on(struct ctx *c, struct ctx *check, uint8_t *dst, uint32_t value,
		    struct big_bufs *b)
{
	const uint32_t count = 4096;
	void *desc = make_descriptor(c, BUILTIN_FILL_U32);
	void *karg = alloc_in(c, c->karg_pool, 256);
	hsa_signal_t done = make_signal(c, 1);
	bool ok;

	memset(b->src, 0, (count + 1) * 4);
	ok = copy(check, dst, check->gpu, b->src, check->cpu, (count + 1) * 4);
	submit_fill(c, desc, karg, dst, value, count, done);
	ok = ok && wait_signal(done) && check_fill(check, dst, b->dst, value, count);
	CHECK_HSA(hsa_signal_destroy(done));
	CHECK_HSA(hsa_amd_memory_pool_free(karg));
	CHECK_HSA(hsa_amd_memory_pool_free(desc));
	return ok;
}

/* Two GPUs: a dispatch on each GPU's own queue, peer access (GPU 1 writes
 * GPU 0's VRAM), and a copy from GPU 0's VRAM into GPU 1's. */
static void test_two_gpus(struct matrix *m, struct big_bufs *b)
{
	const size_t n = (8u << 20) + 5;
	struct ctx *c0 = &m->g[0], *c1 = &m->g[1];
	hsa_amd_memory_pool_access_t access = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
	hsa_agent_t all[3] = {c0->gpu, c1->gpu, c0->cpu};
	uint8_t *vram1;
	bool ok;

	CHECK_HSA(hsa_amd_memory_pool_allocate(c1->dev_pool, n, 0, (void **)&vram1));
	CHECK_HSA(hsa_amd_agents_allow_access(2, (hsa_agent_t[]){c1->gpu, c1->cpu}, NULL, vram1));
	report("FILL_U32 dispatch on GPU 0", fill_on(c0, c0, b->dev_a, 0x6000u, b));
	report("FILL_U32 dispatch on GPU 1", fill_on(c1, c1, vram1, 0x6001u, b));

	/* What ROCr derives from the topology's GPU-GPU links (informational:
	 * kfdsim models none, so ROCr says "never allowed" but still maps). */
	CHECK_HSA(hsa_amd_agent_memory_pool_get_info(
	    c1->gpu, c0->dev_pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access));
	printf("hsa_e2e: GPU 1's access to GPU 0's VRAM pool: %d\n", (int)access);
	ok = hsa_amd_agents_allow_access(3, all, NULL, b->dev_a) == HSA_STATUS_SUCCESS &&
	     hsa_amd_agents_allow_access(3, all, NULL, vram1) == HSA_STATUS_SUCCESS;
	report("peer access granted", ok);
	report("GPU 1 writes GPU 0's VRAM", ok && fill_on(c1, c0, b->dev_a, 0x6010u, b));

	pattern(b->src, n, 4242);
	memset(b->dst, 0, n);
	ok = ok && copy(c0, b->dev_a, c0->gpu, b->src, c0->cpu, n) &&
	     copy(c0, vram1, c1->gpu, b->dev_a, c0->gpu, n) &&
	     copy(c1, b->dst, c1->cpu, vram1, c1->gpu, n);
	report("copy GPU 0 -> GPU 1", ok && same_bytes("GPU 0 -> GPU 1", b->src, b->dst, n));
	CHECK_HSA(hsa_amd_memory_pool_free(vram1));
}

static int run_matrix(size_t max_bytes)
{
	struct matrix m;
	struct big_bufs b;
	struct ctx *c;
	size_t big;
	uint32_t *dev, *h1, *h2;
	float *fa, *fb;

	/* A 1 GiB copy through vkfd moves the data between guest and host
	 * memory too: allow minutes, a hang still fails. */
	wait_seconds = 300;
	matrix_setup(&m);
	c = &m.g[0];
	/* the largest copy, and at least what the other tests use */
	big = (max_bytes < MATRIX_BIG ? max_bytes : MATRIX_BIG);
	big = (big < (32u << 20) ? (32u << 20) : big) + 64;
	b.src = alloc_in(c, c->sys_pool, big);
	b.dst = alloc_in(c, c->sys_pool, big);
	b.dev_a = alloc_in(c, c->dev_pool, big);
	b.dev_b = alloc_in(c, c->dev_pool, big);
	if (m.ngpus > 1) {
		/* every GPU uses the system buffers */
		hsa_agent_t all[3] = {m.g[0].gpu, m.g[1].gpu, c->cpu};

		CHECK_HSA(hsa_amd_agents_allow_access(3, all, NULL, b.src));
		CHECK_HSA(hsa_amd_agents_allow_access(3, all, NULL, b.dst));
	}

	test_copy_sizes(&m, &b, max_bytes);
	test_fill_and_barrier(&m, &b);
	test_signal_timeouts(&m);

	/* hsa_e2e's own FILL_U32 and VADD_F32 checks on GPU 0 */
	dev = alloc_in(c, c->dev_pool, N_ELEMS * 4);
	h1 = alloc_in(c, c->sys_pool, N_ELEMS * 4);
	h2 = alloc_in(c, c->sys_pool, N_ELEMS * 4);
	fa = alloc_in(c, c->sys_pool, N_ELEMS * 4);
	fb = alloc_in(c, c->sys_pool, N_ELEMS * 4);
	test_fill(c, dev, h1);
	test_vadd(c, dev, fa, fb, (float *)h2);

	if (m.ngpus > 1)
		test_two_gpus(&m, &b);

	for (unsigned i = 0; i < m.ngpus; i++)
		CHECK_HSA(hsa_queue_destroy(m.g[i].queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: matrix on %u GPU(s): %s (%d failed)\n", m.ngpus,
	       failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

#endif
