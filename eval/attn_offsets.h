// Attention by offset: where each head looks, as a function of the offset d = i - j between
// query i and key j, and whether that depends on where the query is (translation invariance).
// What `ordo viz` draws for claims about relative positions (a head that attends by offset
// alone, whatever the scheme gives it).
//
// Over W windows of T tokens of a stream (the first W non-overlapping ones), the attention
// probabilities of every layer and head (the materialized attention, recorded):
//   mass[l, h, d]  the mean over windows and queries i >= d of att[i, i - d]: the attention
//                  on the key d tokens back;
//   spread[l, h]   the mean over queries i = D..T-1 of the total variation distance between
//                  the query's attention over offsets 0..D-1 (averaged over the windows, then
//                  renormalised over those D offsets) and the mean of that over the queries:
//                  0 when attention depends on the offset alone (a translation-invariant
//                  head), up to 1. D = max(1, T / 4): every such query has D keys behind it,
//                  so rows are compared on the same offsets.
#ifndef ORDO_EVAL_ATTN_OFFSETS_H
#define ORDO_EVAL_ATTN_OFFSETS_H
#include <stddef.h>
#include <stdint.h>

#include "models/gpt.h"
#include "sys/error.h"

typedef struct ordo_attn_offsets {
    int L, NH, T, D, windows;
    double *mass;   // [L, NH, T]
    double *spread; // [L, NH]
} ordo_attn_offsets;

// Runs W windows of T tokens of tokens[0..n) through m with its attention recorded (one window
// per forward, in ctx, reset after each). ORDO_ERR_ARG when n < T or T < 2. Free out with
// ordo_attn_offsets_free.
ordo_status ordo_attn_offsets_measure(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens, size_t n,
                                      int T, int W, ordo_attn_offsets *out);
void ordo_attn_offsets_free(ordo_attn_offsets *o);

#endif
