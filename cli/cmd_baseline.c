// `ordo baseline RUN_DIR|DATA`: the n-gram levels of a run's data (eval/ngram_levels.h), the
// loss that interpolated Witten-Bell models of orders 1..N reach on exactly the targets `ordo
// eval` scores, in both modes, at the run's training length (or --lengths). It takes train's
// option table as `ordo data` does, so that a file (DATA, or --data) is split and tokenized as
// `ordo train` with the same options would, and a RUN_DIR's config.json gives them instead.
//
// Deliberately not here: a model (nothing is loaded but the data), and the per-position levels.
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/run_config.h"
#include "eval/evaluate.h"
#include "eval/ngram_levels.h"
#include "sys/fileio.h"
#include "sys/clock.h"
#include "train/feed.h"

static const char *SYNOPSIS =
    "RUN_DIR|DATA [train's options] [--order N] [--lengths T,...] [--json]\n\n"
    "Fits interpolated Witten-Bell n-gram models of orders 1..--order on the training split\n"
    "and scores them on the validation split exactly as 'ordo eval' scores a model: the same\n"
    "windows (nonoverlap, and sliding with --sliding-stride), the same tail rule, each target\n"
    "with at most the context its window gives it. With RUN_DIR the run's config.json gives\n"
    "the data, tokenizer and split; with DATA (a text or token file) train's options do\n"
    "(--tokenizer, --val-frac, --val-data, --context). The levels are cached per data hash\n"
    "in $ORDO_CACHE_DIR/ngram (else $XDG_CACHE_HOME/ordo/ngram, ~/.cache/ordo/ngram).\n"
    "Example:\n"
    "  ordo baseline tinyshakespeare.txt --tokenizer byte --context 64";

#define MAX_LENGTHS 16

// "64,128" into out[*n]: positive, distinct, at most max.
static ordo_status parse_lengths(const char *s, int *out, int *n, int max) {
    *n = 0;
    for (const char *p = s; *p;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v <= 0 || v > (1 << 20) || errno)
            return ordo_error(ORDO_ERR_ARG,
                              "--lengths '%s': expected positive lengths up to 2^20, like 64,128",
                              s);
        if (*n == max) return ordo_error(ORDO_ERR_ARG, "--lengths: at most %d lengths", max);
        for (int k = 0; k < *n; k++)
            if (out[k] == (int)v)
                return ordo_error(ORDO_ERR_ARG, "--lengths '%s': %ld is named twice", s, v);
        out[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return *n ? ORDO_OK : ordo_error(ORDO_ERR_ARG, "--lengths is empty");
}

// The column head of a level: "nonoverlap T=64", "sliding T=64 S=16".
static void level_head(const ordo_ngram_level *l, char *buf, size_t cap) {
    if (l->mode == ORDO_EVAL_SLIDING)
        snprintf(buf, cap, "sliding T=%d S=%d", l->context, l->stride);
    else if (l->stride != l->context)
        snprintf(buf, cap, "nonoverlap T=%d @%d", l->context, l->stride);
    else
        snprintf(buf, cap, "nonoverlap T=%d", l->context);
}

static void print_table(const ordo_train_config *c, const ordo_rundata *d,
                        const ordo_ngram_level *lv, int nl, int N, int cached, double fit_s,
                        double total_s) {
    printf("n-gram baselines: interpolated Witten-Bell, fitted on the training split, scored on "
           "the validation split\n  as 'ordo eval' scores it (nats per token)\n");
    if (c->data)
        printf("data: %s, %s tokenizer (%d ids): train %zu tokens, val %zu tokens\n", c->data,
               d->file.ids ? d->file.h.tokenizer : c->tokenizer, d->vocab_size, d->n_train,
               d->nval);
    else
        printf("data: built-in corpus %s (%d ids): train %zu tokens, val %zu tokens\n", c->task,
               d->vocab_size, d->n_train, d->nval);
    printf("%s (%.2f s in all)\n", cached ? "from the cache" : "fitted", total_s);
    (void)fit_s;
    char head[64];
    printf("%6s", "order");
    for (int i = 0; i < nl; i++) {
        level_head(&lv[i], head, sizeof head);
        printf("  %22s", head);
    }
    printf("\n");
    for (int j = 0; j < N; j++) {
        printf("%6d", j + 1);
        for (int i = 0; i < nl; i++)
            if (isfinite(lv[i].loss[j]))
                printf("  %22.4f", lv[i].loss[j]);
            else
                printf("  %22s", "n/a");
        printf("\n");
    }
    printf("%6s", "targets");
    for (int i = 0; i < nl; i++) printf("  %22zu", lv[i].targets);
    printf("\n");
}

static void print_json(const ordo_train_config *c, const ordo_rundata *d,
                       const ordo_ngram_level *lv, int nl, int N, int cached) {
    json_t *levels = json_array();
    for (int i = 0; i < nl; i++) json_array_append_new(levels, ordo_ngram_level_to_json(&lv[i]));
    json_t *j = json_pack("{s:s, s:i, s:s?, s:s?, s:i, s:I, s:I, s:b, s:o}", "method",
                          "interpolated Witten-Bell", "orders", N, "data", c->data, "task",
                          c->data ? NULL : c->task, "vocab", d->vocab_size, "train_tokens",
                          (json_int_t)d->n_train, "eval_tokens", (json_int_t)d->nval, "cached",
                          cached, "levels", levels);
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    printf("%s\n", text);
    free(text);
    json_decref(j);
}

// A positional that is a directory is a run; anything else is a data file.
static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

ordo_status ordo_cmd_baseline(int argc, char **argv) {
    ordo_train_config cfg;
    ordo_train_config_defaults(&cfg);
    long long order = 6, stride = 0;
    int json = 0, cache = 1;
    const char *lengths = NULL, *cache_dir = NULL;
    ordo_opt own[] = {
        {"order", ORDO_OPT_INT, &order, "the highest order N (every order 1..N is scored)",
         .min = 1, .max = ORDO_NGRAM_MAX_ORDER},
        {"lengths", ORDO_OPT_STRING, &lengths,
         "comma-separated eval lengths (default: the training context)", 0},
        {"sliding-stride", ORDO_OPT_INT, &stride, "sliding windows' step (0 = T/4, as eval's)",
         .min = 0, .max = 1 << 20},
        {"json", ORDO_OPT_FLAG, &json, "print JSON instead of a table", 0},
        {"cache", ORDO_OPT_FLAG, &cache, "read and write the cache (--no-cache: fit anew)", 0},
        {"cache-dir", ORDO_OPT_STRING, &cache_dir,
         "the cache directory (default: $ORDO_CACHE_DIR/ngram, ...)", 0},
    };
    int nbase;
    ordo_opt *opts = ordo_cli_train_options(&cfg, own, (int)(sizeof own / sizeof *own), &nbase);
    const char **pos;
    int npos, help;
    ordo_status s = ordo_args_command("baseline", SYNOPSIS, opts, argc, argv, &pos, &npos, &help);
    if (!s && help) goto done;
    if (!s && npos > 1)
        s = ordo_error(ORDO_ERR_ARG,
                       "expected one RUN_DIR or DATA file, got %d arguments (see 'ordo baseline "
                       "--help')",
                       npos);
    int run = !s && npos == 1 && is_dir(pos[0]);
    // the run's config over train's defaults; the table ends before this command's own
    ordo_opt saved = opts[nbase];
    opts[nbase] = (ordo_opt){0};
    if (run) s = ordo_cli_run_config(&cfg, pos[0], opts);
    opts[nbase] = saved;
    if (!s && npos == 1 && !run) {
        if (ordo_options_find(opts, "data")->seen)
            s = ordo_error(ORDO_ERR_ARG, "DATA '%s' and --data %s: give one", pos[0], cfg.data);
        cfg.data = pos[0];
    }
    if (!s && npos == 0 && !cfg.data)
        s = ordo_error(ORDO_ERR_ARG, "expected RUN_DIR or DATA (a built-in task needs a run: "
                                     "its corpus is the run's)");
    char tokname[ORDO_TOKFILE_NAME + 1];
    if (!s && !run)
        ordo_feed_tokenizer_of_data(&cfg, ordo_options_find(opts, "tokenizer")->seen, tokname);
    int lens[MAX_LENGTHS], nlen = 1;
    lens[0] = (int)cfg.context;
    if (!s && lengths) s = parse_lengths(lengths, lens, &nlen, MAX_LENGTHS);
    char dirbuf[ORDO_PATH_MAX];
    if (!s && cache && !cache_dir) cache_dir = ordo_ngram_cache_dir(dirbuf, sizeof dirbuf);
    ordo_rundata data;
    memset(&data, 0, sizeof data);
    double t0 = ordo_now_s();
    if (!s) s = ordo_rundata_load(&data, &cfg);
    ordo_ngram_level lv[2 * MAX_LENGTHS];
    int cached = 0;
    double fit_s = 0;
    ordo_ngram_request q = {.lengths = lens,
                            .nlen = nlen,
                            .sliding_stride = (int)stride,
                            .order = (int)order,
                            .cache_dir = cache ? cache_dir : NULL};
    if (!s) s = ordo_ngram_levels(&data, &q, lv, &cached, &fit_s);
    if (!s && json)
        print_json(&cfg, &data, lv, 2 * nlen, (int)order, cached);
    else if (!s)
        print_table(&cfg, &data, lv, 2 * nlen, (int)order, cached, fit_s, ordo_now_s() - t0);
    ordo_rundata_free(&data);
done:
    free(pos);
    free(opts);
    ordo_config_strings_free();
    return s;
}
