// SPDX-License-Identifier: MIT
/*
 * hsa_storm: a model load's pattern through ROCr's HSA API, to compare the
 * shim natively and through vkfd (src/tools/bench/rocr-storm.sh,
 * docs/performance.md "Real-ROCr storm").
 *
 *   hsa_storm [N]   N rounds (default 200) of: a VRAM buffer (64 KiB to
 *                   16 MiB) and a system-memory buffer (4 KiB to 2 MiB)
 *                   allocated; the system buffer filled by the CPU; every
 *                   round a small copy (at most 64 KiB) system -> VRAM with
 *                   a completion signal waited for; every 4th round the
 *                   copy comes back into a kernarg-pool buffer and is
 *                   compared byte for byte; every 8th round the oldest
 *                   live pair is freed (interleaved frees); at the end
 *                   everything left is freed.
 *
 *   hsa_storm N IDLE_US
 *                   the same, sleeping IDLE_US (at most 1 s) before each
 *                   round's first copy: a program that copies after being
 *                   idle, when the host's doorbell relay has backed off
 *                   (docs/performance.md); the sleeps are not counted.
 *
 * It prints one line "hsa_storm: rounds R allocs A frees F copies C
 * storm_ms T alloc_ms TA copy_ms TC free_ms TF" (T: the storm alone, from
 * the first allocation to the last free, without hsa_init and
 * hsa_shut_down; TA, TC, TF: the part of it spent in allocations with
 * their agent access, in copies with their signal waits, and in frees),
 * and "hsa_storm: all passed".
 * Exit: 0 passed, 1 a copy came back wrong, 2 setup or HSA error.
 */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_CHECK 1
#define EXIT_SETUP 2

#define MAX_ROUNDS     4096
#define COPY_MAX       (64u << 10)
#define WAIT_TIMEOUT_S 60

#define CHECK_HSA(call)                                                                            \
	do {                                                                                       \
		hsa_status_t st_ = (call);                                                         \
		if (st_ != HSA_STATUS_SUCCESS) {                                                   \
			const char *msg_ = NULL;                                                   \
			hsa_status_string(st_, &msg_);                                             \
			fprintf(stderr, "hsa_storm: %s failed: 0x%x %s\n", #call, (unsigned)st_,   \
				msg_ ? msg_ : "");                                                 \
			exit(EXIT_SETUP);                                                          \
		}                                                                                  \
	} while (0)

struct storm {
	hsa_agent_t cpu, gpu;
	bool have_cpu, have_gpu;
	hsa_amd_memory_pool_t dev_pool, sys_pool, karg_pool;
	bool have_dev, have_sys, have_karg;
	uint8_t *check; /* kernarg-pool buffer the copies come back into */
	unsigned allocs, frees, copies;
	double alloc_ms, copy_ms, free_ms; /* where the storm's time went */
};

struct pair {
	void *dev, *sys;
	size_t dev_size, sys_size;
	bool live;
};

static hsa_status_t find_agent(hsa_agent_t agent, void *data)
{
	struct storm *s = data;
	hsa_device_type_t type;

	CHECK_HSA(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
	if (type == HSA_DEVICE_TYPE_GPU && !s->have_gpu) {
		s->gpu = agent;
		s->have_gpu = true;
	} else if (type == HSA_DEVICE_TYPE_CPU && !s->have_cpu) {
		s->cpu = agent;
		s->have_cpu = true;
	}
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_pool(hsa_amd_memory_pool_t pool, void *data, bool gpu)
{
	struct storm *s = data;
	hsa_amd_segment_t seg;
	uint32_t flags;

	CHECK_HSA(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
	if (seg != HSA_AMD_SEGMENT_GLOBAL)
		return HSA_STATUS_SUCCESS;
	CHECK_HSA(
	    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
	if (gpu) {
		if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !s->have_dev) {
			s->dev_pool = pool;
			s->have_dev = true;
		}
		return HSA_STATUS_SUCCESS;
	}
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !s->have_karg) {
		s->karg_pool = pool;
		s->have_karg = true;
	} else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !s->have_sys) {
		s->sys_pool = pool;
		s->have_sys = true;
	}
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_gpu_pool(hsa_amd_memory_pool_t pool, void *data)
{
	return find_pool(pool, data, true);
}

static hsa_status_t find_cpu_pool(hsa_amd_memory_pool_t pool, void *data)
{
	return find_pool(pool, data, false);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void *alloc_in(struct storm *s, hsa_amd_memory_pool_t pool, size_t size)
{
	hsa_agent_t agents[2] = {s->gpu, s->cpu};
	double t = now_ms();
	void *p = NULL;

	CHECK_HSA(hsa_amd_memory_pool_allocate(pool, size, 0, &p));
	CHECK_HSA(hsa_amd_agents_allow_access(2, agents, NULL, p));
	s->allocs++;
	s->alloc_ms += now_ms() - t;
	return p;
}

static void free_mem(struct storm *s, void *p)
{
	double t = now_ms();

	CHECK_HSA(hsa_amd_memory_pool_free(p));
	s->frees++;
	s->free_ms += now_ms() - t;
}

/* One async copy with an interrupt signal, waited for blocked. */
static void copy_wait(struct storm *s, void *dst, hsa_agent_t dst_agent, const void *src,
		      hsa_agent_t src_agent, size_t size)
{
	hsa_agent_t consumers[2] = {s->cpu, s->gpu};
	double t = now_ms(), deadline = t + WAIT_TIMEOUT_S * 1e3;
	hsa_signal_value_t v;
	hsa_signal_t done;

	CHECK_HSA(hsa_signal_create(1, 2, consumers, &done));
	CHECK_HSA(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, size, 0, NULL, done));
	do {
		v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
					      HSA_WAIT_STATE_BLOCKED);
	} while (v >= 1 && now_ms() < deadline);
	CHECK_HSA(hsa_signal_destroy(done));
	if (v >= 1) {
		fprintf(stderr, "hsa_storm: copy of %zu bytes not done after %d s\n", size,
			WAIT_TIMEOUT_S);
		exit(EXIT_SETUP);
	}
	s->copies++;
	s->copy_ms += now_ms() - t;
}

/* Size classes of a loader: tensors from 64 KiB to 16 MiB in VRAM, host
 * buffers from 4 KiB to 2 MiB. */
static size_t dev_size(unsigned i)
{
	static const size_t k[] = {64u << 10, 256u << 10, 1u << 20,
				   4u << 20,  16u << 20,  512u << 10};

	return k[i % (sizeof(k) / sizeof(k[0]))];
}

static size_t sys_size(unsigned i)
{
	static const size_t k[] = {4u << 10, 16u << 10, 64u << 10, 256u << 10, 2u << 20, 8u << 10};

	return k[(i * 7u) % (sizeof(k) / sizeof(k[0]))];
}

static void release(struct storm *s, struct pair *p)
{
	free_mem(s, p->dev);
	free_mem(s, p->sys);
	p->live = false;
}

int main(int argc, char **argv)
{
	static struct pair pairs[MAX_ROUNDS];
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 200;
	unsigned long idle_us = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	unsigned oldest = 0, bad = 0;
	double idle_ms = 0;
	struct storm s;
	double t0, t1;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "hsa_storm: rounds must be 1..%d\n", MAX_ROUNDS);
		return EXIT_SETUP;
	}
	if (idle_us > 1000000) {
		fprintf(stderr, "hsa_storm: IDLE_US must be at most 1000000\n");
		return EXIT_SETUP;
	}
	memset(&s, 0, sizeof(s));
	CHECK_HSA(hsa_init());
	CHECK_HSA(hsa_iterate_agents(find_agent, &s));
	if (!s.have_gpu || !s.have_cpu) {
		fprintf(stderr, "hsa_storm: no %s agent\n", s.have_gpu ? "CPU" : "GPU");
		return EXIT_SETUP;
	}
	CHECK_HSA(hsa_amd_agent_iterate_memory_pools(s.gpu, find_gpu_pool, &s));
	CHECK_HSA(hsa_amd_agent_iterate_memory_pools(s.cpu, find_cpu_pool, &s));
	if (!s.have_dev || !s.have_sys || !s.have_karg) {
		fprintf(stderr, "hsa_storm: missing pool (device %d, system %d, kernarg %d)\n",
			s.have_dev, s.have_sys, s.have_karg);
		return EXIT_SETUP;
	}

	t0 = now_ms();
	s.check = alloc_in(&s, s.karg_pool, COPY_MAX);
	for (unsigned i = 0; i < rounds; i++) {
		struct pair *p = &pairs[i];
		size_t n;

		p->dev_size = dev_size(i);
		p->sys_size = sys_size(i);
		p->dev = alloc_in(&s, s.dev_pool, p->dev_size);
		p->sys = alloc_in(&s, s.sys_pool, p->sys_size);
		p->live = true;
		/* the loader writes the host buffer */
		for (size_t k = 0; k < p->sys_size; k += 4096)
			((uint8_t *)p->sys)[k] = (uint8_t)(i + k / 4096);
		memset(p->sys, (int)(0x40 + i % 64), p->sys_size < 512 ? p->sys_size : 512);
		n = p->sys_size < COPY_MAX ? p->sys_size : COPY_MAX;
		if (idle_us) {
			struct timespec ts = {(time_t)(idle_us / 1000000),
					      (long)(idle_us % 1000000) * 1000};
			double a = now_ms();

			nanosleep(&ts, NULL);
			idle_ms += now_ms() - a;
		}
		copy_wait(&s, p->dev, s.gpu, p->sys, s.cpu, n);
		if (i % 4 == 3) {
			memset(s.check, 0, n);
			copy_wait(&s, s.check, s.cpu, p->dev, s.gpu, n);
			if (memcmp(s.check, p->sys, n) != 0) {
				fprintf(stderr, "hsa_storm: round %u: %zu bytes came back wrong\n",
					i, n);
				bad++;
			}
		}
		if (i % 8 == 7) {
			while (oldest < i && !pairs[oldest].live)
				oldest++;
			release(&s, &pairs[oldest]);
		}
	}
	for (unsigned i = 0; i < rounds; i++)
		if (pairs[i].live)
			release(&s, &pairs[i]);
	free_mem(&s, s.check);
	t1 = now_ms();

	printf("hsa_storm: rounds %u allocs %u frees %u copies %u storm_ms %.1f alloc_ms %.1f "
	       "copy_ms %.1f free_ms %.1f\n",
	       rounds, s.allocs, s.frees, s.copies, t1 - t0 - idle_ms, s.alloc_ms, s.copy_ms,
	       s.free_ms);
	CHECK_HSA(hsa_shut_down());
	if (bad) {
		printf("hsa_storm: %u copies came back wrong\n", bad);
		return EXIT_CHECK;
	}
	printf("hsa_storm: all passed\n");
	return 0;
}
