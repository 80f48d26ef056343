// Per-answer scoring of fixed-length tasks (see answers.h): the examples come from a cell
// seed and ordo_rng alone, so two machines score the same examples.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/answers.h"

static uint64_t cell_seed(uint64_t seed, int len, double param) {
    uint64_t p = (uint64_t)llround(param * 1e6);
    return seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(len + 1)) ^ (0xbf58476d1ce4e5b9ULL * (p + 1));
}

ordo_status ordo_answers_score(ordo_answers_example make, const void *task, int len, double param,
                               int examples, uint64_t seed, int chunk, ordo_answers_predict predict,
                               void *ctx, long long *right, long long *answers) {
    *right = 0, *answers = 0;
    if (chunk < 1) chunk = 1;
    if (len < 2)
        return ordo_error(ORDO_ERR_ARG, "an example of %d tokens, expected 2 or more", len);
    int T = len - 1; // inputs: all but the last token
    int32_t *ex = ordo_xmalloc((size_t)chunk * (size_t)len * sizeof *ex);
    uint8_t *mask = ordo_xmalloc((size_t)chunk * (size_t)len);
    int32_t *in = ordo_xmalloc((size_t)chunk * (size_t)T * sizeof *in);
    int32_t *pred = ordo_xmalloc((size_t)chunk * (size_t)T * sizeof *pred);
    int *from = ordo_xmalloc((size_t)chunk * sizeof *from);
    ordo_rng r;
    ordo_rng_seed(&r, cell_seed(seed, len, param));
    ordo_status s = ORDO_OK;
    for (int done = 0; done < examples && !s;) {
        int rows = examples - done < chunk ? examples - done : chunk;
        for (int i = 0; i < rows && !s; i++) {
            s = make(task, len, param, &r, ex + (size_t)i * len, mask + (size_t)i * len);
            memcpy(in + (size_t)i * T, ex + (size_t)i * len, (size_t)T * sizeof *in);
            from[i] = T - 1; // the last position, when no earlier one is an answer's
            for (int t = len - 1; t >= 1; t--)
                if (mask[(size_t)i * len + t]) from[i] = t - 1;
        }
        if (!s) s = predict(ctx, in, rows, T, from, pred);
        for (int i = 0; i < rows && !s; i++)
            for (int t = 1; t < len; t++) { // position t-1 predicts token t
                if (!mask[(size_t)i * len + t]) continue;
                *answers += 1;
                *right += pred[(size_t)i * T + t - 1] == ex[(size_t)i * len + t];
            }
        done += rows;
    }
    free(ex);
    free(mask);
    free(in);
    free(pred);
    free(from);
    return s;
}
