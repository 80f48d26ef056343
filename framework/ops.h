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
// Runs one node's backward rule: the switch over the op enum that every op of ops.c pushes
// its nodes with (ordo_tape_push's `backward`).
void ordo_node_backward(ordo_ctx *ctx, ordo_node *n);
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
// The fused attention's backward rule (ops_flash.c), for ordo_node_backward's switch.
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
// Bias [NH, T, T] with out[h, i, j] = table[bucket[i*T + j], h]; table [nbuckets, NH].
ordo_tensor *ordo_rel_bias(ordo_ctx *ctx, ordo_tensor *table, const int32_t *bucket, int T);

// Inverted dropout, as torch's in training: out = x * keep / (1 - p) with keep[i] = 0 with
// probability p, p in [0, 1). The mask is ordo_dropout_mask(seed, offset + i): the same bits
// for the same (seed, offset) whatever the thread count. p = 0 returns x itself (no node,
// bit-identical to no dropout). Eval is the caller's business: it does not call this.
ordo_tensor *ordo_dropout(ordo_ctx *ctx, ordo_tensor *x, float p, uint64_t seed, size_t offset);
// keep[i] = 1 with probability 1 - p (to within 2^-32), from a counter-based hash of (seed,
// offset + i): element i depends on nothing else, so shares of a batch drawn apart (offsets)
// give the bits of the whole.
void ordo_dropout_mask(uint8_t *keep, size_t n, float p, uint64_t seed, size_t offset);
// ---- the learned relative biases of issue 15 (FIRE, Kerple); docs/positions.md.
// The causal pairs (i, j <= i) of a length T are numbered p = i(i+1)/2 + j, P = T(T+1)/2.
// out = max(x, 0) (gradient 0 at 0, as torch).
ordo_tensor *ordo_relu(ordo_ctx *ctx, ordo_tensor *x);
// FIRE's input of each causal pair, out [P, 1]: log(|c| (i-j) + 1) / (log(|c| max(i, L) + 1)
// + eps), L = |lmul * init_L|; c and lmul are [1]. Gradients flow to c and lmul (at i == L
// the max splits its gradient in halves, as torch.maximum).
ordo_tensor *ordo_fire_dist(ordo_ctx *ctx, ordo_tensor *c, ordo_tensor *lmul, int T, float init_L,
                            float eps);
// The same at per-row positions pos [B, T] (--pos-random; increasing in each row), out
// [B*P, 1]: i and j above read pos[b, i] and pos[b, j] (the normaliser max(pos[b, i], L)).
ordo_tensor *ordo_fire_dist_at(ordo_ctx *ctx, ordo_tensor *c, ordo_tensor *lmul, const int32_t *pos,
                               int B, int T, float init_L, float eps);
// x [P, NH] scattered to a bias [NH, T, T]: out[h, i, j] = x[p(i, j), h] for j <= i, 0 above.
// x [B*P, NH] (B > 1): per batch row, out [B, NH, T, T].
ordo_tensor *ordo_pair_bias(ordo_ctx *ctx, ordo_tensor *x, int T);
// Kerple's bias [NH, T, T] from r1, r2 [NH], d = i - j, j <= i (0 above): -r1 log(1 + r2 d),
// or with `power` -r1 d^r2. Computed as given (the model keeps r1, r2 positive).
// Kerple's value at distance d >= 0, -r1 log(1 + r2 d) (power: -r1 d^r2), in double, and its
// partial derivatives in r1 (*d1) and r2 (*d2): one expression for the materialized op and
// the fused attention's tiles (models/bias_tiles.c), so that both round to the same float.
double ordo_kerple_value(double r1, double r2, int d, int power, double *d1, double *d2);
ordo_tensor *ordo_kerple_bias(ordo_ctx *ctx, ordo_tensor *r1, ordo_tensor *r2, int T, int power);
// Kerple's value per distance d = 0..n-1 and head, out [n, NH] (as ordo_kerple_bias rounds it),
// for ordo_dist_bias_at.
ordo_tensor *ordo_kerple_table(ordo_ctx *ctx, ordo_tensor *r1, ordo_tensor *r2, int n, int power);
// ---- issue 26: dynamic position bias (dpb; x-transformers' DynamicPositionBias).
// out = x * sigmoid(x) = x / (1 + exp(-x)), in float.
ordo_tensor *ordo_silu(ordo_ctx *ctx, ordo_tensor *x);
// x [Tx, NH] (Tx >= T), a value per distance d = 0..Tx-1 and head, spread to a causal bias
// [NH, T, T]: out[h, i, j] = x[i - j, h] for j <= i, 0 above. Backward sums per distance.
ordo_tensor *ordo_dist_bias(ordo_ctx *ctx, ordo_tensor *x, int T);
// x [n, NH] spread at per-row positions pos [B, T] (--pos-random; increasing in each row, the
// distances below n): out [B, NH, T, T], out[b, h, i, j] = x[pos[b, i] - pos[b, j], h] for
// j <= i, 0 above. pos is read again by backward: it must live as long as the tape.
ordo_tensor *ordo_dist_bias_at(ordo_ctx *ctx, ordo_tensor *x, const int32_t *pos, int B, int T);

// ---- the forget gate (fox, issue 26; ops_gate.c)
// c [B, NH, T] from the gate logits z [B, T, NH]: c[b, h, t] = sum_{l <= t} log sigmoid(z[b,
// l, h]), summed in double and rounded once per element.
ordo_tensor *ordo_cum_logsigmoid(ordo_ctx *ctx, ordo_tensor *z);
// The materialized forget bias [B, NH, T, T] from c [B, NH, T]: c_i - c_j for j <= i (the
// sum of log f over positions j+1..i), 0 above the diagonal. For ordo_attention's per-row
// bias.
ordo_tensor *ordo_diff_bias(ordo_ctx *ctx, ordo_tensor *c);

// ---- contextual positions (cope, issue 26; ops_cope.c). The materialized path's two ops; the
// fused attention computes the same in its tiles (models/cope_tiles.c), both with cope.h's
// gate and interpolation.
// Positions p [B, NH, T, T] from qkv [B, T, 3C] (q, k of head h at h*hs): p_ij = min(sum_{l =
// j..i} gate(q_i . k_l / sqrt(hs)), P - 1) for j <= i (summed in double from l = i down,
// rounded once), 0 above the diagonal. Backward into q and k through the gates; a clamped
// p_ij passes no gradient (torch's clamp).
ordo_tensor *ordo_cope_positions(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int P);
// The bias [B, NH, T, T] from qkv, e [NH, P, hs] and p [B, NH, T, T]: ordo_cope_interp(q_i .
// e[h], p_ij) for j <= i, 0 above, with q unscaled (the reference's query @ pos_emb).
// Gradients to q, e and p (through w; floor and ceil are constants).
ordo_tensor *ordo_cope_bias(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *e, ordo_tensor *p);

#endif
