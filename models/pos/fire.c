// FIRE (Li et al. 2023, appendix module): one MLP 1 -> 32 -> NH with ReLU, shared by all
// layers, of the log-normalised distance u = log(|c| d + 1) / (log(|c| max(i, L) + 1) + eps),
// L = |l * 512|. The bias is made once per forward: the MLP over every causal pair scattered to
// (NH, T, T) on the materialized path, the MLP evaluated as the piecewise-linear function it
// is inside the tiles on the fused one (models/fire_tiles.c).
#include <math.h>
#include <stdio.h>

#include "framework/ops.h"
#include "models/pos/ops.h"
#include "models/pos/scheme.h"

typedef struct fire_state {
    ordo_pos_state base;
    // [in, out] weights as GPT-2's Conv1D: (1, 32), (32), (32, NH), (NH); c and the
    // multiplier of L, (1) each
    ordo_tensor *w1, *b1, *w2, *b2, *c, *lmul;
} fire_state;

// After every other tensor. All carry ORDO_POSITION: the two matrices are weight-decayed
// unless --no-decay-pos, the 1-D ones (biases, c, L multiplier) never are.
static void declare(ordo_pos_state *s, ordo_params *p, ordo_pos_stage stage, int L) {
    fire_state *st = (fire_state *)s;
    int NH = s->cfg->NH, W = ORDO_FIRE_WIDTH;
    if (stage != ORDO_POS_LAST) return;
    st->w1 = ordo_params_add(p, "fire.fc1.weight", 2, (int[]){1, W}, ORDO_POSITION);
    st->b1 = ordo_params_add(p, "fire.fc1.bias", 1, (int[]){W}, ORDO_POSITION);
    st->w2 = ordo_params_add(p, "fire.fc2.weight", 2, (int[]){W, NH}, ORDO_POSITION);
    st->b2 = ordo_params_add(p, "fire.fc2.bias", 1, (int[]){NH}, ORDO_POSITION);
    st->c = ordo_params_add(p, "fire.c", 1, (int[]){1}, ORDO_POSITION);
    st->lmul = ordo_params_add(p, "fire.L_multiplier", 1, (int[]){1}, ORDO_POSITION);
}

// torch.nn.Linear's default, U(-k, k) with k = 1/sqrt(fan_in) for weight and bias (1 for fc1,
// 1/sqrt(32) for fc2), c = 0.1, the L multiplier 1; drawn last, as the reference code does.
static void init(ordo_pos_state *s, ordo_rng *r, ordo_pos_stage stage) {
    fire_state *st = (fire_state *)s;
    if (stage != ORDO_POS_LAST) return;
    double k2 = 1.0 / sqrt((double)ORDO_FIRE_WIDTH);
    ordo_rng_fill_uniform(r, st->w1->data, st->w1->n, -1, 1);
    ordo_rng_fill_uniform(r, st->b1->data, st->b1->n, -1, 1);
    ordo_rng_fill_uniform(r, st->w2->data, st->w2->n, -k2, k2);
    ordo_rng_fill_uniform(r, st->b2->data, st->b2->n, -k2, k2);
    ordo_pos_fill_const(st->c, ORDO_FIRE_INIT_C);
    ordo_pos_fill_const(st->lmul, 1.0f);
}

// The MLP of u (P, 1) into (P, NH) values scattered to the causal bias: (NH, T, T) for one row
// of positions, (B, NH, T, T) for B.
static ordo_tensor *mlp_bias(fire_state *st, ordo_ctx *ctx, ordo_tensor *u, int T) {
    ordo_tensor *h = ordo_relu(ctx, ordo_linear(ctx, u, st->w1, st->b1)); // (P, 32)
    return ordo_pair_bias(ctx, ordo_linear(ctx, h, st->w2, st->b2), T);
}

static ordo_status prepare(ordo_pos_state *s, ordo_ctx *ctx, ordo_pos_step *f) {
    fire_state *st = (fire_state *)s;
    int B = f->B, T = f->T;
    if (!f->fused && T > ORDO_FIRE_MAX_T)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past what --pos fire runs at (%d) with the materialized "
                          "attention: its MLP takes the T(T+1)/2 causal pairs in one int-indexed "
                          "batch (the fused attention has no such limit)",
                          T, ORDO_FIRE_MAX_T);
    if (f->fused && f->pos)
        f->tiles = ordo_fire_tiles_at(ctx, st->w1, st->b1, st->w2, st->b2, st->c, st->lmul, f->pos,
                                      B, T, f->n, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    else if (f->fused)
        f->tiles = ordo_fire_tiles(ctx, st->w1, st->b1, st->w2, st->b2, st->c, st->lmul, T,
                                   ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    else if (f->pos) // u of every causal pair of every row: (B, NH, T, T)
        f->bias = mlp_bias(
            st, ctx,
            ordo_fire_dist_at(ctx, st->c, st->lmul, f->pos, B, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS),
            T);
    else // one row: (NH, T, T), broadcast over the batch
        f->bias = mlp_bias(
            st, ctx, ordo_fire_dist(ctx, st->c, st->lmul, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS), T);
    return ORDO_OK;
}

static void caption(const ordo_pos_state *s, char *buf, size_t cap) {
    const fire_state *st = (const fire_state *)s;
    snprintf(buf, cap,
             "MLP(log(c d + 1) / (log(c max(i, L) + 1) + eps)), shared by all layers; "
             "c = %.4g, L = %.4g",
             fabs(st->c->data[0]), fabs(st->lmul->data[0] * ORDO_FIRE_INIT_L));
}

static double grad_floats(const ordo_gpt_config *g, int T) {
    double W = ORDO_FIRE_WIDTH;
    return 2.0 * W + W * g->NH + g->NH + 2;
}

// fused: the tiles' state per position; materialized: the MLP over the T(T+1)/2 causal pairs
// (input, 2 x 32 hidden, NH out) and the bias
static double arena_floats(const ordo_gpt_config *g, double R, double t, int fused) {
    double NH = g->NH;
    return fused ? 10 * t + 4 * NH * (ORDO_FIRE_WIDTH + 1)
                 : t * (t + 1) / 2 * (1 + 2 * ORDO_FIRE_WIDTH + NH) + NH * t * t;
}

const ordo_pos_scheme ordo_pos_fire_row = {
    .pos = ORDO_POS_FIRE,
    .flags = ORDO_POS_F_BIAS | ORDO_POS_F_POSITIONS,
    .state_bytes = sizeof(fire_state),
    .export_refusal = ORDO_POS_REFUSAL_LEARNED_DISTANCE,
    .declare = declare,
    .init = init,
    .prepare = prepare,
    .grad_floats = grad_floats,
    .arena_floats = arena_floats,
    .picture = ORDO_POS_PICTURE_BIAS,
    .caption = caption,
};
