// SPDX-License-Identifier: MIT
/*
 * hip_basic: the HIP runtime (Debian 12's libamdhip64 5.2.3, built with
 * hipcc; the version matrix also builds it with Debian 13's and unstable's
 * hipcc and HIP) on a kfdsim GPU, through whatever provides /dev/kfd (the
 * native shim or vkfd). The program launches no kernel of its own.
 *
 *   hip_basic VRAM_BYTES [copy]
 *
 * Always: hipGetDeviceCount, hipGetDeviceProperties (gfx90a, totalGlobalMem
 * equal to VRAM_BYTES), hipMemGetInfo, hipMalloc (sizes, distinct ranges,
 * pointer attributes, free memory accounting, an allocation larger than
 * VRAM refused), hipHostMalloc/hipHostFree.
 * "copy" adds hipMemcpy host->device->host with content checks and hipFree.
 * Those need the runtime's first stream, whose creation uploads ROCclr's
 * blit kernels into VRAM with a GPU copy kernel, which kfdsim's ISA
 * interpreter runs (docs/hip.md); a watchdog ends a run whose HIP call
 * does not return.
 *
 * Exit: 0 all checks passed, 1 a check failed, 2 setup failed,
 * 3 the watchdog fired (a HIP call did not return).
 */
#include <hip/hip_runtime.h>

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HIP 6 dropped hipDeviceProp_t.gcnArch (gcnArchName stays) and renamed
 * hipPointerAttribute_t.memoryType to type; the version matrix builds this
 * program with HIP 5.2 to 6.4 (docs/hip.md). */
#if HIP_VERSION_MAJOR >= 6
#define POINTER_MEMORY_TYPE(attr) ((attr).type)
#else
#define POINTER_MEMORY_TYPE(attr) ((attr).memoryType)
#define HAVE_GCN_ARCH             1
#endif

#define EXIT_CHECK    1
#define EXIT_SETUP    2
#define EXIT_WATCHDOG 3

/* Enough for the first stream (blit kernels compiled on the CPU) on a busy
 * two-core machine; only armed in copy mode. */
#define WATCHDOG_SECONDS 60

static int failures;
static const char *volatile current_call = "(none)";

static void report(const char *what, bool ok)
{
	printf("hip_basic: %-36s %s\n", what, ok ? "OK" : "FAILED");
	if (!ok)
		failures++;
}

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("hip_basic: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

/* A HIP error outside the checked behaviour: the run cannot go on. */
static void check_setup(hipError_t err, const char *call)
{
	if (err == hipSuccess)
		return;
	fprintf(stderr, "hip_basic: %s failed: %d %s\n", call, (int)err, hipGetErrorString(err));
	exit(EXIT_SETUP);
}

#define SETUP(call) check_setup((call), #call)

/* Names the call in progress for the watchdog's message. */
#define WATCHED(call) (current_call = #call, (call))

static void watchdog(int sig)
{
	static const char head[] = "hip_basic: watchdog: no return from ";
	static const char tail[] = " (on kfdsim: see docs/hip.md)\n";
	const char *call = current_call;
	ssize_t r;

	(void)sig;
	r = write(STDERR_FILENO, head, sizeof(head) - 1);
	r = write(STDERR_FILENO, call, strlen(call));
	r = write(STDERR_FILENO, tail, sizeof(tail) - 1);
	(void)r;
	_exit(EXIT_WATCHDOG);
}

/* "gfx90a" or "gfx90a:sramecc+:xnack-": the target before any feature. */
static bool arch_is(const char *arch, const char *want)
{
	size_t n = strlen(want);

	return strncmp(arch, want, n) == 0 && (arch[n] == '\0' || arch[n] == ':');
}

static void test_device(size_t vram)
{
	hipDeviceProp_t prop;
	size_t free_b = 0, total_b = 0;
	int count = -1;

	SETUP(hipGetDeviceCount(&count));
	report("hipGetDeviceCount == 1", count == 1);
	if (count < 1)
		exit(EXIT_CHECK);

	memset(&prop, 0, sizeof(prop));
	SETUP(hipGetDeviceProperties(&prop, 0));
	note("device 0: name \"%s\" gcnArchName \"%s\" totalGlobalMem %zu", prop.name,
	     prop.gcnArchName, prop.totalGlobalMem);
	report("gcnArchName is gfx90a", arch_is(prop.gcnArchName, "gfx90a"));
#ifdef HAVE_GCN_ARCH
	report("gcnArch is 910", prop.gcnArch == 910);
#endif
	report("totalGlobalMem == simulated VRAM", prop.totalGlobalMem == vram);

	SETUP(hipMemGetInfo(&free_b, &total_b));
	report("hipMemGetInfo total == VRAM", total_b == vram);
	report("hipMemGetInfo free <= total", free_b <= total_b && free_b > 0);
}

static const size_t buf_sizes[] = {4096, (1u << 20) + 8, 4u << 20};
#define N_BUFS (sizeof(buf_sizes) / sizeof(buf_sizes[0]))

static void test_malloc(size_t vram, void *bufs[N_BUFS])
{
	size_t free_before = 0, free_after = 0, total_b = 0, sum = 0;
	void *p = NULL;
	bool ok = true;

	SETUP(hipMemGetInfo(&free_before, &total_b));
	for (size_t i = 0; i < N_BUFS; i++) {
		bufs[i] = NULL;
		SETUP(hipMalloc(&bufs[i], buf_sizes[i]));
		ok = ok && bufs[i] != NULL;
		sum += buf_sizes[i];
	}
	report("hipMalloc returns buffers", ok);
	for (size_t i = 0; ok && i < N_BUFS; i++)
		for (size_t j = 0; j < N_BUFS; j++) {
			uintptr_t a = (uintptr_t)bufs[i], b = (uintptr_t)bufs[j];

			if (i != j && a < b + buf_sizes[j] && b < a + buf_sizes[i])
				ok = false;
		}
	report("hipMalloc buffers do not overlap", ok);

	ok = true;
	for (size_t i = 0; i < N_BUFS; i++) {
		hipPointerAttribute_t attr;

		memset(&attr, 0, sizeof(attr));
		SETUP(hipPointerGetAttributes(&attr, bufs[i]));
		ok = ok && POINTER_MEMORY_TYPE(attr) == hipMemoryTypeDevice && attr.device == 0 &&
		     attr.devicePointer == bufs[i];
	}
	report("pointer attributes: device 0 memory", ok);

	SETUP(hipMemGetInfo(&free_after, &total_b));
	note("free VRAM %zu -> %zu after %zu bytes", free_before, free_after, sum);
	report("free VRAM drops by the allocations",
	       free_after < free_before && free_before - free_after >= sum);

	/* More than the whole VRAM: refused, nothing returned. */
	report("hipMalloc(VRAM + 1 MiB) refused",
	       hipMalloc(&p, vram + (1u << 20)) == hipErrorOutOfMemory && p == NULL);
	(void)hipGetLastError(); /* clear the sticky error of the refused call */

	p = NULL;
	report("hipMalloc(0) gives NULL", hipMalloc(&p, 0) == hipSuccess && p == NULL);
}

static void test_host_alloc(void)
{
	uint8_t *h = NULL;
	hipPointerAttribute_t attr;
	bool ok;

	SETUP(hipHostMalloc((void **)&h, 64 * 1024, hipHostMallocDefault));
	memset(h, 0x5a, 64 * 1024);
	ok = h[0] == 0x5a && h[64 * 1024 - 1] == 0x5a;
	memset(&attr, 0, sizeof(attr));
	SETUP(hipPointerGetAttributes(&attr, h));
	ok = ok && POINTER_MEMORY_TYPE(attr) == hipMemoryTypeHost && attr.hostPointer == h;
	report("hipHostMalloc memory is host memory", ok);
	report("hipHostFree", hipHostFree(h) == hipSuccess);
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static void test_copy(void *bufs[N_BUFS])
{
	size_t free_before = 0, free_after = 0, total_b = 0;

	for (size_t i = 0; i < N_BUFS; i++) {
		size_t n = buf_sizes[i];
		uint8_t *src = (uint8_t *)malloc(n), *dst = (uint8_t *)malloc(n);
		char what[64];
		bool ok;

		if (!src || !dst) {
			fprintf(stderr, "hip_basic: out of host memory\n");
			exit(EXIT_SETUP);
		}
		fill_pattern(src, n, (uint32_t)(0x9e3779b9u * (i + 1)));
		memset(dst, 0, n);
		ok = WATCHED(hipMemcpy(bufs[i], src, n, hipMemcpyHostToDevice)) == hipSuccess;
		snprintf(what, sizeof(what), "hipMemcpy H2D %zu bytes", n);
		report(what, ok);
		ok = ok && WATCHED(hipMemcpy(dst, bufs[i], n, hipMemcpyDeviceToHost)) == hipSuccess;
		snprintf(what, sizeof(what), "hipMemcpy D2H %zu bytes", n);
		report(what, ok);
		snprintf(what, sizeof(what), "round trip contents %zu bytes", n);
		report(what, ok && memcmp(src, dst, n) == 0);
		free(dst);
		free(src);
	}

	SETUP(hipMemGetInfo(&free_before, &total_b));
	for (size_t i = 0; i < N_BUFS; i++)
		report("hipFree", WATCHED(hipFree(bufs[i])) == hipSuccess);
	SETUP(hipMemGetInfo(&free_after, &total_b));
	report("free VRAM grows back after hipFree", free_after > free_before);
}

int main(int argc, char **argv)
{
	void *bufs[N_BUFS];
	bool copy = argc > 2 && strcmp(argv[2], "copy") == 0;
	unsigned long long vram;
	char *end = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argc > 3 || (argc == 3 && !copy)) {
		fprintf(stderr, "usage: hip_basic VRAM_BYTES [copy]\n");
		return EXIT_SETUP;
	}
	vram = strtoull(argv[1], &end, 0);
	if (!end || *end || vram == 0) {
		fprintf(stderr, "hip_basic: bad VRAM_BYTES '%s'\n", argv[1]);
		return EXIT_SETUP;
	}

	test_device((size_t)vram);
	test_malloc((size_t)vram, bufs);
	test_host_alloc();
	if (copy) {
		signal(SIGALRM, watchdog);
		alarm(WATCHDOG_SECONDS);
		test_copy(bufs);
		alarm(0);
	}
	/* Without "copy" the device buffers stay allocated: hipFree would
	 * create the first stream. Process exit releases them. */
	note("%s (%d failed)", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}
