// Tensor headers and the per-step context. Shapes are checked here once so that the
// kernels can trust their dims; a bad shape inside an op is a bug and aborts.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"
#include "framework/tensor.h"

void ordo_ctx_init(ordo_ctx *ctx) {
    memset(ctx, 0, sizeof *ctx);
    ordo_arena_init(&ctx->arena, 0);
    ctx->grad_enabled = 1;
}

void ordo_ctx_reset(ordo_ctx *ctx) {
    ordo_arena_reset(&ctx->arena);
    ctx->ntape = 0;
    ctx->nfree = 0;
}

void ordo_ctx_free(ordo_ctx *ctx) {
    ordo_arena_free(&ctx->arena);
    free(ctx->tape);
    memset(ctx, 0, sizeof *ctx);
}

size_t ordo_shape_numel(int ndim, const int *shape) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
    return n;
}

int ordo_tensor_same_shape(const ordo_tensor *a, const ordo_tensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}

char *ordo_shape_str(int ndim, const int *shape, char *buf, size_t cap) {
    size_t k = 0;
    k += snprintf(buf + k, cap - k, "[");
    for (int i = 0; i < ndim && k < cap; i++)
        k += snprintf(buf + k, cap - k, "%s%d", i ? "," : "", shape[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
    return buf;
}

static ordo_tensor *header(ordo_ctx *ctx, int ndim, const int *shape) {
    ORDO_ASSERT(ndim >= 1 && ndim <= ORDO_MAX_DIMS);
    ordo_tensor *t = ordo_arena_alloc(&ctx->arena, sizeof *t);
    memset(t, 0, sizeof *t);
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        ORDO_ASSERT(shape[i] > 0);
        t->shape[i] = shape[i];
    }
    t->n = ordo_shape_numel(ndim, shape);
    return t;
}

ordo_tensor *ordo_tensor_new(ordo_ctx *ctx, int ndim, const int *shape) {
    ordo_tensor *t = header(ctx, ndim, shape);
    t->data = ordo_arena_alloc(&ctx->arena, t->n * sizeof(float));
    return t;
}

ordo_tensor *ordo_tensor_new2(ordo_ctx *ctx, int d0, int d1) {
    return ordo_tensor_new(ctx, 2, (int[]){d0, d1});
}

ordo_tensor *ordo_tensor_new3(ordo_ctx *ctx, int d0, int d1, int d2) {
    return ordo_tensor_new(ctx, 3, (int[]){d0, d1, d2});
}

ordo_tensor *ordo_tensor_zeros(ordo_ctx *ctx, int ndim, const int *shape) {
    ordo_tensor *t = ordo_tensor_new(ctx, ndim, shape);
    memset(t->data, 0, t->n * sizeof(float));
    return t;
}

ordo_tensor *ordo_tensor_wrap(ordo_ctx *ctx, float *data, int ndim, const int *shape) {
    ordo_tensor *t = header(ctx, ndim, shape);
    t->data = data;
    return t;
}

// The smallest recycled buffer that holds n floats (removed from the list), or NULL.
static float *reuse_grad(ordo_ctx *ctx, size_t n) {
    int best = -1;
    for (int i = 0; i < ctx->nfree; i++)
        if (ctx->free_grads[i].n >= n &&
            (best < 0 || ctx->free_grads[i].n < ctx->free_grads[best].n))
            best = i;
    if (best < 0) return NULL;
    float *p = ctx->free_grads[best].p;
    ctx->free_grads[best] = ctx->free_grads[--ctx->nfree];
    return memset(p, 0, n * sizeof(float));
}

float *ordo_tensor_grad(ordo_ctx *ctx, ordo_tensor *t) {
    if (!(t->flags & ORDO_REQUIRES_GRAD)) return NULL;
    if (!t->grad && ctx->reuse_grads) t->grad = reuse_grad(ctx, t->n);
    if (!t->grad) t->grad = ordo_arena_calloc(&ctx->arena, t->n * sizeof(float));
    return t->grad;
}

void ordo_tensor_release_grad(ordo_ctx *ctx, ordo_tensor *t) {
    if (!ctx->reuse_grads || !t->grad || (t->flags & ORDO_PARAM) || t->grad == t->data) return;
    if (ctx->nfree < ORDO_FREE_GRADS) {
        ctx->free_grads[ctx->nfree].p = t->grad;
        ctx->free_grads[ctx->nfree].n = t->n;
        ctx->nfree++;
    }
    t->grad = NULL;
}
