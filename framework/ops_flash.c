// The fused attention op (ops.h, ordo_attention_fused): forward and backward rule around the
// kernels of flash.c. Kept apart from ops.c, which holds the other ops, because its node
// carries more than the generic slots hold (the bias callbacks and the parameter list).
//
// Node: in[0] = qkv; saved[0] = the row log-sum-exp [B, NH, T]; iarg[0] = NH; extra = a
// flash_args in the arena (a copy of the caller's bias with its parameter list, dropout).
// Nothing T x T is made or recorded.

#include "sys/error.h"
#include "framework/flash.h"
#include "framework/ops.h"

typedef struct flash_args {
    const ordo_attn_bias *bias; // NULL, or &fb.bias
    ordo_fused_bias fb;         // the caller's, copied (params: whose grads receive g, in order)
    float p;
    uint64_t seed;
    size_t offset;
} flash_args;

ordo_tensor *ordo_attention_fused(ordo_ctx *ctx, ordo_tensor *qkv, const ordo_fused_bias *fused,
                                  int NH, float p, uint64_t seed, size_t offset) {
    ORDO_ASSERT(qkv->ndim == 3 && qkv->shape[2] % 3 == 0);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3;
    ORDO_ASSERT(NH > 0 && C % NH == 0 && p >= 0.0f && p < 1.0f);
    const ordo_attn_bias *bias = fused ? &fused->bias : NULL;
    int n_params = fused ? fused->n_params : 0;
    ordo_tensor *const *bias_params = fused ? fused->params : NULL;
    ORDO_ASSERT(n_params >= 0 && n_params <= ORDO_FUSED_BIAS_MAX_PARAMS &&
                (n_params == 0 || bias->grad || bias->rows));
    size_t total = 0;
    for (int i = 0; i < n_params; i++) total += bias_params[i]->n;
    // g is their grads, concatenated; per_batch: one n_grad slice per (b, h); per_head: per h
    size_t per = !bias ? 1 : bias->per_batch ? (size_t)B * NH : bias->per_head ? (size_t)NH : 1;
    ORDO_ASSERT(n_params == 0 || total == per * bias->n_grad);

    ordo_tensor *out = ordo_tensor_new3(ctx, B, T, C);
    float *lse = ordo_arena_alloc(&ctx->arena, (size_t)B * NH * T * sizeof(float)); // (B, NH, T)
    float *scratch = ordo_arena_alloc(
        &ctx->arena, ordo_flash_bias_scratch_floats(bias, B, T, C, NH, 0) * sizeof(float));
    ordo_flash_forward(out->data, lse, qkv->data, bias, p, seed, offset, scratch, B, T, C, NH);

    int needs = ordo_needs_grad(ctx, qkv, NULL, NULL);
    for (int i = 0; i < n_params; i++) needs |= ordo_needs_grad(ctx, bias_params[i], NULL, NULL);
    if (needs) {
        flash_args *a = ordo_arena_calloc(&ctx->arena, sizeof *a);
        if (fused) a->fb = *fused;
        a->bias = fused ? &a->fb.bias : NULL;
        a->p = p;
        a->seed = seed;
        a->offset = offset;
        ordo_node *n =
            ordo_tape_push(ctx, ORDO_OP_ATTENTION_FUSED, out, ordo_attention_fused_backward);
        n->in[0] = qkv;
        n->saved[0] = lse;
        n->iarg[0] = NH;
        n->extra = a;
    }
    return out;
}

void ordo_attention_fused_backward(ordo_ctx *ctx, ordo_node *n) {
    const flash_args *a = n->extra;
    ordo_tensor *qkv = n->in[0];
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3, NH = n->iarg[0];
    float *dqkv = ordo_tensor_grad(ctx, qkv);
    if (!dqkv) dqkv = ordo_arena_calloc(&ctx->arena, qkv->n * sizeof(float)); // bias-only grad
    // g: the bias parameters' gradient, when one of them wants it
    int wants = 0;
    for (int i = 0; i < a->fb.n_params; i++)
        wants |= (a->fb.params[i]->flags & ORDO_REQUIRES_GRAD) != 0;
    int per_batch = a->bias && a->bias->per_batch, per_head = a->bias && a->bias->per_head;
    size_t ng = wants ? a->bias->n_grad : 0;
    size_t ntot = per_batch ? (size_t)B * NH * ng : per_head ? (size_t)NH * ng : ng;
    float *g = wants ? ordo_arena_calloc(&ctx->arena, ntot * sizeof(float)) : NULL;
    float *scratch = ordo_arena_alloc(
        &ctx->arena, ordo_flash_bias_scratch_floats(a->bias, B, T, C, NH, 1) * sizeof(float));
    ordo_flash_backward(dqkv, g, n->out->grad, qkv->data, n->out->data, n->saved[0], a->bias, a->p,
                        a->seed, a->offset, scratch, B, T, C, NH);
    if (!g) return;
    size_t at = 0; // scatter g into the parameters' grads, in the order listed
    for (int i = 0; i < a->fb.n_params; i++) {
        ordo_tensor *t = a->fb.params[i];
        float *dt = ordo_tensor_grad(ctx, t);
        if (dt)
            for (size_t x = 0; x < t->n; x++) dt[x] += g[at + x];
        at += t->n;
    }
}
