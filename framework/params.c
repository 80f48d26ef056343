// Parameter registry (see params.h). Each tensor starts on a 64-byte boundary inside
// the blocks so that kernels see aligned rows.
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"
#include "framework/params.h"

#define ALIGN_FLOATS 16

void ordo_params_init(ordo_params *p) {
    memset(p, 0, sizeof *p);
}

ordo_tensor *ordo_params_add(ordo_params *p, const char *name, int ndim, const int *shape,
                             int flags) {
    ORDO_ASSERT(!p->data && ndim >= 1 && ndim <= ORDO_MAX_DIMS);
    if (p->count == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 32;
        p->t = ordo_xrealloc(p->t, (size_t)p->cap * sizeof *p->t);
    }
    ordo_tensor *t = ordo_xcalloc(1, sizeof *t);
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        ORDO_ASSERT(shape[i] > 0);
        t->shape[i] = shape[i];
    }
    t->n = ordo_shape_numel(ndim, shape);
    t->flags = flags | ORDO_PARAM | ORDO_REQUIRES_GRAD;
    t->name = ordo_xstrdup(name);
    p->t[p->count++] = t;
    return t;
}

void ordo_params_alloc(ordo_params *p) {
    ORDO_ASSERT(!p->data);
    size_t total = 0, numel = 0;
    for (int i = 0; i < p->count; i++) {
        total += (p->t[i]->n + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
        numel += p->t[i]->n;
    }
    p->total = total;
    p->numel = numel;
    size_t bytes = (total ? total : ALIGN_FLOATS) * sizeof(float);
    p->data = aligned_alloc(64, bytes);
    p->grad = aligned_alloc(64, bytes);
    if (!p->data || !p->grad) ordo_panic(__FILE__, __LINE__, "parameters: out of memory");
    memset(p->data, 0, bytes);
    memset(p->grad, 0, bytes);
    size_t off = 0;
    for (int i = 0; i < p->count; i++) {
        p->t[i]->data = p->data + off;
        p->t[i]->grad = p->grad + off;
        off += (p->t[i]->n + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    }
}

ordo_tensor *ordo_params_find(const ordo_params *p, const char *name) {
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->t[i]->name, name) == 0) return p->t[i];
    return NULL;
}

void ordo_params_zero_grad(ordo_params *p) {
    if (!p->grad) return;
    // in parallel slices: one thread's memset of a 64 MB block is a visible part of a step
    size_t n = p->total, slice = (size_t)1 << 18;
#pragma omp parallel for if (n > slice)
    for (size_t i = 0; i < n; i += slice)
        memset(p->grad + i, 0, (n - i < slice ? n - i : slice) * sizeof(float));
}

void ordo_params_bf16_enable(ordo_params *p) {
    ORDO_ASSERT(p->data);
    if (!p->bf16) {
        size_t bytes = ((p->total ? p->total : ALIGN_FLOATS) * sizeof(ordo_bf16) + 63) / 64 * 64;
        p->bf16 = aligned_alloc(64, bytes);
        if (!p->bf16) ordo_panic(__FILE__, __LINE__, "parameters: out of memory (bf16 copies)");
        for (int i = 0; i < p->count; i++)
            if (p->t[i]->flags & ORDO_MATMUL_WEIGHT)
                p->t[i]->bf16 = p->bf16 + (p->t[i]->data - p->data);
    }
    ordo_params_bf16_refresh(p);
}

void ordo_params_bf16_disable(ordo_params *p) {
    for (int i = 0; i < p->count; i++) p->t[i]->bf16 = NULL;
    free(p->bf16);
    p->bf16 = NULL;
}

void ordo_params_bf16_refresh(ordo_params *p) {
    if (p->bf16) ordo_bf16_convert(p->bf16, p->data, p->total);
}

void ordo_params_free(ordo_params *p) {
    for (int i = 0; i < p->count; i++) {
        free((void *)p->t[i]->name);
        free(p->t[i]);
    }
    free(p->t);
    free(p->data);
    free(p->grad);
    free(p->bf16);
    memset(p, 0, sizeof *p);
}
