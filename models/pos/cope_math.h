// CoPE's per-pair arithmetic, shared by its materialized ops (ops_cope.c) and its fused tiles
// (models/cope_tiles.c), so that both paths compute the same gate and the same bias from the
// same score and position. Inline, as dropout.h's bits: the tiles call them once per causal
// pair, where a call through another object file cost more than the arithmetic.
#ifndef ORDO_POS_COPE_MATH_H
#define ORDO_POS_COPE_MATH_H
#include <math.h>

#include "framework/kernels.h"

// The gates of n scores, g[c] = sigmoid(s[c]) = 1 / (1 + exp(-s[c])), vectorised: exp through
// ordo_exp_sum (within 2 ulp of expf; a score past +-87 gives a gate within 1e-38 of 0 or 1).
// g may alias s.
static inline void ordo_cope_gates(float *g, const float *s, int n) {
    for (int c = 0; c < n; c++) g[c] = -s[c];
    if (n > 0) ordo_exp_sum(g, g, 0.0f, n);
#pragma omp simd
    for (int c = 0; c < n; c++) g[c] = 1.0f / (1.0f + g[c]);
}

// The bias at position p (0 <= p <= P - 1) from a row lp [P] of q_i . e[k]: lp[ceil p] w +
// lp[floor p] (1 - w), w = p - floor p, the reference's expression and order.
static inline float ordo_cope_interp(const float *lp, float p) {
    float f = floorf(p), w = p - f;
    return lp[(int)ceilf(p)] * w + lp[(int)f] * (1.0f - w);
}

// s[c] += ordo_cope_interp(lp, p[c]) for c < n: a loop the compiler can vectorise (gathers).
static inline void ordo_cope_add_interp(float *s, const float *lp, const float *p, int n) {
#pragma omp simd
    for (int c = 0; c < n; c++) s[c] += ordo_cope_interp(lp, p[c]);
}

#endif
