/* SPDX-License-Identifier: MIT */
/*
 * hsa_e2e hostmem MB ROUNDS: large system memory through the thunk, the
 * workload of issue #19 item 1. Each round allocates MB MiB from the CPU's
 * fine-grained pool (ROCr: hsaKmtAllocMemory, which libhsakmt backs with
 * anonymous pages registered as a USERPTR BO at GPU VA == CPU VA), writes
 * one 64-bit word into every 4 KiB page, checks them all and frees it.
 * Each phase's wall time is printed (for vkfd-bench's "hostfree"
 * scenario); the checks are the pass/fail part. Included by hsa_e2e.c.
 */
#ifndef VKFD_HSA_HOSTMEM_H
#define VKFD_HSA_HOSTMEM_H

static double hostmem_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static int run_hostmem(size_t mib, unsigned int rounds)
{
	const size_t size = mib << 20, step = 4096 / sizeof(uint64_t);
	double t_alloc = 0, t_touch = 0, t_free = 0;
	struct ctx c;

	setup(&c);
	for (unsigned int r = 0; r < rounds; r++) {
		struct timespec t0, t1, t2, t3;
		uint64_t *p, bad = 0;
		void *mem = NULL;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (hsa_amd_memory_pool_allocate(c.sys_pool, size, 0, &mem) != HSA_STATUS_SUCCESS ||
		    !mem) {
			report("hostmem allocate", false);
			break;
		}
		p = mem;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (size_t i = 0; i < size / sizeof(uint64_t); i += step)
			p[i] = i * 0x9e3779b97f4a7c15ull + r;
		for (size_t i = 0; i < size / sizeof(uint64_t); i += step)
			bad += p[i] != i * 0x9e3779b97f4a7c15ull + r;
		clock_gettime(CLOCK_MONOTONIC, &t2);
		report("hostmem pages keep their words", bad == 0);
		report("hostmem free", hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);
		clock_gettime(CLOCK_MONOTONIC, &t3);
		t_alloc += hostmem_ms(&t0, &t1);
		t_touch += hostmem_ms(&t1, &t2);
		t_free += hostmem_ms(&t2, &t3);
		fprintf(stderr,
			"hsa_e2e: hostmem round %u: alloc %.1f ms, touch %.1f ms, free %.1f ms\n",
			r, hostmem_ms(&t0, &t1), hostmem_ms(&t1, &t2), hostmem_ms(&t2, &t3));
	}
	fprintf(stderr,
		"hsa_e2e: hostmem %zu MiB x %u: alloc %.1f ms, touch %.1f ms, free %.1f ms\n", mib,
		rounds, t_alloc, t_touch, t_free);
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

#endif
