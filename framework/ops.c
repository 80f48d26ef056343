// Every op of the framework, each as a forward followed by its backward rule; each node
// carries its rule (ordo_tape_push), as the ops of the layers above do theirs. Rules add (+=)
// into gradient buffers obtained with ordo_tensor_grad, which skips inputs needing no grad.
//
// The node's slots mean what each op makes them mean; the comment above each forward says
// what it stores. Conventions: in[] holds the inputs the rule sends gradient to (NULL for
// an absent optional input), saved[] arena buffers the forward computed for the backward,
// ids an arena copy of the op's integer input, iarg/farg its scalar arguments.
#include <math.h>
#include <string.h>

#include "framework/dropout.h"
#include "sys/error.h"
#include "framework/kernels.h"
#include "framework/lmhead.h"
#include "framework/mm.h"
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

// ---- bf16 products (--precision bf16). A matmul whose weight has a bf16 copy (w->bf16, see
// tensor.h) runs on oneDNN with bf16 operands and float32 accumulation (mm.h): its input is
// rounded once and kept on the tensor (the backward reuses it), the upstream gradient once for
// both backward products. Outputs and gradients stay float32.

// n floats of a gradient rounded to bf16, in the arena.
static const ordo_bf16 *bf16_copy(ordo_ctx *ctx, const float *g, size_t n) {
    ordo_bf16 *b = ordo_arena_alloc(&ctx->arena, n * sizeof(ordo_bf16));
    ordo_bf16_convert(b, g, n);
    return b;
}

// Gradient of op(X) = X or X^T given the gradient of the product; shared by matmul, linear
// and bmm. C = op_a(A) @ op_b(B): dA and dB for one (M, N, K) product, in bf16 when dC and
// the operand it meets have bf16 forms (ordo_mm). A bf16 dB of a transposed B (the tied LM
// head) is made as A^T @ dC [K,N] and added transposed: oneDNN's product with the long [M, V]
// gradient as the transposed operand took 1.45x the CPU time of this form on small's head
// (docs/performance.md). Either way every element is one float32 sum over m, added once to dB.
static void mm_backward(ordo_ctx *ctx, float *dA, float *dB, ordo_mat dC, ordo_mat A, ordo_mat B,
                        int ta, int tb, int M, int N, int K) {
    if (dA) {
        if (!ta)
            ordo_mm(0, !tb, M, K, N, dC, B, 1.0f, dA, A.ld);
        else
            ordo_mm(tb, 1, K, M, N, B, dC, 1.0f, dA, A.ld);
    }
    if (dB) {
        if (!tb)
            ordo_mm(!ta, 0, K, N, M, A, dC, 1.0f, dB, B.ld);
        else if (!(A.bf16 && dC.bf16))
            ordo_mm(1, ta, N, K, M, dC, A, 1.0f, dB, B.ld);
        else {
            ORDO_ASSERT(!ta);
            float *t = ordo_arena_alloc(&ctx->arena, (size_t)K * N * sizeof(float)); // (K, N)
            ordo_mm(1, 0, K, N, M, A, dC, 0.0f, t, N);
            ordo_add_transposed(dB, t, K, N);
        }
    }
}

// Both backward products of out = a @ op(w) (a [M,K], w [K,N] or [N,K] with tw), in bf16 when
// w has its bf16 copy, as the forward ran.
static void matmul_grads(ordo_ctx *ctx, ordo_tensor *out, ordo_tensor *a, ordo_tensor *w, int tw) {
    int K = last_dim(a), M = rows(a), N = last_dim(out);
    float *da = ordo_tensor_grad(ctx, a), *dw = ordo_tensor_grad(ctx, w);
    if (!da && !dw) return;
    int bf = w->bf16 != NULL;
    const ordo_bf16 *gb = !bf              ? NULL
                          : out->grad_bf16 ? out->grad_bf16
                                           : bf16_copy(ctx, out->grad, out->n);
    ordo_mat g = {out->grad, gb, N};
    ordo_mat am = {a->data, bf && dw ? ordo_tensor_bf16(ctx, a) : NULL, K};
    ordo_mat wm = {w->data, w->bf16, w->shape[1]};
    mm_backward(ctx, da, dw, g, am, wm, 0, tw, M, N, K);
}

// Each op's backward rule, defined after its forward; the node carries it, so that the tape
// runs any op, this file's or a layer's above, without a table of rules.
static void reshape_backward(ordo_ctx *ctx, ordo_node *n);
static void matmul_backward(ordo_ctx *ctx, ordo_node *n);
static void linear_backward(ordo_ctx *ctx, ordo_node *n);
static void bmm_backward(ordo_ctx *ctx, ordo_node *n);
static void add_backward(ordo_ctx *ctx, ordo_node *n);
static void mul_backward(ordo_ctx *ctx, ordo_node *n);
static void scale_backward(ordo_ctx *ctx, ordo_node *n);
static void scale_by_backward(ordo_ctx *ctx, ordo_node *n);
static void embedding_backward(ordo_ctx *ctx, ordo_node *n);
static void layernorm_backward(ordo_ctx *ctx, ordo_node *n);
static void gelu_backward(ordo_ctx *ctx, ordo_node *n);
static void softmax_backward(ordo_ctx *ctx, ordo_node *n);
static void attention_backward(ordo_ctx *ctx, ordo_node *n);
static void cross_entropy_backward(ordo_ctx *ctx, ordo_node *n);
static void reduce_backward(ordo_ctx *ctx, ordo_node *n);
static void rope_backward(ordo_ctx *ctx, ordo_node *n);
static void dropout_backward(ordo_ctx *ctx, ordo_node *n);
static void relu_backward(ordo_ctx *ctx, ordo_node *n);
static void silu_backward(ordo_ctx *ctx, ordo_node *n);

// Node: in[0] = t (out is a view of t's data, so the rule copies the gradient back).
ordo_tensor *ordo_reshape(ordo_ctx *ctx, ordo_tensor *t, int ndim, const int *shape) {
    ORDO_ASSERT(ordo_shape_numel(ndim, shape) == t->n);
    ordo_tensor *v = ordo_tensor_wrap(ctx, t->data, ndim, shape);
    if (ordo_needs_grad(ctx, t, NULL, NULL))
        ordo_tape_push(ctx, ORDO_OP_RESHAPE, v, reshape_backward)->in[0] = t;
    return v;
}

ordo_tensor *ordo_tensor_view(ordo_ctx *ctx, ordo_tensor *t, int ndim, const int *shape) {
    // A view records a node so that its gradient flows back to the viewed tensor.
    return ordo_reshape(ctx, t, ndim, shape);
}

static void reshape_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a);
    if (da)
        for (size_t i = 0; i < a->n; i++) da[i] += g[i];
}

// Node: in[0] = a, in[1] = w; iarg[0] = transpose_w.
ordo_tensor *ordo_matmul(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *w, int transpose_w) {
    ORDO_ASSERT(w->ndim == 2);
    int K = last_dim(a), M = rows(a);
    int N = transpose_w ? w->shape[0] : w->shape[1];
    ORDO_ASSERT((transpose_w ? w->shape[1] : w->shape[0]) == K);
    ordo_tensor *out = like_last(ctx, a, N);
    int bf = w->bf16 != NULL;
    ordo_mat am = {a->data, bf ? ordo_tensor_bf16(ctx, a) : NULL, K};
    ordo_mm(0, transpose_w, M, N, K, am, (ordo_mat){w->data, w->bf16, w->shape[1]}, 0.0f, out->data,
            N);
    if (bf) out->flags |= ORDO_GRAD_BF16; // the backward below reads its gradient in bf16 only
    if (ordo_needs_grad(ctx, a, w, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_MATMUL, out, matmul_backward);
        n->in[0] = a;
        n->in[1] = w;
        n->iarg[0] = transpose_w;
    }
    return out;
}

static void matmul_backward(ordo_ctx *ctx, ordo_node *n) {
    matmul_grads(ctx, n->out, n->in[0], n->in[1], n->iarg[0]);
}

// Node: in[0] = x, in[1] = w, in[2] = b (NULL without a bias).
ordo_tensor *ordo_linear(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *w, ordo_tensor *b) {
    ORDO_ASSERT(w->ndim == 2 && w->shape[0] == last_dim(x));
    int K = last_dim(x), M = rows(x), N = w->shape[1];
    ordo_tensor *out = like_last(ctx, x, N);
    if (b) {
        ORDO_ASSERT(b->n == (size_t)N);
        for (int i = 0; i < M; i++) memcpy(out->data + (size_t)i * N, b->data, N * sizeof(float));
    }
    ordo_mat xm = {x->data, w->bf16 ? ordo_tensor_bf16(ctx, x) : NULL, K};
    ordo_mm(0, 0, M, N, K, xm, (ordo_mat){w->data, w->bf16, N}, b ? 1.0f : 0.0f, out->data, N);
    if (ordo_needs_grad(ctx, x, w, b)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_LINEAR, out, linear_backward);
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
    }
    return out;
}

static void linear_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *out = n->out, *a = n->in[0], *b = n->in[1], *c = n->in[2];
    const float *g = out->grad;
    int M = rows(a), N = last_dim(out);
    matmul_grads(ctx, out, a, b, 0);
    float *dc = c ? ordo_tensor_grad(ctx, c) : NULL;
    if (dc) ordo_bias_backward(dc, g, M, N);
}

// Node: in[0] = a, in[1] = b; iarg[0] = ta, iarg[1] = tb.
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
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_BMM, out, bmm_backward);
        n->in[0] = a;
        n->in[1] = b;
        n->iarg[0] = ta;
        n->iarg[1] = tb;
    }
    return out;
}

static void bmm_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *out = n->out, *a = n->in[0], *b = n->in[1];
    const float *g = out->grad;
    int ta = n->iarg[0], tb = n->iarg[1], Bt = a->shape[0];
    int M = out->shape[1], N = out->shape[2], K = ta ? a->shape[1] : a->shape[2];
    float *da = ordo_tensor_grad(ctx, a), *db = ordo_tensor_grad(ctx, b);
    for (int i = 0; i < Bt; i++) {
        size_t oa = (size_t)i * M * K, ob = (size_t)i * K * N, oc = (size_t)i * M * N;
        mm_backward(ctx, da ? da + oa : NULL, db ? db + ob : NULL, (ordo_mat){g + oc, NULL, N},
                    (ordo_mat){a->data + oa, NULL, a->shape[2]},
                    (ordo_mat){b->data + ob, NULL, b->shape[2]}, ta, tb, M, N, K);
    }
}

// add and mul. Node: in[0] = a, in[1] = b (b's shape is a suffix of a's).
static ordo_tensor *binary(ordo_ctx *ctx, ordo_op op, ordo_tensor *a, ordo_tensor *b) {
    ORDO_ASSERT(is_suffix(a, b));
    ordo_tensor *out = ordo_tensor_new(ctx, a->ndim, a->shape);
    size_t inner = b->n, outer = a->n / b->n;
    if (op == ORDO_OP_ADD)
        ordo_add_forward(out->data, a->data, b->data, outer, inner);
    else
        ordo_mul_forward(out->data, a->data, b->data, outer, inner);
    if (ordo_needs_grad(ctx, a, b, NULL)) {
        ordo_node *n =
            ordo_tape_push(ctx, op, out, op == ORDO_OP_ADD ? add_backward : mul_backward);
        n->in[0] = a;
        n->in[1] = b;
    }
    return out;
}

ordo_tensor *ordo_add(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b) {
    return binary(ctx, ORDO_OP_ADD, a, b);
}

static void add_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0], *b = n->in[1];
    ordo_add_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b), n->out->grad, a->n / b->n,
                      b->n);
}

ordo_tensor *ordo_mul(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b) {
    return binary(ctx, ORDO_OP_MUL, a, b);
}

static void mul_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0], *b = n->in[1];
    ordo_mul_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b), n->out->grad, a->data,
                      b->data, a->n / b->n, b->n);
}

// Node: in[0] = a; farg[0] = s.
ordo_tensor *ordo_scale(ordo_ctx *ctx, ordo_tensor *a, float s) {
    ordo_tensor *out = ordo_tensor_new(ctx, a->ndim, a->shape);
    for (size_t i = 0; i < a->n; i++) out->data[i] = a->data[i] * s;
    if (ordo_needs_grad(ctx, a, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_SCALE, out, scale_backward);
        n->in[0] = a;
        n->farg[0] = s;
    }
    return out;
}

static void scale_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a);
    if (da)
        for (size_t i = 0; i < a->n; i++) da[i] += n->farg[0] * g[i];
}

// Node: in[0] = a, in[1] = s [1].
ordo_tensor *ordo_scale_by(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *s) {
    ORDO_ASSERT(s->n == 1);
    ordo_tensor *out = ordo_tensor_new(ctx, a->ndim, a->shape);
    float v = s->data[0];
    for (size_t i = 0; i < a->n; i++) out->data[i] = a->data[i] * v;
    if (ordo_needs_grad(ctx, a, s, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_SCALE_BY, out, scale_by_backward);
        n->in[0] = a;
        n->in[1] = s;
    }
    return out;
}

static void scale_by_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0], *s = n->in[1];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a), *ds = ordo_tensor_grad(ctx, s);
    if (da)
        for (size_t i = 0; i < a->n; i++) da[i] += s->data[0] * g[i];
    if (ds) {
        double acc = 0; // one scalar from many products: in double, as the bias grads
        for (size_t i = 0; i < a->n; i++) acc += (double)g[i] * a->data[i];
        ds[0] += (float)acc;
    }
}

// Node: in[0] = table; ids = the ids (copied, n of them); iarg[0] = n.
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
        ordo_node *nd = ordo_tape_push(ctx, ORDO_OP_EMBEDDING, out, embedding_backward);
        nd->in[0] = table;
        nd->ids = copy_ids(ctx, ids, n);
        nd->iarg[0] = (int)n;
    }
    return out;
}

static void embedding_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    float *dt = ordo_tensor_grad(ctx, a);
    if (dt) ordo_embedding_backward(dt, n->out->grad, n->ids, n->iarg[0], a->shape[1]);
}

// Node: in[0] = x, in[1] = w, in[2] = b; saved[0] = mean [N], saved[1] = rstd [N], N rows of x.
ordo_tensor *ordo_layernorm(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *w, ordo_tensor *b,
                            float eps) {
    int C = last_dim(x), N = rows(x);
    ORDO_ASSERT(w->n == (size_t)C && b->n == (size_t)C);
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    float *mean = ordo_arena_alloc(&ctx->arena, N * sizeof(float));
    float *rstd = ordo_arena_alloc(&ctx->arena, N * sizeof(float));
    ordo_layernorm_forward(out->data, mean, rstd, x->data, w->data, b->data, N, C, eps);
    if (ordo_needs_grad(ctx, x, w, b)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_LAYERNORM, out, layernorm_backward);
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
        n->saved[0] = mean;
        n->saved[1] = rstd;
    }
    return out;
}

static void layernorm_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0], *b = n->in[1], *c = n->in[2];
    ordo_layernorm_backward(ordo_tensor_grad(ctx, a), ordo_tensor_grad(ctx, b),
                            ordo_tensor_grad(ctx, c), n->out->grad, a->data, b->data, n->saved[0],
                            n->saved[1], rows(a), last_dim(a));
}

// Node: in[0] = x.
ordo_tensor *ordo_gelu(ordo_ctx *ctx, ordo_tensor *x) {
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    ordo_gelu_forward(out->data, x->data, x->n);
    if (ordo_needs_grad(ctx, x, NULL, NULL))
        ordo_tape_push(ctx, ORDO_OP_GELU, out, gelu_backward)->in[0] = x;
    return out;
}

static void gelu_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    float *da = ordo_tensor_grad(ctx, a);
    if (da) ordo_gelu_backward(da, a->data, n->out->grad, a->n);
}

// Node: in[0] = x. The rule reads the probabilities from out's data.
ordo_tensor *ordo_softmax(ordo_ctx *ctx, ordo_tensor *x) {
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    ordo_softmax_forward(out->data, x->data, rows(x), last_dim(x));
    if (ordo_needs_grad(ctx, x, NULL, NULL))
        ordo_tape_push(ctx, ORDO_OP_SOFTMAX, out, softmax_backward)->in[0] = x;
    return out;
}

static void softmax_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *out = n->out, *a = n->in[0];
    float *da = ordo_tensor_grad(ctx, a);
    if (da) ordo_softmax_backward(da, out->grad, out->data, rows(a), last_dim(a));
}

// Node: in[0] = qkv, in[1] = bias (NULL without one); saved[0] = the probabilities
// [B, NH, T, T]; iarg[0] = NH; with dropout, keep = the mask [B, NH, T, T] and farg[0] its
// scale 1/(1-p).
ordo_tensor *ordo_attention(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *bias, int NH) {
    return ordo_attention_dropout(ctx, qkv, bias, NH, 0.0f, 0, 0);
}

ordo_tensor *ordo_attention_dropout(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *bias, int NH,
                                    float p, uint64_t seed, size_t offset) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3;
    ORDO_ASSERT(NH > 0 && C % NH == 0);
    // [NH, T, T] shared by the batch, or [B, NH, T, T] one per batch row (a bias from the text)
    int per_b = bias && bias->ndim == 4;
    if (bias)
        ORDO_ASSERT((bias->ndim == 3 || (per_b && bias->shape[0] == B)) &&
                    bias->shape[per_b] == NH && bias->shape[per_b + 1] == T &&
                    bias->shape[per_b + 2] == T);
    size_t bias_bstride = per_b ? (size_t)NH * T * T : 0;
    ORDO_ASSERT(p >= 0.0f && p < 1.0f);
    ordo_tensor *out = ordo_tensor_new3(ctx, B, T, C);
    size_t natt = (size_t)B * NH * T * T;
    float *att = ordo_arena_alloc(&ctx->arena, natt * sizeof(float));
    uint8_t *keep = NULL;
    float *scratch = NULL, keep_scale = 1.0f / (1.0f - p);
    if (p > 0.0f) {
        keep = ordo_arena_alloc(&ctx->arena, natt);
        ordo_dropout_mask(keep, natt, p, seed, offset);
        scratch =
            ordo_arena_alloc(&ctx->arena, ordo_attention_scratch_floats(T, 1) * sizeof(float));
    }
    ordo_attention_forward(out->data, att, qkv->data, bias ? bias->data : NULL, bias_bstride, keep,
                           keep_scale, scratch, B, T, C, NH);
    if (ordo_needs_grad(ctx, qkv, bias, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_ATTENTION, out, attention_backward);
        n->in[0] = qkv;
        n->in[1] = bias;
        n->saved[0] = att;
        n->iarg[0] = NH;
        n->keep = keep;
        n->farg[0] = keep_scale;
    }
    ctx->last_att = att;
    return out;
}

static void attention_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0], *b = n->in[1];
    int B = a->shape[0], T = a->shape[1], C = a->shape[2] / 3;
    float *da = ordo_tensor_grad(ctx, a);
    float *db = b ? ordo_tensor_grad(ctx, b) : NULL;
    if (!da) da = ordo_arena_calloc(&ctx->arena, a->n * sizeof(float)); // bias-only grad
    float *scratch = ordo_arena_alloc(
        &ctx->arena, ordo_attention_scratch_floats(T, n->keep != NULL) * sizeof(float));
    size_t bias_bstride = b && b->ndim == 4 ? (size_t)n->iarg[0] * T * T : 0;
    ordo_attention_backward(da, db, bias_bstride, n->out->grad, a->data, n->saved[0], n->keep,
                            n->farg[0], scratch, B, T, C, n->iarg[0]);
}

// Node: in[0] = logits; saved[0] = stats [2N] (row max, log of the shifted exp-sum);
// ids = the targets (copied, N of them); iarg[0] = the count of targets not ignored.
ordo_tensor *ordo_cross_entropy(ordo_ctx *ctx, ordo_tensor *logits, const int32_t *targets) {
    int V = last_dim(logits), N = rows(logits);
    for (int i = 0; i < N; i++) ORDO_ASSERT(targets[i] < V);
    ordo_tensor *out = ordo_tensor_new(ctx, 1, (int[]){1});
    float *stats = ordo_arena_alloc(&ctx->arena, 2 * (size_t)N * sizeof(float));
    int count = 0;
    out->data[0] = (float)ordo_crossentropy_forward(stats, logits->data, targets, N, V, &count);
    if (ordo_needs_grad(ctx, logits, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_CROSS_ENTROPY, out, cross_entropy_backward);
        n->in[0] = logits;
        n->saved[0] = stats;
        n->ids = copy_ids(ctx, targets, N);
        n->iarg[0] = count;
    }
    return out;
}

static void cross_entropy_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    // In place when allowed and no other op has added to the logits' gradient yet:
    // the kernel then writes each row's gradient over its logits (no calloc, no +=).
    int inplace = !a->grad && (a->flags & ORDO_GRAD_IN_PLACE) && (a->flags & ORDO_REQUIRES_GRAD);
    if (inplace) a->grad = a->data;
    float *da = ordo_tensor_grad(ctx, a);
    // the logits of a bf16 LM head: their gradient's bf16 rounding in the same pass
    if (inplace && (a->flags & ORDO_GRAD_BF16))
        a->grad_bf16 = ordo_arena_alloc(&ctx->arena, a->n * sizeof(ordo_bf16));
    if (da && n->iarg[0] > 0) {
        ordo_crossentropy_backward(da, a->grad_bf16, a->data, n->saved[0], n->ids, rows(a),
                                   last_dim(a), g[0] / (float)n->iarg[0]);
    } else if (inplace) { // every target ignored
        memset(da, 0, a->n * sizeof(float));
        if (a->grad_bf16) memset(a->grad_bf16, 0, a->n * sizeof(ordo_bf16));
    }
}

// sum and mean. Node: in[0] = a.
static ordo_tensor *reduce(ordo_ctx *ctx, ordo_op op, ordo_tensor *a) {
    ordo_tensor *out = ordo_tensor_new(ctx, 1, (int[]){1});
    double s = 0.0;
    for (size_t i = 0; i < a->n; i++) s += a->data[i];
    out->data[0] = (float)(op == ORDO_OP_MEAN ? s / a->n : s);
    if (ordo_needs_grad(ctx, a, NULL, NULL))
        ordo_tape_push(ctx, op, out, reduce_backward)->in[0] = a;
    return out;
}

ordo_tensor *ordo_sum(ordo_ctx *ctx, ordo_tensor *a) {
    return reduce(ctx, ORDO_OP_SUM, a);
}
ordo_tensor *ordo_mean(ordo_ctx *ctx, ordo_tensor *a) {
    return reduce(ctx, ORDO_OP_MEAN, a);
}

// The rule of both: every element gets the upstream gradient (divided by the count for mean).
static void reduce_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a);
    float s = n->op == ORDO_OP_MEAN ? g[0] / (float)a->n : g[0];
    if (da)
        for (size_t i = 0; i < a->n; i++) da[i] += s;
}

// Node: in[0] = qkv; saved[0] = cos, saved[1] = sin, both [T, rd/2] (per_row: [B, T, rd/2])
// in the arena; iarg[0] = NH, iarg[1] = rd (rotated dims per head), iarg[2] = nrot (heads
// rotated), iarg[3] = per_row.
static ordo_tensor *rope_apply(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int rd, int nrot,
                               const float *cosv, const float *sinv, int per_row) {
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3;
    ordo_tensor *out = ordo_tensor_new(ctx, 3, qkv->shape);
    ordo_rope_forward(out->data, qkv->data, cosv, sinv, B, T, C, NH, rd, nrot, per_row);
    if (ordo_needs_grad(ctx, qkv, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_ROPE, out, rope_backward);
        n->in[0] = qkv;
        n->saved[0] = (float *)cosv; // read-only in backward
        n->saved[1] = (float *)sinv;
        n->iarg[0] = NH;
        n->iarg[1] = rd;
        n->iarg[2] = nrot;
        n->iarg[3] = per_row;
    }
    return out;
}

ordo_tensor *ordo_rope(ordo_ctx *ctx, ordo_tensor *qkv, int NH, double base, int pos0) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int T = qkv->shape[1], C = qkv->shape[2] / 3;
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
    return rope_apply(ctx, qkv, NH, C / NH, NH, cosv, sinv, 0);
}

ordo_tensor *ordo_rope_part(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int rd, int nrot,
                            const float *cosv, const float *sinv) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int T = qkv->shape[1], C = qkv->shape[2] / 3;
    ORDO_ASSERT(C % NH == 0 && rd >= 2 && rd % 2 == 0 && rd <= C / NH && nrot >= 1 && nrot <= NH);
    size_t bytes = (size_t)T * (rd / 2) * sizeof(float);
    // copied: backward reads them after the caller may have rebuilt its own
    float *c = ordo_arena_alloc(&ctx->arena, bytes), *sn = ordo_arena_alloc(&ctx->arena, bytes);
    memcpy(c, cosv, bytes);
    memcpy(sn, sinv, bytes);
    return rope_apply(ctx, qkv, NH, rd, nrot, c, sn, 0);
}

ordo_tensor *ordo_rope_rows(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int rd, int nrot,
                            const float *cosv, const float *sinv) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int C = qkv->shape[2] / 3;
    ORDO_ASSERT(C % NH == 0 && rd >= 2 && rd % 2 == 0 && rd <= C / NH && nrot >= 1 && nrot <= NH);
    return rope_apply(ctx, qkv, NH, rd, nrot, cosv, sinv, 1);
}

ordo_tensor *ordo_rope_cs(ordo_ctx *ctx, ordo_tensor *qkv, int NH, const float *cosv,
                          const float *sinv) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int C = qkv->shape[2] / 3;
    ORDO_ASSERT(C % NH == 0 && (C / NH) % 2 == 0);
    return ordo_rope_part(ctx, qkv, NH, C / NH, NH, cosv, sinv);
}

static void rope_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    int B = a->shape[0], T = a->shape[1], C = a->shape[2] / 3;
    float *da = ordo_tensor_grad(ctx, a);
    if (da)
        ordo_rope_backward(da, n->out->grad, n->saved[0], n->saved[1], B, T, C, n->iarg[0],
                           n->iarg[1], n->iarg[2], n->iarg[3]);
}

// ---- dropout. The masks come from a counter-based hash, not from a stream: element i of a
// mask is a function of (seed, offset + i) alone, so the bits do not depend on the thread
// count, on the order the elements are drawn in, or on how a batch is cut into shares
// (data-parallel ranks) or micro-batches (gradient accumulation): the caller passes each
// share's offset into the whole batch.

void ordo_dropout_mask(uint8_t *keep, size_t n, float p, uint64_t seed, size_t offset) {
    uint64_t below = ordo_dropout_below(p); // the bits: dropout.h (flash.c draws the same)
#pragma omp parallel for schedule(static) if (n > ORDO_PAR_LOOP_MIN)
    for (size_t i = 0; i < n; i++) keep[i] = ordo_dropout_keeps(seed, offset + i, below);
}

// Node: in[0] = x; keep = the mask (arena, x->n bytes); farg[0] = 1/(1-p).
ordo_tensor *ordo_dropout(ordo_ctx *ctx, ordo_tensor *x, float p, uint64_t seed, size_t offset) {
    ORDO_ASSERT(p >= 0.0f && p < 1.0f);
    if (p == 0.0f) return x; // bit-identical to no dropout, and no node
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    uint8_t *keep = ordo_arena_alloc(&ctx->arena, x->n);
    ordo_dropout_mask(keep, x->n, p, seed, offset);
    float s = 1.0f / (1.0f - p);
    for (size_t i = 0; i < x->n; i++) out->data[i] = keep[i] ? x->data[i] * s : 0.0f;
    if (ordo_needs_grad(ctx, x, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_DROPOUT, out, dropout_backward);
        n->in[0] = x;
        n->keep = keep;
        n->farg[0] = s;
    }
    return out;
}

static void dropout_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a);
    if (da)
        for (size_t i = 0; i < a->n; i++)
            if (n->keep[i]) da[i] += n->farg[0] * g[i];
}

// ---- activations (of the MLPs the models above build)

// Node: in[0] = x. The rule reads x's data.
ordo_tensor *ordo_relu(ordo_ctx *ctx, ordo_tensor *x) {
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    for (size_t i = 0; i < x->n; i++) out->data[i] = x->data[i] > 0 ? x->data[i] : 0.0f;
    if (ordo_needs_grad(ctx, x, NULL, NULL))
        ordo_tape_push(ctx, ORDO_OP_RELU, out, relu_backward)->in[0] = x;
    return out;
}

static void relu_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a);
    if (da)
        for (size_t i = 0; i < a->n; i++)
            if (a->data[i] > 0) da[i] += g[i];
}

// Node: in[0] = x. The rule reads x's data. In float, as torch's SiLU: x / (1 + exp(-x)).
ordo_tensor *ordo_silu(ordo_ctx *ctx, ordo_tensor *x) {
    ordo_tensor *out = ordo_tensor_new(ctx, x->ndim, x->shape);
    for (size_t i = 0; i < x->n; i++) out->data[i] = x->data[i] / (1.0f + expf(-x->data[i]));
    if (ordo_needs_grad(ctx, x, NULL, NULL))
        ordo_tape_push(ctx, ORDO_OP_SILU, out, silu_backward)->in[0] = x;
    return out;
}

// d silu / dx = s (1 + x (1 - s)), s = sigmoid(x)
static void silu_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *a = n->in[0];
    const float *g = n->out->grad;
    float *da = ordo_tensor_grad(ctx, a);
    if (!da) return;
    for (size_t i = 0; i < a->n; i++) {
        float x = a->data[i], s = 1.0f / (1.0f + expf(-x));
        da[i] += g[i] * s * (1.0f + x * (1.0f - s));
    }
}
