// The MQAR task (data/mqar.h): the corpus is deterministic from the seed (another seed, other
// tokens); each example is the pairs, then slots, with exactly one query per key whose value
// follows it, and those values are the only targets; the queries sit early as the power law
// says (and uniformly with a = 1); the scoring gives an oracle 1.0 and a constant guess exactly
// the share of answers equal to it; sizes the layout cannot hold are refused.
#include <stdlib.h>
#include <string.h>

#include "data/answers.h"
#include "data/corpus.h"
#include "data/mqar.h"
#include "test.h"

static ordo_corpus make_corpus(uint64_t seed, int len, int pairs, double power) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_MQAR, &o);
    o.seed = seed, o.example_len = len, o.mqar_pairs = pairs, o.mqar_power = power;
    o.n_tokens = 20000;
    ordo_corpus c;
    CHECK(ordo_corpus_generate(ORDO_TASK_MQAR, &o, &c) == ORDO_OK);
    return c;
}

static void determinism(void) {
    ordo_corpus a = make_corpus(7, 64, 4, 0.01), b = make_corpus(7, 64, 4, 0.01),
                d = make_corpus(8, 64, 4, 0.01);
    CHECK(a.n == b.n && a.n >= 20000 && a.n % 64 == 0 && a.example_len == 64);
    CHECK(memcmp(a.tokens, b.tokens, a.n * sizeof *a.tokens) == 0);
    CHECK(memcmp(a.mask, b.mask, a.n) == 0);
    CHECK(a.n == d.n && memcmp(a.tokens, d.tokens, a.n * sizeof *a.tokens) != 0);
    CHECK(a.vocab_size == ORDO_MQAR_DEFAULT_VOCAB && strcmp(a.words[200], "200") == 0);
    ordo_corpus_free(&a), ordo_corpus_free(&b), ordo_corpus_free(&d);
}

// Every example against the layout; returns the mean slot of the queries.
static double layout(int len, int D, double power) {
    ordo_corpus c = make_corpus(11, len, D, power);
    int V = c.vocab_size, half = V / 2, space = (len - 2 * D) / 2;
    double slots = 0;
    long queries = 0;
    for (size_t e = 0; e < c.n / (size_t)len; e++) {
        const int32_t *x = c.tokens + e * (size_t)len;
        const uint8_t *m = c.mask + e * (size_t)len;
        int asked[64] = {0}, nmask = 0;
        for (int i = 0; i < D; i++) {
            CHECK(x[2 * i] >= 1 && x[2 * i] < half && x[2 * i + 1] >= half && x[2 * i + 1] < V);
            for (int j = 0; j < i; j++) CHECK(x[2 * j] != x[2 * i] && x[2 * j + 1] != x[2 * i + 1]);
            CHECK(!m[2 * i] && !m[2 * i + 1]);
        }
        for (int t = 2 * D; t < len; t++) {
            CHECK(x[t] >= 0 && x[t] < V);
            if (!m[t]) continue;
            nmask++;
            int off = t - 2 * D, key = -1;
            CHECK(off % 2 == 1); // the slot's second token
            for (int i = 0; i < D; i++)
                if (x[2 * i] == x[t - 1]) key = i;
            CHECK(key >= 0 && x[t] == x[2 * key + 1]); // a key, then its value
            if (key >= 0) asked[key]++;
            slots += off / 2, queries++;
        }
        CHECK(nmask == D);
        for (int i = 0; i < D; i++) CHECK(asked[i] == 1);
    }
    ordo_corpus_free(&c);
    (void)space;
    return slots / (double)queries;
}

// A test's example maker: MQAR's, counting the answers and those equal to GUESS.
#define GUESS 130
static long long n_answers, n_guess;
static ordo_status counting_example(const void *task, int len, double pairs, ordo_rng *r,
                                    int32_t *out, uint8_t *mask) {
    ordo_status s = ordo_mqar_example(task, len, pairs, r, out, mask);
    for (int t = 0; t < len && !s; t++)
        if (mask[t]) n_answers++, n_guess += out[t] == GUESS;
    return s;
}

// The oracle reads the next input, and for the last one looks its key up in the pairs; the
// constant predicts GUESS everywhere.
typedef struct predictor {
    int pairs, constant;
} predictor;
static ordo_status predict(void *p, const int32_t *in, int rows, int T, const int *from,
                           int32_t *pred) {
    (void)from; // every position is predicted
    const predictor *q = p;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T;
        for (int t = 0; t + 1 < T; t++) y[t] = x[t + 1];
        y[T - 1] = -1;
        for (int k = 0; k < q->pairs; k++)
            if (x[2 * k] == x[T - 1]) y[T - 1] = x[2 * k + 1];
        if (q->constant)
            for (int t = 0; t < T; t++) y[t] = GUESS;
    }
    return ORDO_OK;
}

static void scoring(void) {
    ordo_mqar mq = {ORDO_MQAR_DEFAULT_VOCAB, ORDO_MQAR_DEFAULT_POWER};
    long long right, answers, again, answers2;
    predictor oracle = {8, 0}, constant = {8, 1};
    CHECK(ordo_answers_score(ordo_mqar_example, &mq, 64, 8, 300, 5, 64, predict, &oracle, &right,
                             &answers) == ORDO_OK);
    CHECK_MSG(right == answers && answers == 300 * 8, "the oracle got %lld of %lld", right,
              answers);
    n_answers = n_guess = 0;
    CHECK(ordo_answers_score(counting_example, &mq, 64, 8, 300, 5, 7, predict, &constant, &right,
                             &answers) == ORDO_OK);
    CHECK_MSG(right == n_guess && answers == n_answers, "a constant got %lld, %lld answers are it",
              right, n_guess);
    CHECK_MSG(right >= 5 && right <= 45, "a constant got %lld of 2400 (chance about 19)", right);
    // the same examples whatever the chunk
    CHECK(ordo_answers_score(ordo_mqar_example, &mq, 64, 8, 300, 5, 1, predict, &constant, &again,
                             &answers2) == ORDO_OK);
    CHECK(again == right && answers2 == answers);
}

static void bad_sizes(void) {
    ordo_mqar mq = {256, 0.01};
    int32_t out[64];
    uint8_t mask[64];
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    CHECK(ordo_mqar_example(&mq, 64, 17, &r, out, mask) == ORDO_ERR_ARG); // 4 x 17 > 64
    CHECK(strstr(ordo_error_message(), "needs 4 x pairs = 68"));
    CHECK(ordo_mqar_example(&mq, 64, 0, &r, out, mask) == ORDO_ERR_ARG);
    ordo_mqar small = {8, 0.01}; // keys 1..3
    CHECK(ordo_mqar_example(&small, 64, 4, &r, out, mask) == ORDO_ERR_ARG);
    ordo_mqar flat = {256, 0};
    CHECK(ordo_mqar_example(&flat, 64, 4, &r, out, mask) == ORDO_ERR_ARG);
    CHECK(ordo_mqar_example(&mq, 64, 16, &r, out, mask) == ORDO_OK); // exactly full
    ordo_task t;
    CHECK(ordo_task_parse("mqar", &t) == ORDO_OK && t == ORDO_TASK_MQAR);
}

int main(void) {
    determinism();
    // 28 slots: a uniform draw sits at 13.5 on average, the power law near the pairs
    double power = layout(64, 4, 0.01), uniform = layout(64, 4, 1.0);
    CHECK_MSG(power < 8 && uniform > 11 && uniform < 16,
              "mean query slot %g (a = 0.01), %g (a = 1)", power, uniform);
    layout(64, 16, 0.01); // every slot a query
    layout(65, 3, 0.01);  // an odd length: a trailing noise token
    scoring();
    bad_sizes();
    TEST_MAIN_END();
}
