// The LM head and its softmax cross-entropy as one op, in chunks of rows: the logits of
// `chunk` rows at a time, so that the [N, V] logits (412 MB for `small`: N = 2048 rows, GPT-2's
// V = 50257) and their gradient never exist whole. Memory in N is then linear with a small
// constant: N * C for x's gradient, plus one chunk and the head's gradient, V * C.
// Where a caller needs the logits themselves (sampling, viz, the parity tests), ordo_matmul
// and ordo_cross_entropy (ops.h) still make them.
#ifndef ORDO_LMHEAD_H
#define ORDO_LMHEAD_H
#include "framework/autograd.h"
#include "framework/tensor.h"

// One chunk's logits hold about this many floats (64 MiB) when no chunk size is given: 320
// rows at GPT-2's vocabulary. Each chunk reads the head twice and reads and writes its
// gradient once (V x C floats each), so smaller chunks cost time: on `small` (fp32, 2 threads,
// 2048 rows) 80-row chunks took 1.33x the CPU time of the unchunked head, 160-row ones 1.14x,
// 320-row ones 1.0x. The chunk's memory is released when the op ends (backward reuses it).
#define ORDO_LM_HEAD_CHUNK_FLOATS ((size_t)16 << 20)

// Rows per chunk for a vocabulary of V: ORDO_LM_HEAD_CHUNK_FLOATS / V rounded down to a
// multiple of 16, at least 16. A function of V alone, never of the thread count, so that the
// chunks (and the order the head's gradient is summed in) are the same on every machine.
int ordo_lm_head_chunk_rows(int V);

// Mean cross-entropy of softmax(x @ head^T) against targets (copied; < 0 ignored), x [..., C]
// (N rows), head [V, C] (the tied token table, or an untied head): the result of
// ordo_cross_entropy(ordo_matmul(x, head, 1), targets) up to the order of float sums, as a
// scalar [1] (0 when every target is ignored). chunk: rows per chunk (0:
// ordo_lm_head_chunk_rows(V)). row_loss, when not NULL, receives each row's loss [N] in double,
// -log softmax(logits)[target] from a double sum over the vocabulary (ordo_row_nll: float
// exps summed in double per block of 1024, as the fused cross-entropy) (NaN for an ignored
// row); the scalar is then their mean. In bf16 when head->bf16 is set, as ordo_matmul (x is
// rounded once, kept in x->bf16).
//
// With a gradient to record, the forward also forms the logits' gradient of each chunk while
// its logits are in cache (the loss is the last op, so it is known but for the upstream
// scale) and multiplies it out at once into x's gradient [N, C] and the head's [V, C], kept
// for backward; backward scales them by the upstream gradient and adds them in. No product
// is computed twice, and the head's gradient is summed over the chunks in their order.
ordo_tensor *ordo_lm_head_loss(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *head,
                               const int32_t *targets, int chunk, double *row_loss);
// The backward rule of ORDO_OP_LM_HEAD_LOSS, which its nodes carry.
void ordo_lm_head_loss_backward(ordo_ctx *ctx, ordo_node *n);

#endif
