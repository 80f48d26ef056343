// n-gram language models of a token stream, the levels that a trained model's loss is read
// against: interpolated Witten-Bell (Witten and Bell 1991; the interpolated form of Chen and
// Goodman 1998, section 2.6, as SRILM's -wbdiscount -interpolate), of orders 1..N, fitted by
// counting and scored target by target. Witten-Bell and not Kneser-Ney: it has no discount to
// estimate (Kneser-Ney's come from counts of counts, which a small split makes noisy), and
// each order's estimate uses the plain counts, so that one fit of order N gives the models of
// every order 1..N exactly, in one pass over the targets.
//
//   p_0(w)     = 1 / V
//   p_k(w | h) = (c(h w) + D(h) p_{k-1}(w | h')) / (c(h) + D(h))    h: the k-1 tokens before w,
//                                                                   h' its last k-2
// where c(h w) counts h w in the stream, c(h) = sum_w c(h w), and D(h) is the number of
// distinct tokens that follow h; a context that was never followed by anything (c(h) = 0)
// leaves p_k = p_{k-1}. Every probability is positive, so no loss is infinite. Deliberately
// not here: which targets are scored with which context (eval/ngram_levels.h does it as eval
// does), and Kneser-Ney.
#ifndef ORDO_NGRAM_H
#define ORDO_NGRAM_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

#define ORDO_NGRAM_MAX_ORDER 8

// The counts of the k-grams of one length, in an open-addressing table (linear probing).
typedef struct ordo_ngram_table {
    int k;              // gram length
    size_t cap, used;   // slots (a power of 2), filled slots
    int32_t *keys;      // [cap, k]
    uint64_t *count;    // [cap] c(g); 0: an empty slot
    uint64_t *total;    // [cap] c(g .) = sum over w of c(g w) (0 when g is never followed)
    uint32_t *distinct; // [cap] D(g): the distinct w with c(g w) > 0
} ordo_ngram_table;

typedef struct ordo_ngram {
    int order, vocab;                         // N, V
    uint64_t total0;                          // c(.): the tokens counted
    uint32_t distinct0;                       // D(.): the distinct tokens among them
    ordo_ngram_table t[ORDO_NGRAM_MAX_ORDER]; // t[k-1]: the k-grams
} ordo_ngram;

// Fits the model of order N (1..ORDO_NGRAM_MAX_ORDER) on the stream ids[0..n) over the vocab
// 0..V-1: every k-gram of the stream, k <= N, is counted (none is masked: a baseline predicts
// every token). ORDO_ERR_ARG for an order out of range, V < 1, an empty stream or an id out of
// range (naming the id and its position). Free with ordo_ngram_free (also after an error).
ordo_status ordo_ngram_fit(ordo_ngram *m, const int32_t *ids, size_t n, int V, int N);
void ordo_ngram_free(ordo_ngram *m);

// The probability of the token seq[k] after the k tokens seq[0..k) (seq[k-1] the nearest), for
// each order: p[j] (j = 0..N-1) is the order-(j+1) model's p_{j+1} with its context cut to the
// min(j, k) nearest tokens. seq[k] must be in 0..V-1; the context's ids need not be. No
// allocation: one call per target.
void ordo_ngram_probs(const ordo_ngram *m, const int32_t *seq, int k, double *p);

#endif
