// The report of one evaluation (`ordo eval`, an eval record RUN/eval/NAME.json, a sweep's
// records, what compare reads) as a C struct, and its one JSON codec. The format is in
// docs/guide.md, "Scoring a run"; the struct has a member for every key of it, in the order
// `ordo eval --json` prints them.
//
// A record on disk may lack keys (an older ordo wrote fewer; people write them by hand for
// tests) and holds null for a number that was not finite. Each scalar therefore says whether
// its key is there and whether it is null (ordo_eval_has), each object and array whether it is
// there, so that a record read and written again is the same bytes.
//
// Deliberately not here: running the evaluation (eval_run.c), naming and finding records
// (eval_record.h), what compare derives from them (experiments/runinfo.h).
#ifndef ORDO_EVAL_REPORT_H
#define ORDO_EVAL_REPORT_H
#include <jansson.h>
#include <math.h>

#include "sys/error.h"

// Whether a key is in the report, null there, or holds a value.
typedef enum ordo_eval_has { ORDO_EVAL_ABSENT, ORDO_EVAL_NULL, ORDO_EVAL_SET } ordo_eval_has;

typedef struct ordo_eval_int {
    ordo_eval_has has;
    long long v;
} ordo_eval_int;
typedef struct ordo_eval_real { // written as a JSON real; SET only when finite
    ordo_eval_has has;
    double v;
} ordo_eval_real;
typedef struct ordo_eval_str {
    ordo_eval_has has;
    char *v; // owned; non-NULL exactly when SET
} ordo_eval_str;
// Arrays of numbers (have: the key is there). In reals, NaN is a null element.
typedef struct ordo_eval_ints {
    int have, n;
    long long *v;
} ordo_eval_ints;
typedef struct ordo_eval_reals {
    int have, n;
    double *v;
} ordo_eval_reals;

// Values for the builder: SET with v; a real that is not finite is null (JSON has no inf or
// NaN); a string is copied, NULL giving null.
static inline ordo_eval_int ordo_eval_int_of(long long v) {
    return (ordo_eval_int){ORDO_EVAL_SET, v};
}
static inline ordo_eval_real ordo_eval_real_of(double v) {
    return isfinite(v) ? (ordo_eval_real){ORDO_EVAL_SET, v} : (ordo_eval_real){ORDO_EVAL_NULL, 0};
}
ordo_eval_str ordo_eval_str_of(const char *s);
// Values for readers: the value when SET, else dflt (reals: NaN; strings: NULL).
static inline long long ordo_eval_int_or(ordo_eval_int x, long long dflt) {
    return x.has == ORDO_EVAL_SET ? x.v : dflt;
}
static inline double ordo_eval_real_value(ordo_eval_real x) {
    return x.has == ORDO_EVAL_SET ? x.v : NAN;
}
static inline const char *ordo_eval_str_value(ordo_eval_str x) {
    return x.has == ORDO_EVAL_SET ? x.v : NULL;
}

// "eval_set": what was scored: the run's validation split, its --val-data file, or a file
// given to eval --data (then "file"), and the tokens; "xxh3" of a file.
typedef struct ordo_eval_set {
    int have;
    ordo_eval_str kind; // "split" | "val-data" | "file"
    ordo_eval_str file;
    ordo_eval_int tokens;
    ordo_eval_str xxh3;
} ordo_eval_set;

// "rope_scaling": the rotation that scored a rope run; source "run" or "eval" (given to eval).
typedef struct ordo_eval_rope {
    int have;
    ordo_eval_str scaling;
    ordo_eval_real factor;
    ordo_eval_int original_context;
    // yarn's ramp ends and temperature (1 on, 0 off), each only when not the paper's
    ordo_eval_real yarn_alpha, yarn_beta;
    ordo_eval_int yarn_temperature;
    ordo_eval_str source;
} ordo_eval_rope;

// "extend_pos" of the report (method, table, source, and fresh's seed) and of each length
// past the learned table (method, table, grown_to).
typedef struct ordo_eval_extend {
    int have;
    ordo_eval_str method; // "interpolate" | "fresh"
    ordo_eval_int table, grown_to;
    ordo_eval_str source;
    ordo_eval_int seed;
} ordo_eval_extend;

// "variant": the scaling and extension given to eval, as used (null: the run as trained).
typedef struct ordo_eval_variant {
    int have;
    ordo_eval_str scaling;
    ordo_eval_real factor;
    ordo_eval_int original_context;
    ordo_eval_real yarn_alpha, yarn_beta; // as in ordo_eval_rope
    ordo_eval_int yarn_temperature;
    ordo_eval_str extension;
    ordo_eval_str positions; // "drawn" with --positions drawn, else absent
} ordo_eval_variant;

// "data": the run's training data as config.json records it.
typedef struct ordo_eval_data {
    int have;
    ordo_eval_str source; // the file, or "task:<name>"
    ordo_eval_int size;
    ordo_eval_str xxh3;
} ordo_eval_data;

// "request": what made the report, so that it can be made again (eval/eval_record.h); built
// from an ordo_eval_request by ordo_eval_request_record (eval/evaluate.h).
typedef struct ordo_eval_report_request {
    int have;
    ordo_eval_ints lengths;
    ordo_eval_str mode;
    ordo_eval_int sliding_stride, batch, max_windows, examples, max_n;
    ordo_eval_reals depths; // passkey's grid, when given
    ordo_eval_str rope_scaling;
    ordo_eval_real rope_factor;
    ordo_eval_int rope_orig_context;
    ordo_eval_real yarn_alpha, yarn_beta; // given to eval, when not the paper's
    ordo_eval_int yarn_temperature;
    ordo_eval_str extend_pos, attention;
    ordo_eval_str positions;   // "drawn", else absent
    ordo_eval_int context_use; // --context-use's targets, when asked
} ordo_eval_report_request;

// One element of "results": a length. A length that could not be scored has val_loss null
// and a note; a scored one its loss, perplexity (null where exp overflowed), counts, the
// attention that ran, the loss by position (NaN: null) and, on the order corpus, the loss on
// the order-dependent tokens.
typedef struct ordo_eval_report_result {
    ordo_eval_int context;
    ordo_eval_extend extend_pos; // a length scored with the table grown
    ordo_eval_int aligned_to_examples;
    ordo_eval_real val_loss, val_ppl;
    ordo_eval_str note;
    ordo_eval_int targets, windows;
    ordo_eval_str attention_ran;
    ordo_eval_int stride; // sliding
    ordo_eval_reals loss_by_position;
    ordo_eval_real order_loss;
    ordo_eval_int order_targets;
    // the n-gram levels of the same targets (eval/ngram_levels.h): orders 1, 2, ... (NaN: null)
    ordo_eval_reals ngram_loss;
} ordo_eval_report_result;

typedef struct ordo_eval_results {
    int have, n;
    ordo_eval_report_result *v;
} ordo_eval_results;

// A row of "accuracy"."by_length": copy/reverse's n (with its examples, or a note), or
// passkey's length with a cell per depth (NaN: null) and a note where it cannot be scored.
typedef struct ordo_eval_acc_row {
    ordo_eval_int n, length;
    ordo_eval_real exact_match;
    ordo_eval_reals by_depth;
    // mqar, flipflop, selective-copy, count: the per-answer accuracy, the mean of the row's
    // cells (by_pairs: a cell per "pairs"; by_p_ignore: per "p_ignore"; by_tokens: per
    // "tokens"; by_vars: per "vars")
    ordo_eval_real accuracy;
    ordo_eval_reals by_pairs, by_p_ignore, by_tokens, by_vars;
    ordo_eval_str note;
    ordo_eval_int examples;
} ordo_eval_acc_row;

typedef struct ordo_eval_acc_rows {
    int have, n;
    ordo_eval_acc_row *v;
} ordo_eval_acc_rows;

// An element of passkey's "by_depth": the mean over lengths at one depth.
typedef struct ordo_eval_depth_mean {
    ordo_eval_real depth, exact_match;
} ordo_eval_depth_mean;

typedef struct ordo_eval_depth_means {
    int have, n;
    ordo_eval_depth_mean *v;
} ordo_eval_depth_means;

// "context_use": the loss of the same targets with their context cut to k tokens
// (eval/context_use.h): k and loss side by side, and how many targets each rests on.
typedef struct ordo_eval_context_use {
    int have;
    ordo_eval_ints k;
    ordo_eval_reals loss;
    ordo_eval_int targets;
    // the best n-gram's loss on the same targets with the same k tokens of context, and its
    // order (when the run's training split was read: not with --data or --no-ngram)
    ordo_eval_reals ngram_loss;
    ordo_eval_ints ngram_order;
} ordo_eval_context_use;

// "accuracy": copy/reverse (task, train_min_len, train_max_len, by_length), passkey (task,
// digits, train_context, examples, depths, by_length, by_depth), mqar (task, train_context,
// examples, vocab, train_pairs, pairs, by_length), flipflop (task, train_context, examples,
// train_p_ignore, p_ignore, by_length), selective-copy (task, train_context, examples, vocab,
// train_tokens, tokens, by_length) or count (task, train_context, examples, train_vars, vars,
// by_length).
typedef struct ordo_eval_accuracy {
    int have;
    ordo_eval_str task;
    ordo_eval_int train_min_len, train_max_len;
    ordo_eval_int digits, train_context, examples;
    ordo_eval_reals depths;
    ordo_eval_int vocab, train_pairs;
    ordo_eval_real train_p_ignore;
    ordo_eval_int train_tokens, train_vars;
    ordo_eval_ints pairs;
    ordo_eval_reals p_ignore;
    ordo_eval_ints tokens, vars;
    ordo_eval_acc_rows by_length;
    ordo_eval_depth_means by_depth;
} ordo_eval_accuracy;

typedef struct ordo_eval_report {
    int have; // unused: the shape of every object of the report
    ordo_eval_str run;
    ordo_eval_int step;
    ordo_eval_str checkpoint;
    // the scored checkpoint's data checksum (ORDO_ST_HASH_KEY): whose weights these are, so
    // that a record copied into another run is known as not that run's (ordo_eval_record_own)
    ordo_eval_str checkpoint_xxh3;
    ordo_eval_set eval_set;
    ordo_eval_str pos, task; // task: null for a run on a data file
    ordo_eval_int train_context;
    ordo_eval_rope rope_scaling;
    ordo_eval_extend extend_pos;
    ordo_eval_str mode, attention;
    ordo_eval_int parameters;
    ordo_eval_variant variant;
    ordo_eval_data data;
    ordo_eval_report_request request;
    ordo_eval_results results; // always there
    ordo_eval_accuracy accuracy;
    ordo_eval_context_use context_use; // with --context-use
    ordo_eval_str name;                // a saved record's name (ordo_eval_save sets it)
} ordo_eval_report;

// The report as a JSON tree, its keys in the order `ordo eval --json` prints them (absent
// members left out). Caller decrefs.
json_t *ordo_eval_report_to_json(const ordo_eval_report *r);
// Reads j into *r (zeroed first; free it with ordo_eval_report_free, also after an error).
// Keys it does not know are left out. Errors, ORDO_ERR_FORMAT naming `what` (the file), the
// key and what was expected: "results" missing or not an array, a value of the wrong type, a
// result without "context" (an integer) or "val_loss" (a number or null).
ordo_status ordo_eval_report_from_json(const json_t *j, const char *what, ordo_eval_report *r);
// Loads the record at path into *r: its JSON's errors as ordo_json_load_error gives them, then
// ordo_eval_report_from_json's naming path.
ordo_status ordo_eval_report_read(const char *path, ordo_eval_report *r);
void ordo_eval_report_free(ordo_eval_report *r);
// 1 when a and b hold the same keys with the same values (reals bit for bit, NaN elements
// alike).
int ordo_eval_report_equal(const ordo_eval_report *a, const ordo_eval_report *b);
int ordo_eval_report_request_equal(const ordo_eval_report_request *a,
                                   const ordo_eval_report_request *b);
void ordo_eval_report_request_free(ordo_eval_report_request *q);

#endif
