// Scoring of the built-in recall tasks whose examples have a fixed length and answers at
// known positions (MQAR, flip-flop): fresh examples are drawn, a predictor gives the id it
// predicts next at every position, and each answer token counts on its own (per-answer
// accuracy, the metric of Zoology's MQAR and of flip-flop's read error). Nothing here knows
// about models, so a test can score an oracle or a constant guess without one.
#ifndef ORDO_ANSWERS_H
#define ORDO_ANSWERS_H
#include <stdint.h>

#include "framework/rng.h"
#include "sys/error.h"

// One example of exactly len tokens of a task with parameter `param` (MQAR: its pairs;
// flip-flop: its ignore probability), drawn from r, into out[len]; mask[len] (never NULL)
// gets 1 at the answer tokens and 0 elsewhere. task is the generator's options.
typedef ordo_status (*ordo_answers_example)(const void *task, int len, double param, ordo_rng *r,
                                            int32_t *out, uint8_t *mask);

// Same contract as ordo_passkey_predict: for rows examples of T input tokens (in, (rows, T))
// the id predicted next at positions from[i]..T-1 of row i into pred (rows, T); from[i] is the
// position before the row's first answer, and the positions before it are never read.
typedef ordo_status (*ordo_answers_predict)(void *ctx, const int32_t *in, int rows, int T,
                                            const int *from, int32_t *pred);

// Per-answer accuracy at (len, param): `examples` examples from a seed of seed, len and param
// alone (so each cell of a grid can be scored alone, in any order), fed to predict `chunk` at a
// time with inputs their first len - 1 tokens. *right and *answers receive the counts of right
// answer tokens and of answer tokens. Errors: make's and predict's.
ordo_status ordo_answers_score(ordo_answers_example make, const void *task, int len, double param,
                               int examples, uint64_t seed, int chunk, ordo_answers_predict predict,
                               void *ctx, long long *right, long long *answers);

#endif
