// The passkey retrieval task (see passkey.h). Every draw comes from ordo_rng, so a seed gives
// the same examples on every machine; nothing here knows about models: the scoring takes a
// predictor, so that a test can score an oracle or a constant guess without one.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/passkey.h"

// The papers' filler, one round; the leading space makes each piece start at a pre-token split.
static const char FILLER[] = " The grass is green. The sky is blue. The sun is yellow. Here we "
                             "go. There and back again.";

static ordo_status encode(ordo_tokenizer *tok, const char *text, int32_t **ids, int *n) {
    size_t k;
    ordo_status s = ordo_tokenizer_encode(tok, text, strlen(text), 0, ids, &k);
    *n = (int)k;
    return s;
}

ordo_status ordo_passkey_init(ordo_passkey *pk, ordo_tokenizer *tok, int digits) {
    memset(pk, 0, sizeof *pk);
    if (digits < 1 || digits > ORDO_PASSKEY_MAX_DIGITS)
        return ordo_error(ORDO_ERR_ARG, "--passkey-digits %d, expected 1..%d", digits,
                          ORDO_PASSKEY_MAX_DIGITS);
    pk->digits = digits;
    pk->tok = tok;
    int npad;
    ordo_status s;
    if ((s = encode(tok, FILLER, &pk->filler, &pk->nfiller)) ||
        (s = encode(tok, "\n", &pk->pad, &npad)) ||
        (s = encode(tok, " The pass key is", &pk->needle_a, &pk->nneedle_a)) ||
        (s = encode(tok, ". Remember it.", &pk->needle_b, &pk->nneedle_b)) ||
        (s = encode(tok, " is the pass key.", &pk->needle_c, &pk->nneedle_c)) ||
        (s = encode(tok, " What is the pass key? The pass key is", &pk->question,
                    &pk->nquestion))) {
        ordo_passkey_free(pk);
        return s;
    }
    return ORDO_OK;
}

void ordo_passkey_free(ordo_passkey *pk) {
    free(pk->filler);
    free(pk->pad);
    free(pk->needle_a);
    free(pk->needle_b);
    free(pk->needle_c);
    free(pk->question);
    memset(pk, 0, sizeof *pk);
}

// A key's tokens are at most one per digit plus the space before it (byte: exactly that).
int ordo_passkey_answer_max(int digits) {
    return digits + 1;
}

int ordo_passkey_min_len(const ordo_passkey *pk) {
    return pk->nneedle_a + pk->nneedle_b + pk->nneedle_c + pk->nquestion +
           3 * ordo_passkey_answer_max(pk->digits);
}

// Appends n ids; returns the position after them.
static int put(int32_t *out, int at, const int32_t *ids, int n) {
    memcpy(out + at, ids, (size_t)n * sizeof *ids);
    return at + n;
}

// Appends n filler tokens, continuing the filler's cycle from *phase.
static int put_filler(const ordo_passkey *pk, int32_t *out, int at, int n, int *phase) {
    for (int i = 0; i < n; i++, *phase = (*phase + 1) % pk->nfiller)
        out[at + i] = pk->filler[*phase];
    return at + n;
}

ordo_status ordo_passkey_example(const ordo_passkey *pk, int len, double depth, ordo_rng *r,
                                 int32_t *out, uint8_t *mask, ordo_passkey_layout *at) {
    int min = ordo_passkey_min_len(pk);
    if (len < min)
        return ordo_error(ORDO_ERR_ARG,
                          "passkey: an example of %d tokens, expected at least %d (the needle, "
                          "the question and a %d-digit key with no filler)",
                          len, min, pk->digits);
    if (!(depth >= 0 && depth <= 1))
        return ordo_error(ORDO_ERR_ARG, "passkey: depth %g, expected 0..1", depth);
    memset(at, 0, sizeof *at);
    char text[ORDO_PASSKEY_MAX_DIGITS + 2] = " ";
    for (int i = 0; i < pk->digits; i++) at->key[i] = (char)('0' + ordo_rng_below(r, 10));
    memcpy(text + 1, at->key, (size_t)pk->digits);
    int32_t *key;
    int nkey;
    ordo_status s = encode(pk->tok, text, &key, &nkey);
    if (s) return s;
    int fixed = pk->nneedle_a + pk->nneedle_b + pk->nneedle_c + pk->nquestion + 3 * nkey;
    int F = len - fixed, before = (int)lround(depth * F), phase = 0, k = 0;
    k = put_filler(pk, out, k, before, &phase);
    at->needle_at = k;
    k = put(out, k, pk->needle_a, pk->nneedle_a);
    at->key_at = k, at->nkey = nkey;
    k = put(out, k, key, nkey);
    k = put(out, k, pk->needle_b, pk->nneedle_b);
    k = put(out, k, key, nkey);
    k = put(out, k, pk->needle_c, pk->nneedle_c);
    k = put_filler(pk, out, k, F - before, &phase);
    k = put(out, k, pk->question, pk->nquestion);
    at->answer_at = k, at->nanswer = nkey;
    k = put(out, k, key, nkey);
    free(key);
    at->len = k, at->filler = F;
    if (mask)
        for (int i = 0; i < len; i++) mask[i] = i >= at->answer_at;
    return ORDO_OK;
}

ordo_status ordo_passkey_stream(const ordo_passkey *pk, int example_len, size_t n_tokens,
                                uint64_t seed, int32_t **tokens, uint8_t **mask, size_t *n) {
    int min = ordo_passkey_min_len(pk);
    *tokens = NULL, *mask = NULL, *n = 0;
    if (example_len < min)
        return ordo_error(ORDO_ERR_ARG,
                          "--context %d is shorter than the shortest example (%d tokens "
                          "for --passkey-digits %d)",
                          example_len, min, pk->digits);
    size_t L = (size_t)example_len, count = (n_tokens + L - 1) / L;
    int32_t *tok = ordo_xmalloc(count * L * sizeof *tok);
    uint8_t *m = ordo_xcalloc(count * L, 1);
    ordo_rng r;
    ordo_rng_seed(&r, seed);
    for (size_t e = 0; e < count; e++) {
        int len = min + (int)ordo_rng_below(&r, (uint64_t)(example_len - min + 1));
        double depth = ordo_rng_uniform(&r);
        ordo_passkey_layout at;
        ordo_status s = ordo_passkey_example(pk, len, depth, &r, tok + e * L, m + e * L, &at);
        if (s) {
            free(tok);
            free(m);
            return s;
        }
        for (size_t i = (size_t)len; i < L; i++) tok[e * L + i] = pk->pad[0]; // mask stays 0
    }
    *tokens = tok, *mask = m, *n = count * L;
    return ORDO_OK;
}

// The examples of (len, depth) come from their own seed, so that each cell of the table can
// be evaluated alone and in any order.
static uint64_t cell_seed(uint64_t seed, int len, double depth) {
    uint64_t d = (uint64_t)llround(depth * 1e6);
    return seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(len + 1)) ^ (0xbf58476d1ce4e5b9ULL * (d + 1));
}

ordo_status ordo_passkey_score(const ordo_passkey *pk, int len, double depth, int examples,
                               uint64_t seed, int chunk, ordo_passkey_predict predict, void *ctx,
                               int *right) {
    *right = 0;
    if (chunk < 1) chunk = 1;
    int T = len - 1; // inputs: all but the last answer token
    int32_t *ex = ordo_xmalloc((size_t)chunk * (size_t)len * sizeof *ex);
    int32_t *in = ordo_xmalloc((size_t)chunk * (size_t)T * sizeof *in);
    int32_t *pred = ordo_xmalloc((size_t)chunk * (size_t)T * sizeof *pred);
    ordo_passkey_layout *at = ordo_xmalloc((size_t)chunk * sizeof *at);
    int *from = ordo_xmalloc((size_t)chunk * sizeof *from); // each row's first answer position
    ordo_rng r;
    ordo_rng_seed(&r, cell_seed(seed, len, depth));
    ordo_status s = ORDO_OK;
    for (int done = 0; done < examples && !s;) {
        int rows = examples - done < chunk ? examples - done : chunk;
        for (int i = 0; i < rows && !s; i++) {
            s = ordo_passkey_example(pk, len, depth, &r, ex + (size_t)i * len, NULL, &at[i]);
            memcpy(in + (size_t)i * T, ex + (size_t)i * len, (size_t)T * sizeof *in);
            from[i] = at[i].answer_at - 1;
        }
        if (!s) s = predict(ctx, in, rows, T, from, pred);
        for (int i = 0; i < rows && !s; i++) {
            int ok = 1;
            for (int t = at[i].answer_at; t < len && ok; t++) // position t-1 predicts token t
                ok = pred[(size_t)i * T + t - 1] == ex[(size_t)i * len + t];
            *right += ok;
        }
        done += rows;
    }
    free(ex);
    free(in);
    free(pred);
    free(at);
    free(from);
    return s;
}

ordo_status ordo_passkey_parse_depths(const char *option, const char *list, double *out, int cap,
                                      int *n) {
    *n = 0;
    const char *p = list;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        int bad = end == p || errno || !(v >= 0 && v <= 1) || (*end && *end != ',');
        if (bad)
            return ordo_error(ORDO_ERR_ARG,
                              "%s '%s': expected a comma-separated list of depths in 0..1 "
                              "(e.g. 0,0.25,0.5,0.75,1)",
                              option, list);
        if (*n == cap)
            return ordo_error(ORDO_ERR_ARG, "%s '%s': more than %d depths", option, list, cap);
        out[(*n)++] = v;
        if (!*end) return ORDO_OK;
        p = end + 1;
    }
}
