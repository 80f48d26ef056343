// `ordo eval RUN_DIR`: validation loss and perplexity of the newest checkpoint (or the one of
// --step N, or a checkpoint file given instead of RUN_DIR; or of a whole text file, --data) at each
// requested context length, in nonoverlapping or sliding windows (eval/evaluate.h), with
// the loss by position within the window, and exact match per length for copy/reverse.
// A learned position table cannot go past its length: the table says so instead of a number,
// unless --extend-pos grows it for those lengths (as `ordo train --init --context` would).
// --save [NAME] keeps the report as the run's eval record NAME (eval/eval_record.h).
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/dist.h"
#include "sys/fileio.h"
#include "framework/threads.h"
#include "run/options.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "data/passkey.h"
#include "run/config.h"
#include "eval/eval_record.h"
#include "eval/evaluate.h"

// The longest window eval takes (the arena and the position tables are sized from it).
#define MAX_EVAL_CONTEXT (1 << 20)

static ordo_status parse_lengths(const char *s, int *out, int *n, int max) {
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ','))
            return ordo_error(ORDO_ERR_ARG, "--context '%s': expected positive lengths like 64,128",
                              s);
        // a number that parses but is out of range: say which bound, so that a user who asked
        // for a very long context learns the cap rather than being told to write "64,128"
        if (v <= 0)
            return ordo_error(ORDO_ERR_ARG, "--context '%s': %.*s is not a positive length", s,
                              (int)(end - p), p);
        if (errno == ERANGE || v > MAX_EVAL_CONTEXT)
            return ordo_error(ORDO_ERR_ARG,
                              "--context '%s': %.*s is longer than the longest context eval "
                              "takes, %d (2^20)",
                              s, (int)(end - p), p, MAX_EVAL_CONTEXT);
        if (*n == max) return ordo_error(ORDO_ERR_ARG, "--context: at most %d lengths", max);
        for (int k = 0; k < *n; k++) // scored twice, it would be reported twice
            if (out[k] == (int)v)
                return ordo_error(ORDO_ERR_ARG, "--context '%s': %ld is named twice", s, v);
        out[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (*n == 0) return ordo_error(ORDO_ERR_ARG, "--context is empty");
    return ORDO_OK;
}

// The mean loss over each eighth of the window (or each position when T <= 8); NaN: null.
// An eighth that holds positions before `shared` (sliding's, which the first window alone
// scores: ordo_eval_first_shared_position) is marked '*': a few targets, a noisy mean.
// Returns 1 when it marked one.
static int print_positions(const ordo_eval_reals *pl, int shared) {
    size_t T = (size_t)pl->n, parts = T < 8 ? T : 8;
    int marked = 0;
    for (size_t k = 0; k < parts; k++) {
        double sum = 0;
        size_t cnt = 0;
        for (size_t t = k * T / parts; t < (k + 1) * T / parts; t++)
            if (!isnan(pl->v[t])) sum += pl->v[t], cnt++;
        int few = k * T / parts < (size_t)shared;
        marked |= few && cnt;
        if (cnt && few)
            printf(" %6.3f*", sum / cnt);
        else if (cnt)
            printf(" %7.4f", sum / cnt);
        else
            printf(" %7s", "-");
    }
    printf("\n");
    return marked;
}

// A number of [0, 1] in a 7-wide column, or n/a for null (NaN).
static void print_cell(double v) {
    if (!isnan(v))
        printf(" %7.3f", v);
    else
        printf(" %7s", "n/a");
}

// Passkey: retrieval accuracy, a row per length and a column per depth, with the marginals.
static void print_passkey(const ordo_eval_accuracy *acc) {
    printf("passkey retrieval (exact match of the %lld-digit key, %lld examples per cell, "
           "trained at T=%lld), by length and depth:\n",
           ordo_eval_int_or(acc->digits, 0), ordo_eval_int_or(acc->examples, 0),
           ordo_eval_int_or(acc->train_context, 0));
    printf("  length");
    for (int j = 0; j < acc->depths.n; j++) printf("    d=%-4.2f", acc->depths.v[j]);
    printf("     all\n");
    for (int i = 0; i < acc->by_length.n; i++) {
        const ordo_eval_acc_row *row = &acc->by_length.v[i];
        printf("  %6lld", ordo_eval_int_or(row->length, 0));
        for (int j = 0; j < row->by_depth.n; j++) {
            printf("  ");
            print_cell(row->by_depth.v[j]);
        }
        print_cell(ordo_eval_real_value(row->exact_match));
        const char *note = ordo_eval_str_value(row->note);
        printf("%s%s%s\n", note ? "  (" : "", note ? note : "", note ? ")" : "");
    }
    printf("     all");
    for (int j = 0; j < acc->by_depth.n; j++) {
        printf("  ");
        print_cell(ordo_eval_real_value(acc->by_depth.v[j].exact_match));
    }
    printf("\n");
}

// MQAR, flip-flop, selective copying and counting: per-answer accuracy, a row per length and a
// column per pairs (MQAR), p_i (flip-flop), data tokens (selective copying) or variables
// (counting), with the row's mean.
static void print_answers(const ordo_eval_accuracy *acc) {
    long long ex = ordo_eval_int_or(acc->examples, 0), T = ordo_eval_int_or(acc->train_context, 0);
    const ordo_eval_ints *ints = NULL;
    const char *col = "p_i";
    if (acc->pairs.have) {
        printf("mqar recall (accuracy per query, %lld examples per cell, %lld ids, trained at "
               "T=%lld with %lld pairs), by length and pairs:\n",
               ex, ordo_eval_int_or(acc->vocab, 0), T, ordo_eval_int_or(acc->train_pairs, 0));
        ints = &acc->pairs, col = "pairs";
    } else if (acc->tokens.have) {
        printf("selective-copy (accuracy per copied token, %lld examples per cell, %lld ids, "
               "trained at T=%lld with %lld tokens), by length and tokens:\n",
               ex, ordo_eval_int_or(acc->vocab, 0), T, ordo_eval_int_or(acc->train_tokens, 0));
        ints = &acc->tokens, col = "tokens";
    } else if (acc->vars.have) {
        printf("count (accuracy of the printed value, %lld examples per cell, trained at T=%lld "
               "with %lld variables), by length and variables:\n",
               ex, T, ordo_eval_int_or(acc->train_vars, 0));
        ints = &acc->vars, col = "vars";
    } else {
        printf("flipflop (accuracy per read, %lld examples per cell, trained at T=%lld with "
               "p_i=%g), by length and p_i:\n",
               ex, T, ordo_eval_real_value(acc->train_p_ignore));
    }
    printf("  length");
    int nc = ints ? ints->n : acc->p_ignore.n;
    for (int j = 0; j < nc; j++) { // right-aligned over the cells' numbers
        char label[32];
        if (ints)
            snprintf(label, sizeof label, "%s=%lld", col, ints->v[j]);
        else
            snprintf(label, sizeof label, "p_i=%.2f", acc->p_ignore.v[j]);
        printf("%10s", label);
    }
    printf("     all\n");
    for (int i = 0; i < acc->by_length.n; i++) {
        const ordo_eval_acc_row *row = &acc->by_length.v[i];
        const ordo_eval_reals *cells = acc->pairs.have    ? &row->by_pairs
                                       : acc->tokens.have ? &row->by_tokens
                                       : acc->vars.have   ? &row->by_vars
                                                          : &row->by_p_ignore;
        printf("  %6lld", ordo_eval_int_or(row->length, 0));
        for (int j = 0; j < cells->n; j++) {
            printf("  ");
            print_cell(cells->v[j]);
        }
        print_cell(ordo_eval_real_value(row->accuracy));
        const char *note = ordo_eval_str_value(row->note);
        printf("%s%s%s\n", note ? "  (" : "", note ? note : "", note ? ")" : "");
    }
}

// The lines above the table: the run, what was scored, and the variant.
static void print_head(const ordo_eval_report *r) {
    printf("run %s, step %lld, pos %s, trained at T=%lld, %s windows\n",
           ordo_eval_str_value(r->run), ordo_eval_int_or(r->step, 0), ordo_eval_str_value(r->pos),
           ordo_eval_int_or(r->train_context, 0), ordo_eval_str_value(r->mode));
    const char *kind = ordo_eval_str_value(r->eval_set.kind);
    const char *file = ordo_eval_str_value(r->eval_set.file);
    long long ntok = ordo_eval_int_or(r->eval_set.tokens, 0);
    if (kind && strcmp(kind, "file") == 0)
        printf("eval set: %s, the whole file (%lld tokens, the run's tokenizer); val_loss below "
               "is the loss on it\n",
               file, ntok);
    else if (kind && strcmp(kind, "val-data") == 0)
        printf("eval set: the run's --val-data file %s (%lld tokens)\n", file, ntok);
    else
        printf("eval set: the run's validation split (%lld tokens)\n", ntok);
    const ordo_eval_rope *rope = &r->rope_scaling;
    const char *scaling = ordo_eval_str_value(rope->scaling);
    const char *source = ordo_eval_str_value(rope->source);
    if (rope->have && strcmp(scaling, "none") != 0)
        printf("rope scaling %s, factor %g, original context %lld (%s)\n", scaling,
               ordo_eval_real_value(rope->factor), ordo_eval_int_or(rope->original_context, 0),
               strcmp(source, "eval") == 0 ? "given to eval" : "the run's");
    else if (rope->have && strcmp(source, "eval") == 0)
        printf("rope scaling none (given to eval)\n");
    if (r->extend_pos.have)
        printf("learned table of %lld positions, grown past them by %s (given to eval)\n",
               ordo_eval_int_or(r->extend_pos.table, 0), ordo_eval_str_value(r->extend_pos.method));
}

// A row of the table: a length's loss, or n/a and why.
static void print_result(const ordo_eval_report_result *row) {
    int T = (int)ordo_eval_int_or(row->context, 0);
    const char *note = ordo_eval_str_value(row->note);
    if (row->val_loss.has != ORDO_EVAL_SET)
        printf("%8d %10s %12s %10s %8s  (%s%s)\n", T, "n/a", "n/a", "-", "-",
               note ? note : "not finite",
               note && strncmp(note, "past the learned table", 22) == 0
                   ? "; --extend-pos interpolate|fresh|copy grows it"
                   : "");
    else // a perplexity is null where exp(loss) overflowed
        printf("%8d %10.4f %12.4f %10lld %8lld%s\n", T, row->val_loss.v,
               row->val_ppl.has == ORDO_EVAL_SET ? row->val_ppl.v : INFINITY,
               ordo_eval_int_or(row->targets, 0), ordo_eval_int_or(row->windows, 0),
               row->extend_pos.have ? "  (table grown)" : "");
}

// Copy/reverse/add: exact match by n.
static void print_exact_match(const ordo_eval_accuracy *acc) {
    printf("exact match by length n (%s, trained on n = %lld..%lld):\n",
           ordo_eval_str_value(acc->task), ordo_eval_int_or(acc->train_min_len, 0),
           ordo_eval_int_or(acc->train_max_len, 0));
    for (int i = 0; i < acc->by_length.n; i++) {
        const ordo_eval_acc_row *row = &acc->by_length.v[i];
        printf("  n=%-3lld ", ordo_eval_int_or(row->n, 0));
        if (row->exact_match.has == ORDO_EVAL_SET)
            printf("%6.3f\n", row->exact_match.v);
        else
            printf("   n/a  (%s)\n", ordo_eval_str_value(row->note));
    }
}

// --json: the report as JSON, in the order of its members.
static void print_json(const ordo_eval_report *r) {
    json_t *j = ordo_eval_report_to_json(r);
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    printf("%s\n", text);
    free(text);
    json_decref(j);
}

static void print_table(const ordo_eval_report *r) {
    print_head(r);
    printf("%8s %10s %12s %10s %8s\n", "T", "val_loss", "perplexity", "targets", "windows");
    const ordo_eval_results *res = &r->results;
    for (int i = 0; i < res->n; i++) print_result(&res->v[i]);
    int header = 0;
    for (int i = 0; i < res->n; i++) {
        const ordo_eval_report_result *row = &res->v[i];
        if (row->order_loss.has != ORDO_EVAL_SET) continue;
        if (!header++)
            printf("loss on the order-dependent tokens only (ln 2 = %.4f is a guess between two "
                   "nouns):\n",
                   log(2.0));
        printf("%8lld %10.4f %23lld targets\n", ordo_eval_int_or(row->context, 0),
               row->order_loss.v, ordo_eval_int_or(row->order_targets, 0));
    }
    for (int i = 0; i < res->n; i++) {
        const ordo_eval_reals *ng = &res->v[i].ngram_loss;
        if (!ng->have) continue;
        printf("%8lld n-gram levels, same targets (Witten-Bell, orders 1..%d):",
               ordo_eval_int_or(res->v[i].context, 0), ng->n);
        for (int j = 0; j < ng->n; j++) printf(" %.4f", ng->v[j]);
        printf("\n");
    }
    const ordo_eval_context_use *cu = &r->context_use;
    if (cu->have && cu->k.have && cu->loss.have) {
        printf("context use: the same %lld targets with their context cut to k tokens\n",
               ordo_eval_int_or(cu->targets, 0));
        printf("%8s", "k");
        for (int j = 0; j < cu->k.n; j++) printf(" %7lld", cu->k.v[j]);
        printf("\n%8s", "loss");
        for (int j = 0; j < cu->loss.n; j++) printf(" %7.4f", cu->loss.v[j]);
        printf("\n");
        if (cu->ngram_loss.have && cu->ngram_order.have) { // the best order's, and which
            printf("%8s", "n-gram");
            for (int j = 0; j < cu->ngram_loss.n; j++) printf(" %7.4f", cu->ngram_loss.v[j]);
            printf("\n%8s", "order");
            for (int j = 0; j < cu->ngram_order.n; j++) printf(" %7lld", cu->ngram_order.v[j]);
            printf("\n(n-gram: the best order of 1..6, Witten-Bell, fitted on the training split, "
                   "on the same targets with the same k tokens)\n");
        }
    }
    printf("loss by position within the window (mean over each eighth, first to last):\n");
    int sliding =
        ordo_eval_str_value(r->mode) && strcmp(ordo_eval_str_value(r->mode), "sliding") == 0;
    int marked = 0;
    for (int i = 0; i < res->n; i++) {
        const ordo_eval_report_result *row = &res->v[i];
        if (!row->loss_by_position.have) continue;
        int T = (int)ordo_eval_int_or(row->context, 0);
        int shared = ordo_eval_first_shared_position(
            sliding ? ORDO_EVAL_SLIDING : ORDO_EVAL_NONOVERLAP, T,
            (int)ordo_eval_int_or(row->stride, 0), ordo_eval_int_or(row->windows, 0));
        printf("%8d", T);
        marked |= print_positions(&row->loss_by_position, shared);
    }
    if (marked)
        printf("* rests on the first window alone: sliding windows score the positions before T - "
               "stride only there, so these means have few targets\n");
    const ordo_eval_accuracy *acc = &r->accuracy;
    if (!acc->have) return;
    if (acc->pairs.have || acc->p_ignore.have || acc->tokens.have || acc->vars.have)
        print_answers(acc);
    else if (acc->depths.have)
        print_passkey(acc);
    else
        print_exact_match(acc);
}

// --sliding-stride, or its old name --stride (a warning: train's --stride is another thing),
// which only --mode sliding reads: given with nonoverlap windows (they step by T) it is an
// error rather than a value silently unused.
static ordo_status sliding_stride(ordo_opt *opts, ordo_eval_mode mode, long long *stride,
                                  long long old) {
    int given = ordo_options_find(opts, "sliding-stride")->seen;
    if (ordo_options_find(opts, "stride")->seen) {
        if (given)
            return ordo_error(ORDO_ERR_ARG, "--stride is the old name of --sliding-stride; give "
                                            "only --sliding-stride");
        fprintf(stderr, "ordo: warning: eval --stride is deprecated, use --sliding-stride (the "
                        "step of --mode sliding's windows; train's --stride is the step of the "
                        "training windows)\n");
        *stride = old;
        given = 1;
    }
    if (given && mode != ORDO_EVAL_SLIDING)
        return ordo_error(ORDO_ERR_ARG,
                          "--sliding-stride %lld goes with --mode sliding (nonoverlap windows "
                          "step by their length T)",
                          *stride);
    return ORDO_OK;
}

// `--save NAME` / `--save=NAME` out of argv (the option parser knows only flags and options
// that always take a value): --save=NAME always names the record; `--save X` does when a
// positional (RUN_DIR) came before it and X is no option, so that `eval RUN --save ntk4` names
// it and `eval --save RUN` does not. What remains is copied to out (argc entries); *name is
// NULL when none was given. 1 when --save was given at all.
static int take_save_name(const ordo_opt *opts, int argc, char **argv, char **out, int *nout,
                          const char **name) {
    int seen = 0, npos = 0, only_pos = 0;
    *name = NULL;
    *nout = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && strncmp(a, "--save=", 7) == 0) {
            *name = a + 7, seen = 1;
            continue;
        }
        if (!only_pos && strcmp(a, "--save") == 0) {
            seen = 1;
            if (npos && i + 1 < argc && argv[i + 1][0] != '-') {
                *name = argv[++i];
                continue;
            }
        }
        out[(*nout)++] = argv[i];
        if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
            npos++;
        } else if (strcmp(a, "--") == 0) {
            only_pos = 1;
        } else if (a[1] == '-' && !strchr(a, '=')) { // an option's value is no positional
            for (const ordo_opt *o = opts; o->name; o++)
                if (strcmp(o->name, a + 2) == 0 && o->type != ORDO_OPT_FLAG && i + 1 < argc)
                    out[(*nout)++] = argv[++i];
        }
    }
    return seen;
}

// Writes report as the run's eval record `name` (NULL: the default name of its variant) in
// the directory of the checkpoint it scored, and says where.
static ordo_status save_record(ordo_eval_report *report, const char *name, int quiet) {
    char dir[ORDO_PATH_MAX], def[ORDO_EVAL_NAME_MAX + 16];
    const char *ck = ordo_eval_str_value(report->checkpoint);
    const char *slash = ck ? strrchr(ck, '/') : NULL;
    ordo_status s = slash ? ordo_path(dir, sizeof dir, "%.*s", (int)(slash - ck), ck)
                          : ordo_path(dir, sizeof dir, ".");
    if (!name) name = ordo_eval_default_name(report, def, sizeof def);
    if (!s) s = ordo_eval_save(dir, name, report);
    if (!s && !quiet) printf("saved as %s/%s/%s.json\n", dir, ORDO_EVAL_DIR, name);
    return s;
}

ordo_status ordo_cmd_eval(int argc, char **argv) {
    const char *contexts = NULL, *mode = ordo_eval_mode_name(ORDO_EVAL_NONOVERLAP);
    char mode_help[128];
    ordo_names_join(&ordo_eval_modes, " | ", " | ", mode_help, sizeof mode_help);
    strncat(mode_help, " (sliding: each target once, up to T of context)",
            sizeof mode_help - strlen(mode_help) - 1);
    long long batch = 8, max_windows = 0, threads = 0, stride = 0, old_stride = 0, examples = 200,
              max_n = 0;
    long long step = -1;
    const char *data = NULL, *extend_pos = NULL, *attention = "auto", *depths_arg = NULL;
    const char *positions = "contiguous", *progress = "auto";
    char attn_help[160];
    snprintf(attn_help, sizeof attn_help, "how attention computes the scores: ");
    ordo_names_join(&ordo_attn_impl_names, " | ", " | ", attn_help + strlen(attn_help),
                    sizeof attn_help - strlen(attn_help));
    strncat(attn_help, " (auto: materialized at short T, where faster)",
            sizeof attn_help - strlen(attn_help) - 1);
    int json = 0, save = 0, ngram = 1;
    long long context_use = 0;
    // RoPE scaling other than the run's
    const char *rope_scaling = NULL;
    double rope_factor = 0;
    long long rope_orig = 0;
    double yarn_alpha = 0, yarn_beta = 0;
    int yarn_no_temp = 0;
    char rope_help[160];
    snprintf(rope_help, sizeof rope_help,
             "rope: score with this scaling, not the run's own (used when not given): ");
    ordo_names_join(&ordo_rope_scaling_names, " | ", " | ", rope_help + strlen(rope_help),
                    sizeof rope_help - strlen(rope_help));
    ordo_opt opts[] = {
        {"context", ORDO_OPT_STRING, &contexts,
         "comma-separated lengths (default: the training context)", 0},
        {"mode", ORDO_OPT_STRING, &mode, mode_help, 0},
        // not --stride: train's --stride moves the training windows, in every mode
        {"sliding-stride", ORDO_OPT_INT, &stride,
         "--mode sliding: how far each window moves (0 = T/4)", .min = 0, .max = 1 << 20},
        {"batch", ORDO_OPT_INT, &batch, "windows per forward pass", .min = 1, .max = 4096},
        {"max-windows", ORDO_OPT_INT, &max_windows, "windows per length (0 = the whole split)",
         .min = 0, .max = INFINITY},
        {"examples", ORDO_OPT_INT, &examples,
         "copy/reverse/add: examples per length n; passkey: per length and depth;\n"
         "                         mqar, flipflop, selective-copy, count: per length and column",
         .min = 0, .max = 100000},
        {"max-n", ORDO_OPT_INT, &max_n,
         "copy/reverse/add: longest n (0 = twice the training max-len)", .min = 0, .max = 4096},
        {"depths", ORDO_OPT_STRING, &depths_arg,
         "passkey: comma-separated depths of the key in 0..1 (none = 0,0.25,0.5,0.75,1);\n"
         "                         its lengths are --context's, --examples per cell",
         0},
        ordo_args_threads_opt(&threads),
        {"json", ORDO_OPT_FLAG, &json, "print the JSON report instead of a table", 0},
        // a long eval (one window of 32k tokens, a passkey grid) runs for minutes
        {"progress", ORDO_OPT_STRING, &progress,
         "on stderr: auto (live on a terminal, else none) | live | plain (a line per\n"
         "                         tenth of each length, passkey grid, and layer of a long\n"
         "                         forward) | off",
         0},
        {"ngram", ORDO_OPT_FLAG, &ngram,
         "also score n-gram levels (orders 1-6) on the same targets (--no-ngram: not;\n"
         "                         see 'ordo baseline')",
         0},
        {"context-use", ORDO_OPT_INT, &context_use,
         "also the loss of N targets with their context cut to k = 1, 2, 4, ...,\n"
         "                         the training context (Khandelwal et al. 2018; 0 = not)",
         .min = 0, .max = 1 << 24},
        {"save", ORDO_OPT_FLAG, &save,
         "--save [NAME] (after RUN_DIR) or --save=NAME: also keep the report as\n"
         "                         RUN_DIR/eval/NAME.json for compare; NAME from the variant\n"
         "                         when not given (base, ntk-x4, extend-fresh); base also as\n"
         "                         RUN_DIR/eval.json",
         0},
        {"stride", ORDO_OPT_INT, &old_stride, "deprecated: the old name of --sliding-stride",
         .min = 0, .max = 1 << 20},
        ordo_args_step_opt(&step),
        {"data", ORDO_OPT_STRING, &data,
         "score this whole text file (or token file) with the run's tokenizer instead\n"
         "                         of the run's validation set",
         0},
        // RoPE scaling other than the run's
        {"rope-scaling", ORDO_OPT_STRING, &rope_scaling, rope_help, 0},
        {"rope-factor", ORDO_OPT_FLOAT, &rope_factor,
         "its factor s (0 = the longest --context / the original context)", 0},
        {"rope-orig-context", ORDO_OPT_INT, &rope_orig,
         "yarn's original context (0 = the run's, else its training context)", .min = 0,
         .max = 1 << 20},
        {"yarn-alpha", ORDO_OPT_FLOAT, &yarn_alpha,
         "with --rope-scaling yarn: its ramp's slow end beta_slow (0 = the paper's 1)", 0},
        {"yarn-beta", ORDO_OPT_FLOAT, &yarn_beta,
         "with --rope-scaling yarn: its ramp's fast end beta_fast (0 = the paper's 32)", 0},
        {"yarn-no-temperature", ORDO_OPT_FLAG, &yarn_no_temp,
         "with --rope-scaling yarn: without its temperature (q, k x 0.1 ln s + 1)", 0},
        // eval past a learned table
        {"extend-pos", ORDO_OPT_STRING, &extend_pos,
         "learned: score lengths past the table with it grown as train --init grows it\n"
         "                         (interpolate | fresh | copy; fresh rows from the run's\n"
         "                         seed)",
         0},
        // how attention computes the scores
        {"attention", ORDO_OPT_STRING, &attention, attn_help, 0},
        // Ruoss et al.'s test protocol for --pos-random runs
        {"positions", ORDO_OPT_STRING, &positions,
         "contiguous (0..T-1) | drawn (a --pos-random run: positions drawn as in\n"
         "                         training, a fixed draw per window; Ruoss et al.'s tests)",
         0},
        {0},
    };
    const char **pos, *save_name;
    int npos, help, nargs;
    char **args = ordo_xmalloc(((size_t)argc + 1) * sizeof *args);
    int save_given = take_save_name(opts, argc, argv, args, &nargs, &save_name);
    ordo_status s = ordo_args_command("eval", "RUN_DIR|CHECKPOINT.safetensors [options]", opts,
                                      nargs, args, &pos, &npos, &help);
    save |= save_given;
    if (!s && save_name) s = ordo_eval_name_check("--save", save_name);
    if (!s && help) {
        free(pos);
        free(args);
        return ORDO_OK;
    }
    int lens[64], nlen = 0;
    ordo_eval_request q = {.batch = (int)batch,
                           .max_windows = (size_t)max_windows,
                           .examples = (int)examples,
                           .max_n = (int)max_n,
                           .stride = 0}; // set below, once --sliding-stride is known
    if (!s) s = ordo_args_one_run(npos, &step);
    if (!s && save && data)
        s = ordo_error(ORDO_ERR_ARG, "--save writes an eval record (RUN_DIR/eval/NAME.json), the "
                                     "run's own validation scores for compare; with --data the "
                                     "scores are on other text (use --json > FILE)");
    if (!s && (s = ordo_eval_mode_parse(mode, &q.mode))) s = ordo_error_wrap(s, "--mode");
    if (!s) s = sliding_stride(opts, q.mode, &stride, old_stride);
    q.stride = (int)stride;
    double depths[32];
    if (!s && depths_arg &&
        !(s = ordo_passkey_parse_depths("--depths", depths_arg, depths, 32, &q.ndepths)))
        q.depths = depths;
    if (!s && contexts) s = parse_lengths(contexts, lens, &nlen, 64);
    if (!s && !rope_scaling && (rope_factor != 0 || rope_orig != 0))
        s = ordo_error(ORDO_ERR_ARG, "--%s goes with --rope-scaling (pi, ntk, yarn or none)",
                       rope_factor != 0 ? "rope-factor" : "rope-orig-context");
    if (!s && rope_factor != 0 && !(rope_factor >= 1 && rope_factor <= 1e4))
        s = ordo_error(ORDO_ERR_ARG, "--rope-factor is %g, expected 1..1e4 (0 = automatic)",
                       rope_factor);
    if (!s && rope_scaling) {
        ordo_rope_scaling sc;
        if ((s = ordo_rope_scaling_parse(rope_scaling, &sc)))
            s = ordo_error_wrap(s, "--rope-scaling");
        else if (sc == ORDO_ROPE_SCALING_NONE && rope_factor != 0)
            s = ordo_error(ORDO_ERR_ARG, "--rope-factor %g has no effect with --rope-scaling none",
                           rope_factor);
    }
    q.rope_scaling = rope_scaling;
    q.rope_factor = rope_factor;
    q.rope_orig_context = (int)rope_orig;
    if (!s && (yarn_alpha != 0 || yarn_beta != 0 || yarn_no_temp) &&
        !(rope_scaling && strcmp(rope_scaling, "yarn") == 0))
        s = ordo_error(ORDO_ERR_ARG, "--%s goes with --rope-scaling yarn",
                       yarn_alpha != 0  ? "yarn-alpha"
                       : yarn_beta != 0 ? "yarn-beta"
                                        : "yarn-no-temperature");
    // the paper's values are the model's zeros (the record then names no ramp)
    q.yarn_alpha = yarn_alpha == ORDO_YARN_ALPHA ? 0 : yarn_alpha;
    q.yarn_beta = yarn_beta == ORDO_YARN_BETA ? 0 : yarn_beta;
    q.yarn_no_temperature = yarn_no_temp;
    if (!s && extend_pos) {
        int how;
        s = ordo_names_parse(&ordo_extend_pos_names, extend_pos, &how);
    }
    q.extend_pos = extend_pos;
    if (!s && (s = ordo_attn_impl_parse(attention, &q.attention)))
        s = ordo_error_wrap(s, "--attention");
    int progress_mode = ORDO_PROGRESS_AUTO;
    if (!s && (s = ordo_names_parse(&ordo_progress_names, progress, &progress_mode)))
        s = ordo_error_wrap(s, "--progress");
    if (!s && strcmp(positions, "drawn") == 0)
        q.drawn_positions = 1;
    else if (!s && strcmp(positions, "contiguous") != 0)
        s = ordo_error(ORDO_ERR_ARG, "--positions is '%s', expected contiguous or drawn",
                       positions);
    ordo_eval_report report = {0};
    if (!s) {
        ordo_args_threads("eval", opts, threads);
        q.run_dir = pos[0];
        q.lengths = contexts ? lens : NULL;
        q.nlen = nlen;
        q.step = step;
        q.have_step = step >= 0;
        q.data = data;
        q.no_ngram = !ngram;
        q.context_use = (int)context_use;
        q.show.mode = (ordo_progress_mode)progress_mode;
        s = ordo_eval_run(&q, &report);
    }
    if (!s) {
        if (json)
            print_json(&report);
        else
            print_table(&report);
        // the run dir: the checkpoint's directory (RUN_DIR, or a file's)
        if (save && ordo_dist_rank() == 0) s = save_record(&report, save_name, json);
    }
    ordo_eval_report_free(&report);
    ordo_config_strings_free();
    free(pos);
    free(args);
    return s;
}
