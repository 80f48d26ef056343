// ordo_mm (mm.h): the choice between the bf16 and the float32 GEMM, and the bf16 rounding
// of a tensor that the bf16 products share. Not here: which layout a product takes in each
// precision (the ops choose it: oneDNN and ordo_gemm are fast on different ones).
#include "framework/mm.h"

#include "framework/blas.h"
#include "framework/dnnl.h"
#include "sys/error.h"

void ordo_mm(int ta, int tb, int M, int N, int K, ordo_mat A, ordo_mat B, float beta, float *C,
             int ldc) {
    ORDO_ASSERT(beta == 0.0f || beta == 1.0f);
    if (A.bf16 && B.bf16)
        ordo_dnnl_gemm_bf16(ta, tb, M, N, K, A.bf16, A.ld, B.bf16, B.ld, beta != 0.0f, C, ldc);
    else
        ordo_gemm(ta, tb, M, N, K, 1.0f, A.f32, A.ld, B.f32, B.ld, beta, C, ldc);
}

const ordo_bf16 *ordo_tensor_bf16(ordo_ctx *ctx, ordo_tensor *t) {
    if (!t->bf16) {
        t->bf16 = ordo_arena_alloc(&ctx->arena, t->n * sizeof(ordo_bf16));
        ordo_bf16_convert(t->bf16, t->data, t->n);
    }
    return t->bf16;
}
