// The forget gate's ops (the Forgetting Transformer, --pos fox; docs/positions.md): the prefix
// sums of logsigmoid of a per-(token, head) logit, and the causal difference bias c_i - c_j
// they give for the materialized attention. The fused attention reads c in its tiles instead
// (models/bias_tiles.c), so nothing here is T x T but the materialized bias itself.
//
// Sums run in double and are rounded once per element: c at position t is one rounding of
// the exact prefix sum, not t roundings, so that c_i - c_j of near positions stays accurate
// at long lengths (c grows with t). Each sum is over one (b, h) in a fixed order: the result
// does not depend on the thread count.
#include <math.h>

#include "sys/error.h"
#include "framework/ops.h"
#include "models/pos/ops.h"

// log(sigmoid(z)) = min(z, 0) - log1p(exp(-|z|)): no overflow for either sign
static double logsigmoid(double z) {
    return (z < 0 ? z : 0.0) - log1p(exp(-fabs(z)));
}

// c[b, h, t] = sum_{l <= t} logsigmoid(z[b, l, h]); z (B, T, NH), c (B, NH, T)
static void cum_logsigmoid_forward(float *c, const float *z, int B, int T, int NH) {
#pragma omp parallel for collapse(2) schedule(static) if ((size_t)B * T * NH > 65536)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            double acc = 0.0;
            float *cr = c + ((size_t)b * NH + h) * T;
            for (int t = 0; t < T; t++) {
                acc += logsigmoid(z[((size_t)b * T + t) * NH + h]);
                cr[t] = (float)acc;
            }
        }
}

// dz[b, l, h] += sigmoid(-z) * sum_{t >= l} dc[b, h, t] (the reverse prefix sum of dc)
static void cum_logsigmoid_backward(float *dz, const float *dc, const float *z, int B, int T,
                                    int NH) {
#pragma omp parallel for collapse(2) schedule(static) if ((size_t)B * T * NH > 65536)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            double acc = 0.0;
            const float *dr = dc + ((size_t)b * NH + h) * T;
            for (int t = T - 1; t >= 0; t--) {
                size_t x = ((size_t)b * T + t) * NH + h;
                acc += dr[t];
                dz[x] += (float)(acc / (1.0 + exp((double)z[x]))); // sigmoid(-z) = 1/(1+e^z)
            }
        }
}

static void cum_logsigmoid_node_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *z = n->in[0];
    float *dz = ordo_tensor_grad(ctx, z);
    if (dz)
        cum_logsigmoid_backward(dz, n->out->grad, z->data, z->shape[0], z->shape[1], z->shape[2]);
}

// Node: in[0] = z.
ordo_tensor *ordo_cum_logsigmoid(ordo_ctx *ctx, ordo_tensor *z) {
    ORDO_ASSERT(z->ndim == 3);
    int B = z->shape[0], T = z->shape[1], NH = z->shape[2];
    ordo_tensor *c = ordo_tensor_new(ctx, 3, (int[]){B, NH, T});
    cum_logsigmoid_forward(c->data, z->data, B, T, NH);
    if (ordo_needs_grad(ctx, z, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_CUM_LOGSIGMOID, c, cum_logsigmoid_node_backward);
        n->in[0] = z;
    }
    return c;
}

// out[b, h, i, j] = c[b, h, i] - c[b, h, j] for j <= i, 0 above; c (B, NH, T)
static void diff_bias_forward(float *out, const float *c, size_t BH, int T) {
#pragma omp parallel for schedule(static) if (BH * T * T > 65536)
    for (size_t bh = 0; bh < BH; bh++) {
        const float *cr = c + bh * T;
        for (int i = 0; i < T; i++) {
            float *row = out + (bh * T + i) * T;
            for (int j = 0; j < T; j++) row[j] = j <= i ? cr[i] - cr[j] : 0.0f;
        }
    }
}

// dc_i += sum_{j <= i} dout_ij, dc_j -= sum_{i >= j} dout_ij, each in double
static void diff_bias_backward(float *dc, const float *dout, size_t BH, int T) {
#pragma omp parallel for schedule(static) if (BH * T * T > 65536)
    for (size_t bh = 0; bh < BH; bh++) {
        const float *d = dout + bh * T * T;
        for (int t = 0; t < T; t++) {
            double row = 0.0, col = 0.0;
            for (int j = 0; j <= t; j++) row += d[(size_t)t * T + j];
            for (int i = t; i < T; i++) col += d[(size_t)i * T + t];
            dc[bh * T + t] += (float)(row - col);
        }
    }
}

static void diff_bias_node_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *c = n->in[0];
    float *dc = ordo_tensor_grad(ctx, c);
    if (dc) diff_bias_backward(dc, n->out->grad, (size_t)c->shape[0] * c->shape[1], c->shape[2]);
}

// Node: in[0] = c.
ordo_tensor *ordo_diff_bias(ordo_ctx *ctx, ordo_tensor *c) {
    ORDO_ASSERT(c->ndim == 3);
    int B = c->shape[0], NH = c->shape[1], T = c->shape[2];
    ordo_tensor *out = ordo_tensor_new(ctx, 4, (int[]){B, NH, T, T});
    diff_bias_forward(out->data, c->data, (size_t)B * NH, T);
    if (ordo_needs_grad(ctx, c, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_DIFF_BIAS, out, diff_bias_node_backward);
        n->in[0] = c;
    }
    return out;
}
