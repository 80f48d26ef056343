// `ordo compare`'s work: rows of runs that differ only in the seed (their config.json agree on
// every key but those of ignored_keys), with the parameter count, final train loss, best val
// loss and perplexity, tokens/s, time, the eval.json losses at 1x, 2x, 4x, 8x the training
// length (with the windows they rest on) and on the order-dependent tokens, and how the val
// loss stands against the val split's unigram level, as mean ± sample sd over seeds. Writes
// compare.md, compare.csv, the plots and report.html (compare_report.c), and prints the
// Markdown table. Runs trained on different data are refused; runs that differ in another
// setting are separate rows, with the setting named.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "data/unigram.h"
#include "experiments/compare.h"
#include "experiments/plot.h"
#include "sys/fileio.h"
#include "sys/hash.h"
#include "sys/strbuf.h"
#include "run/checkpoint.h"
#include "run/config.h"
#include "run/rundata.h"

// ---------------------------------------------------------------------------------------
// statistics and text

static ordo_cmp_cell cell_of(const double *v, int n, int of) {
    ordo_cmp_cell e = {.mean = NAN, .sd = NAN, .of = of, .windows = -1};
    double sum = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i])) sum += v[i], e.n++, e.nonfinite += !isfinite(v[i]);
    if (e.n == 0) return e;
    e.mean = sum / e.n;
    if (e.n > 1 && !e.nonfinite) {
        double ss = 0;
        for (int i = 0; i < n; i++)
            if (!isnan(v[i])) ss += (v[i] - e.mean) * (v[i] - e.mean);
        e.sd = sqrt(ss / (e.n - 1));
    }
    return e;
}

static void params_str(const ordo_cmp_group *g, char *buf, size_t cap) {
    if (g->params_min == g->params_max)
        snprintf(buf, cap, "%zu", g->params_min);
    else
        snprintf(buf, cap, "%zu-%zu", g->params_min, g->params_max);
}

static void csv_field(ordo_strbuf *b, const char *s, int last) {
    if (strpbrk(s, ",\"\n")) {
        ordo_strbuf_puts(b, "\"");
        for (; *s; s++) {
            if (*s == '"') ordo_strbuf_puts(b, "\"");
            ordo_strbuf_append(b, s, 1);
        }
        ordo_strbuf_puts(b, "\"");
    } else {
        ordo_strbuf_puts(b, s);
    }
    ordo_strbuf_puts(b, last ? "\n" : ",");
}

static void csv_num(ordo_strbuf *b, double v) {
    if (isnan(v))
        ordo_strbuf_puts(b, ",");
    else
        ordo_strbuf_printf(b, "%.9g,", v);
}

static ordo_status write_csv(const ordo_cmp *c, const char *path) {
    static const char *keys[] = {"final_train_loss", "best_val_loss", "best_val_ppl",
                                 "tokens_per_s", "wall_s"};
    ordo_strbuf csv;
    ordo_strbuf_init(&csv);
    ordo_strbuf *b = &csv;
    ordo_strbuf_puts(b, "scheme,seeds,params");
    for (int k = 0; k < ORDO_CMP_NCOL; k++) {
        char key[32];
        if (k < ORDO_CMP_X1)
            snprintf(key, sizeof key, "%s", keys[k]);
        else if (k == ORDO_CMP_ORDER)
            snprintf(key, sizeof key, "order_loss_1x");
        else if (ordo_cmp_col_shown(c, k)) // every length a record holds
            snprintf(key, sizeof key, "%s_%dx", c->exact ? "exact_match" : "loss",
                     c->mults[k - ORDO_CMP_X1]);
        else
            continue;
        ordo_strbuf_printf(b, ",%s_mean,%s_sd,%s_n", key, key, key);
        if (k >= ORDO_CMP_X1) ordo_strbuf_printf(b, ",%s_note,%s_windows", key, key);
    }
    ordo_strbuf_puts(b, ",train_context,wall_source,embedding,differs,unigram_level,"
                        "below_unigram_mean,unigram_runs,no_context_runs,ngram_best_order,"
                        "below_best_ngram_mean,ngram_runs,not_below_3gram_runs\n");
    for (int i = 0; i < c->ngroups; i++) {
        const ordo_cmp_group *g = &c->groups[i];
        char p[64];
        params_str(g, p, sizeof p);
        csv_field(b, g->pos, 0);
        ordo_strbuf_printf(b, "%d,%s,", g->n, p);
        for (int k = 0; k < ORDO_CMP_NCOL; k++) {
            const ordo_cmp_cell *e = &g->cell[k];
            if (k >= ORDO_CMP_X1 && k < ORDO_CMP_ORDER && !ordo_cmp_col_shown(c, k)) continue;
            csv_num(b, e->n ? e->mean : NAN);
            csv_num(b, e->sd);
            ordo_strbuf_printf(b, "%d,", e->n);
            if (k < ORDO_CMP_X1) continue;
            csv_field(b, e->note && !e->n ? e->note : "", 0);
            if (e->windows >= 0) ordo_strbuf_printf(b, "%lld", e->windows);
            ordo_strbuf_puts(b, ",");
        }
        ordo_strbuf_printf(b, "%lld,%s,", c->runs[g->runs[0]].context,
                           c->wall_derived ? "derived_from_tokens_per_s" : "elapsed_s");
        csv_field(b, g->embed, 0);
        csv_field(b, g->differs, 0);
        const ordo_runinfo *r0 = &c->runs[g->runs[0]];
        csv_num(b, r0->unigram);
        csv_num(b, g->uni_n ? g->uni_gap : NAN);
        ordo_strbuf_printf(b, "%d,%d,", g->uni_n, g->uni_flagged);
        if (g->ng_n) ordo_strbuf_printf(b, "%d", g->ng_best_order);
        ordo_strbuf_puts(b, ",");
        csv_num(b, g->ng_n ? g->ng_gap : NAN);
        ordo_strbuf_printf(b, "%d,%d\n", g->ng_n, g->ng_flagged);
    }
    ordo_status s = ordo_strbuf_save(&csv, path);
    ordo_strbuf_free(&csv);
    return s;
}

// ---------------------------------------------------------------------------------------
// building the comparison

static const ordo_runinfo *sort_runs;
static int cmp_run(const void *a, const void *b) {
    const ordo_runinfo *x = &sort_runs[*(const int *)a], *y = &sort_runs[*(const int *)b];
    if (x->seed != y->seed) return x->seed < y->seed ? -1 : 1;
    return strcmp(x->name, y->name);
}
static int cmp_group(const void *a, const void *b) {
    const ordo_cmp_group *x = a, *y = b;
    int rx = ordo_scheme_rank(x->scheme), ry = ordo_scheme_rank(y->scheme);
    return rx != ry ? rx - ry : strcmp(x->pos, y->pos);
}
static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// A config value as the table shows it: numbers as %g, strings bare, null as "unset".
static void value_str(ordo_strbuf *b, json_t *v) {
    if (!v || json_is_null(v)) {
        ordo_strbuf_puts(b, "unset");
    } else if (json_is_integer(v)) {
        ordo_strbuf_printf(b, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        ordo_strbuf_printf(b, "%g", json_real_value(v));
    } else if (json_is_string(v)) {
        ordo_strbuf_puts(b, json_string_value(v));
    } else {
        char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        ordo_strbuf_puts(b, t ? t : "?");
        free(t);
    }
}

// The settings that define each run's experiment: config.json without the ignored keys.
static json_t *experiment_of(const ordo_runinfo *r) {
    json_t *e = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(r->config, key, v) {
        if (!ordo_cmp_key_ignored(key)) json_object_set(e, key, v);
    }
    // The val file by its content, as the data: one file under two paths is the same file.
    json_t *val = json_object_get(r->config, ORDO_CONFIG_VAL_DATA_KEY);
    if (json_is_object(val)) {
        json_t *id = json_pack("{s:O?,s:O?}", "size", json_object_get(val, "size"), "xxh3",
                               json_object_get(val, "xxh3"));
        if (id) json_object_set_new(e, "val-data", id);
    }
    // The lr curve is a function of lr, warmup, min-lr, steps and the schedule, compared as
    // keys; what they do not show is a resume that changed --steps, kept in the history.
    json_t *hist = json_object_get(json_object_get(r->config, ORDO_CONFIG_PLAN_KEY), "history");
    if (json_array_size(hist)) json_object_set(e, "resumed-with-other-steps", hist);
    // the starting weights by content: one checkpoint under two paths is the same start
    json_t *init = json_object_get(json_object_get(r->config, ORDO_CONFIG_INIT_KEY), "sha256");
    if (json_is_string(init))
        json_object_set(e, "init-sha256", init);
    else if (json_is_string(json_object_get(r->config, "init")))
        json_object_set(e, "init", json_object_get(r->config, "init")); // an older record
    return e;
}

// The keys (besides pos, the scheme) whose values are not the same in every run, sorted.
static int differing_keys(json_t **exp, int n, char ***out) {
    int cap = 16, nk = 0;
    *out = ordo_xmalloc((size_t)cap * sizeof **out);
    for (int i = 0; i < n; i++) {
        const char *key;
        json_t *v;
        json_object_foreach(exp[i], key, v) {
            if (strcmp(key, "pos") == 0) continue;
            int seen = 0, differs = 0;
            for (int k = 0; k < nk && !seen; k++) seen = strcmp((*out)[k], key) == 0;
            for (int j = 0; j < n && !seen && !differs; j++) {
                json_t *w = json_object_get(exp[j], key);
                differs = !w || !json_equal(v, w);
            }
            if (seen || !differs) continue;
            if (nk == cap) *out = ordo_xrealloc(*out, (size_t)(cap *= 2) * sizeof **out);
            (*out)[nk++] = (char *)key; // points into exp[i], alive as long as it
        }
    }
    if (nk) qsort(*out, (size_t)nk, sizeof **out, cmp_str);
    return nk;
}

// The unigram level of runs whose config.json does not record it (an older ordo), from
// their data when it can still be read (the same data as another run's: its level). A run
// whose data cannot be read stays NaN ("unknown") with a note on stderr.
static void unigram_from_data(ordo_cmp *c) {
    static const char *const data_keys[] = {"tokenizer", "val-frac", "corpus-tokens",
                                            "data-seed", "min-len",  "max-len",
                                            "task",      "stride",   NULL};
    for (int i = 0; i < c->nruns; i++) {
        ordo_runinfo *r = &c->runs[i];
        if (!isnan(r->unigram)) continue;
        for (int k = 0; k < c->nruns && isnan(r->unigram); k++) {
            const ordo_runinfo *o = &c->runs[k];
            int same = !isnan(o->unigram) && strcmp(o->data_id, r->data_id) == 0;
            for (int q = 0; data_keys[q] && same; q++) {
                json_t *a = json_object_get(r->config, data_keys[q]),
                       *b = json_object_get(o->config, data_keys[q]);
                same = a && b && json_equal(a, b);
            }
            if (same) r->unigram = o->unigram, r->unigram_targets = o->unigram_targets;
        }
        if (!isnan(r->unigram)) continue;
        ordo_train_config cfg;
        ordo_train_config_defaults(&cfg);
        ordo_rundata d;
        memset(&d, 0, sizeof d);
        ordo_status s = ordo_train_config_from_json(&cfg, r->config, r->dir, 0, NULL);
        cfg.data_check = ORDO_DATA_WARN;
        if (!s) s = ordo_rundata_load(&d, &cfg);
        if (!s) {
            size_t cnt;
            r->unigram =
                ordo_unigram_entropy(d.val, d.val_targets, d.n - d.n_train, d.vocab_size, &cnt);
            r->unigram_targets = (long long)cnt;
        } else {
            fprintf(stderr,
                    "ordo: warning: %s: config.json has no \"%s\" (an older ordo) and its data "
                    "cannot be read (%s): its unigram level is unknown\n",
                    r->dir, ORDO_CONFIG_UNIGRAM_KEY, ordo_error_message());
        }
        ordo_rundata_free(&d);
        ordo_config_strings_free();
    }
}

// The val loss of r at its training length: eval.json at 1x, else the best val loss.
static double loss_at_train_length(const ordo_runinfo *r) {
    const ordo_eval_point *p = ordo_cmp_eval_at_mult(r, 1);
    return p && !isnan(p->val_loss) ? p->val_loss : r->best_val_loss;
}

// Two eval variants are one row's: the same name; a run without any eval (NULL) goes with
// the base evals of its experiment, its eval cells empty.
static int same_variant(const char *a, const char *b) {
    return strcmp(a ? a : "base", b ? b : "base") == 0;
}

// 1 when some run's eval is another variant than "base".
static int variants_shown(const ordo_cmp *c) {
    for (int i = 0; i < c->nruns; i++)
        if (c->runs[i].eval_name && strcmp(c->runs[i].eval_name, "base") != 0) return 1;
    return 0;
}

// The row's label: the scheme, "[differs]" when the scheme has several rows of one variant,
// and the eval variant when some row is of another variant than base ("rope · base", "rope ·
// ntk-x4"; a row without an eval says so).
static void label_row(const ordo_cmp *c, ordo_cmp_group *g) {
    int var = variants_shown(c);
    if (!c->split && !var) return;
    ordo_strbuf b;
    ordo_strbuf_init(&b);
    ordo_strbuf_puts(&b, g->scheme);
    if (c->split) { // the differing values in short: a label never holds JSON
        char d[256];
        ordo_cmp_differs_short(c, g, d, sizeof d);
        if (d[0]) ordo_strbuf_printf(&b, " [%s]", d);
    }
    if (var) ordo_strbuf_printf(&b, " · %s", g->variant ? g->variant : "no eval");
    g->label = ordo_xstrdup(b.buf);
    g->pos = g->label;
    ordo_strbuf_free(&b);
}

// Passkey's exact match of r's selected record at `mult` times its training length (the mean
// over the depths), NaN when it has none there.
static double exact_at(const ordo_runinfo *r, int mult) {
    for (int i = 0; r->has_eval && i < r->nacc; i++)
        if (r->acc[i].n == mult * r->eval_train_context) return r->acc[i].exact_match;
    return NAN;
}

// c's length columns: every multiple of the training length that some record holds, and
// those --columns names (shown as "-" where no record has them), ascending; passkey's show
// the exact match (c->exact).
static void length_columns(ordo_cmp *c) {
    int cap = 64, n = 0, *all = ordo_xmalloc((size_t)cap * sizeof *all);
    for (int i = 0; i < c->nruns; i++) {
        const ordo_runinfo *r = &c->runs[i];
        c->exact |= r->has_eval && r->acc_task && strcmp(r->acc_task, "passkey") == 0;
        int mine[64], k = ordo_cmp_record_mults(r, mine, 64);
        for (int j = 0; j < k; j++) {
            int q = 0;
            while (q < n && all[q] != mine[j]) q++;
            if (q < n) continue;
            if (n == cap) all = ordo_xrealloc(all, (size_t)(cap *= 2) * sizeof *all);
            all[n++] = mine[j];
        }
    }
    for (const char *p = c->view.columns; p && *p;) { // checked by ordo_cmp_columns_check
        size_t len = strcspn(p, ",");
        int m = ordo_cmp_mult_name(p, len), q = 0;
        while (m && q < n && all[q] != m) q++;
        if (m && q == n) {
            if (n == cap) all = ordo_xrealloc(all, (size_t)(cap *= 2) * sizeof *all);
            all[n++] = m;
        }
        p += len + (p[len] == ',');
    }
    qsort(all, (size_t)n, sizeof *all, cmp_int);
    c->nmult = n < ORDO_CMP_MAXMULT ? n : ORDO_CMP_MAXMULT;
    memcpy(c->mults, all, (size_t)c->nmult * sizeof *all);
    if (n > c->nmult)
        fprintf(stderr,
                "ordo: warning: the records hold %d lengths; the tables show the first %d (up to "
                "%dx the training length)\n",
                n, c->nmult, c->mults[c->nmult - 1]);
    free(all);
}

static void build(ordo_cmp *c) {
    c->groups = ordo_xcalloc((size_t)c->nruns, sizeof *c->groups);
    c->context = c->runs[0].context;
    json_t **exp = ordo_xmalloc((size_t)c->nruns * sizeof *exp);
    for (int i = 0; i < c->nruns; i++) exp[i] = experiment_of(&c->runs[i]);
    char **keys;
    int nkeys = differing_keys(exp, c->nruns, &keys);
    ordo_strbuf all;
    ordo_strbuf_init(&all);
    for (int k = 0; k < nkeys; k++) ordo_strbuf_printf(&all, "%s--%s", k ? ", " : "", keys[k]);
    c->differs = ordo_xstrdup(all.buf ? all.buf : "");
    ordo_strbuf_free(&all);

    // one row per experiment: the runs whose settings are all equal
    int *row_of = ordo_xmalloc((size_t)c->nruns * sizeof(int));
    for (int i = 0; i < c->nruns; i++) {
        ordo_runinfo *r = &c->runs[i];
        if (r->context != c->context) c->context = 0;
        if (r->wall_derived) c->wall_derived = 1;
        int g = 0;
        while (g < c->ngroups && !(json_equal(exp[c->groups[g].runs[0]], exp[i]) &&
                                   same_variant(c->groups[g].variant, r->eval_name)))
            g++;
        if (g == c->ngroups) {
            c->groups[g].pos = c->groups[g].scheme = r->pos;
            c->groups[g].variant = r->eval_name;
            c->groups[g].embed = r->embed;
            c->groups[g].runs = ordo_xmalloc((size_t)c->nruns * sizeof(int));
            ordo_strbuf d;
            ordo_strbuf_init(&d);
            for (int k = 0; k < nkeys; k++) {
                ordo_strbuf_printf(&d, "%s%s=", k ? ", " : "", keys[k]);
                value_str(&d, json_object_get(exp[i], keys[k]));
            }
            c->groups[g].differs = ordo_xstrdup(d.buf ? d.buf : "");
            ordo_strbuf_free(&d);
            c->ngroups++;
        }
        row_of[i] = g;
        if (!c->groups[g].variant) c->groups[g].variant = r->eval_name; // NULL until one has
        c->groups[g].runs[c->groups[g].n++] = i;
        c->groups[g].stale += r->eval_stale;
    }
    // a scheme with several rows of one eval variant: each labelled with its values of the
    // differing keys (rows of other variants are told apart by the variant)
    for (int g = 0; g < c->ngroups; g++)
        for (int h = 0; h < c->ngroups; h++)
            if (h != g && strcmp(c->groups[g].scheme, c->groups[h].scheme) == 0 &&
                same_variant(c->groups[g].variant, c->groups[h].variant))
                c->split = 1;
    for (int g = 0; g < c->ngroups; g++) label_row(c, &c->groups[g]);
    free(row_of);
    free(keys);
    for (int i = 0; i < c->nruns; i++) json_decref(exp[i]);
    free(exp);

    for (int i = 0; i < c->nruns; i++)
        for (int k = 0; k < c->runs[i].neval; k++)
            if (!isnan(c->runs[i].eval[k].order_loss)) c->has_order = 1;
    // the unigram level: the runs' common one, if they share it
    c->unigram = NAN;
    for (int i = 0; i < c->nruns; i++) {
        double u = c->runs[i].unigram;
        if (isnan(u)) continue;
        if (isnan(c->unigram) && !c->unigram_mixed)
            c->unigram = u;
        else if (fabs(u - c->unigram) > 1e-9)
            c->unigram = NAN, c->unigram_mixed = 1;
    }

    qsort(c->groups, (size_t)c->ngroups, sizeof *c->groups, cmp_group);
    // every row its own line style: a scheme's colour, another dash for its other rows
    const char **keys_of = ordo_xmalloc((size_t)c->ngroups * sizeof *keys_of),
               **colors = ordo_xmalloc((size_t)c->ngroups * sizeof *colors),
               **dashes = ordo_xmalloc((size_t)c->ngroups * sizeof *dashes);
    for (int gi = 0; gi < c->ngroups; gi++) keys_of[gi] = c->groups[gi].scheme;
    ordo_svg_row_styles(keys_of, c->ngroups, colors, dashes);
    for (int gi = 0; gi < c->ngroups; gi++)
        c->groups[gi].color = colors[gi], c->groups[gi].dash = dashes[gi];
    free(keys_of), free(colors), free(dashes);
    length_columns(c);
    double *v = ordo_xmalloc((size_t)c->nruns * sizeof(double));
    for (int gi = 0; gi < c->ngroups; gi++) {
        ordo_cmp_group *g = &c->groups[gi];
        sort_runs = c->runs;
        qsort(g->runs, (size_t)g->n, sizeof(int), cmp_run);
        g->params_min = (size_t)-1;
        for (int k = 0; k < g->n; k++) {
            size_t p = c->runs[g->runs[k]].params;
            if (p < g->params_min) g->params_min = p;
            if (p > g->params_max) g->params_max = p;
        }
        for (int col = 0; col < ORDO_CMP_X1; col++) {
            for (int k = 0; k < g->n; k++) {
                const ordo_runinfo *r = &c->runs[g->runs[k]];
                v[k] = col == ORDO_CMP_TRAIN ? r->final_train_loss
                       : col == ORDO_CMP_VAL ? r->best_val_loss
                       : col == ORDO_CMP_PPL ? r->best_val_ppl
                       : col == ORDO_CMP_TPS ? r->tokens_per_s
                                             : r->wall_s;
            }
            g->cell[col] = cell_of(v, g->n, g->n);
        }
        // eval.json: the val loss at each multiple, and the order-dependent loss at 1x
        for (int col = ORDO_CMP_X1; col < ORDO_CMP_NCOL; col++) {
            if (!ordo_cmp_col_shown(c, col) && col != ORDO_CMP_ORDER) continue;
            int mult = col == ORDO_CMP_ORDER ? 1 : c->mults[col - ORDO_CMP_X1];
            int exact = c->exact && col != ORDO_CMP_ORDER;
            const char *note = NULL;
            long long windows = -1;
            for (int k = 0; k < g->n; k++) {
                const ordo_runinfo *r = &c->runs[g->runs[k]];
                const ordo_eval_point *p = ordo_cmp_eval_at_mult(r, mult);
                v[k] = exact                   ? exact_at(r, mult)
                       : !p                    ? NAN
                       : col == ORDO_CMP_ORDER ? p->order_loss
                                               : p->val_loss;
                // a length that cannot be scored says why in its loss's note
                if (p && isnan(v[k]) && isnan(p->val_loss) && col != ORDO_CMP_ORDER && !note)
                    note = p->note ? p->note : "null in eval.json";
                if (!exact && !isnan(v[k]) && p->windows >= 0 &&
                    (windows < 0 || p->windows < windows))
                    windows = p->windows;
            }
            g->cell[col] = cell_of(v, g->n, g->n);
            g->cell[col].note = note;
            g->cell[col].windows = windows;
            if (ordo_cmp_few_windows(&g->cell[col]) && ordo_cmp_col_shown(c, col))
                c->few_windows = 1;
        }
        // against the unigram level
        double gap = 0;
        for (int k = 0; k < g->n; k++) {
            const ordo_runinfo *r = &c->runs[g->runs[k]];
            double loss = loss_at_train_length(r);
            if (isnan(r->unigram) || isnan(loss)) continue;
            g->uni_n++;
            gap += r->unigram - loss;
            g->uni_flagged += loss > (1 - ORDO_CMP_UNIGRAM_MARGIN) * r->unigram;
        }
        g->uni_gap = g->uni_n ? gap / g->uni_n : NAN;
        // against the n-gram levels: only the eval record's, whose targets are the loss's own
        // (the best val loss of training has none)
        gap = 0;
        for (int k = 0; k < g->n; k++) {
            const ordo_eval_point *p = ordo_cmp_eval_at_mult(&c->runs[g->runs[k]], 1);
            if (!p || isnan(p->val_loss)) continue;
            int best = 0;
            for (int o = 0; o < p->nngram; o++)
                if (!isnan(p->ngram[o]) && (!best || p->ngram[o] < p->ngram[best - 1]))
                    best = o + 1;
            if (!best) continue;
            if (!g->ng_n) g->ng_best_order = best;
            g->ng_n++;
            gap += p->ngram[best - 1] - p->val_loss;
            double tri =
                p->nngram >= ORDO_CMP_NGRAM_ORDER ? p->ngram[ORDO_CMP_NGRAM_ORDER - 1] : NAN;
            g->ng_flagged += !isnan(tri) && !(p->val_loss < tri);
        }
        g->ng_gap = g->ng_n ? gap / g->ng_n : NAN;
        c->has_ngram |= g->ng_n > 0;
        c->ngram_flagged |= g->ng_flagged > 0;
    }
    free(v);
}

// c's rows and its expanded runs (shallow copies of own[0..nown), which are freed here).
static void cmp_free(ordo_cmp *c, ordo_runinfo *own, int nown) {
    for (int i = 0; i < nown; i++) ordo_runinfo_free(&own[i]);
    free(own);
    free(c->runs);
    for (int i = 0; i < c->ngroups; i++) {
        free(c->groups[i].runs);
        free(c->groups[i].label);
        free(c->groups[i].differs);
    }
    free(c->groups);
    free(c->differs);
}

// One run given twice (`compare A A`, or a sweep and one of its runs) would be counted twice.
static ordo_status check_given_twice(const ordo_runinfo *own, int n) {
    for (int i = 0; i < n; i++) {
        struct stat a, b;
        if (stat(own[i].dir, &a) != 0) continue;
        for (int j = i + 1; j < n; j++)
            if (stat(own[j].dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                return ordo_error(ORDO_ERR_ARG,
                                  "%s and %s are one run directory given twice: a row pools "
                                  "different seeds; give each run once",
                                  own[i].dir, own[j].dir);
    }
    return ORDO_OK;
}

// The runs of one task and data: the file's recorded size and hash when both have them.
static ordo_status check_same_data(const ordo_runinfo *own, int n) {
    for (int i = 1; i < n; i++) {
        const ordo_runinfo *a = &own[0], *b = &own[i];
        int same = a->data_hashed && b->data_hashed
                       ? strcmp(strrchr(a->data_id, '('), strrchr(b->data_id, '(')) == 0
                       : strcmp(a->data, b->data) == 0;
        if (!same)
            return ordo_error(ORDO_ERR_ARG,
                              "%s was trained on %s but %s on %s: compare runs of one task/data",
                              a->dir, a->data_id, b->dir, b->data_id);
    }
    return ORDO_OK;
}

// c->runs: one entry per eval record of each run (a shallow copy with that record
// selected), so that a run's variants go to their own rows; a run without one gives one.
static void expand_runs(ordo_cmp *c, ordo_runinfo *own, int nown) {
    c->nruns = 0;
    for (int i = 0; i < nown; i++) c->nruns += own[i].nevals ? own[i].nevals : 1;
    c->runs = ordo_xcalloc((size_t)c->nruns, sizeof *c->runs);
    int k = 0;
    for (int i = 0; i < nown; i++)
        for (int e = 0; e < (own[i].nevals ? own[i].nevals : 1); e++) {
            c->runs[k] = own[i];
            ordo_runinfo_select_eval(&c->runs[k++], own[i].nevals ? e : -1);
        }
}

// The newest checkpoint's data checksum of r: the metadata's, else the file's hash (an
// older checkpoint), into hex[17]; "" when it cannot be read.
static void ckpt_hash(const ordo_runinfo *r, char hex[17]) {
    char path[ORDO_PATH_MAX];
    uint64_t size, h;
    snprintf(hex, 17, "%s", r->ckpt_xxh3);
    if (hex[0]) return;
    if (!ordo_checkpoint_path(path, sizeof path, r->dir, r->ckpt_step) &&
        !ordo_hash_file(path, &size, &h))
        ordo_hash_hex(h, hex);
    ordo_error_clear();
}

// A line on stderr for each eval record older than its run's newest checkpoint (the tables
// mark its cells): a run trained on after it was evaluated.
static void warn_stale(const ordo_runinfo *own, int n) {
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < own[i].nevals; e++) {
            const ordo_run_eval *ev = &own[i].evals[e];
            if (!ev->stale) continue;
            fprintf(stderr,
                    "ordo: warning: %s: eval %s is stale: of step %lld, older than the newest "
                    "checkpoint (step %lld), which the training columns show\n",
                    own[i].dir, ev->name, ev->step, (long long)own[i].ckpt_step);
            k++;
        }
    if (k)
        fprintf(stderr,
                "ordo: warning: %d stale eval%s: `ordo compare --reeval` evaluates them "
                "again at their newest checkpoint\n",
                k, k == 1 ? "" : "s");
}

// A row pools seeds of one experiment and eval variant: one run counted twice (a copy of
// it), or two runs of one set of weights under two seeds, would count one model twice with
// sd 0. Refused, naming both directories.
static ordo_status check_rows(const ordo_cmp *c) {
    char(*hash)[17] = ordo_xcalloc((size_t)c->nruns, sizeof *hash); // each run's, when needed
    ordo_status s = ORDO_OK;
    for (int gi = 0; gi < c->ngroups && !s; gi++) {
        const ordo_cmp_group *g = &c->groups[gi];
        const char *v = g->variant ? g->variant : "no eval";
        for (int a = 0; a < g->n && !s; a++)
            for (int b = a + 1; b < g->n && !s; b++) {
                int i = g->runs[a], j = g->runs[b];
                const ordo_runinfo *x = &c->runs[i], *y = &c->runs[j];
                if (x->seed == y->seed) {
                    s = ordo_error(ORDO_ERR_ARG,
                                   "%s and %s are the same experiment with the same seed %lld (a "
                                   "copy?), in the row of eval %s: a row pools different seeds; "
                                   "give one of them",
                                   x->dir, y->dir, x->seed, v);
                    break;
                }
                if (!hash[i][0]) ckpt_hash(x, hash[i]);
                if (!hash[j][0]) ckpt_hash(y, hash[j]);
                if (hash[i][0] && strcmp(hash[i], hash[j]) == 0)
                    s = ordo_error(ORDO_ERR_ARG,
                                   "%s (seed %lld) and %s (seed %lld) hold identical newest "
                                   "checkpoints (data xxh3 %s; a copy with its seed edited?), in "
                                   "the row of eval %s: a row pools different seeds; give one of "
                                   "them",
                                   x->dir, x->seed, y->dir, y->seed, hash[i], v);
            }
    }
    free(hash);
    return s;
}

ordo_status ordo_compare_write(const char **dirs, int ndirs, const char *out_dir,
                               const char *source, const ordo_cmp_view *view) {
    ordo_cmp c = {.source = source};
    if (view) c.view = *view;
    ordo_runinfo *own = ordo_xcalloc((size_t)ndirs, sizeof *own);
    ordo_status s = ORDO_OK;
    for (int i = 0; i < ndirs && !s; i++) s = ordo_runinfo_load(&own[i], dirs[i]);
    if (!s) s = check_same_data(own, ndirs);
    if (!s) s = check_given_twice(own, ndirs);
    if (s) {
        cmp_free(&c, own, ndirs);
        return s;
    }
    expand_runs(&c, own, ndirs);
    warn_stale(own, ndirs);
    unigram_from_data(&c);
    build(&c);
    if ((s = check_rows(&c))) goto done;
    if ((s = ordo_cmp_view_check(&c))) goto done; // before anything is printed or made
    if (c.differs[0])
        fprintf(stderr,
                "ordo: warning: the runs differ in %s: runs are pooled only where every "
                "setting but the seed agrees, so these are separate rows (\"differs in\"), "
                "not on equal terms\n",
                c.differs);

    // the paths before anything is printed or made; loss_by_position.svg is the longest name
    // that the report (compare_report.c) writes
    char md_path[ORDO_PATH_MAX], csv_path[ORDO_PATH_MAX], probe[ORDO_PATH_MAX];
    if ((s = ordo_path(md_path, sizeof md_path, "%s/compare.md", out_dir)) ||
        (s = ordo_path(csv_path, sizeof csv_path, "%s/compare.csv", out_dir)) ||
        (s = ordo_path(probe, sizeof probe, "%s/loss_by_position.svg", out_dir)) ||
        (s = ordo_write_atomic_check(probe)) || (s = ordo_mkdir_p(out_dir, 0755)))
        goto done;
    // compare.md built in memory, so stdout and the file's start get the same bytes
    ordo_strbuf md;
    ordo_strbuf_init(&md);
    ordo_strbuf_printf(&md, "# ordo compare: %s (data: %s)\n\n", c.source, c.runs[0].data_id);
    ordo_cmp_table(&c, &md);
    fputs(md.buf, stdout); // the table and its marks; compare.md goes on with the notes
    ordo_strbuf_puts(&md, "\n## Notes\n");
    ordo_cmp_notes(&c, 0, &md);
    s = ordo_strbuf_save(&md, md_path);
    ordo_strbuf_free(&md);
    if (s) goto done;
    if ((s = write_csv(&c, csv_path))) goto done;
    if ((s = ordo_cmp_write_report(&c, out_dir))) goto done;
    printf("\nwrote compare.md (the table and its notes), compare.csv (every column), the plots "
           "and report.html in %s/\n",
           out_dir);
    int evaluated = 0; // a run with no eval record shows its training's best val loss alone
    for (int k = 0; k < c.nruns && !evaluated; k++) evaluated = c.runs[k].has_eval;
    if (!evaluated)
        printf("no run has an eval record yet: 'ordo eval RUN --save' (or a sweep) scores each run "
               "at 1x-8x its training length and fills the length columns\n");
done:
    cmp_free(&c, own, ndirs);
    return s;
}
