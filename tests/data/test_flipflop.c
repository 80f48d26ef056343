// The flip-flop task (data/flipflop.h): the corpus is deterministic from the seed (another
// seed, other tokens); each example is instruction-bit pairs opening with w and closing with
// r, the ignores at the rate p_i asks for, and the targets are exactly the bits after r, each
// the last bit written; the scoring gives an oracle 1.0 and a constant guess exactly the share
// of reads equal to it (about a half); odd lengths and p_i = 1 are refused.
#include <string.h>

#include "answers_check.h"
#include "data/flipflop.h"

static ordo_corpus_opts opts_of(uint64_t seed, int len, double p) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_FLIPFLOP, &o);
    o.seed = seed, o.example_len = len, o.ff_ignore = p, o.n_tokens = 40000;
    return o;
}

static ordo_corpus make_corpus(uint64_t seed, int len, double p) {
    ordo_corpus_opts o = opts_of(seed, len, p);
    ordo_corpus c;
    CHECK(ordo_corpus_generate(ORDO_TASK_FLIPFLOP, &o, &c) == ORDO_OK);
    CHECK(c.vocab_size == ORDO_FF_VOCAB && strcmp(c.words[ORDO_FF_W], "w") == 0 &&
          strcmp(c.words[ORDO_FF_1], "1") == 0);
    return c;
}

// Every example against the layout; returns the share of ignores among the middle instructions.
static double layout(int len, double p) {
    ordo_corpus c = make_corpus(9, len, p);
    long ignores = 0, middle = 0;
    for (size_t e = 0; e < c.n / (size_t)len; e++) {
        const int32_t *x = c.tokens + e * (size_t)len;
        const uint8_t *m = c.mask + e * (size_t)len;
        CHECK(x[0] == ORDO_FF_W && x[len - 2] == ORDO_FF_R);
        int bit = -1;
        for (int t = 0; t < len; t += 2) {
            int op = x[t], b = x[t + 1];
            CHECK(op == ORDO_FF_W || op == ORDO_FF_R || op == ORDO_FF_I);
            CHECK(b == ORDO_FF_0 || b == ORDO_FF_1);
            CHECK(!m[t] && m[t + 1] == (op == ORDO_FF_R));
            if (op == ORDO_FF_R) CHECK(b == bit);
            if (op == ORDO_FF_W) bit = b;
            if (t > 0 && t < len - 2) ignores += op == ORDO_FF_I, middle++;
        }
    }
    ordo_corpus_free(&c);
    return (double)ignores / (double)middle;
}

// The oracle reads the next input, and for the last one the last bit written.
static ordo_status oracle(void *p, const int32_t *in, int rows, int T, const int *from,
                          int32_t *pred) {
    (void)p, (void)from;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T, bit = -1;
        for (int t = 0; t + 1 < T; t++) {
            y[t] = x[t + 1];
            if (x[t] == ORDO_FF_W) bit = x[t + 1];
        }
        y[T - 1] = bit;
    }
    return ORDO_OK;
}

static void scoring(double p) {
    long long zero, reads = check_answers_scoring(ordo_flipflop_example, NULL, 128, p, 200, oracle,
                                                  NULL, ORDO_FF_0, &zero);
    CHECK_MSG(zero > 0.4 * reads && zero < 0.6 * reads, "a constant 0 got %lld of %lld", zero,
              reads);
}

int main(void) {
    check_corpus_determinism(ORDO_TASK_FLIPFLOP, opts_of(3, 64, 0.8));
    double dflt = layout(64, 0.8), sparse = layout(512, 0.98), dense = layout(16, 0.1);
    CHECK_MSG(dflt > 0.78 && dflt < 0.82, "ignores %g at p_i 0.8", dflt);
    CHECK_MSG(sparse > 0.97 && sparse < 0.99, "ignores %g at p_i 0.98", sparse);
    CHECK_MSG(dense > 0.07 && dense < 0.13, "ignores %g at p_i 0.1", dense);
    scoring(0.8);
    scoring(0.1);
    int32_t out[8];
    uint8_t mask[8];
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    CHECK(ordo_flipflop_example(NULL, 7, 0.8, &r, out, mask) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "even length"));
    CHECK(ordo_flipflop_example(NULL, 8, 1.0, &r, out, mask) == ORDO_ERR_ARG);
    CHECK(ordo_flipflop_example(NULL, 4, 0.0, &r, out, mask) == ORDO_OK && out[0] == ORDO_FF_W &&
          out[2] == ORDO_FF_R && out[3] == out[1] && mask[3] && !mask[1]);
    ordo_task t;
    CHECK(ordo_task_parse("flipflop", &t) == ORDO_OK && t == ORDO_TASK_FLIPFLOP);
    TEST_MAIN_END();
}
