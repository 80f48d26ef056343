// Autograd-lite: ops record a node on the context's tape during forward; backward walks
// the tape in reverse and each op's rule ADDS into its inputs' gradients, so a tensor used
// twice (tied head and token table, a position table broadcast over the batch) gets every
// contribution. Each node carries its backward rule, so the tape knows no op.
#ifndef ORDO_AUTOGRAD_H
#define ORDO_AUTOGRAD_H
#include "framework/tensor.h"

// The framework's ops, a tag per node: what gradcheck's coverage check counts and messages
// name. The layers above number their own ops from ORDO_OP_COUNT (the position schemes':
// models/pos/ops.h); the tape runs any node by the rule it carries, never by its tag.
typedef enum ordo_op {
    ORDO_OP_RESHAPE,
    ORDO_OP_MATMUL,          // out[*,N] = a[*,K] @ w (w [K,N], or [N,K] transposed)
    ORDO_OP_LINEAR,          // out[*,N] = a[*,K] @ w[K,N] + b[N]
    ORDO_OP_BMM,             // out[Bt,M,N] = op(a) @ op(b), batched
    ORDO_OP_ADD,             // out = a + b, b broadcast over a's leading dims
    ORDO_OP_MUL,             // out = a * b, b broadcast over a's leading dims
    ORDO_OP_SCALE,           // out = a * s
    ORDO_OP_EMBEDDING,       // out[..., C] = table[ids[...]]
    ORDO_OP_LAYERNORM,       // over the last dim, with gain and bias
    ORDO_OP_GELU,            // tanh approximation
    ORDO_OP_SOFTMAX,         // over the last dim
    ORDO_OP_ATTENTION,       // causal multi-head self-attention over qkv, optional score bias
    ORDO_OP_CROSS_ENTROPY,   // fused softmax + mean cross-entropy, integer targets
    ORDO_OP_SUM,             // to a scalar
    ORDO_OP_MEAN,            // to a scalar
    ORDO_OP_ROPE,            // rotation of pairs of dims of q and k inside qkv by given cos/sin
    ORDO_OP_DROPOUT,         // out = a * keep / (1 - p), a fixed mask (inverted dropout)
    ORDO_OP_RELU,            // max(x, 0)
    ORDO_OP_ATTENTION_FUSED, // tiled causal attention, bias computed in the tile (flash.h)
    ORDO_OP_LM_HEAD_LOSS,    // the LM head and mean cross-entropy in row chunks (lmhead.h)
    ORDO_OP_SCALE_BY,        // out = a * s[0], s a [1] tensor (a learned scale)
    ORDO_OP_SILU,            // x * sigmoid(x)
    ORDO_OP_COUNT
} ordo_op;
// Room for the tags of every layer's ops, the framework's and those numbered after them.
#define ORDO_OP_MAX_TAGS 64

// A node's backward rule: adds into the gradients of n's inputs from n->out->grad.
typedef void (*ordo_backward_fn)(ordo_ctx *ctx, ordo_node *n);
// One recorded op. The slots mean what each op makes them mean: the comment above each
// forward in ops.c says what that op stores here.
struct ordo_node {
    ordo_op op;
    ordo_backward_fn backward; // set at push: the tape calls it, knowing no op (ops.c's switch)
    ordo_tensor *out, *in[3];
    float *saved[2];     // per-op buffers kept for backward (e.g. mean/rstd, attention)
    const int32_t *ids;  // embedding ids, targets, bucket map
    const uint8_t *keep; // dropout masks (dropout, attention with dropout): 1 keeps
    int iarg[4];         // NH, transpose flags, counts, ...
    float farg[2];       // eps, scale, ...
    const void *extra;   // an op's own arguments in the arena (the fused attention's)
};

// Appends a node whose backward rule is `backward` (called by ops only when an input requires
// a gradient).
ordo_node *ordo_tape_push(ordo_ctx *ctx, ordo_op op, ordo_tensor *out, ordo_backward_fn backward);
// Whether an op over these inputs must record (grad enabled and some input needs grad).
int ordo_needs_grad(const ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b, ordo_tensor *c);

// Backpropagates from a scalar loss (seed gradient 1).
void ordo_backward(ordo_ctx *ctx, ordo_tensor *loss);
// Backpropagates from any tensor with a given upstream gradient dout (copied).
void ordo_backward_from(ordo_ctx *ctx, ordo_tensor *out, const float *dout);
const char *ordo_op_name(ordo_op op);

#endif
