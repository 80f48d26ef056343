// metrics.jsonl read back: the trainer's log of a run (one JSON object per logged step;
// README.md lists the fields), parsed line by line with jansson. The trainer reads it on
// --resume to cut the log back to the resumed step, `ordo compare` for the curves; each
// decides what to do with a damaged line, so this reader only reports what it found.
#ifndef ORDO_METRICS_H
#define ORDO_METRICS_H
#include <stddef.h>

#include "framework/error.h"

typedef struct ordo_metrics_line {
    int lineno;   // 1-based
    size_t end;   // offset just past the line and its '\n' (the file's end for the last line)
    int complete; // ends in '\n' (0: a last line that a killed writer left unfinished)
    int blank;    // nothing but spaces, tabs and '\r'
    int ok;       // a JSON object with a numeric "step"; the numbers below are set only then
    double step, train_loss, val_loss, val_ppl, lr, tokens_per_s, elapsed_s; // NaN if absent
} ordo_metrics_line;

typedef struct ordo_metrics {
    char *text; // the file's bytes, NUL-terminated
    size_t len;
    ordo_metrics_line *line; // [n], in file order
    int n;
} ordo_metrics;

// Reads the file at path (up to 2 GiB) and parses each of its lines; a damaged line is
// reported in its entry (ok 0), never an error. ORDO_ERR_IO naming the path when it cannot
// be read. Free with ordo_metrics_free, also after an error.
ordo_status ordo_metrics_read(const char *path, ordo_metrics *m);
void ordo_metrics_free(ordo_metrics *m);

#endif
