// CoPE's per-pair arithmetic, shared by its materialised ops (ops_cope.c) and its fused tiles
// (models/cope_tiles.c), so that both paths compute the same gate and the same bias from the
// same score and position. Inline, as dropout.h's bits: the tiles call them once per causal
// pair, where a call through another object file cost more than the arithmetic.
#ifndef ORDO_COPE_H
#define ORDO_COPE_H
#include <math.h>

// The gate of a score, sigmoid(s) = 1 / (1 + exp(-s)), in float.
static inline float ordo_cope_gate(float s) {
    return 1.0f / (1.0f + expf(-s));
}

// The bias at position p (0 <= p <= P - 1) from a row lp [P] of q_i . e[k]: lp[ceil p] w +
// lp[floor p] (1 - w), w = p - floor p, the reference's expression and order.
static inline float ordo_cope_interp(const float *lp, float p) {
    float f = floorf(p), w = p - f;
    return lp[(int)ceilf(p)] * w + lp[(int)f] * (1.0f - w);
}

#endif
