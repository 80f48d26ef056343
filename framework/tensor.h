// Tensors: float32, contiguous, row-major, up to 4 dims. A tensor is a pointer and a
// shape; parameters own their memory through the parameter block (params.h), everything
// else lives in the per-step arena of an ordo_ctx.
#ifndef ORDO_TENSOR_H
#define ORDO_TENSOR_H
#include <stddef.h>
#include <stdint.h>

#include "framework/arena.h"
#include "framework/bf16.h"

#define ORDO_MAX_DIMS   4
#define ORDO_FREE_GRADS 64

enum ordo_tensor_flags {
    ORDO_PARAM = 1 << 0,         // a model parameter (lives in the parameter block)
    ORDO_NO_DECAY = 1 << 1,      // excluded from weight decay (biases, LayerNorm gains)
    ORDO_REQUIRES_GRAD = 1 << 2, // backward computes a gradient for it
    ORDO_POSITION = 1 << 3,      // a position parameter (the model's scheme: --no-decay-pos)
    // nothing reads this activation after the forward, so backward may overwrite its data
    // with its gradient (the [B*T, V] logits: saves their size in memory and a pass)
    ORDO_GRAD_IN_PLACE = 1 << 4,
    // a weight that the model multiplies in bf16 under --precision bf16: it gets a bf16 copy
    // (ordo_params_bf16_enable), and the matmul ops then read that copy (ops.c)
    ORDO_MATMUL_WEIGHT = 1 << 5,
    // the output of a bf16 matmul, whose backward reads only the bf16 rounding of its
    // gradient: an op that writes that gradient in place (ORDO_GRAD_IN_PLACE) may leave the
    // rounding in grad_bf16 too, in the same pass (the LM head's logits, cross-entropy)
    ORDO_GRAD_BF16 = 1 << 6,
};

typedef struct ordo_tensor {
    float *data; // row-major; owned by the arena or the parameter block
    float *grad; // same shape; NULL until backward needs it
    // data rounded to bf16, for the bf16 matmuls (--precision bf16); NULL otherwise. Matmul
    // weights: owned by the parameter block, refreshed after each update
    // (ordo_params_bf16_refresh). Activations: made by the first bf16 matmul that reads
    // them, in the arena, and reused by every later one in the step (forward and backward).
    ordo_bf16 *bf16;
    ordo_bf16 *grad_bf16; // grad rounded to bf16 (ORDO_GRAD_BF16), or NULL
    int ndim, shape[ORDO_MAX_DIMS];
    size_t n;
    int flags;
    const char *name; // the checkpoint name for parameters, NULL otherwise
} ordo_tensor;

typedef struct ordo_node ordo_node;

// A context is one forward/backward pass's memory: the arena and the tape.
typedef struct ordo_ctx {
    ordo_arena arena;
    ordo_node *tape;
    int ntape, cap_tape;
    int grad_enabled; // 0: ops record nothing (eval, sampling)
    // 1: backward recycles the gradient of an activation once the op that made it has run
    // backward (nothing reads it after that), so activation gradients take the memory of
    // the few alive at a time, not of all of them; their ->grad is then NULL after backward.
    // Parameter gradients are never recycled. Off by default (tests read activation grads).
    int reuse_grads;
    struct {
        float *p;
        size_t n;
    } free_grads[ORDO_FREE_GRADS]; // dead gradient buffers (floats), reset with the arena
    int nfree;
    const float *last_att; // probabilities [B, NH, T, T] of the latest attention op (viz)
} ordo_ctx;

void ordo_ctx_init(ordo_ctx *ctx);
// Drops the tape and every arena tensor; keeps the memory for the next step.
void ordo_ctx_reset(ordo_ctx *ctx);
void ordo_ctx_free(ordo_ctx *ctx);

// A new arena tensor of the given shape (uninitialised data, no grad).
ordo_tensor *ordo_tensor_new(ordo_ctx *ctx, int ndim, const int *shape);
ordo_tensor *ordo_tensor_new2(ordo_ctx *ctx, int d0, int d1);
ordo_tensor *ordo_tensor_new3(ordo_ctx *ctx, int d0, int d1, int d2);
ordo_tensor *ordo_tensor_zeros(ordo_ctx *ctx, int ndim, const int *shape);
// A tensor header in the arena over memory the caller owns (no copy).
ordo_tensor *ordo_tensor_wrap(ordo_ctx *ctx, float *data, int ndim, const int *shape);

size_t ordo_shape_numel(int ndim, const int *shape);
int ordo_tensor_same_shape(const ordo_tensor *a, const ordo_tensor *b);
// "[3,16,32]" into buf; returns buf.
char *ordo_shape_str(int ndim, const int *shape, char *buf, size_t cap);

// The gradient buffer of t, allocated zero-filled from the arena on first use; NULL if
// t does not require a gradient (the caller then skips that contribution).
float *ordo_tensor_grad(ordo_ctx *ctx, ordo_tensor *t);
// With ctx->reuse_grads: hands t's gradient buffer to a later ordo_tensor_grad and sets
// t->grad to NULL (never for parameters or an in-place gradient). No-op otherwise.
void ordo_tensor_release_grad(ordo_ctx *ctx, ordo_tensor *t);

#endif
