// Built-in corpora: deterministic per seed, and the properties they claim.
//  order: every order-dependent token is the previous sentence's object, and the bag of
//         words of the story before it holds two nouns exactly once (it and the story's
//         first subject), and the reversed chain has the same bag but the other answer, so
//         no bag-of-words model can be right on both; a rule that sees order always is.
//  copy/reverse: the answer is the input (reversed), only answer and <eos> are targets,
//         examples are padded to 2*max_len+3, n covers min_len..max_len.
#include <string.h>

#include "data/corpus.h"
#include "test.h"

static void order_properties(void) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_ORDER, &o);
    o.n_tokens = 50000;
    ordo_corpus a, b, d;
    CHECK(ordo_corpus_generate(ORDO_TASK_ORDER, &o, &a) == ORDO_OK);
    CHECK(ordo_corpus_generate(ORDO_TASK_ORDER, &o, &b) == ORDO_OK);
    CHECK(a.n == b.n && memcmp(a.tokens, b.tokens, a.n * sizeof *a.tokens) == 0);
    o.seed = 99;
    CHECK(ordo_corpus_generate(ORDO_TASK_ORDER, &o, &d) == ORDO_OK);
    CHECK(d.n != a.n || memcmp(a.tokens, d.tokens, a.n * sizeof *a.tokens) != 0);
    CHECK(a.n >= 50000 && a.vocab_size == 16);
    const int DOT = 0, NOUN0 = 1, NNOUN = 8, IV0 = 13;
    size_t ndep = 0, bag_ambiguous = 0, rule_right = 0;
    size_t s0 = 0; // start of the current story
    for (size_t k = 0; k < a.n; k++) {
        CHECK(a.mask[k] == 1);
        if (a.dep[k]) {
            ndep++;
            int answer = a.tokens[k];
            // the rule that sees order: the object just before the last "."
            CHECK(k >= 2 && a.tokens[k - 1] == DOT);
            rule_right += a.tokens[k - 2] == answer;
            int count[16] = {0};
            for (size_t j = s0; j < k; j++) count[a.tokens[j]]++;
            int singles = 0;
            for (int w = NOUN0; w < NOUN0 + NNOUN; w++) singles += count[w] == 1;
            bag_ambiguous += singles == 2 && count[answer] == 1 && a.tokens[s0] != answer;
        }
        // a story ends with an intransitive sentence: "N IV ."
        if (a.tokens[k] == DOT && k >= 1 && a.tokens[k - 1] >= IV0) s0 = k + 1;
    }
    CHECK(ndep > 3000);
    CHECK_MSG(rule_right == ndep, "%zu of %zu", rule_right, ndep);
    CHECK_MSG(bag_ambiguous == ndep, "%zu of %zu", bag_ambiguous, ndep);
    char *text;
    CHECK(ordo_corpus_decode(&a, a.tokens, 10, &text) == ORDO_OK);
    CHECK(strchr(text, '.') != NULL);
    free(text);
    int32_t badid = 16;
    CHECK(ordo_corpus_decode(&a, &badid, 1, &text) == ORDO_ERR_ARG);
    ordo_corpus_free(&a);
    ordo_corpus_free(&b);
    ordo_corpus_free(&d);
}

static void seq_properties(ordo_task t) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(t, &o);
    o.n_tokens = 20000;
    o.min_len = 2;
    o.max_len = 9;
    o.alphabet = 7;
    ordo_corpus c, c2;
    CHECK(ordo_corpus_generate(t, &o, &c) == ORDO_OK);
    CHECK(ordo_corpus_generate(t, &o, &c2) == ORDO_OK);
    CHECK(c.n == c2.n && memcmp(c.tokens, c2.tokens, c.n * sizeof *c.tokens) == 0);
    int L = 2 * 9 + 3;
    CHECK(c.example_len == L && c.n % (size_t)L == 0 && c.vocab_size == ORDO_SEQ_FIRST + 7);
    int seen[10] = {0}, bad = 0;
    for (size_t e = 0; e < c.n / (size_t)L; e++) {
        const int32_t *x = c.tokens + e * (size_t)L;
        const uint8_t *m = c.mask + e * (size_t)L;
        int n = 0;
        while (x[1 + n] != ORDO_SEQ_SEP) n++;
        if (x[0] != ORDO_SEQ_BOS || n < 2 || n > 9) {
            bad++;
            continue;
        }
        seen[n] = 1;
        for (int i = 0; i < n; i++) {
            int want = t == ORDO_TASK_REVERSE ? x[n - i] : x[1 + i];
            bad +=
                x[n + 2 + i] != want || x[1 + i] < ORDO_SEQ_FIRST || x[1 + i] >= ORDO_SEQ_FIRST + 7;
        }
        bad += x[2 * n + 2] != ORDO_SEQ_EOS;
        for (int i = 0; i < L; i++) bad += m[i] != (i >= n + 2 && i <= 2 * n + 2);
        for (int i = 2 * n + 3; i < L; i++) bad += x[i] != ORDO_SEQ_PAD;
    }
    CHECK_MSG(bad == 0, "%s: %d bad tokens", ordo_task_name(t), bad);
    for (int n = 2; n <= 9; n++) CHECK(seen[n]);
    // one example past the training range, for length generalisation
    int32_t ex[2 * 20 + 3];
    uint8_t mk[2 * 20 + 3];
    ordo_rng r;
    ordo_rng_seed(&r, 5);
    CHECK(ordo_seq_example(t, 7, 20, &r, ex, mk) == 43 && ex[21] == ORDO_SEQ_SEP);
    ordo_corpus_free(&c);
    ordo_corpus_free(&c2);
    o.alphabet = 40;
    CHECK(ordo_corpus_generate(t, &o, &c) == ORDO_ERR_ARG);
}

int main(void) {
    order_properties();
    seq_properties(ORDO_TASK_COPY);
    seq_properties(ORDO_TASK_REVERSE);
    ordo_task t;
    CHECK(ordo_task_parse("reverse", &t) == ORDO_OK && t == ORDO_TASK_REVERSE);
    CHECK(ordo_task_parse("sort", &t) == ORDO_ERR_ARG && strstr(ordo_error_message(), "sort"));
    TEST_MAIN_END();
}
