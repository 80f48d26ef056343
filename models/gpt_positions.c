// The positions of a forward: drawn per row in training with --pos-random, given
// (ordo_gpt_set_positions), or none (0..T-1); checked, and their range n (the tables by distance
// run over 0..n-1). And the scheme's shared bias alone, at 0..T-1 or at positions, for viz and
// the tests (the scheme's row makes it: models/pos/). gpt.c calls this file, never the other
// way (tests/layout/test_file_cycles.sh).
#include "framework/ops.h"
#include "framework/rng.h"
#include "models/gpt.h"
#include "models/pos/scheme.h"

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

// The scheme's shared bias for one forward at positions pos (NULL: 0..T-1), on the path asked.
static ordo_pos_step bias_step(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B, int T,
                               int fused) {
    ordo_pos_step f = {.B = B, .T = T, .fused = fused, .pos = pos};
    if (pos) f.n = ordo_gpt_positions_range(m, pos, B, T);
    const ordo_pos_scheme *row = m->pos->row;
    if ((row->flags & ORDO_POS_F_BIAS) && row->prepare && row->prepare(m->pos, ctx, &f))
        f.bias = NULL, f.tiles = NULL; // the error set
    return f;
}

ordo_tensor *ordo_gpt_position_bias(ordo_gpt *m, ordo_ctx *ctx, int T) {
    return bias_step(m, ctx, NULL, 1, T, 0).bias;
}

ordo_tensor *ordo_gpt_position_bias_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B,
                                       int T) {
    return bias_step(m, ctx, pos, B, T, 0).bias;
}

ordo_bias_tiles *ordo_gpt_bias_tiles_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B,
                                        int T) {
    return bias_step(m, ctx, pos, B, T, 1).tiles;
}
