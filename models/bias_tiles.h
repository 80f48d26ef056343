// The position biases of the score-biasing schemes (alibi, t5, fire, kerple, kerple-power, dpb,
// fox, cope) as the fused attention's tile functions (framework/flash.h): `fill` adds the bias of a
// block of (query, key) pairs of one head, `grad` accumulates the bias parameters' gradients
// from that block's dL/dscore. Nothing T x T is ever made: each scheme keeps what depends on one
// index only (a value per distance, a normaliser per query row), at most O(NH * T) floats.
//
// Each reproduces the materialized bias (ordo_gpt_position_bias) and its parameter
// gradients: the distance tile bit for bit in the bias (the table's floats); fire to float
// rounding (its MLP is evaluated as the piecewise-linear function it is, in double). The
// gradients agree to float rounding (sums in another order).
//
// Each constructor returns the bias and its state in the context's arena (alive until the
// next reset, so through backward), made from the parameters' values at the call (build it
// once per forward, after any clamp); the state is read only: fill and grad may run on many
// threads at once. g is the concatenation of the gradients of params[0..n_params), in order,
// which is what the fused op's backward scatters into those tensors' grads.
#ifndef ORDO_BIAS_TILES_H
#define ORDO_BIAS_TILES_H
#include "framework/flash.h"
#include "framework/ops.h"
#include "framework/tensor.h"

#define ORDO_FIRE_MAX_WIDTH 64 // the hidden width the fire tiles take (ordo uses 32)

// The bias and the parameters whose grads g concatenates, in order: what the fused op takes.
typedef ordo_fused_bias ordo_bias_tiles;

// FIRE at lengths up to T (no limit but memory: 5 doubles per position): the MLP
// w2^T relu(w1 u + b1) + b2 of u = log(|c| d + 1) / (log(|c| max(i, L) + 1) + eps), L =
// |lmul * init_L|, as ordo_fire_dist and the model's fire_bias. w1 [1, W], b1 [W], w2 [W, NH],
// b2 [NH], c and lmul [1]; W <= ORDO_FIRE_MAX_WIDTH. params: {w1, b1, w2, b2, c, lmul}.
ordo_bias_tiles *ordo_fire_tiles(ordo_ctx *ctx, ordo_tensor *w1, ordo_tensor *b1, ordo_tensor *w2,
                                 ordo_tensor *b2, ordo_tensor *c, ordo_tensor *lmul, int T,
                                 float init_L, float eps);
// Any bias by distance from a table [n, NH] of a value per (distance, head), made once per
// forward (dpb's MLP output, on the tape; a constant table): the tile reads table[d, h] at the
// pair's distance d, i - j at 0..T-1 (pos NULL, B not read, n >= T), pos[b, i] - pos[b, j] at
// positions pos [B, T] (increasing along each row, the distances below n). params: {table},
// only when the table requires a gradient: its gradient [n, NH] is each distance's sum of dS,
// which the tape backpropagates through what made it once. The table and pos must stay alive
// and unchanged until backward (in the forward's arena).
ordo_bias_tiles *ordo_distance_tiles(ordo_ctx *ctx, ordo_tensor *table, const int32_t *pos, int B,
                                     int T);
// Fox (the Forgetting Transformer's forget bias) from c [B, NH, T], the prefix sums of log f
// (ordo_cum_logsigmoid): c_i - c_j, as ordo_diff_bias. Per batch row (bias.per_batch): the
// gradient g is dc [B, NH, T] itself. c is read at each fill, so it must stay unchanged until
// backward. params: {c} (an activation: its gradient flows on to the gate).
ordo_bias_tiles *ordo_fox_tiles(ordo_ctx *ctx, ordo_tensor *c);
// CoPE (contextual positions; models/cope_tiles.c) of one layer from its qkv [B, T, 3C] (read
// at each call: unchanged until backward) and position embeddings e [NH, P, hs]: the bias of
// ordo_cope_positions and ordo_cope_bias, computed in the tiles as a bias of the row's scores
// (bias.rows, framework/flash.h): nothing T x T, per thread [64, P] floats forward and
// [T, 2P] backward, and [B, NH, T] kept from forward for backward. per_head: g is de [NH, P,
// hs]. params: {e}; its gradient into q goes straight to dqkv, through the gates to q and k.
ordo_bias_tiles *ordo_cope_tiles(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *e);

// ---- --pos-random: FIRE at drawn positions pos [B, T] (increasing along each row), the pair
// (i, j) of batch row b at distance pos[b, i] - pos[b, j] < n (n >= T), as the materialized
// ordo_gpt_position_bias_at, and its normaliser max(pos[b, i], L) per query row. The fill
// reads row b's positions; the gradients are those above, summed over (b, h) by the kernel.
// pos must stay unchanged until backward.
ordo_bias_tiles *ordo_fire_tiles_at(ordo_ctx *ctx, ordo_tensor *w1, ordo_tensor *b1,
                                    ordo_tensor *w2, ordo_tensor *b2, ordo_tensor *c,
                                    ordo_tensor *lmul, const int32_t *pos, int B, int T, int n,
                                    float init_L, float eps);

#endif
