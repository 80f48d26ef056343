// The context-use curve (eval/context_use.h) against brute force on a tiny random model: each
// target recomputed alone, by a forward over exactly the k tokens before it (the model's own
// fused cross-entropy, not the chunked head's), for every k; the ks, the targets (evenly
// spaced, the same at every k, masked ones skipped) and the refusals.
#include <math.h>
#include <string.h>

#include "eval/context_use.h"
#include "test.h"

static ordo_gpt model;
static ordo_ctx ctx;

// Loss of predicting y from tokens[e-k+1..e] alone, at the window's last position.
static double brute_loss(const int32_t *tokens, size_t e, int k, int32_t y) {
    int32_t tg[64];
    for (int t = 0; t < k; t++) tg[t] = -1;
    tg[k - 1] = y;
    ordo_ctx_reset(&ctx);
    ordo_tensor *loss;
    ORDO_ASSERT(ordo_gpt_forward(&model, &ctx, tokens + e + 1 - k, tg, 1, k, NULL, &loss) ==
                ORDO_OK);
    return loss->data[0];
}

static void check(const int32_t *tokens, const int32_t *targets, size_t n, int K, size_t max_t,
                  size_t want_targets) {
    ordo_context_use u;
    CHECK(ordo_context_use_score(&model, &ctx, tokens, targets, n, K, max_t, 3, 0, &u) == ORDO_OK);
    CHECK_MSG(u.targets == want_targets, "K %d max %zu: %zu targets, expected %zu", K, max_t,
              u.targets, want_targets);
    // the ks: 1, 2, 4, ... below K, then K
    int nk = 0, ks[16];
    for (int v = 1; v < K; v *= 2) ks[nk++] = v;
    ks[nk++] = K;
    CHECK(u.n == nk);
    for (int i = 0; i < nk && i < u.n; i++) CHECK(u.k[i] == ks[i]);
    // the same evenly spaced targets at every k, recomputed alone
    size_t cand = 0, es[512];
    for (size_t e = (size_t)K - 1; e + 1 < n; e++)
        if (!targets || targets[e + 1] >= 0) es[cand++] = e;
    size_t want = cand < max_t ? cand : max_t;
    ctx.grad_enabled = 0;
    for (int i = 0; i < nk && i < u.n; i++) {
        double sum = 0;
        for (size_t j = 0; j < want; j++) {
            size_t e = es[(size_t)((double)j * (double)cand / (double)want)];
            sum += brute_loss(tokens, e, ks[i], targets ? targets[e + 1] : tokens[e + 1]);
        }
        CHECK_CLOSE(u.loss[i], sum / (double)want, 1e-6, 1e-5);
    }
    ctx.grad_enabled = 1;
    ordo_context_use_free(&u);
}

int main(void) {
    ordo_gpt_config cfg = {
        .V = 23, .C = 16, .L = 2, .NH = 2, .T_max = 16, .pos = ORDO_POS_LEARNED, .ln_eps = 1e-5f};
    ORDO_ASSERT(ordo_gpt_init(&model, &cfg, 5) == ORDO_OK);
    ordo_ctx_init(&ctx);
    int32_t tokens[200], targets[200];
    for (int i = 0; i < 200; i++) {
        tokens[i] = (i * 7 + i / 5) % cfg.V;
        targets[i] = i % 3 == 0 ? -1 : tokens[i]; // a third not scored
    }
    check(tokens, NULL, 200, 16, 40, 40);       // 184 candidates, 40 evenly spaced
    check(tokens, NULL, 60, 12, 1000, 60 - 12); // fewer candidates than asked: all of them
    check(tokens, targets, 120, 8, 30, 30);     // masked targets are never picked
    check(tokens, NULL, 40, 5, 7, 7);           // K not a power of two: 1, 2, 4, 5
    // a stream without a target that has K tokens before it
    ordo_context_use u;
    CHECK(ordo_context_use_score(&model, &ctx, tokens, NULL, 16, 16, 10, 2, 0, &u) == ORDO_ERR_ARG);
    ordo_error_clear();
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&model);
    TEST_MAIN_END();
}
