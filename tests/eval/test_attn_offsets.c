// Attention by offset (eval/attn_offsets.h) where the answer is known: with q = k = 0 the
// scores are the scheme's bias alone, so alibi's attention (and none's uniform one) depends on
// the offset only: every head's spread is 0 and its mass at offset d is the analytic mean over
// queries i >= d of exp(-m d) / sum_{d' <= i} exp(-m d'). A learned table with large rows (and
// large q and k to read them) makes
// attention depend on where the query is: its spread is well above 0.
#include <math.h>
#include <string.h>

#include "eval/attn_offsets.h"
#include "models/positional.h"
#include "test.h"

enum { V = 19, C = 16, NH = 2, L = 2, T = 24, N = 24 * 5 + 3 };

// Zeroes q and k (c_attn's first 2C output columns and their biases) in every layer.
static void zero_qk(ordo_gpt *m) {
    for (int l = 0; l < L; l++) {
        ordo_tensor *w = m->h[l].c_attn.w, *b = m->h[l].c_attn.b; // (C, 3C), (3C)
        for (int r = 0; r < C; r++)
            for (int c = 0; c < 2 * C; c++) w->data[(size_t)r * 3 * C + c] = 0;
        for (int c = 0; c < 2 * C; c++) b->data[c] = 0;
    }
}

static void run(ordo_pos pos, int qk_zero, float wpe_scale, ordo_attn_offsets *o) {
    ordo_gpt_config cfg = {
        .V = V, .C = C, .L = L, .NH = NH, .T_max = T, .pos = pos, .ln_eps = 1e-5f};
    ordo_gpt m;
    ORDO_ASSERT(ordo_gpt_init(&m, &cfg, 11) == ORDO_OK);
    if (qk_zero) zero_qk(&m);
    ordo_tensor *wpe = ordo_params_find(&m.params, "wpe.weight");
    if (wpe)
        for (size_t i = 0; i < wpe->n; i++) wpe->data[i] *= wpe_scale;
    // large positions need large q and k to move the attention: c_attn x 25 with them
    for (int l = 0; l < L && wpe_scale != 1; l++)
        for (size_t i = 0; i < m.h[l].c_attn.w->n; i++) m.h[l].c_attn.w->data[i] *= 25;
    int32_t tokens[N];
    for (int i = 0; i < N; i++) tokens[i] = (i * 5 + i / 7) % V;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    CHECK(ordo_attn_offsets_measure(&m, &ctx, tokens, N, T, 8, o) == ORDO_OK);
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
}

int main(void) {
    ordo_attn_offsets o;
    // alibi with q = k = 0: offset alone
    run(ORDO_POS_ALIBI, 1, 1, &o);
    CHECK(o.windows == 5 && o.D == T / 4 && o.L == L && o.NH == NH); // 123 tokens: 5 windows
    double slopes[NH];
    ordo_alibi_slopes(slopes, NH);
    for (int l = 0; l < L; l++)
        for (int h = 0; h < NH; h++) {
            CHECK_MSG(o.spread[l * NH + h] < 1e-6, "alibi layer %d head %d: spread %g", l, h,
                      o.spread[l * NH + h]);
            for (int d = 0; d < T; d++) {
                double want = 0;
                for (int i = d; i < T; i++) {
                    double z = 0;
                    for (int e = 0; e <= i; e++) z += exp(-slopes[h] * e);
                    want += exp(-slopes[h] * d) / z;
                }
                want /= T - d;
                CHECK_CLOSE(o.mass[((size_t)l * NH + h) * T + d], want, 1e-6, 1e-5);
            }
        }
    ordo_attn_offsets_free(&o);
    // none with q = k = 0: uniform over the keys, also offset alone
    run(ORDO_POS_NONE, 1, 1, &o);
    for (int k = 0; k < L * NH; k++) CHECK(o.spread[k] < 1e-6);
    double want0 = 0; // offset 0: the mean over queries of 1 / (i + 1)
    for (int i = 0; i < T; i++) want0 += 1.0 / (i + 1);
    CHECK_CLOSE(o.mass[0], want0 / T, 1e-6, 1e-5);
    ordo_attn_offsets_free(&o);
    // a learned table with large rows: attention depends on the query's position
    run(ORDO_POS_LEARNED, 0, 40, &o);
    double most = 0;
    for (int k = 0; k < L * NH; k++) most = fmax(most, o.spread[k]);
    CHECK_MSG(most > 0.05, "learned x40: the largest spread is %g", most);
    ordo_attn_offsets_free(&o);
    // too short a stream
    ordo_gpt_config cfg = {
        .V = V, .C = C, .L = L, .NH = NH, .T_max = T, .pos = ORDO_POS_NONE, .ln_eps = 1e-5f};
    ordo_gpt m;
    ORDO_ASSERT(ordo_gpt_init(&m, &cfg, 1) == ORDO_OK);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    int32_t few[4] = {1, 2, 3, 4};
    CHECK(ordo_attn_offsets_measure(&m, &ctx, few, 4, T, 2, &o) == ORDO_ERR_ARG);
    ordo_error_clear();
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    TEST_MAIN_END();
}
