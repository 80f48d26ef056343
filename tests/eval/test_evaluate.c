// Evaluation modes against brute force on a tiny random model: every scored target is
// recomputed alone, by a forward over exactly the context the mode promises it (through
// the model's own fused cross-entropy, not evaluate.c's log-softmax), and the mean loss,
// the target count and the loss by position must agree.
//   nonoverlap: windows at 0, T, 2T... (range(0, n - T, T)), every position scored.
//   sliding S:  target j is scored once, with context tokens[b..j-1] where b is the first
//               window start (0, S, 2S, ... capped at n-1-T) with b + T >= j.
#include <math.h>
#include <string.h>

#include "test.h"
#include "eval/evaluate.h"

static ordo_gpt model;
static ordo_ctx ctx;

// Loss of predicting tokens[j] from tokens[b..j-1] alone.
static double brute_loss(const int32_t *tokens, size_t b, size_t j) {
    int T = (int)(j - b);
    int32_t tg[256];
    for (int t = 0; t < T; t++) tg[t] = -1;
    tg[T - 1] = tokens[j];
    ordo_ctx_reset(&ctx);
    ordo_tensor *loss;
    ORDO_ASSERT(ordo_gpt_forward(&model, &ctx, tokens + b, tg, 1, T, NULL, &loss) == ORDO_OK);
    return loss->data[0];
}

static void check_mode(const int32_t *tokens, const int32_t *targets, size_t n, int T,
                       ordo_eval_mode mode, int S) {
    ordo_eval_result r;
    CHECK(ordo_eval_stream(&model, &ctx, tokens, targets, n, T, mode, S, 3, 0, NULL, &r) ==
          ORDO_OK);
    double sum = 0, pos_sum[64] = {0};
    size_t cnt = 0, pos_cnt[64] = {0};
    ctx.grad_enabled = 0;
    if (mode == ORDO_EVAL_NONOVERLAP) {
        for (size_t b = 0; b + (size_t)T < n; b += (size_t)T)
            for (int t = 0; t < T; t++) {
                size_t j = b + (size_t)t + 1;
                if (targets && targets[j] < 0) continue;
                double l = brute_loss(tokens, b, j); // context b..j-1
                sum += l, cnt++, pos_sum[t] += l, pos_cnt[t]++;
            }
    } else {
        size_t last = n - 1 - (size_t)T;
        for (size_t j = 1; j < n; j++) {
            if (targets && targets[j] < 0) continue;
            size_t b = 0;
            while (b + (size_t)T < j && b < last) b = b + (size_t)S < last ? b + (size_t)S : last;
            double l = brute_loss(tokens, b, j);
            sum += l, cnt++, pos_sum[j - 1 - b] += l, pos_cnt[j - 1 - b]++;
        }
    }
    ctx.grad_enabled = 1;
    CHECK_MSG(r.targets == cnt, "%s T=%d S=%d: %zu targets, brute force %zu",
              ordo_eval_mode_name(mode), T, S, r.targets, cnt);
    CHECK_CLOSE(r.loss, sum / cnt, 1e-6, 1e-5);
    for (int t = 0; t < T; t++) {
        CHECK(r.pos_count[t] == pos_cnt[t]);
        if (pos_cnt[t])
            CHECK_CLOSE(r.pos_loss[t], pos_sum[t] / pos_cnt[t], 1e-6, 1e-5);
        else
            CHECK(isnan(r.pos_loss[t]));
    }
    ordo_eval_result_free(&r);
}

// Eval scores through the chunked LM head without a tape, each layer's buffers
// released as the forward goes. The numbers are those of the path before it, which took the
// (rows, T, V) logits of a forward and scored each target from them with exps in double: the
// same loss by position (here: the loss of every target at each position), within 1e-7 of
// it: the head now sums float exps in double per block (ordo_row_nll, as training's
// cross-entropy), 2x faster at GPT-2's vocabulary. And the inference forward gives the very
// logits of a taped one.
static void check_as_before(const int32_t *tokens, const int32_t *targets, size_t n, int T) {
    ordo_eval_result r;
    CHECK(ordo_eval_stream(&model, &ctx, tokens, targets, n, T, ORDO_EVAL_NONOVERLAP, 0, 2, 0, NULL,
                           &r) == ORDO_OK);
    int V = model.cfg.V;
    double pos_sum[64] = {0}, sum = 0;
    size_t pos_cnt[64] = {0}, cnt = 0;
    float *taped = malloc((size_t)T * V * sizeof(float));
    for (size_t b = 0; b + (size_t)T < n; b += (size_t)T) {
        ordo_tensor *lg; // (1, T, V)
        ordo_ctx_reset(&ctx);
        CHECK(ordo_gpt_forward(&model, &ctx, tokens + b, NULL, 1, T, &lg, NULL) == ORDO_OK);
        memcpy(taped, lg->data, (size_t)T * V * sizeof(float));
        ctx.grad_enabled = 0;
        ordo_ctx_reset(&ctx);
        CHECK(ordo_gpt_forward(&model, &ctx, tokens + b, NULL, 1, T, &lg, NULL) == ORDO_OK);
        ctx.grad_enabled = 1;
        CHECK(memcmp(lg->data, taped, (size_t)T * V * sizeof(float)) == 0);
        for (int t = 0; t < T; t++) {
            int32_t y = targets ? targets[b + t + 1] : tokens[b + t + 1];
            if (y < 0) continue;
            const float *x = lg->data + (size_t)t * V; // evaluate.c's token_loss, as it was
            float mx = x[0];
            for (int v = 1; v < V; v++) mx = x[v] > mx ? x[v] : mx;
            double e = 0;
            for (int v = 0; v < V; v++) e += exp((double)x[v] - mx);
            double l = mx + log(e) - x[y];
            sum += l, cnt++, pos_sum[t] += l, pos_cnt[t]++;
        }
    }
    free(taped);
    CHECK(r.targets == cnt);
    CHECK_CLOSE(r.loss, sum / cnt, 0, 1e-7);
    for (int t = 0; t < T; t++)
        if (pos_cnt[t]) CHECK_CLOSE(r.pos_loss[t], pos_sum[t] / pos_cnt[t], 0, 1e-7);
    ordo_eval_result_free(&r);
}

static void run_scheme(ordo_pos pos) {
    ordo_gpt_config c = {
        .V = 11, .C = 16, .L = 2, .NH = 2, .T_max = 8, .pos = pos, .ln_eps = 1e-5f};
    CHECK(ordo_gpt_init(&model, &c, 7) == ORDO_OK);
    ordo_rng r;
    ordo_rng_seed(&r, 3);
    for (size_t i = 0; i < model.params.numel && i < model.params.total; i++) // non-trivial weights
        model.params.data[i] += (float)(0.05 * ordo_rng_normal(&r));
    int32_t tokens[61], targets[61];
    for (int i = 0; i < 61; i++) {
        tokens[i] = (int32_t)ordo_rng_below(&r, 11);
        targets[i] = i % 5 == 2 ? -1 : tokens[i]; // some targets not scored, as copy/reverse
    }
    check_mode(tokens, NULL, 61, 8, ORDO_EVAL_NONOVERLAP, 0);
    check_mode(tokens, NULL, 61, 5, ORDO_EVAL_NONOVERLAP, 0);
    check_mode(tokens, targets, 61, 8, ORDO_EVAL_NONOVERLAP, 0);
    check_mode(tokens, NULL, 61, 8, ORDO_EVAL_SLIDING, 1);
    check_mode(tokens, NULL, 61, 8, ORDO_EVAL_SLIDING, 3);
    check_mode(tokens, targets, 61, 8, ORDO_EVAL_SLIDING, 8);
    check_mode(tokens, NULL, 9, 8, ORDO_EVAL_SLIDING, 2); // exactly one window
    check_as_before(tokens, NULL, 61, 8);
    check_as_before(tokens, targets, 61, 7); // the order-dependent figure's kind: some unscored
    ordo_eval_result res;
    if (pos == ORDO_POS_LEARNED) { // past the table: refused, with the reason
        CHECK(ordo_eval_stream(&model, &ctx, tokens, NULL, 61, 12, ORDO_EVAL_NONOVERLAP, 0, 2, 0,
                               NULL, &res) == ORDO_ERR_ARG);
        CHECK(strstr(ordo_error_message(), "T_max 8"));
        ordo_eval_result_free(&res);
    } else { // relative schemes run past the training length
        check_mode(tokens, NULL, 61, 12, ORDO_EVAL_SLIDING, 4);
    }
    CHECK(ordo_eval_stream(&model, &ctx, tokens, NULL, 8, 8, ORDO_EVAL_NONOVERLAP, 0, 2, 0, NULL,
                           &res) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "8 tokens") && strstr(ordo_error_message(), "needs 9"));
    ordo_eval_result_free(&res);
    ordo_gpt_free(&model);
}

int main(void) {
    ordo_ctx_init(&ctx);
    run_scheme(ORDO_POS_LEARNED);
    run_scheme(ORDO_POS_ROPE);
    run_scheme(ORDO_POS_ALIBI);
    ordo_ctx_free(&ctx);
    TEST_MAIN_END();
}
