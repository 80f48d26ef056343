// The unigram entropy of a split (see unigram.h): one counting pass and H = ln N - (1/N)
// sum_t c_t ln c_t, in double, so that the level of a million-token split is exact to
// many more digits than a loss is logged with.
#include "data/unigram.h"

#include <math.h>
#include <stdlib.h>

#include "sys/error.h"

double ordo_unigram_entropy(const int32_t *ids, const int32_t *targets, size_t n, int vocab,
                            size_t *counted) {
    *counted = 0;
    if (n < 2 || vocab <= 0) return NAN;
    uint64_t *count = ordo_xcalloc((size_t)vocab, sizeof *count);
    size_t total = 0;
    for (size_t k = 1; k < n; k++) {
        int32_t t = targets ? targets[k] : ids[k];
        if (t < 0 || t >= vocab) continue;
        count[t]++;
        total++;
    }
    double sum = 0;
    for (int t = 0; t < vocab; t++)
        if (count[t]) sum += (double)count[t] * log((double)count[t]);
    free(count);
    *counted = total;
    return total ? log((double)total) - sum / (double)total : NAN;
}
