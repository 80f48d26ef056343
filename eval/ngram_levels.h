// A run's n-gram baselines (data/ngram.h) on exactly the targets that `ordo eval` scores: the
// models are fitted on the training split and score the validation split window by window
// (eval/windows.h: the same windows, the same tail rule, the same masked targets), a target at
// position t of its window with at most the t+1 tokens the window gives it, as the model sees
// them. So at each length the n-gram levels and the model's val_loss are means over the same
// targets with the same context, and an early token of a non-overlapping window is as hard for
// both. The levels are cached per data (a hash of the training ids, the validation ids and
// their mask, the vocab and the order) in a cache directory, so that the fit runs once for all
// the runs of a sweep.
#ifndef ORDO_NGRAM_LEVELS_H
#define ORDO_NGRAM_LEVELS_H
#include <stddef.h>
#include <stdint.h>

#include "data/ngram.h"
#include "eval/windows.h"
#include "run/rundata.h"

// One length in one mode: each order's mean loss over the targets eval scores there.
typedef struct ordo_ngram_level {
    int context;         // T
    ordo_eval_mode mode; // as eval scores the run (copy/reverse: nonoverlap, aligned)
    int stride;          // sliding's step; nonoverlap's alignment (T, or the example length)
    int orders;          // N: loss[0..N) are orders 1..N
    double loss[ORDO_NGRAM_MAX_ORDER]; // nats per target; NaN when no target is scored
    size_t targets, windows;
} ordo_ngram_level;

// Scores stream val[0..n) (targets: the mask, as ordo_eval_stream reads it, or NULL) with m in
// the windows of length T, mode and stride of ordo_eval_stream (stride: sliding's step 1..T, or
// nonoverlap's alignment, 0 = T) into *out. ORDO_ERR_ARG when the stream holds fewer than T+1
// tokens, a stride out of range, or a scored target out of the vocab (naming it).
ordo_status ordo_ngram_level_score(const ordo_ngram *m, const int32_t *val, const int32_t *targets,
                                   size_t n, int T, ordo_eval_mode mode, int stride,
                                   ordo_ngram_level *out);

// l as JSON: {"context", "mode", "stride", "targets", "windows", "loss": [order 1, ...]} (a NaN
// loss as null). A new reference.
typedef struct json_t json_t;
json_t *ordo_ngram_level_to_json(const ordo_ngram_level *l);

// What to compute for a run's data.
typedef struct ordo_ngram_request {
    const int *lengths; // T's
    int nlen;
    int sliding_stride;    // 0: T/4, eval's default
    int order;             // N, 1..ORDO_NGRAM_MAX_ORDER
    const char *cache_dir; // NULL: no cache
} ordo_ngram_request;

// The cache directory: $ORDO_CACHE_DIR, else $XDG_CACHE_HOME/ordo, else $HOME/.cache/ordo
// (NULL when none is set), with "/ngram" appended, into buf[cap].
const char *ordo_ngram_cache_dir(char *buf, size_t cap);

// The levels of d's validation set at each length of q: out[2 i] nonoverlap and out[2 i + 1]
// sliding at lengths[i] (a copy/reverse run scores aligned nonoverlap windows in both, as eval
// does); a length the validation set is too short for has targets 0 and NaN losses. Fitted on
// d's training split [0, n_train), or read from q->cache_dir (*cached: 1 when nothing had to be
// fitted); a cache file that does not read is fitted again and rewritten, with a note on
// stderr. *fit_s: the seconds the fit took (0 from the cache). Errors: the fit's and the
// cache's writing (naming the file).
ordo_status ordo_ngram_levels(const ordo_rundata *d, const ordo_ngram_request *q,
                              ordo_ngram_level *out, int *cached, double *fit_s);

#endif
