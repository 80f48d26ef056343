// Passkey eval applies the LM head at the answer's positions alone (ordo_gpt_forward_pick):
// each picked row of logits must agree with that row of the whole (B, T, V) logits to float
// rounding, and the argmax, and every exact-match count, be what the whole logits gave. Checked on
// tiny random models of three schemes: the picked logits against the whole ones (1e-5),
// the predictions at every answer position against those of the whole logits, and
// ordo_eval_passkey's accuracy against a count made from the whole logits (a random model finds
// no key, so that count is 0: the logits and the predictions are the real check).
#include <math.h>
#include <string.h>

#include "test.h"
#include "data/tokenizer.h"
#include "eval/evaluate.h"
#include "framework/threads.h"

static ordo_gpt model;
static ordo_ctx ctx;

static int argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

// The reference predictor: the whole logits, the argmax everywhere (the eval before the pick).
static ordo_status whole_predict(void *p, const int32_t *in, int rows, int T, const int *from,
                                 int32_t *pred) {
    (void)p, (void)from;
    ordo_ctx_reset(&ctx);
    ordo_tensor *logits;
    ordo_status s = ordo_gpt_forward(&model, &ctx, in, NULL, rows, T, &logits, NULL);
    for (size_t i = 0; !s && i < (size_t)rows * T; i++)
        pred[i] = argmax(logits->data + i * (size_t)model.cfg.V, model.cfg.V);
    return s;
}

// Both ways at once: the whole logits' argmax (into pred) and the picked logits' at the answer's
// positions from[i]..T-1, which must agree; *p counts the positions compared.
static ordo_status both_predict(void *p, const int32_t *in, int rows, int T, const int *from,
                                int32_t *pred) {
    ordo_status s = whole_predict(NULL, in, rows, T, from, pred);
    int32_t pick[ORDO_EVAL_SEQ_CHUNK * 8];
    int npick = 0, V = model.cfg.V;
    for (int i = 0; i < rows; i++)
        for (int t = from[i]; t < T && npick < (int)(sizeof pick / sizeof *pick); t++)
            pick[npick++] = i * T + t;
    ordo_ctx_reset(&ctx);
    ordo_tensor *some;
    if (!s) s = ordo_gpt_forward_pick(&model, &ctx, in, rows, T, pick, npick, &some);
    for (int k = 0; !s && k < npick; k++)
        CHECK(argmax(some->data + (size_t)k * V, V) == pred[pick[k]]);
    *(int *)p += npick;
    return s;
}

// The picked logits against the whole ones, bit for bit, for one batch of random ids.
static void check_pick(int B, int T) {
    int32_t *in = ordo_xmalloc((size_t)B * T * sizeof *in), pick[64];
    ordo_rng r;
    ordo_rng_seed(&r, (uint64_t)(B * 1000 + T));
    for (int i = 0; i < B * T; i++) in[i] = (int32_t)ordo_rng_below(&r, (uint64_t)model.cfg.V);
    int npick = 0; // each row's last few positions (passkey's answer) and a few others
    for (int b = 0; b < B; b++)
        for (int t = T - 6; t < T; t++) pick[npick++] = b * T + t;
    pick[npick++] = 0;
    pick[npick++] = T / 2;
    int V = model.cfg.V;
    ordo_ctx_reset(&ctx);
    ordo_tensor *whole, *some;
    CHECK(ordo_gpt_forward(&model, &ctx, in, NULL, B, T, &whole, NULL) == ORDO_OK);
    float *keep = ordo_xmalloc(whole->n * sizeof *keep);
    memcpy(keep, whole->data, whole->n * sizeof *keep);
    ordo_ctx_reset(&ctx);
    CHECK(ordo_gpt_forward_pick(&model, &ctx, in, B, T, pick, npick, &some) == ORDO_OK);
    CHECK(some->shape[0] == npick && some->shape[1] == V);
    // the picked rows are a smaller product than the whole head's: BLAS may round a row
    // differently inside another product (bits are promised across thread counts only), so
    // the rows agree to float rounding; the predictions below are the exact check
    for (int k = 0; k < npick; k++) {
        float worst = 0;
        for (int v = 0; v < V; v++) {
            float a = some->data[(size_t)k * V + v], b = keep[(size_t)pick[k] * V + v];
            worst = fmaxf(worst, fabsf(a - b) / (1.0f + fabsf(b)));
        }
        CHECK_MSG(worst <= 1e-5f,
                  "%s B=%d T=%d: the picked logits of position %d differ from the whole "
                  "logits' by %g",
                  ordo_pos_name(model.cfg.pos), B, T, pick[k], worst);
    }
    free(keep);
    free(in);
}

static void run_scheme(ordo_pos pos, const ordo_passkey *pk) {
    ordo_gpt_config c = {
        .V = 256, .C = 32, .L = 2, .NH = 4, .T_max = 256, .pos = pos, .ln_eps = 1e-5f};
    CHECK(ordo_gpt_init(&model, &c, 5) == ORDO_OK);
    ordo_rng r;
    ordo_rng_seed(&r, 9);
    for (size_t i = 0; i < model.params.total; i++) // logits far from uniform: a sharp argmax
        model.params.data[i] += (float)(0.2 * ordo_rng_normal(&r));
    ctx.grad_enabled = 0;
    check_pick(1, 40);
    check_pick(3, 57);
    check_pick(7, 128);
    // per cell: the predictions both ways at every answer position, and the eval's accuracy
    // against the whole logits' count
    for (int len = 100; len <= 240; len += 70)
        for (double depth = 0; depth <= 1; depth += 0.5) {
            int right, compared = 0, n = 25;
            CHECK(ordo_passkey_score(pk, len, depth, n, 11, ordo_eval_passkey_rows(&c, len),
                                     both_predict, &compared, &right) == ORDO_OK);
            CHECK(compared >= 2 * n); // the answer: " 7", two tokens
            double acc;
            CHECK(ordo_eval_passkey(&model, &ctx, pk, len, depth, n, 11, NULL, NULL, 0, &acc) ==
                  ORDO_OK);
            CHECK_MSG(acc * n == right, "%s len %d depth %g: %g of %d right, whole logits %d",
                      ordo_pos_name(pos), len, depth, acc * n, n, right);
        }
    ctx.grad_enabled = 1;
    ordo_gpt_free(&model);
}

int main(void) {
    // one thread: the forwards are tiny, and idle OpenMP workers spin on a loaded machine
    ordo_set_threads(1);
    ordo_ctx_init(&ctx);
    ordo_tokenizer *byte;
    CHECK(ordo_tokenizer_load(ORDO_TOK_BYTE, NULL, &byte) == ORDO_OK);
    ordo_passkey pk;
    CHECK(ordo_passkey_init(&pk, byte, 1) == ORDO_OK); // 1 digit: some keys are hit by chance
    run_scheme(ORDO_POS_LEARNED, &pk);
    run_scheme(ORDO_POS_ROPE, &pk);
    run_scheme(ORDO_POS_ALIBI, &pk);
    ordo_passkey_free(&pk);
    ordo_tokenizer_free(byte);
    ordo_ctx_free(&ctx);
    TEST_MAIN_END();
}
