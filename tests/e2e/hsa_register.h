/* SPDX-License-Identifier: MIT */
/*
 * hsa_e2e register: the edge cases of registering host memory with
 * hsa_amd_memory_lock (issue #19 item 2), each checked for the kernel's
 * behaviour or, through vkfd, for the documented difference
 * (docs/guest-vkfd-backend.md, "USERPTR limits"); VKFD_BACKEND (set by
 * vkfd-run) says which:
 *   twice     the same buffer locked twice: one registration, counted
 *             (libhsakmt); the first unlock leaves it locked and usable
 *   overlap   a second malloc'd buffer in the same pages as a locked one:
 *             the kernel pins the pages twice and both work; so does vkfd
 *             (both BOs share the arena pages): CPU and GPU writes seen
 *             through both agent pointers, either unlocked first
 *   own       hipHostMalloc memory (ROCr's own system pool) locked: the
 *             result must be the same both ways, and the memory usable
 *   fork      a child forked while a buffer is locked writes to it: the
 *             kernel's copy-on-write keeps the parent's bytes; through
 *             vkfd the registered pages are shared, the parent sees it
 * hsa_e2e unlock-busy: unlock while a copy that reads the locked buffer
 * waits behind a dependency signal, then release it. Where libhsakmt made
 * the buffer a USERPTR BO (5.2; 6.x with HSA_USE_SVM=0 or without the SVM
 * API) the kernel unmaps it at the unlock, the copy reads a range no
 * longer mapped on the GPU, and ROCr reports a memory fault and aborts.
 * Where libhsakmt 6.x registered it as SVM pages (the GPU advertises the
 * SVM API), its unlock issues no ioctl, the kernel keeps the GPU mapping
 * and the copy completes: then it must have read the buffer's bytes.
 * Through vkfd the same (the guest serves the SVM API). The version
 * matrix says which to expect.
 * Included by hsa_e2e.c.
 */
#ifndef VKFD_HSA_REGISTER_H
#define VKFD_HSA_REGISTER_H

#include <sys/wait.h>
#include <unistd.h>

static bool register_through_vkfd(void)
{
	const char *b = getenv("VKFD_BACKEND");

	return b && strcmp(b, "vkfd") == 0;
}

/* The GPU reads size bytes at agent_ptr (to dev, back to staging):
 * equal to want? */
static bool gpu_reads(struct ctx *c, void *dev, void *staging, void *agent_ptr, const void *want,
		      size_t size)
{
	memset(staging, 0, size);
	return copy(c, dev, c->gpu, agent_ptr, c->gpu, size) &&
	       copy(c, staging, c->cpu, dev, c->gpu, size) && memcmp(staging, want, size) == 0;
}

static void fill_words(uint32_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint32_t)i * 2654435761u + seed;
}

static void register_twice(struct ctx *c, void *dev, void *staging)
{
	const size_t size = 3 * 4096 + 100;
	unsigned char *raw = malloc(size + 8192);
	uint32_t *buf = (uint32_t *)(void *)(raw + 4096 + 52 - ((uintptr_t)raw & 4095));
	void *a1 = NULL, *a2 = NULL;
	bool ok;

	fill_words(buf, size / 4, 11);
	ok = hsa_amd_memory_lock(buf, size, &c->gpu, 1, &a1) == HSA_STATUS_SUCCESS &&
	     hsa_amd_memory_lock(buf, size, &c->gpu, 1, &a2) == HSA_STATUS_SUCCESS;
	report("twice: both locks", ok);
	if (!ok)
		return;
	report("twice: one agent pointer", a1 == a2);
	report("twice: GPU reads it", gpu_reads(c, dev, staging, a2, buf, size));
	report("twice: first unlock", hsa_amd_memory_unlock(buf) == HSA_STATUS_SUCCESS);
	buf[1] = 0x12345678u;
	report("twice: still locked after it", gpu_reads(c, dev, staging, a1, buf, size));
	report("twice: second unlock", hsa_amd_memory_unlock(buf) == HSA_STATUS_SUCCESS);
	report("twice: contents kept", buf[1] == 0x12345678u && buf[2] == 2u * 2654435761u + 11);
	free(raw);
}

/* The GPU writes size bytes of want at agent_ptr (staging to dev, dev to
 * agent_ptr). */
static bool gpu_writes(struct ctx *c, void *dev, void *staging, void *agent_ptr, const void *want,
		       size_t size)
{
	memcpy(staging, want, size);
	return copy(c, dev, c->gpu, staging, c->cpu, size) &&
	       copy(c, agent_ptr, c->gpu, dev, c->gpu, size);
}

static void register_overlap(struct ctx *c, void *dev, void *staging)
{
	unsigned char *raw = aligned_alloc(4096, 4 * 4096);
	/* two buffers sharing their middle page */
	uint32_t *b1 = (uint32_t *)(void *)(raw + 100), *b2 = (uint32_t *)(void *)(raw + 6000);
	const size_t s1 = 5000, s2 = 8000;
	/* the shared page from its start to the end of b2: b1's tail, the
	 * gap, all of b2; through the second agent pointer it starts before
	 * a2 (the BO covers whole pages) */
	unsigned char *shared = raw + 4096;
	const size_t span = 6000 + 8000 - 4096, back = 6000 - 4096;
	uint32_t w[64];
	void *a1 = NULL, *a2 = NULL;
	hsa_status_t st;
	bool ok;

	fill_words(b1, s1 / 4, 21);
	fill_words(b2, s2 / 4, 22);
	report("overlap: first lock",
	       hsa_amd_memory_lock(b1, s1, &c->gpu, 1, &a1) == HSA_STATUS_SUCCESS);
	/* the kernel pins the pages twice; so does vkfd (arena pages shared
	 * by both BOs: docs/guest-vkfd-backend.md, "Overlapping registrations") */
	st = hsa_amd_memory_lock(b2, s2, &c->gpu, 1, &a2);
	report("overlap: second lock", st == HSA_STATUS_SUCCESS);
	ok = st == HSA_STATUS_SUCCESS;
	report("overlap: GPU reads the second", ok && gpu_reads(c, dev, staging, a2, b2, s2));
	report("overlap: GPU reads the first", gpu_reads(c, dev, staging, a1, b1, s1));
	/* the CPU writes b1's tail, in the shared page: both views see it */
	b1[s1 / 4 - 1] = 0xa1b2c3d4u;
	report("overlap: CPU write seen through the first", gpu_reads(c, dev, staging, a1, b1, s1));
	report("overlap: CPU write seen through the second",
	       ok && gpu_reads(c, dev, staging, (unsigned char *)a2 - back, shared, span));
	/* the GPU writes b2's head through the second: the CPU and the first
	 * view see it */
	fill_words(w, 64, 23);
	ok = ok && gpu_writes(c, dev, staging, a2, w, sizeof(w));
	report("overlap: GPU write through the second", ok && memcmp(b2, w, sizeof(w)) == 0);
	report("overlap: ... seen through the first",
	       ok && gpu_reads(c, dev, staging, (unsigned char *)a1 + (6000 - 100), b2, sizeof(w)));
	/* and b1's tail through the first: the second sees it */
	fill_words(w, 8, 24);
	ok = ok && gpu_writes(c, dev, staging, &((uint32_t *)a1)[s1 / 4 - 8], w, 32);
	report("overlap: GPU write through the first", ok && memcmp(&b1[s1 / 4 - 8], w, 32) == 0);
	report("overlap: ... seen through the second",
	       ok && gpu_reads(c, dev, staging, (unsigned char *)a2 - back, shared, span));
	if (st == HSA_STATUS_SUCCESS)
		report("overlap: second unlock", hsa_amd_memory_unlock(b2) == HSA_STATUS_SUCCESS);
	/* the first alone keeps the shared page coherent */
	b1[s1 / 4 - 2] = 0x0badf00du;
	report("overlap: first after the second's unlock", gpu_reads(c, dev, staging, a1, b1, s1));
	report("overlap: first unlock", hsa_amd_memory_unlock(b1) == HSA_STATUS_SUCCESS);
	b1[0] ^= 0; /* still mapped and private */
	report("overlap: contents kept",
	       b1[3] == 3u * 2654435761u + 21 && b1[s1 / 4 - 2] == 0x0badf00du &&
		   b1[s1 / 4 - 8] == 24u && b2[0] == 23u && b2[70] == 70u * 2654435761u + 22);
	/* the other order: the second locked first, the first unlocked last */
	st = hsa_amd_memory_lock(b2, s2, &c->gpu, 1, &a2);
	report("overlap: second lock after first unlock", st == HSA_STATUS_SUCCESS);
	if (st == HSA_STATUS_SUCCESS) {
		report("overlap: first lock again",
		       hsa_amd_memory_lock(b1, s1, &c->gpu, 1, &a1) == HSA_STATUS_SUCCESS);
		report("overlap: GPU reads it", gpu_reads(c, dev, staging, a2, b2, s2));
		report("overlap: its unlock", hsa_amd_memory_unlock(b2) == HSA_STATUS_SUCCESS);
		b1[s1 / 4 - 3] = 0x600dcafeu;
		report("overlap: first after it", gpu_reads(c, dev, staging, a1, b1, s1));
		report("overlap: first unlock again",
		       hsa_amd_memory_unlock(b1) == HSA_STATUS_SUCCESS);
		report("overlap: contents kept again", b1[s1 / 4 - 3] == 0x600dcafeu);
	}
	free(raw);
}

static void register_own(struct ctx *c, void *dev, void *staging)
{
	const size_t size = 2 * 4096;
	uint32_t *own = alloc_in(c, c->sys_pool, size);
	void *a = NULL;
	hsa_status_t st;

	fill_words(own, size / 4, 31);
	st = hsa_amd_memory_lock(own, size, &c->gpu, 1, &a);
	printf("hsa_e2e: own: lock of pool memory -> %s\n",
	       st == HSA_STATUS_SUCCESS ? "success" : "error");
	if (st == HSA_STATUS_SUCCESS) {
		report("own: GPU reads it", gpu_reads(c, dev, staging, a, own, size));
		report("own: unlock", hsa_amd_memory_unlock(own) == HSA_STATUS_SUCCESS);
	}
	/* (after the unlock libhsakmt has unmapped the pool memory from the
	 * GPU, natively and through vkfd: not read by the GPU here) */
	own[3] = 0x5a5a5a5au;
	report("own: CPU keeps it", own[3] == 0x5a5a5a5au && own[4] == 4u * 2654435761u + 31);
	CHECK_HSA(hsa_amd_memory_pool_free(own));
}

static void register_fork(struct ctx *c, void *dev, void *staging)
{
	const size_t size = 4096 + 200;
	unsigned char *raw = malloc(size + 8192);
	uint32_t *buf = (uint32_t *)(void *)(raw + 4096 + 8 - ((uintptr_t)raw & 4095));
	void *a = NULL;
	pid_t pid;
	int st = 0;

	fill_words(buf, size / 4, 41);
	if (hsa_amd_memory_lock(buf, size, &c->gpu, 1, &a) != HSA_STATUS_SUCCESS) {
		report("fork: lock", false);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		buf[0] = 0xc0c0c0c0u;
		_exit(0);
	}
	report("fork: child ran",
	       pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (register_through_vkfd())
		/* documented difference: the registered pages are shared */
		report("fork: child's write seen (vkfd)", buf[0] == 0xc0c0c0c0u);
	else
		report("fork: child's write not seen", buf[0] == 41u);
	buf[1] = 0xabababab;
	report("fork: GPU reads the parent's", gpu_reads(c, dev, staging, a, buf, size));
	report("fork: unlock", hsa_amd_memory_unlock(buf) == HSA_STATUS_SUCCESS);
	report("fork: contents kept", buf[1] == 0xababababu);
	free(raw);
}

static int run_register(void)
{
	const size_t size = 16 * 4096;
	struct ctx c;
	void *dev, *staging;

	setup(&c);
	dev = alloc_in(&c, c.dev_pool, size);
	staging = alloc_in(&c, c.sys_pool, size);
	register_twice(&c, dev, staging);
	register_overlap(&c, dev, staging);
	register_own(&c, dev, staging);
	register_fork(&c, dev, staging);
	CHECK_HSA(hsa_amd_memory_pool_free(staging));
	CHECK_HSA(hsa_amd_memory_pool_free(dev));
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

static int run_unlock_busy(void)
{
	const size_t size = 8 * 4096;
	unsigned char *raw = malloc(size + 8192);
	uint32_t *buf = (uint32_t *)(void *)(raw + 4096 - ((uintptr_t)raw & 4095));
	struct ctx c;
	hsa_signal_t dep, done;
	void *dev, *staging, *a = NULL;

	setup(&c);
	dev = alloc_in(&c, c.dev_pool, size);
	fill_words(buf, size / 4, 51);
	CHECK_HSA(hsa_amd_memory_lock(buf, size, &c.gpu, 1, &a));
	dep = make_signal(&c, 1);
	done = make_signal(&c, 1);
	CHECK_HSA(hsa_amd_memory_async_copy(dev, c.gpu, a, c.gpu, size, 1, &dep, done));
	report("unlock-busy: unlock with the copy queued",
	       hsa_amd_memory_unlock(buf) == HSA_STATUS_SUCCESS);
	printf("hsa_e2e: agent pointer %p no longer registered\n", a);
	hsa_signal_store_screlease(dep, 0);
	/* With a USERPTR BO, ROCr aborts the process on the GPU's fault
	 * before this returns. With SVM pages (libhsakmt 6.x), or through
	 * vkfd (docs/guest-vkfd-backend.md, "USERPTR limits"), the copy may
	 * complete: then it must have read the buffer's bytes. */
	report("unlock-busy: copy completed", wait_signal(done));
	staging = alloc_in(&c, c.sys_pool, size);
	report("unlock-busy: it read the buffer's bytes",
	       copy(&c, staging, c.cpu, dev, c.gpu, size) && memcmp(staging, buf, size) == 0);
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

#endif
