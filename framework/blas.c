// The GEMM and thread policy (see blas.h): every decision about which GEMM runs a product
// and on how many threads, and every call that sets or asks OpenBLAS's threading, is here.
// It computes nothing itself: products run on OpenBLAS (cblas_sgemm) or on ordo's kernel
// (gemm.c, one thread per call). Deliberately no tuning at run time: every threshold is a
// constant measured once (docs/performance.md), so that a run is reproducible bit for bit.
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "framework/blas.h"

#include "framework/cpu.h"
#include "framework/dnnl.h"
#include "framework/gemm.h"
#include "framework/threads.h"

// ---- thresholds of the products (the loops' own is ORDO_PAR_LOOP_MIN, blas.h); all in
// multiply-adds, M*N*K

// ordo's kernel takes products of at least this size (under the "large products" policy),
// where its packing pays off; below, OpenBLAS's small-matrix paths win.
#define OWN_KERNEL_MIN ((size_t)1 << 21)
// ordo's kernel runs on one thread below this size: waking the other OpenMP thread (passive
// waiting) costs more than it saves there. Measured, 2 cores, back-to-back calls, GFLOP/s
// for 1 thread / 2 threads: 512x192x64 224/202, 512x256x64 223/201, 1024x256x64 223/215,
// 2048x256x64 229/385, 1024x384x128 231/382.
#define OWN_THREADS_MIN ((size_t)1 << 24)
// An OpenBLAS product is spread over threads only by ordo, never by OpenBLAS itself, and
// never along a cut that depends on the thread count: with its Haswell and Zen kernels
// (OPENBLAS_CORETYPE=Haswell on some of the project's machines) OpenBLAS computes an element
// differently depending on where the call's tile edges fall, so a product threaded by
// OpenBLAS (which splits C by the thread count), or sliced one slice per thread, comes out
// different at 1 and 2 threads; measured on a Xeon (Sapphire Rapids): 128x96x32 differs in
// 2111 of 12288 elements between 1 and 2 OpenBLAS threads under Haswell and Zen, in none
// under SkylakeX, and one-thread calls on rows [0, 64) and [64, 128) differ from the whole
// call under Haswell, and even under SkylakeX for some column cuts
// (docs/reliability.md, "Thread-independent products"). So:
// - a product below BLAS_PAR_MIN runs on one OpenBLAS thread;
// - a larger one is cut along the longer side of C into blocks whose size depends on the
//   product's shape alone (at most BLAS_BLOCKS of them, each a multiple of BLAS_BLOCK_ALIGN
//   and at least BLAS_BLOCK_MIN), each block a one-thread sgemm, the blocks spread over the
//   threads. At any thread count the same calls run on the same operands.
// The LM head (50257 by 512 or 2048) was already cut like this (one slice per thread):
// tiny config, 2 threads, 5 interleaved pairs: median 645 ms/step against 745 threaded by
// OpenBLAS, whose threads share packed panels and wait for each other with sched_yield.
#define BLAS_PAR_MIN     ((size_t)1 << 22)
#define BLAS_BLOCKS      8
#define BLAS_BLOCK_ALIGN 64 // rows or columns
#define BLAS_BLOCK_MIN   256

// ---- OpenBLAS as built and as configured

// openblas_get_parallel(): 0 sequential build, 1 pthreads, 2 OpenMP. Asked once.
static int blas_threading(void) {
    static _Atomic int v = -1; // ordo_gemm is called from several threads at once
    if (v < 0) v = openblas_get_parallel();
    return v;
}

static int blas_openmp(void) {
    return blas_threading() == 2;
}

// OpenBLAS's cores with AVX-512 kernels (openblas_get_corename(), case aside). Where OpenBLAS
// runs one of these, ordo uses OpenBLAS for every product: they beat the first version of
// ordo's kernel by 25% on `small` and are within 5% of the final one (docs/performance.md).
// Elsewhere on an AVX-512 CPU (OPENBLAS_CORETYPE=Haswell on the bench machine; an OpenBLAS
// too old to know the CPU) OpenBLAS runs AVX2 kernels, and ordo's kernel beat it on every
// product of the bench models.
static const char *const blas_avx512_cores[] = {"skylakex", "cooperlake", "sapphirerapids"};

static int blas_has_avx512(void) {
    const char *core = openblas_get_corename();
    for (size_t i = 0; core && i < sizeof blas_avx512_cores / sizeof blas_avx512_cores[0]; i++)
        if (strcasecmp(core, blas_avx512_cores[i]) == 0) return 1;
    return 0;
}

// ---- which GEMM

// GEMM_AUTO: ordo's kernel for products of at least OWN_KERNEL_MIN, OpenBLAS below.
// ORDO_GEMM=blas keeps every product on OpenBLAS; ORDO_GEMM=own sends every product, however
// small, to ordo's kernel (the tests run the PyTorch parity checks so); ORDO_GEMM=onednn sends
// the products of at least OWN_KERNEL_MIN to oneDNN's float32 matmul instead of ordo's kernel
// (GEMM_DNNL: to measure one against the other, docs/performance.md). That one is never the
// default. Left to thread a product itself, oneDNN splits the sum over k by the thread count
// for some shapes; dnnl.c prevents that as this file does for OpenBLAS (one-thread plans,
// blocks of C sized by the shape), so it too gives the same bits at any thread count.
// Decided once per process, so that a run never mixes the policies.
enum { GEMM_BLAS, GEMM_AUTO, GEMM_OWN, GEMM_DNNL };

static int gemm_policy(void) {
    static _Atomic int v = -1; // attention calls ordo_gemm from several threads at once
    if (v < 0) {
        const char *e = getenv("ORDO_GEMM");
        if (e && strcmp(e, "onednn") == 0)
            v = GEMM_DNNL;
        else if (!ordo_gemm_own_available() || (e && strcmp(e, "blas") == 0))
            v = GEMM_BLAS;
        else if (e && strcmp(e, "own") == 0)
            v = GEMM_OWN;
        else
            v = blas_has_avx512() ? GEMM_BLAS : GEMM_AUTO;
    }
    return v;
}

const char *ordo_gemm_backend(void) {
    static const char *const name[] = {"openblas", "ordo-avx512 for large products",
                                       "ordo-avx512 for all products", "onednn for large products"};
    return name[gemm_policy()];
}

static void blas_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                       const float *B, int ldb, float beta, float *C, int ldc) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
                K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// ordo's kernel on this thread; OpenBLAS where the kernel has no buffers (out of memory).
static void own_slice(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                      const float *B, int ldb, float beta, float *C, int ldc) {
    if (!ordo_gemm_own_serial(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
        blas_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

typedef void (*gemm_fn)(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                        const float *B, int ldb, float beta, float *C, int ldc);

// The product as nt slices of C, one per thread: rows of op(A) and C (split_m) or columns of
// op(B) and C, each slice a whole number of `unit`s but the last. Every element of C is made
// by one call of f over all of K, so the result does not depend on nt.
static void gemm_sliced(gemm_fn f, int nt, int unit, int split_m, int ta, int tb, int M, int N,
                        int K, float alpha, const float *A, int lda, const float *B, int ldb,
                        float beta, float *C, int ldc) {
    int len = split_m ? M : N;
    int chunk = ((len + nt - 1) / nt + unit - 1) / unit * unit;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int p = 0; p < nt; p++) {
        int lo = p * chunk, n = len - lo < chunk ? len - lo : chunk;
        if (n <= 0) continue;
        if (split_m)
            f(ta, tb, n, N, K, alpha, ta ? A + lo : A + (size_t)lo * lda, lda, B, ldb, beta,
              C + (size_t)lo * ldc, ldc);
        else
            f(ta, tb, M, n, K, alpha, A, lda, tb ? B + (size_t)lo * ldb : B + lo, ldb, beta, C + lo,
              ldc);
    }
}

// The call on one OpenBLAS thread. Inside an active parallel region OpenBLAS's OpenMP build
// already runs on one, and the pthreads build is held to one by
// ordo_blas_single_thread_begin around the region. Outside, the OpenMP build threads a call
// over omp_get_max_threads() threads, so that count is 1 for the call (an ICV of this task:
// no other thread sees it); the pthreads build is set to 1 and back.
static void blas_sgemm_one_thread(int ta, int tb, int M, int N, int K, float alpha, const float *A,
                                  int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    int t = blas_threading();
    if (omp_in_parallel() || t == 0) {
        blas_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    } else if (t == 2) {
        int n = omp_get_max_threads();
        omp_set_num_threads(1);
        blas_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        omp_set_num_threads(n);
    } else {
        int n = openblas_get_num_threads();
        openblas_set_num_threads(1);
        blas_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        openblas_set_num_threads(n);
    }
}

// The product as blocks of C along its longer side, their size from the shape alone (see
// BLAS_PAR_MIN), each a one-thread sgemm over all of K, spread over nt threads.
static void blas_blocked(int nt, int ta, int tb, int M, int N, int K, float alpha, const float *A,
                         int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    int split_m = M >= N, len = split_m ? M : N;
    int blk = ((len + BLAS_BLOCKS - 1) / BLAS_BLOCKS + BLAS_BLOCK_ALIGN - 1) / BLAS_BLOCK_ALIGN *
              BLAS_BLOCK_ALIGN;
    if (blk < BLAS_BLOCK_MIN) blk = BLAS_BLOCK_MIN;
    int nb = (len + blk - 1) / blk;
    int saved = ordo_blas_single_thread_begin();
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && nb > 1)
    for (int p = 0; p < nb; p++) {
        int lo = p * blk, n = len - lo < blk ? len - lo : blk;
        if (split_m)
            blas_sgemm_one_thread(ta, tb, n, N, K, alpha, ta ? A + lo : A + (size_t)lo * lda, lda,
                                  B, ldb, beta, C + (size_t)lo * ldc, ldc);
        else
            blas_sgemm_one_thread(ta, tb, M, n, K, alpha, A, lda,
                                  tb ? B + (size_t)lo * ldb : B + lo, ldb, beta, C + lo, ldc);
    }
    ordo_blas_single_thread_end(saved);
}

void ordo_gemm_own(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc) {
    if (omp_in_parallel() || (size_t)M * N * K < OWN_THREADS_MIN) {
        own_slice(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    // the longer side of C, in whole register tiles per thread, so that only the last slice
    // has partial ones and every element comes out as in one thread's product (gemm.h)
    int split_m = M >= N;
    gemm_sliced(own_slice, omp_get_max_threads(), split_m ? ORDO_GEMM_OWN_MR : ORDO_GEMM_OWN_NR,
                split_m, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void ordo_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
               const float *B, int ldb, float beta, float *C, int ldc) {
    int policy = gemm_policy();
    // oneDNN's matmul: outside parallel regions (it runs its own over the blocks of C, and
    // its primitive cache is one caller's), alpha 1, beta 0 or 1
    if (policy == GEMM_DNNL && (size_t)M * N * K >= OWN_KERNEL_MIN && !omp_in_parallel() &&
        alpha == 1.0f && (beta == 0.0f || beta == 1.0f)) {
        ordo_dnnl_sgemm(ta, tb, M, N, K, A, lda, B, ldb, beta == 1.0f, C, ldc);
        return;
    }
    if (M > 0 && N > 0 && K > 0 &&
        (policy == GEMM_OWN || (policy == GEMM_AUTO && (size_t)M * N * K >= OWN_KERNEL_MIN))) {
        ordo_gemm_own(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    int nt = omp_in_parallel() ? 1 : omp_get_max_threads();
    if ((size_t)M * N * K < BLAS_PAR_MIN)
        blas_sgemm_one_thread(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        blas_blocked(nt, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void ordo_gemm_serial(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                      const float *B, int ldb, float beta, float *C, int ldc) {
    int policy = gemm_policy();
    if (M > 0 && N > 0 && K > 0 &&
        (policy == GEMM_OWN || (policy == GEMM_AUTO && (size_t)M * N * K >= OWN_KERNEL_MIN)))
        own_slice(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        blas_sgemm_one_thread(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// ---- threads

// OpenBLAS's OpenMP build already runs on one thread inside a parallel region, and there
// openblas_set_num_threads(1) would set the OpenMP count to 1 and serialise the caller's
// loop; only the pthreads build needs the switch.
int ordo_blas_single_thread_begin(void) {
    if (blas_openmp()) return 0;
    int n = openblas_get_num_threads();
    openblas_set_num_threads(1);
    return n;
}

void ordo_blas_single_thread_end(int saved) {
    if (saved > 0) openblas_set_num_threads(saved);
}

// The one knob (threads.h): OpenBLAS threads for products and OpenMP threads for the loops
// around them are always set together.
int ordo_set_threads(int n) {
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)c : 1;
    }
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
    // each thread's own control register: the caller's, then the team's (threads the team
    // starts later inherit the caller's)
    int flush = ordo_cpu_subnormals_flushed();
    ordo_cpu_flush_subnormals(flush);
#pragma omp parallel num_threads(n)
    ordo_cpu_flush_subnormals(flush);
    return n;
}

int ordo_get_threads(void) {
    return omp_get_max_threads();
}

// ---- what ran

ordo_blas_info ordo_blas_info_get(void) {
    static const char *const threading[] = {"serial", "pthreads", "openmp"};
    int t = blas_threading();
    const char *core = openblas_get_corename();
    return (ordo_blas_info){.gemm = ordo_gemm_backend(),
                            .core = core ? core : "unknown",
                            .coretype_env = getenv("OPENBLAS_CORETYPE"),
                            .threading = t >= 0 && t <= 2 ? threading[t] : "unknown",
                            .onednn = ordo_dnnl_version(),
                            .onednn_isa = ordo_dnnl_isa(),
                            .bf16 = ordo_dnnl_bf16_available(),
                            .kernels = ordo_isa_name(ordo_cpu_isa()),
                            .subnormals = ordo_cpu_subnormals_flushed() ? "flush" : "keep"};
}

json_t *ordo_blas_info_json(void) {
    ordo_blas_info b = ordo_blas_info_get();
    json_t *o = json_object();
    json_object_set_new(o, "ordo_gemm", json_string(b.gemm));
    json_object_set_new(o, "openblas_core", json_string(b.core));
    json_t *env = b.coretype_env ? json_string(b.coretype_env) : NULL; // NULL: unset, or not UTF-8
    json_object_set_new(o, "openblas_coretype_env", env ? env : json_null());
    json_object_set_new(o, "openblas_threading", json_string(b.threading));
    json_object_set_new(o, "onednn_version", json_string(b.onednn));
    json_object_set_new(o, "onednn_isa", json_string(b.onednn_isa));
    json_object_set_new(o, "bf16", json_boolean(b.bf16));
    json_object_set_new(o, "ordo_kernels", json_string(b.kernels));
    json_object_set_new(o, "subnormals", json_string(b.subnormals));
    return o;
}

char *ordo_blas_describe(char *buf, size_t n) {
    ordo_blas_info b = ordo_blas_info_get();
    int k = snprintf(buf, n, "GEMM %s, OpenBLAS core %s", b.gemm, b.core);
    if (b.coretype_env && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " (OPENBLAS_CORETYPE=%s)", b.coretype_env);
    if (k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ", ordo kernels %s, subnormals %s, oneDNN %s on %s",
                 b.kernels, b.subnormals, b.onednn, b.onednn_isa);
    return buf;
}
