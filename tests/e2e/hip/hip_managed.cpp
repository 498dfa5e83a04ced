// SPDX-License-Identifier: MIT
/*
 * hip_managed: hipMallocManaged on a kfdsim GPU, natively (kfdsim models
 * the SVM API, so HIP takes its SVM path) and through vkfd (the guest has
 * no SVM API, so HIP takes the path of a kernel without SVM). The
 * program's observable behaviour must be the same both ways:
 *
 *   the CPU writes a managed buffer, a kernel reads and rewrites it in
 *   place, the CPU reads the kernel's results; a second kernel reads one
 *   managed buffer and writes another; hipMemPrefetchAsync and
 *   hipMemAdvise answer what they answer (printed, for the comparison the
 *   wrapper makes); hipFree.
 *
 * One line per check or answer, deterministic, so the two runs can be
 * compared line by line (tests/e2e/hip/run_managed.sh). The SVM-specific
 * facts (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED) are printed on stderr only.
 *
 * Exit: 0 all checks passed, 1 a check failed, 2 setup failed.
 */
#include <hip/hip_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_CHECK 1
#define EXIT_SETUP 2

#define N (64 * 1024)

static int failures;

static void report(const char *what, bool ok)
{
	printf("hip_managed: %-44s %s\n", what, ok ? "OK" : "FAILED");
	if (!ok)
		failures++;
}

#define SETUP(call)                                                                                \
	do {                                                                                       \
		hipError_t e_ = (call);                                                            \
		if (e_ != hipSuccess) {                                                            \
			fprintf(stderr, "hip_managed: %s: %s\n", #call, hipGetErrorName(e_));      \
			exit(EXIT_SETUP);                                                          \
		}                                                                                  \
	} while (0)

__global__ void scale_in_place(uint32_t *a, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] * 3u + i;
}

__global__ void copy_plus(const uint32_t *a, uint32_t *b, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		b[i] = a[i] + 1u;
}

int main()
{
	uint32_t *a = NULL, *b = NULL;
	hipStream_t s;
	uint32_t bad = 0;
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SETUP(hipSetDevice(0));
	SETUP(hipStreamCreate(&s));
	ok = hipMallocManaged((void **)&a, N * sizeof(*a), hipMemAttachGlobal) == hipSuccess &&
	     a != NULL;
	report("hipMallocManaged", ok);
	ok = ok && hipMallocManaged((void **)&b, N * sizeof(*b), hipMemAttachGlobal) == hipSuccess &&
	     b != NULL;
	report("second hipMallocManaged", ok);
	if (!ok)
		return EXIT_CHECK;

	/* the CPU writes, the GPU rewrites in place, the CPU reads */
	for (uint32_t i = 0; i < N; i++)
		a[i] = i ^ 0x5a5a5a5au;
	hipLaunchKernelGGL(scale_in_place, dim3(N / 256), dim3(256), 0, s, a, (uint32_t)N);
	ok = hipStreamSynchronize(s) == hipSuccess;
	report("kernel on managed memory completes", ok);
	for (uint32_t i = 0; ok && i < N; i++)
		if (a[i] != (i ^ 0x5a5a5a5au) * 3u + i)
			bad++;
	if (bad)
		fprintf(stderr, "hip_managed: %u of %u words wrong\n", bad, N);
	report("CPU sees the kernel's writes", ok && bad == 0);

	/* managed -> managed through a kernel, after a CPU write in between */
	a[0] = 7;
	hipLaunchKernelGGL(copy_plus, dim3(N / 256), dim3(256), 0, s, a, b, (uint32_t)N);
	ok = hipStreamSynchronize(s) == hipSuccess;
	bad = 0;
	for (uint32_t i = 0; ok && i < N; i++)
		if (b[i] != a[i] + 1u)
			bad++;
	report("kernel reads one managed buffer, writes another", ok && bad == 0 && b[0] == 8);

	/* the hints: whatever they answer must be the same both ways */
	printf("hip_managed: hipMemAdvise(SetReadMostly) -> %s\n",
	       hipGetErrorName(hipMemAdvise(a, N * sizeof(*a), hipMemAdviseSetReadMostly, 0)));
	(void)hipGetLastError();
	printf("hip_managed: hipMemPrefetchAsync(device 0) -> %s\n",
	       hipGetErrorName(hipMemPrefetchAsync(a, N * sizeof(*a), 0, s)));
	(void)hipGetLastError();
	report("stream idle after the hints", hipStreamSynchronize(s) == hipSuccess);
	/* contents survive the hints */
	bad = 0;
	for (uint32_t i = 1; i < N; i++)
		if (a[i] != (i ^ 0x5a5a5a5au) * 3u + i)
			bad++;
	report("contents survive the hints", bad == 0 && a[0] == 7);

	report("hipFree of managed memory", hipFree(a) == hipSuccess && hipFree(b) == hipSuccess);
	SETUP(hipStreamDestroy(s));
	printf("hip_managed: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}
