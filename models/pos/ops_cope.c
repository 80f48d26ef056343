// Contextual position encoding's ops (CoPE, Golovneva et al. 2024; --pos cope,
// docs/positions.md) for the materialized attention: the positions p of every causal pair,
// gated counts of the keys between j and i, and the bias q_i . e[p] interpolated between the
// integer positions around p. The fused attention computes both inside its tiles
// (models/cope_tiles.c) with the same two helpers of cope_math.h, ordo_cope_gate and
// ordo_cope_interp, so that the two paths differ only by the rounding of the scores.
//
// Per (b, h), for j <= i (s_ij = q_i . k_j / sqrt(hs), g = sigmoid(s), cope_math.h's):
//   p_ij = min(sum_{l = j..i} g_il, P - 1)        the reference's flip-cumsum-flip, clamped
//   z_ij = lp_i[ceil p] w + lp_i[floor p] (1 - w), w = p - floor p, lp_i[k] = q_i . e[h, k]
// Backward: dlp_i[floor] += dz (1 - w), dlp_i[ceil] += dz w, dp = dz (lp_i[ceil] - lp_i[floor]);
// dg_il = sum_{j <= l} dp_ij (p_ij holds g_il for every j <= l), ds = dg g (1 - g). A clamped
// p has floor = ceil = P - 1 and so dp = 0: no gradient through the clamp, as torch's.
//
// The sums of gates run in double, from the diagonal down, and are rounded once per pair.
// Deliberately here only what the reference path needs: [B, NH, T, T] outputs and per-thread
// [T, T] and [T, P] scratch; nothing is tiled.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "framework/blas.h"
#include "models/pos/cope_math.h"
#include "models/pos/ops.h"
#include "sys/error.h"
#include "framework/ops.h"

// ---- positions

// g (T, T) = gate(scale q k^T) of one (b, h), 0 above the diagonal; q, k rows of stride C3
static void gates_of(float *g, const float *q, const float *k, int T, int hs, int C3) {
    ordo_gemm(0, 1, T, T, hs, 1.0f / sqrtf((float)hs), q, C3, k, C3, 0.0f, g, T);
    for (int i = 0; i < T; i++) {
        float *row = g + (size_t)i * T;
        ordo_cope_gates(row, row, i + 1);
        for (int j = i + 1; j < T; j++) row[j] = 0.0f;
    }
}

// p (T, T) of one (b, h) from its gates: suffix sums in double, clamped at P - 1
static void positions_of(float *p, const float *g, int T, int P) {
    for (int i = 0; i < T; i++) {
        double r = 0.0;
        for (int j = i; j >= 0; j--) {
            r += g[(size_t)i * T + j];
            // a NaN count (from NaN scores) clamps too: it becomes an index
            p[(size_t)i * T + j] = !(r <= P - 1) ? (float)(P - 1) : (float)r;
        }
        for (int j = i + 1; j < T; j++) p[(size_t)i * T + j] = 0.0f;
    }
}

// Node: in[0] = qkv, out = p; saved[0] = the gates (B, NH, T, T); iarg = NH, P.
static void cope_positions_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *qkv = n->in[0];
    float *dqkv = ordo_tensor_grad(ctx, qkv);
    if (!dqkv) return;
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3, NH = n->iarg[0];
    int P = n->iarg[1], hs = C / NH, C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)hs);
    const float *p = n->out->data, *dp = n->out->grad, *gates = n->saved[0];
    float *scratch =
        ordo_arena_alloc(&ctx->arena, (size_t)omp_get_max_threads() * T * T * sizeof(float));
    int saved = ordo_blas_single_thread_begin();
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            size_t bh = (size_t)b * NH + h;
            const float *g = gates + bh * T * T, *pr = p + bh * T * T, *dpr = dp + bh * T * T;
            float *ds = scratch + (size_t)omp_get_thread_num() * T * T; // (T, T)
            for (int i = 0; i < T; i++) {
                double dg = 0.0; // sum_{j <= l} dp_ij, the clamped pairs passing nothing
                for (int l = 0; l < T; l++) {
                    size_t x = (size_t)i * T + l;
                    if (l <= i && pr[x] < P - 1) dg += dpr[x];
                    ds[x] = l <= i ? (float)dg * g[x] * (1.0f - g[x]) : 0.0f;
                }
            }
            const float *q = qkv->data + (size_t)b * T * C3 + h * hs, *k = q + C;
            float *dq = dqkv + (size_t)b * T * C3 + h * hs, *dk = dq + C;
            // s = scale q k^T: dq += scale ds k, dk += scale ds^T q
            ordo_gemm(0, 0, T, hs, T, scale, ds, T, k, C3, 1.0f, dq, C3);
            ordo_gemm(1, 0, T, hs, T, scale, ds, T, q, C3, 1.0f, dk, C3);
        }
    ordo_blas_single_thread_end(saved);
}

ordo_tensor *ordo_cope_positions(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int P) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % (3 * NH) == 0 && P >= 1);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3, hs = C / NH, C3 = 3 * C;
    ordo_tensor *p = ordo_tensor_new(ctx, 4, (int[]){B, NH, T, T});
    float *gates = ordo_arena_alloc(&ctx->arena, p->n * sizeof(float)); // (B, NH, T, T)
    int saved = ordo_blas_single_thread_begin();
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            size_t bh = (size_t)b * NH + h;
            const float *q = qkv->data + (size_t)b * T * C3 + h * hs;
            gates_of(gates + bh * T * T, q, q + C, T, hs, C3);
            positions_of(p->data + bh * T * T, gates + bh * T * T, T, P);
        }
    ordo_blas_single_thread_end(saved);
    if (ordo_needs_grad(ctx, qkv, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_COPE_POSITIONS, p, cope_positions_backward);
        n->in[0] = qkv;
        n->saved[0] = gates;
        n->iarg[0] = NH;
        n->iarg[1] = P;
    }
    return p;
}

// ---- the bias

// lp (T, P) = q e_h^T: q_i . e[h, k] for every row and integer position; q rows of stride C3
static void logits_int(float *lp, const float *q, const float *eh, int T, int P, int hs, int C3) {
    ordo_gemm(0, 1, T, P, hs, 1.0f, q, C3, eh, hs, 0.0f, lp, P);
}

// Node: in[0] = qkv, in[1] = e, in[2] = p; iarg[0] = NH.
static void cope_bias_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *qkv = n->in[0], *e = n->in[1], *pt = n->in[2];
    float *dqkv = ordo_tensor_grad(ctx, qkv), *de = ordo_tensor_grad(ctx, e),
          *dp = ordo_tensor_grad(ctx, pt);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3, NH = n->iarg[0];
    int P = e->shape[1], hs = C / NH, C3 = 3 * C;
    const float *dz = n->out->grad;
    size_t per = 2 * (size_t)T * P; // lp, dlp (T, P) per thread
    float *scratch =
        ordo_arena_alloc(&ctx->arena, (size_t)omp_get_max_threads() * per * sizeof(float));
    int saved = ordo_blas_single_thread_begin();
    // heads outermost, batch inside: de[h] is one thread's, summed over b in order
#pragma omp parallel for schedule(static)
    for (int h = 0; h < NH; h++) {
        float *lp = scratch + (size_t)omp_get_thread_num() * per, *dlp = lp + (size_t)T * P;
        const float *eh = e->data + (size_t)h * P * hs;
        for (int b = 0; b < B; b++) {
            size_t bh = (size_t)b * NH + h;
            const float *q = qkv->data + (size_t)b * T * C3 + h * hs;
            const float *pr = pt->data + bh * T * T, *dzr = dz + bh * T * T;
            logits_int(lp, q, eh, T, P, hs, C3);
            memset(dlp, 0, (size_t)T * P * sizeof(float));
            for (int i = 0; i < T; i++) {
                const float *l = lp + (size_t)i * P;
                float *dl = dlp + (size_t)i * P;
                for (int j = 0; j <= i; j++) {
                    size_t x = (size_t)i * T + j;
                    float pv = pr[x], f = floorf(pv), w = pv - f;
                    int fi = (int)f, ci = (int)ceilf(pv);
                    dl[fi] += dzr[x] * (1.0f - w);
                    dl[ci] += dzr[x] * w;
                    if (dp) dp[bh * T * T + x] += dzr[x] * (l[ci] - l[fi]);
                }
            }
            // lp = q e_h^T: dq += dlp e_h, de_h += dlp^T q
            if (dqkv)
                ordo_gemm(0, 0, T, hs, P, 1.0f, dlp, P, eh, hs, 1.0f,
                          dqkv + (size_t)b * T * C3 + h * hs, C3);
            if (de)
                ordo_gemm(1, 0, P, hs, T, 1.0f, dlp, P, q, C3, 1.0f, de + (size_t)h * P * hs, hs);
        }
    }
    ordo_blas_single_thread_end(saved);
}

ordo_tensor *ordo_cope_bias(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *e, ordo_tensor *p) {
    ORDO_ASSERT(qkv->ndim == 3 && e->ndim == 3 && p->ndim == 4);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3, NH = e->shape[0];
    int P = e->shape[1], hs = e->shape[2], C3 = 3 * C;
    ORDO_ASSERT(NH * hs == C && p->shape[0] == B && p->shape[1] == NH && p->shape[2] == T &&
                p->shape[3] == T);
    ordo_tensor *out = ordo_tensor_new(ctx, 4, (int[]){B, NH, T, T});
    float *scratch =
        ordo_arena_alloc(&ctx->arena, (size_t)omp_get_max_threads() * T * P * sizeof(float));
    int saved = ordo_blas_single_thread_begin();
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            size_t bh = (size_t)b * NH + h;
            float *lp = scratch + (size_t)omp_get_thread_num() * T * P; // (T, P)
            logits_int(lp, qkv->data + (size_t)b * T * C3 + h * hs, e->data + (size_t)h * P * hs, T,
                       P, hs, C3);
            const float *pr = p->data + bh * T * T;
            float *o = out->data + bh * T * T;
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++) {
                    size_t x = (size_t)i * T + j;
                    o[x] = j <= i ? ordo_cope_interp(lp + (size_t)i * P, pr[x]) : 0.0f;
                }
        }
    ordo_blas_single_thread_end(saved);
    if (ordo_needs_grad(ctx, qkv, e, p)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_COPE_BIAS, out, cope_bias_backward);
        n->in[0] = qkv;
        n->in[1] = e;
        n->in[2] = p;
        n->iarg[0] = NH;
    }
    return out;
}
