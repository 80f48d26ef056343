// The sliding-window dataset of the PyTorch reference (GPTDatasetV1) over a token stream:
// window i starts at i*stride, for i*stride in range(0, n - max_length, stride); its input
// is ids[s : s+max_length] and its target the same shifted by one, ids[s+1 : s+max_length+1].
// The dataset borrows the tokens (no copy); keep them alive while it is used. The stream is
// int32 ids, or 16-bit ids as a token file holds them (ordo_dataset_init16): windows are
// widened to int32 as they are fetched, so a mapped corpus is never copied whole.
#ifndef ORDO_DATASET_H
#define ORDO_DATASET_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

typedef struct ordo_dataset {
    const int32_t *tokens;    // borrowed, [n]; NULL for a 16-bit stream
    const uint16_t *tokens16; // borrowed, [n]: a 16-bit stream (ordo_dataset_init16), or NULL
    // Optional target stream [n] (borrowed), read instead of tokens for the shifted targets:
    // a built-in task sets -1 where a token is not to be predicted (the loss ignores it).
    const int32_t *targets;
    size_t n;
    int max_length, stride;
    size_t count; // number of windows: ceil((n - max_length) / stride) when n > max_length
} ordo_dataset;

// Number of windows Python's range(0, n - max_length, stride) gives (0 when too short).
size_t ordo_dataset_count(size_t n, int max_length, int stride);

// Sets up the windows over tokens[0..n). ORDO_ERR_ARG when max_length or stride is not
// positive, or when the stream is too short for one window (the message says how many
// tokens there are and that max_length + 1 are needed).
ordo_status ordo_dataset_init(ordo_dataset *ds, const int32_t *tokens, size_t n, int max_length,
                              int stride);

// ordo_dataset_init over a stream of 16-bit ids (tokens16 set, tokens NULL; no targets
// stream). Readers other than ordo_dataset_get must check which of the two is set.
ordo_status ordo_dataset_init16(ordo_dataset *ds, const uint16_t *tokens, size_t n, int max_length,
                                int stride);

// Copies window i (i < count) into input[max_length] and target[max_length].
void ordo_dataset_get(const ordo_dataset *ds, size_t i, int32_t *input, int32_t *target);

// The train/val split by token fraction, the validation part at the end: *n_train =
// floor((1 - val_frac) * n), as the reference's int(train_ratio * len(data)). ORDO_ERR_ARG
// unless 0 <= val_frac < 1.
ordo_status ordo_split_tokens(size_t n, double val_frac, size_t *n_train);

#endif
