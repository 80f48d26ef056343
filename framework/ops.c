// Every op's forward wrapper and, in ordo_node_backward, every op's backward rule: one
// switch with no default, so -Wswitch flags an op that lacks a rule. Rules add (+=) into
// gradient buffers obtained with ordo_tensor_grad, which skips inputs needing no grad.
#include <math.h>
#include <string.h>

#include "framework/error.h"
#include "framework/kernels.h"
#include "framework/ops.h"

static int last_dim(const ordo_tensor *t) {
    return t->shape[t->ndim - 1];
}
static int rows(const ordo_tensor *t) {
    return (int)(t->n / (size_t)last_dim(t));
}

// A new tensor with t's shape but the last dim replaced by `last`.
static ordo_tensor *like_last(ordo_ctx *ctx, const ordo_tensor *t, int last) {
    int shape[ORDO_MAX_DIMS];
    memcpy(shape, t->shape, sizeof shape);
    shape[t->ndim - 1] = last;
    return ordo_tensor_new(ctx, t->ndim, shape);
}

static int32_t *copy_ids(ordo_ctx *ctx, const int32_t *ids, size_t n) {
    int32_t *c = ordo_arena_alloc(&ctx->arena, n * sizeof *c);
    memcpy(c, ids, n * sizeof *c);
    return c;
}

// b broadcasts over a when b's dims equal a's trailing dims.
static int is_suffix(const ordo_tensor *a, const ordo_tensor *b) {
    if (b->ndim > a->ndim) return 0;
    for (int i = 0; i < b->ndim; i++)
        if (b->shape[b->ndim - 1 - i] != a->shape[a->ndim - 1 - i]) return 0;
    return 1;
}

ordo_tensor *ordo_matmul(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *w, int transpose_w) {
    ORDO_ASSERT(w->ndim == 2);
    int K = last_dim(a), M = rows(a);
    int N = transpose_w ? w->shape[0] : w->shape[1];
    ORDO_ASSERT((transpose_w ? w->shape[1] : w->shape[0]) == K);
    ordo_tensor *out = like_last(ctx, a, N);
    ordo_gemm(0, transpose_w, M, N, K, 1.0f, a->data, K, w->data, w->shape[1], 0.0f, out->data, N);
    if (ordo_needs_grad(ctx, a, w, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_MATMUL, out);
        n->in[0] = a;
        n->in[1] = w;
        n->iarg[0] = transpose_w;
    }
    return out;
}

ordo_tensor *ordo_linear(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *w, ordo_tensor *b) {
    ORDO_ASSERT(w->ndim == 2 && w->shape[0] == last_dim(x));
    int K = last_dim(x), M = rows(x), N = w->shape[1];
    ordo_tensor *out = like_last(ctx, x, N);
    if (b) {
        ORDO_ASSERT(b->n == (size_t)N);
        for (int i = 0; i < M; i++) memcpy(out->data + (size_t)i * N, b->data, N * sizeof(float));
    }
    ordo_gemm(0, 0, M, N, K, 1.0f, x->data, K, w->data, N, b ? 1.0f : 0.0f, out->data, N);
    if (ordo_needs_grad(ctx, x, w, b)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_LINEAR, out);
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
    }
    return out;
}

ordo_tensor *ordo_bmm(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b, int ta, int tb) {
    ORDO_ASSERT(a->ndim == 3 && b->ndim == 3 && a->shape[0] == b->shape[0]);
    int Bt = a->shape[0];
    int M = ta ? a->shape[2] : a->shape[1], K = ta ? a->shape[1] : a->shape[2];
    int N = tb ? b->shape[1] : b->shape[2];
    ORDO_ASSERT((tb ? b->shape[2] : b->shape[1]) == K);
    ordo_tensor *out = ordo_tensor_new3(ctx, Bt, M, N);
    for (int i = 0; i < Bt; i++)
        ordo_gemm(ta, tb, M, N, K, 1.0f, a->data + (size_t)i * M * K, a->shape[2],
                  b->data + (size_t)i * K * N, b->shape[2], 0.0f, out->data + (size_t)i * M * N, N);
    if (ordo_needs_grad(ctx, a, b, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_BMM, out);
        n->in[0] = a;
        n->in[1] = b;
        n->iarg[0] = ta;
        n->iarg[1] = tb;
    }
    return out;
}

static ordo_tensor *binary(ordo_ctx *ctx, ordo_op op, ordo_tensor *a, ordo_tensor *b) {
    ORDO_ASSERT(is_suffix(a, b));
    ordo_tensor *out = ordo_tensor_new(ctx, a->ndim, a->shape);
    size_t inner = b->n, outer = a->n / b->n;
    if (op == ORDO_OP_ADD)
        ordo_add_forward(out->data, a->data, b->data, outer, inner);
    else
        ordo_mul_forward(out->data, a->data, b->data, outer, inner);
    if (ordo_needs_grad(ctx, a, b, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, op, out);
        n->in[0] = a;
        n->in[1] = b;
    }
    return out;
}

ordo_tensor *ordo_add(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b) {
    return binary(ctx, ORDO_OP_ADD, a, b);
}

ordo_tensor *ordo_mul(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b) {
    return binary(ctx, ORDO_OP_MUL, a, b);
}

ordo_tensor *ordo_scale(ordo_ctx *ctx, ordo_tensor *a, float s) {
    ordo_tensor *out = ordo_tensor_new(ctx, a->ndim, a->shape);
    for (size_t i = 0; i < a->n; i++) out->data[i] = a->data[i] * s;
    if (ordo_needs_grad(ctx, a, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_SCALE, out);
        n->in[0] = a;
        n->farg[0] = s;
    }
    return out;
}

ordo_tensor *ordo_embedding(ordo_ctx *ctx, ordo_tensor *table, const int32_t *ids, int ndim,
                            const int *shape) {
    ORDO_ASSERT(table->ndim == 2 && ndim >= 1 && ndim < ORDO_MAX_DIMS);
    int Nrows = table->shape[0], C = table->shape[1];
    size_t n = ordo_shape_numel(ndim, shape);
    for (size_t i = 0; i < n; i++) ORDO_ASSERT(ids[i] >= 0 && ids[i] < Nrows);
    int oshape[ORDO_MAX_DIMS];
    memcpy(oshape, shape, ndim * sizeof(int));
    oshape[ndim] = C;
    ordo_tensor *out = ordo_tensor_new(ctx, ndim + 1, oshape);
    ordo_embedding_forward(out->data, table->data, ids, (int)n, C);
    if (ordo_needs_grad(ctx, table, NULL, NULL)) {
        ordo_node *nd = ordo_tape_push(ctx, ORDO_OP_EMBEDDING, out);
        nd->in[0] = table;
        nd->ids = copy_ids(ctx, ids, n);
        nd->iarg[0] = (int)n;
    }
    return out;
}

ordo_tensor *ordo_layernorm(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *w, ordo_tensor *b,
                            float eps) {
    int C = last_dim(x), N = rows(x);
    ORDO_ASSERT(w->n == (size_t)C && b->n == (size_t)C);
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    float *mean = ordo_arena_alloc(&ctx->arena, N * sizeof(float));
    float *rstd = ordo_arena_alloc(&ctx->arena, N * sizeof(float));
    ordo_layernorm_forward(out->data, mean, rstd, x->data, w->data, b->data, N, C, eps);
    if (ordo_needs_grad(ctx, x, w, b)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_LAYERNORM, out);
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
        n->saved[0] = mean;
        n->saved[1] = rstd;
    }
    return out;
}

ordo_tensor *ordo_gelu(ordo_ctx *ctx, ordo_tensor *x) {
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    ordo_gelu_forward(out->data, x->data, x->n);
    if (ordo_needs_grad(ctx, x, NULL, NULL)) ordo_tape_push(ctx, ORDO_OP_GELU, out)->in[0] = x;
    return out;
}

ordo_tensor *ordo_softmax(ordo_ctx *ctx, ordo_tensor *x) {
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    ordo_softmax_forward(out->data, x->data, rows(x), last_dim(x));
    if (ordo_needs_grad(ctx, x, NULL, NULL)) ordo_tape_push(ctx, ORDO_OP_SOFTMAX, out)->in[0] = x;
    return out;
}

ordo_tensor *ordo_attention(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *bias, int NH) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3;
    ORDO_ASSERT(NH > 0 && C % NH == 0);
    if (bias)
        ORDO_ASSERT(bias->ndim == 3 && bias->shape[0] == NH && bias->shape[1] == T &&
                    bias->shape[2] == T);
    ordo_tensor *out = ordo_tensor_new3(ctx, B, T, C);
    float *att = ordo_arena_alloc(&ctx->arena, (size_t)B * NH * T * T * sizeof(float));
    ordo_attention_forward(out->data, att, qkv->data, bias ? bias->data : NULL, B, T, C, NH);
    if (ordo_needs_grad(ctx, qkv, bias, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_ATTENTION, out);
        n->in[0] = qkv;
        n->in[1] = bias;
        n->saved[0] = att;
        n->iarg[0] = NH;
    }
    ctx->last_att = att;
    return out;
}

ordo_tensor *ordo_cross_entropy(ordo_ctx *ctx, ordo_tensor *logits, const int32_t *targets) {
    int V = last_dim(logits), N = rows(logits);
    for (int i = 0; i < N; i++) ORDO_ASSERT(targets[i] < V);
    ordo_tensor *out = ordo_tensor_new(ctx, 1, (int[]){1});
    float *stats = ordo_arena_alloc(&ctx->arena, 2 * (size_t)N * sizeof(float));
    int count = 0;
    out->data[0] = (float)ordo_crossentropy_forward(stats, logits->data, targets, N, V, &count);
    if (ordo_needs_grad(ctx, logits, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_CROSS_ENTROPY, out);
        n->in[0] = logits;
        n->saved[0] = stats;
        n->ids = copy_ids(ctx, targets, N);
        n->iarg[0] = count;
    }
    return out;
}

static ordo_tensor *reduce(ordo_ctx *ctx, ordo_op op, ordo_tensor *a) {
    ordo_tensor *out = ordo_tensor_new(ctx, 1, (int[]){1});
    double s = 0.0;
    for (size_t i = 0; i < a->n; i++) s += a->data[i];
    out->data[0] = (float)(op == ORDO_OP_MEAN ? s / a->n : s);
    if (ordo_needs_grad(ctx, a, NULL, NULL)) ordo_tape_push(ctx, op, out)->in[0] = a;
    return out;
}

ordo_tensor *ordo_sum(ordo_ctx *ctx, ordo_tensor *a) {
    return reduce(ctx, ORDO_OP_SUM, a);
}
ordo_tensor *ordo_mean(ordo_ctx *ctx, ordo_tensor *a) {
    return reduce(ctx, ORDO_OP_MEAN, a);
}

ordo_tensor *ordo_rope(ordo_ctx *ctx, ordo_tensor *qkv, int NH, double base, int pos0) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3;
    ORDO_ASSERT(C % NH == 0 && (C / NH) % 2 == 0);
    int half = C / NH / 2;
    float *cosv = ordo_arena_alloc(&ctx->arena, (size_t)T * half * sizeof(float));
    float *sinv = ordo_arena_alloc(&ctx->arena, (size_t)T * half * sizeof(float));
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < half; i++) {
            double theta = pow(base, -2.0 * i / (2.0 * half));
            double ang = (double)(pos0 + t) * theta;
            cosv[(size_t)t * half + i] = (float)cos(ang);
            sinv[(size_t)t * half + i] = (float)sin(ang);
        }
    }
    ordo_tensor *out = ordo_tensor_new(ctx, 3, qkv->shape);
    ordo_rope_forward(out->data, qkv->data, cosv, sinv, B, T, C, NH);
    if (ordo_needs_grad(ctx, qkv, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_ROPE, out);
        n->in[0] = qkv;
        n->saved[0] = cosv;
        n->saved[1] = sinv;
        n->iarg[0] = NH;
    }
    return out;
}

ordo_tensor *ordo_rel_bias(ordo_ctx *ctx, ordo_tensor *table, const int32_t *bucket, int T) {
    ORDO_ASSERT(table->ndim == 2);
    int NB = table->shape[0], NH = table->shape[1];
    size_t TT = (size_t)T * T;
    for (size_t k = 0; k < TT; k++) ORDO_ASSERT(bucket[k] >= 0 && bucket[k] < NB);
    ordo_tensor *out = ordo_tensor_new3(ctx, NH, T, T);
    ordo_relbias_forward(out->data, table->data, bucket, (int)TT, NH);
    if (ordo_needs_grad(ctx, table, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_REL_BIAS, out);
        n->in[0] = table;
        n->ids = copy_ids(ctx, bucket, TT);
        n->iarg[0] = T;
    }
    return out;
}

// Gradient of op(X) = X or X^T given the gradient of the product; shared by matmul/bmm.
// C = op_a(A) @ op_b(B): dA and dB for one (M, N, K) product.
static void mm_backward(float *dA, float *dB, const float *dC, const float *A, const float *B,
                        int ta, int tb, int M, int N, int K, int lda, int ldb) {
    if (dA) {
        if (!ta)
            ordo_gemm(0, !tb, M, K, N, 1.0f, dC, N, B, ldb, 1.0f, dA, lda);
        else
            ordo_gemm(tb, 1, K, M, N, 1.0f, B, ldb, dC, N, 1.0f, dA, lda);
    }
    if (dB) {
        if (!tb)
            ordo_gemm(!ta, 0, K, N, M, 1.0f, A, lda, dC, N, 1.0f, dB, ldb);
        else
            ordo_gemm(1, ta, N, K, M, 1.0f, dC, N, A, lda, 1.0f, dB, ldb);
    }
}

void ordo_node_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *out = n->out, *a = n->in[0], *b = n->in[1], *c = n->in[2];
    const float *g = out->grad;
    switch (n->op) {
    case ORDO_OP_RESHAPE: {
        float *da = ordo_tensor_grad(ctx, a);
        if (da)
            for (size_t i = 0; i < a->n; i++) da[i] += g[i];
        break;
    }
    case ORDO_OP_MATMUL: {
        int tw = n->iarg[0], K = last_dim(a), M = rows(a), N = last_dim(out);
        mm_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b), g, a->data, b->data, 0, tw,
                    M, N, K, K, b->shape[1]);
        break;
    }
    case ORDO_OP_LINEAR: {
        int K = last_dim(a), M = rows(a), N = last_dim(out);
        mm_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b), g, a->data, b->data, 0, 0,
                    M, N, K, K, N);
        float *dc = c ? ordo_tensor_grad(ctx, c) : NULL;
        if (dc) ordo_bias_backward(dc, g, M, N);
        break;
    }
    case ORDO_OP_BMM: {
        int ta = n->iarg[0], tb = n->iarg[1], Bt = a->shape[0];
        int M = out->shape[1], N = out->shape[2], K = ta ? a->shape[1] : a->shape[2];
        float *da = ordo_tensor_grad(ctx, a), *db = ordo_tensor_grad(ctx, b);
        for (int i = 0; i < Bt; i++) {
            size_t oa = (size_t)i * M * K, ob = (size_t)i * K * N, oc = (size_t)i * M * N;
            mm_backward(da ? da + oa : NULL, db ? db + ob : NULL, g + oc, a->data + oa,
                        b->data + ob, ta, tb, M, N, K, a->shape[2], b->shape[2]);
        }
        break;
    }
    case ORDO_OP_ADD:
        ordo_add_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b), g, a->n / b->n, b->n);
        break;
    case ORDO_OP_MUL:
        ordo_mul_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b), g, a->data, b->data,
                          a->n / b->n, b->n);
        break;
    case ORDO_OP_SCALE: {
        float *da = ordo_tensor_grad(ctx, a);
        if (da)
            for (size_t i = 0; i < a->n; i++) da[i] += n->farg[0] * g[i];
        break;
    }
    case ORDO_OP_EMBEDDING: {
        float *dt = ordo_tensor_grad(ctx, a);
        if (dt) ordo_embedding_backward(dt, g, n->ids, n->iarg[0], a->shape[1]);
        break;
    }
    case ORDO_OP_LAYERNORM:
        ordo_layernorm_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b),
                                ordo_tensor_grad(ctx, c), g, a->data, b->data, n->saved[0],
                                n->saved[1], rows(a), last_dim(a));
        break;
    case ORDO_OP_GELU: {
        float *da = ordo_tensor_grad(ctx, a);
        if (da) ordo_gelu_backward(da, a->data, g, a->n);
        break;
    }
    case ORDO_OP_SOFTMAX: {
        float *da = ordo_tensor_grad(ctx, a);
        if (da) ordo_softmax_backward(da, g, out->data, rows(a), last_dim(a));
        break;
    }
    case ORDO_OP_ATTENTION: {
        int B = a->shape[0], T = a->shape[1], C = a->shape[2] / 3;
        float *da = ordo_tensor_grad(ctx, a);
        float *db = b ? ordo_tensor_grad(ctx, b) : NULL;
        if (!da) da = ordo_arena_calloc(&ctx->arena, a->n * sizeof(float)); // bias-only grad
        float *scratch =
            ordo_arena_alloc(&ctx->arena, ordo_attention_scratch_floats(T) * sizeof(float));
        ordo_attention_backward(da, db, g, a->data, n->saved[0], scratch, B, T, C, n->iarg[0]);
        break;
    }
    case ORDO_OP_CROSS_ENTROPY: {
        // In place when allowed and no other op has added to the logits' gradient yet:
        // the kernel then writes each row's gradient over its logits (no calloc, no +=).
        int inplace =
            !a->grad && (a->flags & ORDO_GRAD_IN_PLACE) && (a->flags & ORDO_REQUIRES_GRAD);
        if (inplace) a->grad = a->data;
        float *da = ordo_tensor_grad(ctx, a);
        if (da && n->iarg[0] > 0)
            ordo_crossentropy_backward(da, a->data, n->saved[0], n->ids, rows(a), last_dim(a),
                                       g[0] / (float)n->iarg[0]);
        else if (inplace)
            memset(da, 0, a->n * sizeof(float)); // every target ignored
        break;
    }
    case ORDO_OP_SUM:
    case ORDO_OP_MEAN: {
        float *da = ordo_tensor_grad(ctx, a);
        float s = n->op == ORDO_OP_MEAN ? g[0] / (float)a->n : g[0];
        if (da)
            for (size_t i = 0; i < a->n; i++) da[i] += s;
        break;
    }
    case ORDO_OP_ROPE: {
        int B = a->shape[0], T = a->shape[1], C = a->shape[2] / 3;
        float *da = ordo_tensor_grad(ctx, a);
        if (da) ordo_rope_backward(da, g, n->saved[0], n->saved[1], B, T, C, n->iarg[0]);
        break;
    }
    case ORDO_OP_REL_BIAS: {
        float *dt = ordo_tensor_grad(ctx, a);
        int T = n->iarg[0];
        if (dt) ordo_relbias_backward(dt, g, n->ids, T * T, a->shape[1]);
        break;
    }
    case ORDO_OP_COUNT:
        ORDO_ASSERT(!"not an op");
        break;
    }
}
