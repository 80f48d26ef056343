// Interpolated Witten-Bell (data/ngram.h) on a stream small enough to work out by hand, and
// the levels of eval's windows (eval/ngram_levels.h) on it.
#include <math.h>
#include <string.h>

#include "data/ngram.h"
#include "eval/ngram_levels.h"
#include "test.h"

// The training stream a b a b a c, ids 0 1 0 1 0 2, V = 3.
//   unigram: c(0) = 3, c(1) = 2, c(2) = 1, N = 6, D = 3:
//     p1(w) = (c(w) + 3 * 1/3) / (6 + 3):            p1(0) = 4/9, p1(1) = 3/9, p1(2) = 2/9
//   bigram contexts: 0 -> {1: 2, 2: 1} (c = 3, D = 2); 1 -> {0: 2} (c = 2, D = 1); 2 is never
//   followed (the last token), so p2(w | 2) = p1(w):
//     p2(1|0) = (2 + 2 * 3/9) / 5 = 8/15     p2(2|0) = (1 + 2 * 2/9) / 5 = 13/45
//     p2(0|0) = (0 + 2 * 4/9) / 5 = 8/45     (8/15 + 13/45 + 8/45 = 1)
//     p2(0|1) = (2 + 4/9) / 3 = 22/27        p2(1|1) = (3/9) / 3 = 3/27    p2(2|1) = 2/27
//   trigram contexts: (0 1) -> {0: 2} (c = 2, D = 1); (1 0) -> {1: 1, 2: 1} (c = 2, D = 2):
//     p3(0|0 1) = (2 + 22/27) / 3 = 76/81    p3(2|1 0) = (1 + 2 * 13/45) / 4 = 71/180
static const int32_t train[] = {0, 1, 0, 1, 0, 2};

static void check_probs(const ordo_ngram *m, const int32_t *seq, int k, double p1, double p2,
                        double p3) {
    double p[3];
    ordo_ngram_probs(m, seq, k, p);
    CHECK_CLOSE(p[0], p1, 1e-15, 1e-13);
    CHECK_CLOSE(p[1], p2, 1e-15, 1e-13);
    CHECK_CLOSE(p[2], p3, 1e-15, 1e-13);
}

int main(void) {
    ordo_ngram m;
    CHECK(ordo_ngram_fit(&m, train, 6, 3, 3) == ORDO_OK);
    CHECK(m.total0 == 6 && m.distinct0 == 3);
    // each seq ends with the target; k tokens of context before it
    check_probs(&m, (int32_t[]){1}, 0, 3. / 9, 3. / 9, 3. / 9);      // no context: all p1
    check_probs(&m, (int32_t[]){0, 1}, 1, 3. / 9, 8. / 15, 8. / 15); // one token: p3 = p2
    check_probs(&m, (int32_t[]){0, 0}, 1, 4. / 9, 8. / 45, 8. / 45);
    check_probs(&m, (int32_t[]){1, 2}, 1, 2. / 9, 2. / 27, 2. / 27);
    check_probs(&m, (int32_t[]){2, 0}, 1, 4. / 9, 4. / 9, 4. / 9); // 2 is never followed
    check_probs(&m, (int32_t[]){0, 1, 0}, 2, 4. / 9, 22. / 27, 76. / 81);
    check_probs(&m, (int32_t[]){1, 0, 2}, 2, 2. / 9, 13. / 45, 71. / 180);
    check_probs(&m, (int32_t[]){2, 1, 0}, 2, 4. / 9, 22. / 27, 22. / 27); // (2 1) never seen
    check_probs(&m, (int32_t[]){7, 1, 0}, 2, 4. / 9, 22. / 27, 22. / 27); // nor an id past V
    // every distribution sums to 1, seen context or not
    int32_t ctx[][3] = {{0, 1, 0}, {1, 0, 0}, {2, 2, 0}, {0, 2, 0}};
    for (int c = 0; c < 4; c++) {
        double sum[3] = {0}, p[3];
        for (int w = 0; w < 3; w++) {
            int32_t seq[3] = {ctx[c][0], ctx[c][1], w};
            ordo_ngram_probs(&m, seq, 2, p);
            for (int j = 0; j < 3; j++) sum[j] += p[j];
        }
        for (int j = 0; j < 3; j++) CHECK_CLOSE(sum[j], 1.0, 1e-14, 0);
    }

    // eval's windows over val 0 1 2 at T = 2, nonoverlap: one window (range(0, 1, 2)), targets
    // 1 (after 0) and 2 (after 0 1, but the order-3 model at position 1 has 2 tokens: 0 1)
    ordo_ngram_level l;
    const int32_t val[] = {0, 1, 2};
    CHECK(ordo_ngram_level_score(&m, val, NULL, 3, 2, ORDO_EVAL_NONOVERLAP, 0, &l) == ORDO_OK);
    CHECK(l.targets == 2 && l.windows == 1 && l.stride == 2);
    // p3(2 | 0 1): context (0 1) -> {0} only: (0 + 1 * p2(2|1)) / 3 = 2/81
    CHECK_CLOSE(l.loss[0], -(log(3. / 9) + log(2. / 9)) / 2, 1e-14, 0);
    CHECK_CLOSE(l.loss[1], -(log(8. / 15) + log(2. / 27)) / 2, 1e-14, 0);
    CHECK_CLOSE(l.loss[2], -(log(8. / 15) + log(2. / 81)) / 2, 1e-14, 0);
    // T = 1 sliding: each target sees one token, so order 3 is the bigram
    CHECK(ordo_ngram_level_score(&m, val, NULL, 3, 1, ORDO_EVAL_SLIDING, 1, &l) == ORDO_OK);
    CHECK(l.targets == 2 && l.windows == 2);
    CHECK_CLOSE(l.loss[2], l.loss[1], 0, 0);
    // a masked target is not scored; a scored one past V is an error naming it
    const int32_t tg[] = {0, -1, 2};
    CHECK(ordo_ngram_level_score(&m, val, tg, 3, 2, ORDO_EVAL_NONOVERLAP, 0, &l) == ORDO_OK);
    CHECK(l.targets == 1);
    CHECK_CLOSE(l.loss[2], -log(2. / 81), 1e-14, 0);
    const int32_t bad[] = {0, 1, 5};
    CHECK(ordo_ngram_level_score(&m, bad, NULL, 3, 2, ORDO_EVAL_NONOVERLAP, 0, &l) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "token 2") && strstr(ordo_error_message(), "id 5"));
    CHECK(ordo_ngram_level_score(&m, val, NULL, 3, 3, ORDO_EVAL_SLIDING, 1, &l) == ORDO_ERR_ARG);
    ordo_ngram_free(&m);

    // what the fit refuses
    CHECK(ordo_ngram_fit(&m, train, 6, 3, 0) == ORDO_ERR_ARG);
    CHECK(ordo_ngram_fit(&m, train, 6, 3, ORDO_NGRAM_MAX_ORDER + 1) == ORDO_ERR_ARG);
    CHECK(ordo_ngram_fit(&m, train, 0, 3, 2) == ORDO_ERR_ARG);
    CHECK(ordo_ngram_fit(&m, train, 6, 2, 2) == ORDO_ERR_ARG); // id 2 past V = 2
    CHECK(strstr(ordo_error_message(), "token 5 is id 2"));
    ordo_ngram_free(&m);

    // a table that grows many times keeps every count: 5000 distinct bigrams of a long stream
    enum { LONG = 20001 };
    int32_t *s = malloc(LONG * sizeof *s);
    for (int i = 0; i < LONG; i++) s[i] = (i * 7919) % 5003;
    CHECK(ordo_ngram_fit(&m, s, LONG, 5003, 2) == ORDO_OK);
    CHECK(m.t[1].used == 5003 && m.distinct0 == 5003);
    double p[2];
    ordo_ngram_probs(&m, s + 100, 1, p); // s[100] -> s[101] seen 4 times, the only follower
    CHECK_CLOSE(p[1], (4 + p[0]) / 5.0, 1e-15, 1e-12);
    free(s);
    ordo_ngram_free(&m);
    TEST_MAIN_END();
}
