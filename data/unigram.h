// The context-free (unigram) level of a loss: the entropy of a split's token distribution,
// in nats per token, the lowest mean cross-entropy that any predictor which ignores the
// context can reach on that split (the best such predictor is the split's own token
// frequencies). `ordo train` records it for the val split in config.json; `ordo compare`
// flags a run whose val loss does not go below it (experiments/compare.c).
#ifndef ORDO_UNIGRAM_H
#define ORDO_UNIGRAM_H
#include <stddef.h>
#include <stdint.h>

// The entropy H = -sum_t p(t) ln p(t) of the tokens that are targets of the stream ids[n]:
// ids[1..n) (the first token is never predicted), read from targets[] instead when it is
// not NULL, where -1 marks a token that is not predicted. Ids outside 0..vocab-1 are not
// counted. *counted receives the number of tokens counted; with none, the result is NaN.
double ordo_unigram_entropy(const int32_t *ids, const int32_t *targets, size_t n, int vocab,
                            size_t *counted);

#endif
