// CoPE, contextual positions (Golovneva et al. 2024): each layer counts, for query i and key
// j, the keys between them that its gates pass (p = sum_{j<=k<=i} sigmoid(q_i . k_k)), and
// adds q_i . e[p], e interpolated between the integer positions 0..P-1 (P = --cope-max). Per
// layer and batch row, from the layer's q and k.
#include <stdio.h>
#include <stdlib.h>

#include "framework/ops.h"
#include "models/pos/ops.h"
#include "framework/threads.h"
#include "models/pos/scheme.h"

typedef struct cope_state {
    ordo_pos_state base;
    ordo_tensor **e; // per layer: (NH, P, hs), zero at init
} cope_state;

static int positions(const ordo_gpt_config *c) { // P
    return c->cope_max ? c->cope_max : c->T_max + 1;
}

// Per layer, one table per head (the reference shares one by the heads), after every other
// tensor; zero, as the reference's init leaves the bias 0 at the start of training.
static void declare(ordo_pos_state *s, ordo_params *p, ordo_pos_stage stage, int L) {
    cope_state *st = (cope_state *)s;
    if (stage != ORDO_POS_LAST) return;
    const ordo_gpt_config *c = s->cfg;
    char name[64];
    st->e = ordo_xcalloc((size_t)L, sizeof *st->e);
    for (int l = 0; l < L; l++) {
        snprintf(name, sizeof name, "h.%d.attn.cope.pos_emb", l);
        st->e[l] =
            ordo_params_add(p, name, 3, (int[]){c->NH, c->cope_max, c->C / c->NH}, ORDO_POSITION);
    }
}

// P defaults to the training context + 1 (the official code's block_size + 1: no position of
// a training window is clamped).
static void resolve(ordo_gpt_config *c) {
    if (c->cope_max == 0) c->cope_max = c->T_max + 1;
}

// Always: the embeddings' length is not the context's.
static void meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    ordo_pos_meta_num(mt, "cope_max", "%.0f", (double)positions(c));
}

static void release(ordo_pos_state *s) {
    free(((cope_state *)s)->e);
}

// Fused: the bias of a row's scores inside the tiles (models/cope_tiles.c). Materialized: the
// positions (kept for viz with the attention maps), then q_i . e[p] interpolated.
static void layer(ordo_pos_state *s, ordo_ctx *ctx, const ordo_pos_step *f, int l, ordo_tensor *h,
                  ordo_tensor *qkv, ordo_pos_layer *out) {
    cope_state *st = (cope_state *)s;
    if (f->fused) {
        out->tiles = ordo_cope_tiles(ctx, qkv, st->e[l]);
        return;
    }
    ordo_tensor *p = ordo_cope_positions(ctx, qkv, s->cfg->NH, s->cfg->cope_max); // (B,NH,T,T)
    if (f->record) out->record = p->data;
    out->bias = ordo_cope_bias(ctx, qkv, st->e[l], p);
}

static double grad_floats(const ordo_gpt_config *g, int T) { // per_head: (P, hs) per (b, h)
    return (double)positions(g) * (g->C / g->NH);
}

// fused: a row's sum and first key kept, each thread's [64, P] logits; materialized: the
// gates, positions and bias (R, NH, T, T), [T, P]
static double arena_floats(const ordo_gpt_config *g, double R, double t, int fused) {
    double P = positions(g), nt = ordo_get_threads(), NH = g->NH;
    return fused ? 3 * R * NH * t + nt * (64 * P + 256) : 3 * R * NH * t * t + nt * t * P;
}

const ordo_pos_scheme ordo_pos_cope_row = {
    .pos = ORDO_POS_COPE,
    .flags = ORDO_POS_F_BIAS,
    .state_bytes = sizeof(cope_state),
    .export_refusal = "it adds contextual positions to the attention scores, counts of the keys "
                      "that its gates pass (h.{l}.attn.cope.pos_emb), which GPT2LMHeadModel does "
                      "not do",
    .resolve = resolve,
    .declare = declare,
    .meta = meta,
    .free = release,
    .layer = layer,
    .grad_floats = grad_floats,
    .arena_floats = arena_floats,
    .picture = ORDO_POS_PICTURE_POSITIONS,
};
