// SPDX-License-Identifier: MIT
// rocPRIM (Debian's librocprim-dev headers, compiled here by hipcc for
// gfx90a) on kfdsim's ISA interpreter: device-wide reduce, inclusive and
// exclusive scan, and radix sort of keys and of key/value pairs, each
// checked against a host computation. The sorts cover the three paths of
// rocPRIM's radix sort: one block, block sort + merge, and the digit
// iterations (upsweep, scan, downsweep; reached at this small size through
// a configuration with a low merge limit). Usage: isa_rocprim [N].
// Exit 0 when all pass.
#include <hip/hip_runtime.h>
#include <rocprim/device/device_radix_sort.hpp>
#include <rocprim/device/device_reduce.hpp>
#include <rocprim/device/device_scan.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

static int failures;

#define CHECK_HIP(x)                                                                               \
	do {                                                                                       \
		hipError_t e_ = (x);                                                               \
		if (e_ != hipSuccess) {                                                            \
			printf("isa_rocprim: %s failed: %s\n", #x, hipGetErrorString(e_));        \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static void report(const char *name, size_t n, bool ok)
{
	printf("isa_rocprim: %-26s n=%-7zu %s\n", name, n, ok ? "OK" : "FAIL");
	if (!ok)
		failures++;
}

// Deterministic input, independent of the C library's rand().
static uint32_t next_random(uint64_t &s)
{
	s = s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(s >> 33);
}

template <typename T> static T *to_device(const std::vector<T> &v)
{
	T *d;
	CHECK_HIP(hipMalloc(&d, v.size() * sizeof(T) + 4));
	CHECK_HIP(hipMemcpy(d, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
	return d;
}

template <typename T> static std::vector<T> from_device(const T *d, size_t n)
{
	std::vector<T> v(n);
	CHECK_HIP(hipMemcpy(v.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
	return v;
}

static void test_reduce(size_t n)
{
	uint64_t seed = 1;
	std::vector<int> in(n);
	for (auto &x : in)
		x = (int)(next_random(seed) % 2001) - 1000;
	std::vector<float> fin(n);
	for (auto &x : fin)
		x = (float)(next_random(seed) % 1024) * 0.25f; // exact sums in float

	int *d_in = to_device(in), *d_out;
	float *d_fin = to_device(fin), *d_fout;
	CHECK_HIP(hipMalloc(&d_out, sizeof(int)));
	CHECK_HIP(hipMalloc(&d_fout, sizeof(float)));
	size_t bytes = 0;
	CHECK_HIP(rocprim::reduce(nullptr, bytes, d_in, d_out, 0, n, rocprim::plus<int>()));
	void *tmp;
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::reduce(tmp, bytes, d_in, d_out, 0, n, rocprim::plus<int>()));
	CHECK_HIP(hipDeviceSynchronize());
	long long want = std::accumulate(in.begin(), in.end(), 0ll);
	report("reduce sum int", n, from_device(d_out, 1)[0] == (int)want);
	CHECK_HIP(hipFree(tmp));

	CHECK_HIP(rocprim::reduce(nullptr, bytes, d_in, d_out, n, rocprim::maximum<int>()));
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::reduce(tmp, bytes, d_in, d_out, n, rocprim::maximum<int>()));
	report("reduce max int", n, from_device(d_out, 1)[0] == *std::max_element(in.begin(), in.end()));
	CHECK_HIP(hipFree(tmp));

	CHECK_HIP(rocprim::reduce(nullptr, bytes, d_fin, d_fout, 0.0f, n, rocprim::plus<float>()));
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::reduce(tmp, bytes, d_fin, d_fout, 0.0f, n, rocprim::plus<float>()));
	double fwant = 0;
	for (float x : fin)
		fwant += x;
	report("reduce sum float", n, from_device(d_fout, 1)[0] == (float)fwant);
	CHECK_HIP(hipFree(tmp));
	CHECK_HIP(hipFree(d_in));
	CHECK_HIP(hipFree(d_out));
	CHECK_HIP(hipFree(d_fin));
	CHECK_HIP(hipFree(d_fout));
}

static void test_scan(size_t n)
{
	uint64_t seed = 2;
	std::vector<int> in(n);
	for (auto &x : in)
		x = (int)(next_random(seed) % 201) - 100;
	int *d_in = to_device(in), *d_out;
	CHECK_HIP(hipMalloc(&d_out, n * sizeof(int)));

	size_t bytes = 0;
	void *tmp;
	CHECK_HIP(rocprim::inclusive_scan(nullptr, bytes, d_in, d_out, n, rocprim::plus<int>()));
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::inclusive_scan(tmp, bytes, d_in, d_out, n, rocprim::plus<int>()));
	std::vector<int> want(n);
	std::partial_sum(in.begin(), in.end(), want.begin());
	report("inclusive scan int", n, from_device(d_out, n) == want);
	CHECK_HIP(hipFree(tmp));

	CHECK_HIP(rocprim::exclusive_scan(nullptr, bytes, d_in, d_out, 7, n, rocprim::plus<int>()));
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::exclusive_scan(tmp, bytes, d_in, d_out, 7, n, rocprim::plus<int>()));
	int acc = 7;
	for (size_t i = 0; i < n; i++) {
		want[i] = acc;
		acc += in[i];
	}
	report("exclusive scan int", n, from_device(d_out, n) == want);
	CHECK_HIP(hipFree(tmp));
	CHECK_HIP(hipFree(d_in));
	CHECK_HIP(hipFree(d_out));
}

// rocPRIM's gfx90a radix sort parameters for 4-byte keys, except that
// sizes above 4 blocks of 1024 take the digit iterations instead of the
// merge path.
using iterations_config = rocprim::radix_sort_config<7, 6, rocprim::kernel_config<256, 1>,
						     rocprim::kernel_config<256, 8>,
						     rocprim::kernel_config<256, 10>,
						     rocprim::kernel_config<1024, 1>, 4>;

template <typename Config> static void test_sort_keys(const char *name, size_t n, bool wide)
{
	uint64_t seed = 3 + n;
	std::vector<uint32_t> keys(n);
	for (auto &k : keys)
		k = wide ? next_random(seed) : next_random(seed) % 1000;
	uint32_t *d_in = to_device(keys), *d_out;
	CHECK_HIP(hipMalloc(&d_out, n * sizeof(uint32_t)));
	size_t bytes = 0;
	void *tmp;
	CHECK_HIP(rocprim::radix_sort_keys<Config>(nullptr, bytes, d_in, d_out, n));
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::radix_sort_keys<Config>(tmp, bytes, d_in, d_out, n));
	std::sort(keys.begin(), keys.end());
	report(name, n, from_device(d_out, n) == keys);
	CHECK_HIP(hipFree(tmp));
	CHECK_HIP(hipFree(d_in));
	CHECK_HIP(hipFree(d_out));
}

// Descending sort of float keys carrying their original index: radix sort
// is stable, so equal keys keep their input order.
static void test_sort_pairs(size_t n)
{
	uint64_t seed = 4 + n;
	std::vector<float> keys(n);
	std::vector<int> vals(n);
	for (size_t i = 0; i < n; i++) {
		keys[i] = (float)((int)(next_random(seed) % 512) - 256) * 0.5f;
		vals[i] = (int)i;
	}
	float *dk_in = to_device(keys), *dk_out;
	int *dv_in = to_device(vals), *dv_out;
	CHECK_HIP(hipMalloc(&dk_out, n * sizeof(float)));
	CHECK_HIP(hipMalloc(&dv_out, n * sizeof(int)));
	size_t bytes = 0;
	void *tmp;
	CHECK_HIP(rocprim::radix_sort_pairs_desc(nullptr, bytes, dk_in, dk_out, dv_in, dv_out, n));
	CHECK_HIP(hipMalloc(&tmp, bytes));
	CHECK_HIP(rocprim::radix_sort_pairs_desc(tmp, bytes, dk_in, dk_out, dv_in, dv_out, n));
	std::vector<int> order(n);
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] > keys[b]; });
	std::vector<float> want_k(n);
	for (size_t i = 0; i < n; i++)
		want_k[i] = keys[order[i]];
	report("radix sort f32/i32 pairs desc", n,
	       from_device(dk_out, n) == want_k && from_device(dv_out, n) == order);
	CHECK_HIP(hipFree(tmp));
	CHECK_HIP(hipFree(dk_in));
	CHECK_HIP(hipFree(dk_out));
	CHECK_HIP(hipFree(dv_in));
	CHECK_HIP(hipFree(dv_out));
}

int main(int argc, char **argv)
{
	// Sizes: small enough for an interpreter under TSan, large enough for
	// several workgroups and for each radix sort path.
	size_t n = argc > 1 ? strtoul(argv[1], nullptr, 0) : 10000;
	if (n < 1 || n > (1u << 26)) {
		printf("isa_rocprim: N must be 1..2^26\n");
		return 2;
	}
	test_reduce(n);
	test_scan(n);
	test_sort_keys<rocprim::default_config>("radix sort u32 (one block)", 1000, true);
	test_sort_keys<rocprim::default_config>("radix sort u32 <1000 (merge)", n, false);
	test_sort_keys<iterations_config>("radix sort u32 (iterations)", n, true);
	test_sort_pairs(n);
	printf("isa_rocprim: %s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
