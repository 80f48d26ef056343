// `ordo compare`'s model of a comparison: runs pooled into one row when their config.json
// agree on every setting but the seed (and the few keys that do not define the experiment,
// ordo_cmp_key_ignored), so that a row's runs are seeds of one experiment; each row shows the
// mean and sample sd over them, the keys the rows differ in, the windows the eval losses rest
// on, and whether the runs beat the val split's unigram (context-free) level. compare.c
// builds it and writes the files; compare_table.c lays out the Markdown table (the terminal,
// compare.md); compare_report.c draws the plots and report.html from it; compare_text.c
// gives them the headers, cells, marks and notes as text.
#ifndef ORDO_COMPARE_H
#define ORDO_COMPARE_H
#include "sys/error.h"
#include "experiments/runinfo.h"
#include "sys/strbuf.h"

// The most length columns a comparison has: the multiples of the training length that its
// records hold (1x, 8x, 32x, ...), ascending; more are left out of the tables, with a warning.
#define ORDO_CMP_MAXMULT 24

enum {
    ORDO_CMP_TRAIN, // final train loss
    ORDO_CMP_VAL,   // best val loss
    ORDO_CMP_PPL,   // val perplexity at the best val loss
    ORDO_CMP_TPS,   // mean logged tokens/s
    ORDO_CMP_WALL,  // seconds
    // the eval records' val loss at ordo_cmp.mults[0] times the training length, then at each
    // further multiple (passkey: the exact match there, see ordo_cmp.exact)
    ORDO_CMP_X1,
    // eval.json's loss on the order-dependent tokens at 1x (the order task's key measure;
    // shown only when some run has it)
    ORDO_CMP_ORDER = ORDO_CMP_X1 + ORDO_CMP_MAXMULT,
    ORDO_CMP_NCOL
};

// A cell of an eval.json column resting on fewer windows than this (per run) is marked.
#define ORDO_CMP_FEW_WINDOWS 10
// A run is flagged "learned no use of context" when its val loss at the training length is
// above (1 - this) times the val split's unigram entropy: within 1% of the context-free level,
// or worse than it.
#define ORDO_CMP_UNIGRAM_MARGIN 0.01
// The mark of a "vs best n-gram" cell whose row (some run of it) does not beat the 3-gram at
// the training length: its model uses no more context than two tokens would give.
#define ORDO_CMP_NGRAM_MARK "\xc2\xa7" // §
// The n-gram order a row must beat not to be marked.
#define ORDO_CMP_NGRAM_ORDER 3

typedef struct ordo_cmp_cell {
    double mean, sd;   // sd: sample sd (n-1); NaN when n < 2
    int n;             // runs with a value
    int nonfinite;     // of those, values logged as null (not finite): the mean is then inf
    int of;            // runs that could have one
    const char *note;  // why there is no number (eval.json's note), or NULL
    long long windows; // eval.json columns: the fewest windows a value rests on (-1: unknown)
} ordo_cmp_cell;

typedef struct ordo_cmp_group {
    // the row label: the scheme, or "<scheme> [<differs>]" when the scheme has several rows
    const char *pos;
    const char *scheme; // the position scheme
    const char *embed;  // the runs' token-embedding convention ("x1 std 0.02")
    char *label;        // owned storage of pos when it is not the scheme alone
    char *differs;      // "lr=0.003, warmup=40": the row's values of ordo_cmp.differs' keys
    // the row's line in every plot: its scheme's colour and a dash pattern (NULL: solid), so
    // that no two rows of a report share both (ordo_plot_styles)
    const char *color, *dash;
    // the eval variant the row's eval columns come from ("base", "ntk-x4", ...: the name of
    // RUN/eval/NAME.json; a run's old single eval.json is "base"), or NULL when no run of the
    // row has an eval
    const char *variant;
    // runs of the row whose eval is older than their newest checkpoint (its cells are marked)
    int stale;
    int n, *runs; // indices into ordo_cmp.runs, ordered by seed
    size_t params_min, params_max;
    ordo_cmp_cell cell[ORDO_CMP_NCOL];
    // against the unigram level: runs with a level and a val loss at the training length, of
    // them those flagged (ORDO_CMP_UNIGRAM_MARGIN), and the mean of level - loss over them
    int uni_n, uni_flagged;
    double uni_gap;
    // against the n-gram levels of the same targets (the eval record's ngram_loss at the
    // training length): runs with levels and a loss there, of them those whose loss is not
    // below the 3-gram's (marked ORDO_CMP_NGRAM_MARK), the mean of best level - loss, and the
    // best order (the lowest level) of the first such run
    int ng_n, ng_flagged, ng_best_order;
    double ng_gap;
} ordo_cmp_group;

// What the tables and the report show: `ordo compare`'s --columns, --wide and --reference.
typedef struct ordo_cmp_view {
    const char *columns;   // a comma list of column names (ordo_cmp_columns_check); NULL: the
                           // default table, which fits ORDO_CMP_TABLE_WIDTH columns
    int wide;              // every column, as compare.csv has them
    const char *reference; // a row (its label, or a scheme with one row): the report's loss by
                           // position also shows each row's difference from it; NULL: none
} ordo_cmp_view;

// The widest line the default terminal table may have.
#define ORDO_CMP_TABLE_WIDTH 120

typedef struct ordo_cmp {
    int nruns;
    ordo_runinfo *runs;
    int ngroups;
    ordo_cmp_group *groups;
    long long context;  // the common training length (0 when runs differ)
    int wall_derived;   // some run's wall time is derived from tokens/s
    int split;          // some scheme has more than one row (rows are then told apart)
    char *differs;      // "--lr, --warmup": the settings the runs differ in ("" when none)
    int has_order;      // some run's eval.json has the loss on order-dependent tokens
    int few_windows;    // some cell rests on fewer than ORDO_CMP_FEW_WINDOWS windows
    double unigram;     // the runs' unigram level when they agree (NaN: unknown or mixed)
    int unigram_mixed;  // the runs' levels differ (different val splits)
    int has_ngram;      // some row has n-gram levels at the training length (ng_n > 0)
    int ngram_flagged;  // some row is marked ORDO_CMP_NGRAM_MARK
    const char *source; // what was compared (the sweep dir, or "N run directories")
    ordo_cmp_view view;
    // the length columns: the multiples of the training length that some eval record holds,
    // and those --columns names, ascending (column ORDO_CMP_X1 + m is mults[m] times T)
    int nmult, mults[ORDO_CMP_MAXMULT];
    // passkey: the length columns show the exact match of the key (the eval records'
    // accuracy, mean over depths), not the loss; the headers say so
    int exact;
} ordo_cmp;

// The eval.json entry of r at `mult` times its training length (NULL if none).
const ordo_eval_point *ordo_cmp_eval_at_mult(const ordo_runinfo *r, int mult);
// The multiples of the training length that r's selected record holds, ascending, into
// out[cap]; lengths that are no whole multiple are left out. Returns how many.
int ordo_cmp_record_mults(const ordo_runinfo *r, int *out, int cap);
// Parses a --columns length name "Nx" (N >= 1) of len bytes; 0 when it is not one.
int ordo_cmp_mult_name(const char *name, size_t len);
// 1 if the cell has a value resting on fewer than ORDO_CMP_FEW_WINDOWS windows (marked ‡).
int ordo_cmp_few_windows(const ordo_cmp_cell *e);
// 1 if config key `key` does not define the experiment (seed, out, threads, logging and
// checkpoint cadence, ...): runs that differ only in such keys are pooled into one row.
int ordo_cmp_key_ignored(const char *key);
// 1 if column col is shown in the tables of c (the order-dependent loss only when some run
// has it, a length column only for the multiples of c->mults).
int ordo_cmp_col_shown(const ordo_cmp *c, int col);
// The "vs unigram level" cell of g as text: "0.8512 below", "learned no use of context"
// (with "(k of n runs)" when not all), or "unknown".
void ordo_cmp_unigram_str(const ordo_cmp_group *g, char *buf, size_t cap);
// The "vs best n-gram" cell of g as text: "+0.1234" (best level minus the loss at the
// training length, mean over the runs), with " (k of n runs)" when not all have levels, the
// best order when wide ("+0.1234 (4-gram)") and ORDO_CMP_NGRAM_MARK when a run does not beat
// the 3-gram; "-" when no run has levels.
void ordo_cmp_ngram_str(const ordo_cmp_group *g, int wide, char *buf, size_t cap);
// The note on the n-gram column and its mark (Markdown line, or an XHTML paragraph when
// html), into b; nothing when no row has n-gram levels.
void ordo_cmp_ngram_note(const ordo_cmp *c, int html, ordo_strbuf *b);
// The notes under the table (what the cells mean, the differing settings, the windows mark,
// the unigram level), Markdown or XHTML paragraphs when html, into b.
void ordo_cmp_notes(const ordo_cmp *c, int html, ordo_strbuf *b);
// Header of column `col` (Markdown/HTML), e.g. "loss@2x (T=128)", into buf.
void ordo_cmp_header(const ordo_cmp *c, int col, char *buf, size_t cap);
// A cell as text: "1.2345 ± 0.0123", "1.2345 ± -" (one seed), "inf" (a run diverged),
// "n/a (reason)" or "-".
void ordo_cmp_cell_str(const ordo_cmp_cell *e, int col, char *buf, size_t cap);

// The settings row g differs in, in short: its values of the differing keys where they are
// not the value most rows have (a key whose values tie between rows is named in each), so
// that a row that changed one setting says just that: "lr=0.003", a resume that changed
// --steps as "resumed 300->450", an --init checkpoint by its hash's start, never a JSON
// value; "" for a row at the usual values; cut with "…" to at most cap - 1 bytes. Two rows
// of one scheme never both get "" (they differ in a key, and only one can have its usual
// value). Row labels and the tables use it; g->differs (compare.csv, the notes) keeps every
// differing key's full value.
void ordo_cmp_differs_short(const ordo_cmp *c, const ordo_cmp_group *g, char *buf, size_t cap);
// The "differs in" cell of g: ordo_cmp_differs_short, or "-" for a row at the usual values.
void ordo_cmp_differs_cell(const ordo_cmp *c, const ordo_cmp_group *g, char *buf, size_t cap);
// The footnote number of an n/a reason (1, 2, ...: the distinct notes of the eval columns in
// row order), shown as "n/a¹"; 0 when note is not one of them.
int ordo_cmp_na_index(const ordo_cmp *c, const char *note);
// k as superscript digits ("¹", "¹²") into buf.
void ordo_cmp_superscript(int k, char *buf, size_t cap);
// The footnotes of the marks in the eval cells: each n/a reason once ("n/a¹ past the learned
// table (T_max 128)"), the few-windows mark ‡ and the stale mark †, Markdown lines or XHTML
// paragraphs when html, into b.
void ordo_cmp_mark_notes(const ordo_cmp *c, int html, ordo_strbuf *b);
// 1 if the cells of column col in row g carry the stale mark † (an eval column, and some run
// of the row was evaluated before its newest checkpoint).
int ordo_cmp_stale_col(const ordo_cmp_group *g, int col);
// 1 if the table has a variant column: some row's eval is another variant than "base" (a
// table of base evals only needs no column that says "base" on every row).
int ordo_cmp_variant_shown(const ordo_cmp *c);

// Checks a --columns list: every name known. Errors: ORDO_ERR_ARG naming the unknown one and
// listing the valid names.
ordo_status ordo_cmp_columns_check(const char *list);
// Checks the view against the rows of c: --reference names one row. Errors: ORDO_ERR_ARG
// listing the rows.
ordo_status ordo_cmp_view_check(const ordo_cmp *c);
// The row --reference names (an index into c->groups), or -1 when none is asked for.
int ordo_cmp_reference_row(const ordo_cmp *c);
// The Markdown table that c->view asks for, with padded columns, and the footnotes of its
// marks, into b (what the terminal shows; compare.md adds the notes).
void ordo_cmp_table(const ordo_cmp *c, ordo_strbuf *b);

// Writes loss_curves.svg, extrapolation.svg, loss_by_position.svg (when eval.json has
// loss_by_position), accuracy.svg (when it has copy/reverse accuracy) and report.html
// (table and plots inline) into out_dir.
ordo_status ordo_cmp_write_report(const ordo_cmp *c, const char *out_dir);

// The runs of a sweep directory: its sweep.json's "runs", else its subdirectories that hold a
// config.json (*is_sweep = 1); a directory that is itself a run gives *n = 0, *is_sweep = 0.
// *out and its strings are malloc'd.
ordo_status ordo_compare_sweep_runs(const char *dir, char ***out, int *n, int *is_sweep);
// The run directories that args[0..n) name, into *dirs[*ndirs] (malloc'd, as their strings):
// a sweep directory gives its runs (ordo_compare_sweep_runs), a run directory itself, in
// order. *source says what they are ("sweep runs/a", "sweeps runs/a, runs/b and 1 run
// directory"); *sweep is the sweep directory when args is one sweep and nothing else (the
// default --out), else NULL. Errors: ordo_compare_sweep_runs'.
ordo_status ordo_compare_expand(const char **args, int n, char ***dirs, int *ndirs,
                                ordo_strbuf *source, const char **sweep);
// `compare --reeval`: evaluates again every eval record of dirs[0..n) older than its run's
// newest checkpoint, with the request it was made with (the same name, variant and lengths),
// under the run's lock; a run another process holds is left as it is, with a warning. A line
// on stdout per record made. Errors: a record that does not say how it was made, the eval's.
ordo_status ordo_compare_reeval(const char **dirs, int n);
// The runs of c whose log has a value that was not finite, as notes (Markdown, or XHTML
// paragraphs when html), into b; nothing when there are none.
void ordo_cmp_nonfinite_notes(const ordo_cmp *c, int html, ordo_strbuf *b);
// Loads the runs, refuses runs on different data (the file's recorded hash when there is one),
// pools runs that differ only in the seed, warns about settings that differ, prints the
// Markdown table (ordo_cmp_table) and writes compare.md (the table and the notes), compare.csv, the
// plots and report.html into out_dir. source says what was compared (shown in the title); view:
// which columns and plots (NULL: the defaults).
ordo_status ordo_compare_write(const char **dirs, int ndirs, const char *out_dir,
                               const char *source, const ordo_cmp_view *view);

#endif
