// Built-in corpora: deterministic per seed, and the properties they claim.
//  order: every order-dependent token is the previous sentence's object, and the bag of
//         words of the story before it holds two nouns exactly once (it and the story's
//         first subject), and the reversed chain has the same bag but the other answer, so
//         no bag-of-words model can be right on both; a rule that sees order always is.
//  copy/reverse: the answer is the input (reversed), only answer and <eos> are targets,
//         examples are padded to 2*max_len+3, n covers min_len..max_len.
//  add:   the answer is the sum of the two numbers (each read least significant digit first,
//         checked by long addition in 64-bit integers), only it and <eos> are targets.
//  --pack none: each example starts a window of example_len tokens, the rest <pad>.
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

// The value of n digits (ids) read least significant first.
static unsigned long long number(const int32_t *d, int n) {
    unsigned long long v = 0;
    for (int i = n - 1; i >= 0; i--) v = v * 10 + (unsigned long long)(d[i] - ORDO_SEQ_FIRST);
    return v;
}

static void add_properties(void) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_ADD, &o);
    o.n_tokens = 30000;
    o.min_len = 1;
    o.max_len = 15; // sums below 10^16: exact in 64 bits
    ordo_corpus c;
    CHECK(ordo_corpus_generate(ORDO_TASK_ADD, &o, &c) == ORDO_OK);
    int L = 3 * 15 + 5;
    CHECK(c.example_len == L && c.vocab_size == ORDO_ADD_VOCAB && c.n % (size_t)L == 0);
    int bad = 0, seen[16] = {0}, carries = 0;
    for (size_t e = 0; e < c.n / (size_t)L; e++) {
        const int32_t *x = c.tokens + e * (size_t)L;
        const uint8_t *m = c.mask + e * (size_t)L;
        int n = 0;
        while (x[1 + n] != ORDO_ADD_PLUS && n < 16) n++;
        if (x[0] != ORDO_SEQ_BOS || n < 1 || n > 15 || x[2 * n + 2] != ORDO_SEQ_SEP) {
            bad++;
            continue;
        }
        seen[n] = 1;
        unsigned long long a = number(x + 1, n), b = number(x + n + 2, n),
                           sum = number(x + 2 * n + 3, n + 1);
        bad += a + b != sum || x[3 * n + 4] != ORDO_SEQ_EOS;
        carries += x[3 * n + 3] == ORDO_SEQ_FIRST + 1;
        for (int i = 0; i < L; i++) bad += m[i] != (i >= 2 * n + 3 && i <= 3 * n + 4);
        for (int i = 3 * n + 5; i < L; i++) bad += x[i] != ORDO_SEQ_PAD;
    }
    CHECK_MSG(bad == 0, "add: %d bad examples", bad);
    CHECK(carries > 0);
    for (int n = 1; n <= 15; n++) CHECK(seen[n]);
    char *text;
    int32_t ex[3 * 2 + 5];
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    CHECK(ordo_seq_example(ORDO_TASK_ADD, 0, 2, &r, ex, NULL) == 11);
    CHECK(ordo_corpus_decode(&c, ex, 11, &text) == ORDO_OK);
    CHECK_MSG(strstr(text, "<bos> ") == text && strstr(text, " + ") && strstr(text, " = "), "%s",
              text);
    free(text);
    ordo_corpus_free(&c);
}

static void pack_none(ordo_task t) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(t, &o);
    o.n_tokens = 5000;
    o.max_len = 5;
    o.pack = ORDO_PACK_NONE;
    o.example_len = 40;
    ordo_corpus c;
    CHECK(ordo_corpus_generate(t, &o, &c) == ORDO_OK);
    CHECK(c.example_len == 40 && c.n % 40 == 0);
    int bad = 0;
    for (size_t e = 0; e < c.n / 40; e++) {
        const int32_t *x = c.tokens + e * 40;
        int end = 0; // the example ends at its <eos>; <pad> to the window's end
        while (end < 40 && x[end] != ORDO_SEQ_EOS) end++;
        bad += x[0] != ORDO_SEQ_BOS || end == 40;
        for (int i = end + 1; i < 40; i++) bad += x[i] != ORDO_SEQ_PAD || c.mask[e * 40 + i];
    }
    CHECK_MSG(bad == 0, "%s --pack none: %d bad windows", ordo_task_name(t), bad);
    ordo_corpus_free(&c);
    o.example_len = ordo_seq_len(t, 5) - 1; // the longest example does not fit
    CHECK(ordo_corpus_generate(t, &o, &c) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "--pack none"));
}

int main(void) {
    order_properties();
    add_properties();
    pack_none(ORDO_TASK_COPY);
    pack_none(ORDO_TASK_ADD);
    ordo_pack p;
    CHECK(ordo_pack_parse("none", &p) == ORDO_OK && p == ORDO_PACK_NONE);
    CHECK(ordo_pack_parse("one", &p) == ORDO_ERR_ARG && strstr(ordo_error_message(), "one"));
    seq_properties(ORDO_TASK_COPY);
    seq_properties(ORDO_TASK_REVERSE);
    ordo_task t;
    CHECK(ordo_task_parse("reverse", &t) == ORDO_OK && t == ORDO_TASK_REVERSE);
    CHECK(ordo_task_parse("sort", &t) == ORDO_ERR_ARG && strstr(ordo_error_message(), "sort"));
    TEST_MAIN_END();
}
