// The absolute schemes, added to the token embeddings at the input: learned (GPT-2's wpe, a
// trained table [T_max, C]) and sinusoidal (Vaswani et al.'s fixed table), each times
// --pos-scale's constant or learned scalar wpe.scale when one is set (docs/positions.md).
#include <stdlib.h>
#include <string.h>

#include "framework/layers.h"
#include "framework/ops.h"
#include "models/pos/scheme.h"

typedef struct absolute_state {
    ordo_pos_state base;
    ordo_embedding_layer wpe; // (T_max, C), learned only
    ordo_tensor *scale;       // (1): --pos-scale learned only
    int cache_T;              // the length of the cached rows below
    int32_t *positions;       // learned: 0..T-1
    float *table;             // sinusoidal: (T, C)
} absolute_state;

static int is_learned(const ordo_pos_state *s) {
    return s->row->pos == ORDO_POS_LEARNED;
}

// The learned table after the token table, as GPT-2 declares and draws it (the token table's
// std: GPT-2 0.02 for both, fairseq C^-0.5 for both; neither scales the positions). The scale
// is a scalar: never weight-decayed (1-D), whatever --no-decay-pos says.
static void declare(ordo_pos_state *s, ordo_params *p, ordo_pos_stage stage, int L) {
    absolute_state *st = (absolute_state *)s;
    const ordo_gpt_config *c = s->cfg;
    if (stage != ORDO_POS_AFTER_WTE) return;
    if (is_learned(s))
        ordo_embedding_layer_init(&st->wpe, p, "wpe.weight", c->T_max, c->C, ORDO_POSITION);
    if (c->pos_scale.kind == ORDO_POS_SCALE_LEARNED)
        st->scale = ordo_params_add(p, "wpe.scale", 1, (int[]){1}, ORDO_POSITION);
}

static void init(ordo_pos_state *s, ordo_rng *r, ordo_pos_stage stage) {
    absolute_state *st = (absolute_state *)s;
    if (stage != ORDO_POS_AFTER_WTE) return;
    if (st->wpe.table)
        ordo_rng_fill_normal(r, st->wpe.table->data, st->wpe.table->n, s->cfg->embed_std);
    if (st->scale) ordo_pos_fill_const(st->scale, (float)s->cfg->pos_scale.value); // no draw
}

// A learned scale is written as "learned", without its init: the value a checkpoint holds is
// its tensor wpe.scale (trained, or loaded by --init), which the init would contradict.
static void meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    if (c->pos_scale.kind == ORDO_POS_SCALE_NONE) return;
    int n = mt->n;
    ordo_pos_scale ps = c->pos_scale;
    if (ps.kind == ORDO_POS_SCALE_LEARNED) ps.value = 0;
    ordo_pos_scale_text(&ps, mt->num[n], sizeof mt->num[n]);
    mt->keys[n] = "pos_scale";
    mt->vals[n] = mt->num[n];
    mt->n = n + 1;
}

static void release(ordo_pos_state *s) {
    absolute_state *st = (absolute_state *)s;
    free(st->positions);
    free(st->table);
}

// The signal pe times --pos-scale's constant or learned scalar.
static ordo_tensor *scaled(absolute_state *st, ordo_ctx *ctx, ordo_tensor *pe) {
    const ordo_pos_scale *ps = &st->base.cfg->pos_scale;
    switch (ps->kind) {
    case ORDO_POS_SCALE_FIXED:
        return ordo_scale(ctx, pe, (float)ps->value);
    case ORDO_POS_SCALE_LEARNED:
        return ordo_scale_by(ctx, pe, st->scale);
    case ORDO_POS_SCALE_NONE:
        break;
    }
    return pe;
}

// The rows for 0..T-1, rebuilt only when the length changes.
static void cache(absolute_state *st, int T) {
    if (st->cache_T == T) return;
    int C = st->base.cfg->C;
    free(st->positions);
    free(st->table);
    st->positions = NULL;
    st->table = NULL;
    if (is_learned(&st->base)) {
        st->positions = ordo_xmalloc((size_t)T * sizeof(int32_t));
        for (int t = 0; t < T; t++) st->positions[t] = t;
    } else {
        st->table = ordo_xmalloc((size_t)T * C * sizeof(float));
        ordo_sinusoidal_table(st->table, T, C);
    }
    st->cache_T = T;
}

// At 0..T-1: (T, C), broadcast over the batch. At positions pos [B, T]: (B, T, C), learned rows
// by a gather (the table's gradient goes to the rows drawn) or the sinusoids there.
static ordo_status prepare(ordo_pos_state *s, ordo_ctx *ctx, ordo_pos_step *f) {
    absolute_state *st = (absolute_state *)s;
    int B = f->B, T = f->T, C = s->cfg->C;
    ordo_tensor *pe;
    if (f->pos && is_learned(s)) {
        pe = ordo_embedding_layer_forward(&st->wpe, ctx, f->pos, 2, (int[]){B, T});
    } else if (f->pos) {
        float *rows = ordo_arena_alloc(&ctx->arena, (size_t)B * T * C * sizeof(float));
        ordo_sinusoidal_at(rows, f->pos, B * T, C);
        pe = ordo_tensor_wrap(ctx, rows, 3, (int[]){B, T, C});
    } else {
        cache(st, T);
        pe = is_learned(s)
                 ? ordo_embedding_layer_forward(&st->wpe, ctx, st->positions, 1, (int[]){T})
                 : ordo_tensor_wrap(ctx, st->table, 2, (int[]){T, C});
    }
    f->input = scaled(st, ctx, pe);
    return ORDO_OK;
}

// viz's picture: the learned table as trained (its T_max rows), or the sinusoids of length T
// times --pos-scale's constant or learned scalar (the signal added to the tokens).
static int input_rows(const ordo_pos_state *s, int T, float **out) {
    const absolute_state *st = (const absolute_state *)s;
    int C = s->cfg->C;
    if (is_learned(s)) {
        int rows = s->cfg->T_max;
        *out = ordo_xmalloc((size_t)rows * C * sizeof(float));
        memcpy(*out, st->wpe.table->data, (size_t)rows * C * sizeof(float));
        return rows;
    }
    *out = ordo_xmalloc((size_t)T * C * sizeof(float)); // (T, C)
    ordo_sinusoidal_table(*out, T, C);
    const ordo_pos_scale *ps = &s->cfg->pos_scale;
    double sc = st->scale ? st->scale->data[0] : ps->kind == ORDO_POS_SCALE_FIXED ? ps->value : 1.0;
    for (size_t i = 0; i < (size_t)T * C; i++) (*out)[i] = (float)((*out)[i] * sc);
    return T;
}

static double learned_arena(const ordo_gpt_config *g, double R, double T, int fused) {
    return T * g->C; // the gathered rows of the table
}

static double sinusoidal_tables(const ordo_gpt_config *g, double T, int materialized) {
    return T * g->C;
}

// The hooks both absolute schemes share.
#define ABSOLUTE_HOOKS                                                                             \
    .state_bytes = sizeof(absolute_state), .declare = declare, .init = init, .meta = meta,         \
    .free = release, .prepare = prepare, .picture = ORDO_POS_PICTURE_TABLE,                        \
    .input_rows = input_rows

const ordo_pos_scheme ordo_pos_learned_row = {
    .pos = ORDO_POS_LEARNED,
    .flags = ORDO_POS_F_POSITIONS | ORDO_POS_F_INPUT | ORDO_POS_F_LENGTH,
    .arena_floats = learned_arena,
    ABSOLUTE_HOOKS,
};

const ordo_pos_scheme ordo_pos_sinusoidal_row = {
    .pos = ORDO_POS_SINUSOIDAL,
    .flags = ORDO_POS_F_POSITIONS | ORDO_POS_F_INPUT,
    .export_refusal = "its position table is fixed, not a parameter, and GPT2LMHeadModel has only "
                      "the trainable table wpe",
    .table_floats = sinusoidal_tables,
    ABSOLUTE_HOOKS,
};

const ordo_pos_scheme ordo_pos_none_row = {
    .pos = ORDO_POS_NONE,
    .state_bytes = sizeof(ordo_pos_state),
    .note = "none: the model has no position signal; attention maps only",
};
