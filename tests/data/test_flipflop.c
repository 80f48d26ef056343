// The flip-flop task (data/flipflop.h): the corpus is deterministic from the seed (another
// seed, other tokens); each example is instruction-bit pairs opening with w and closing with
// r, the ignores at the rate p_i asks for, and the targets are exactly the bits after r, each
// the last bit written; the scoring gives an oracle 1.0 and a constant guess exactly the share
// of reads equal to it (about a half); odd lengths and p_i = 1 are refused.
#include <string.h>

#include "data/answers.h"
#include "data/corpus.h"
#include "data/flipflop.h"
#include "test.h"

static ordo_corpus make_corpus(uint64_t seed, int len, double p) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_FLIPFLOP, &o);
    o.seed = seed, o.example_len = len, o.ff_ignore = p, o.n_tokens = 40000;
    ordo_corpus c;
    CHECK(ordo_corpus_generate(ORDO_TASK_FLIPFLOP, &o, &c) == ORDO_OK);
    return c;
}

static void determinism(void) {
    ordo_corpus a = make_corpus(3, 64, 0.8), b = make_corpus(3, 64, 0.8),
                d = make_corpus(4, 64, 0.8);
    CHECK(a.n == b.n && a.n % 64 == 0 && a.vocab_size == ORDO_FF_VOCAB);
    CHECK(memcmp(a.tokens, b.tokens, a.n * sizeof *a.tokens) == 0 &&
          memcmp(a.mask, b.mask, a.n) == 0);
    CHECK(a.n == d.n && memcmp(a.tokens, d.tokens, a.n * sizeof *a.tokens) != 0);
    CHECK(strcmp(a.words[ORDO_FF_W], "w") == 0 && strcmp(a.words[ORDO_FF_1], "1") == 0);
    ordo_corpus_free(&a), ordo_corpus_free(&b), ordo_corpus_free(&d);
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

static long long n_reads, n_zero;
static ordo_status counting_example(const void *task, int len, double p, ordo_rng *r, int32_t *out,
                                    uint8_t *mask) {
    ordo_status s = ordo_flipflop_example(task, len, p, r, out, mask);
    for (int t = 0; t < len && !s; t++)
        if (mask[t]) n_reads++, n_zero += out[t] == ORDO_FF_0;
    return s;
}

// The oracle reads the next input, and for the last one the last bit written; the constant
// says 0 everywhere.
static ordo_status predict(void *p, const int32_t *in, int rows, int T, const int *from,
                           int32_t *pred) {
    (void)from; // every position is predicted
    int constant = *(const int *)p;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T, bit = -1;
        for (int t = 0; t + 1 < T; t++) {
            y[t] = x[t + 1];
            if (x[t] == ORDO_FF_W) bit = x[t + 1];
        }
        y[T - 1] = bit;
        if (constant)
            for (int t = 0; t < T; t++) y[t] = ORDO_FF_0;
    }
    return ORDO_OK;
}

static void scoring(double p) {
    long long right, reads;
    int oracle = 0, constant = 1;
    CHECK(ordo_answers_score(ordo_flipflop_example, NULL, 128, p, 200, 5, 64, predict, &oracle,
                             &right, &reads) == ORDO_OK);
    CHECK_MSG(right == reads && reads >= 200, "the oracle got %lld of %lld", right, reads);
    n_reads = n_zero = 0;
    CHECK(ordo_answers_score(counting_example, NULL, 128, p, 200, 5, 9, predict, &constant, &right,
                             &reads) == ORDO_OK);
    CHECK_MSG(right == n_zero && reads == n_reads, "a constant 0 got %lld, %lld reads are 0", right,
              n_zero);
    CHECK_MSG(right > 0.4 * reads && right < 0.6 * reads, "a constant 0 got %lld of %lld", right,
              reads);
}

int main(void) {
    determinism();
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
