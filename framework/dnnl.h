// oneDNN (Debian's libdnnl, the 2.x C API) as ordo's second GEMM: the bf16 products of
// --precision bf16, with float32 accumulation, on whatever oneDNN dispatches to at run time
// (AMX, AVX512-BF16). One matmul primitive per block shape, created on the first call and
// kept: a training step creates none and allocates nothing.
#ifndef ORDO_DNNL_H
#define ORDO_DNNL_H
#include <stddef.h>

#include "framework/bf16.h"
#include "sys/error.h"

// The instruction set oneDNN dispatches to in this process, as oneDNN names it
// ("avx512_core_bf16", "avx512_core_amx", "avx512_core", "avx2", ...). ONEDNN_MAX_CPU_ISA
// (an environment variable oneDNN reads) can lower it. A static string, never NULL.
const char *ordo_dnnl_isa(void);
// oneDNN's version, "2.6.3". A static string, never NULL.
const char *ordo_dnnl_version(void);

// ORDO_OK when bf16 products run on bf16 hardware here (oneDNN's ISA has AVX512-BF16 or
// AMX and a bf16 matmul can be created). Otherwise ORDO_ERR_ARG with a message that names
// the ISA oneDNN runs and why ordo refuses: oneDNN would only emulate bf16 (on AVX-512,
// 2.5-5x slower than its float32 products) or has no bf16 matmul at all (AVX2 and below).
// The answer is decided once per process.
ordo_status ordo_dnnl_bf16_check(void);
// The same answer as 1 or 0, recording no message.
int ordo_dnnl_bf16_available(void);

// C[M,N] = op(A) @ op(B) (+ C when beta is 1), row-major with leading dimensions as
// cblas_sgemm, A and B bf16, C float32, every product accumulated in float32. beta is 0 (C
// is not read) or 1. Requires ordo_dnnl_bf16_check() == ORDO_OK, M, N, K >= 1, and a caller
// outside any OpenMP parallel region (the blocks of C run on the OpenMP threads). The same
// call gives the same bits every time and at any thread count, on every ISA: oneDNN threads
// no product itself (dnnl.c; tests/framework/test_bf16.c checks 1, 2 and 3 threads).
// A primitive that cannot be created is a bug here (the check above passed) and aborts.
void ordo_dnnl_gemm_bf16(int ta, int tb, int M, int N, int K, const ordo_bf16 *A, int lda,
                         const ordo_bf16 *B, int ldb, int beta, float *C, int ldc);
// The same product in float32 (A, B and C float32) on oneDNN's float32 matmul, which needs
// only AVX2 or better, cut over threads the same way; aborts when oneDNN cannot create it.
// For the benches and the tests that compare it with the other GEMMs; training uses
// ordo_gemm (blas.h).
void ordo_dnnl_sgemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                     int ldb, int beta, float *C, int ldc);

// Counters since the process started: calls of the two products above, primitives created
// and found in the cache, and other oneDNN objects and buffers made (streams, memory objects,
// scratchpads). A steady training step creates none of either (tests/framework/test_bf16.c checks it).
typedef struct ordo_dnnl_stats {
    long calls, primitives_created, cached, objects_created;
} ordo_dnnl_stats;
ordo_dnnl_stats ordo_dnnl_stats_get(void);

#endif
