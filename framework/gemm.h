// ordo's own single-precision GEMM for CPUs with AVX-512, used by ordo_gemm (kernels.c) for
// the large products when it is faster than the BLAS at hand (see gemm.c for when and why).
#ifndef ORDO_GEMM_H
#define ORDO_GEMM_H

// 1 if this build has the AVX-512 kernel and the CPU runs it.
int ordo_gemm_own_available(void);

// C[M,N] = alpha * op(A) @ op(B) + beta * C, row-major, as cblas_sgemm. Splits the longer
// side of C over the OpenMP threads (one thread inside a parallel region); every C element
// sums over K in the same order whatever the thread count. Requires
// ordo_gemm_own_available() and M, N, K >= 1.
void ordo_gemm_own(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc);

#endif
