// GPTDatasetV1's sliding window, computed on demand: a window is an offset into the token
// stream, so the dataset holds no copies and any window is O(max_length) to fetch.
//
// Deliberately not here: tokenizing (tokenizer.c), batching and shuffling (dataloader.c).
#include <math.h>
#include <string.h>

#include "data/dataset.h"

size_t ordo_dataset_count(size_t n, int max_length, int stride) {
    if (max_length <= 0 || stride <= 0 || n <= (size_t)max_length) return 0;
    return (n - (size_t)max_length + (size_t)stride - 1) / (size_t)stride;
}

ordo_status ordo_dataset_init(ordo_dataset *ds, const int32_t *tokens, size_t n, int max_length,
                              int stride) {
    memset(ds, 0, sizeof *ds);
    if (max_length <= 0)
        return ordo_error(ORDO_ERR_ARG,
                          "dataset: max_length %d, expected a positive window "
                          "length",
                          max_length);
    if (stride <= 0)
        return ordo_error(ORDO_ERR_ARG, "dataset: stride %d, expected a positive step", stride);
    size_t count = ordo_dataset_count(n, max_length, stride);
    if (count == 0)
        return ordo_error(ORDO_ERR_ARG,
                          "dataset: the token stream has %zu tokens; one window "
                          "of max_length %d needs at least %lld (max_length + 1 for the shifted "
                          "target)",
                          n, max_length, (long long)max_length + 1);
    ds->tokens = tokens;
    ds->targets = NULL;
    ds->n = n;
    ds->max_length = max_length;
    ds->stride = stride;
    ds->count = count;
    return ORDO_OK;
}

ordo_status ordo_dataset_init16(ordo_dataset *ds, const uint16_t *tokens, size_t n, int max_length,
                                int stride) {
    // the checks and counts of the int32 case; only the stream differs
    ordo_status s = ordo_dataset_init(ds, NULL, n, max_length, stride);
    if (!s) ds->tokens16 = tokens;
    return s;
}

void ordo_dataset_get(const ordo_dataset *ds, size_t i, int32_t *input, int32_t *target) {
    ORDO_ASSERT(i < ds->count);
    if (ds->tokens16) {
        const uint16_t *w = ds->tokens16 + i * (size_t)ds->stride;
        for (int t = 0; t < ds->max_length; t++) input[t] = w[t], target[t] = w[t + 1];
        return;
    }
    const int32_t *w = ds->tokens + i * (size_t)ds->stride;
    memcpy(input, w, (size_t)ds->max_length * sizeof *w);
    const int32_t *t = (ds->targets ? ds->targets : ds->tokens) + i * (size_t)ds->stride;
    memcpy(target, t + 1, (size_t)ds->max_length * sizeof *t);
}

ordo_status ordo_split_tokens(size_t n, double val_frac, size_t *n_train) {
    if (!(val_frac >= 0.0 && val_frac < 1.0))
        return ordo_error(ORDO_ERR_ARG, "val fraction %g, expected 0 <= f < 1", val_frac);
    double k = floor((1.0 - val_frac) * (double)n);
    *n_train = k < 0 ? 0 : (size_t)k > n ? n : (size_t)k;
    return ORDO_OK;
}
