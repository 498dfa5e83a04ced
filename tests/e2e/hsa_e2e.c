// SPDX-License-Identifier: MIT
/*
 * hsa_e2e: exercise ROCr (HSA runtime) end to end on a kfdsim GPU, through
 * whatever provides /dev/kfd (the native shim or vkfd).
 *
 *   hsa_e2e [all]   FILL_U32 and VADD_F32 dispatches on an AQL queue with an
 *                   interrupt completion signal, host<->device SDMA copies
 *   hsa_e2e fault   a FAULT dispatch at FAULT_ADDR: ROCr must report
 *                   "Memory access fault" and abort the process
 *   hsa_e2e illegal a real kernel descriptor (not "KFDSIM01") whose code
 *                   is not a gfx9 instruction: kfdsim's ISA interpreter
 *                   finds it illegal and ROCr must call the queue's error
 *                   callback with HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION
 *   hsa_e2e lock    hsa_amd_memory_lock of malloc'ed memory that starts
 *                   and ends inside a page (hipHostRegister), SDMA copies
 *                   to and from the returned agent pointer, the bytes seen
 *                   through the CPU pointer and the bytes around the
 *                   buffer checked, then hsa_amd_memory_unlock
 *   hsa_e2e register, unlock-busy
 *                   the edge cases of hsa_amd_memory_lock (hsa_register.h)
 *   hsa_e2e hostmem [MIB [ROUNDS]]
 *                   allocate, touch, check and free MIB MiB of system
 *                   memory ROUNDS times (hsa_hostmem.h)
 *   hsa_e2e matrix [MAX]
 *                   the version matrix's workload (tests/e2e/matrix, code
 *                   in hsa_matrix.h): async copies host->device,
 *                   device->host and device->device from 1 byte to 1 GiB
 *                   (none above MAX bytes) verified byte for byte,
 *                   FILL_U32 and VADD_F32 dispatches, a barrier-AND packet
 *                   and a copy held back by a dependency signal, signal
 *                   waits that time out; with two GPUs also peer access, a
 *                   copy between them and a dispatch on each. One
 *                   deterministic line per check, so runs can be compared.
 *   hsa_e2e svm     hsa_amd_svm_attributes_set/get and prefetch on mmap'ed
 *                   memory a dispatch writes (hsa_svm.h)
 *   hsa_e2e ipc     hsa_amd_ipc_memory_create in one process, attach in a
 *                   second, a device buffer read and written both ways
 *                   (hsa_ipc.h)
 *
 * Kernels are kfdsim builtins: kernel_object points at a 64-byte descriptor
 * "KFDSIM01" + u32 builtin number (docs in DESIGN.md).
 *
 * Exit: 0 all checks passed, 1 a check failed, 2 setup failed (HSA error).
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

#define BUILTIN_FILL_U32 1
#define BUILTIN_VADD_F32 3
#define BUILTIN_FAULT    5

/* Unmapped in every GPU VM the runtime builds: low, page aligned and
 * recognisable in ROCr's message. */
#define FAULT_ADDR 0xdead0000ULL

#define N_ELEMS      4096
#define WAIT_SECONDS 20

struct ctx {
	hsa_agent_t cpu, gpu;
	bool have_cpu, have_gpu;
	hsa_amd_memory_pool_t dev_pool;  /* GPU coarse-grained global */
	hsa_amd_memory_pool_t sys_pool;  /* CPU fine-grained global */
	hsa_amd_memory_pool_t karg_pool; /* CPU kernarg */
	bool have_dev, have_sys, have_karg;
	hsa_queue_t *queue;
	char gpu_name[64];
};

static int failures;
/* Set by the illegal mode's queue error callback; ends signal waits. */
static hsa_status_t queue_error = HSA_STATUS_SUCCESS;
/* How long wait_signal waits before it reports a hang (the matrix mode's
 * 1 GiB copies through vkfd on a busy machine need more). */
static double wait_seconds = WAIT_SECONDS;

#define CHECK_HSA(call)                                                                            \
	do {                                                                                       \
		hsa_status_t st_ = (call);                                                         \
		if (st_ != HSA_STATUS_SUCCESS) {                                                   \
			const char *msg_ = NULL;                                                   \
			hsa_status_string(st_, &msg_);                                             \
			fprintf(stderr, "hsa_e2e: %s failed: 0x%x %s\n", #call, (unsigned)st_,     \
				msg_ ? msg_ : "");                                                 \
			exit(EXIT_SETUP);                                                          \
		}                                                                                  \
	} while (0)

static void report(const char *what, bool ok)
{
	printf("hsa_e2e: %-28s %s\n", what, ok ? "OK" : "FAILED");
	if (!ok)
		failures++;
}

static hsa_status_t find_agent(hsa_agent_t agent, void *data)
{
	struct ctx *c = data;
	hsa_device_type_t type;

	CHECK_HSA(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
	if (type == HSA_DEVICE_TYPE_GPU && !c->have_gpu) {
		c->gpu = agent;
		c->have_gpu = true;
		CHECK_HSA(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, c->gpu_name));
	} else if (type == HSA_DEVICE_TYPE_CPU && !c->have_cpu) {
		c->cpu = agent;
		c->have_cpu = true;
	}
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_gpu_pool(hsa_amd_memory_pool_t pool, void *data)
{
	struct ctx *c = data;
	hsa_amd_segment_t seg;
	uint32_t flags;

	CHECK_HSA(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
	if (seg != HSA_AMD_SEGMENT_GLOBAL)
		return HSA_STATUS_SUCCESS;
	CHECK_HSA(
	    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !c->have_dev) {
		c->dev_pool = pool;
		c->have_dev = true;
	}
	return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_cpu_pool(hsa_amd_memory_pool_t pool, void *data)
{
	struct ctx *c = data;
	hsa_amd_segment_t seg;
	uint32_t flags;

	CHECK_HSA(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
	if (seg != HSA_AMD_SEGMENT_GLOBAL)
		return HSA_STATUS_SUCCESS;
	CHECK_HSA(
	    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !c->have_karg) {
		c->karg_pool = pool;
		c->have_karg = true;
	}
	if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !c->have_sys) {
		c->sys_pool = pool;
		c->have_sys = true;
	}
	return HSA_STATUS_SUCCESS;
}

static void *alloc_in(struct ctx *c, hsa_amd_memory_pool_t pool, size_t size)
{
	void *p = NULL;

	CHECK_HSA(hsa_amd_memory_pool_allocate(pool, size, 0, &p));
	/* Both agents may touch every buffer of this test. */
	hsa_agent_t agents[2] = {c->gpu, c->cpu};
	CHECK_HSA(hsa_amd_agents_allow_access(2, agents, NULL, p));
	return p;
}

static void setup_queue(struct ctx *c, void (*cb)(hsa_status_t, hsa_queue_t *, void *))
{
	memset(c, 0, sizeof(*c));
	CHECK_HSA(hsa_init());
	CHECK_HSA(hsa_iterate_agents(find_agent, c));
	if (!c->have_gpu || !c->have_cpu) {
		fprintf(stderr, "hsa_e2e: no %s agent\n", c->have_gpu ? "CPU" : "GPU");
		exit(EXIT_SETUP);
	}
	CHECK_HSA(hsa_amd_agent_iterate_memory_pools(c->gpu, find_gpu_pool, c));
	CHECK_HSA(hsa_amd_agent_iterate_memory_pools(c->cpu, find_cpu_pool, c));
	if (!c->have_dev || !c->have_sys || !c->have_karg) {
		fprintf(stderr, "hsa_e2e: missing pool (device %d, system %d, kernarg %d)\n",
			c->have_dev, c->have_sys, c->have_karg);
		exit(EXIT_SETUP);
	}
	CHECK_HSA(hsa_queue_create(c->gpu, 256, HSA_QUEUE_TYPE_SINGLE, cb, NULL, UINT32_MAX,
				   UINT32_MAX, &c->queue));
	printf("hsa_e2e: GPU agent %s, queue of %u packets\n", c->gpu_name, c->queue->size);
}

static void setup(struct ctx *c)
{
	setup_queue(c, NULL);
}

static hsa_signal_t make_signal(struct ctx *c, hsa_signal_value_t init)
{
	hsa_agent_t consumers[2] = {c->cpu, c->gpu};
	hsa_signal_t s;

	/* CPU + GPU consumers: an interrupt signal (event backed). */
	CHECK_HSA(hsa_signal_create(init, 2, consumers, &s));
	return s;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Blocked wait (the interrupt path) until the signal drops below 1. */
static bool wait_signal(hsa_signal_t s)
{
	double deadline = now_s() + wait_seconds;
	uint64_t freq = 0;
	hsa_signal_value_t v;

	/* The timeout is a hint in system timestamp ticks: wake up every
	 * second or so to check the deadline. */
	CHECK_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq));
	do {
		v = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1,
					      freq ? freq : 1000000000, HSA_WAIT_STATE_BLOCKED);
		if (v < 1)
			return true;
	} while (now_s() < deadline &&
		 __atomic_load_n(&queue_error, __ATOMIC_ACQUIRE) == HSA_STATUS_SUCCESS);
	fprintf(stderr, "hsa_e2e: signal still %" PRId64 " after %.1f s\n", (int64_t)v,
		now_s() - deadline + wait_seconds);
	return false;
}

static void *make_descriptor(struct ctx *c, uint32_t builtin)
{
	uint8_t *d = alloc_in(c, c->sys_pool, 128);

	memset(d, 0, 128);
	if (builtin) {
		memcpy(d, "KFDSIM01", 8);
		memcpy(d + 8, &builtin, sizeof(builtin));
	} else {
		/* builtin 0: a real (code object v3) kernel descriptor whose
		 * entry, 64 bytes on, holds words that are no gfx9
		 * instruction (encoding 0xffffffff) */
		int64_t entry = 64;

		memcpy(d + 16, &entry, sizeof(entry));
		memset(d + 64, 0xff, 64);
	}
	return d;
}

static bool dispatch(struct ctx *c, uint32_t builtin, const void *kargs, size_t kargs_size)
{
	hsa_queue_t *q = c->queue;
	hsa_kernel_dispatch_packet_t *pkt;
	void *desc = make_descriptor(c, builtin);
	void *karg = alloc_in(c, c->karg_pool, 256);
	hsa_signal_t done = make_signal(c, 1);
	uint64_t idx;
	uint16_t header;
	bool ok;

	memcpy(karg, kargs, kargs_size);
	idx = hsa_queue_add_write_index_relaxed(q, 1);
	while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size)
		;
	pkt = (hsa_kernel_dispatch_packet_t *)q->base_address + (idx & (q->size - 1));
	memset((uint8_t *)pkt + 4, 0, sizeof(*pkt) - 4);
	pkt->workgroup_size_x = 1;
	pkt->workgroup_size_y = 1;
	pkt->workgroup_size_z = 1;
	pkt->grid_size_x = 1;
	pkt->grid_size_y = 1;
	pkt->grid_size_z = 1;
	pkt->kernel_object = (uint64_t)(uintptr_t)desc;
	pkt->kernarg_address = karg;
	pkt->completion_signal = done;
	header = (uint16_t)(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
			    1 << HSA_PACKET_HEADER_BARRIER |
			    HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
			    HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
	/* Header and setup last, in one release store: the packet is valid. */
	__atomic_store_n((uint32_t *)pkt,
			 (uint32_t)header |
			     (uint32_t)1 << (16 + HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS),
			 __ATOMIC_RELEASE);
	hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
	ok = wait_signal(done);
	CHECK_HSA(hsa_signal_destroy(done));
	CHECK_HSA(hsa_amd_memory_pool_free(karg));
	CHECK_HSA(hsa_amd_memory_pool_free(desc));
	return ok;
}

static bool copy(struct ctx *c, void *dst, hsa_agent_t dst_agent, const void *src,
		 hsa_agent_t src_agent, size_t size)
{
	hsa_signal_t done = make_signal(c, 1);
	bool ok;

	CHECK_HSA(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, size, 0, NULL, done));
	ok = wait_signal(done);
	CHECK_HSA(hsa_signal_destroy(done));
	return ok;
}

static void test_copies(struct ctx *c, uint32_t *dev, uint32_t *host_a, uint32_t *host_b)
{
	bool ok;

	for (uint32_t i = 0; i < N_ELEMS; i++) {
		host_a[i] = i * 2654435761u;
		host_b[i] = 0;
	}
	ok = copy(c, dev, c->gpu, host_a, c->cpu, N_ELEMS * 4);
	report("async copy host->device", ok);
	ok = ok && copy(c, host_b, c->cpu, dev, c->gpu, N_ELEMS * 4);
	report("async copy device->host", ok);
	ok = ok && memcmp(host_a, host_b, N_ELEMS * 4) == 0;
	report("copy round trip contents", ok);
}

static void test_fill(struct ctx *c, uint32_t *dev, uint32_t *host)
{
	struct {
		uint64_t dst;
		uint32_t value;
		uint32_t count;
	} k = {(uint64_t)(uintptr_t)dev, 0xC0FFEE01u, N_ELEMS - 1};
	bool ok;
	uint32_t bad = 0;

	memset(host, 0, N_ELEMS * 4);
	ok = copy(c, dev, c->gpu, host, c->cpu, N_ELEMS * 4);
	ok = ok && dispatch(c, BUILTIN_FILL_U32, &k, sizeof(k));
	report("FILL_U32 dispatch completes", ok);
	ok = ok && copy(c, host, c->cpu, dev, c->gpu, N_ELEMS * 4);
	/* count is one short of the buffer: the last word must stay 0. */
	for (uint32_t i = 0; ok && i < N_ELEMS; i++)
		if (host[i] != (i < N_ELEMS - 1 ? k.value : 0))
			bad++;
	if (bad)
		fprintf(stderr, "hsa_e2e: FILL_U32: %u of %u words wrong\n", bad, N_ELEMS);
	report("FILL_U32 results", ok && bad == 0);
}

static void test_vadd(struct ctx *c, uint32_t *dev, float *a, float *b, float *host)
{
	struct {
		uint64_t a, b, c;
		uint32_t n;
		uint32_t pad;
	} k = {(uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)dev, N_ELEMS,
	       0};
	uint32_t bad = 0;
	bool ok;

	for (uint32_t i = 0; i < N_ELEMS; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = 1000.0f - (float)i;
		host[i] = -1.0f;
	}
	ok = dispatch(c, BUILTIN_VADD_F32, &k, sizeof(k));
	report("VADD_F32 dispatch completes", ok);
	ok = ok && copy(c, host, c->cpu, dev, c->gpu, N_ELEMS * 4);
	for (uint32_t i = 0; ok && i < N_ELEMS; i++)
		if (host[i] != a[i] + b[i])
			bad++;
	if (bad)
		fprintf(stderr, "hsa_e2e: VADD_F32: %u of %u results wrong\n", bad, N_ELEMS);
	report("VADD_F32 results", ok && bad == 0);
}

static int run_all(void)
{
	struct ctx c;
	uint32_t *dev, *h1, *h2;
	float *fa, *fb;

	setup(&c);
	dev = alloc_in(&c, c.dev_pool, N_ELEMS * 4);
	h1 = alloc_in(&c, c.sys_pool, N_ELEMS * 4);
	h2 = alloc_in(&c, c.sys_pool, N_ELEMS * 4);
	fa = alloc_in(&c, c.sys_pool, N_ELEMS * 4);
	fb = alloc_in(&c, c.sys_pool, N_ELEMS * 4);

	test_copies(&c, dev, h1, h2);
	test_fill(&c, dev, h1);
	test_vadd(&c, dev, fa, fb, (float *)h2);

	CHECK_HSA(hsa_amd_memory_pool_free(fb));
	CHECK_HSA(hsa_amd_memory_pool_free(fa));
	CHECK_HSA(hsa_amd_memory_pool_free(h2));
	CHECK_HSA(hsa_amd_memory_pool_free(h1));
	CHECK_HSA(hsa_amd_memory_pool_free(dev));
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

/* hsa_amd_memory_lock: ROCr registers the pages around the buffer with
 * libhsakmt, which gives them a GPU VA of its own (the agent pointer). */
static int run_lock(void)
{
	const size_t size = N_ELEMS * 4, pad = 4096;
	struct ctx c;
	uint32_t *dev, *staging, *buf;
	unsigned char *raw;
	void *agent_ptr = NULL;
	uint32_t bad = 0;
	bool ok;

	setup(&c);
	dev = alloc_in(&c, c.dev_pool, size);
	staging = alloc_in(&c, c.sys_pool, size);
	raw = malloc(size + 2 * pad);
	if (!raw) {
		fprintf(stderr, "hsa_e2e: malloc failed\n");
		return EXIT_SETUP;
	}
	memset(raw, 0x5c, size + 2 * pad);
	/* neither end on a page boundary */
	buf = (uint32_t *)(void *)(raw + pad + 36 - ((uintptr_t)raw & 4095));
	for (uint32_t i = 0; i < N_ELEMS; i++)
		buf[i] = i * 2246822519u + 7;
	ok = hsa_amd_memory_lock(buf, size, &c.gpu, 1, &agent_ptr) == HSA_STATUS_SUCCESS &&
	     agent_ptr != NULL;
	report("hsa_amd_memory_lock", ok);
	if (!ok)
		return EXIT_CHECK;
	printf("hsa_e2e: agent pointer %s the CPU pointer\n",
	       agent_ptr == (void *)buf ? "equals" : "differs from");
	for (uint32_t i = 0; i < N_ELEMS; i++)
		if (buf[i] != i * 2246822519u + 7)
			bad++;
	report("locked buffer keeps its contents", bad == 0);
	/* locked -> device -> staging: the GPU read the CPU's bytes */
	ok = copy(&c, dev, c.gpu, agent_ptr, c.gpu, size);
	ok = ok && copy(&c, staging, c.cpu, dev, c.gpu, size);
	report("copy from the agent pointer", ok && memcmp(staging, buf, size) == 0);
	/* device -> locked: the CPU sees the GPU's bytes */
	for (uint32_t i = 0; i < N_ELEMS; i++)
		staging[i] = ~i;
	ok = copy(&c, dev, c.gpu, staging, c.cpu, size);
	ok = ok && copy(&c, agent_ptr, c.gpu, dev, c.gpu, size);
	bad = 0;
	for (uint32_t i = 0; ok && i < N_ELEMS; i++)
		if (buf[i] != ~i)
			bad++;
	report("copy to the agent pointer, seen by the CPU", ok && bad == 0);
	/* the bytes around the buffer, in its first and last page */
	bad = 0;
	for (unsigned char *q = raw; q < (unsigned char *)buf; q++)
		bad += *q != 0x5c;
	for (unsigned char *q = (unsigned char *)buf + size; q < raw + size + 2 * pad; q++)
		bad += *q != 0x5c;
	report("bytes around the locked buffer untouched", bad == 0);
	buf[0] = 0xabcdef01u;
	report("hsa_amd_memory_unlock", hsa_amd_memory_unlock(buf) == HSA_STATUS_SUCCESS);
	bad = 0;
	for (uint32_t i = 1; i < N_ELEMS; i++)
		if (buf[i] != ~i)
			bad++;
	report("contents survive unlock", buf[0] == 0xabcdef01u && bad == 0 && raw[0] == 0x5c);
	free(raw);
	CHECK_HSA(hsa_amd_memory_pool_free(staging));
	CHECK_HSA(hsa_amd_memory_pool_free(dev));
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

static int run_fault(void)
{
	struct ctx c;
	uint64_t addr = FAULT_ADDR;

	setup(&c);
	printf("hsa_e2e: FAULT dispatch reading 0x%" PRIx64 "\n", addr);
	fflush(stdout);
	/* ROCr's default handler reports the fault and aborts: not returning
	 * from here is the expected outcome. */
	dispatch(&c, BUILTIN_FAULT, &addr, sizeof(addr));
	fprintf(stderr, "hsa_e2e: FAULT dispatch finished without a memory fault\n");
	return EXIT_CHECK;
}

/* Runs on ROCr's event thread once the queue reports an error. */
static void on_queue_error(hsa_status_t status, hsa_queue_t *source, void *data)
{
	(void)source;
	(void)data;
	__atomic_store_n(&queue_error, status, __ATOMIC_RELEASE);
}

static int run_illegal(void)
{
	struct ctx c;
	const char *msg = NULL;
	uint64_t zero = 0;
	hsa_status_t st = HSA_STATUS_SUCCESS;
	double deadline;

	setup_queue(&c, on_queue_error);
	printf("hsa_e2e: dispatch of a kernel whose code is not a gfx9 instruction\n");
	fflush(stdout);
	/* The completion signal never drops; the callback must come first. */
	deadline = now_s() + WAIT_SECONDS;
	if (dispatch(&c, 0, &zero, sizeof(zero))) {
		fprintf(stderr, "hsa_e2e: illegal dispatch completed\n");
		return EXIT_CHECK;
	}
	while ((st = __atomic_load_n(&queue_error, __ATOMIC_ACQUIRE)) == HSA_STATUS_SUCCESS &&
	       now_s() < deadline)
		;
	if (st == HSA_STATUS_SUCCESS) {
		fprintf(stderr, "hsa_e2e: no queue error reported\n");
		return EXIT_CHECK;
	}
	hsa_status_string(st, &msg);
	printf("hsa_e2e: queue error 0x%x: %s\n", (unsigned)st, msg ? msg : "(no string)");
	report("illegal instruction reported",
	       st == (hsa_status_t)HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
	return failures ? EXIT_CHECK : 0;
}

#include "hsa_matrix.h"
#include "hsa_hostmem.h"
#include "hsa_register.h"
#include "hsa_svm.h"
#include "hsa_ipc.h"

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "all") == 0)
		return run_all();
	if (strcmp(mode, "fault") == 0)
		return run_fault();
	if (strcmp(mode, "lock") == 0)
		return run_lock();
	if (strcmp(mode, "illegal") == 0)
		return run_illegal();
	if (strcmp(mode, "matrix") == 0)
		return run_matrix(argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : MATRIX_BIG);
	if (strcmp(mode, "register") == 0)
		return run_register();
	if (strcmp(mode, "unlock-busy") == 0)
		return run_unlock_busy();
	if (strcmp(mode, "hostmem") == 0)
		return run_hostmem(argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : 64,
				   argc > 3 ? (unsigned int)strtoul(argv[3], NULL, 0) : 2);
	if (strcmp(mode, "svm") == 0)
		return run_svm();
	if (strcmp(mode, "ipc") == 0)
		return run_ipc();
	fprintf(stderr,
		"usage: hsa_e2e [all|fault|illegal|lock|register|unlock-busy|matrix|svm|ipc|"
		"hostmem [MIB [ROUNDS]]]\n");
	return EXIT_SETUP;
}
