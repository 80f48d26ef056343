// How much context a model uses (Khandelwal et al. 2018, "Sharp Nearby, Fuzzy Far Away"): the
// same targets scored with their context cut to k = 1, 2, 4, ... tokens, so that the loss
// against k shows where more context stops helping. What `ordo eval --context-use` reports.
//
// Each target t (tokens[t], or targets[t] as ordo_eval_stream takes them, for input e = t - 1) is
// scored once per k by a window of the k tokens before it, ending at it: the target is always
// at the window's last position (k - 1), so for absolute schemes the position and the amount
// of context move together, as they do within any window. The targets are the same for every
// k: up to max_targets of them, evenly spaced over the stream from index K_max on (so that
// every k has its full context); none is drawn at random.
#ifndef ORDO_EVAL_CONTEXT_USE_H
#define ORDO_EVAL_CONTEXT_USE_H
#include <stddef.h>
#include <stdint.h>

#include "models/gpt.h"
#include "sys/error.h"

typedef struct ordo_context_use {
    int n;          // the ks: 1, 2, 4, ..., up to K_max (K_max itself last when not a power)
    int *k;         // [n]
    double *loss;   // [n] mean loss of the targets with k tokens of context
    size_t targets; // targets scored at each k (the same ones)
    // ordo_context_use_ngram's: the n-gram baseline on the same targets, with the same k tokens
    // of context (NULL until it runs)
    double *ngram_loss; // [n] the best order's mean loss at k
    int *ngram_order;   // [n] that order (the lowest of equal ones; at most k + 1, as the
                        // model of an order above k + 1 has only k tokens to condition on)
} ordo_context_use;

// Scores the targets of tokens[0..n) (targets NULL: the next tokens; else targets[e + 1] for
// input e, < 0 not scored, as ordo_eval_stream) at each k up to K_max, B windows per forward.
// ORDO_ERR_ARG when the stream holds no target with K_max tokens before it. Free out with
// ordo_context_use_free.
ordo_status ordo_context_use_score(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens,
                                   const int32_t *targets, size_t n, int K_max, size_t max_targets,
                                   int B, int progress, ordo_context_use *out);

// The n-gram levels of the curve: ng (data/ngram.h, fitted on the training split) scores the
// targets that ordo_context_use_score picked from the same stream and arguments (u from that
// call), each with its context cut to the same k tokens, into u->ngram_loss and ngram_order.
// Every order 1..N is scored and the best one per k kept: what the best n-gram does with k
// tokens of context, the line a model's curve is read against. ORDO_ERR_ARG when K_max is not
// the curve's, u has its line already, the targets picked do not match u's count, or one is
// out of ng's vocab.
typedef struct ordo_ngram ordo_ngram;
ordo_status ordo_context_use_ngram(const ordo_ngram *ng, const int32_t *tokens,
                                   const int32_t *targets, size_t n, int K_max, size_t max_targets,
                                   ordo_context_use *u);
void ordo_context_use_free(ordo_context_use *u);

#endif
