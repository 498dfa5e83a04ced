// SPDX-License-Identifier: MIT
// HIP kernels compiled by Debian's hipcc for gfx90a, run on kfdsim's ISA
// interpreter; every result is checked against a host computation.
// Usage: isa_hip [TEST...]  (no argument: all). Exit 0 when all pass.
#include <hip/hip_runtime.h>

#include <cassert>

#include <cmath>
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
			printf("isa_hip: %s failed: %s\n", #x, hipGetErrorString(e_));            \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static void report(const char *name, bool ok)
{
	printf("isa_hip: %-28s %s\n", name, ok ? "OK" : "FAIL");
	if (!ok)
		failures++;
}

// ---- kernels ----

__global__ void saxpy_grid_stride(int n, float a, const float *x, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const int *in, int *block_out, int *total, int n)
{
	__shared__ int s[256];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;

	s[t] = i < n ? in[i] : 0;
	__syncthreads();
	for (int step = blockDim.x / 2; step > 0; step /= 2) {
		if (t < step)
			s[t] += s[t + step];
		__syncthreads();
	}
	if (t == 0) {
		block_out[blockIdx.x] = s[0];
		atomicAdd(total, s[0]);
	}
}

__global__ void atomics(int *counter, unsigned *maxv, float *fsum, int *hist, unsigned long long *u64)
{
	__shared__ int local[16];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (threadIdx.x < 16)
		local[threadIdx.x] = 0;
	__syncthreads();
	atomicAdd(counter, 1);
	atomicMax(maxv, (unsigned)(i * 2654435761u % 100000u));
	atomicAdd(fsum, 0.5f);
	atomicAdd(&local[i % 16], 1);
	atomicAdd(u64, (unsigned long long)i << 20);
	__syncthreads();
	if (threadIdx.x < 16)
		atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

__global__ void wave_ops(const int *in, int *sum_out, unsigned long long *ballot_out, int *xor_out)
{
	int t = threadIdx.x, v = in[blockIdx.x * 64 + t];
	int s = v;

	for (int off = 32; off > 0; off /= 2)
		s += __shfl_down(s, off);
	unsigned long long b = __ballot(v & 1);
	int x = __shfl_xor(v, 5);
	if (t == 0) {
		sum_out[blockIdx.x] = s;
		ballot_out[blockIdx.x] = b;
	}
	xor_out[blockIdx.x * 64 + t] = x + __popcll(b);
}

__global__ void int64_double(const long long *a, const long long *b, long long *q, long long *r,
			     double *d, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		q[i] = a[i] / b[i];
		r[i] = a[i] % b[i];
		double x = (double)a[i] * 1e-9;
		d[i] = sqrt(fabs(x)) + fma(x, 0.25, 1.0) / (double)b[i];
	}
}

__global__ void collatz(const unsigned *start, unsigned *steps, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		unsigned long long v = start[i];
		unsigned s = 0;

		while (v != 1) {
			v = (v & 1) ? 3 * v + 1 : v / 2;
			s++;
		}
		steps[i] = s;
	}
}

__global__ void dynamic_shared(const float *in, float *out)
{
	extern __shared__ float buf[];
	int t = threadIdx.x, n = blockDim.x;

	buf[t] = in[blockIdx.x * n + t];
	__syncthreads();
	out[blockIdx.x * n + t] = buf[(t + 1) % n] - buf[t];
}

__global__ void private_array(const int *idx, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	volatile int arr[64];

	if (i >= n)
		return;
	for (int k = 0; k < 64; k++)
		arr[k] = k * i + 3;
	int acc = 0;
	for (int k = 0; k < 16; k++)
		acc += arr[(idx[i] + k * 7) & 63];
	out[i] = acc;
}

__global__ void float_math(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		float v = x[i];
		out[4 * i + 0] = v / 3.0f;
		out[4 * i + 1] = sqrtf(v);
		out[4 * i + 2] = floorf(v * 1.5f) + truncf(-v);
		out[4 * i + 3] = fminf(v, 50.0f) * fmaxf(v, 2.0f);
	}
}

__global__ void scale_add(const float *in, float *out, float k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = in[i] * k + 1.0f;
}

__global__ void device_printf(int base)
{
	if (threadIdx.x % 16 == 3)
		printf("isa_hip: device printf %d from thread %d\n", base + (int)threadIdx.x, (int)threadIdx.x);
}

__global__ void device_assert(const int *v)
{
	assert(v[threadIdx.x] < 40);
}

__global__ void device_abort(int *flag)
{
	if (threadIdx.x == 7) {
		*flag = 1;
		abort();
	}
}

// ---- tests ----

template <typename T> static T *dev_copy(const std::vector<T> &h)
{
	T *d;
	CHECK_HIP(hipMalloc(&d, h.size() * sizeof(T)));
	CHECK_HIP(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
	return d;
}

template <typename T> static std::vector<T> host_copy(const T *d, size_t n)
{
	std::vector<T> h(n);
	CHECK_HIP(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
	return h;
}

static void t_saxpy()
{
	const int n = 100000;
	std::vector<float> x(n), y(n);
	for (int i = 0; i < n; i++) {
		x[i] = (float)i * 0.5f;
		y[i] = (float)(n - i);
	}
	float *dx = dev_copy(x), *dy = dev_copy(y);
	hipLaunchKernelGGL(saxpy_grid_stride, dim3(64), dim3(256), 0, 0, n, 2.0f, dx, dy);
	CHECK_HIP(hipGetLastError());
	auto r = host_copy(dy, n);
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= r[i] == 2.0f * x[i] + y[i];
	report("grid-stride saxpy", ok);
	CHECK_HIP(hipFree(dx));
	CHECK_HIP(hipFree(dy));
}

static void t_block_sum()
{
	const int n = 10000, blocks = (n + 255) / 256;
	std::vector<int> in(n);
	long long want = 0;
	for (int i = 0; i < n; i++) {
		in[i] = (i * 37) % 1000 - 300;
		want += in[i];
	}
	int *din = dev_copy(in), *dblk, *dtot;
	CHECK_HIP(hipMalloc(&dblk, blocks * sizeof(int)));
	CHECK_HIP(hipMalloc(&dtot, sizeof(int)));
	CHECK_HIP(hipMemset(dtot, 0, sizeof(int)));
	hipLaunchKernelGGL(block_sum, dim3(blocks), dim3(256), 0, 0, din, dblk, dtot, n);
	auto blk = host_copy(dblk, blocks);
	auto tot = host_copy(dtot, 1);
	bool ok = tot[0] == want;
	for (int b = 0; b < blocks; b++) {
		int s = 0;
		for (int i = b * 256; i < n && i < (b + 1) * 256; i++)
			s += in[i];
		ok &= blk[b] == s;
	}
	report("__shared__ + __syncthreads", ok);
	CHECK_HIP(hipFree(din));
	CHECK_HIP(hipFree(dblk));
	CHECK_HIP(hipFree(dtot));
}

static void t_atomics()
{
	const int blocks = 20, threads = 128, n = blocks * threads;
	int *counter, *hist;
	unsigned *maxv;
	float *fsum;
	unsigned long long *u64;
	CHECK_HIP(hipMalloc(&counter, 4));
	CHECK_HIP(hipMalloc(&maxv, 4));
	CHECK_HIP(hipMalloc(&fsum, 4));
	CHECK_HIP(hipMalloc(&hist, 16 * 4));
	CHECK_HIP(hipMalloc(&u64, 8));
	CHECK_HIP(hipMemset(counter, 0, 4));
	CHECK_HIP(hipMemset(maxv, 0, 4));
	CHECK_HIP(hipMemset(fsum, 0, 4));
	CHECK_HIP(hipMemset(hist, 0, 64));
	CHECK_HIP(hipMemset(u64, 0, 8));
	hipLaunchKernelGGL(atomics, dim3(blocks), dim3(threads), 0, 0, counter, maxv, fsum, hist, u64);
	unsigned wmax = 0;
	unsigned long long wu = 0;
	for (int i = 0; i < n; i++) {
		unsigned v = (unsigned)(i * 2654435761u % 100000u);
		wmax = v > wmax ? v : wmax;
		wu += (unsigned long long)i << 20;
	}
	bool ok = host_copy(counter, 1)[0] == n && host_copy(maxv, 1)[0] == wmax &&
		  host_copy(fsum, 1)[0] == 0.5f * n && host_copy(u64, 1)[0] == wu;
	auto h = host_copy(hist, 16);
	for (int k = 0; k < 16; k++)
		ok &= h[k] == n / 16;
	report("global and shared atomics", ok);
	CHECK_HIP(hipFree(counter));
	CHECK_HIP(hipFree(maxv));
	CHECK_HIP(hipFree(fsum));
	CHECK_HIP(hipFree(hist));
	CHECK_HIP(hipFree(u64));
}

static void t_wave_ops()
{
	const int blocks = 4;
	std::vector<int> in(blocks * 64);
	for (size_t i = 0; i < in.size(); i++)
		in[i] = (int)((i * 7919) % 1000);
	int *din = dev_copy(in), *dsum, *dxor;
	unsigned long long *dball;
	CHECK_HIP(hipMalloc(&dsum, blocks * 4));
	CHECK_HIP(hipMalloc(&dball, blocks * 8));
	CHECK_HIP(hipMalloc(&dxor, blocks * 64 * 4));
	hipLaunchKernelGGL(wave_ops, dim3(blocks), dim3(64), 0, 0, din, dsum, dball, dxor);
	auto s = host_copy(dsum, blocks);
	auto b = host_copy(dball, blocks);
	auto x = host_copy(dxor, blocks * 64);
	bool ok = true;
	for (int blk = 0; blk < blocks; blk++) {
		int ws = 0;
		unsigned long long wb = 0;
		for (int t = 0; t < 64; t++) {
			ws += in[blk * 64 + t];
			wb |= (unsigned long long)(in[blk * 64 + t] & 1) << t;
		}
		ok &= s[blk] == ws && b[blk] == wb;
		for (int t = 0; t < 64; t++)
			ok &= x[blk * 64 + t] == in[blk * 64 + (t ^ 5)] + __builtin_popcountll(wb);
	}
	report("wave shuffles and ballots", ok);
	CHECK_HIP(hipFree(din));
	CHECK_HIP(hipFree(dsum));
	CHECK_HIP(hipFree(dball));
	CHECK_HIP(hipFree(dxor));
}

static void t_int64_double()
{
	const int n = 1000;
	std::vector<long long> a(n), b(n);
	for (int i = 0; i < n; i++) {
		a[i] = (long long)(i + 1) * 123456789012LL * (i % 3 == 0 ? -1 : 1);
		b[i] = (long long)(i % 97 + 1) * ((i % 5 == 0) ? -7 : 3) + (long long)i * 1000003;
	}
	long long *da = dev_copy(a), *db = dev_copy(b), *dq, *dr;
	double *dd;
	CHECK_HIP(hipMalloc(&dq, n * 8));
	CHECK_HIP(hipMalloc(&dr, n * 8));
	CHECK_HIP(hipMalloc(&dd, n * 8));
	hipLaunchKernelGGL(int64_double, dim3((n + 127) / 128), dim3(128), 0, 0, da, db, dq, dr, dd, n);
	auto q = host_copy(dq, n), r = host_copy(dr, n);
	auto d = host_copy(dd, n);
	bool ok = true;
	for (int i = 0; i < n; i++) {
		double x = (double)a[i] * 1e-9;
		double want = sqrt(fabs(x)) + fma(x, 0.25, 1.0) / (double)b[i];
		ok &= q[i] == a[i] / b[i] && r[i] == a[i] % b[i];
		ok &= fabs(d[i] - want) <= 1e-15 * fabs(want);
	}
	report("64-bit integers and doubles", ok);
	CHECK_HIP(hipFree(da));
	CHECK_HIP(hipFree(db));
	CHECK_HIP(hipFree(dq));
	CHECK_HIP(hipFree(dr));
	CHECK_HIP(hipFree(dd));
}

static void t_collatz()
{
	const int n = 2000;
	std::vector<unsigned> st(n);
	for (int i = 0; i < n; i++)
		st[i] = (unsigned)i + 1;
	unsigned *dst = dev_copy(st), *dsteps;
	CHECK_HIP(hipMalloc(&dsteps, n * 4));
	hipLaunchKernelGGL(collatz, dim3((n + 255) / 256), dim3(256), 0, 0, dst, dsteps, n);
	auto s = host_copy(dsteps, n);
	bool ok = true;
	for (int i = 0; i < n; i++) {
		unsigned long long v = st[i];
		unsigned c = 0;
		while (v != 1) {
			v = (v & 1) ? 3 * v + 1 : v / 2;
			c++;
		}
		ok &= s[i] == c;
	}
	report("divergent loops", ok);
	CHECK_HIP(hipFree(dst));
	CHECK_HIP(hipFree(dsteps));
}

static void t_dynamic_shared()
{
	const int blocks = 8, threads = 192;
	std::vector<float> in(blocks * threads);
	for (size_t i = 0; i < in.size(); i++)
		in[i] = (float)(i * i % 1013);
	float *din = dev_copy(in), *dout;
	CHECK_HIP(hipMalloc(&dout, in.size() * 4));
	hipLaunchKernelGGL(dynamic_shared, dim3(blocks), dim3(threads), threads * sizeof(float), 0,
			   din, dout);
	auto o = host_copy(dout, in.size());
	bool ok = true;
	for (int b = 0; b < blocks; b++)
		for (int t = 0; t < threads; t++)
			ok &= o[b * threads + t] ==
			      in[b * threads + (t + 1) % threads] - in[b * threads + t];
	report("dynamic shared memory", ok);
	CHECK_HIP(hipFree(din));
	CHECK_HIP(hipFree(dout));
}

static void t_private_array()
{
	const int n = 500;
	std::vector<int> idx(n);
	for (int i = 0; i < n; i++)
		idx[i] = (i * 13) % 64;
	int *didx = dev_copy(idx), *dout;
	CHECK_HIP(hipMalloc(&dout, n * 4));
	hipLaunchKernelGGL(private_array, dim3((n + 63) / 64), dim3(64), 0, 0, didx, dout, n);
	auto o = host_copy(dout, n);
	bool ok = true;
	for (int i = 0; i < n; i++) {
		int acc = 0;
		for (int k = 0; k < 16; k++)
			acc += ((idx[i] + k * 7) & 63) * i + 3;
		ok &= o[i] == acc;
	}
	report("private arrays (scratch)", ok);
	CHECK_HIP(hipFree(didx));
	CHECK_HIP(hipFree(dout));
}

static void t_float_math()
{
	const int n = 1000;
	std::vector<float> x(n);
	for (int i = 0; i < n; i++)
		x[i] = (float)i * 0.37f + 0.01f;
	float *dx = dev_copy(x), *dout;
	CHECK_HIP(hipMalloc(&dout, 4 * n * 4));
	hipLaunchKernelGGL(float_math, dim3((n + 255) / 256), dim3(256), 0, 0, dx, dout, n);
	auto o = host_copy(dout, 4 * n);
	bool ok = true;
	for (int i = 0; i < n; i++) {
		float v = x[i];
		ok &= o[4 * i + 0] == v / 3.0f && o[4 * i + 1] == sqrtf(v) &&
		      o[4 * i + 2] == floorf(v * 1.5f) + truncf(-v) &&
		      o[4 * i + 3] == fminf(v, 50.0f) * fmaxf(v, 2.0f);
	}
	report("float division, sqrt, rounding", ok);
	CHECK_HIP(hipFree(dx));
	CHECK_HIP(hipFree(dout));
}

static void t_memset()
{
	const size_t n = 1 << 20;
	unsigned char *d;
	CHECK_HIP(hipMalloc(&d, n));
	CHECK_HIP(hipMemset(d, 0xab, n));
	CHECK_HIP(hipMemset(d + 100, 0x12, 1001));
	auto h = host_copy(d, n);
	bool ok = true;
	for (size_t i = 0; i < n; i++)
		ok &= h[i] == ((i >= 100 && i < 1101) ? 0x12 : 0xab);
	report("hipMemset", ok);
	CHECK_HIP(hipFree(d));
}

// Several streams, ordered by events: stream 1 uploads and scales, stream 2
// waits for its event and scales again, then downloads.
static void t_streams_events()
{
	const int n = 1 << 16, chunks = 4;
	float *h_in, *h_out, *d_a, *d_b;
	hipStream_t s1, s2;
	hipEvent_t ev[chunks];
	CHECK_HIP(hipHostMalloc(&h_in, n * 4));
	CHECK_HIP(hipHostMalloc(&h_out, n * 4));
	CHECK_HIP(hipMalloc(&d_a, n * 4));
	CHECK_HIP(hipMalloc(&d_b, n * 4));
	CHECK_HIP(hipStreamCreate(&s1));
	CHECK_HIP(hipStreamCreate(&s2));
	for (int i = 0; i < n; i++)
		h_in[i] = (float)(i % 4096);
	const int c = n / chunks;
	for (int k = 0; k < chunks; k++) {
		CHECK_HIP(hipEventCreate(&ev[k]));
		CHECK_HIP(hipMemcpyAsync(d_a + k * c, h_in + k * c, c * 4, hipMemcpyHostToDevice, s1));
		hipLaunchKernelGGL(scale_add, dim3(c / 256), dim3(256), 0, s1, d_a + k * c, d_b + k * c,
				   2.0f, c);
		CHECK_HIP(hipEventRecord(ev[k], s1));
		CHECK_HIP(hipStreamWaitEvent(s2, ev[k], 0));
		hipLaunchKernelGGL(scale_add, dim3(c / 256), dim3(256), 0, s2, d_b + k * c, d_a + k * c,
				   0.5f, c);
		CHECK_HIP(hipMemcpyAsync(h_out + k * c, d_a + k * c, c * 4, hipMemcpyDeviceToHost, s2));
	}
	CHECK_HIP(hipStreamSynchronize(s2));
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= h_out[i] == (h_in[i] * 2.0f + 1.0f) * 0.5f + 1.0f;
	report("streams ordered by events", ok);
	for (int k = 0; k < chunks; k++)
		CHECK_HIP(hipEventDestroy(ev[k]));
	CHECK_HIP(hipStreamDestroy(s1));
	CHECK_HIP(hipStreamDestroy(s2));
	CHECK_HIP(hipHostFree(h_in));
	CHECK_HIP(hipHostFree(h_out));
	CHECK_HIP(hipFree(d_a));
	CHECK_HIP(hipFree(d_b));
}

// Kernels reading and writing host memory: hipHostMalloc and
// hipHostRegister'ed malloc memory.
static void t_host_memory()
{
	const int n = 5000;
	float *pinned, *out_pinned;
	CHECK_HIP(hipHostMalloc(&pinned, n * 4));
	CHECK_HIP(hipHostMalloc(&out_pinned, n * 4));
	std::vector<float> reg_in(n), reg_out(n, -1.0f);
	for (int i = 0; i < n; i++) {
		pinned[i] = (float)i;
		reg_in[i] = (float)(n - i);
	}
	CHECK_HIP(hipHostRegister(reg_in.data(), n * 4, hipHostRegisterDefault));
	CHECK_HIP(hipHostRegister(reg_out.data(), n * 4, hipHostRegisterDefault));
	float *d_reg_in, *d_reg_out;
	CHECK_HIP(hipHostGetDevicePointer((void **)&d_reg_in, reg_in.data(), 0));
	CHECK_HIP(hipHostGetDevicePointer((void **)&d_reg_out, reg_out.data(), 0));
	hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, pinned, out_pinned, 3.0f, n);
	hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, d_reg_in, d_reg_out, -1.0f, n);
	CHECK_HIP(hipDeviceSynchronize());
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= out_pinned[i] == (float)i * 3.0f + 1.0f && reg_out[i] == -(float)(n - i) + 1.0f;
	report("kernels on host memory", ok);
	CHECK_HIP(hipHostUnregister(reg_in.data()));
	CHECK_HIP(hipHostUnregister(reg_out.data()));
	CHECK_HIP(hipHostFree(pinned));
	CHECK_HIP(hipHostFree(out_pinned));
}

// Two GPUs: fill on device 0, peer copy to device 1, compute there.
static void t_two_gpus()
{
	int count = 0;
	CHECK_HIP(hipGetDeviceCount(&count));
	if (count < 2) {
		printf("isa_hip: %-28s skipped (%d GPU)\n", "two GPUs, peer copy", count);
		return;
	}
	const int n = 4096;
	std::vector<float> h(n);
	for (int i = 0; i < n; i++)
		h[i] = (float)i * 0.5f;
	float *d0, *d0b, *d1, *d1b;
	CHECK_HIP(hipSetDevice(0));
	CHECK_HIP(hipMalloc(&d0, n * 4));
	CHECK_HIP(hipMalloc(&d0b, n * 4));
	CHECK_HIP(hipMemcpy(d0, h.data(), n * 4, hipMemcpyHostToDevice));
	hipLaunchKernelGGL(scale_add, dim3(n / 256), dim3(256), 0, 0, d0, d0b, 2.0f, n);
	CHECK_HIP(hipDeviceSynchronize());
	CHECK_HIP(hipSetDevice(1));
	CHECK_HIP(hipMalloc(&d1, n * 4));
	CHECK_HIP(hipMalloc(&d1b, n * 4));
	CHECK_HIP(hipMemcpyPeer(d1, 1, d0b, 0, n * 4));
	hipLaunchKernelGGL(scale_add, dim3(n / 256), dim3(256), 0, 0, d1, d1b, 3.0f, n);
	std::vector<float> r(n);
	CHECK_HIP(hipMemcpy(r.data(), d1b, n * 4, hipMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= r[i] == (h[i] * 2.0f + 1.0f) * 3.0f + 1.0f;
	report("two GPUs, peer copy", ok);
	CHECK_HIP(hipFree(d1));
	CHECK_HIP(hipFree(d1b));
	CHECK_HIP(hipSetDevice(0));
	CHECK_HIP(hipFree(d0));
	CHECK_HIP(hipFree(d0b));
}

// Device printf goes through ROCm's hostcall buffer and an interrupt
// (s_sendmsg); run alone ("isa_hip printf"), the caller checks the lines.
static void t_printf()
{
	hipLaunchKernelGGL(device_printf, dim3(1), dim3(64), 0, 0, 1000);
	CHECK_HIP(hipDeviceSynchronize());
	report("device printf returned", true);
}

// Device-side abort(): the runtime reports the trap and the process ends
// (run alone: "isa_hip abort"; the caller checks the exit and message).
static void t_abort()
{
	int *flag;
	CHECK_HIP(hipMalloc(&flag, 4));
	hipLaunchKernelGGL(device_abort, dim3(1), dim3(64), 0, 0, flag);
	hipError_t e = hipDeviceSynchronize();
	printf("isa_hip: abort: hipDeviceSynchronize returned %s\n", hipGetErrorString(e));
	report("device abort reported", e != hipSuccess);
}

// A failing device-side assert(): the message through hostcall, then the
// trap (run alone: "isa_hip assert").
static void t_assert()
{
	std::vector<int> h(64);
	for (int i = 0; i < 64; i++)
		h[i] = i;
	int *d = dev_copy(h);
	hipLaunchKernelGGL(device_assert, dim3(1), dim3(64), 0, 0, d);
	hipError_t e = hipDeviceSynchronize();
	report("device assert reported", e != hipSuccess);
}

struct test {
	const char *name;
	void (*fn)();
};

int main(int argc, char **argv)
{
	static const test tests[] = {
		{"memset", t_memset},        {"saxpy", t_saxpy},           {"block_sum", t_block_sum},
		{"atomics", t_atomics},      {"wave_ops", t_wave_ops},     {"int64_double", t_int64_double},
		{"collatz", t_collatz},      {"dynamic_shared", t_dynamic_shared},
		{"private_array", t_private_array}, {"float_math", t_float_math},
		{"streams", t_streams_events},  {"host_memory", t_host_memory},
		{"two_gpus", t_two_gpus},       {"abort", t_abort},
		{"printf", t_printf},           {"assert", t_assert},
	};
	for (const test &t : tests) {
		bool run = argc < 2 && strcmp(t.name, "abort") != 0 &&
			   strcmp(t.name, "printf") != 0 && strcmp(t.name, "assert") != 0;
		for (int i = 1; i < argc; i++)
			run |= strcmp(argv[i], t.name) == 0;
		if (run)
			t.fn();
	}
	CHECK_HIP(hipDeviceSynchronize());
	printf("isa_hip: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? 1 : 0;
}
