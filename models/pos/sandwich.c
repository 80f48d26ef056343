// Sandwich (Chi et al. 2023, "Dissecting Transformer Length Extrapolation via the Lens of
// Receptive Field Analysis", ACL): a parameter-free bias from the inner product of the
// sinusoidal embeddings of positions i and j over d' = hs dims, p_i . p_j = sum_{k=1}^{d'/2}
// cos((i - j) / 10000^(2k/d')), less its value at distance 0 (d'/2), and divided per head by
// h * 8 / NH (h = 1..NH), ALiBi's slope pattern; as NeMo's SandwichRelativePositionEmbedding.
// A value per (distance, head): one table for the fused tiles and the materialized bias, at
// 0..T-1 or at drawn positions.
#include <math.h>
#include <stdio.h>

#include "framework/ops.h"
#include "models/pos/scheme.h"

// The bias by (distance, head) over 0..n-1, [n, NH], computed in double and rounded once. A
// constant: no tape, no gradient.
static ordo_tensor *table(const ordo_gpt_config *c, ordo_ctx *ctx, int n) {
    int NH = c->NH, half = c->C / NH / 2;          // d'/2 terms (hs odd: its floor)
    ordo_tensor *x = ordo_tensor_new2(ctx, n, NH); // (n, NH)
    double *wave = ordo_arena_alloc(&ctx->arena, (size_t)(half + 1) * sizeof *wave); // 1..half
    for (int k = 1; k <= half; k++) wave[k] = pow(ORDO_ROPE_BASE, 2.0 * k / (2 * half));
    for (int d = 0; d < n; d++) {
        double s = 0;
        for (int k = 1; k <= half; k++) s += cos(d / wave[k]);
        for (int h = 0; h < NH; h++)
            x->data[(size_t)d * NH + h] = (float)((s - half) / ((h + 1) * 8.0 / NH));
    }
    return x;
}

static ordo_status prepare(ordo_pos_state *s, ordo_ctx *ctx, ordo_pos_step *f) {
    ordo_pos_bias_by_distance(ctx, f, table(s->cfg, ctx, f->pos ? f->n : f->T));
    return ORDO_OK;
}

static void caption(const ordo_pos_state *s, char *buf, size_t cap) {
    snprintf(buf, cap,
             "sum_k cos((i - j) / 10000^(2k/hs)) - hs/2, k = 1..hs/2, over h 8/NH for head h; "
             "no parameters");
}

// the table by distance; materialized, the (NH, T, T) bias
static double arena_floats(const ordo_gpt_config *g, double R, double t, int fused) {
    return t * g->NH + (fused ? 0 : g->NH * t * t);
}

const ordo_pos_scheme ordo_pos_sandwich_row = {
    .pos = ORDO_POS_SANDWICH,
    .flags = ORDO_POS_F_BIAS | ORDO_POS_F_POSITIONS,
    .state_bytes = sizeof(ordo_pos_state),
    .export_refusal = ORDO_POS_REFUSAL_DISTANCE,
    .prepare = prepare,
    .arena_floats = arena_floats,
    .picture = ORDO_POS_PICTURE_BIAS,
    .caption = caption,
};
