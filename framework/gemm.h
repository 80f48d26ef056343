// ordo's own single-precision GEMM kernel for CPUs with AVX-512: one thread, one product.
// blas.c decides which products come here and splits them over threads (ordo_gemm,
// ordo_gemm_own); see gemm.c for why ordo has a kernel at all.
#ifndef ORDO_GEMM_H
#define ORDO_GEMM_H

// The register tile, rows x columns of C.
enum { ORDO_GEMM_OWN_MR = 12, ORDO_GEMM_OWN_NR = 32 };

// 1 if this build has the AVX-512 kernel and the CPU runs it.
int ordo_gemm_own_available(void);

// C[M,N] = alpha * op(A) @ op(B) + beta * C, row-major, as cblas_sgemm, on the calling thread
// (beta == 0: C is not read). Every C element sums over k in the same order, so a slice of
// C that starts on a tile boundary (a multiple of ORDO_GEMM_OWN_MR rows or ORDO_GEMM_OWN_NR
// columns) comes out bitwise as in the whole product. Returns 0, having done nothing, when this
// thread's packing buffers cannot be allocated (the caller does the product another way),
// else 1. Requires ordo_gemm_own_available() and M, N, K >= 1.
int ordo_gemm_own_serial(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                         const float *B, int ldb, float beta, float *C, int ldc);

#endif
