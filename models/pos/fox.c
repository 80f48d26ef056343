// Fox, the Forgetting Transformer's forget gate (Lin et al. 2025): each layer's own gate
// f = sigmoid(x w + b) per head and token, from the layer's normalised input, and the bias
// sum_{j<l<=i} log f_l = c_i - c_j from its prefix sums c. Per batch row: nothing is shared
// by the layers, and no position enters it.
#include <stdio.h>
#include <stdlib.h>

#include "framework/ops.h"
#include "models/pos/ops.h"
#include "models/pos/scheme.h"

typedef struct fox_state {
    ordo_pos_state base;
    int L;
    ordo_tensor **w, **b; // per layer: (C, NH), (NH)
} fox_state;

// One gate per layer (the paper's fgate_proj), after every other tensor.
static void declare(ordo_pos_state *s, ordo_params *p, ordo_pos_stage stage, int L) {
    fox_state *st = (fox_state *)s;
    if (stage != ORDO_POS_LAST) return;
    int NH = s->cfg->NH;
    char name[64];
    st->L = L;
    st->w = ordo_xcalloc((size_t)L, sizeof *st->w);
    st->b = ordo_xcalloc((size_t)L, sizeof *st->b);
    for (int l = 0; l < L; l++) {
        snprintf(name, sizeof name, "h.%d.attn.fgate.weight", l);
        st->w[l] = ordo_params_add(p, name, 2, (int[]){s->cfg->C, NH}, ORDO_POSITION);
        snprintf(name, sizeof name, "h.%d.attn.fgate.bias", l);
        st->b[l] = ordo_params_add(p, name, 1, (int[]){NH}, ORDO_POSITION);
    }
}

// As the paper's fgate_proj (an nn.Linear under the model's init): weight N(0, 0.02), bias 0,
// so every gate starts near sigmoid(0) = 1/2; --fox-gate-bias b starts them near sigmoid(b)
// instead (5: 0.993, a token 64 back under a bias near -0.43, not -44). The bias draws
// nothing, so a seed's weights are the same at any b.
static void init(ordo_pos_state *s, ordo_rng *r, ordo_pos_stage stage) {
    fox_state *st = (fox_state *)s;
    if (stage != ORDO_POS_LAST) return;
    for (int l = 0; l < st->L; l++) {
        ordo_rng_fill_normal(r, st->w[l]->data, st->w[l]->n, 0.02);
        // + 0.0: a given -0 is the default's +0 bit for bit, as its metadata says
        ordo_pos_fill_const(st->b[l], (float)(s->cfg->fox_gate_bias + 0.0));
    }
}

// Only a bias other than the paper's 0, so that default fox checkpoints stay as they were.
static void meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    if (c->fox_gate_bias != 0) ordo_pos_meta_num(mt, "fox_gate_bias", "%.17g", c->fox_gate_bias);
}

static void release(ordo_pos_state *s) {
    fox_state *st = (fox_state *)s;
    free(st->w);
    free(st->b);
}

// The prefix sums c (B, NH, T) of log f = logsigmoid(h w + b), from the block's input to
// attention after ln_1 (the paper's fgate_proj reads the same normalised hidden states as q,
// k, v); float32 under bf16, as every position parameter. Then c_i - c_j.
static void layer(ordo_pos_state *s, ordo_ctx *ctx, const ordo_pos_step *f, int l, ordo_tensor *h,
                  ordo_tensor *qkv, ordo_pos_layer *out) {
    fox_state *st = (fox_state *)s;
    ordo_tensor *c = ordo_cum_logsigmoid(ctx, ordo_linear(ctx, h, st->w[l], st->b[l]));
    if (f->record) out->record = c->data;
    if (f->fused)
        out->tiles = ordo_fox_tiles(ctx, c);
    else
        out->bias = ordo_diff_bias(ctx, c); // (B, NH, T, T)
}

// the gate's logits and prefix sums (one layer's); materialized, the (R, NH, T, T) bias of
// each batch row
static double arena_floats(const ordo_gpt_config *g, double R, double t, int fused) {
    return 2 * R * g->NH * t + (fused ? 0 : R * g->NH * t * t);
}

const ordo_pos_scheme ordo_pos_fox_row = {
    .pos = ORDO_POS_FOX,
    .flags = ORDO_POS_F_BIAS,
    .state_bytes = sizeof(fox_state),
    .export_refusal = "it adds a forget-gate bias, computed from each layer's input "
                      "(h.{l}.attn.fgate.*), to the attention scores, which GPT2LMHeadModel does "
                      "not do",
    .declare = declare,
    .meta = meta,
    .init = init,
    .free = release,
    .layer = layer,
    .arena_floats = arena_floats,
    .picture = ORDO_POS_PICTURE_GATES,
};
