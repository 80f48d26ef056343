// The passkey task (data/passkey.h): deterministic from the seed; the key and the needle are
// where the layout says, at the depth asked for; only the answer is a target; the text is
// the papers' template in byte and in gpt2 ids (the pieces' ids are the whole text's); the
// scoring gives a perfect predictor 1.0 and a constant guess exactly the share of keys that
// equal it (about 1/10 with one digit); bad digits, lengths, depths and depth lists refused.
#include <stdlib.h>
#include <string.h>

#include "data/corpus.h"
#include "data/passkey.h"
#include "test.h"

static char *text_of(ordo_tokenizer *t, const int32_t *ids, int n) {
    char *s;
    size_t len;
    CHECK(ordo_tokenizer_decode(t, ids, (size_t)n, &s, &len) == ORDO_OK);
    return s;
}

// One example's layout and text against what it says.
static void check_example(ordo_tokenizer *t, const ordo_passkey *pk, int len, double depth,
                          uint64_t seed) {
    int32_t ids[2048];
    uint8_t mask[2048];
    ordo_passkey_layout at;
    ordo_rng r;
    ordo_rng_seed(&r, seed);
    CHECK(ordo_passkey_example(pk, len, depth, &r, ids, mask, &at) == ORDO_OK);
    CHECK(at.len == len && at.answer_at + at.nanswer == len);
    CHECK(at.needle_at == (int)(depth * at.filler + 0.5)); // the filler before the needle
    // the key's ids in the needle are the answer's, and the key's text is its digits
    CHECK(memcmp(ids + at.key_at, ids + at.answer_at, (size_t)at.nkey * sizeof *ids) == 0);
    char *key = text_of(t, ids + at.key_at, at.nkey), want[32];
    snprintf(want, sizeof want, " %s", at.key);
    CHECK_MSG(strcmp(key, want) == 0, "key '%s', layout says '%s'", key, want);
    free(key);
    char *needle = text_of(t, ids + at.needle_at, len - at.needle_at);
    char start[128];
    snprintf(start, sizeof start, " The pass key is %s. Remember it. %s is the pass key.", at.key,
             at.key);
    CHECK_MSG(strncmp(needle, start, strlen(start)) == 0, "needle: '%s'", needle);
    free(needle);
    char *all = text_of(t, ids, len), end[80];
    snprintf(end, sizeof end, " What is the pass key? The pass key is %s", at.key);
    CHECK(strlen(all) > strlen(end) && strcmp(all + strlen(all) - strlen(end), end) == 0);
    free(all);
    for (int i = 0; i < len; i++) CHECK(mask[i] == (i >= at.answer_at));
}

// The template tokenized piece by piece is the whole text tokenized (no filler cut here).
static void check_whole_text(ordo_tokenizer *t, const ordo_passkey *pk) {
    int32_t ids[512];
    ordo_passkey_layout at;
    // the key's own length first (gpt2 merges digits), then exactly two rounds of filler
    // around the needle, so that no filler is cut
    ordo_rng r;
    ordo_rng_seed(&r, 5);
    int len0 = ordo_passkey_min_len(pk) + 2 * pk->nfiller;
    CHECK(ordo_passkey_example(pk, len0, 0.5, &r, ids, NULL, &at) == ORDO_OK);
    int len = len0 - at.filler + 2 * pk->nfiller;
    ordo_rng_seed(&r, 5);
    CHECK(ordo_passkey_example(pk, len, 0.5, &r, ids, NULL, &at) == ORDO_OK);
    CHECK(at.filler == 2 * pk->nfiller);
    char *text = text_of(t, ids, len);
    int32_t *whole;
    size_t n;
    CHECK(ordo_tokenizer_encode(t, text, strlen(text), 0, &whole, &n) == ORDO_OK);
    CHECK(n == (size_t)len && memcmp(whole, ids, n * sizeof *ids) == 0);
    free(whole);
    free(text);
}

static void template_checks(ordo_tokenizer *t) {
    ordo_passkey pk;
    CHECK(ordo_passkey_init(&pk, t, 5) == ORDO_OK);
    int min = ordo_passkey_min_len(&pk);
    double depths[] = {0, 0.25, 0.5, 0.75, 1};
    for (int i = 0; i < 5; i++) {
        check_example(t, &pk, min, depths[i], 1 + (uint64_t)i);
        check_example(t, &pk, min + 300, depths[i], 10 + (uint64_t)i);
    }
    check_whole_text(t, &pk);
    // determinism: the stream from a seed, again and with another seed
    int32_t *a, *b, *c;
    uint8_t *ma, *mb, *mc;
    size_t na, nb, nc;
    CHECK(ordo_passkey_stream(&pk, 256, 5000, 7, &a, &ma, &na) == ORDO_OK);
    CHECK(ordo_passkey_stream(&pk, 256, 5000, 7, &b, &mb, &nb) == ORDO_OK);
    CHECK(ordo_passkey_stream(&pk, 256, 5000, 8, &c, &mc, &nc) == ORDO_OK);
    CHECK(na == nb && na % 256 == 0 && na >= 5000);
    CHECK(memcmp(a, b, na * sizeof *a) == 0 && memcmp(ma, mb, na) == 0);
    CHECK(nc == na && memcmp(a, c, na * sizeof *a) != 0);
    // every example: one answer run, right before the padding (or the example's end)
    for (size_t e = 0; e < na / 256; e++) {
        int first = -1, last = -1;
        for (int i = 0; i < 256; i++)
            if (ma[e * 256 + i]) last = i, first = first < 0 ? i : first;
        CHECK(first > 0 && last - first + 1 <= pk.digits + 1);
        for (int i = last + 1; i < 256; i++) CHECK(a[e * 256 + i] == pk.pad[0]);
    }
    free(a), free(b), free(c), free(ma), free(mb), free(mc);
    ordo_passkey_free(&pk);
}

// Predictors for the scoring over 1-digit byte keys: the oracle predicts each next token (the
// last, not an input, is the key, read from the needle: the filler has no digit); `seven`
// says 7 wherever the truth is a digit, and counts the examples whose key is 7.
typedef struct predictor {
    int seven, sevens;
} predictor;

static ordo_status predict(void *p, const int32_t *in, int rows, int T, const int *from,
                           int32_t *pred) {
    predictor *q = p;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T, key = -1;
        for (int t = 0; t < T && key < 0; t++)
            if (x[t] >= '0' && x[t] <= '9') key = x[t];
        for (int t = 0; t + 1 < T; t++) y[t] = x[t + 1];
        y[T - 1] = key;
        q->sevens += key == '7';
        for (int t = 0; t < T && q->seven; t++)
            if (y[t] >= '0' && y[t] <= '9') y[t] = '7';
        // only the answer's positions are read: the rest wrong changes no count
        CHECK(from[i] >= 0 && from[i] < T);
        for (int t = 0; t < from[i]; t++) y[t] = -1;
    }
    return ORDO_OK;
}

static void scoring(ordo_tokenizer *byte) {
    ordo_passkey pk;
    CHECK(ordo_passkey_init(&pk, byte, 1) == ORDO_OK);
    int len = ordo_passkey_min_len(&pk) + 50, right, again;
    predictor oracle = {0, 0}, seven = {1, 0}, seven1 = {1, 0};
    CHECK(ordo_passkey_score(&pk, len, 0.5, 500, 3, 64, predict, &oracle, &right) == ORDO_OK);
    CHECK_MSG(right == 500, "the oracle got %d of 500", right);
    CHECK(ordo_passkey_score(&pk, len, 0.5, 500, 3, 7, predict, &seven, &right) == ORDO_OK);
    CHECK_MSG(right == seven.sevens, "a constant 7 got %d of 500, %d keys are 7", right,
              seven.sevens);
    CHECK_MSG(right >= 25 && right <= 80, "a constant 7 got %d of 500 (chance 50)", right);
    // the same examples whatever the chunk size; others at another depth or seed
    CHECK(ordo_passkey_score(&pk, len, 0.5, 500, 3, 1, predict, &seven1, &again) == ORDO_OK);
    CHECK(again == right);
    ordo_passkey_free(&pk);
}

static void bad_inputs(ordo_tokenizer *byte) {
    ordo_passkey pk;
    CHECK(ordo_passkey_init(&pk, byte, 0) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "--passkey-digits 0"));
    CHECK(ordo_passkey_init(&pk, byte, 21) == ORDO_ERR_ARG);
    CHECK(ordo_passkey_init(&pk, byte, 5) == ORDO_OK);
    int32_t ids[512];
    ordo_passkey_layout at;
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    int min = ordo_passkey_min_len(&pk);
    CHECK(ordo_passkey_example(&pk, min - 1, 0.5, &r, ids, NULL, &at) == ORDO_ERR_ARG);
    CHECK(ordo_passkey_example(&pk, min, 1.5, &r, ids, NULL, &at) == ORDO_ERR_ARG);
    CHECK(ordo_passkey_example(&pk, min, NAN, &r, ids, NULL, &at) == ORDO_ERR_ARG);
    int32_t *tok;
    uint8_t *mask;
    size_t n;
    CHECK(ordo_passkey_stream(&pk, min - 1, 1000, 1, &tok, &mask, &n) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "--context"));
    ordo_passkey_free(&pk);
    double d[4];
    int nd;
    CHECK(ordo_passkey_parse_depths("--depths", "0,0.5,1", d, 4, &nd) == ORDO_OK && nd == 3 &&
          d[1] == 0.5);
    const char *bad[] = {"", "0,", "x", "1.5", "-0.1", "0.5,,1", "nan", "0 ,1", "0,0,0,0,0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_MSG(ordo_passkey_parse_depths("--depths", bad[i], d, 4, &nd) == ORDO_ERR_ARG, "'%s'",
                  bad[i]);
        CHECK(strstr(ordo_error_message(), "--depths"));
    }
    // the corpus: its task name, and no tokenizer
    ordo_task t;
    CHECK(ordo_task_parse("passkey", &t) == ORDO_OK && t == ORDO_TASK_PASSKEY);
    ordo_corpus_opts o;
    ordo_corpus c;
    ordo_corpus_default_opts(ORDO_TASK_PASSKEY, &o);
    o.example_len = 256;
    CHECK(ordo_corpus_generate(ORDO_TASK_PASSKEY, &o, &c) == ORDO_ERR_ARG);
    o.tok = byte;
    o.n_tokens = 3000;
    CHECK(ordo_corpus_generate(ORDO_TASK_PASSKEY, &o, &c) == ORDO_OK);
    CHECK(c.vocab_size == 256 && c.example_len == 256 && c.n % 256 == 0 && c.words == NULL);
    ordo_corpus_free(&c);
}

int main(void) {
    ordo_tokenizer *byte, *gpt2;
    CHECK(ordo_tokenizer_load(ORDO_TOK_BYTE, NULL, &byte) == ORDO_OK);
    template_checks(byte);
    scoring(byte);
    bad_inputs(byte);
    // gpt2 needs the vocab (data/fetch.sh vocab): skipped without it, as test_tokenizer does,
    // unless ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh)
    const char *req = getenv("ORDO_REQUIRE_DOWNLOADS");
    if (ordo_tokenizer_load(ORDO_TOK_GPT2, NULL, &gpt2) == ORDO_OK)
        template_checks(gpt2);
    else if (req && strcmp(req, "1") == 0)
        CHECK_MSG(0, "%s (ORDO_REQUIRE_DOWNLOADS=1)", ordo_error_message());
    else
        printf("SKIP: the gpt2 passkey template: %s (data/fetch.sh vocab fetches it)\n",
               ordo_error_message());
    ordo_tokenizer_free(byte);
    ordo_tokenizer_free(gpt2);
    TEST_MAIN_END();
}
