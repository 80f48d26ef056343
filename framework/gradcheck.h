// Finite-difference gradient checking for any composition of ops: the loss is
// sum(out * R) for a fixed random R, the analytic gradient comes from backward, the
// numeric one from a 4-point central difference with the loss accumulated in double.
#ifndef ORDO_GRADCHECK_H
#define ORDO_GRADCHECK_H
#include <stdint.h>

#include "framework/autograd.h"
#include "framework/tensor.h"

// Builds the graph from the inputs (which must have ORDO_REQUIRES_GRAD and a grad buffer)
// and returns the output tensor. Called many times; must be deterministic.
typedef ordo_tensor *(*ordo_gradcheck_fn)(ordo_ctx *ctx, ordo_tensor **in, void *user);

typedef struct ordo_gradcheck_result {
    double max_rel_err; // max over checked coords of |a-n| / max(|a|, |n|, floor)
    double max_abs_err;
    int worst_input;
    size_t worst_index;
    double worst_analytic, worst_numeric;
    int checked;                    // coordinates compared
    int op_nodes[ORDO_OP_MAX_TAGS]; // nodes of each op tag on the tape the graph recorded
} ordo_gradcheck_result;

// Checks up to max_coords coordinates per input (all if the input is smaller), chosen
// with `seed`. h is the absolute step. floor = 0.1 * the largest |numeric gradient| of
// that input: a float32 forward leaves ~1e-6 of noise in every numeric derivative, so a
// coordinate whose gradient is tiny is judged against the scale of that input's gradient.
// op_nodes counts the graph's tape (of the analytic pass), so that a caller can check which
// ops its graphs exercised.
void ordo_gradcheck(ordo_gradcheck_fn fn, ordo_tensor **in, int nin, void *user, int max_coords,
                    double h, uint64_t seed, ordo_gradcheck_result *res);

#endif
