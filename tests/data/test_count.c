// Counting (data/count.h): the corpus is deterministic from the seed; every example is
// statements ("x = 0 ;", "x ++;", "pass;") that fill it exactly, then "print x v", where x
// was set and v is what an interpreter of the statements gives, the one target; the
// statements come in about the generator's weights 1 : 7 : 50; an oracle that interprets them
// scores 1.0 and a constant guess exactly the share of answers equal to it.
#include <string.h>

#include "answers_check.h"
#include "data/count.h"

static ordo_corpus_opts opts_of(uint64_t seed, int len, int vars) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_COUNT, &o);
    o.seed = seed, o.example_len = len, o.count_vars = vars, o.n_tokens = 60000;
    return o;
}

// Interprets x[0..n): the value of variable v after the statements, -1 when never set, or
// -2 when the statements do not parse. Counts the statements of each kind into kinds[3], the
// passes only once a variable is set (before that an increment cannot be drawn).
static int interpret(const int32_t *x, int n, int v, long *kinds) {
    int val[ORDO_COUNT_MAX_VARS], any = 0;
    for (int i = 0; i < ORDO_COUNT_MAX_VARS; i++) val[i] = -1;
    for (int t = 0; t < n;) {
        if (x[t] == ORDO_COUNT_PASS) {
            kinds[2] += any, t++;
            continue;
        }
        int var = x[t] - ORDO_COUNT_VAR0;
        if (var < 0 || var >= ORDO_COUNT_MAX_VARS || t + 1 >= n) return -2;
        if (x[t + 1] == ORDO_COUNT_INC) {
            if (val[var] < 0) return -2; // an increment of a variable never set
            val[var]++, kinds[1]++, t += 2;
        } else if (t + 3 < n && x[t + 1] == ORDO_COUNT_EQ && x[t + 2] == ORDO_COUNT_VAL0 &&
                   x[t + 3] == ORDO_COUNT_SEMI) {
            val[var] = 0, kinds[0]++, t += 4, any = 1;
        } else {
            return -2;
        }
    }
    return val[v];
}

static void layout(int len, int vars) {
    ordo_corpus_opts o = opts_of(3, len, vars);
    check_corpus_determinism(ORDO_TASK_COUNT, o);
    ordo_corpus a;
    CHECK(ordo_corpus_generate(ORDO_TASK_COUNT, &o, &a) == ORDO_OK);
    CHECK(a.vocab_size == ORDO_COUNT_VOCAB);
    long kinds[3] = {0}, bad = 0, hist[ORDO_COUNT_MAX_VAL + 1] = {0},
         used[ORDO_COUNT_MAX_VARS] = {0};
    size_t ne = a.n / (size_t)len;
    for (size_t e = 0; e < ne; e++) {
        const int32_t *x = a.tokens + e * (size_t)len;
        const uint8_t *m = a.mask + e * (size_t)len;
        int body = len - 3, v = x[body + 1] - ORDO_COUNT_VAR0;
        bad += x[body] != ORDO_COUNT_PRINT || v < 0 || v >= vars;
        if (v < 0 || v >= vars) continue;
        used[v]++;
        int want = interpret(x, body, v, kinds);
        bad += want < 0 || x[body + 2] != ORDO_COUNT_VAL0 + want;
        if (want >= 0) hist[want]++;
        for (int t = 0; t < len; t++) bad += m[t] != (t == body + 2);
    }
    CHECK_MSG(bad == 0, "len %d, %d vars: %ld bad examples", len, vars, bad);
    for (int v = 0; v < vars; v++) CHECK(used[v] > 0);
    // pass : increment 50 : 7 once a variable is set, more passes where increments past 10
    // are drawn again (long examples: 9.0 at 512 tokens)
    double ratio = (double)kinds[2] / (double)kinds[1];
    CHECK_MSG(ratio > 50.0 / 7 * 0.9 && ratio < 50.0 / 7 * (len <= 64 ? 1.1 : 1.35),
              "len %d, %d vars: pass/increment %g", len, vars, ratio);
    CHECK(hist[0] > 0 && hist[3] > 0);
    ordo_corpus_free(&a);
}

// The oracle interprets the statements.
static ordo_status oracle(void *p, const int32_t *in, int rows, int T, const int *from,
                          int32_t *pred) {
    (void)p, (void)from;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T;
        long kinds[3] = {0};
        for (int t = 0; t < T; t++) y[t] = -1;
        // inputs end "print x": the statements are x[0 .. T-2)
        y[T - 1] = ORDO_COUNT_VAL0 + interpret(x, T - 2, x[T - 1] - ORDO_COUNT_VAR0, kinds);
    }
    return ORDO_OK;
}

static void scoring(void) {
    long long right, answers;
    for (int len = 16; len <= 256; len *= 4) {
        answers = check_answers_scoring(ordo_count_example, NULL, len, 3, 300, oracle, NULL,
                                        ORDO_COUNT_VAL0 + 1, &right);
        CHECK(answers == 300);
        CHECK_MSG(right > 0 && right < 300, "len %d: a constant 1 got %lld of 300", len, right);
    }
}

static void bad_sizes(void) {
    int32_t out[64];
    uint8_t mask[64];
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    CHECK(ordo_count_example(NULL, 64, 0, &r, out, mask) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "--count-vars 0"));
    CHECK(ordo_count_example(NULL, 7, 1, &r, out, mask) == ORDO_ERR_ARG);
    // a set and a pass (an increment does not fit after the set), then "print a 0"
    CHECK(ordo_count_example(NULL, 8, 1, &r, out, mask) == ORDO_OK);
    CHECK(out[5] == ORDO_COUNT_PRINT && out[6] == ORDO_COUNT_VAR0 && out[7] == ORDO_COUNT_VAL0);
    ordo_task t;
    CHECK(ordo_task_parse("count", &t) == ORDO_OK && t == ORDO_TASK_COUNT);
}

int main(void) {
    layout(64, 3);
    layout(256, 1);
    layout(512, 5);
    scoring();
    bad_sizes();
    TEST_MAIN_END();
}
