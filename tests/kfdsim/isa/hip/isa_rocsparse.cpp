// SPDX-License-Identifier: MIT
// Debian's rocSPARSE (its precompiled gfx90a kernels) on kfdsim's ISA
// interpreter: y = alpha * A * x + beta * y for a CSR matrix with rows of
// varied length (empty rows, one long row), in single and double
// precision, with and without rocsparse_?csrmv_analysis (which selects
// the adaptive row-blocking kernels), checked against a host computation.
// Usage: isa_rocsparse. Exit 0 when all pass.
#include <hip/hip_runtime.h>
#include <rocsparse/rocsparse.h>

#include <algorithm>
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
			printf("isa_rocsparse: %s failed: %s\n", #x, hipGetErrorString(e_));      \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

#define CHECK_SP(x)                                                                                \
	do {                                                                                       \
		rocsparse_status e_ = (x);                                                         \
		if (e_ != rocsparse_status_success) {                                              \
			printf("isa_rocsparse: %s failed: status %d\n", #x, (int)e_);              \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static void report(const char *name, bool ok)
{
	printf("isa_rocsparse: %-34s %s\n", name, ok ? "OK" : "FAIL");
	if (!ok)
		failures++;
}

static uint32_t next_random(uint64_t &s)
{
	s = s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(s >> 33);
}

struct csr {
	int m, n;
	std::vector<int> ptr, col;
	std::vector<double> val;
};

// m x n, row i has (i * 7) % 13 entries, row 5 is empty, row 9 long
static csr make_matrix(int m, int n)
{
	csr a{m, n, {0}, {}, {}};
	uint64_t seed = 11;

	for (int i = 0; i < m; i++) {
		int len = i == 5 ? 0 : i == 9 ? n / 2 : (i * 7) % 13;
		int c = (int)(next_random(seed) % (unsigned)n);

		for (int k = 0; k < len; k++) {
			c = (c + 1 + (int)(next_random(seed) % 3)) % n;
			a.col.push_back(c);
			a.val.push_back((double)((int)(next_random(seed) % 200) - 100) / 16.0);
		}
		// columns ascending within a row
		std::vector<int> cols(a.col.end() - len, a.col.end());
		std::sort(cols.begin(), cols.end());
		cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
		a.col.resize(a.col.size() - len);
		a.val.resize(a.val.size() - len + cols.size());
		a.col.insert(a.col.end(), cols.begin(), cols.end());
		a.ptr.push_back((int)a.col.size());
	}
	return a;
}

template <typename T> struct ops;
template <> struct ops<float> {
	static constexpr const char *name = "s";
	static rocsparse_status mv(rocsparse_handle h, int m, int n, int nnz, const float *alpha,
				   rocsparse_mat_descr d, const float *v, const int *p, const int *c,
				   rocsparse_mat_info info, const float *x, const float *beta, float *y)
	{
		return rocsparse_scsrmv(h, rocsparse_operation_none, m, n, nnz, alpha, d, v, p, c,
					info, x, beta, y);
	}
	static rocsparse_status analysis(rocsparse_handle h, int m, int n, int nnz,
					 rocsparse_mat_descr d, const float *v, const int *p,
					 const int *c, rocsparse_mat_info info)
	{
		return rocsparse_scsrmv_analysis(h, rocsparse_operation_none, m, n, nnz, d, v, p, c,
						 info);
	}
};
template <> struct ops<double> {
	static constexpr const char *name = "d";
	static rocsparse_status mv(rocsparse_handle h, int m, int n, int nnz, const double *alpha,
				   rocsparse_mat_descr d, const double *v, const int *p,
				   const int *c, rocsparse_mat_info info, const double *x,
				   const double *beta, double *y)
	{
		return rocsparse_dcsrmv(h, rocsparse_operation_none, m, n, nnz, alpha, d, v, p, c,
					info, x, beta, y);
	}
	static rocsparse_status analysis(rocsparse_handle h, int m, int n, int nnz,
					 rocsparse_mat_descr d, const double *v, const int *p,
					 const int *c, rocsparse_mat_info info)
	{
		return rocsparse_dcsrmv_analysis(h, rocsparse_operation_none, m, n, nnz, d, v, p, c,
						 info);
	}
};

template <typename T> static void test_csrmv(rocsparse_handle h, const csr &a, bool analysed)
{
	int nnz = (int)a.col.size();
	std::vector<T> val(a.val.begin(), a.val.end()), x(a.n), y(a.m);
	uint64_t seed = 5;
	for (auto &v : x)
		v = (T)((int)(next_random(seed) % 64) - 32) / (T)8;
	for (auto &v : y)
		v = (T)((int)(next_random(seed) % 64) - 32) / (T)4;
	const T alpha = (T)1.5, beta = (T)-0.5;

	// host: exact in double for these values (small dyadic rationals)
	std::vector<double> want(a.m);
	for (int i = 0; i < a.m; i++) {
		double s = 0;
		for (int k = a.ptr[i]; k < a.ptr[i + 1]; k++)
			s += (double)val[k] * (double)x[a.col[k]];
		want[i] = (double)alpha * s + (double)beta * (double)y[i];
	}

	T *d_val, *d_x, *d_y;
	int *d_ptr, *d_col;
	CHECK_HIP(hipMalloc(&d_val, nnz * sizeof(T)));
	CHECK_HIP(hipMalloc(&d_x, a.n * sizeof(T)));
	CHECK_HIP(hipMalloc(&d_y, a.m * sizeof(T)));
	CHECK_HIP(hipMalloc(&d_ptr, (a.m + 1) * sizeof(int)));
	CHECK_HIP(hipMalloc(&d_col, nnz * sizeof(int)));
	CHECK_HIP(hipMemcpy(d_val, val.data(), nnz * sizeof(T), hipMemcpyHostToDevice));
	CHECK_HIP(hipMemcpy(d_x, x.data(), a.n * sizeof(T), hipMemcpyHostToDevice));
	CHECK_HIP(hipMemcpy(d_y, y.data(), a.m * sizeof(T), hipMemcpyHostToDevice));
	CHECK_HIP(hipMemcpy(d_ptr, a.ptr.data(), (a.m + 1) * sizeof(int), hipMemcpyHostToDevice));
	CHECK_HIP(hipMemcpy(d_col, a.col.data(), nnz * sizeof(int), hipMemcpyHostToDevice));

	rocsparse_mat_descr descr;
	rocsparse_mat_info info = nullptr;
	CHECK_SP(rocsparse_create_mat_descr(&descr));
	if (analysed) {
		CHECK_SP(rocsparse_create_mat_info(&info));
		CHECK_SP(ops<T>::analysis(h, a.m, a.n, nnz, descr, d_val, d_ptr, d_col, info));
	}
	CHECK_SP(ops<T>::mv(h, a.m, a.n, nnz, &alpha, descr, d_val, d_ptr, d_col, info, d_x, &beta,
			    d_y));
	CHECK_HIP(hipDeviceSynchronize());
	std::vector<T> got(a.m);
	CHECK_HIP(hipMemcpy(got.data(), d_y, a.m * sizeof(T), hipMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < a.m; i++) {
		double tol = 1e-5 * (1.0 + std::fabs(want[i]));
		if (!(std::fabs((double)got[i] - want[i]) <= tol) && bad++ < 4)
			printf("isa_rocsparse: row %d: got %.9g want %.9g\n", i, (double)got[i],
			       want[i]);
	}
	char name[64];
	snprintf(name, sizeof(name), "%scsrmv %dx%d nnz %d%s", ops<T>::name, a.m, a.n, nnz,
		 analysed ? " (analysed)" : "");
	report(name, bad == 0);

	if (info)
		CHECK_SP(rocsparse_destroy_mat_info(info));
	CHECK_SP(rocsparse_destroy_mat_descr(descr));
	CHECK_HIP(hipFree(d_val));
	CHECK_HIP(hipFree(d_x));
	CHECK_HIP(hipFree(d_y));
	CHECK_HIP(hipFree(d_ptr));
	CHECK_HIP(hipFree(d_col));
}

int main()
{
	rocsparse_handle h;
	CHECK_SP(rocsparse_create_handle(&h));
	csr a = make_matrix(300, 200);
	test_csrmv<float>(h, a, false);
	test_csrmv<double>(h, a, false);
	test_csrmv<float>(h, a, true);
	test_csrmv<double>(h, a, true);
	CHECK_SP(rocsparse_destroy_handle(h));
	printf("isa_rocsparse: %s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
