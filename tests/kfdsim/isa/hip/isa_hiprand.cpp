// SPDX-License-Identifier: MIT
// Debian's rocRAND through hipRAND: the precompiled gfx90a kernels of
// librocrand run on kfdsim's ISA interpreter. Philox4x32-10 output is
// checked word for word against a host implementation of the generator
// (itself checked against the Random123 known-answer vector), and the
// uniform floats against the host words scaled as rocRAND documents.
// Usage: isa_hiprand [N]. Exit 0 when all pass.
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static int failures;

#define CHECK_HIP(x)                                                                               \
	do {                                                                                       \
		hipError_t e_ = (x);                                                               \
		if (e_ != hipSuccess) {                                                            \
			printf("isa_hiprand: %s failed: %s\n", #x, hipGetErrorString(e_));        \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

#define CHECK_RAND(x)                                                                              \
	do {                                                                                       \
		hiprandStatus_t e_ = (x);                                                          \
		if (e_ != HIPRAND_STATUS_SUCCESS) {                                                \
			printf("isa_hiprand: %s failed: status %d\n", #x, (int)e_);                \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static void report(const char *name, bool ok)
{
	printf("isa_hiprand: %-36s %s\n", name, ok ? "OK" : "FAIL");
	if (!ok)
		failures++;
}

// Philox4x32-10 (Salmon et al., SC'11): 10 rounds of the 4x32 bijection
// on the counter, the 2x32 key bumped by the Weyl constants each round.
struct philox_out {
	uint32_t w[4];
};

static philox_out philox4x32_10(const uint32_t ctr_in[4], const uint32_t key_in[2])
{
	uint32_t c[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
	uint32_t k[2] = {key_in[0], key_in[1]};

	for (int round = 0; round < 10; round++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n[4] = {(uint32_t)(p1 >> 32) ^ c[1] ^ k[0], (uint32_t)p1,
				 (uint32_t)(p0 >> 32) ^ c[3] ^ k[1], (uint32_t)p0};

		for (int i = 0; i < 4; i++)
			c[i] = n[i];
		k[0] += 0x9E3779B9u;
		k[1] += 0xBB67AE85u;
	}
	return {{c[0], c[1], c[2], c[3]}};
}

// The generator's stream: word 4n+j is word j of the block at counter n
// (a 128-bit counter) under the key (seed low, seed high).
static std::vector<uint32_t> host_philox(uint64_t seed, size_t n)
{
	std::vector<uint32_t> out(n);
	uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};

	for (size_t b = 0; 4 * b < n; b++) {
		uint32_t ctr[4] = {(uint32_t)b, (uint32_t)((uint64_t)b >> 32), 0, 0};
		philox_out o = philox4x32_10(ctr, key);

		for (size_t j = 0; j < 4 && 4 * b + j < n; j++)
			out[4 * b + j] = o.w[j];
	}
	return out;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], nullptr, 0) : 8192;
	if (n < 4 || n > (1u << 24) || n % 4) {
		printf("isa_hiprand: N must be a multiple of 4 in 4..2^24\n");
		return 2;
	}

	// Random123's known answer for counter 0, key 0
	uint32_t zero4[4] = {0, 0, 0, 0}, zero2[2] = {0, 0};
	philox_out kat = philox4x32_10(zero4, zero2);
	report("host philox4x32-10 known answer", kat.w[0] == 0x6627e8d5u && kat.w[1] == 0xe169c58du &&
							  kat.w[2] == 0xbc57ac4cu &&
							  kat.w[3] == 0x9b00dbd8u);

	const uint64_t seed = 0x12345678abcdef01ull;
	unsigned int *d_u;
	float *d_f;
	CHECK_HIP(hipMalloc(&d_u, n * sizeof(unsigned int)));
	CHECK_HIP(hipMalloc(&d_f, n * sizeof(float)));

	hiprandGenerator_t gen;
	CHECK_RAND(hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_PHILOX4_32_10));
	CHECK_RAND(hiprandSetPseudoRandomGeneratorSeed(gen, seed));
	CHECK_RAND(hiprandGenerate(gen, d_u, n));
	CHECK_HIP(hipDeviceSynchronize());
	std::vector<uint32_t> got(n), want = host_philox(seed, 2 * n);
	CHECK_HIP(hipMemcpy(got.data(), d_u, n * sizeof(unsigned int), hipMemcpyDeviceToHost));
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i] && bad++ < 4)
			printf("isa_hiprand: word %zu: got %08x want %08x\n", i, got[i], want[i]);
	report("philox4x32-10 words == host", bad == 0);

	// the stream continues where the last call stopped: uniform floats
	// from words n..2n-1
	CHECK_RAND(hiprandGenerateUniform(gen, d_f, n));
	std::vector<float> f(n);
	CHECK_HIP(hipMemcpy(f.data(), d_f, n * sizeof(float), hipMemcpyDeviceToHost));
	bad = 0;
	for (size_t i = 0; i < n; i++) {
		// rocRAND: word * 2^-32 + 2^-33, in (0, 1]
		double w = (double)want[n + i] * 0x1p-32 + 0x1p-33;
		if (!(f[i] > 0.0f && f[i] <= 1.0f && std::fabs(f[i] - w) <= 1e-6) && bad++ < 4)
			printf("isa_hiprand: float %zu: got %.9g want %.9g\n", i, f[i], w);
	}
	report("uniform floats == host words scaled", bad == 0);

	CHECK_RAND(hiprandDestroyGenerator(gen));
	CHECK_HIP(hipFree(d_u));
	CHECK_HIP(hipFree(d_f));
	printf("isa_hiprand: %s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
