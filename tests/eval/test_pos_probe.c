// The position probe (eval/pos_probe.h) where the answer is known. A learned table much larger
// than the token embeddings, with C 32 >= T 24 rows in general position, makes the input of
// block 0 a linear code of the position: the held-out error there is near 0 (the ridge solve
// right), far below chance (T / 4 for positions 0..T-1). `none`'s input of block 0 is the token
// embeddings alone: no position, the error near chance.
#include <math.h>
#include <string.h>

#include "eval/pos_probe.h"
#include "test.h"

enum { V = 29, C = 32, NH = 2, L = 2, T = 24, N = 24 * 8 + 1 };

static void run(ordo_pos pos, float wpe_scale, ordo_pos_probe *o) {
    ordo_gpt_config cfg = {
        .V = V, .C = C, .L = L, .NH = NH, .T_max = T, .pos = pos, .ln_eps = 1e-5f};
    ordo_gpt m;
    ORDO_ASSERT(ordo_gpt_init(&m, &cfg, 13) == ORDO_OK);
    ordo_tensor *wpe = ordo_params_find(&m.params, "wpe.weight");
    if (wpe)
        for (size_t i = 0; i < wpe->n; i++) wpe->data[i] *= wpe_scale;
    int32_t tokens[N];
    for (int i = 0; i < N; i++) tokens[i] = (i * 11 + i / 3) % V;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    CHECK(ordo_pos_probe_measure(&m, &ctx, tokens, N, T, 8, o) == ORDO_OK);
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
}

int main(void) {
    ordo_pos_probe o;
    run(ORDO_POS_LEARNED, 100, &o);
    CHECK(o.points == L + 1 && o.fit_windows == 4 && o.test_windows == 4);
    CHECK_CLOSE(o.chance, T / 4.0, 1e-12, 1e-12); // mean |t - 11.5| over 0..23 = 6
    CHECK_MSG(o.mae[0] < 0.5, "learned x100: block 0's input error %g (chance %g)", o.mae[0],
              o.chance);
    ordo_pos_probe_free(&o);
    run(ORDO_POS_NONE, 1, &o);
    CHECK_MSG(o.mae[0] > 0.7 * o.chance, "none: block 0's input error %g, chance %g", o.mae[0],
              o.chance);
    for (int p = 0; p < o.points; p++) CHECK(isfinite(o.mae[p]));
    ordo_pos_probe_free(&o);
    // one window is not enough (one to fit, one to hold out)
    ordo_gpt_config cfg = {
        .V = V, .C = C, .L = L, .NH = NH, .T_max = T, .pos = ORDO_POS_NONE, .ln_eps = 1e-5f};
    ordo_gpt m;
    ORDO_ASSERT(ordo_gpt_init(&m, &cfg, 1) == ORDO_OK);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    int32_t few[T + 5] = {0};
    CHECK(ordo_pos_probe_measure(&m, &ctx, few, T + 5, T, 4, &o) == ORDO_ERR_ARG);
    ordo_error_clear();
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    TEST_MAIN_END();
}
