// A linear probe of absolute position (Haviv et al. 2022, "Transformer Language Models without
// Positional Encodings Still Learn Positional Information", section 5): from each layer's
// residual stream, predict the position 0..T-1 of each token by ridge regression, fitted on
// some windows and scored on others. For `none` it says whether a causal decoder infers
// positions anyway; for the others, how much of their position signal survives each layer.
//
// W windows of T tokens of a stream (the first W non-overlapping ones): the first half fit,
// the second half (held out) scored. At each of the L + 1 points (the input of block 0, then
// each block's output), features x (C values, standardised by the fitted windows' mean and
// sd) and a bias; w = argmin |X w - p|^2 + lambda |w|^2 with lambda = 1e-3 * the number of
// fitted rows, solved exactly (Cholesky, double). Reported: the held-out mean absolute error
// in positions, and chance: that of predicting every token the fitted mean position.
#ifndef ORDO_EVAL_POS_PROBE_H
#define ORDO_EVAL_POS_PROBE_H
#include <stddef.h>
#include <stdint.h>

#include "models/gpt.h"
#include "sys/error.h"

typedef struct ordo_pos_probe {
    int points; // L + 1
    int T, fit_windows, test_windows;
    double *mae;   // [points] held-out mean absolute error, positions
    double chance; // the held-out error of predicting the fitted mean position
} ordo_pos_probe;

// Probes m on W windows of T tokens of tokens[0..n) (W >= 2: at least one fitted and one held
// out; fewer when the stream is shorter). ORDO_ERR_ARG when n < 2T or T < 2. Free out with
// ordo_pos_probe_free.
ordo_status ordo_pos_probe_measure(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens, size_t n,
                                   int T, int W, ordo_pos_probe *out);
void ordo_pos_probe_free(ordo_pos_probe *p);

#endif
