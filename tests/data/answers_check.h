// The checks that every answers task (MQAR, flip-flop, selective copying, counting) owes the
// issue that asked for them, written once: the corpus is the same for the same seed and not
// for another, an oracle scores every answer, and a constant guess scores exactly the answers
// equal to it, with the same examples whatever the chunk. Each task's test brings its options,
// its generator and its oracle (an ordo_answers_predict that reads the example).
#ifndef ORDO_TEST_ANSWERS_CHECK_H
#define ORDO_TEST_ANSWERS_CHECK_H
#include <string.h>

#include "data/answers.h"
#include "data/corpus.h"
#include "test.h"

// The corpus of task t with options o, generated twice with o's seed and once with the next.
static void check_corpus_determinism(ordo_task t, ordo_corpus_opts o) {
    ordo_corpus a, b, d;
    CHECK(ordo_corpus_generate(t, &o, &a) == ORDO_OK);
    CHECK(ordo_corpus_generate(t, &o, &b) == ORDO_OK);
    o.seed++;
    CHECK(ordo_corpus_generate(t, &o, &d) == ORDO_OK);
    CHECK(a.n == b.n && a.n >= o.n_tokens && a.n % (size_t)o.example_len == 0);
    CHECK(a.example_len == o.example_len);
    CHECK(memcmp(a.tokens, b.tokens, a.n * sizeof *a.tokens) == 0);
    CHECK(memcmp(a.mask, b.mask, a.n) == 0);
    CHECK(a.n == d.n && memcmp(a.tokens, d.tokens, a.n * sizeof *a.tokens) != 0);
    ordo_corpus_free(&a), ordo_corpus_free(&b), ordo_corpus_free(&d);
}

// The generator under test and the guess, seen by the two callbacks below (ordo_answers_score
// takes function pointers, not closures).
static ordo_answers_example check_make;
static int32_t check_guess;
static long long check_answers, check_equal;

// The generator, counting its answer tokens and those equal to the guess.
static ordo_status counting_example(const void *task, int len, double param, ordo_rng *r,
                                    int32_t *out, uint8_t *mask) {
    ordo_status s = check_make(task, len, param, r, out, mask);
    for (int t = 0; t < len && !s; t++)
        if (mask[t]) check_answers++, check_equal += out[t] == check_guess;
    return s;
}

static ordo_status constant_predict(void *p, const int32_t *in, int rows, int T, const int *from,
                                    int32_t *pred) {
    (void)p, (void)in, (void)from;
    for (size_t i = 0; i < (size_t)rows * (size_t)T; i++) pred[i] = check_guess;
    return ORDO_OK;
}

// Scores `examples` examples of (len, param) with the oracle (chunk 64) and with a constant
// guess (chunks 7 and 1). Returns the number of answers; *constant_right gets the guess's
// right answers, for the task's own bounds on chance.
static long long check_answers_scoring(ordo_answers_example make, const void *task, int len,
                                       double param, int examples, ordo_answers_predict oracle,
                                       void *oracle_ctx, int32_t guess, long long *constant_right) {
    long long right, answers, again, answers2;
    CHECK(ordo_answers_score(make, task, len, param, examples, 5, 64, oracle, oracle_ctx, &right,
                             &answers) == ORDO_OK);
    CHECK_MSG(right == answers && answers >= examples, "len %d, %g: the oracle got %lld of %lld",
              len, param, right, answers);
    check_make = make, check_guess = guess, check_answers = check_equal = 0;
    CHECK(ordo_answers_score(counting_example, task, len, param, examples, 5, 7, constant_predict,
                             NULL, &right, &answers2) == ORDO_OK);
    CHECK_MSG(right == check_equal && answers2 == check_answers && answers2 == answers,
              "len %d, %g: a constant got %lld, %lld of %lld answers are it", len, param, right,
              check_equal, answers2);
    CHECK(ordo_answers_score(make, task, len, param, examples, 5, 1, constant_predict, NULL, &again,
                             &answers2) == ORDO_OK);
    CHECK_MSG(again == right && answers2 == answers, "len %d, %g: chunk 1 got %lld, chunk 7 %lld",
              len, param, again, right);
    *constant_right = right;
    return answers;
}

#endif
