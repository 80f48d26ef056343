// Built-in corpora (see corpus.h). Generation draws only from ordo_rng, so a seed gives
// the same tokens on every machine. Nothing here knows about models or training.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/answers.h"
#include "data/corpus.h"
#include "data/count.h"
#include "data/flipflop.h"
#include "data/mqar.h"
#include "data/passkey.h"
#include "data/selcopy.h"

// order: ".", 8 nouns, 4 transitive verbs, 3 intransitive verbs. No articles: the subject
// of a sentence then follows the "." right after the previous object, so a model that sees
// order can learn the dependency in one attention hop, while the bag stays ambiguous.
enum {
    W_DOT,
    W_NOUN0,
    N_NOUNS = 8,
    W_TVERB0 = W_NOUN0 + N_NOUNS,
    N_TVERBS = 4,
    W_IVERB0 = W_TVERB0 + N_TVERBS,
    N_IVERBS = 3,
    ORDER_VOCAB = W_IVERB0 + N_IVERBS
};
static const char *const order_words[ORDER_VOCAB] = {
    ".",    "cat",    "dog", "bird", "fox",    "mouse", "horse", "owl",
    "frog", "chased", "saw", "bit",  "pushed", "ran",   "slept", "sat"};
#define MAX_CHAIN 3 // transitive sentences per story (distinct nouns: MAX_CHAIN + 1 <= N_NOUNS)

static const char *const seq_words[ORDO_SEQ_FIRST + ORDO_SEQ_MAX_ALPHABET] = {
    "<pad>", "<bos>", "<sep>", "<eos>", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k",
    "l",     "m",     "n",     "o",     "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"};

static const char *const add_words[ORDO_ADD_VOCAB] = {
    "<pad>", "<bos>", "=", "<eos>", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+"};

static const char *const flipflop_words[ORDO_FF_VOCAB] = {"0", "1", "w", "r", "i"};

// MQAR's words are its ids in decimal, written once (the same bytes on every call, so a second
// thread that writes them too changes nothing).
static char mqar_names[ORDO_MQAR_MAX_VOCAB][5];
static const char *mqar_words[ORDO_MQAR_MAX_VOCAB];
static const char *const *mqar_word_table(void) {
    for (int i = 0; i < ORDO_MQAR_MAX_VOCAB; i++) {
        snprintf(mqar_names[i], sizeof mqar_names[i], "%d", i);
        mqar_words[i] = mqar_names[i];
    }
    return mqar_words;
}

ORDO_NAMES_ENUM(ordo_task, ordo_task_parse, ordo_task_name, ordo_task_names, "task",
                ORDO_TASK_COUNT + 1, "order", "copy", "reverse", "passkey", "mqar", "flipflop",
                "add", "selective-copy", "count");
ORDO_NAMES_TABLE(ordo_pack_names, "packing", ORDO_PACK_NONE + 1, "examples", "none");

ordo_status ordo_pack_parse(const char *name, ordo_pack *out) {
    int v;
    ordo_status s = ordo_names_parse(&ordo_pack_names, name, &v);
    if (!s) *out = (ordo_pack)v;
    return s;
}

void ordo_corpus_default_opts(ordo_task t, ordo_corpus_opts *o) {
    (void)t;
    o->seed = 1234;
    o->n_tokens = 200000;
    o->min_len = 1;
    o->max_len = 16;
    o->alphabet = 10;
    o->pack = ORDO_PACK_EXAMPLES;
    o->tok = NULL;
    o->digits = ORDO_PASSKEY_DEFAULT_DIGITS;
    o->example_len = 0;
    o->mqar_vocab = ORDO_MQAR_DEFAULT_VOCAB;
    o->mqar_pairs = ORDO_MQAR_DEFAULT_PAIRS;
    o->mqar_power = ORDO_MQAR_DEFAULT_POWER;
    o->ff_ignore = ORDO_FLIPFLOP_DEFAULT_IGNORE;
    o->sc_vocab = ORDO_SELCOPY_DEFAULT_VOCAB;
    o->sc_tokens = ORDO_SELCOPY_DEFAULT_TOKENS;
    o->count_vars = ORDO_COUNT_DEFAULT_VARS;
}

// Appends one story; returns its length (at most 4 * MAX_CHAIN + 3 tokens).
static int order_story(ordo_rng *r, int32_t *tok, uint8_t *dep) {
    int k = 1 + (int)ordo_rng_below(r, MAX_CHAIN);
    int nouns[N_NOUNS];
    for (int i = 0; i < N_NOUNS; i++) nouns[i] = i;
    for (int i = 0; i <= k; i++) { // partial Fisher-Yates: k+1 distinct nouns
        int j = i + (int)ordo_rng_below(r, (uint64_t)(N_NOUNS - i));
        int t = nouns[i];
        nouns[i] = nouns[j];
        nouns[j] = t;
    }
    int n = 0;
    for (int s = 0; s <= k; s++) {
        tok[n] = W_NOUN0 + nouns[s], dep[n++] = s > 0; // the previous object: order-dependent
        if (s < k) {
            tok[n] = W_TVERB0 + (int)ordo_rng_below(r, N_TVERBS), dep[n++] = 0;
            tok[n] = W_NOUN0 + nouns[s + 1], dep[n++] = 0;
        } else {
            tok[n] = W_IVERB0 + (int)ordo_rng_below(r, N_IVERBS), dep[n++] = 0;
        }
        tok[n] = W_DOT, dep[n++] = 0;
    }
    return n;
}

int ordo_seq_task(ordo_task t) {
    return t == ORDO_TASK_COPY || t == ORDO_TASK_REVERSE || t == ORDO_TASK_ADD;
}

int ordo_seq_len(ordo_task t, int n) {
    return t == ORDO_TASK_ADD ? 3 * n + 5 : 2 * n + 3;
}

int ordo_seq_answer(ordo_task t, int n) {
    return t == ORDO_TASK_ADD ? 2 * n + 3 : n + 2;
}

// add: a, b and their sum, every number least significant digit first.
static void add_example(int n, ordo_rng *r, int32_t *out) {
    int32_t *a = out + 1, *b = out + n + 2, *c = out + 2 * n + 3;
    out[0] = ORDO_SEQ_BOS;
    for (int i = 0; i < n; i++) a[i] = ORDO_SEQ_FIRST + (int)ordo_rng_below(r, 10);
    out[n + 1] = ORDO_ADD_PLUS;
    for (int i = 0; i < n; i++) b[i] = ORDO_SEQ_FIRST + (int)ordo_rng_below(r, 10);
    out[2 * n + 2] = ORDO_SEQ_SEP; // "="
    int carry = 0;
    for (int i = 0; i < n; i++) {
        int d = (a[i] - ORDO_SEQ_FIRST) + (b[i] - ORDO_SEQ_FIRST) + carry;
        c[i] = ORDO_SEQ_FIRST + d % 10, carry = d / 10;
    }
    c[n] = ORDO_SEQ_FIRST + carry;
    out[3 * n + 4] = ORDO_SEQ_EOS;
}

int ordo_seq_example(ordo_task t, int alphabet, int n, ordo_rng *r, int32_t *out, uint8_t *mask) {
    int len = ordo_seq_len(t, n), answer = ordo_seq_answer(t, n);
    if (t == ORDO_TASK_ADD) {
        add_example(n, r, out);
    } else {
        out[0] = ORDO_SEQ_BOS;
        for (int i = 0; i < n; i++)
            out[1 + i] = ORDO_SEQ_FIRST + (int)ordo_rng_below(r, (uint64_t)alphabet);
        out[n + 1] = ORDO_SEQ_SEP;
        for (int i = 0; i < n; i++)
            out[n + 2 + i] = t == ORDO_TASK_REVERSE ? out[n - i] : out[1 + i];
        out[2 * n + 2] = ORDO_SEQ_EOS;
    }
    if (mask)
        for (int i = 0; i < len; i++) mask[i] = i >= answer; // the answer and <eos>
    return len;
}

// passkey: the stream of data/passkey.h in the ids of o->tok.
static ordo_status passkey_corpus(const ordo_corpus_opts *o, ordo_corpus *c) {
    if (!o->tok) return ordo_error(ORDO_ERR_ARG, "passkey: no tokenizer for the text");
    ordo_passkey pk;
    ordo_status s = ordo_passkey_init(&pk, o->tok, o->digits);
    if (!s)
        s = ordo_passkey_stream(&pk, o->example_len, o->n_tokens, o->seed, &c->tokens, &c->mask,
                                &c->n);
    ordo_passkey_free(&pk);
    if (s) return s;
    c->vocab_size = ordo_tokenizer_vocab_size(o->tok);
    c->example_len = o->example_len;
    return ORDO_OK;
}

int ordo_answers_task(ordo_task t) {
    return t == ORDO_TASK_MQAR || t == ORDO_TASK_FLIPFLOP || t == ORDO_TASK_SELECTIVE_COPY ||
           t == ORDO_TASK_COUNT;
}

// mqar, flipflop, selective-copy, count: examples of exactly o->example_len tokens, back to
// back, so that windows of that length start on examples.
static ordo_status fixed_corpus(ordo_task t, const ordo_corpus_opts *o, ordo_rng *r,
                                ordo_corpus *c) {
    ordo_mqar mq = {o->mqar_vocab, o->mqar_power};
    ordo_selcopy sc = {o->sc_vocab};
    int L = o->example_len;
    ordo_answers_example make;
    const void *task = NULL;
    double param;
    ordo_status s;
    switch (t) {
    case ORDO_TASK_MQAR:
        make = ordo_mqar_example, task = &mq, param = o->mqar_pairs;
        s = ordo_mqar_check(&mq, L, o->mqar_pairs);
        c->vocab_size = o->mqar_vocab, c->words = mqar_word_table();
        break;
    case ORDO_TASK_FLIPFLOP:
        make = ordo_flipflop_example, param = o->ff_ignore;
        s = ordo_flipflop_check(L, o->ff_ignore);
        c->vocab_size = ORDO_FF_VOCAB, c->words = flipflop_words;
        break;
    case ORDO_TASK_SELECTIVE_COPY:
        make = ordo_selcopy_example, task = &sc, param = o->sc_tokens;
        s = ordo_selcopy_check(&sc, L, o->sc_tokens);
        c->vocab_size = o->sc_vocab, c->words = mqar_word_table(); // the ids in decimal
        break;
    default:
        make = ordo_count_example, param = o->count_vars;
        s = ordo_count_check(L, o->count_vars);
        c->vocab_size = ORDO_COUNT_VOCAB, c->words = ordo_count_words;
        break;
    }
    if (s) return s;
    size_t count = (o->n_tokens + (size_t)L - 1) / (size_t)L;
    c->n = count * (size_t)L;
    c->tokens = ordo_xmalloc(c->n * sizeof *c->tokens);
    c->mask = ordo_xmalloc(c->n);
    for (size_t e = 0; e < count && !s; e++)
        s = make(task, L, param, r, c->tokens + e * (size_t)L, c->mask + e * (size_t)L);
    if (s) return s;
    c->example_len = L;
    return ORDO_OK;
}

ordo_status ordo_corpus_generate(ordo_task t, const ordo_corpus_opts *o, ordo_corpus *c) {
    memset(c, 0, sizeof *c);
    if (o->n_tokens < 1 || o->n_tokens > ((size_t)1 << 31))
        return ordo_error(ORDO_ERR_ARG, "corpus size %zu tokens, expected 1..2^31", o->n_tokens);
    c->task = t;
    ordo_rng r;
    ordo_rng_seed(&r, o->seed);
    if (t == ORDO_TASK_ORDER) {
        enum { STORY_MAX = 4 * MAX_CHAIN + 3 };
        size_t cap = o->n_tokens + STORY_MAX;
        c->tokens = ordo_xmalloc(cap * sizeof *c->tokens);
        c->dep = ordo_xmalloc(cap);
        while (c->n < o->n_tokens) c->n += (size_t)order_story(&r, c->tokens + c->n, c->dep + c->n);
        c->mask = ordo_xmalloc(c->n);
        memset(c->mask, 1, c->n);
        c->vocab_size = ORDER_VOCAB;
        c->words = order_words;
        return ORDO_OK;
    }
    if (t == ORDO_TASK_PASSKEY) return passkey_corpus(o, c);
    if (ordo_answers_task(t)) {
        ordo_status s = fixed_corpus(t, o, &r, c);
        if (s) ordo_corpus_free(c);
        return s;
    }
    if (o->min_len < 1 || o->max_len < o->min_len || o->max_len > 4096)
        return ordo_error(ORDO_ERR_ARG, "%s: lengths %d..%d, expected 1 <= min <= max <= 4096",
                          ordo_task_name(t), o->min_len, o->max_len);
    if (t != ORDO_TASK_ADD && (o->alphabet < 2 || o->alphabet > ORDO_SEQ_MAX_ALPHABET))
        return ordo_error(ORDO_ERR_ARG, "%s: alphabet of %d symbols, expected 2..%d",
                          ordo_task_name(t), o->alphabet, ORDO_SEQ_MAX_ALPHABET);
    int longest = ordo_seq_len(t, o->max_len);
    int L = o->pack == ORDO_PACK_NONE ? o->example_len : longest;
    if (L < longest)
        return ordo_error(ORDO_ERR_ARG,
                          "--pack none pads each example to the context, %d tokens, but the "
                          "longest (--max-len %d) has %d; use --context %d or more",
                          L, o->max_len, longest, longest);
    size_t count = (o->n_tokens + (size_t)L - 1) / (size_t)L;
    c->n = count * (size_t)L;
    c->tokens = ordo_xmalloc(c->n * sizeof *c->tokens);
    c->mask = ordo_xcalloc(c->n, 1);
    for (size_t e = 0; e < count; e++) {
        int32_t *tok = c->tokens + e * (size_t)L;
        uint8_t *m = c->mask + e * (size_t)L;
        int n = o->min_len + (int)ordo_rng_below(&r, (uint64_t)(o->max_len - o->min_len + 1));
        int len = ordo_seq_example(t, o->alphabet, n, &r, tok, m);
        for (int i = len; i < L; i++) tok[i] = ORDO_SEQ_PAD; // mask stays 0
    }
    c->vocab_size = t == ORDO_TASK_ADD ? ORDO_ADD_VOCAB : ORDO_SEQ_FIRST + o->alphabet;
    c->words = t == ORDO_TASK_ADD ? add_words : seq_words;
    c->example_len = L;
    c->max_len = o->max_len;
    return ORDO_OK;
}

ordo_status ordo_corpus_decode(const ordo_corpus *c, const int32_t *ids, size_t n, char **text) {
    if (!c->words)
        return ordo_error(ORDO_ERR_ARG, "the %s corpus is text: decode its ids with its tokenizer",
                          ordo_task_name(c->task));
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= c->vocab_size)
            return ordo_error(ORDO_ERR_ARG, "id %d at index %zu is outside the %s vocabulary 0..%d",
                              ids[i], i, ordo_task_name(c->task), c->vocab_size - 1);
        len += strlen(c->words[ids[i]]) + 1;
    }
    char *out = ordo_xmalloc(len), *p = out;
    for (size_t i = 0; i < n; i++) {
        size_t w = strlen(c->words[ids[i]]);
        if (i) *p++ = ' ';
        memcpy(p, c->words[ids[i]], w);
        p += w;
    }
    *p = 0;
    *text = out;
    return ORDO_OK;
}

void ordo_corpus_free(ordo_corpus *c) {
    free(c->tokens);
    free(c->mask);
    free(c->dep);
    memset(c, 0, sizeof *c);
}
