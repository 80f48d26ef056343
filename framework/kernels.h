// Kernels: forward/backward pairs on raw float arrays, side by side, as in llm.c.
// Outputs first, then inputs, then dims. Backward kernels ADD into their d-outputs (the one
// exception: ordo_crossentropy_backward in place, see there).
// Dims used throughout:
//   B  batch            T  sequence length      C  channels (d_model)
//   NH heads            hs head size (C / NH)   V  vocabulary size
//   N  rows (B*T or any leading product)        L  layers
#ifndef ORDO_KERNELS_H
#define ORDO_KERNELS_H
#include <stddef.h>
#include <stdint.h>

// The matrix product the ops call, ordo_gemm, is blas.h's: which GEMM runs it is a policy.
#include "framework/bf16.h"
#include "framework/blas.h"

// out[outer, inner] = a[outer, inner] + b[inner]
void ordo_add_forward(float *out, const float *a, const float *b, size_t outer, size_t inner);
// da += dout; db[inner] += the sum of dout over the outer rows. Either may be NULL (skipped).
void ordo_add_backward(float *da, float *db, const float *dout, size_t outer, size_t inner);
// out = a * b (b broadcast as above)
void ordo_mul_forward(float *out, const float *a, const float *b, size_t outer, size_t inner);
// da += dout * b; db[inner] += the sum of dout * a over the outer rows. Either may be NULL.
void ordo_mul_backward(float *da, float *db, const float *dout, const float *a, const float *b,
                       size_t outer, size_t inner);
// dbias[C] += the sum over the N rows of dout[N, C]: the bias of a linear layer, whose
// forward is ordo_gemm with beta 1 onto rows that hold the bias (ops.c).
void ordo_bias_backward(float *dbias, const float *dout, int N, int C);
// dst[c, r] += src[r, c] for src [R, C] and dst [C, R]: a transposed accumulate, in tiles
// (each element added once: the result does not depend on the thread count).
void ordo_add_transposed(float *dst, const float *src, int R, int C);

// out[N, C] = table[ids[N], C]; dtable[ids[i]] += dout[i] (repeated ids accumulate).
// ids must be rows of the table: not checked here.
void ordo_embedding_forward(float *out, const float *table, const int32_t *ids, int N, int C);
void ordo_embedding_backward(float *dtable, const float *dout, const int32_t *ids, int N, int C);

// LayerNorm over C: out = (x - mean) * rstd * w + b, rstd = 1 / sqrt(biased variance + eps);
// mean, rstd [N] saved.
void ordo_layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                            const float *b, int N, int C, float eps);
// dinp [N, C], dw [C], db [C] += their gradients; any of the three may be NULL (skipped).
void ordo_layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                             const float *w, const float *mean, const float *rstd, int N, int C);

// GELU, tanh approximation (GPT-2); backward adds into dinp.
void ordo_gelu_forward(float *out, const float *inp, size_t n);
void ordo_gelu_backward(float *dinp, const float *inp, const float *dout, size_t n);

// out[i] = exp(x[i] - shift) for i < n (a vectorised exp within 2 ulp of expf on [-87, 88];
// arguments outside are clamped to it, so e^-87 ~ 1.6e-38 stands for 0); returns the float
// sum of out. out may alias x.
float ordo_exp_sum(float *out, const float *x, float shift, int n);

// Softmax over the last dim C; backward adds into dinp, from the saved output `out`.
void ordo_softmax_forward(float *out, const float *inp, int N, int C);
void ordo_softmax_backward(float *dinp, const float *dout, const float *out, int N, int C);

// -log softmax(x)[target] over x [V]: the row max, then the exps in float lanes summed in
// double per block of 1024 (as ordo_crossentropy_forward sums them), the loss in double.
double ordo_row_nll(const float *x, int V, int target);
// Fused softmax + cross-entropy. logits [N, V]; targets [N], a target < 0 is ignored.
// Writes stats[2N] (the N row maxima, then the N logs of the shifted exp-sums) and returns
// the mean loss over counted rows (0 if none); *count receives the number of counted rows.
// Targets must be below V: not checked here.
double ordo_crossentropy_forward(float *stats, const float *logits, const int32_t *targets, int N,
                                 int V, int *count);
// The forward's two halves: the stats of logits [N, V] (as above), then total plus the
// counted rows' losses from those stats, added in row order (one sum at any thread count,
// and the same over chunks of rows as over all of them: lmhead.c's chunked head).
void ordo_crossentropy_stats(float *stats, const float *logits, int N, int V);
double ordo_crossentropy_sum(double total, const float *stats, const float *logits,
                             const int32_t *targets, int N, int V);
// dlogits[i] += scale * (softmax(logits[i]) - onehot(targets[i])) for counted rows, with the
// forward's stats; ignored rows are left alone. In place (dlogits == logits, row by row)
// the counted rows are overwritten with that gradient instead of added to, and ignored rows
// are zeroed. dlogits_bf16, when not NULL (in place only), receives the bf16 rounding of the
// whole result [N, V] in the same pass, as ordo_bf16_convert would give it afterwards (the
// LM head's bf16 backward reads only that: one pass over the logits less).
void ordo_crossentropy_backward(float *dlogits, ordo_bf16 *dlogits_bf16, const float *logits,
                                const float *stats, const int32_t *targets, int N, int V,
                                float scale);

// Causal multi-head self-attention. qkv [B, T, 3C] (q | k | v, head h at columns
// h*hs..), bias [NH, T, T] added to the scaled scores (may be NULL; batch row b reads it from
// bias + b * bias_bstride: 0 shares one bias, NH*T*T gives each row its own), att [B, NH, T, T]
// saved (softmax probabilities, zero above the diagonal), out [B, T, C] written (not added).
// Dropout on the probabilities (GPT-2's attn_pdrop): with keep [B, NH, T, T] not NULL, out
// is (att * keep * keep_scale) @ v while att keeps the probabilities undropped (the softmax
// backward and attention maps need them); scratch then holds
// ordo_attention_scratch_floats(T, 1) floats. keep NULL: scratch unused (may be NULL).
void ordo_attention_forward(float *out, float *att, const float *qkv, const float *bias,
                            size_t bias_bstride, const uint8_t *keep, float keep_scale,
                            float *scratch, int B, int T, int C, int NH);
// dqkv [B, T, 3C] += its gradient; dbias [NH, T, T] (may be NULL) += the scores' gradient
// summed over the batch in a fixed order (bias_bstride 0), or each row's into its own
// [NH, T, T] at b * bias_bstride; keep and keep_scale as the forward's.
// scratch: ordo_attention_scratch_floats(T, keep != NULL) floats.
void ordo_attention_backward(float *dqkv, float *dbias, size_t bias_bstride, const float *dout,
                             const float *qkv, const float *att, const uint8_t *keep,
                             float keep_scale, float *scratch, int B, int T, int C, int NH);
// The scratch of the attention kernels: one T x T block per OpenMP thread (two in backward
// with dropout), for the thread count in effect (ask again after ordo_set_threads).
size_t ordo_attention_scratch_floats(int T, int dropout);

// Rotary embedding of the q and k parts of qkv [B, T, 3C], rotate-half pairing over the first
// rd dims of each of the first nrot heads (i with i + rd/2; rd even, <= hs; nrot <= NH; rd = hs
// and nrot = NH: every dim of every head). cos/sin tables are [T, rd/2]; the other dims and
// heads, and v, pass to out [B, T, 3C] unchanged. per_row: the tables are [B, T, rd/2], a
// row per token (--pos-random's positions differ by sequence). Backward adds the transposed
// rotation of dout into dqkv, and the rest of dout as it is.
void ordo_rope_forward(float *out, const float *qkv, const float *cosv, const float *sinv, int B,
                       int T, int C, int NH, int rd, int nrot, int per_row);
void ordo_rope_backward(float *dqkv, const float *dout, const float *cosv, const float *sinv, int B,
                        int T, int C, int NH, int rd, int nrot, int per_row);

#endif
