// Embedding, Linear and LayerNorm as parameter-owning structs (see layers.h). Names follow
// the checkpoint convention "<name>.weight" / "<name>.bias" so the registry drives I/O.
#include <stdio.h>

#include "framework/layers.h"

void ordo_embedding_layer_init(ordo_embedding_layer *e, ordo_params *p, const char *name, int N,
                               int C, int flags) {
    e->table = ordo_params_add(p, name, 2, (int[]){N, C}, flags);
}

ordo_tensor *ordo_embedding_layer_forward(ordo_embedding_layer *e, ordo_ctx *ctx,
                                          const int32_t *ids, int ndim, const int *shape) {
    return ordo_embedding(ctx, e->table, ids, ndim, shape);
}

void ordo_linear_layer_init(ordo_linear_layer *l, ordo_params *p, const char *name, int in,
                            int out) {
    char n[128];
    snprintf(n, sizeof n, "%s.weight", name);
    l->w = ordo_params_add(p, n, 2, (int[]){in, out}, 0);
    snprintf(n, sizeof n, "%s.bias", name);
    l->b = ordo_params_add(p, n, 1, (int[]){out}, ORDO_NO_DECAY);
}

ordo_tensor *ordo_linear_layer_forward(ordo_linear_layer *l, ordo_ctx *ctx, ordo_tensor *x) {
    return ordo_linear(ctx, x, l->w, l->b);
}

void ordo_layernorm_layer_init(ordo_layernorm_layer *l, ordo_params *p, const char *name, int C,
                               float eps) {
    char n[128];
    snprintf(n, sizeof n, "%s.weight", name);
    l->w = ordo_params_add(p, n, 1, (int[]){C}, ORDO_NO_DECAY);
    snprintf(n, sizeof n, "%s.bias", name);
    l->b = ordo_params_add(p, n, 1, (int[]){C}, ORDO_NO_DECAY);
    l->eps = eps;
}

ordo_tensor *ordo_layernorm_layer_forward(ordo_layernorm_layer *l, ordo_ctx *ctx, ordo_tensor *x) {
    return ordo_layernorm(ctx, x, l->w, l->b, l->eps);
}
