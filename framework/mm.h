// The matrix product of the ops in either precision. A product runs on oneDNN with bf16
// operands and float32 accumulation (dnnl.h) when both operands have a bf16 rounding
// (--precision bf16: a weight's bf16 copy, an activation's made by ordo_tensor_bf16), and on
// ordo_gemm in float32 (blas.h) otherwise: ops.c and lmhead.c say which forms an operand has,
// and this is the one place that turns that into a GEMM. Outputs are float32 either way.
#ifndef ORDO_MM_H
#define ORDO_MM_H
#include "framework/bf16.h"
#include "framework/tensor.h"

// One operand, row-major with leading dimension ld (as cblas_sgemm's). f32 may be NULL when
// the product runs in bf16, bf16 is NULL when the operand has no bf16 rounding.
typedef struct ordo_mat {
    const float *f32;
    const ordo_bf16 *bf16;
    int ld;
} ordo_mat;

// C[M,N] = op(A) @ op(B) + beta * C, beta 0 (C not read) or 1. In bf16 when A.bf16 and
// B.bf16 are both set, else in float32 from A.f32 and B.f32. Each element of C is the same
// at any thread count (both GEMMs promise it). A bf16 product needs M, N, K >= 1 and a
// caller outside any parallel region.
void ordo_mm(int ta, int tb, int M, int N, int K, ordo_mat A, ordo_mat B, float beta, float *C,
             int ldc);

// t's data rounded to bf16: made by the first call (in ctx's arena, unless t is a weight
// with its bf16 copy already) and kept on t, so every later product reads the same buffer.
const ordo_bf16 *ordo_tensor_bf16(ordo_ctx *ctx, ordo_tensor *t);

#endif
