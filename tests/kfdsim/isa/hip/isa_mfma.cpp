// SPDX-License-Identifier: MIT
// Matrix multiplications with gfx90a's matrix instructions, as HIP code
// writes them: __builtin_amdgcn_mfma_* intrinsics in a tiled GEMM, one
// wave per output tile, accumulating over K. Each product is compared with
// a host computation. The operands are small integers (exact in f16 and
// bf16), so every result is exact and compared for equality.
// Usage: isa_mfma. Exit 0 when all pass.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int failures;

#define CHECK_HIP(x)                                                                               \
	do {                                                                                       \
		hipError_t e_ = (x);                                                               \
		if (e_ != hipSuccess) {                                                            \
			printf("isa_mfma: %s failed: %s\n", #x, hipGetErrorString(e_));           \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static void report(const char *name, bool ok)
{
	printf("isa_mfma: %-40s %s\n", name, ok ? "OK" : "FAIL");
	if (!ok)
		failures++;
}

typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef double doublex4 __attribute__((ext_vector_type(4)));
typedef _Float16 halfx4 __attribute__((ext_vector_type(4)));
typedef short bf16x4 __attribute__((ext_vector_type(4)));

// GEMM sizes: C (M x N) = A (M x K, row major) * B (K x N, row major)
#define GM 64
#define GN 64
#define GK 64

// f32, 16x16x4: lane l holds A[l % 16][l / 16] and B[l / 16][l % 16]; D
// element r of lane l is C[4 * (l / 16) + r][l % 16].
__global__ void gemm_f32_16x16x4(const float *a, const float *b, float *c)
{
	int l = threadIdx.x, ti = blockIdx.y * 16, tj = blockIdx.x * 16;
	floatx4 acc = {0, 0, 0, 0};

	for (int k0 = 0; k0 < GK; k0 += 4) {
		float x = a[(ti + l % 16) * GK + k0 + l / 16];
		float y = b[(k0 + l / 16) * GN + tj + l % 16];

		acc = __builtin_amdgcn_mfma_f32_16x16x4f32(x, y, acc, 0, 0, 0);
	}
	for (int r = 0; r < 4; r++)
		c[(ti + 4 * (l / 16) + r) * GN + tj + l % 16] = acc[r];
}

// f16, 32x32x8: lane l holds A[l % 32][4 * (l / 32) + e] (e = 0..3) and
// B[4 * (l / 32) + e][l % 32]; D element r of lane l is
// C[8 * (r / 4) + 4 * (l / 32) + r % 4][l % 32].
__global__ void gemm_f16_32x32x8(const _Float16 *a, const _Float16 *b, float *c)
{
	int l = threadIdx.x, ti = blockIdx.y * 32, tj = blockIdx.x * 32;
	floatx16 acc = {};

	for (int k0 = 0; k0 < GK; k0 += 8) {
		halfx4 x, y;

		for (int e = 0; e < 4; e++) {
			x[e] = a[(ti + l % 32) * GK + k0 + 4 * (l / 32) + e];
			y[e] = b[(k0 + 4 * (l / 32) + e) * GN + tj + l % 32];
		}
		acc = __builtin_amdgcn_mfma_f32_32x32x8f16(x, y, acc, 0, 0, 0);
	}
	for (int r = 0; r < 16; r++)
		c[(ti + 8 * (r / 4) + 4 * (l / 32) + r % 4) * GN + tj + l % 32] = acc[r];
}

// bf16 (gfx90a's _1k form), 16x16x16: lane l holds A[l % 16][4 * (l / 16) + e]
__global__ void gemm_bf16_16x16x16(const uint16_t *a, const uint16_t *b, float *c)
{
	int l = threadIdx.x, ti = blockIdx.y * 16, tj = blockIdx.x * 16;
	floatx4 acc = {0, 0, 0, 0};

	for (int k0 = 0; k0 < GK; k0 += 16) {
		bf16x4 x, y;

		for (int e = 0; e < 4; e++) {
			x[e] = (short)a[(ti + l % 16) * GK + k0 + 4 * (l / 16) + e];
			y[e] = (short)b[(k0 + 4 * (l / 16) + e) * GN + tj + l % 16];
		}
		acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(x, y, acc, 0, 0, 0);
	}
	for (int r = 0; r < 4; r++)
		c[(ti + 4 * (l / 16) + r) * GN + tj + l % 16] = acc[r];
}

// i8, 16x16x16: four i8 of A[l % 16][4 * (l / 16) + e] in one register
__global__ void gemm_i8_16x16x16(const int8_t *a, const int8_t *b, int *c)
{
	int l = threadIdx.x, ti = blockIdx.y * 16, tj = blockIdx.x * 16;
	intx4 acc = {0, 0, 0, 0};

	for (int k0 = 0; k0 < GK; k0 += 16) {
		uint32_t x = 0, y = 0;

		for (int e = 0; e < 4; e++) {
			x |= (uint32_t)(uint8_t)a[(ti + l % 16) * GK + k0 + 4 * (l / 16) + e] << 8 * e;
			y |= (uint32_t)(uint8_t)b[(k0 + 4 * (l / 16) + e) * GN + tj + l % 16] << 8 * e;
		}
		acc = __builtin_amdgcn_mfma_i32_16x16x16i8((int)x, (int)y, acc, 0, 0, 0);
	}
	for (int r = 0; r < 4; r++)
		c[(ti + 4 * (l / 16) + r) * GN + tj + l % 16] = acc[r];
}

// f64, 16x16x4: lane l holds A[l % 16][l / 16]; D element r of lane l is
// C[4 * r + l / 16][l % 16].
__global__ void gemm_f64_16x16x4(const double *a, const double *b, double *c)
{
	int l = threadIdx.x, ti = blockIdx.y * 16, tj = blockIdx.x * 16;
	doublex4 acc = {0, 0, 0, 0};

	for (int k0 = 0; k0 < GK; k0 += 4) {
		double x = a[(ti + l % 16) * GK + k0 + l / 16];
		double y = b[(k0 + l / 16) * GN + tj + l % 16];

		acc = __builtin_amdgcn_mfma_f64_16x16x4f64(x, y, acc, 0, 0, 0);
	}
	for (int r = 0; r < 4; r++)
		c[(ti + 4 * r + l / 16) * GN + tj + l % 16] = acc[r];
}

// small integers in [-4, 4]
static int elem_a(int i, int k)
{
	return (i * 7 + k * 3) % 9 - 4;
}

static int elem_b(int k, int j)
{
	return (k * 5 + j * 11 + 1) % 9 - 4;
}

static long host_c(int i, int j)
{
	long s = 0;

	for (int k = 0; k < GK; k++)
		s += (long)elem_a(i, k) * elem_b(k, j);
	return s;
}

template <typename T> static T *to_device(const std::vector<T> &h)
{
	T *d;

	CHECK_HIP(hipMalloc(&d, h.size() * sizeof(T)));
	CHECK_HIP(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
	return d;
}

template <typename T> static std::vector<T> from_device(const T *d, size_t n)
{
	std::vector<T> h(n);

	CHECK_HIP(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
	return h;
}

template <typename T> static bool equals_host(const std::vector<T> &c)
{
	for (int i = 0; i < GM; i++)
		for (int j = 0; j < GN; j++)
			if (c[i * GN + j] != (T)host_c(i, j)) {
				printf("isa_mfma: C[%d][%d] = %g, expected %ld\n", i, j,
				       (double)c[i * GN + j], host_c(i, j));
				return false;
			}
	return true;
}

// bf16 bits of a small integer: the high half of its f32
static uint16_t bf16_of(int v)
{
	float f = (float)v;
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

template <typename In, typename Out, typename Conv>
static void run(const char *name, void (*kernel)(const In *, const In *, Out *), int tile,
		Conv conv)
{
	std::vector<In> ha(GM * GK), hb(GK * GN);

	for (int i = 0; i < GM; i++)
		for (int k = 0; k < GK; k++)
			ha[i * GK + k] = conv(elem_a(i, k));
	for (int k = 0; k < GK; k++)
		for (int j = 0; j < GN; j++)
			hb[k * GN + j] = conv(elem_b(k, j));
	In *da = to_device(ha), *db = to_device(hb);
	Out *dc;

	CHECK_HIP(hipMalloc(&dc, GM * GN * sizeof(Out)));
	CHECK_HIP(hipMemset(dc, 0xff, GM * GN * sizeof(Out)));
	hipLaunchKernelGGL(kernel, dim3(GN / tile, GM / tile), dim3(64), 0, 0, da, db, dc);
	CHECK_HIP(hipGetLastError());
	CHECK_HIP(hipDeviceSynchronize());
	report(name, equals_host(from_device(dc, GM * GN)));
	CHECK_HIP(hipFree(da));
	CHECK_HIP(hipFree(db));
	CHECK_HIP(hipFree(dc));
}

int main()
{
	run<float, float>("gemm f32 (mfma_f32_16x16x4f32)", gemm_f32_16x16x4, 16,
			  [](int v) { return (float)v; });
	run<_Float16, float>("gemm f16 (mfma_f32_32x32x8f16)", gemm_f16_32x32x8, 32,
			     [](int v) { return (_Float16)v; });
	run<uint16_t, float>("gemm bf16 (mfma_f32_16x16x16bf16_1k)", gemm_bf16_16x16x16, 16,
			     bf16_of);
	run<int8_t, int>("gemm i8 (mfma_i32_16x16x16i8)", gemm_i8_16x16x16, 16,
			 [](int v) { return (int8_t)v; });
	run<double, double>("gemm f64 (mfma_f64_16x16x4f64)", gemm_f64_16x16x4, 16,
			    [](int v) { return (double)v; });
	printf("isa_mfma: %s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
