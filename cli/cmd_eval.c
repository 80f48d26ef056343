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

// The mean loss over each eighth of the window (or each position when T <= 8).
static void print_positions(json_t *pl) {
    size_t T = json_array_size(pl), parts = T < 8 ? T : 8;
    for (size_t k = 0; k < parts; k++) {
        double sum = 0;
        size_t cnt = 0;
        for (size_t t = k * T / parts; t < (k + 1) * T / parts; t++) {
            json_t *v = json_array_get(pl, t);
            if (json_is_number(v)) sum += json_number_value(v), cnt++;
        }
        if (cnt)
            printf(" %7.4f", sum / cnt);
        else
            printf(" %7s", "-");
    }
    printf("\n");
}

// A number of [0, 1] in a 7-wide column, or n/a for null.
static void print_cell(json_t *v) {
    if (json_is_number(v))
        printf(" %7.3f", json_number_value(v));
    else
        printf(" %7s", "n/a");
}

// Passkey: retrieval accuracy, a row per length and a column per depth, with the marginals.
static void print_passkey(json_t *acc) {
    size_t i, j;
    json_t *row, *d;
    printf("passkey retrieval (exact match of the %lld-digit key, %lld examples per cell, "
           "trained at T=%lld), by length and depth:\n",
           (long long)json_integer_value(json_object_get(acc, "digits")),
           (long long)json_integer_value(json_object_get(acc, "examples")),
           (long long)json_integer_value(json_object_get(acc, "train_context")));
    printf("  length");
    json_array_foreach(json_object_get(acc, "depths"), j, d)
        printf("    d=%-4.2f", json_number_value(d));
    printf("     all\n");
    json_array_foreach(json_object_get(acc, "by_length"), i, row) {
        printf("  %6lld", (long long)json_integer_value(json_object_get(row, "length")));
        json_array_foreach(json_object_get(row, "by_depth"), j, d) {
            printf("  ");
            print_cell(d);
        }
        print_cell(json_object_get(row, "exact_match"));
        json_t *note = json_object_get(row, "note");
        printf("%s%s%s\n", note ? "  (" : "", note ? json_string_value(note) : "", note ? ")" : "");
    }
    printf("     all");
    json_array_foreach(json_object_get(acc, "by_depth"), j, row) {
        printf("  ");
        print_cell(json_object_get(row, "exact_match"));
    }
    printf("\n");
}

static void print_table(json_t *r) {
    printf("run %s, step %lld, pos %s, trained at T=%lld, %s windows\n",
           json_string_value(json_object_get(r, "run")),
           (long long)json_integer_value(json_object_get(r, "step")),
           json_string_value(json_object_get(r, "pos")),
           (long long)json_integer_value(json_object_get(r, "train_context")),
           json_string_value(json_object_get(r, "mode")));
    json_t *set = json_object_get(r, "eval_set");
    const char *kind = json_string_value(json_object_get(set, "kind"));
    long long ntok = (long long)json_integer_value(json_object_get(set, "tokens"));
    if (kind && strcmp(kind, "file") == 0)
        printf("eval set: %s, the whole file (%lld tokens, the run's tokenizer); val_loss below "
               "is the loss on it\n",
               json_string_value(json_object_get(set, "file")), ntok);
    else if (kind && strcmp(kind, "val-data") == 0)
        printf("eval set: the run's --val-data file %s (%lld tokens)\n",
               json_string_value(json_object_get(set, "file")), ntok);
    else
        printf("eval set: the run's validation split (%lld tokens)\n", ntok);
    json_t *rope = json_object_get(r, "rope_scaling");
    if (rope && strcmp(json_string_value(json_object_get(rope, "scaling")), "none") != 0)
        printf("rope scaling %s, factor %g, original context %lld (%s)\n",
               json_string_value(json_object_get(rope, "scaling")),
               json_number_value(json_object_get(rope, "factor")),
               (long long)json_integer_value(json_object_get(rope, "original_context")),
               strcmp(json_string_value(json_object_get(rope, "source")), "eval") == 0
                   ? "given to eval"
                   : "the run's");
    else if (rope && strcmp(json_string_value(json_object_get(rope, "source")), "eval") == 0)
        printf("rope scaling none (given to eval)\n");
    json_t *ext = json_object_get(r, "extend_pos");
    if (ext)
        printf("learned table of %lld positions, grown past them by %s (given to eval)\n",
               (long long)json_integer_value(json_object_get(ext, "table")),
               json_string_value(json_object_get(ext, "method")));
    printf("%8s %10s %12s %10s %8s\n", "T", "val_loss", "perplexity", "targets", "windows");
    size_t i;
    json_t *row;
    json_t *res = json_object_get(r, "results");
    json_array_foreach(res, i, row) {
        int T = (int)json_integer_value(json_object_get(row, "context"));
        json_t *loss = json_object_get(row, "val_loss"), *ppl = json_object_get(row, "val_ppl");
        const char *note = json_string_value(json_object_get(row, "note"));
        json_t *grown = json_object_get(row, "extend_pos");
        if (!json_is_number(loss))
            printf("%8d %10s %12s %10s %8s  (%s%s)\n", T, "n/a", "n/a", "-", "-",
                   note ? note : "not finite",
                   note && strncmp(note, "past the learned table", 22) == 0
                       ? "; --extend-pos interpolate|fresh grows it"
                       : "");
        else // a perplexity is null where exp(loss) overflowed
            printf("%8d %10.4f %12.4f %10lld %8lld%s\n", T, json_number_value(loss),
                   json_is_number(ppl) ? json_number_value(ppl) : INFINITY,
                   (long long)json_integer_value(json_object_get(row, "targets")),
                   (long long)json_integer_value(json_object_get(row, "windows")),
                   grown ? "  (table grown)" : "");
    }
    int header = 0;
    json_array_foreach(res, i, row) {
        json_t *ol = json_object_get(row, "order_loss");
        if (!json_is_number(ol)) continue;
        if (!header++)
            printf("loss on the order-dependent tokens only (ln 2 = %.4f is a guess between two "
                   "nouns):\n",
                   log(2.0));
        printf("%8lld %10.4f %23lld targets\n",
               (long long)json_integer_value(json_object_get(row, "context")),
               json_number_value(ol),
               (long long)json_integer_value(json_object_get(row, "order_targets")));
    }
    printf("loss by position within the window (mean over each eighth, first to last):\n");
    json_array_foreach(res, i, row) {
        json_t *pl = json_object_get(row, "loss_by_position");
        if (!pl) continue;
        printf("%8lld", (long long)json_integer_value(json_object_get(row, "context")));
        print_positions(pl);
    }
    json_t *acc = json_object_get(r, "accuracy");
    if (!acc) return;
    if (json_object_get(acc, "depths")) {
        print_passkey(acc);
        return;
    }
    printf("exact match by length n (%s, trained on n = %lld..%lld):\n",
           json_string_value(json_object_get(acc, "task")),
           (long long)json_integer_value(json_object_get(acc, "train_min_len")),
           (long long)json_integer_value(json_object_get(acc, "train_max_len")));
    json_array_foreach(json_object_get(acc, "by_length"), i, row) {
        json_t *em = json_object_get(row, "exact_match");
        printf("  n=%-3lld ", (long long)json_integer_value(json_object_get(row, "n")));
        if (json_is_number(em))
            printf("%6.3f\n", json_number_value(em));
        else
            printf("   n/a  (%s)\n", json_string_value(json_object_get(row, "note")));
    }
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
static ordo_status save_record(json_t *report, const char *name, int quiet) {
    char dir[ORDO_PATH_MAX], def[ORDO_EVAL_NAME_MAX + 16];
    const char *ck = json_string_value(json_object_get(report, "checkpoint"));
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
    const char *positions = "contiguous";
    char attn_help[160];
    snprintf(attn_help, sizeof attn_help, "how attention computes the scores: ");
    ordo_names_join(&ordo_attn_impl_names, " | ", " | ", attn_help + strlen(attn_help),
                    sizeof attn_help - strlen(attn_help));
    strncat(attn_help, " (auto: materialized at short T, where faster)",
            sizeof attn_help - strlen(attn_help) - 1);
    int json = 0, save = 0;
    // RoPE scaling other than the run's (issue 15)
    const char *rope_scaling = NULL;
    double rope_factor = 0;
    long long rope_orig = 0;
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
         "copy/reverse: examples per length n; passkey: per length and depth", .min = 0,
         .max = 100000},
        {"max-n", ORDO_OPT_INT, &max_n, "copy/reverse: longest n (0 = twice the training max-len)",
         .min = 0, .max = 4096},
        {"depths", ORDO_OPT_STRING, &depths_arg,
         "passkey: comma-separated depths of the key in 0..1 (none = 0,0.25,0.5,0.75,1);\n"
         "                         its lengths are --context's, --examples per cell",
         0},
        ordo_args_threads_opt(&threads),
        {"json", ORDO_OPT_FLAG, &json, "print the JSON report instead of a table", 0},
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
        // RoPE scaling other than the run's (issue 15)
        {"rope-scaling", ORDO_OPT_STRING, &rope_scaling, rope_help, 0},
        {"rope-factor", ORDO_OPT_FLOAT, &rope_factor,
         "its factor s (0 = the longest --context / the original context)", 0},
        {"rope-orig-context", ORDO_OPT_INT, &rope_orig,
         "yarn's original context (0 = the run's, else its training context)", .min = 0,
         .max = 1 << 20},
        // issue 15, eval past a learned table
        {"extend-pos", ORDO_OPT_STRING, &extend_pos,
         "learned: score lengths past the table with it grown as train --init grows it\n"
         "                         (interpolate | fresh; fresh rows from the run's seed)",
         0},
        // issue 25
        {"attention", ORDO_OPT_STRING, &attention, attn_help, 0},
        // issue 26: Ruoss et al.'s test protocol for --pos-random runs
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
    if (!s && extend_pos) {
        int how;
        s = ordo_names_parse(&ordo_extend_pos_names, extend_pos, &how);
    }
    q.extend_pos = extend_pos;
    if (!s && (s = ordo_attn_impl_parse(attention, &q.attention)))
        s = ordo_error_wrap(s, "--attention");
    if (!s && strcmp(positions, "drawn") == 0)
        q.drawn_positions = 1;
    else if (!s && strcmp(positions, "contiguous") != 0)
        s = ordo_error(ORDO_ERR_ARG, "--positions is '%s', expected contiguous or drawn",
                       positions);
    json_t *report = NULL;
    if (!s) {
        ordo_args_threads("eval", opts, threads);
        q.run_dir = pos[0];
        q.lengths = contexts ? lens : NULL;
        q.nlen = nlen;
        q.step = step;
        q.have_step = step >= 0;
        q.data = data;
        s = ordo_eval_run(&q, &report);
    }
    if (!s) {
        char *text = json_dumps(report, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        if (json)
            printf("%s\n", text);
        else
            print_table(report);
        // the run dir: the checkpoint's directory (RUN_DIR, or a file's)
        if (save && ordo_dist_rank() == 0) s = save_record(report, save_name, json);
        free(text);
    }
    json_decref(report);
    ordo_config_strings_free();
    free(pos);
    free(args);
    return s;
}
