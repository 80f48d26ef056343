// The chunked LM head + cross-entropy (see lmhead.h): forward and backward side by side.
//
// Per chunk of R rows, in row order:
//   logits (R, V) = x[r0:r0+R] @ head^T                 the chunk's products, fp32 or bf16
//   stats, loss                                          ordo_crossentropy_stats and _sum
//   dlogits (R, V) = (softmax - onehot) / count          in place over the logits (training)
//   dx[r0:r0+R] (R, C) = dlogits @ head                  each chunk writes its own rows
//   dhead (V, C) += dlogits^T @ x[r0:r0+R]               summed over the chunks in row order
// The chunk size is a function of V (or the caller's), never of the thread count, and each
// product's elements do not depend on it either (blas.h, dnnl.h): a run gives the same bits
// at any --threads.
//
// Deliberately not here: recomputing the logits in backward (one more [N, V, C] product, a
// third of a GPT-2-vocabulary model's step), or keeping them (the memory this op exists to
// save). Forming the gradient in the forward costs nothing when backward follows, as it does
// whenever a tape is recorded; the upstream gradient (1 in training, a share's weight with
// data parallelism or accumulation) is a scalar applied to the two products in backward.
#include <limits.h>
#include <math.h>
#include <string.h>

#include "framework/blas.h"
#include "sys/error.h"
#include "framework/kernels.h"
#include "framework/lmhead.h"
#include "framework/mm.h"
#include "framework/ops.h"

int ordo_lm_head_chunk_rows(int V) {
    size_t r = ORDO_LM_HEAD_CHUNK_FLOATS / (size_t)(V > 0 ? V : 1) / 16 * 16;
    if (r < 16) r = 16;
    if (r > (size_t)1 << 24) r = (size_t)1 << 24;
    return (int)r;
}

// dx (R, C) = dlogits (R, V) @ head (V, C) as DX_SLICES products over slices of V, one
// thread each, summed in slice order. ordo_gemm would cut this product along R into blocks
// that each pack the whole head (51 MB at GPT-2's V and C 256) once per chunk; the slices of
// V pack it once between them. A fixed number of slices, cut by the shape: the same bits at
// any thread count. A small vocabulary's head is cheap to pack, and oneDNN's bf16 product is
// not cut this way: one ordo_mm there.
enum { DX_SLICES = 8, DX_SLICE_MIN_V = 8192 };
static void dx_product(float *dx, float *part, ordo_mat dlogits_m, ordo_mat head_m, int R, int V,
                       int C) {
    if (V < DX_SLICE_MIN_V || (dlogits_m.bf16 && head_m.bf16)) {
        ordo_mm(0, 0, R, C, V, dlogits_m, head_m, 0.0f, dx, C);
        return;
    }
    const float *dlogits = dlogits_m.f32, *head = head_m.f32;
    int per = (V + DX_SLICES - 1) / DX_SLICES;
    int saved = ordo_blas_single_thread_begin();
#pragma omp parallel for schedule(dynamic, 1)
    for (int p = 0; p < DX_SLICES; p++) {
        int v0 = p * per, nv = V - v0 < per ? V - v0 : per;
        float *dst = p == 0 ? dx : part + (size_t)(p - 1) * R * C;
        if (nv > 0)
            ordo_gemm_serial(0, 0, R, C, nv, 1.0f, dlogits + v0, V, head + (size_t)v0 * C, C, 0.0f,
                             dst, C);
        else
            memset(dst, 0, (size_t)R * C * sizeof(float));
    }
    ordo_blas_single_thread_end(saved);
    size_t n = (size_t)R * C;
#pragma omp parallel for if (n > ORDO_PAR_LOOP_MIN)
    for (size_t i = 0; i < n; i++) {
        float s = dx[i];
        for (int p = 1; p < DX_SLICES; p++) s += part[(size_t)(p - 1) * n + i];
        dx[i] = s;
    }
}

// Evaluation's path (row losses, no gradient): the logits of the scored rows alone, gathered
// chunk rows at a time. A sliding window scores its last S of T targets, so a product over
// every row would cost T/S times as much (4x at `ordo eval --mode sliding`'s default stride):
// at GPT-2's V the head is most of an evaluation's time. Returns the sum of the scored rows'
// losses in row order; row_loss [N] gets NaN where a row is ignored.
static double scored_row_losses(ordo_ctx *ctx, const ordo_tensor *x, const ordo_bf16 *xb,
                                const ordo_tensor *head, const int32_t *tg, int N, int chunk,
                                double *row_loss) {
    int C = head->shape[1], V = head->shape[0];
    ordo_arena_pos start = ordo_arena_mark(&ctx->arena);
    int *rows = ordo_arena_alloc(&ctx->arena, (size_t)chunk * sizeof *rows);
    float *lg = ordo_arena_alloc(&ctx->arena, (size_t)chunk * V * sizeof(float)); // (R, V)
    float *xs = xb ? NULL : ordo_arena_alloc(&ctx->arena, (size_t)chunk * C * sizeof(float));
    ordo_bf16 *xsb = xb ? ordo_arena_alloc(&ctx->arena, (size_t)chunk * C * sizeof *xsb) : NULL;
    double total = 0.0;
    int i = 0;
    while (i < N) {
        int R = 0; // the next chunk of scored rows, gathered (R, C)
        for (; i < N && R < chunk; i++) {
            if (tg[i] < 0) {
                row_loss[i] = NAN;
                continue;
            }
            if (xb)
                memcpy(xsb + (size_t)R * C, xb + (size_t)i * C, (size_t)C * sizeof *xsb);
            else
                memcpy(xs + (size_t)R * C, x->data + (size_t)i * C, (size_t)C * sizeof *xs);
            rows[R++] = i;
        }
        if (R == 0) break;
        ordo_mm(0, 1, R, V, C, (ordo_mat){xs, xsb, C}, (ordo_mat){head->data, head->bf16, C}, 0.0f,
                lg, V);
#pragma omp parallel for if ((size_t)R * V > ORDO_PAR_LOOP_MIN)
        for (int r = 0; r < R; r++)
            row_loss[rows[r]] = ordo_row_nll(lg + (size_t)r * V, V, tg[rows[r]]);
        for (int r = 0; r < R; r++) total += row_loss[rows[r]];
    }
    ordo_arena_release(&ctx->arena, start);
    return total;
}

// Node: in[0] = x, in[1] = head; saved[0] = x's gradient for an upstream gradient of 1 (N, C)
// or NULL, saved[1] = the head's (V, C), in bf16 transposed (C, V), or NULL; iarg[0] = 1 for
// the transposed (bf16) layout.
ordo_tensor *ordo_lm_head_loss(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *head,
                               const int32_t *targets, int chunk, double *row_loss) {
    ORDO_ASSERT(head->ndim == 2 && x->ndim >= 1);
    int C = x->shape[x->ndim - 1], V = head->shape[0];
    ORDO_ASSERT(head->shape[1] == C && C > 0 && V > 0);
    int N = (int)(x->n / (size_t)C), count = 0;
    for (int i = 0; i < N; i++) {
        ORDO_ASSERT(targets[i] < V);
        count += targets[i] >= 0;
    }
    if (chunk <= 0) chunk = ordo_lm_head_chunk_rows(V);
    if (chunk > N) chunk = N;
    int grad = ordo_needs_grad(ctx, x, head, NULL);
    // the gradients worth forming: none when no target counts (the loss is then constant)
    int gx = grad && count > 0 && (x->flags & ORDO_REQUIRES_GRAD);
    int gw = grad && count > 0 && (head->flags & ORDO_REQUIRES_GRAD);
    int bf = head->bf16 != NULL;
    const ordo_bf16 *xb = bf ? ordo_tensor_bf16(ctx, x) : NULL; // (N, C)
    if (row_loss && !grad) { // evaluation: no tape, so nothing but the scored rows' losses
        double total = scored_row_losses(ctx, x, xb, head, targets, N, chunk, row_loss);
        ordo_tensor *out = ordo_tensor_new(ctx, 1, (int[]){1});
        out->data[0] = count ? (float)(total / count) : 0.0f;
        return out;
    }
    float *dx = gx ? ordo_arena_alloc(&ctx->arena, x->n * sizeof(float)) : NULL;    // (N, C)
    float *dw = gw ? ordo_arena_alloc(&ctx->arena, head->n * sizeof(float)) : NULL; // (V, C)
    ordo_tensor *out = ordo_tensor_new(ctx, 1, (int[]){1});
    // the chunk's buffers are dead once the loop is done: released then, so that backward's
    // buffers take their memory rather than more of the system's
    ordo_arena_pos chunk_start = ordo_arena_mark(&ctx->arena);
    float *lg = ordo_arena_alloc(&ctx->arena, (size_t)chunk * V * sizeof(float)); // (R, V)
    float *stats = ordo_arena_alloc(&ctx->arena, 2 * (size_t)chunk * sizeof(float));
    ordo_bf16 *lgb = bf && (gx || gw) // (R, V): the bf16 operand of the backward products
                         ? ordo_arena_alloc(&ctx->arena, (size_t)chunk * V * sizeof(ordo_bf16))
                         : NULL;
    float *dx_part =
        gx && !bf && V >= DX_SLICE_MIN_V
            ? ordo_arena_alloc(&ctx->arena, (size_t)(DX_SLICES - 1) * chunk * C * sizeof(float))
            : NULL;                                   // (DX_SLICES - 1, R, C)
    float scale = count ? 1.0f / (float)count : 0.0f; // d mean / d row loss
    double total = 0.0;                               // over the counted rows, in row order
    for (int r0 = 0; r0 < N; r0 += chunk) {
        int R = N - r0 < chunk ? N - r0 : chunk;
        const int32_t *tg = targets + r0;
        ordo_mat xm = {x->data + (size_t)r0 * C, bf ? xb + (size_t)r0 * C : NULL, C}; // (R, C)
        ordo_mat hm = {head->data, head->bf16, C};                                    // (V, C)
        ordo_mm(0, 1, R, V, C, xm, hm, 0.0f, lg, V);
        if (row_loss) {
            double *rl = row_loss + r0;
#pragma omp parallel for if ((size_t)R * V > ORDO_PAR_LOOP_MIN)
            for (int i = 0; i < R; i++)
                rl[i] = tg[i] < 0 ? NAN : ordo_row_nll(lg + (size_t)i * V, V, tg[i]);
            for (int i = 0; i < R; i++)
                if (tg[i] >= 0) total += rl[i];
        }
        if (row_loss && !(gx || gw)) continue;
        ordo_crossentropy_stats(stats, lg, R, V); // stats (2R): row max, log-sum
        if (!row_loss) total = ordo_crossentropy_sum(total, stats, lg, tg, R, V);
        if (!(gx || gw)) continue;
        // the logits become their gradient, row by row (and its bf16 rounding in the same pass)
        ordo_crossentropy_backward(lg, lgb, lg, stats, tg, R, V, scale);
        ordo_mat gm = {lg, lgb, V}; // (R, V): the logits' gradient
        if (gx) dx_product(dx + (size_t)r0 * C, dx_part, gm, hm, R, V, C);
        // in bf16 the head's gradient is made transposed, as ops.c's bf16 matmul backward
        if (gw && bf) ordo_mm(1, 0, C, V, R, xm, gm, r0 > 0, dw, V);
        if (gw && !bf) ordo_mm(1, 0, V, C, R, gm, xm, r0 > 0, dw, C);
    }
    ordo_arena_release(&ctx->arena, chunk_start);
    out->data[0] = count ? (float)(total / count) : 0.0f;
    if (grad) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_LM_HEAD_LOSS, out, ordo_lm_head_loss_backward);
        n->in[0] = x;
        n->in[1] = head;
        n->saved[0] = dx;
        n->saved[1] = dw;
        n->iarg[0] = bf;
    }
    return out;
}

// dst[i] += g * src[i] (exactly src[i] when g is 1, the training case).
static void add_scaled(float *dst, const float *src, float g, size_t n) {
    if (g == 1.0f) {
#pragma omp parallel for simd if (n > ORDO_PAR_LOOP_MIN)
        for (size_t i = 0; i < n; i++) dst[i] += src[i];
    } else {
#pragma omp parallel for simd if (n > ORDO_PAR_LOOP_MIN)
        for (size_t i = 0; i < n; i++) dst[i] += g * src[i];
    }
}

void ordo_lm_head_loss_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *x = n->in[0], *head = n->in[1];
    float g = n->out->grad[0];
    int V = head->shape[0], C = head->shape[1];
    float *dx = n->saved[0] ? ordo_tensor_grad(ctx, x) : NULL;
    if (dx) add_scaled(dx, n->saved[0], g, x->n);
    float *dw = n->saved[1] ? ordo_tensor_grad(ctx, head) : NULL;
    if (!dw) return;
    if (!n->iarg[0]) {
        add_scaled(dw, n->saved[1], g, head->n);
        return;
    }
    float *t = n->saved[1]; // (C, V): scaled in place (nothing reads it after this rule)
    if (g != 1.0f)
        for (size_t i = 0; i < head->n; i++) t[i] *= g;
    ordo_add_transposed(dw, t, C, V);
}
