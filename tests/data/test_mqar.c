// The MQAR task (data/mqar.h): the corpus is deterministic from the seed (another seed, other
// tokens); each example is the pairs, then slots, with exactly one query per key whose value
// follows it, and those values are the only targets; the queries sit early as the power law
// says (and uniformly with a = 1); the scoring gives an oracle 1.0 and a constant guess exactly
// the share of answers equal to it; sizes the layout cannot hold are refused.
#include <stdlib.h>
#include <string.h>

#include "answers_check.h"
#include "data/mqar.h"

static ordo_corpus_opts opts_of(uint64_t seed, int len, int pairs, double power) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_MQAR, &o);
    o.seed = seed, o.example_len = len, o.mqar_pairs = pairs, o.mqar_power = power;
    o.n_tokens = 20000;
    return o;
}

static ordo_corpus make_corpus(uint64_t seed, int len, int pairs, double power) {
    ordo_corpus_opts o = opts_of(seed, len, pairs, power);
    ordo_corpus c;
    CHECK(ordo_corpus_generate(ORDO_TASK_MQAR, &o, &c) == ORDO_OK);
    CHECK(c.vocab_size == ORDO_MQAR_DEFAULT_VOCAB && strcmp(c.words[200], "200") == 0);
    return c;
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

// The oracle looks the last input's key up in the pairs (the earlier positions are not read).
static ordo_status oracle(void *p, const int32_t *in, int rows, int T, const int *from,
                          int32_t *pred) {
    (void)from;
    int pairs = *(const int *)p;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T;
        for (int t = 0; t + 1 < T; t++) y[t] = x[t + 1];
        y[T - 1] = -1;
        for (int k = 0; k < pairs; k++)
            if (x[2 * k] == x[T - 1]) y[T - 1] = x[2 * k + 1];
    }
    return ORDO_OK;
}

static void scoring(void) {
    ordo_mqar mq = {ORDO_MQAR_DEFAULT_VOCAB, ORDO_MQAR_DEFAULT_POWER};
    int pairs = 8;
    long long right, answers = check_answers_scoring(ordo_mqar_example, &mq, 64, 8, 300, oracle,
                                                     &pairs, 130, &right);
    CHECK(answers == 300 * 8);
    CHECK_MSG(right >= 5 && right <= 45, "a constant got %lld of 2400 (chance about 19)", right);
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
    check_corpus_determinism(ORDO_TASK_MQAR, opts_of(7, 64, 4, 0.01));
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
