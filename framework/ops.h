// Ops: tensor-level operations. Each computes its output with a kernel pair from
// kernels.h and, when an input needs a gradient, records a node whose backward rule
// (defined right after the op's forward in ops.c) adds into the inputs' gradients.
// Shapes are invariants here: a mismatch is a bug in the caller and aborts.
#ifndef ORDO_OPS_H
#define ORDO_OPS_H
#include "framework/autograd.h"
#include "framework/flash.h"
#include "framework/tensor.h"

// A view of t with another shape of equal size (shares t's data); its gradient is copied
// back into t's.
ordo_tensor *ordo_reshape(ordo_ctx *ctx, ordo_tensor *t, int ndim, const int *shape);
// The same data seen with another shape of equal size (a view: shares data and grad), as
// ordo_reshape.
ordo_tensor *ordo_tensor_view(ordo_ctx *ctx, ordo_tensor *t, int ndim, const int *shape);
// out[*, N] = a[*, K] @ w, w [K, N] (or [N, K] with transpose_w, as for a tied LM head).
// When w has a bf16 copy (w->bf16: --precision bf16), the product and both backward products
// take bf16 operands (a rounded once, kept in a->bf16) and accumulate in float32 on oneDNN
// (dnnl.h); out and every gradient stay float32.
ordo_tensor *ordo_matmul(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *w, int transpose_w);
// out[*, N] = x[*, K] @ w[K, N] + b[N] (Conv1D layout, as GPT-2); b may be NULL. In bf16 when
// w->bf16 is set, as ordo_matmul; the bias is added in float32.
ordo_tensor *ordo_linear(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *w, ordo_tensor *b);
// Batched: a [Bt, M, K] (or [Bt, K, M] with ta), b [Bt, K, N] (or [Bt, N, K] with tb).
ordo_tensor *ordo_bmm(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b, int ta, int tb);
// out = a + b; b's shape equals a's trailing dims ([B,T,C] + [T,C], [B,T,C] + [C], or equal).
ordo_tensor *ordo_add(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b);
// out = a * b elementwise, b broadcast as in ordo_add.
ordo_tensor *ordo_mul(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b);
ordo_tensor *ordo_scale(ordo_ctx *ctx, ordo_tensor *a, float s);
// out = a * s[0], s a [1] tensor (a learned scalar, such as --pos-scale's wpe.scale); the
// gradient of s is sum(dout * a), summed in double.
ordo_tensor *ordo_scale_by(ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *s);
// out[shape..., C] = table[ids, :]; table [N, C]; ids (copied) must be in [0, N).
ordo_tensor *ordo_embedding(ordo_ctx *ctx, ordo_tensor *table, const int32_t *ids, int ndim,
                            const int *shape);
// LayerNorm over the last dim C with gain w[C] and bias b[C].
ordo_tensor *ordo_layernorm(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *w, ordo_tensor *b,
                            float eps);
ordo_tensor *ordo_gelu(ordo_ctx *ctx, ordo_tensor *x);
ordo_tensor *ordo_softmax(ordo_ctx *ctx, ordo_tensor *x);
// Causal self-attention: qkv [B, T, 3C] -> [B, T, C] over NH heads; bias [NH, T, T] added
// to the scaled scores, or [B, NH, T, T] (one per batch row), or NULL. The probabilities [B, NH, T,
// T] stay in the arena until reset; ctx->last_att points at them (for attention maps).
ordo_tensor *ordo_attention(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *bias, int NH);
// ordo_attention with dropout on the probabilities (GPT-2's attn_pdrop), p in [0, 1): the
// product with v reads att * keep / (1 - p), keep from ordo_dropout_mask(seed, offset + i)
// over [B, NH, T, T]; ctx->last_att still holds the undropped probabilities. p = 0 is
// ordo_attention exactly.
ordo_tensor *ordo_attention_dropout(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *bias, int NH,
                                    float p, uint64_t seed, size_t offset);
#define ORDO_FUSED_BIAS_MAX_PARAMS 6
// A position bias as ordo_attention_fused takes it: the kernels' tile functions (flash.h) and
// the parameters they differentiate, so that the two cannot be passed apart. g, the gradient
// that bias.grad (or bias.rows) accumulates, is the concatenation of params[0..n_params)'s
// grads in order: bias.n_grad (times the heads, or the batch and heads, for a per_head or
// per_batch bias) is the sum of their sizes. n_params 0: a constant bias (or none to learn).
typedef struct ordo_fused_bias {
    ordo_attn_bias bias;
    ordo_tensor *params[ORDO_FUSED_BIAS_MAX_PARAMS];
    int n_params;
} ordo_fused_bias;

// The same attention fused and tiled (flash.h; ops_flash.c): memory linear in T, nothing
// T x T made or kept (ctx->last_att untouched). bias NULL for none; else its fill adds the
// scores' bias inside each tile, and backward hands its grad the tiles' dS, whose summed
// gradient g is added into the grads of bias->params. *bias is copied; what bias->bias points
// to (self, rows) is the caller's and must stay alive and unchanged until backward has run
// (backward calls fill again, then grad). Dropout p in [0, 1) with the bits of
// ordo_attention_dropout (same seed and offset: the same keep mask).
ordo_tensor *ordo_attention_fused(ordo_ctx *ctx, ordo_tensor *qkv, const ordo_fused_bias *bias,
                                  int NH, float p, uint64_t seed, size_t offset);
// The fused attention's backward rule (ops_flash.c), which its nodes carry.
void ordo_attention_fused_backward(ordo_ctx *ctx, ordo_node *n);
// Mean cross-entropy of softmax(logits[..., V]) against targets (copied; < 0 ignored).
// Returns a scalar [1]; 0 if every target is ignored.
ordo_tensor *ordo_cross_entropy(ordo_ctx *ctx, ordo_tensor *logits, const int32_t *targets);
ordo_tensor *ordo_sum(ordo_ctx *ctx, ordo_tensor *a);
ordo_tensor *ordo_mean(ordo_ctx *ctx, ordo_tensor *a);
// Rotary embedding of q and k in qkv [B, T, 3C] over NH heads: positions pos0..pos0+T-1,
// theta_i = base^(-2i/hs), rotate-half pairing; v passes through. hs must be even.
ordo_tensor *ordo_rope(ordo_ctx *ctx, ordo_tensor *qkv, int NH, double base, int pos0);
// The same rotation with the caller's tables cos, sin [T, hs/2] (copied into the arena), for
// scaled frequencies or a factor on q and k folded into them (models/positional.h).
ordo_tensor *ordo_rope_cs(ordo_ctx *ctx, ordo_tensor *qkv, int NH, const float *cosv,
                          const float *sinv);
// The rotation of the first rd dims (even, 2..hs) of the first nrot heads (1..NH) only, with
// tables cos, sin [T, rd/2] (copied): partial rotary (GPT-NeoX's rotary_pct) and rope on a
// subset of heads; the other dims and heads pass through. rd = hs, nrot = NH is ordo_rope_cs.
ordo_tensor *ordo_rope_part(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int rd, int nrot,
                            const float *cosv, const float *sinv);
// ordo_rope_part with a table row per token, cos, sin [B, T, rd/2] (--pos-random: each
// sequence has its own positions). Not copied: they must live in ctx's arena (or longer)
// until the backward.
ordo_tensor *ordo_rope_rows(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int rd, int nrot,
                            const float *cosv, const float *sinv);
// Inverted dropout, as torch's in training: out = x * keep / (1 - p) with keep[i] = 0 with
// probability p, p in [0, 1). The mask is ordo_dropout_mask(seed, offset + i): the same bits
// for the same (seed, offset) whatever the thread count. p = 0 returns x itself (no node,
// bit-identical to no dropout). Eval is the caller's business: it does not call this.
ordo_tensor *ordo_dropout(ordo_ctx *ctx, ordo_tensor *x, float p, uint64_t seed, size_t offset);
// keep[i] = 1 with probability 1 - p (to within 2^-32), from a counter-based hash of (seed,
// offset + i): element i depends on nothing else, so shares of a batch drawn apart (offsets)
// give the bits of the whole.
void ordo_dropout_mask(uint8_t *keep, size_t n, float p, uint64_t seed, size_t offset);
// Activations, as torch's.
// out = max(x, 0) (gradient 0 at 0, as torch).
ordo_tensor *ordo_relu(ordo_ctx *ctx, ordo_tensor *x);
// out = x * sigmoid(x) = x / (1 + exp(-x)), in float.
ordo_tensor *ordo_silu(ordo_ctx *ctx, ordo_tensor *x);

#endif
