// The stationary score biases, a value per (distance, head) added to the score of each causal
// pair: alibi (-m_h d, fixed slopes), t5 (a learned table by log-spaced bucket), kerple
// (-r1 log(1 + r2 d)), kerple-power (-r1 d^r2) and dpb (an MLP of the (log-)distance). Each
// makes one table [n, NH] per forward, on the tape, over the distances 0..T-1 or over the
// drawn positions' range; the layers share it, the fused attention through the one distance
// tile (models/bias_tiles.c), the materialized one through the one dense op (ordo_dist_bias).
// Nothing T x T is kept between forwards.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "framework/ops.h"
#include "models/pos/ops.h"
#include "framework/threads.h"
#include "models/pos/scheme.h"

typedef struct distance_state {
    ordo_pos_state base;
    ordo_tensor *rel_bias; // t5: (ORDO_T5_BUCKETS, NH)
    ordo_tensor *r1, *r2;  // kerple, kerple-power: (NH) each
    // dpb, one module shared by all layers: layer k of depth + 1 ([in, out] weights): (1, W),
    // (W); then (W, W), (W) each; the last (W, NH), (NH)
    ordo_tensor *dpb_w[ORDO_DPB_MAX_DEPTH + 1], *dpb_b[ORDO_DPB_MAX_DEPTH + 1];
} distance_state;

static ordo_pos scheme(const ordo_pos_state *s) {
    return s->row->pos;
}

static int is_power(const ordo_pos_state *s) {
    return scheme(s) == ORDO_POS_KERPLE_POWER;
}

// ---- parameters: t5's table after the final LayerNorm (zero: it stays as declared); the
// others after every other tensor. All carry ORDO_POSITION: the 2-D ones are weight-decayed
// unless --no-decay-pos, the 1-D ones never are.

static void declare(ordo_pos_state *s, ordo_params *p, ordo_pos_stage stage, int L) {
    distance_state *st = (distance_state *)s;
    const ordo_gpt_config *c = s->cfg;
    int NH = c->NH;
    if (scheme(s) == ORDO_POS_T5 && stage == ORDO_POS_AFTER_LN_F)
        st->rel_bias =
            ordo_params_add(p, "rel_bias.weight", 2, (int[]){ORDO_T5_BUCKETS, NH}, ORDO_POSITION);
    if (stage != ORDO_POS_LAST) return;
    if (scheme(s) == ORDO_POS_KERPLE || is_power(s)) {
        st->r1 = ordo_params_add(p, "kerple.r1", 1, (int[]){NH}, ORDO_POSITION);
        st->r2 = ordo_params_add(p, "kerple.r2", 1, (int[]){NH}, ORDO_POSITION);
    }
    if (scheme(s) == ORDO_POS_DPB) { // dpb.mlp.0 .. dpb.mlp.{depth}: 1 -> W, W -> W, W -> NH
        int W = c->dpb_dim, D = c->dpb_depth;
        char name[64];
        for (int k = 0; k <= D; k++) {
            int in = k == 0 ? 1 : W, out = k == D ? NH : W;
            snprintf(name, sizeof name, "dpb.mlp.%d.weight", k);
            st->dpb_w[k] = ordo_params_add(p, name, 2, (int[]){in, out}, ORDO_POSITION);
            snprintf(name, sizeof name, "dpb.mlp.%d.bias", k);
            st->dpb_b[k] = ordo_params_add(p, name, 1, (int[]){out}, ORDO_POSITION);
        }
    }
}

// Kerple, as the official code: log r1 ~ U(0, 2), r2 ~ U(0, 1); power (where the exponent is
// r2) r1 ~ U(0, 1), r2 ~ U(0, 2); then clamped as every forward clamps them. dpb:
// torch.nn.Linear's default, layer by layer, weight then bias: U(-k, k), k = 1/sqrt(fan_in)
// (1 for the first layer, 1/sqrt(W) after it).
static void init(ordo_pos_state *s, ordo_rng *r, ordo_pos_stage stage) {
    distance_state *st = (distance_state *)s;
    if (stage != ORDO_POS_LAST) return;
    for (int k = 0; scheme(s) == ORDO_POS_DPB && k <= s->cfg->dpb_depth; k++) {
        double b = 1.0 / sqrt((double)st->dpb_w[k]->shape[0]);
        ordo_rng_fill_uniform(r, st->dpb_w[k]->data, st->dpb_w[k]->n, -b, b);
        ordo_rng_fill_uniform(r, st->dpb_b[k]->data, st->dpb_b[k]->n, -b, b);
    }
    if (st->r1) {
        int power = is_power(s);
        ordo_rng_fill_uniform(r, st->r1->data, st->r1->n, 0, power ? 1 : 2);
        ordo_rng_fill_uniform(r, st->r2->data, st->r2->n, 0, power ? 2 : 1);
        ordo_kerple_clamp(st->r1->data, st->r2->data, s->cfg->NH, power);
    }
}

static void alibi_meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    if (c->alibi_heads != 0 && c->alibi_heads != c->NH)
        ordo_pos_meta_num(mt, "alibi_heads", "%.0f", (double)c->alibi_heads);
}

// t5's buckets end at HF's 128 unless --t5-max-distance says otherwise.
static void t5_resolve(ordo_gpt_config *c) {
    if (c->t5_max_distance == 0) c->t5_max_distance = ORDO_T5_MAX_DISTANCE;
}
static void t5_meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    if (c->t5_max_distance != 0 && c->t5_max_distance != ORDO_T5_MAX_DISTANCE)
        ordo_pos_meta_num(mt, "t5_max_distance", "%.0f", (double)c->t5_max_distance);
}

// Always, so that a loader rebuilds the MLP from the file.
static void dpb_meta(const ordo_gpt_config *c, ordo_gpt_meta *mt) {
    ordo_pos_meta_num(mt, "dpb_dim", "%.0f", (double)(c->dpb_dim ? c->dpb_dim : ORDO_DPB_DIM));
    ordo_pos_meta_num(mt, "dpb_depth", "%.0f",
                      (double)(c->dpb_depth ? c->dpb_depth : ORDO_DPB_DEPTH));
    ordo_pos_meta_num(mt, "dpb_log_distance", "%.0f", (double)c->dpb_log_distance);
}

// ---- the tables by distance

// Kerple's positivity as the official code: r1, r2 projected before each use, by both
// attentions.
static void kerple_clamp(distance_state *st) {
    ordo_kerple_clamp(st->r1->data, st->r2->data, st->base.cfg->NH, is_power(&st->base));
}

// alibi's bias by (distance, head), [n, NH]: -m_h d on the first alibi_heads heads, 0 after,
// computed in double and rounded once. A constant (no tape).
static ordo_tensor *alibi_table(distance_state *st, ordo_ctx *ctx, int n) {
    int NH = st->base.cfg->NH, k = st->base.cfg->alibi_heads;
    double slope[256];
    ordo_alibi_slopes(slope, k);
    ordo_tensor *x = ordo_tensor_new2(ctx, n, NH); // (n, NH)
    for (int d = 0; d < n; d++)
        for (int h = 0; h < NH; h++)
            x->data[(size_t)d * NH + h] = h < k ? (float)(-slope[h] * d) : 0;
    return x;
}

// t5's table row of each distance's bucket, [n, NH]: a gather, so the table's gradient goes
// to the buckets the drawn distances fall in.
static ordo_tensor *t5_table(distance_state *st, ordo_ctx *ctx, int n) {
    int32_t *ids = ordo_arena_alloc(&ctx->arena, (size_t)n * sizeof(int32_t)); // (n)
    int M = st->base.cfg->t5_max_distance;
    for (int d = 0; d < n; d++) ids[d] = ordo_t5_bucket_max(d, M);
    return ordo_embedding(ctx, st->rel_bias, ids, 1, (int[]){n});
}

// dpb's MLP of each distance d = 0..n-1, once per forward for all layers and both attentions:
// the table (n, NH) that the bias reads by distance. The input is d, or log(d + 1) with
// log_distance (x-transformers' sign(d) log(|d| + 1), d >= 0 here), computed in double and
// rounded once.
static ordo_tensor *dpb_table(distance_state *st, ordo_ctx *ctx, int n) {
    const ordo_gpt_config *c = st->base.cfg;
    ordo_tensor *x = ordo_tensor_new2(ctx, n, 1); // (n, 1)
    for (int d = 0; d < n; d++) x->data[d] = (float)(c->dpb_log_distance ? log1p(d) : d);
    int D = c->dpb_depth;
    for (int k = 0; k < D; k++) x = ordo_silu(ctx, ordo_linear(ctx, x, st->dpb_w[k], st->dpb_b[k]));
    return ordo_linear(ctx, x, st->dpb_w[D], st->dpb_b[D]); // (n, NH)
}

// The value per (distance, head) over 0..n-1 of any of the five, on the tape.
static ordo_tensor *table_by_distance(distance_state *st, ordo_ctx *ctx, int n) {
    switch (scheme(&st->base)) {
    case ORDO_POS_ALIBI:
        return alibi_table(st, ctx, n);
    case ORDO_POS_T5:
        return t5_table(st, ctx, n);
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
        kerple_clamp(st);
        return ordo_kerple_table(ctx, st->r1, st->r2, n, is_power(&st->base));
    default:
        return dpb_table(st, ctx, n);
    }
}

// One table [n, NH] for the forward, over the distances 0..T-1 or the positions' range n, read
// by the one tile (fused) or the one dense op (materialized) at 0..T-1 or at the positions.
static ordo_status prepare(ordo_pos_state *s, ordo_ctx *ctx, ordo_pos_step *f) {
    ordo_pos_bias_by_distance(ctx, f,
                              table_by_distance((distance_state *)s, ctx, f->pos ? f->n : f->T));
    return ORDO_OK;
}

// ---- viz's captions: what the bias is, with the values that make it

static void alibi_caption(const ordo_pos_state *s, char *buf, size_t cap) {
    int NH = s->cfg->NH, na = s->cfg->alibi_heads; // --alibi-heads: the others have no bias
    double slopes[256] = {0};
    ordo_alibi_slopes(slopes, na);
    int k = snprintf(buf, cap, "bias = -m_h (i - j); slopes m_h:");
    for (int h = 0; h < NH && k > 0 && (size_t)k < cap - 12; h++)
        k += snprintf(buf + k, cap - (size_t)k, " %.4g", h < na ? slopes[h] : 0.0);
    if (na < NH && k > 0 && (size_t)k < cap - 40)
        snprintf(buf + k, cap - (size_t)k, " (heads %d.. without positions)", na);
}

static void t5_caption(const ordo_pos_state *s, char *buf, size_t cap) {
    snprintf(buf, cap,
             "trained table rel_bias.weight [32, NH] through the bucket map (log-spaced from "
             "16 to %d)",
             s->cfg->t5_max_distance);
}

static void kerple_caption(const ordo_pos_state *s, char *buf, size_t cap) {
    const distance_state *st = (const distance_state *)s;
    int k = snprintf(buf, cap,
                     "%s; (r1, r2) per head:", is_power(s) ? "-r1 d^r2" : "-r1 log(1 + r2 d)");
    for (int h = 0; h < s->cfg->NH && k > 0 && (size_t)k < cap - 24; h++)
        k += snprintf(buf + k, cap - (size_t)k, " (%.3g, %.3g)", st->r1->data[h], st->r2->data[h]);
}

static void dpb_caption(const ordo_pos_state *s, char *buf, size_t cap) {
    const ordo_gpt_config *c = s->cfg;
    snprintf(buf, cap, "MLP(%s): 1 -> %d, %d x (Linear + SiLU), -> %d heads; shared by all layers",
             c->dpb_log_distance ? "log(d + 1)" : "d", c->dpb_dim, c->dpb_depth, c->NH);
}

// ---- eval's memory estimate (eval/eval_run.c): the fused bias's gradient buffer (a value per
// (distance, head)), and the scheme's own floats in a forward's arena: its table by distance,
// and fused the tiles' copy of it, materialized the (NH, T, T) bias (and the distances' ints).

static double table_grad(const ordo_gpt_config *g, int T) {
    return (double)T * g->NH;
}
static double table_arena(const ordo_gpt_config *g, double R, double t, int fused) {
    return t + g->NH * t * (fused ? 2 : 1 + t);
}
// and the MLP over the T distances (input, 2 x W per hidden layer)
static double dpb_arena(const ordo_gpt_config *g, double R, double t, int fused) {
    double W = g->dpb_dim ? g->dpb_dim : ORDO_DPB_DIM,
           D = g->dpb_depth ? g->dpb_depth : ORDO_DPB_DEPTH;
    return t * (1 + 2 * W * D) + table_arena(g, R, t, fused);
}

// The hooks every scheme of the family shares.
#define DISTANCE_HOOKS                                                                             \
    .flags = ORDO_POS_F_BIAS | ORDO_POS_F_POSITIONS, .state_bytes = sizeof(distance_state),        \
    .prepare = prepare, .picture = ORDO_POS_PICTURE_BIAS
#define KERPLE_ROW(p)                                                                              \
    {                                                                                              \
        .pos = p, DISTANCE_HOOKS, .export_refusal = ORDO_POS_REFUSAL_LEARNED_DISTANCE,             \
        .declare = declare, .init = init, .grad_floats = table_grad, .arena_floats = table_arena,  \
        .caption = kerple_caption,                                                                 \
    }

const ordo_pos_scheme ordo_pos_alibi_row = {
    .pos = ORDO_POS_ALIBI,
    DISTANCE_HOOKS,
    .export_refusal = ORDO_POS_REFUSAL_DISTANCE,
    .meta = alibi_meta,
    .arena_floats = table_arena,
    .caption = alibi_caption,
};

const ordo_pos_scheme ordo_pos_t5_row = {
    .pos = ORDO_POS_T5,
    DISTANCE_HOOKS,
    .export_refusal = "it adds a learned relative bias (rel_bias.weight) to the attention scores, "
                      "which GPT2LMHeadModel does not do",
    .resolve = t5_resolve,
    .meta = t5_meta,
    .declare = declare,
    .grad_floats = table_grad,
    .arena_floats = table_arena,
    .caption = t5_caption,
};

const ordo_pos_scheme ordo_pos_kerple_row = KERPLE_ROW(ORDO_POS_KERPLE);
const ordo_pos_scheme ordo_pos_kerple_power_row = KERPLE_ROW(ORDO_POS_KERPLE_POWER);

const ordo_pos_scheme ordo_pos_dpb_row = {
    .pos = ORDO_POS_DPB,
    DISTANCE_HOOKS,
    .export_refusal = ORDO_POS_REFUSAL_LEARNED_DISTANCE,
    .declare = declare,
    .init = init,
    .meta = dpb_meta,
    .grad_floats = table_grad,
    .arena_floats = dpb_arena,
    .caption = dpb_caption,
};
