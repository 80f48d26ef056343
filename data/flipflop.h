// Flip-flop language modelling (Liu et al. 2023, "Exposing Attention Glitches with Flip-Flop
// Language Modeling"): an example of len tokens is len/2 instruction-bit pairs,
//
//   w 1 i 0 i 1 r 1 w 0 i 0 r 0 ...
//
// the first instruction w (write), the last r (read), those between i (ignore) with
// probability p_i and w or r with (1 - p_i)/2 each: the paper's FFL(p_i). The bit after w or
// i is a fair coin; the bit after r is the last bit written, and only those bits are targets.
// The paper trains on FFL(0.8) at length 512 and tests in distribution, on sparse sequences
// FFL(0.98) (long runs of distractors) and on dense ones FFL(0.1).
#ifndef ORDO_FLIPFLOP_H
#define ORDO_FLIPFLOP_H
#include <stdint.h>

#include "framework/rng.h"
#include "sys/error.h"

// The ids (the corpus words "0", "1", "w", "r", "i").
enum { ORDO_FF_0, ORDO_FF_1, ORDO_FF_W, ORDO_FF_R, ORDO_FF_I, ORDO_FF_VOCAB };

#define ORDO_FLIPFLOP_DEFAULT_IGNORE 0.8 // the paper's training FFL(0.8)
#define ORDO_FLIPFLOP_SPARSE         0.98
#define ORDO_FLIPFLOP_DENSE          0.1

// Whether len (even, >= 4) and p_ignore (in [0, 1)) make examples; ORDO_ERR_ARG naming the
// value otherwise.
ordo_status ordo_flipflop_check(int len, double p_ignore);

// One FFL(p_ignore) example of exactly len tokens drawn from r into out[len], with mask[len]
// 1 at the read bits. task is unused (NULL): the signature is ordo_answers_example's.
ordo_status ordo_flipflop_example(const void *task, int len, double p_ignore, ordo_rng *r,
                                  int32_t *out, uint8_t *mask);

#endif
