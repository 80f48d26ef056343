// Selective-copying examples (see selcopy.h), every draw from ordo_rng so that a seed gives the
// same examples on every machine. The data positions are a uniform K-subset of the region, by
// selection sampling (Knuth's algorithm S): sorted as it is drawn, no scratch memory.
#include "data/selcopy.h"

ordo_status ordo_selcopy_check(const ordo_selcopy *s, int len, int tokens) {
    if (s->vocab < 4 || s->vocab > ORDO_SELCOPY_MAX_VOCAB)
        return ordo_error(ORDO_ERR_ARG,
                          "--sc-vocab %d, expected 4..%d (noise, marker and 2 data ids or more)",
                          s->vocab, ORDO_SELCOPY_MAX_VOCAB);
    if (tokens < 1 || 2 * tokens + 1 > len)
        return ordo_error(ORDO_ERR_ARG,
                          "selective-copy: an example of %d tokens cannot hold %d data tokens, "
                          "their marker and a region as long as their copy (it needs 2 x tokens "
                          "+ 1 = %d, and 1 token or more)",
                          len, tokens, 2 * tokens + 1);
    return ORDO_OK;
}

ordo_status ordo_selcopy_example(const void *task, int len, double tokens, ordo_rng *r,
                                 int32_t *out, uint8_t *mask) {
    const ordo_selcopy *sc = task;
    int K = (int)tokens;
    ordo_status s = ordo_selcopy_check(sc, len, K);
    if (s) return s;
    int region = len - 1 - K, left = K, k = 0;
    int32_t *copy = out + region + 1;
    for (int t = 0; t < region; t++) { // take slot t with probability left / (slots left)
        mask[t] = 0;
        out[t] = 0;
        if (left > 0 && ordo_rng_below(r, (uint64_t)(region - t)) < (uint64_t)left) {
            out[t] = 1 + (int32_t)ordo_rng_below(r, (uint64_t)(sc->vocab - 2));
            copy[k++] = out[t];
            left--;
        }
    }
    out[region] = sc->vocab - 1, mask[region] = 0;
    for (int i = 0; i < K; i++) mask[region + 1 + i] = 1;
    return ORDO_OK;
}
