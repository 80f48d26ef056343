// The fused, tiled causal attention (online softmax, FlashAttention-2 style): memory linear
// in T. Only O [B, T, C] and the row log-sum-exp [B, NH, T] are kept; backward recomputes
// each score tile from q, k, v and the log-sum-exp. A position bias is never materialised:
// the caller hands a tile function that adds the bias of a block of (query, key) pairs, and
// for backward a function that takes the tile's dL/dscore and accumulates the bias
// parameters' gradients. framework/ knows no scheme: models/ provides both functions.
//
// Scores: s[h, i, j] = scale * q_i . k_j + bias(h, i, j) for j <= i (causal), scale =
// 1/sqrt(hs); p = softmax over j; out_i = sum_j p_ij v_j (with dropout: p_ij * keep_ij / (1 -
// p_drop), keep from ordo_dropout_mask's counter-based hash at index ((b*NH + h)*T + i)*T + j
// + offset, the same bits as the materialised path).
//
// Deterministic: the result does not depend on the thread count (fixed tile order per
// (b, h); the bias gradients summed over (b, h) in a fixed order; no atomics).
#ifndef ORDO_FLASH_H
#define ORDO_FLASH_H
#include <stddef.h>
#include <stdint.h>

typedef struct ordo_attn_bias {
    const void *self; // the scheme's state (tables, parameter values); read only
    // s[r*ld + c] += bias(h, i0 + r, j0 + c) for r < nr, c < nc. Called only for tiles that
    // hold at least one causal pair; entries above the diagonal may get any finite value
    // (the kernel masks them afterwards).
    void (*fill)(const void *self, int h, int i0, int nr, int j0, int nc, float *s, int ld);
    // g[0..n_grad) += dL/dparameters, given ds[r*ld + c] = dL/dbias(h, i0 + r, j0 + c) (zero
    // above the diagonal). NULL when the bias has no parameters (alibi).
    void (*grad)(const void *self, int h, int i0, int nr, int j0, int nc, const float *ds,
                 int ld, float *g);
    size_t n_grad; // floats of g: the scheme's parameter gradients, laid out as it chooses
} ordo_attn_bias;

#endif
