// The GEMM and thread policy, in one place: which GEMM runs a product (OpenBLAS, or ordo's
// own AVX-512 kernel in gemm.c), how a product is spread over threads, when a kernel loop is
// worth a parallel region, and the thread counts of OpenMP and OpenBLAS. gemm.c and OpenBLAS
// compute; this decides. A run records the outcome (ordo_blas_info) in its config.json.
#ifndef ORDO_BLAS_H
#define ORDO_BLAS_H
#include <jansson.h>
#include <stddef.h>

// A kernel loop (kernels.c, the rope loops in attention.c) runs on one thread below this
// many scalar operations: there a parallel region costs more than it saves. Not a GEMM
// threshold: the products have their own, in blas.c.
#define ORDO_PAR_LOOP_MIN 32768

// C[M,N] = alpha * op(A) @ op(B) + beta * C, row-major, with leading dimensions, as
// cblas_sgemm. The one matrix product of ordo: every op and kernel calls it. Runs on the
// GEMM that ordo_gemm_backend() names; may be called from inside a parallel region (then
// one thread does the product). Each C element does not depend on the thread count.
void ordo_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
               const float *B, int ldb, float beta, float *C, int ldc);

// The product as one call on the calling thread, never cut into blocks (ordo_gemm cuts a
// large one, by its shape): for a caller that cuts the product itself and runs the pieces
// on its own threads (lmhead.c). On the same GEMM as ordo_gemm, except that oneDNN's
// products run on OpenBLAS here. The same bits at any thread count: always the same call.
void ordo_gemm_serial(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                      const float *B, int ldb, float beta, float *C, int ldc);

// Which GEMM ordo_gemm uses in this process, decided on the first call and fixed after:
// "openblas", "ordo-avx512 for large products", "ordo-avx512 for all products" or "onednn for
// large products" (ORDO_GEMM=blas|own|onednn overrides the choice; see blas.c). Never NULL; a
// static string.
const char *ordo_gemm_backend(void);

// ordo's own kernel (gemm.c) for the whole product, split over the OpenMP threads when it
// is large enough (one thread inside a parallel region), as cblas_sgemm otherwise. The
// result is bitwise the same for any thread count. Requires ordo_gemm_own_available()
// (gemm.h) and M, N, K >= 1.
void ordo_gemm_own(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc);

// Around a parallel loop whose threads each call ordo_gemm (attention): keeps OpenBLAS from
// starting threads of its own inside it. Returns what ordo_blas_single_thread_end needs to
// put back; call the two in pairs, outside any parallel region.
int ordo_blas_single_thread_begin(void);
void ordo_blas_single_thread_end(int saved);

// What runs this process's products, for the logs and config.json: the float32 GEMM, and
// oneDNN for the bf16 matmuls (dnnl.h). Every string is static (never freed) and non-NULL
// except coretype_env.
typedef struct ordo_blas_info {
    const char *gemm;         // ordo_gemm_backend()
    const char *core;         // openblas_get_corename(): whose kernels OpenBLAS runs ("Haswell")
    const char *coretype_env; // OPENBLAS_CORETYPE, which forces `core`; NULL when unset
    const char *threading;    // how OpenBLAS was built to thread: "openmp", "pthreads", "serial"
    const char *onednn;       // oneDNN's version, "2.6.3"
    const char *onednn_isa;   // the ISA oneDNN dispatches to, "avx512_core_bf16" (dnnl.h)
    int bf16;                 // 1 when --precision bf16 can run here (ordo_dnnl_bf16_check)
    const char *kernels;      // the instruction set of ordo's own kernels (cpu.h): "avx2"
    const char *subnormals;   // "flush" or "keep" (cpu.h: ordo_cpu_subnormals_flushed)
} ordo_blas_info;
ordo_blas_info ordo_blas_info_get(void);
// The same as a JSON object: {"ordo_gemm", "openblas_core", "openblas_coretype_env" (null
// when unset), "openblas_threading", "onednn_version", "onednn_isa", "bf16" (true/false),
// "ordo_kernels", "subnormals" ("flush" or "keep")};
// the first three and the two oneDNN ones are named as bench_train --peak prints them.
// Caller decrefs.
json_t *ordo_blas_info_json(void);
// One line for a log: "GEMM <gemm>, OpenBLAS core <core>", when the variable is set
// " (OPENBLAS_CORETYPE=<value>)", then ", ordo kernels <isa>, subnormals <flush|keep>, oneDNN
// <version> on <isa>".
// Truncates to fit n bytes; returns buf.
char *ordo_blas_describe(char *buf, size_t n);

#endif
