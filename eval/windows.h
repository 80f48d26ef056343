// The windows that `ordo eval` scores in a token stream, one at a time, in each mode
// (eval/evaluate.h says what the modes are): where each window begins and from which position
// on its targets are scored. One iterator, so that every scorer (the model's loop in
// evaluate.c, the n-gram baselines in ngram_levels.c) scores exactly the same targets with
// exactly the same context. Deliberately not here: what is scored, or how.
#ifndef ORDO_EVAL_WINDOWS_H
#define ORDO_EVAL_WINDOWS_H
#include <stddef.h>

typedef enum ordo_eval_mode { ORDO_EVAL_NONOVERLAP, ORDO_EVAL_SLIDING } ordo_eval_mode;

// The state of a walk over the windows of length T of a stream of n tokens (n >= T + 1), with
// step S (sliding: 1..T; nonoverlap: the alignment, T unless windows start on examples).
// Set mode, n, T and S, zero the rest, then call ordo_eval_window_next.
typedef struct ordo_eval_window_iter {
    ordo_eval_mode mode;
    size_t n, begin, done; // done: targets 1..done of the stream are scored
    int T, S, started;
} ordo_eval_window_iter;

// The next window: 1 with *begin its first input token and *from its first scored position
// (positions t >= from score target begin+t+1, with the t+1 tokens begin..begin+t as their
// context), or 0 when there is none left. Nonoverlap: range(0, n - T, S), every position
// scored. Sliding: windows S apart and a last one at n-1-T, each scoring only the targets that
// no earlier window scored.
int ordo_eval_window_next(ordo_eval_window_iter *w, size_t *begin, int *from);

// The first position of a window of length T whose loss by position rests on more than the
// first window: sliding's first window alone scores positions 0..T-S-1 (every later one from
// T-S on), so with several windows those few targets swing wildly and are marked or left out
// of the loss by position. 0 in nonoverlap mode (every window scores every position), with
// one window, or an unknown stride (S <= 0).
int ordo_eval_first_shared_position(ordo_eval_mode mode, int T, int S, long long windows);

#endif
