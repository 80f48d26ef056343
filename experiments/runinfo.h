// What `ordo compare` needs to know about one run directory, read from its files without
// rebuilding the model or the data: config.json (scheme, seed, data, sizes, every setting,
// the val split's unigram level), metrics.jsonl
// (loss curves, throughput, time), the newest checkpoint's tensor sizes (parameter count)
// and its eval records (extrapolation losses, copy/reverse accuracy): RUN/eval/NAME.json, one
// per variant (base, ntk-x4, ...; eval/eval_record.h), and an older run's single eval.json.
#ifndef ORDO_RUNINFO_H
#define ORDO_RUNINFO_H
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sys/error.h"

typedef struct ordo_eval_point {
    int context;
    double val_loss;   // NaN when eval.json has null
    char *note;        // the reason given for a null (NULL if none)
    long long windows; // windows the loss rests on (-1 when eval.json does not say)
    int stride;        // sliding's step between windows (0: another mode, or not said)
    double order_loss; // loss on the order-dependent tokens (order task), NaN if absent
    long long order_targets;
    int npos; // loss_by_position (mean loss at each position of the window), if given
    double *by_pos;
    // the n-gram levels of the same targets (ngram_loss): ngram[k] is order k + 1's loss, NaN
    // where null; nngram 0 for a record without them (older, --no-ngram, an eval file)
    int nngram;
    double *ngram;
} ordo_eval_point;

typedef struct ordo_acc_point {
    int n;
    double exact_match;
} ordo_acc_point;

// One eval record of a run.
typedef struct ordo_run_eval {
    char *name;     // "base", "ntk-x4", ...: RUN/eval/NAME.json, or what RUN/eval.json holds
    char *path;     // the file it was read from
    long long step; // the checkpoint step it scored (-1: the file does not say)
    int stale;      // step is older than the run's newest checkpoint
    int train_context;
    char *mode;
    int neval;
    ordo_eval_point *eval;
    char *acc_task; // copy/reverse accuracy (NULL when the record has none)
    int acc_train_max_len, nacc;
    ordo_acc_point *acc; // passkey: n is the length, exact_match the mean over depths
    // the grid of a task that has one (passkey, mqar, flipflop: ordo_runinfo_grid_label): the
    // task (file names and titles), its columns acc_cols (depths, pairs, p_i) labelled
    // acc_col_label, and the cells acc_grid (nacc, acc_ncols); the task and label are static
    // strings, all NULL/0 when the record has no grid
    const char *acc_grid_task, *acc_col_label;
    int acc_ncols;
    double *acc_cols, *acc_grid;
    // the context-use curve (ordo eval --context-use): loss against k, on cu_targets targets
    // (ncu 0: the record has none)
    int ncu;
    double *cu_k, *cu_loss;
    double *cu_ngram; // [ncu] the best n-gram's loss on the same targets, or NULL
    long long cu_targets;
} ordo_run_eval;

typedef struct ordo_runinfo {
    char *dir, *name; // the path as given; its last component (the series label)
    // config.json
    char *pos, *data; // data: the --data file, else "task:<task>"
    char *data_id;    // what the data is: data plus the file's size and hash when recorded
    int data_hashed;  // data_id holds the file's record (then two paths may be one file)
    // every key of config.json, with the option defaults for keys an older ordo did not write
    json_t *config;
    double unigram;            // the val split's unigram entropy (config "val_unigram"), or NaN
    long long unigram_targets; // the tokens it was counted over
    long long context, seed, batch, steps, d_model, layers, heads;
    char *embed; // the token-embedding convention resolved: "x<scale> std <init std>"
    // newest checkpoint; its data checksum (the metadata's, "" when it has none)
    int64_t ckpt_step;
    char ckpt_xxh3[17];
    size_t params; // every tensor but the optimizer moments (wte counted once: it is tied)
    // metrics.jsonl, every logged line (val_* NaN on lines without an evaluation; INFINITY
    // for a value logged as null, i.e. not finite: a gap in the curves, "inf" in the table)
    int n;
    double *step, *train_loss, *val_loss, *val_ppl;
    double nonfinite_step; // the first step with a loss logged as null (diverged); NaN if none
    double final_train_loss, best_val_loss, best_val_ppl; // NaN when absent
    double tokens_per_s;                                  // mean of the logged values
    double wall_s;    // from "elapsed_s" when logged, else derived (see wall_derived)
    int wall_derived; // 1: sum over log intervals of steps*batch*context / tokens_per_s
    // every eval record, "base" first, then by name (nevals 0: none)
    int nevals;
    ordo_run_eval *evals;
    // the selected record's (ordo_runinfo_select_eval), pointers into evals: has_eval 0 when
    // none is selected. The one read first is "base", else the first.
    int has_eval, eval_train_context;
    const char *eval_name;
    long long eval_step;
    int eval_stale;
    const char *eval_mode;
    int neval;
    ordo_eval_point *eval;
    const char *acc_task; // copy/reverse accuracy (NULL when the record has none)
    int acc_train_max_len, nacc;
    ordo_acc_point *acc;
    const char *acc_grid_task, *acc_col_label; // the grid (see ordo_run_eval)
    int acc_ncols;
    const double *acc_cols, *acc_grid;
} ordo_runinfo;

// Reads the run in dir. Errors name the file: a directory without config.json is "not a
// run"; a run without a checkpoint, a malformed config/metrics/eval file are refused.
ordo_status ordo_runinfo_load(ordo_runinfo *r, const char *dir);
void ordo_runinfo_free(ordo_runinfo *r);
// Makes r->evals[k] the record the eval fields show (k < 0: none). A shallow copy of r (what
// compare makes, one per record) selects its own; only the original is freed.
void ordo_runinfo_select_eval(ordo_runinfo *r, int k);

// The x-axis label of the accuracy grid of `task` ("key-value pairs" for mqar), or NULL when
// the task's records have no grid: which tasks `ordo viz` draws a map for.
const char *ordo_runinfo_grid_label(const char *task);

// The selected record's entry of r at `context`, or NULL when there is none or it lacks it.
const ordo_eval_point *ordo_runinfo_eval_point(const ordo_runinfo *r, int context);
// The val loss of r's selected record at `context` (NaN, and *note set, if null there);
// returns 0 when there is none or it has no such length.
int ordo_runinfo_eval_at(const ordo_runinfo *r, int context, double *loss, const char **note);

#endif
