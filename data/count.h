// Counting (Golovneva et al. 2024, "Contextual Position Encoding", Table 3), laid out as their
// generator (facebookresearch/RAM, projects/cope/scripts/count_data_gen.py) lays it out:
// statements over V variables a, b, c ..,
//
//   a = 0 ;   (set, weight 1)     a ++;   (increment, weight 7)     pass;   (weight 50)
//
// each drawn by those weights, a set naming any variable, an increment one already set (a draw
// that cannot be made, an increment with none set or past 10, is drawn again), then
// "print x v": x a variable that was set, v its value (0..10), the one target. Their tokenizer
// splits on spaces, so "pass;" and "++;" are one token each, as here. Their samples have
// 3..512 statements; an ordo example has exactly len tokens: statements while they fit, the
// last gap (at most 3 tokens) filled with "pass;", then the question and the answer. A longer
// example is more statements: more distractors between a set and the question.
#ifndef ORDO_COUNT_H
#define ORDO_COUNT_H
#include <stdint.h>

#include "framework/rng.h"
#include "sys/error.h"

// The ids: the five words, the values 0..10, then the variables a..z.
enum {
    ORDO_COUNT_PASS,
    ORDO_COUNT_EQ,
    ORDO_COUNT_SEMI,
    ORDO_COUNT_INC,
    ORDO_COUNT_PRINT,
    ORDO_COUNT_VAL0,
    ORDO_COUNT_MAX_VAL = 10,
    ORDO_COUNT_VAR0 = ORDO_COUNT_VAL0 + ORDO_COUNT_MAX_VAL + 1,
    ORDO_COUNT_MAX_VARS = 26,
    ORDO_COUNT_VOCAB = ORDO_COUNT_VAR0 + ORDO_COUNT_MAX_VARS
};

#define ORDO_COUNT_DEFAULT_VARS 3 // their script's; the paper's table has 1, 3 and 5

// The words of the ids, for decoding ("pass;", "=", ";", "++;", "print", "0".."10", "a".."z").
extern const char *const ordo_count_words[ORDO_COUNT_VOCAB];

// Whether (len, vars) make examples: 1 <= vars <= 26 and len >= 8 (a set, the question and its
// answer); ORDO_ERR_ARG naming the value otherwise.
ordo_status ordo_count_check(int len, int vars);

// One example of exactly len tokens over `vars` variables (an integer, as a double to fit
// ordo_answers_example), drawn from r, into out[len], with mask[len] 1 at the answer. task is
// unused (NULL).
ordo_status ordo_count_example(const void *task, int len, double vars, ordo_rng *r, int32_t *out,
                               uint8_t *mask);

#endif
