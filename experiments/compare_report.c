// The pictures of `ordo compare`: loss curves (train and val against step; one colour per
// scheme, each seed a thin line, the mean over seeds a thick one), val loss against eval
// length (log-x, from eval.json), copy/reverse exact match against length when eval.json
// has it, and report.html: a self-contained XHTML page (table and SVGs inline, no scripts,
// no external resources) that any browser opens from disk and any XML parser accepts.
// Its table of rows is compare_html.c's, the accuracy heatmaps per row compare_grid.c's.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fileio.h"
#include "eval/windows.h"
#include "experiments/compare_context.h"
#include "experiments/compare.h"
#include "experiments/compare_grid.h"
#include "experiments/compare_html.h"
#include "experiments/plot.h"

// Arrays owned for the length of one drawing (series point into them).
typedef struct pool {
    double **p;
    int n, cap;
} pool;

static double *pool_new(pool *pl, int n) {
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 32;
        pl->p = ordo_xrealloc(pl->p, (size_t)pl->cap * sizeof *pl->p);
    }
    return pl->p[pl->n++] = ordo_xmalloc((size_t)(n ? n : 1) * sizeof(double));
}

static void pool_free(pool *pl) {
    for (int i = 0; i < pl->n; i++) free(pl->p[i]);
    free(pl->p);
}

// The (step, value) points of run r where the value is present (val: evaluated lines).
static int run_points(pool *pl, const ordo_runinfo *r, int val, double **x, double **y) {
    *x = pool_new(pl, r->n);
    *y = pool_new(pl, r->n);
    int k = 0;
    for (int i = 0; i < r->n; i++) {
        double v = val ? r->val_loss[i] : r->train_loss[i];
        if (isnan(v)) continue;
        (*x)[k] = r->step[i];
        (*y)[k++] = v;
    }
    return k;
}

// Mean over the seeds of g at the steps every seed logged (x of the first seed).
static int mean_points(pool *pl, const ordo_cmp *c, const ordo_cmp_group *g, int val, double **x,
                       double **y) {
    const ordo_runinfo *r0 = &c->runs[g->runs[0]];
    *x = pool_new(pl, r0->n);
    *y = pool_new(pl, r0->n);
    int k = 0;
    for (int i = 0; i < r0->n; i++) {
        double sum = 0;
        int all = 1;
        for (int s = 0; s < g->n && all; s++) {
            const ordo_runinfo *r = &c->runs[g->runs[s]];
            int found = 0;
            for (int j = 0; j < r->n; j++)
                if (r->step[j] == r0->step[i]) {
                    double v = val ? r->val_loss[j] : r->train_loss[j];
                    if (!isnan(v)) sum += v, found = 1;
                    break;
                }
            all = found;
        }
        if (!all) continue;
        (*x)[k] = r0->step[i];
        (*y)[k++] = sum / g->n;
    }
    return k;
}

// The extra width a legend needs beyond `base` px for the longest row label plus `extra`
// characters (labels of split rows, "learned [lr=0.003]", are longer than a scheme): about
// 0.6 em per character of the 11 px legend type, after the 26 px line sample.
static double legend_extra(const ordo_cmp *c, double base, int extra) {
    size_t len = 0;
    for (int i = 0; i < c->ngroups; i++)
        if (strlen(c->groups[i].pos) > len) len = strlen(c->groups[i].pos);
    double need = 26 + 6.6 * (double)(len + (size_t)extra) + 6;
    return need > base ? fmin(need, 420) - base : 0;
}

// The first row of c with the same runs as row gi (gi itself when none before it has them):
// the rows of one experiment's eval variants hold one training, whose curves are drawn once.
static int training_row(const ordo_cmp *c, int gi) {
    const ordo_cmp_group *g = &c->groups[gi];
    for (int h = 0; h < gi; h++) {
        const ordo_cmp_group *o = &c->groups[h];
        int same = o->n == g->n;
        for (int k = 0; same && k < g->n; k++)
            same = strcmp(c->runs[o->runs[k]].dir, c->runs[g->runs[k]].dir) == 0;
        if (same) return h;
    }
    return gi;
}

// The legend label of row gi's training curves: its label without the eval variant when
// another row (another variant of the same runs) shares them, into buf.
static const char *training_label(const ordo_cmp *c, int gi, char *buf, size_t cap) {
    const ordo_cmp_group *g = &c->groups[gi];
    int shared = 0;
    for (int h = gi + 1; h < c->ngroups && !shared; h++) shared = training_row(c, h) == gi;
    const char *dot = shared && g->variant ? strstr(g->pos, " \xc2\xb7 ") : NULL;
    if (!dot) return g->pos;
    snprintf(buf, cap, "%.*s", (int)(dot - g->pos), g->pos);
    return buf;
}

static void loss_curves(const ordo_cmp *c, ordo_strbuf *s) {
    pool pl = {0};
    ordo_series *ser = ordo_xcalloc((size_t)(c->nruns + c->ngroups) * 2, sizeof *ser);
    char(*labels)[320] = ordo_xcalloc((size_t)c->ngroups + 1, sizeof *labels);
    double wx = legend_extra(c, 130, 0), W = 1100 + wx;
    ordo_svg_open(s, W, 440, "ordo compare: loss curves");
    for (int panel = 0; panel < 2; panel++) {
        int n = 0;
        // thin seed lines first so that the means are drawn on top
        for (int gi = 0; gi < c->ngroups; gi++) {
            const ordo_cmp_group *g = &c->groups[gi];
            if (training_row(c, gi) != gi) continue;
            for (int k = 0; k < g->n; k++) {
                const ordo_runinfo *r = &c->runs[g->runs[k]];
                ordo_series *e = &ser[n++];
                e->n = run_points(&pl, r, panel, (double **)&e->x, (double **)&e->y);
                e->color = g->color;
                e->dash = g->dash;
                e->width = 1;
                e->opacity = 0.45;
                e->cls = panel ? "run val" : "run train";
                e->label = r->name;
                e->nolegend = 1;
            }
        }
        for (int gi = 0; gi < c->ngroups; gi++) {
            const ordo_cmp_group *g = &c->groups[gi];
            if (training_row(c, gi) != gi) continue;
            ordo_series *e = &ser[n++];
            e->n = mean_points(&pl, c, g, panel, (double **)&e->x, (double **)&e->y);
            e->color = g->color;
            e->dash = g->dash;
            e->width = 2.75;
            e->cls = panel ? "mean val" : "mean train";
            e->label = training_label(c, gi, labels[gi], sizeof labels[gi]);
            e->markers = panel; // val points are sparse: show where they were measured
        }
        ordo_axes a = {.x = panel ? 520 : 0,
                       .y = 0,
                       .w = panel ? 580 + wx : 520,
                       .h = 440,
                       .title = panel ? "val loss" : "train loss",
                       .xlabel = "step",
                       .ylabel = "loss (nats/token)",
                       .legend_w = panel ? 130 + wx : 0};
        ordo_svg_lineplot(s, &a, ser, n);
    }
    ordo_svg_text(s, W - 134 - wx, 440 - 60, "start", 10, "fill=\"#555\"", "thin: each seed");
    ordo_svg_text(s, W - 134 - wx, 440 - 46, "start", 10, "fill=\"#555\"", "thick: mean of seeds");
    ordo_svg_close(s);
    free(labels);
    free(ser);
    pool_free(&pl);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The sorted distinct eval lengths of the runs of g (or of every run, g NULL).
static int eval_lengths(pool *pl, const ordo_cmp *c, const ordo_cmp_group *g, double **out) {
    int total = 0;
    for (int i = 0; i < c->nruns; i++) total += c->runs[i].neval;
    *out = pool_new(pl, total);
    int n = 0;
    int nr = g ? g->n : c->nruns;
    for (int k = 0; k < nr; k++) {
        const ordo_runinfo *r = &c->runs[g ? g->runs[k] : k];
        for (int i = 0; i < r->neval; i++) (*out)[n++] = r->eval[i].context;
    }
    qsort(*out, (size_t)n, sizeof(double), cmp_double);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || (*out)[m - 1] != (*out)[i]) (*out)[m++] = (*out)[i];
    return m;
}

// ---------------------------------------------------------------------------------------
// n-gram levels

// The eval point at length ctx (ctx <= 0: each run's training length) of the first run, in
// row order, whose record has n-gram levels there; NULL when none has. The runs share the
// data (compare refuses others), so their levels at a length differ only with the eval mode.
static const ordo_eval_point *ngram_point(const ordo_cmp *c, int ctx) {
    for (int gi = 0; gi < c->ngroups; gi++)
        for (int k = 0; k < c->groups[gi].n; k++) {
            const ordo_runinfo *r = &c->runs[c->groups[gi].runs[k]];
            const ordo_eval_point *p =
                ctx > 0 ? ordo_runinfo_eval_point(r, ctx) : ordo_cmp_eval_at_mult(r, 1);
            if (p && p->nngram > 0) return p;
        }
    return NULL;
}

// The level of order `order` at p (0: the lowest of its orders), NaN when p lacks it.
static double ngram_level(const ordo_eval_point *p, int order) {
    if (!p) return NAN;
    if (order > 0) return order <= p->nngram ? p->ngram[order - 1] : NAN;
    double best = NAN;
    for (int o = 0; o < p->nngram; o++)
        if (!isnan(p->ngram[o]) && !(p->ngram[o] >= best)) best = p->ngram[o];
    return best;
}

// The n-gram levels drawn as dashed grey lines over x[0..nx): the 2-gram, the 3-gram (the
// level the table's mark is against) and the best order at each point, at the length x[i]
// (per_length) or at the training length everywhere (a horizontal line). Appends them to ser
// labelled labels[0..3), and returns how many (0 when no record has levels).
static int ngram_lines(pool *pl, const ordo_cmp *c, const double *x, int nx, int per_length,
                       const char *const labels[3], ordo_series *ser) {
    static const int orders[] = {2, 3, 0};
    static const char *const colors[] = {"#aaaaaa", "#777777", "#333333"};
    static const char *const dashes[] = {"2 3", "6 4", "10 3 2 3"};
    const ordo_eval_point *fixed = per_length ? NULL : ngram_point(c, 0);
    int n = 0;
    for (int j = 0; j < 3; j++) {
        // per length, a step: the level of x[i] holds from the (log-)midpoint with the length
        // before to the one with the length after, so that a level at a single length is a
        // visible segment, and a jump between lengths shows where the targets change
        double *sx = pool_new(pl, 3 * nx), *sy = pool_new(pl, 3 * nx);
        int m = 0, any = 0;
        for (int i = 0; i < nx; i++) {
            double y = ngram_level(per_length ? ngram_point(c, (int)x[i]) : fixed, orders[j]);
            any |= !isnan(y);
            if (!per_length) {
                sx[m] = x[i], sy[m++] = y;
                continue;
            }
            double lo = i > 0 ? sqrt(x[i - 1] * x[i]) : nx > 1 ? x[i] : x[i] / 1.15;
            double hi = i + 1 < nx ? sqrt(x[i] * x[i + 1]) : nx > 1 ? x[i] : x[i] * 1.15;
            sx[m] = lo, sy[m++] = y;
            sx[m] = hi, sy[m++] = y;
            if (isnan(y)) continue;
            sx[m] = hi, sy[m++] = NAN; // a gap unless the next length has a level
            if (i + 1 < nx && !isnan(ngram_level(ngram_point(c, (int)x[i + 1]), orders[j]))) m--;
        }
        if (!any) continue;
        ser[n++] = (ordo_series){.x = sx,
                                 .y = sy,
                                 .n = m,
                                 .color = colors[j],
                                 .width = 1.25,
                                 .cls = "ngram",
                                 .label = labels[j],
                                 .dash = dashes[j],
                                 .end_label = 1};
    }
    return n;
}

static void extrapolation(const ordo_cmp *c, ordo_strbuf *s) {
    pool pl = {0};
    ordo_series *ser = ordo_xcalloc((size_t)(c->nruns + c->ngroups) + 3, sizeof *ser);
    int n = 0, any = 0;
    for (int gi = 0; gi < c->ngroups; gi++) {
        const ordo_cmp_group *g = &c->groups[gi];
        for (int k = 0; k < g->n; k++) {
            const ordo_runinfo *r = &c->runs[g->runs[k]];
            if (!r->has_eval) continue;
            any = 1;
            ordo_series *e = &ser[n++];
            double *x, *y;
            e->n = eval_lengths(&pl, c, NULL, &x);
            y = pool_new(&pl, e->n);
            for (int i = 0; i < e->n; i++) {
                const char *note;
                if (!ordo_runinfo_eval_at(r, (int)x[i], &y[i], &note)) y[i] = NAN;
            }
            e->x = x, e->y = y;
            e->color = g->color;
            e->dash = g->dash;
            e->width = 1;
            e->opacity = 0.45;
            e->cls = "run eval";
            e->label = r->name;
            e->nolegend = 1;
        }
    }
    for (int gi = 0; gi < c->ngroups; gi++) {
        const ordo_cmp_group *g = &c->groups[gi];
        double *x, *y;
        int m = eval_lengths(&pl, c, g, &x);
        if (m == 0) continue;
        y = pool_new(&pl, m);
        for (int i = 0; i < m; i++) {
            double sum = 0;
            int cnt = 0;
            for (int k = 0; k < g->n; k++) {
                double v;
                const char *note;
                if (ordo_runinfo_eval_at(&c->runs[g->runs[k]], (int)x[i], &v, &note) && !isnan(v))
                    sum += v, cnt++;
            }
            y[i] = cnt ? sum / cnt : NAN;
        }
        ser[n++] = (ordo_series){.x = x,
                                 .y = y,
                                 .n = m,
                                 .color = g->color,
                                 .dash = g->dash,
                                 .width = 2.75,
                                 .cls = "mean eval",
                                 .label = g->pos,
                                 .markers = 1};
    }
    if (any) { // the levels at each eval length, each on that length's own targets
        double *x;
        int m = eval_lengths(&pl, c, NULL, &x);
        static const char *const labels[] = {"2-gram", "3-gram", "best n-gram"};
        n += ngram_lines(&pl, c, x, m, 1, labels, ser + n);
    }
    double wx = legend_extra(c, 130, 0);
    ordo_svg_open(s, 900 + wx, 480, "ordo compare: val loss against eval length");
    ordo_axes a = {.x = 0,
                   .y = 0,
                   .w = 900 + wx,
                   .h = 440,
                   .title = "val loss vs eval length",
                   .xlabel = "eval context length (tokens, log scale)",
                   .ylabel = "val loss (nats/token)",
                   .logx = 1,
                   .legend_w = 130 + wx,
                   .xmark = (double)c->context,
                   .xmark_label = "training length"};
    ordo_svg_lineplot(s, &a, ser, n);
    // why a scheme has no points past some length (e.g. the learned table's end)
    double ty = 458;
    if (!any)
        ordo_svg_text(s, 20, ty, "start", 11, "fill=\"#555\"",
                      "no run has eval.json (write one with ordo eval --save, or ordo sweep)");
    for (int gi = 0; gi < c->ngroups && any; gi++) {
        const ordo_cmp_group *g = &c->groups[gi];
        for (int m = 0; m < c->nmult; m++) {
            const ordo_cmp_cell *e = &g->cell[ORDO_CMP_X1 + m];
            if (e->n || !e->note) continue;
            char h[64];
            ordo_cmp_header(c, ORDO_CMP_X1 + m, h, sizeof h);
            ordo_svg_text(s, 20, ty, "start", 11, "fill=\"#555\"", "%s: no value from %s on (%s)",
                          g->pos, h, e->note);
            ty += 14;
            break;
        }
    }
    ordo_svg_close(s);
    free(ser);
    pool_free(&pl);
}

// Exact match against sequence length n for copy/reverse runs; 0 when no run has it.
static int accuracy(const ordo_cmp *c, ordo_strbuf *s) {
    pool pl = {0};
    ordo_series *ser = ordo_xcalloc((size_t)(c->nruns + c->ngroups), sizeof *ser);
    int n = 0, train_max = 0;
    const char *task = NULL;
    for (int gi = 0; gi < c->ngroups; gi++) {
        const ordo_cmp_group *g = &c->groups[gi];
        int first = n;
        for (int k = 0; k < g->n; k++) {
            const ordo_runinfo *r = &c->runs[g->runs[k]];
            if (!r->acc) continue;
            task = r->acc_task;
            train_max = r->acc_train_max_len;
            double *x = pool_new(&pl, r->nacc), *y = pool_new(&pl, r->nacc);
            for (int i = 0; i < r->nacc; i++) x[i] = r->acc[i].n, y[i] = r->acc[i].exact_match;
            ser[n++] = (ordo_series){.x = x,
                                     .y = y,
                                     .n = r->nacc,
                                     .color = g->color,
                                     .dash = g->dash,
                                     .width = 1,
                                     .opacity = 0.45,
                                     .cls = "run acc",
                                     .label = r->name,
                                     .nolegend = 1};
        }
        if (n == first) continue;
        // mean over the seeds at the lengths of the first seed that every seed has
        const ordo_runinfo *r0 = &c->runs[g->runs[0]];
        for (int k = 0; !r0->acc && k < g->n; k++) r0 = &c->runs[g->runs[k]];
        double *x = pool_new(&pl, r0->nacc), *y = pool_new(&pl, r0->nacc);
        int m = 0;
        for (int i = 0; i < r0->nacc; i++) {
            double sum = 0;
            int cnt = 0;
            for (int k = 0; k < g->n; k++) {
                const ordo_runinfo *r = &c->runs[g->runs[k]];
                for (int j = 0; j < r->nacc; j++)
                    if (r->acc[j].n == r0->acc[i].n && !isnan(r->acc[j].exact_match))
                        sum += r->acc[j].exact_match, cnt++;
            }
            if (cnt) x[m] = r0->acc[i].n, y[m++] = sum / cnt;
        }
        ser[n++] = (ordo_series){.x = x,
                                 .y = y,
                                 .n = m,
                                 .color = g->color,
                                 .dash = g->dash,
                                 .width = 2.75,
                                 .cls = "mean acc",
                                 .label = g->pos,
                                 .markers = 1};
    }
    if (n) {
        // passkey's lengths are the example's tokens, each the mean over its depths; copy and
        // reverse's are the sequence's n, trained up to train_max
        int passkey = task && strcmp(task, "passkey") == 0;
        // mqar and flipflop: lengths in tokens too, each the per-answer accuracy over its cells
        int mqar = task && strcmp(task, "mqar") == 0, ff = task && strcmp(task, "flipflop") == 0;
        char title[128];
        if (passkey)
            snprintf(title, sizeof title, "passkey: exact match by length (mean over depths)");
        else if (mqar || ff)
            snprintf(title, sizeof title, "%s: accuracy per answer by length (mean over %s)", task,
                     mqar ? "pairs" : "p_i");
        else
            snprintf(title, sizeof title, "%s: exact match by length (trained n <= %d)", task,
                     train_max);
        double wx = legend_extra(c, 130, 0);
        ordo_svg_open(s, 900 + wx, 440, title);
        ordo_axes a = {.w = 900 + wx,
                       .h = 440,
                       .title = title,
                       .xlabel = passkey || mqar || ff ? "length (tokens)" : "sequence length n",
                       .ylabel = mqar || ff ? "accuracy per answer" : "exact match",
                       .legend_w = 130 + wx};
        ordo_svg_lineplot(s, &a, ser, n);
        ordo_svg_close(s);
    }
    free(ser);
    pool_free(&pl);
    return n > 0;
}

// The eval point of r with loss_by_position at the largest length (NULL if none).
static const ordo_eval_point *longest_by_pos(const ordo_runinfo *r) {
    const ordo_eval_point *best = NULL;
    for (int i = 0; i < r->neval; i++)
        if (r->eval[i].by_pos && (!best || r->eval[i].context > best->context)) best = &r->eval[i];
    return best;
}

// Buckets of the positions 0..n-1, log-spaced: bucket k holds the positions lo[k]..lo[k+1]-1,
// and a new one starts at each (position + 1) = round(2^(j/4)), four per doubling, so that a
// window of 1024 positions is about 40 points, not 1024 (unreadable), and the first positions,
// where the loss falls fastest, keep their own points. Returns the count (lo[count] = n).
#define POS_BUCKETS_MAX 130 // 4 per doubling of an int, and the ends
static int pos_buckets(int n, int lo[POS_BUCKETS_MAX + 1]) {
    int nb = 1;
    lo[0] = 0;
    for (int j = 1; nb < POS_BUCKETS_MAX; j++) {
        int p = (int)lround(pow(2.0, j / 4.0)) - 1;
        if (p >= n) break;
        if (p > lo[nb - 1]) lo[nb++] = p;
    }
    lo[nb] = n;
    return nb;
}

// The mean loss over each bucket of by_pos (n positions) into y, and the bucket's mean
// position + 1 into x; NaN for a bucket with no value. Returns the buckets.
static int bucketed(const double *by_pos, int n, double *x, double *y) {
    int lo[POS_BUCKETS_MAX + 1];
    int nb = pos_buckets(n, lo);
    for (int k = 0; k < nb; k++) {
        double sum = 0;
        int cnt = 0;
        for (int p = lo[k]; p < lo[k + 1]; p++)
            if (!isnan(by_pos[p])) sum += by_pos[p], cnt++;
        x[k] = (lo[k] + lo[k + 1] - 1) / 2.0 + 1;
        y[k] = cnt ? sum / cnt : NAN;
    }
    return nb;
}

// The first position of e's windows that more than sliding's first window scores (0: all).
static int first_shared(const ordo_runinfo *r, const ordo_eval_point *e) {
    int sliding = r->eval_mode && strcmp(r->eval_mode, "sliding") == 0;
    return ordo_eval_first_shared_position(sliding ? ORDO_EVAL_SLIDING : ORDO_EVAL_NONOVERLAP,
                                           e->context, e->stride, e->windows);
}

// 1 if some run of c has positions of its loss by position left out (first_shared).
static int any_unshared(const ordo_cmp *c) {
    for (int i = 0; i < c->nruns; i++) {
        const ordo_eval_point *e = longest_by_pos(&c->runs[i]);
        if (e && first_shared(&c->runs[i], e) > 0) return 1;
    }
    return 0;
}

// The loss by position of r at its longest length (n positions, into a malloc'd array), the
// positions that sliding's first window alone scores as NaN; NULL when r has none.
static double *run_pos(const ordo_runinfo *r, int *n) {
    const ordo_eval_point *e = longest_by_pos(r);
    if (!e) return NULL;
    double *v = ordo_xmalloc((size_t)e->npos * sizeof *v);
    int from = first_shared(r, e);
    for (int i = 0; i < e->npos; i++) v[i] = i < from ? NAN : e->by_pos[i];
    *n = e->npos;
    return v;
}

// Row g's loss by position: the mean over its seeds evaluated at its longest length (*ctx),
// per position (malloc'd, *n positions; NaN where no run has a value). NULL: no run has it.
static double *row_pos(const ordo_cmp *c, const ordo_cmp_group *g, int *n, int *ctx) {
    int maxn = 0;
    *ctx = 0;
    for (int k = 0; k < g->n; k++) {
        const ordo_eval_point *e = longest_by_pos(&c->runs[g->runs[k]]);
        if (e && e->context > *ctx) *ctx = e->context;
        if (e && e->npos > maxn) maxn = e->npos;
    }
    if (!maxn) return NULL;
    double *sum = ordo_xcalloc((size_t)maxn, sizeof *sum);
    int *cnt = ordo_xcalloc((size_t)maxn, sizeof *cnt);
    for (int k = 0; k < g->n; k++) {
        const ordo_runinfo *r = &c->runs[g->runs[k]];
        const ordo_eval_point *e = longest_by_pos(r);
        int m;
        double *v = e && e->context == *ctx ? run_pos(r, &m) : NULL;
        for (int i = 0; v && i < m; i++)
            if (!isnan(v[i])) sum[i] += v[i], cnt[i]++;
        free(v);
    }
    for (int i = 0; i < maxn; i++) sum[i] = cnt[i] ? sum[i] / cnt[i] : NAN;
    free(cnt);
    *n = maxn;
    return sum;
}

// The by-position curve of row g, bucketed (x, y: POS_BUCKETS_MAX each). Returns the buckets
// (0: no run has it), *ctx the length.
static int row_by_pos(const ordo_cmp *c, const ordo_cmp_group *g, double *x, double *y, int *ctx) {
    int n;
    double *mean = row_pos(c, g, &n, ctx);
    if (!mean) return 0;
    int nb = bucketed(mean, n, x, y);
    free(mean);
    return nb;
}

// Each row's loss minus the reference row's, position by position over the positions both
// have, then bucketed: both sides of a bucket are the same positions (a row evaluated longer
// than the reference has no difference past the reference's end, and a shorter one none past
// its own), into the lower panel at y0.
static void by_position_diff(const ordo_cmp *c, ordo_strbuf *s, pool *pl, double y0, double w,
                             double legend_w) {
    int ref = ordo_cmp_reference_row(c), rctx, rn = 0;
    double *rv = row_pos(c, &c->groups[ref], &rn, &rctx);
    ordo_series *ser = ordo_xcalloc((size_t)c->ngroups, sizeof *ser);
    int n = 0;
    for (int gi = 0; gi < c->ngroups && rv; gi++) {
        if (gi == ref) continue;
        int ctx, m;
        double *v = row_pos(c, &c->groups[gi], &m, &ctx);
        if (!v) continue;
        if (m > rn) m = rn;
        for (int i = 0; i < m; i++) v[i] -= rv[i]; // NaN where either has none
        double *x = pool_new(pl, POS_BUCKETS_MAX), *y = pool_new(pl, POS_BUCKETS_MAX);
        int nb = bucketed(v, m, x, y);
        free(v);
        ser[n++] = (ordo_series){.x = x,
                                 .y = y,
                                 .n = nb,
                                 .color = c->groups[gi].color,
                                 .dash = c->groups[gi].dash,
                                 .width = 2.25,
                                 .cls = "diff pos",
                                 .label = c->groups[gi].pos};
    }
    free(rv);
    char title[160];
    snprintf(title, sizeof title, "difference from %s (row minus %s, per bucket)",
             c->groups[ref].pos, c->groups[ref].pos);
    ordo_axes a = {.y = y0,
                   .w = w,
                   .h = 400,
                   .title = title,
                   .xlabel = "position in the window + 1 (log scale, buckets as above)",
                   .ylabel = "loss difference (nats/token)",
                   .logx = 1,
                   .legend_w = legend_w,
                   .xmark = (double)c->context,
                   .xmark_label = "training length",
                   .yzero = 1};
    ordo_svg_lineplot(s, &a, ser, n);
    if (!rn)
        ordo_svg_text(s, w / 2, y0 + 200, "middle", 12, "fill=\"#555\"",
                      "%s has no loss_by_position", c->groups[ref].pos);
    free(ser);
}

// Val loss by position in the window, at the longest length each run was evaluated with
// loss_by_position, as the mean over log-spaced buckets of positions (thin per run, thick
// mean per row), on a log axis; with --reference, a second panel of each row minus that
// row. 0 when no run has it.
static int by_position(const ordo_cmp *c, ordo_strbuf *s) {
    pool pl = {0};
    ordo_series *ser = ordo_xcalloc((size_t)(c->nruns + c->ngroups) + 3, sizeof *ser);
    char(*labels)[320] = ordo_xcalloc((size_t)c->ngroups + 1, sizeof *labels);
    int n = 0;
    for (int gi = 0; gi < c->ngroups; gi++) {
        const ordo_cmp_group *g = &c->groups[gi];
        for (int k = 0; k < g->n; k++) {
            const ordo_runinfo *r = &c->runs[g->runs[k]];
            int np;
            double *v = run_pos(r, &np);
            if (!v) continue;
            double *x = pool_new(&pl, POS_BUCKETS_MAX), *y = pool_new(&pl, POS_BUCKETS_MAX);
            int nb = bucketed(v, np, x, y);
            free(v);
            ser[n++] = (ordo_series){.x = x,
                                     .y = y,
                                     .n = nb,
                                     .color = g->color,
                                     .dash = g->dash,
                                     .width = 1,
                                     .opacity = 0.45,
                                     .cls = "run pos",
                                     .label = r->name,
                                     .nolegend = 1};
        }
        int ctx;
        double *x = pool_new(&pl, POS_BUCKETS_MAX), *y = pool_new(&pl, POS_BUCKETS_MAX);
        int m = row_by_pos(c, g, x, y, &ctx);
        if (!m) continue;
        snprintf(labels[gi], sizeof labels[gi], "%s (T=%d)", g->pos, ctx);
        ser[n++] = (ordo_series){.x = x,
                                 .y = y,
                                 .n = m,
                                 .color = g->color,
                                 .dash = g->dash,
                                 .width = 2.25,
                                 .cls = "mean pos",
                                 .label = labels[gi]};
    }
    if (n) {
        // the levels at the training length, over every position drawn: a window's mean, so
        // a flat line (an n-gram's own loss falls over its first n - 1 positions too)
        int maxn = 1;
        for (int i = 0; i < c->nruns; i++) {
            const ordo_eval_point *e = longest_by_pos(&c->runs[i]);
            if (e && e->npos > maxn) maxn = e->npos;
        }
        double *x = pool_new(&pl, 2);
        x[0] = 1, x[1] = maxn;
        static const char *const at_t[] = {"2-gram at T", "3-gram at T", "best n-gram at T"};
        n += ngram_lines(&pl, c, x, 2, 0, at_t, ser + n);
        int ref = ordo_cmp_reference_row(c), note = any_unshared(c);
        double wx = legend_extra(c, 150, 8), w = 900 + wx; // " (T=128)"
        double top = note ? 460 : 440; // a line under the panel says what is left out
        ordo_svg_open(s, w, top + (ref >= 0 ? 420 : 0),
                      "ordo compare: val loss by position in the window");
        ordo_axes a = {.w = w,
                       .h = 440,
                       .title = "val loss by position (longest evaluated length per row)",
                       .xlabel = "position in the window + 1 (log scale; mean over buckets, "
                                 "4 per doubling)",
                       .ylabel = "val loss (nats/token)",
                       .logx = 1,
                       .legend_w = 150 + wx,
                       .xmark = (double)c->context,
                       .xmark_label = "training length"};
        ordo_svg_lineplot(s, &a, ser, n);
        if (note)
            ordo_svg_text(s, 20, 452, "start", 11, "fill=\"#555\" class=\"unshared\"",
                          "sliding-window evals: the positions before T - stride, which the "
                          "first window alone scores, are left out (a few targets, a noisy line)");
        if (ref >= 0) by_position_diff(c, s, &pl, top + 10, w, 150 + wx);
        ordo_svg_close(s);
    }
    free(labels);
    free(ser);
    pool_free(&pl);
    return n > 0;
}

static ordo_status save_text(const char *dir, const char *name, const ordo_strbuf *s) {
    char path[ORDO_PATH_MAX];
    ordo_status st = ordo_path(path, sizeof path, "%s/%s", dir, name);
    return st ? st : ordo_strbuf_save(s, path);
}

ordo_status ordo_cmp_write_report(const ordo_cmp *c, const char *out_dir) {
    ordo_strbuf curves, extra, acc, h;
    ordo_strbuf_init(&curves);
    ordo_strbuf_init(&extra);
    ordo_strbuf_init(&acc);
    ordo_strbuf_init(&h);
    loss_curves(c, &curves);
    extrapolation(c, &extra);
    int has_acc = accuracy(c, &acc);
    ordo_strbuf bypos;
    ordo_strbuf_init(&bypos);
    int has_pos = by_position(c, &bypos);
    ordo_status s = save_text(out_dir, "loss_curves.svg", &curves);
    if (!s) s = save_text(out_dir, "extrapolation.svg", &extra);
    if (!s && has_acc) s = save_text(out_dir, "accuracy.svg", &acc);
    if (!s && has_pos) s = save_text(out_dir, "loss_by_position.svg", &bypos);
    ordo_strbuf cu, diag;
    ordo_strbuf_init(&cu);
    ordo_strbuf_init(&diag);
    int has_cu = ordo_cmp_context_use_svg(c, &cu), has_diag = ordo_cmp_diagnostics_html(c, &diag);
    if (!s && has_cu) s = save_text(out_dir, "context_use.svg", &cu);
    // passkey, mqar, flipflop: a heatmap per row, each also as <task>-<row>.svg
    ordo_strbuf grids;
    ordo_strbuf_init(&grids);
    if (!s) s = ordo_cmp_accuracy_grids(c, out_dir, &grids);

    // XHTML (well-formed XML) that browsers also read as HTML; SVGs go in as they are
    ordo_strbuf_printf(&h,
                       "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
                       "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>ordo compare: ");
    ordo_svg_escape(&h, c->source);
    ordo_strbuf_printf(
        &h, "</title>\n<style>\nbody{font-family:sans-serif;margin:24px;color:#222}"
            "\ntable{border-collapse:collapse;font-size:12px;margin:12px 0}"
            "\nth,td{border:1px solid #ccc;padding:3px 4px;text-align:right;white-space:nowrap}"
            "\ntd.na{color:#666}th{white-space:normal}.sd{font-size:10px;color:#666}"
            "\nth{background:#f2f2f2}td:first-child,th:first-child{text-align:left}"
            "\n.sw{display:inline-block;vertical-align:middle;margin-right:6px}"
            "\n.few{color:#b00;font-weight:bold}td.flag{color:#b00;font-weight:bold}"
            "\nth.l,td.cfg,td.uni{text-align:left;white-space:normal;min-width:7em;max-width:11em}"
            "\n.wide{overflow-x:auto}"
            "\n.note{color:#555;font-size:13px}\nsvg{max-width:100%%;height:auto}\n</style>\n"
            "</head>\n<body>\n<h1>ordo compare</h1>\n<p>");
    ordo_svg_escape(&h, c->source);
    ordo_strbuf_printf(&h, ", %d runs, data: ", c->nruns);
    ordo_svg_escape(&h, c->runs[0].data_id);
    ordo_strbuf_printf(&h, "</p>\n");
    ordo_cmp_html_table(c, &h);
    ordo_cmp_notes(c, 1, &h);
    ordo_strbuf_printf(&h, "<h2>Loss curves</h2>\n%s<h2>Val loss against eval length</h2>\n%s",
                       curves.buf, extra.buf);
    if (has_pos) ordo_strbuf_printf(&h, "<h2>Val loss by position</h2>\n%s", bypos.buf);
    if (has_acc) ordo_strbuf_printf(&h, "<h2>Exact match by length</h2>\n%s", acc.buf);
    if (grids.len) ordo_strbuf_printf(&h, "%s", grids.buf);
    if (has_cu) ordo_strbuf_printf(&h, "<h2>Context use</h2>\n%s", cu.buf);
    if (has_diag)
        ordo_strbuf_printf(&h, "<h2>Position probe and attention by offset</h2>\n%s", diag.buf);
    ordo_strbuf_printf(&h, "<h2>Runs</h2>\n<table>\n<tr><th>run</th><th>scheme</th><th>seed</th>"
                           "<th>steps</th><th>checkpoint</th><th>eval.json</th></tr>\n");
    for (int gi = 0; gi < c->ngroups; gi++)
        for (int k = 0; k < c->groups[gi].n; k++) {
            const ordo_runinfo *r = &c->runs[c->groups[gi].runs[k]];
            ordo_strbuf_printf(&h, "<tr>");
            ordo_cmp_html_cell(&h, "td", r->dir);
            ordo_cmp_html_cell(&h, "td", r->pos);
            ordo_strbuf_printf(&h, "<td>%lld</td><td>%lld</td><td>%lld</td>", r->seed, r->steps,
                               (long long)r->ckpt_step);
            ordo_cmp_html_cell(&h, "td", !r->has_eval ? "no" : r->eval_mode ? r->eval_mode : "yes");
            ordo_strbuf_printf(&h, "</tr>\n");
        }
    ordo_strbuf_printf(&h, "</table>\n</body>\n</html>\n");
    if (!s) s = save_text(out_dir, "report.html", &h);
    ordo_strbuf_free(&curves);
    ordo_strbuf_free(&extra);
    ordo_strbuf_free(&acc);
    ordo_strbuf_free(&bypos);
    ordo_strbuf_free(&grids);
    ordo_strbuf_free(&cu);
    ordo_strbuf_free(&diag);
    ordo_strbuf_free(&h);
    return s;
}
