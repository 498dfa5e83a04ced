// SPDX-License-Identifier: MIT
#include "hsa_guest.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BUILTIN_FILL_U32 1
#define WAIT_SECONDS     30

static bool hsa_ok(hsa_status_t st, const char *who, const char *what)
{
	const char *msg = NULL;

	if (st == HSA_STATUS_SUCCESS)
		return true;
	hsa_status_string(st, &msg);
	fprintf(stderr, "%s: %s failed: 0x%x %s\n", who, what, (unsigned)st, msg ? msg : "");
	return false;
}

#define OK(g_who, call) hsa_ok((call), (g_who), #call)

static hsa_status_t find_agent(hsa_agent_t agent, void *data)
{
	struct hsa_guest *g = data;
	hsa_device_type_t type;
	hsa_status_t st = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);

	if (st != HSA_STATUS_SUCCESS)
		return st;
	if (type == HSA_DEVICE_TYPE_GPU && !g->gpu.handle) {
		g->gpu = agent;
		return hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, g->gpu_name);
	}
	if (type == HSA_DEVICE_TYPE_CPU && !g->cpu.handle)
		g->cpu = agent;
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_pool(hsa_amd_memory_pool_t pool, void *data)
{
	struct hsa_guest *g = data;
	hsa_amd_segment_t seg;
	uint32_t flags;
	hsa_status_t st;

	st = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
	if (st != HSA_STATUS_SUCCESS || seg != HSA_AMD_SEGMENT_GLOBAL)
		return st;
	st = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
	if (st != HSA_STATUS_SUCCESS)
		return st;
	/* The same callback walks the GPU's pools, then the CPU's. */
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !g->dev_pool.handle &&
	    !g->cpu.handle)
		g->dev_pool = pool;
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !g->karg_pool.handle &&
	    g->cpu.handle)
		g->karg_pool = pool;
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !g->sys_pool.handle &&
	    g->cpu.handle)
		g->sys_pool = pool;
	return HSA_STATUS_SUCCESS;
}

static void *alloc_in(struct hsa_guest *g, const char *who, hsa_amd_memory_pool_t pool, size_t size)
{
	hsa_agent_t agents[2] = {g->gpu, g->cpu};
	void *p = NULL;

	if (!OK(who, hsa_amd_memory_pool_allocate(pool, size, 0, &p)))
		return NULL;
	if (!OK(who, hsa_amd_agents_allow_access(2, agents, NULL, p))) {
		hsa_amd_memory_pool_free(p);
		return NULL;
	}
	return p;
}

int hg_setup(struct hsa_guest *g, const char *who)
{
	hsa_agent_t cpu;

	memset(g, 0, sizeof(*g));
	if (!OK(who, hsa_init()))
		return -1;
	if (!OK(who, hsa_iterate_agents(find_agent, g)))
		return -1;
	if (!g->gpu.handle || !g->cpu.handle) {
		fprintf(stderr, "%s: no %s agent\n", who, g->gpu.handle ? "CPU" : "GPU");
		return -1;
	}
	/* find_pool tells GPU from CPU pools by whether cpu is set yet. */
	cpu = g->cpu;
	g->cpu.handle = 0;
	if (!OK(who, hsa_amd_agent_iterate_memory_pools(g->gpu, find_pool, g)))
		return -1;
	g->cpu = cpu;
	if (!OK(who, hsa_amd_agent_iterate_memory_pools(g->cpu, find_pool, g)))
		return -1;
	if (!g->dev_pool.handle || !g->sys_pool.handle || !g->karg_pool.handle) {
		fprintf(stderr, "%s: missing pool (device %d, system %d, kernarg %d)\n", who,
			!!g->dev_pool.handle, !!g->sys_pool.handle, !!g->karg_pool.handle);
		return -1;
	}
	if (!OK(who, hsa_queue_create(g->gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX,
				      UINT32_MAX, &g->queue)))
		return -1;
	g->dev = alloc_in(g, who, g->dev_pool, HG_WORDS * 4);
	g->host_a = alloc_in(g, who, g->sys_pool, HG_WORDS * 4);
	g->host_b = alloc_in(g, who, g->sys_pool, HG_WORDS * 4);
	if (!g->dev || !g->host_a || !g->host_b)
		return -1;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool make_signal(struct hsa_guest *g, const char *who, hsa_signal_t *s)
{
	hsa_agent_t consumers[2] = {g->cpu, g->gpu};

	/* CPU and GPU consumers: an interrupt (event backed) signal. */
	return OK(who, hsa_signal_create(1, 2, consumers, s));
}

static bool wait_signal(const char *who, hsa_signal_t s)
{
	double deadline = now_s() + WAIT_SECONDS;
	uint64_t freq = 0;
	hsa_signal_value_t v;

	/* The timeout is a hint in timestamp ticks: wake about once a second
	 * to check the deadline. */
	if (!OK(who, hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq)))
		return false;
	do {
		v = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1,
					      freq ? freq : 1000000000, HSA_WAIT_STATE_BLOCKED);
		if (v < 1)
			return true;
	} while (now_s() < deadline);
	fprintf(stderr, "%s: signal still %" PRId64 " after %d s\n", who, (int64_t)v, WAIT_SECONDS);
	return false;
}

static bool copy(struct hsa_guest *g, const char *who, void *dst, hsa_agent_t dst_agent,
		 const void *src, hsa_agent_t src_agent)
{
	hsa_signal_t done;
	bool ok;

	if (!make_signal(g, who, &done))
		return false;
	ok = OK(who, hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, HG_WORDS * 4, 0,
					       NULL, done));
	ok = ok && wait_signal(who, done);
	hsa_signal_destroy(done);
	return ok;
}

static bool fill(struct hsa_guest *g, const char *who, uint32_t value)
{
	struct {
		uint64_t dst;
		uint32_t value;
		uint32_t count;
	} k = {(uint64_t)(uintptr_t)g->dev, value, HG_WORDS};
	hsa_queue_t *q = g->queue;
	hsa_kernel_dispatch_packet_t *pkt;
	uint8_t *desc = alloc_in(g, who, g->sys_pool, 64);
	void *karg = alloc_in(g, who, g->karg_pool, 64);
	uint32_t builtin = BUILTIN_FILL_U32;
	hsa_signal_t done = {0};
	uint64_t idx;
	uint16_t header;
	bool ok = false;

	if (!desc || !karg || !make_signal(g, who, &done))
		goto out;
	memset(desc, 0, 64);
	memcpy(desc, "KFDSIM01", 8);
	memcpy(desc + 8, &builtin, sizeof(builtin));
	memcpy(karg, &k, sizeof(k));
	idx = hsa_queue_add_write_index_relaxed(q, 1);
	while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size)
		;
	pkt = (hsa_kernel_dispatch_packet_t *)q->base_address + (idx & (q->size - 1));
	memset((uint8_t *)pkt + 4, 0, sizeof(*pkt) - 4);
	pkt->workgroup_size_x = pkt->workgroup_size_y = pkt->workgroup_size_z = 1;
	pkt->grid_size_x = pkt->grid_size_y = pkt->grid_size_z = 1;
	pkt->kernel_object = (uint64_t)(uintptr_t)desc;
	pkt->kernarg_address = karg;
	pkt->completion_signal = done;
	header = (uint16_t)(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
			    1 << HSA_PACKET_HEADER_BARRIER |
			    HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
			    HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
	/* Header and setup last, in one release store. */
	__atomic_store_n((uint32_t *)pkt,
			 (uint32_t)header |
			     (uint32_t)1 << (16 + HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS),
			 __ATOMIC_RELEASE);
	hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
	ok = wait_signal(who, done);
out:
	if (done.handle)
		hsa_signal_destroy(done);
	if (karg)
		hsa_amd_memory_pool_free(karg);
	if (desc)
		hsa_amd_memory_pool_free(desc);
	return ok;
}

static unsigned int count_wrong(const uint32_t *got, const uint32_t *want, uint32_t value)
{
	unsigned int bad = 0;

	for (uint32_t i = 0; i < HG_WORDS; i++)
		if (got[i] != (want ? want[i] : value))
			bad++;
	return bad;
}

bool hg_round(struct hsa_guest *g, const char *who, uint32_t seed)
{
	uint32_t value = 0xF1110000u ^ seed;
	unsigned int bad;

	for (uint32_t i = 0; i < HG_WORDS; i++) {
		g->host_a[i] = (i + seed) * 2654435761u;
		g->host_b[i] = ~g->host_a[i];
	}
	if (!copy(g, who, g->dev, g->gpu, g->host_a, g->cpu) ||
	    !copy(g, who, g->host_b, g->cpu, g->dev, g->gpu))
		return false;
	bad = count_wrong(g->host_b, g->host_a, 0);
	if (bad) {
		fprintf(stderr, "%s: copy round trip: %u of %u words wrong\n", who, bad, HG_WORDS);
		return false;
	}
	if (!fill(g, who, value) || !copy(g, who, g->host_b, g->cpu, g->dev, g->gpu))
		return false;
	bad = count_wrong(g->host_b, NULL, value);
	if (bad) {
		fprintf(stderr, "%s: FILL_U32: %u of %u words wrong\n", who, bad, HG_WORDS);
		return false;
	}
	return true;
}

int hg_teardown(struct hsa_guest *g, const char *who)
{
	bool ok = true;

	if (g->host_b)
		ok = OK(who, hsa_amd_memory_pool_free(g->host_b)) && ok;
	if (g->host_a)
		ok = OK(who, hsa_amd_memory_pool_free(g->host_a)) && ok;
	if (g->dev)
		ok = OK(who, hsa_amd_memory_pool_free(g->dev)) && ok;
	if (g->queue)
		ok = OK(who, hsa_queue_destroy(g->queue)) && ok;
	ok = OK(who, hsa_shut_down()) && ok;
	memset(g, 0, sizeof(*g));
	return ok ? 0 : -1;
}
