// `ordo compare`'s model of a comparison: runs grouped by position scheme (the seeds of a
// scheme are its runs), one table row per scheme with mean and sample sd over seeds. compare.c
// builds it and writes the tables; compare_report.c draws the plots
// and report.html from it.
#ifndef ORDO_COMPARE_H
#define ORDO_COMPARE_H
#include "framework/error.h"
#include "experiments/runinfo.h"
#include "framework/strbuf.h"

#define ORDO_CMP_NMULT 4 // extrapolation at 1x, 2x, 4x, 8x the training length

enum {
    ORDO_CMP_TRAIN, // final train loss
    ORDO_CMP_VAL,   // best val loss
    ORDO_CMP_PPL,   // val perplexity at the best val loss
    ORDO_CMP_TPS,   // mean logged tokens/s
    ORDO_CMP_WALL,  // seconds
    ORDO_CMP_X1,    // eval.json val loss at 1x (then 2x, 4x, 8x)
    ORDO_CMP_NCOL = ORDO_CMP_X1 + ORDO_CMP_NMULT
};

typedef struct ordo_cmp_cell {
    double mean, sd;  // sd: sample sd (n-1); NaN when n < 2
    int n;            // runs with a value
    int nonfinite;    // of those, values logged as null (not finite): the mean is then inf
    int of;           // runs that could have one
    const char *note; // why there is no number (eval.json's note), or NULL
} ordo_cmp_cell;

typedef struct ordo_cmp_group {
    // the row label: the scheme, or "<scheme> [<embed>]" when the runs mix embedding
    // conventions (then each scheme and convention is a row of its own)
    const char *pos;
    const char *scheme; // the position scheme
    const char *embed;  // the runs' token-embedding convention ("x1 std 0.02")
    char *label;        // owned storage of pos when it is not the scheme alone
    const char *color;
    int n, *runs; // indices into ordo_cmp.runs, ordered by seed
    size_t params_min, params_max;
    ordo_cmp_cell cell[ORDO_CMP_NCOL];
} ordo_cmp_group;

typedef struct ordo_cmp {
    int nruns;
    ordo_runinfo *runs;
    int ngroups;
    ordo_cmp_group *groups;
    long long context;  // the common training length (0 when runs differ)
    int wall_derived;   // some run's wall time is derived from tokens/s
    int mixed_embed;    // the runs do not all share one token-embedding convention
    const char *source; // what was compared (the sweep dir, or "N run directories")
} ordo_cmp;

// Header of column `col` (Markdown/HTML), e.g. "loss@2x (T=128)", into buf.
void ordo_cmp_header(const ordo_cmp *c, int col, char *buf, size_t cap);
// A cell as text: "1.2345 ± 0.0123", "1.2345 ± -" (one seed), "inf" (a run diverged),
// "n/a (reason)" or "-".
void ordo_cmp_cell_str(const ordo_cmp_cell *e, int col, char *buf, size_t cap);

// Writes loss_curves.svg, extrapolation.svg, loss_by_position.svg (when eval.json has
// loss_by_position), accuracy.svg (when it has copy/reverse accuracy) and report.html
// (table and plots inline) into out_dir.
ordo_status ordo_cmp_write_report(const ordo_cmp *c, const char *out_dir);

// The runs of a sweep directory: its sweep.json's "runs", else its subdirectories that hold a
// config.json (*is_sweep = 1); a directory that is itself a run gives *n = 0, *is_sweep = 0.
// *out and its strings are malloc'd.
ordo_status ordo_compare_sweep_runs(const char *dir, char ***out, int *n, int *is_sweep);
// The runs of c whose log has a value that was not finite, as notes (Markdown, or XHTML
// paragraphs when html), into b; nothing when there are none.
void ordo_cmp_nonfinite_notes(const ordo_cmp *c, int html, ordo_strbuf *b);
// Loads the runs, refuses runs on different data, warns about other differences, prints the
// Markdown table and writes compare.md, compare.csv, the plots and report.html into out_dir.
// source says what was compared (shown in the title).
ordo_status ordo_compare_write(const char **dirs, int ndirs, const char *out_dir,
                               const char *source);

#endif
