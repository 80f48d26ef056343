// The walk over eval's windows (see windows.h): nonoverlap's range(0, n - T, S), and
// sliding's windows S apart with the tail rule (a last window ends at the stream's end, so
// that every target is scored exactly once).
#include "eval/windows.h"

int ordo_eval_window_next(ordo_eval_window_iter *w, size_t *begin, int *from) {
    size_t last = w->n - 1 - (size_t)w->T; // the last begin with a full window
    if (w->mode == ORDO_EVAL_NONOVERLAP) { // range(0, n - T, S), S = T unless aligned
        size_t b = w->started ? w->begin + (size_t)w->S : 0;
        if (b >= w->n - (size_t)w->T) return 0;
        w->begin = b, w->started = 1;
        *begin = b, *from = 0;
        return 1;
    }
    if (w->started && w->done >= w->n - 1) return 0;
    size_t b = w->started ? w->begin + (size_t)w->S : 0;
    if (b > last) b = last;
    w->begin = b, w->started = 1;
    *begin = b;
    *from = w->done > b ? (int)(w->done - b) : 0;
    w->done = b + (size_t)w->T;
    return 1;
}

int ordo_eval_first_shared_position(ordo_eval_mode mode, int T, int S, long long windows) {
    if (mode != ORDO_EVAL_SLIDING || windows < 2 || S <= 0 || S >= T) return 0;
    return T - S;
}
