// The model at drawn positions (--pos-random, or positions given by ordo_gpt_set_positions)
// for the schemes that are not added at the input: the score biases per batch row (the
// materialized [B, NH, T, T] and the fused tiles), and xPos's decay per token. Each is the
// scheme's function of the positions' difference pos[b, i] - pos[b, j] where gpt.c uses
// i - j; FIRE's normaliser reads pos[b, i]; the tables by distance (dpb's MLP, kerple's
// values, t5's buckets) run over 0..n-1, n the positions' range. The input schemes (learned,
// sinusoidal) and rope's rotation are gpt.c's; the positions themselves (drawn or given) are
// made here, and dpb's MLP table (by distance, shared with gpt.c's 0..T-1). Deliberately no
// other code here runs at 0..T-1: eval keeps gpt.c's paths. gpt.c calls this file, never
// the other way (tests/layout/test_file_cycles.sh).
#include <math.h>

#include "framework/ops.h"
#include "framework/rng.h"
#include "models/bias_tiles.h"
#include "models/gpt.h"

uint64_t ordo_gpt_row_pos_seed(uint64_t seed, int64_t row) {
    // a distinct splitmix input per row; ordo_rng_seed mixes it
    return seed + 0x9E3779B97F4A7C15ULL * (uint64_t)(row + 1);
}

ordo_status ordo_gpt_forward_positions(ordo_gpt *m, ordo_ctx *ctx, int B, int T,
                                       const int32_t **out) {
    const ordo_gpt_config *c = &m->cfg;
    int N = c->pos_random;
    *out = NULL;
    if (!m->pos_ids && !(m->train && N)) return ORDO_OK;
    if (!ordo_pos_takes_positions(c->pos))
        return ordo_error(ORDO_ERR_ARG,
                          "positions other than 0..T-1 do not apply to --pos %s (no position "
                          "enters it)",
                          ordo_pos_name(c->pos));
    if (m->pos_ids) {
        int lim = c->pos == ORDO_POS_LEARNED ? c->T_max : ORDO_GPT_MAX_DIM;
        for (size_t i = 0; i < (size_t)B * T; i++)
            if (m->pos_ids[i] < 0 || m->pos_ids[i] >= lim)
                return ordo_error(ORDO_ERR_ARG, "position %d at %zu is outside 0..%d",
                                  m->pos_ids[i], i, lim - 1);
        // the relative schemes read pos[b, i] - pos[b, j] >= 0 for j < i, as drawn ones are
        for (size_t i = 0; i < (size_t)B * T && ordo_pos_has_bias(c->pos); i++)
            if (i % T && m->pos_ids[i] <= m->pos_ids[i - 1])
                return ordo_error(ORDO_ERR_ARG,
                                  "position %d at %zu does not increase along its row (--pos %s "
                                  "reads the distances of the positions)",
                                  m->pos_ids[i], i, ordo_pos_name(c->pos));
        *out = m->pos_ids;
        return ORDO_OK;
    }
    if (T > N)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past --pos-random %d: no %d distinct "
                          "positions to draw",
                          T, N, T);
    int32_t *p = ordo_arena_alloc(&ctx->arena, (size_t)B * T * sizeof(int32_t)); // (B, T)
    for (int b = 0; b < B; b++)
        ordo_random_positions(p + (size_t)b * T, T, N,
                              ordo_gpt_row_pos_seed(m->pos_seed, m->drop_row0 + b));
    *out = p;
    return ORDO_OK;
}

int ordo_gpt_positions_range(const ordo_gpt *m, const int32_t *pos, int B, int T) {
    int n = m->cfg.pos_random;
    for (size_t i = 0; i < (size_t)B * T; i++)
        if (pos[i] >= n) n = pos[i] + 1;
    return n;
}

// alibi's bias by (distance, head), [n, NH]: -m_h d on the first alibi_heads heads, 0 after,
// rounded as ordo_alibi_bias_heads rounds -m_h (i - j). A constant (no tape).
static ordo_tensor *alibi_table(ordo_gpt *m, ordo_ctx *ctx, int n) {
    int NH = m->cfg.NH, k = m->cfg.alibi_heads;
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
static ordo_tensor *t5_table(ordo_gpt *m, ordo_ctx *ctx, int n) {
    int32_t *ids = ordo_arena_alloc(&ctx->arena, (size_t)n * sizeof(int32_t)); // (n)
    for (int d = 0; d < n; d++) ids[d] = ordo_t5_bucket(d);
    return ordo_embedding(ctx, m->rel_bias, ids, 1, (int[]){n});
}

// FIRE at the positions: u of every causal pair of every row through the MLP. (B, NH, T, T)
static ordo_tensor *fire_bias_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B, int T) {
    ordo_tensor *u = ordo_fire_dist_at(ctx, m->fire_c, m->fire_lmul, pos, B, T, ORDO_FIRE_INIT_L,
                                       ORDO_FIRE_EPS);                            // (B*P, 1)
    ordo_tensor *h = ordo_relu(ctx, ordo_linear(ctx, u, m->fire_w1, m->fire_b1)); // (B*P, 32)
    return ordo_pair_bias(ctx, ordo_linear(ctx, h, m->fire_w2, m->fire_b2), T);
}

// dpb's MLP of each distance d = 0..T-1 (0..n-1 at drawn positions), once per forward for all
// layers and both attentions: the table (T, NH) that the bias reads by distance. The input is d, or
// log(d + 1) with log_distance (x-transformers' sign(d) log(|d| + 1), d >= 0 here), computed in
// double and rounded once.
ordo_tensor *ordo_gpt_dpb_table(ordo_gpt *m, ordo_ctx *ctx, int T) {
    ordo_tensor *x = ordo_tensor_new2(ctx, T, 1); // (T, 1)
    for (int d = 0; d < T; d++) x->data[d] = (float)(m->cfg.dpb_log_distance ? log1p(d) : d);
    int D = m->cfg.dpb_depth;
    for (int k = 0; k < D; k++) x = ordo_silu(ctx, ordo_linear(ctx, x, m->dpb_w[k], m->dpb_b[k]));
    return ordo_linear(ctx, x, m->dpb_w[D], m->dpb_b[D]); // (T, NH)
}

ordo_tensor *ordo_gpt_position_bias_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B,
                                       int T) {
    const ordo_gpt_config *c = &m->cfg;
    int n = ordo_gpt_positions_range(m, pos, B, T), power = c->pos == ORDO_POS_KERPLE_POWER;
    switch (c->pos) {
    case ORDO_POS_ALIBI:
        return ordo_dist_bias_at(ctx, alibi_table(m, ctx, n), pos, B, T);
    case ORDO_POS_T5:
        return ordo_dist_bias_at(ctx, t5_table(m, ctx, n), pos, B, T);
    case ORDO_POS_FIRE: // one row: (NH, T, T), broadcast as the 0..T-1 bias is
        return fire_bias_at(m, ctx, pos, B, T);
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
        ordo_kerple_clamp(m->kerple_r1->data, m->kerple_r2->data, c->NH, power);
        return ordo_dist_bias_at(ctx, ordo_kerple_table(ctx, m->kerple_r1, m->kerple_r2, n, power),
                                 pos, B, T);
    case ORDO_POS_DPB:
        return ordo_dist_bias_at(ctx, ordo_gpt_dpb_table(m, ctx, n), pos, B, T);
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_FOX:  // no positions (ordo_pos_takes_positions): refused before
    case ORDO_POS_COPE: // the same
    case ORDO_POS_COUNT:
        break;
    }
    return NULL;
}

ordo_bias_tiles *ordo_gpt_bias_tiles_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B,
                                        int T) {
    const ordo_gpt_config *c = &m->cfg;
    int n = ordo_gpt_positions_range(m, pos, B, T), power = c->pos == ORDO_POS_KERPLE_POWER;
    switch (c->pos) {
    case ORDO_POS_ALIBI:
        return ordo_alibi_tiles_at(ctx, c->NH, c->alibi_heads, pos, B, T, n);
    case ORDO_POS_T5:
        return ordo_t5_tiles_at(ctx, m->rel_bias, pos, B, T, n);
    case ORDO_POS_FIRE:
        return ordo_fire_tiles_at(ctx, m->fire_w1, m->fire_b1, m->fire_w2, m->fire_b2, m->fire_c,
                                  m->fire_lmul, pos, B, T, n, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
        ordo_kerple_clamp(m->kerple_r1->data, m->kerple_r2->data, c->NH, power);
        return ordo_kerple_tiles_at(ctx, m->kerple_r1, m->kerple_r2, pos, B, T, n, power);
    case ORDO_POS_DPB:
        return ordo_dpb_tiles_at(ctx, ordo_gpt_dpb_table(m, ctx, n), pos, B, T);
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_FOX:  // no positions (ordo_pos_takes_positions): refused before
    case ORDO_POS_COPE: // the same
    case ORDO_POS_COUNT:
        break;
    }
    return NULL;
}

ordo_tensor *ordo_gpt_xpos_scale_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B, int T) {
    int C = m->cfg.C, n = ordo_gpt_positions_range(m, pos, B, T);
    ordo_tensor *s = ordo_tensor_new3(ctx, B, T, 3 * C); // (B, T, 3C)
    ordo_xpos_scale_at(s->data, pos, B * T, n, C, m->cfg.NH);
    return s;
}
