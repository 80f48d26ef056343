// Layers: plain structs over parameters plus a forward function; the backward comes from
// the ops they call. The Embedding serves both the token table (over ids) and the learned
// position table (over 0..T-1), as nn.Embedding does in the PyTorch reference.
#ifndef ORDO_LAYERS_H
#define ORDO_LAYERS_H
#include "framework/ops.h"
#include "framework/params.h"

typedef struct ordo_embedding_layer {
    ordo_tensor *table; // (N, C)
} ordo_embedding_layer;

// Declares the table `name` [N, C] in p (flags as ordo_params_add).
void ordo_embedding_layer_init(ordo_embedding_layer *e, ordo_params *p, const char *name, int N,
                               int C, int flags);
// out[shape..., C] = table[ids]; backward scatter-adds into the table (repeated ids add up).
ordo_tensor *ordo_embedding_layer_forward(ordo_embedding_layer *e, ordo_ctx *ctx,
                                          const int32_t *ids, int ndim, const int *shape);

typedef struct ordo_linear_layer {
    ordo_tensor *w, *b; // (in, out) as GPT-2's Conv1D, (out)
} ordo_linear_layer;

// Declares `<name>.weight` [in, out] and `<name>.bias` [out] (bias not decayed).
void ordo_linear_layer_init(ordo_linear_layer *l, ordo_params *p, const char *name, int in,
                            int out);
ordo_tensor *ordo_linear_layer_forward(ordo_linear_layer *l, ordo_ctx *ctx, ordo_tensor *x);

typedef struct ordo_layernorm_layer {
    ordo_tensor *w, *b; // (C), (C)
    float eps;
} ordo_layernorm_layer;

void ordo_layernorm_layer_init(ordo_layernorm_layer *l, ordo_params *p, const char *name, int C,
                               float eps);
ordo_tensor *ordo_layernorm_layer_forward(ordo_layernorm_layer *l, ordo_ctx *ctx, ordo_tensor *x);

#endif
