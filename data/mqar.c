// MQAR examples (see mqar.h). All draws come from ordo_rng, so a seed gives the same examples
// on every machine. The slots are drawn one at a time, each from the weights of the slots not
// yet taken: numpy's choice(replace=False, p=...) in zoology's generator draws the same way.
#include <math.h>
#include <stdlib.h>

#include "data/mqar.h"

ordo_status ordo_mqar_check(const ordo_mqar *m, int len, int pairs) {
    if (m->vocab < 4 || m->vocab > ORDO_MQAR_MAX_VOCAB)
        return ordo_error(ORDO_ERR_ARG, "--mqar-vocab %d, expected 4..%d", m->vocab,
                          ORDO_MQAR_MAX_VOCAB);
    if (!(m->power_a > 0 && m->power_a <= 1))
        return ordo_error(ORDO_ERR_ARG, "--mqar-power %g, expected a number in (0, 1]", m->power_a);
    if (pairs < 1 || pairs > m->vocab / 2 - 1)
        return ordo_error(ORDO_ERR_ARG,
                          "mqar: %d pairs, expected 1..%d (distinct keys of --mqar-vocab %d)",
                          pairs, m->vocab / 2 - 1, m->vocab);
    if (4 * pairs > len)
        return ordo_error(ORDO_ERR_ARG,
                          "mqar: an example of %d tokens cannot hold %d pairs and their queries "
                          "(it needs 4 x pairs = %d)",
                          len, pairs, 4 * pairs);
    return ORDO_OK;
}

// k distinct ids from lo..hi-1 into out (partial Fisher-Yates over a scratch array).
static void distinct(ordo_rng *r, int lo, int hi, int k, int *scratch, int *out) {
    int n = hi - lo;
    for (int i = 0; i < n; i++) scratch[i] = lo + i;
    for (int i = 0; i < k; i++) {
        int j = i + (int)ordo_rng_below(r, (uint64_t)(n - i));
        int t = scratch[i];
        scratch[i] = scratch[j];
        scratch[j] = t;
        out[i] = scratch[i];
    }
}

ordo_status ordo_mqar_example(const void *task, int len, double pairs, ordo_rng *r, int32_t *out,
                              uint8_t *mask) {
    const ordo_mqar *m = task;
    int D = (int)pairs;
    ordo_status s = ordo_mqar_check(m, len, D);
    if (s) return s;
    int V = m->vocab, half = V / 2, first = 2 * D, space = (len - first) / 2;
    int *scratch = ordo_xmalloc((size_t)(half > space ? half : space) * sizeof *scratch);
    int *keys = ordo_xmalloc((size_t)D * sizeof *keys),
        *vals = ordo_xmalloc((size_t)D * sizeof *vals);
    double *w = ordo_xmalloc((size_t)space * sizeof *w);
    distinct(r, 1, half, D, scratch, keys);
    distinct(r, half, V, D, scratch, vals);
    for (int i = 0; i < len; i++) out[i] = (int32_t)ordo_rng_below(r, (uint64_t)V), mask[i] = 0;
    for (int i = 0; i < D; i++) out[2 * i] = keys[i], out[2 * i + 1] = vals[i];
    double total = 0;
    for (int g = 0; g < space; g++) total += w[g] = pow(g + 1, m->power_a - 1);
    for (int i = 0; i < D; i++) { // key i's slot, from the slots left
        double u = ordo_rng_uniform(r) * total;
        int g = 0, last = -1;
        for (; g < space; g++) {
            if (w[g] == 0) continue;
            last = g;
            if ((u -= w[g]) < 0) break;
        }
        if (g == space) g = last; // rounding at the end of the sum
        total -= w[g];
        w[g] = 0;
        int at = first + 2 * g;
        out[at] = keys[i], out[at + 1] = vals[i], mask[at + 1] = 1;
    }
    free(scratch);
    free(keys);
    free(vals);
    free(w);
    return ORDO_OK;
}
