// The tape: a growable array of nodes (it stops growing after the first step) and the
// reverse walk. What each op does backward lives beside its forward in ops.c; the walk calls
// the rule each node was pushed with, so the tape knows nothing of the ops.
#include <stdlib.h>
#include <string.h>

#include "framework/autograd.h"
#include "sys/error.h"

ordo_node *ordo_tape_push(ordo_ctx *ctx, ordo_op op, ordo_tensor *out, ordo_backward_fn backward) {
    ORDO_ASSERT(op >= 0 && op < ORDO_OP_MAX_TAGS && backward);
    if (ctx->ntape == ctx->cap_tape) {
        ctx->cap_tape = ctx->cap_tape ? 2 * ctx->cap_tape : 256;
        ctx->tape = ordo_xrealloc(ctx->tape, (size_t)ctx->cap_tape * sizeof *ctx->tape);
    }
    ordo_node *n = &ctx->tape[ctx->ntape++];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->backward = backward;
    n->out = out;
    out->flags |= ORDO_REQUIRES_GRAD;
    return n;
}

int ordo_needs_grad(const ordo_ctx *ctx, ordo_tensor *a, ordo_tensor *b, ordo_tensor *c) {
    if (!ctx->grad_enabled) return 0;
    return (a && (a->flags & ORDO_REQUIRES_GRAD)) || (b && (b->flags & ORDO_REQUIRES_GRAD)) ||
           (c && (c->flags & ORDO_REQUIRES_GRAD));
}

static void walk(ordo_ctx *ctx) {
    for (int i = ctx->ntape - 1; i >= 0; i--) {
        ordo_node *n = &ctx->tape[i];
        if (!n->out->grad) continue; // nothing flowed into this node's output
        n->backward(ctx, n);
        // every op that read n->out ran backward before n (the tape is in forward order),
        // so its gradient is complete and no longer needed
        ordo_tensor_release_grad(ctx, n->out);
    }
}

void ordo_backward(ordo_ctx *ctx, ordo_tensor *loss) {
    ORDO_ASSERT(loss->n == 1);
    float one = 1.0f;
    ordo_backward_from(ctx, loss, &one);
}

void ordo_backward_from(ordo_ctx *ctx, ordo_tensor *out, const float *dout) {
    float *g = ordo_tensor_grad(ctx, out);
    ORDO_ASSERT(g); // backward from a tensor that no parameter influences
    for (size_t i = 0; i < out->n; i++) g[i] += dout[i];
    walk(ctx);
}

// Sized by its entries, so that an op appended to the enum without a name here fails the
// assertion below (a gap in the middle reads "?"; test_ops_gradcheck checks every name).
static const char *const op_names[] = {
    [ORDO_OP_RESHAPE] = "reshape",
    [ORDO_OP_MATMUL] = "matmul",
    [ORDO_OP_LINEAR] = "linear",
    [ORDO_OP_BMM] = "bmm",
    [ORDO_OP_ADD] = "add",
    [ORDO_OP_MUL] = "mul",
    [ORDO_OP_SCALE] = "scale",
    [ORDO_OP_EMBEDDING] = "embedding",
    [ORDO_OP_LAYERNORM] = "layernorm",
    [ORDO_OP_GELU] = "gelu",
    [ORDO_OP_SOFTMAX] = "softmax",
    [ORDO_OP_ATTENTION] = "attention",
    [ORDO_OP_CROSS_ENTROPY] = "cross_entropy",
    [ORDO_OP_SUM] = "sum",
    [ORDO_OP_MEAN] = "mean",
    [ORDO_OP_ROPE] = "rope",
    [ORDO_OP_DROPOUT] = "dropout",
    [ORDO_OP_RELU] = "relu",
    [ORDO_OP_SCALE_BY] = "scale_by",
    [ORDO_OP_SILU] = "silu",
    [ORDO_OP_ATTENTION_FUSED] = "attention_fused",
    [ORDO_OP_LM_HEAD_LOSS] = "lm_head_loss",
};
_Static_assert(sizeof op_names / sizeof op_names[0] == ORDO_OP_COUNT,
               "op_names must name every op of enum ordo_op");

const char *ordo_op_name(ordo_op op) {
    return op >= 0 && op < ORDO_OP_COUNT && op_names[op] ? op_names[op] : "?";
}
