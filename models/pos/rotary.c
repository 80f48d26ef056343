// The rotary schemes, applied to each layer's q and k: rope (rotate-half, base 10000, with its
// scalings, partial rotary and head subsets: models/positional.h) and xpos (rope's rotation,
// unscaled, times the xPos decay: q up and k down by zeta^(n/512)).
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "framework/ops.h"
#include "models/pos/scheme.h"

typedef struct rotary_state {
    ordo_pos_state base;
    int rope_dims, rope_nrot; // rd: rotated dims per head (hs unless partial); heads rotated
    double *inv_freq;         // (rd/2) under cfg->rope's scaling
    double mscale;            // the factor on q and k (yarn's temperature; 1 otherwise)
    int cache_T;              // the length of the tables below (0: rebuild)
    float *cosv, *sinv;       // (T, rd/2) each, from inv_freq, times mscale
    float *xpos;              // xpos: the decay of a qkv row at each position, (T, 3C)
} rotary_state;

// The rows of one forward at drawn or given positions.
typedef struct rotary_step {
    float *cosv, *sinv;  // (B, T, rd/2) each, or NULL: the cached (T, rd/2)
    ordo_tensor *xscale; // xpos: (T, 3C), or (B, T, 3C) at positions
} rotary_step;

static int is_xpos(const ordo_pos_state *s) {
    return s->row->pos == ORDO_POS_XPOS;
}

// The RoPE scaling of c with its zero fields resolved (factor 1, orig_T = T_max).
ordo_rope_config ordo_gpt_rope_of(const ordo_gpt_config *c) {
    ordo_rope_config rc = c->rope;
    if (rc.factor == 0) rc.factor = 1;
    if (rc.orig_T == 0) rc.orig_T = c->T_max;
    return rc;
}

// The rotated dims of a head under c (the head size unless --rope-fraction).
int ordo_gpt_rope_dims(const ordo_gpt_config *c) {
    int hs = c->C / c->NH;
    return c->rope_fraction == 0 || c->rope_fraction == 1 ? hs
                                                          : ordo_rope_dims(c->rope_fraction, hs);
}

// The frequencies under the config's scaling, and the tables dropped.
static void tune(rotary_state *st) {
    const ordo_gpt_config *c = st->base.cfg;
    if (!st->inv_freq) {
        st->rope_dims = ordo_gpt_rope_dims(c);
        st->rope_nrot = c->rope_heads;
        st->inv_freq = ordo_xmalloc((size_t)(st->rope_dims / 2) * sizeof(double));
    }
    st->mscale = ordo_rope_inv_freq(st->inv_freq, st->rope_dims, &c->rope);
    st->cache_T = 0;
}

static void invalidate(ordo_pos_state *s) {
    tune((rotary_state *)s);
}

static void release(ordo_pos_state *s) {
    rotary_state *st = (rotary_state *)s;
    free(st->inv_freq);
    free(st->cosv);
    free(st->sinv);
    free(st->xpos);
}

// cos/sin (and xpos's decay) for 0..T-1, rebuilt only when the length changes; at drawn
// positions, inv_freq is then the one of this length too.
static void cache(rotary_state *st, int T) {
    if (!st->inv_freq) tune(st);
    if (st->cache_T == T) return;
    const ordo_gpt_config *c = st->base.cfg;
    int rd = st->rope_dims;
    free(st->cosv);
    free(st->sinv);
    free(st->xpos);
    st->xpos = NULL;
    // dynamic-ntk's frequencies are those of this length (unscaled up to the original context)
    if (ordo_rope_scaling_by_length(c->rope.scaling))
        st->mscale = ordo_rope_inv_freq_len(st->inv_freq, rd, &c->rope, T);
    if (is_xpos(&st->base)) {
        st->xpos = ordo_xmalloc((size_t)T * 3 * c->C * sizeof(float));
        ordo_xpos_scale_table(st->xpos, T, c->C, c->NH);
    }
    st->cosv = ordo_xmalloc((size_t)T * (rd / 2) * sizeof(float));
    st->sinv = ordo_xmalloc((size_t)T * (rd / 2) * sizeof(float));
    ordo_rope_tables(st->cosv, st->sinv, T, rd, st->inv_freq, st->mscale);
    st->cache_T = T;
}

// A cos/sin row per token at drawn or given positions, made once for all layers; xpos's decay
// too, centred on the positions' range [0, n).
static ordo_status prepare(ordo_pos_state *s, ordo_ctx *ctx, ordo_pos_step *f) {
    rotary_state *st = (rotary_state *)s;
    const ordo_gpt_config *c = s->cfg;
    int B = f->B, T = f->T, C = c->C;
    cache(st, T);
    rotary_step *r = ordo_arena_calloc(&ctx->arena, sizeof *r);
    if (is_xpos(s) && f->pos) {
        r->xscale = ordo_tensor_new3(ctx, B, T, 3 * C); // (B, T, 3C)
        ordo_xpos_scale_at(r->xscale->data, f->pos, B * T, f->n, C, c->NH);
    } else if (is_xpos(s)) {
        r->xscale = ordo_tensor_wrap(ctx, st->xpos, 2, (int[]){T, 3 * C});
    }
    if (f->pos) {
        size_t bytes = (size_t)B * T * (st->rope_dims / 2) * sizeof(float);
        r->cosv = ordo_arena_alloc(&ctx->arena, bytes);
        r->sinv = ordo_arena_alloc(&ctx->arena, bytes);
        ordo_rope_tables_at(r->cosv, r->sinv, f->pos, B * T, st->rope_dims, st->inv_freq,
                            st->mscale);
    }
    f->own = r;
    return ORDO_OK;
}

// The first rd dims of the first nrot heads rotated; then xpos's decay (q up, k down).
static ordo_tensor *qkv_rotated(ordo_pos_state *s, ordo_ctx *ctx, const ordo_pos_step *f,
                                ordo_tensor *qkv) {
    rotary_state *st = (rotary_state *)s;
    const rotary_step *r = f->own;
    int NH = s->cfg->NH;
    if (r->cosv)
        qkv = ordo_rope_rows(ctx, qkv, NH, st->rope_dims, st->rope_nrot, r->cosv, r->sinv);
    else
        qkv = ordo_rope_part(ctx, qkv, NH, st->rope_dims, st->rope_nrot, st->cosv, st->sinv);
    if (r->xscale) qkv = ordo_mul(ctx, qkv, r->xscale);
    return qkv;
}

// A scaling, when there is one, so that a GPT-2 loader can rebuild the rotation; partial
// rotary and head subsets only when set, so that other files stay as they were.
static void rope_meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    if (c->rope.scaling != ORDO_ROPE_SCALING_NONE) {
        ordo_rope_config rc = ordo_gpt_rope_of(c);
        int at = mt->n;
        mt->keys[at] = "rope_scaling";
        mt->vals[at] = ordo_rope_scaling_name(rc.scaling);
        mt->n = at + 1;
        ordo_pos_meta_num(mt, "rope_factor", "%.17g", rc.factor);
        ordo_pos_meta_num(mt, "rope_orig_context", "%.0f", (double)rc.orig_T);
        // YaRN's ramp and temperature only when not the paper's
        if (rc.yarn_alpha != 0 && rc.yarn_alpha != ORDO_YARN_ALPHA)
            ordo_pos_meta_num(mt, "yarn_alpha", "%.17g", rc.yarn_alpha);
        if (rc.yarn_beta != 0 && rc.yarn_beta != ORDO_YARN_BETA)
            ordo_pos_meta_num(mt, "yarn_beta", "%.17g", rc.yarn_beta);
        if (rc.yarn_no_temperature) ordo_pos_meta_num(mt, "yarn_temperature", "%.0f", 0);
    }
    if (c->rope_fraction != 0 && c->rope_fraction != 1)
        ordo_pos_meta_num(mt, "rope_fraction", "%.17g", c->rope_fraction);
    if (c->rope_heads != 0 && c->rope_heads != c->NH)
        ordo_pos_meta_num(mt, "rope_heads", "%.0f", (double)c->rope_heads);
}

static double xpos_arena(const ordo_gpt_config *g, double R, double T, int fused) {
    return 3 * R * T * g->C; // the decayed copy of the rotated qkv (one layer's)
}

static double xpos_tables(const ordo_gpt_config *g, double T, int materialized) {
    return T * 3 * g->C; // the scale table
}

// xPos's longest length: the decay of q at the first position, zeta_0^(-ceil(T/2)/512) with
// zeta_0 = 0.4/1.4 (the slowest pair), must stay a finite float, as xpos_row rounds it; past it
// q is infinite and every score NaN.
static int xpos_max_length(const ordo_gpt_config *c) {
    int hs = c->C / c->NH;
    double zeta = (0.4 * hs) / (1.4 * hs);
    int m = (int)(ORDO_XPOS_SCALE_BASE * log(FLT_MAX) / -log(zeta)); // about the edge
    while (isfinite((float)pow(zeta, -(m + 1.0) / ORDO_XPOS_SCALE_BASE))) m++;
    while (!isfinite((float)pow(zeta, -(double)m / ORDO_XPOS_SCALE_BASE))) m--;
    return 2 * m; // ceil(T/2) <= m
}

// The hooks both rotary schemes share.
#define ROTARY_HOOKS                                                                               \
    .flags = ORDO_POS_F_ROTARY | ORDO_POS_F_POSITIONS, .state_bytes = sizeof(rotary_state),        \
    .export_refusal = "it rotates queries and keys inside attention, which GPT2LMHeadModel does "  \
                      "not do (its attention takes no positions)",                                 \
    .free = release, .invalidate = invalidate, .prepare = prepare, .qkv = qkv_rotated

const ordo_pos_scheme ordo_pos_rope_row = {
    .pos = ORDO_POS_ROPE,
    ROTARY_HOOKS,
    .meta = rope_meta,
    .picture = ORDO_POS_PICTURE_SPECTRUM,
    .note = "rope: no position table or bias, q and k are rotated: the frequency spectrum and the "
            "attention maps",
};

const ordo_pos_scheme ordo_pos_xpos_row = {
    .pos = ORDO_POS_XPOS,
    ROTARY_HOOKS,
    .max_length = xpos_max_length,
    .max_length_why = "its decay zeta^(n/512) of q and k overflows a float",
    .arena_floats = xpos_arena,
    .table_floats = xpos_tables,
    .note = "xpos: no position table or bias to draw, q and k are rotated and scaled; attention "
            "maps only",
};
