// Kernels: forward/backward pairs on raw float arrays, side by side, as in llm.c.
// Outputs first, then inputs, then dims. Backward kernels ADD into their d-outputs.
// Dims used throughout:
//   B  batch            T  sequence length      C  channels (d_model)
//   NH heads            hs head size (C / NH)   V  vocabulary size
//   N  rows (B*T or any leading product)        L  layers
#ifndef ORDO_KERNELS_H
#define ORDO_KERNELS_H
#include <stddef.h>
#include <stdint.h>

// The matrix product the ops call, ordo_gemm, is blas.h's: which GEMM runs it is a policy.
#include "framework/blas.h"

// out[outer, inner] = a[outer, inner] + b[inner]
void ordo_add_forward(float *out, const float *a, const float *b, size_t outer, size_t inner);
void ordo_add_backward(float *da, float *db, const float *dout, size_t outer, size_t inner);
// out = a * b (b broadcast as above)
void ordo_mul_forward(float *out, const float *a, const float *b, size_t outer, size_t inner);
void ordo_mul_backward(float *da, float *db, const float *dout, const float *a, const float *b,
                       size_t outer, size_t inner);
// out[N, C] = inp[N, C] + bias[C] (bias may be NULL); dbias[C] += sum over rows of dout.
void ordo_bias_backward(float *dbias, const float *dout, int N, int C);

// out[N, C] = table[ids[N], C]; dtable[ids[i]] += dout[i] (repeated ids accumulate).
void ordo_embedding_forward(float *out, const float *table, const int32_t *ids, int N, int C);
void ordo_embedding_backward(float *dtable, const float *dout, const int32_t *ids, int N, int C);

// LayerNorm over C: out = (x - mean) * rstd * w + b; mean, rstd [N] saved.
void ordo_layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                            const float *b, int N, int C, float eps);
void ordo_layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                             const float *w, const float *mean, const float *rstd, int N, int C);

// GELU, tanh approximation (GPT-2).
void ordo_gelu_forward(float *out, const float *inp, size_t n);
void ordo_gelu_backward(float *dinp, const float *inp, const float *dout, size_t n);

// out[i] = exp(x[i] - shift) for i < n (a vectorised exp within 2 ulp of expf); returns
// the float sum of out. out may alias x.
float ordo_exp_sum(float *out, const float *x, float shift, int n);

// Softmax over the last dim C.
void ordo_softmax_forward(float *out, const float *inp, int N, int C);
void ordo_softmax_backward(float *dinp, const float *dout, const float *out, int N, int C);

// Fused softmax + cross-entropy. logits [N, V]; targets [N], a target < 0 is ignored.
// Writes stats[2N] (row max, then log of the shifted exp-sum) and returns the mean loss
// over counted rows (0 if none); *count receives the number of counted rows.
double ordo_crossentropy_forward(float *stats, const float *logits, const int32_t *targets, int N,
                                 int V, int *count);
// dlogits[i] += scale * (softmax(logits[i]) - onehot(targets[i])) for counted rows.
// dlogits may alias logits (the rows are read before they are written).
void ordo_crossentropy_backward(float *dlogits, const float *logits, const float *stats,
                                const int32_t *targets, int N, int V, float scale);

// Causal multi-head self-attention. qkv [B, T, 3C] (q | k | v, head h at columns
// h*hs..), bias [NH, T, T] added to the scaled scores (may be NULL), att [B, NH, T, T]
// saved (softmax probabilities, zero above the diagonal), out [B, T, C].
void ordo_attention_forward(float *out, float *att, const float *qkv, const float *bias, int B,
                            int T, int C, int NH);
// scratch: ordo_attention_scratch_floats(T) floats, reused across calls.
void ordo_attention_backward(float *dqkv, float *dbias, const float *dout, const float *qkv,
                             const float *att, float *scratch, int B, int T, int C, int NH);
size_t ordo_attention_scratch_floats(int T);

// Rotary embedding of the q and k parts of qkv [B, T, 3C], per head, rotate-half pairing
// (i with i + hs/2). cos/sin tables are [T, hs/2]; v is copied unchanged.
void ordo_rope_forward(float *out, const float *qkv, const float *cosv, const float *sinv, int B,
                       int T, int C, int NH);
void ordo_rope_backward(float *dqkv, const float *dout, const float *cosv, const float *sinv, int B,
                        int T, int C, int NH);

// out[h, k] = table[bucket[k], h] for k over a T*T map; dtable[bucket[k], h] += dout[h, k].
void ordo_relbias_forward(float *out, const float *table, const int32_t *bucket, int TT, int NH);
void ordo_relbias_backward(float *dtable, const float *dout, const int32_t *bucket, int TT, int NH);

#endif
