// Selective copying (Gu and Dao 2023, "Mamba", section 3.1 and appendix E.1; Golovneva et al.
// 2024 use it to motivate CoPE), laid out as the S4 repository's generator
// (src/dataloaders/datasets/copying.py) lays it out, as a stream that is its own targets. An
// example of len tokens over ids 0..A-1 is
//
//   . . x1 . x2 . . . x3 . .. xK . | m x1 x2 .. xK        (. = noise 0, m = marker A-1)
//
// a region of len - 1 - K tokens holding K data tokens (uniform in 1..A-2, with repeats) at
// sorted random positions, the rest noise; then the marker and the K data tokens in order,
// which are the targets. The marker says "copy now"; the model must skip the noise, so that
// the i-th answer is the i-th data token, wherever it sits: a position counted in data tokens,
// not in tokens. Mamba's setting: A = 16, K = 16, len 4096. Their inputs hold K markers and
// the data only as labels; here the data follow one marker, each answer predicted after the
// one before (teacher-forced), as in MQAR's layout (data/mqar.h).
#ifndef ORDO_SELCOPY_H
#define ORDO_SELCOPY_H
#include <stdint.h>

#include "framework/rng.h"
#include "sys/error.h"

#define ORDO_SELCOPY_DEFAULT_VOCAB  16 // Mamba's, the noise and the marker included
#define ORDO_SELCOPY_DEFAULT_TOKENS 16 // Mamba's data tokens to copy
#define ORDO_SELCOPY_MAX_VOCAB      1024

typedef struct ordo_selcopy {
    int vocab; // A: noise 0, data 1..A-2, marker A-1
} ordo_selcopy;

// Whether (len, tokens) is an example s can make: 4 <= A <= ORDO_SELCOPY_MAX_VOCAB, tokens
// >= 1 and a region of at least `tokens` tokens (2 * tokens + 1 <= len); ORDO_ERR_ARG naming
// the values otherwise.
ordo_status ordo_selcopy_check(const ordo_selcopy *s, int len, int tokens);

// One example of exactly len tokens with `tokens` data tokens (an integer, as a double to fit
// ordo_answers_example), drawn from r, into out[len] and mask[len] (1 at the answers). task is
// an ordo_selcopy. Errors: ordo_selcopy_check's.
ordo_status ordo_selcopy_example(const void *task, int len, double tokens, ordo_rng *r,
                                 int32_t *out, uint8_t *mask);

#endif
