// The context-use curve (eval/context_use.h) against brute force on a tiny random model: each
// target recomputed alone, by a forward over exactly the k tokens before it (the model's own
// fused cross-entropy, not the chunked head's), for every k; the ks, the targets (evenly
// spaced, the same at every k, masked ones skipped) and the refusals. The n-gram line
// (ordo_context_use_ngram) against each target scored with its context before the k tokens
// poisoned (ids no model has seen stop the n-gram's back-off there), every order, best kept.
#include <math.h>
#include <string.h>

#include "data/ngram.h"
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

static ordo_ngram ngram; // order 4, fitted on another stream over the same vocab

// u's n-gram line against each picked target (es[floor(j cand / want)]) scored by hand: the
// window's K_max tokens with all but the last k replaced by -1, so that no context longer than
// k is found, then each order's mean and the best (the lowest order among equals).
static void check_ngram(ordo_context_use *u, const int32_t *tokens, const int32_t *targets,
                        size_t n, int K, size_t max_t, const size_t *es, size_t cand, size_t want) {
    CHECK(u->ngram_loss == NULL && u->ngram_order == NULL); // not before it is asked
    CHECK(ordo_context_use_ngram(&ngram, tokens, targets, n, K, max_t, u) == ORDO_OK);
    if (!u->ngram_loss) return;
    int N = ngram.order;
    for (int i = 0; i < u->n; i++) {
        int k = u->k[i];
        double sum[ORDO_NGRAM_MAX_ORDER] = {0}, p[ORDO_NGRAM_MAX_ORDER];
        int32_t seq[65];
        for (size_t j = 0; j < want; j++) {
            size_t e = es[(size_t)((double)j * (double)cand / (double)want)];
            for (int t = 0; t < K; t++) seq[t] = t < K - k ? -1 : tokens[e + 1 - (size_t)K + t];
            seq[K] = targets ? targets[e + 1] : tokens[e + 1];
            ordo_ngram_probs(&ngram, seq, K, p);
            for (int o = 0; o < N; o++) sum[o] -= log(p[o]);
        }
        int best = 0;
        for (int o = 1; o < N; o++)
            if (sum[o] < sum[best]) best = o;
        CHECK_CLOSE(u->ngram_loss[i], sum[best] / (double)want, 1e-12, 1e-12);
        CHECK_MSG(u->ngram_order[i] == best + 1 && u->ngram_order[i] <= k + 1,
                  "k %d: order %d, expected %d", k, u->ngram_order[i], best + 1);
    }
    // the fixture uses context: the curve falls from k = 1 to the whole window
    CHECK(u->ngram_loss[u->n - 1] < u->ngram_loss[0] - 0.1 && u->ngram_order[u->n - 1] > 2);
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
    check_ngram(&u, tokens, targets, n, K, max_t, es, cand, want);
    ordo_context_use_free(&u);
}

int main(void) {
    ordo_gpt_config cfg = {
        .V = 23, .C = 16, .L = 2, .NH = 2, .T_max = 16, .pos = ORDO_POS_LEARNED, .ln_eps = 1e-5f};
    ORDO_ASSERT(ordo_gpt_init(&model, &cfg, 5) == ORDO_OK);
    ordo_ctx_init(&ctx);
    // a stream that the three tokens before each id (and its position's parity) decide, so that
    // the n-gram's orders differ (one token of context leaves the next open, three nearly close
    // it); the n-gram is fitted on its first 400 ids, the curve scores its first 200
    int32_t tokens[200], targets[200], other[400] = {1, 2, 3};
    for (int i = 3; i < 400; i++) other[i] = (3 * other[i - 1] + 5 * other[i - 3] + i % 2) % cfg.V;
    for (int i = 0; i < 200; i++) {
        tokens[i] = other[i];
        targets[i] = i % 3 == 0 ? -1 : tokens[i]; // a third not scored
    }
    ORDO_ASSERT(ordo_ngram_fit(&ngram, other, 400, cfg.V, 4) == ORDO_OK);
    check(tokens, NULL, 200, 16, 40, 40);       // 184 candidates, 40 evenly spaced
    check(tokens, NULL, 60, 12, 1000, 60 - 12); // fewer candidates than asked: all of them
    check(tokens, targets, 120, 8, 30, 30);     // masked targets are never picked
    check(tokens, NULL, 40, 5, 7, 7);           // K not a power of two: 1, 2, 4, 5
    // a stream without a target that has K tokens before it
    ordo_context_use u;
    CHECK(ordo_context_use_score(&model, &ctx, tokens, NULL, 16, 16, 10, 2, 0, &u) == ORDO_ERR_ARG);
    ordo_error_clear();
    // the n-gram line refuses targets other than the curve's, and a target out of its vocab
    CHECK(ordo_context_use_score(&model, &ctx, tokens, NULL, 60, 8, 20, 2, 0, &u) == ORDO_OK);
    CHECK(ordo_context_use_ngram(&ngram, tokens, NULL, 60, 8, 21, &u) == ORDO_ERR_ARG);
    ordo_error_clear();
    CHECK(ordo_context_use_ngram(&ngram, tokens, NULL, 60, 4, 20, &u) == ORDO_ERR_ARG); // not K
    ordo_error_clear();
    CHECK(u.ngram_loss == NULL);
    ordo_ngram small;
    ORDO_ASSERT(ordo_ngram_fit(&small, other, 400, cfg.V, 2) == ORDO_OK);
    small.vocab = 5; // as if fitted over ids 0..4: the stream's targets reach 22
    CHECK(ordo_context_use_ngram(&small, tokens, NULL, 60, 8, 20, &u) == ORDO_ERR_ARG);
    ordo_error_clear();
    small.vocab = cfg.V;
    ordo_ngram_free(&small);
    CHECK(ordo_context_use_ngram(&ngram, tokens, NULL, 60, 8, 20, &u) == ORDO_OK);
    CHECK(ordo_context_use_ngram(&ngram, tokens, NULL, 60, 8, 20, &u) == ORDO_ERR_ARG); // twice
    ordo_error_clear();
    ordo_context_use_free(&u);
    ordo_ngram_free(&ngram);
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&model);
    TEST_MAIN_END();
}
