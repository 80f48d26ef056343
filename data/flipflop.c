// Flip-flop examples (see flipflop.h), every draw from ordo_rng so a seed gives the same
// examples on every machine.
#include "data/flipflop.h"

ordo_status ordo_flipflop_check(int len, double p_ignore) {
    if (len < 4 || len % 2)
        return ordo_error(ORDO_ERR_ARG,
                          "flipflop: an example of %d tokens, expected an even length >= 4 "
                          "(instruction-bit pairs)",
                          len);
    if (!(p_ignore >= 0 && p_ignore < 1))
        return ordo_error(ORDO_ERR_ARG, "--ff-ignore %g, expected a probability in [0, 1)",
                          p_ignore);
    return ORDO_OK;
}

ordo_status ordo_flipflop_example(const void *task, int len, double p_ignore, ordo_rng *r,
                                  int32_t *out, uint8_t *mask) {
    (void)task;
    ordo_status s = ordo_flipflop_check(len, p_ignore);
    if (s) return s;
    int bit = 0, n = len / 2;
    for (int k = 0; k < n; k++) {
        int op;
        if (k == 0) {
            op = ORDO_FF_W;
        } else if (k == n - 1) {
            op = ORDO_FF_R;
        } else {
            double u = ordo_rng_uniform(r);
            op = u < p_ignore                        ? ORDO_FF_I
                 : u < p_ignore + (1 - p_ignore) / 2 ? ORDO_FF_W
                                                     : ORDO_FF_R;
        }
        int b = op == ORDO_FF_R ? bit : (int)ordo_rng_below(r, 2);
        if (op == ORDO_FF_W) bit = b;
        out[2 * k] = op, mask[2 * k] = 0;
        out[2 * k + 1] = ORDO_FF_0 + b, mask[2 * k + 1] = op == ORDO_FF_R;
    }
    return ORDO_OK;
}
