// metrics.jsonl, the trainer's log of a run (one JSON object per logged step; README.md
// lists the fields): the line the trainer writes and the reader that parses it back, line by
// line with jansson. The trainer reads it on --resume to cut the log back to the resumed step
// and repair a damaged line, `ordo compare` for the curves; each decides what to do with a
// damaged line, so this reader only reports what it found.
//
// A value that is not finite (a diverging run: val_ppl = exp(val_loss) overflows, or the
// val loss itself is NaN) is written as null, since JSON has no inf or NaN; the reader gives
// it back as NaN with its bit set in `nulls`, so that "logged, not finite" stays apart from
// "not logged". The bare inf / -inf / nan / -nan that ordo wrote before it wrote null read
// back the same way, so the logs of older diverged runs still load.
#ifndef ORDO_METRICS_H
#define ORDO_METRICS_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

// Bits of ordo_metrics_line.nulls: the fields logged as null.
enum {
    ORDO_METRICS_TRAIN_LOSS = 1 << 0,
    ORDO_METRICS_VAL_LOSS = 1 << 1,
    ORDO_METRICS_VAL_PPL = 1 << 2,
    ORDO_METRICS_LR = 1 << 3,
    ORDO_METRICS_TOKENS_PER_S = 1 << 4,
    ORDO_METRICS_ELAPSED_S = 1 << 5,
};

typedef struct ordo_metrics_line {
    int lineno;     // 1-based
    size_t end;     // offset just past the line and its '\n' (the file's end for the last line)
    int complete;   // ends in '\n' (0: a last line that a killed writer left unfinished)
    int blank;      // nothing but spaces, tabs and '\r'
    int ok;         // a JSON object with a numeric "step"; the fields below are set only then
    unsigned nulls; // ORDO_METRICS_* of the fields logged as null (not finite when logged)
    double step, train_loss, val_loss, val_ppl, lr, tokens_per_s, elapsed_s; // NaN if absent
} ordo_metrics_line;

typedef struct ordo_metrics {
    char *text; // the file's bytes, NUL-terminated
    size_t len;
    ordo_metrics_line *line; // [n], in file order
    int n;
} ordo_metrics;

// The longest line ordo_metrics_format writes, its '\n' included.
#define ORDO_METRICS_LINE_MAX 512

// One logged step as a metrics.jsonl line, '\n' included, into buf[cap] (cap >=
// ORDO_METRICS_LINE_MAX): step, train_loss, val_loss and val_ppl = exp(val_loss) when
// has_val, lr, tokens_per_s and elapsed_s; each number that is not finite as null. Returns
// the line's length. No allocation (the trainer calls it in its loop).
size_t ordo_metrics_format(char *buf, size_t cap, int64_t step, double train_loss, int has_val,
                           double val_loss, double lr, double tokens_per_s, double elapsed_s);

// Reads the file at path (up to 2 GiB) and parses each of its lines; a damaged line is
// reported in its entry (ok 0), never an error. ORDO_ERR_IO naming the path when it cannot
// be read. Free with ordo_metrics_free, also after an error.
ordo_status ordo_metrics_read(const char *path, ordo_metrics *m);
void ordo_metrics_free(ordo_metrics *m);

#endif
