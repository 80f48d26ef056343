// `ordo compare`'s work: one row per position scheme (the runs
// of a scheme are its seeds) with the parameter count, final train loss, best val loss and
// perplexity, tokens/s, time, and the eval.json losses at 1x, 2x, 4x, 8x the training
// length, as mean ± sample sd over seeds. Writes compare.md, compare.csv, the plots and
// report.html (compare_report.c), and prints the Markdown table. Runs trained on different
// data are refused; other differences between runs (sizes, steps) are only warned about.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include <jansson.h>

#include "framework/fileio.h"
#include "experiments/compare.h"
#include "experiments/plot.h"
#include "framework/strbuf.h"

static const int mults[ORDO_CMP_NMULT] = {1, 2, 4, 8};

// ---------------------------------------------------------------------------------------
// statistics and text

static ordo_cmp_cell cell_of(const double *v, int n, int of) {
    ordo_cmp_cell e = {.mean = NAN, .sd = NAN, .of = of};
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

static int col_decimals(int col) {
    return col == ORDO_CMP_TPS ? 0 : col == ORDO_CMP_WALL ? 2 : col == ORDO_CMP_PPL ? 3 : 4;
}

void ordo_cmp_cell_str(const ordo_cmp_cell *e, int col, char *buf, size_t cap) {
    if (e->n == 0) {
        if (e->note)
            snprintf(buf, cap, "n/a (%s)", e->note);
        else
            snprintf(buf, cap, "-");
        return;
    }
    int d = col_decimals(col);
    int k = e->nonfinite && e->nonfinite < e->n
                ? snprintf(buf, cap, "inf (%d of %d runs not finite)", e->nonfinite, e->n)
            : e->nonfinite ? snprintf(buf, cap, "inf")
            // a diverging run's huge numbers in %g, not as a hundred digits
            : fabs(e->mean) >= 1e9 ? (e->n > 1 ? snprintf(buf, cap, "%.4g ± %.4g", e->mean, e->sd)
                                               : snprintf(buf, cap, "%.4g ± -", e->mean))
            : e->n > 1             ? snprintf(buf, cap, "%.*f ± %.*f", d, e->mean, d, e->sd)
                                   : snprintf(buf, cap, "%.*f ± -", d, e->mean);
    if (e->n < e->of && k > 0 && (size_t)k < cap)
        snprintf(buf + k, cap - (size_t)k, " (%d of %d runs)", e->n, e->of);
}

void ordo_cmp_header(const ordo_cmp *c, int col, char *buf, size_t cap) {
    static const char *names[] = {"final train loss", "best val loss", "val ppl", "tokens/s"};
    if (col < ORDO_CMP_WALL)
        snprintf(buf, cap, "%s", names[col]);
    else if (col == ORDO_CMP_WALL)
        snprintf(buf, cap, "%s", c->wall_derived ? "train time (s)*" : "wall time (s)");
    else if (c->context > 0)
        snprintf(buf, cap, "loss@%dx (T=%lld)", mults[col - ORDO_CMP_X1],
                 mults[col - ORDO_CMP_X1] * c->context);
    else
        snprintf(buf, cap, "loss@%dx", mults[col - ORDO_CMP_X1]);
}

static void params_str(const ordo_cmp_group *g, char *buf, size_t cap) {
    if (g->params_min == g->params_max)
        snprintf(buf, cap, "%zu", g->params_min);
    else
        snprintf(buf, cap, "%zu-%zu", g->params_min, g->params_max);
}

// Markdown cells may not hold a '|'.
static void md_cell(ordo_strbuf *b, const char *s) {
    ordo_strbuf_puts(b, " ");
    for (; *s; s++) {
        if (*s == '|') ordo_strbuf_puts(b, "\\");
        ordo_strbuf_append(b, s, 1);
    }
    ordo_strbuf_puts(b, " |");
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

// The Markdown document (table and notes) into b.
static void write_md(const ordo_cmp *c, ordo_strbuf *b) {
    char h[128], cell[512];
    ordo_strbuf_puts(b, "| scheme | seeds | params | embedding |");
    for (int k = 0; k < ORDO_CMP_NCOL; k++) {
        ordo_cmp_header(c, k, h, sizeof h);
        md_cell(b, h);
    }
    ordo_strbuf_puts(b, "\n|---|---:|---:|---|");
    for (int k = 0; k < ORDO_CMP_NCOL; k++) ordo_strbuf_puts(b, "---:|");
    ordo_strbuf_puts(b, "\n");
    for (int i = 0; i < c->ngroups; i++) {
        const ordo_cmp_group *g = &c->groups[i];
        params_str(g, h, sizeof h);
        ordo_strbuf_puts(b, "|");
        md_cell(b, g->pos);
        ordo_strbuf_printf(b, " %d | %s |", g->n, h);
        md_cell(b, g->embed);
        for (int k = 0; k < ORDO_CMP_NCOL; k++) {
            ordo_cmp_cell_str(&g->cell[k], k, cell, sizeof cell);
            md_cell(b, cell);
        }
        ordo_strbuf_puts(b, "\n");
    }
    ordo_strbuf_puts(b,
                     "\nmean ± sample sd over the seeds of each scheme (\"± -\": one seed, no sd). "
                     "Val loss: the best evaluated during training; ppl: exp of it. loss@Nx: "
                     "eval.json at N times the training length (\"-\": no eval.json or no such "
                     "length, n/a: the run cannot go there). Embedding: xS std D, the token "
                     "embeddings multiplied by S and their table initialised with std D "
                     "(--embed-style, --embed-scale, --embed-std).\n");
    if (c->wall_derived)
        ordo_strbuf_puts(
            b, "\n*train time is derived from metrics.jsonl (no elapsed_s there): the sum "
               "over log intervals of steps x batch x context / tokens_per_s, i.e. the "
               "training loop with its evaluations, without start-up.\n");
    ordo_cmp_nonfinite_notes(c, 0, b);
}

void ordo_cmp_nonfinite_notes(const ordo_cmp *c, int html, ordo_strbuf *b) {
    for (int i = 0; i < c->nruns; i++) {
        const ordo_runinfo *r = &c->runs[i];
        if (isnan(r->nonfinite_step)) continue;
        ordo_strbuf_puts(b, html ? "<p class=\"note\">" : "\n");
        if (html)
            ordo_svg_escape(b, r->dir);
        else
            ordo_strbuf_puts(b, r->dir);
        ordo_strbuf_printf(b,
                           ": values that were not finite (null in metrics.jsonl) first at "
                           "step %.0f: the run diverged. They are gaps in the curves, inf in "
                           "the table.%s\n",
                           r->nonfinite_step, html ? "</p>" : "");
    }
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
        else
            snprintf(key, sizeof key, "loss_%dx", mults[k - ORDO_CMP_X1]);
        ordo_strbuf_printf(b, ",%s_mean,%s_sd,%s_n", key, key, key);
        if (k >= ORDO_CMP_X1) ordo_strbuf_printf(b, ",%s_note", key);
    }
    ordo_strbuf_puts(b, ",train_context,wall_source,embedding\n");
    for (int i = 0; i < c->ngroups; i++) {
        const ordo_cmp_group *g = &c->groups[i];
        char p[64];
        params_str(g, p, sizeof p);
        csv_field(b, g->pos, 0);
        ordo_strbuf_printf(b, "%d,%s,", g->n, p);
        for (int k = 0; k < ORDO_CMP_NCOL; k++) {
            const ordo_cmp_cell *e = &g->cell[k];
            csv_num(b, e->n ? e->mean : NAN);
            csv_num(b, e->sd);
            ordo_strbuf_printf(b, "%d,", e->n);
            if (k >= ORDO_CMP_X1) csv_field(b, e->note && !e->n ? e->note : "", 0);
        }
        ordo_strbuf_printf(b, "%lld,%s,", c->runs[g->runs[0]].context,
                           c->wall_derived ? "derived_from_tokens_per_s" : "elapsed_s");
        csv_field(b, g->embed, 1);
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

static void warn_differences(const ordo_cmp *c) {
    const ordo_runinfo *a = &c->runs[0];
    for (int i = 1; i < c->nruns; i++) {
        const ordo_runinfo *b = &c->runs[i];
        const char *what = a->context != b->context   ? "context"
                           : a->steps != b->steps     ? "steps"
                           : a->batch != b->batch     ? "batch"
                           : a->d_model != b->d_model ? "d-model"
                           : a->layers != b->layers   ? "layers"
                           : a->heads != b->heads     ? "heads"
                           : strcmp(a->embed, b->embed) != 0
                               ? "embed-style, --embed-scale or --embed-std"
                               : NULL;
        if (what)
            fprintf(stderr,
                    "ordo: warning: %s and %s differ in --%s; the comparison is not on "
                    "equal terms\n",
                    a->dir, b->dir, what);
    }
}

static void build(ordo_cmp *c) {
    c->groups = ordo_xcalloc((size_t)c->nruns, sizeof *c->groups);
    c->context = c->runs[0].context;
    for (int i = 0; i < c->nruns; i++)
        if (strcmp(c->runs[i].embed, c->runs[0].embed) != 0) c->mixed_embed = 1;
    for (int i = 0; i < c->nruns; i++) {
        ordo_runinfo *r = &c->runs[i];
        if (r->context != c->context) c->context = 0;
        if (r->wall_derived) c->wall_derived = 1;
        int g = 0;
        while (g < c->ngroups && (strcmp(c->groups[g].scheme, r->pos) != 0 ||
                                  strcmp(c->groups[g].embed, r->embed) != 0))
            g++;
        if (g == c->ngroups) {
            c->groups[g].pos = c->groups[g].scheme = r->pos;
            c->groups[g].embed = r->embed;
            if (c->mixed_embed) { // one row per scheme and convention, told apart in plots too
                size_t len = strlen(r->pos) + strlen(r->embed) + 4;
                c->groups[g].label = ordo_xmalloc(len);
                snprintf(c->groups[g].label, len, "%s [%s]", r->pos, r->embed);
                c->groups[g].pos = c->groups[g].label;
            }
            c->groups[g].runs = ordo_xmalloc((size_t)c->nruns * sizeof(int));
            c->ngroups++;
        }
        c->groups[g].runs[c->groups[g].n++] = i;
    }
    qsort(c->groups, (size_t)c->ngroups, sizeof *c->groups, cmp_group);
    double *v = ordo_xmalloc((size_t)c->nruns * sizeof(double));
    for (int gi = 0; gi < c->ngroups; gi++) {
        ordo_cmp_group *g = &c->groups[gi];
        g->color = ordo_svg_scheme_color(c->mixed_embed ? NULL : g->scheme, gi);
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
        for (int m = 0; m < ORDO_CMP_NMULT; m++) {
            const char *note = NULL;
            for (int k = 0; k < g->n; k++) {
                const ordo_runinfo *r = &c->runs[g->runs[k]];
                const char *nt = NULL;
                v[k] = NAN;
                if (!r->has_eval) continue;
                double loss;
                if (!ordo_runinfo_eval_at(r, mults[m] * r->eval_train_context, &loss, &nt))
                    continue;
                v[k] = loss;
                if (isnan(loss) && !note) note = nt ? nt : "null in eval.json";
            }
            g->cell[ORDO_CMP_X1 + m] = cell_of(v, g->n, g->n);
            g->cell[ORDO_CMP_X1 + m].note = note;
        }
    }
    free(v);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// A directory that is not a run and has no sweep.json (a sweep stopped before writing it):
// its subdirectories holding a config.json, by name. *n = 0 when there are none. Errors:
// an entry whose path does not fit (*out is then freed).
static ordo_status subdir_runs(const char *dir, char ***out, int *n) {
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return ORDO_OK;
    int cap = 0;
    struct dirent *e;
    ordo_status s = ORDO_OK;
    while (!s && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[ORDO_PATH_MAX];
        struct stat st;
        if ((s = ordo_path(path, sizeof path, "%s/%s/config.json", dir, e->d_name))) break;
        if (stat(path, &st) != 0) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = ordo_xrealloc(*out, (size_t)cap * sizeof **out);
        }
        s = ordo_path(path, sizeof path, "%s/%s", dir, e->d_name); // shorter: fits
        (*out)[(*n)++] = ordo_xstrdup(path);
    }
    closedir(d);
    if (s) {
        for (int i = 0; i < *n; i++) free((*out)[i]);
        free(*out);
        *out = NULL;
        *n = 0;
        return s;
    }
    if (*n) qsort(*out, (size_t)*n, sizeof **out, cmp_str);
    return ORDO_OK;
}

// The run dirs named by a sweep dir's sweep.json ({"runs": ["learned-s1", ...]}), relative
// to the sweep dir unless absolute; without sweep.json, the run dirs directly inside dir
// when dir is not itself a run. *is_sweep = 0 (no error) when neither applies.
ordo_status ordo_compare_sweep_runs(const char *dir, char ***out, int *n, int *is_sweep) {
    char path[ORDO_PATH_MAX];
    *is_sweep = 0;
    ordo_status s = ordo_path(path, sizeof path, "%s/sweep.json", dir);
    if (s) return s;
    struct stat st;
    *is_sweep = stat(path, &st) == 0;
    if (!*is_sweep) {
        if ((s = ordo_path(path, sizeof path, "%s/config.json", dir))) return s;
        if (stat(path, &st) == 0) return ORDO_OK;
        s = subdir_runs(dir, out, n);
        *is_sweep = *n > 0;
        return s;
    }
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) return ordo_error(ORDO_ERR_FORMAT, "%s: line %d: %s", path, err.line, err.text);
    json_t *runs = json_object_get(j, "runs");
    if (!json_is_array(runs) || json_array_size(runs) == 0) {
        json_decref(j);
        return ordo_error(ORDO_ERR_FORMAT, "%s: expected a non-empty \"runs\" array of run dirs",
                          path);
    }
    *n = (int)json_array_size(runs);
    *out = ordo_xcalloc((size_t)*n, sizeof(char *));
    for (int i = 0; i < *n; i++) {
        const char *name = json_string_value(json_array_get(runs, (size_t)i));
        if (!name) {
            json_decref(j);
            return ordo_error(ORDO_ERR_FORMAT, "%s: runs[%d] is not a string", path, i);
        }
        char buf[ORDO_PATH_MAX];
        s = name[0] == '/' ? ordo_path(buf, sizeof buf, "%s", name)
                           : ordo_path(buf, sizeof buf, "%s/%s", dir, name);
        if (s) {
            json_decref(j);
            return ordo_error_wrap(s, "sweep.json: runs[%d]", i); // s quotes the dir's start
        }
        (*out)[i] = ordo_xstrdup(buf);
    }
    json_decref(j);
    return ORDO_OK;
}

static void cmp_free(ordo_cmp *c) {
    for (int i = 0; i < c->nruns; i++) ordo_runinfo_free(&c->runs[i]);
    free(c->runs);
    for (int i = 0; i < c->ngroups; i++) {
        free(c->groups[i].runs);
        free(c->groups[i].label);
    }
    free(c->groups);
}

ordo_status ordo_compare_write(const char **dirs, int ndirs, const char *out_dir,
                               const char *source) {
    ordo_cmp c = {.nruns = ndirs, .source = source};
    c.runs = ordo_xcalloc((size_t)ndirs, sizeof *c.runs);
    ordo_status s = ORDO_OK;
    for (int i = 0; i < ndirs && !s; i++) s = ordo_runinfo_load(&c.runs[i], dirs[i]);
    for (int i = 1; i < ndirs && !s; i++)
        if (strcmp(c.runs[i].data, c.runs[0].data) != 0)
            s = ordo_error(ORDO_ERR_ARG,
                           "%s was trained on %s but %s on %s: compare runs of one task/data",
                           c.runs[0].dir, c.runs[0].data, c.runs[i].dir, c.runs[i].data);
    if (s) {
        cmp_free(&c);
        return s;
    }
    warn_differences(&c);
    build(&c);

    // the paths before anything is printed or made; loss_by_position.svg is the longest name
    // that the report (compare_report.c) writes
    char md_path[ORDO_PATH_MAX], csv_path[ORDO_PATH_MAX], probe[ORDO_PATH_MAX];
    if ((s = ordo_path(md_path, sizeof md_path, "%s/compare.md", out_dir)) ||
        (s = ordo_path(csv_path, sizeof csv_path, "%s/compare.csv", out_dir)) ||
        (s = ordo_path(probe, sizeof probe, "%s/loss_by_position.svg", out_dir)) ||
        (s = ordo_write_atomic_check(probe)) || (s = ordo_mkdir_p(out_dir, 0755)))
        goto done;
    // compare.md built in memory, so stdout and the file get the same bytes
    ordo_strbuf md;
    ordo_strbuf_init(&md);
    ordo_strbuf_printf(&md, "# ordo compare: %s (data: %s)\n\n", c.source, c.runs[0].data);
    write_md(&c, &md);
    fputs(md.buf, stdout);
    s = ordo_strbuf_save(&md, md_path);
    ordo_strbuf_free(&md);
    if (s) goto done;
    if ((s = write_csv(&c, csv_path))) goto done;
    if ((s = ordo_cmp_write_report(&c, out_dir))) goto done;
    printf("\nwrote compare.md, compare.csv and the plots and report.html in %s/\n", out_dir);
done:
    cmp_free(&c);
    return s;
}
