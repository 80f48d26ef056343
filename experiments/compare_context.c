// The report's answers to "does the model use its context, and its positions?" (see
// compare_context.h): the context-use curves of the rows' eval records, and each run's position
// probe and attention by offset as `ordo viz` left them in RUN/viz.
#include "experiments/compare_context.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/plot.h"
#include "sys/fileio.h"

// The selected record of r (the row's variant), or NULL.
static const ordo_run_eval *selected(const ordo_runinfo *r) {
    for (int i = 0; r->has_eval && i < r->nevals; i++)
        if (strcmp(r->evals[i].name, r->eval_name) == 0) return &r->evals[i];
    return NULL;
}

// The mean curve of row g over its runs whose curve has the first such run's ks, into
// x, y (at most cap points); returns the points (0: no run of the row has a curve).
static int row_curve(const ordo_cmp *c, const ordo_cmp_group *g, double *x, double *y, int cap) {
    int n = 0, runs = 0;
    for (int k = 0; k < g->n; k++) {
        const ordo_run_eval *e = selected(&c->runs[g->runs[k]]);
        if (!e || !e->ncu || e->ncu > cap) continue;
        if (!runs) {
            n = e->ncu;
            memcpy(x, e->cu_k, (size_t)n * sizeof(double));
            memset(y, 0, (size_t)n * sizeof(double));
        } else if (e->ncu != n || memcmp(x, e->cu_k, (size_t)n * sizeof(double)) != 0) {
            continue; // another k grid (another training context): not averaged in
        }
        for (int i = 0; i < n; i++) y[i] += e->cu_loss[i];
        runs++;
    }
    for (int i = 0; i < n && runs; i++) y[i] /= runs;
    return runs ? n : 0;
}

enum { CU_MAX = 40 };

// The n-gram line of the plot: the records' n-gram curves when every record that has one has
// the same (the same data, targets and ks: rows compared on one split), into x, y; 0 when none
// has one or two differ (a line for some rows only would be read as everyone's).
static int ngram_curve(const ordo_cmp *c, double *x, double *y) {
    int n = 0;
    for (int gi = 0; gi < c->ngroups; gi++)
        for (int k = 0; k < c->groups[gi].n; k++) {
            const ordo_run_eval *e = selected(&c->runs[c->groups[gi].runs[k]]);
            if (!e || !e->ncu || !e->cu_ngram || e->ncu > CU_MAX) continue;
            if (!n) {
                n = e->ncu;
                memcpy(x, e->cu_k, (size_t)n * sizeof(double));
                memcpy(y, e->cu_ngram, (size_t)n * sizeof(double));
            } else if (e->ncu != n || memcmp(x, e->cu_k, (size_t)n * sizeof(double)) != 0 ||
                       memcmp(y, e->cu_ngram, (size_t)n * sizeof(double)) != 0) {
                return 0;
            }
        }
    return n;
}

int ordo_cmp_context_use_svg(const ordo_cmp *c, ordo_strbuf *s) {
    double *xy = ordo_xcalloc((size_t)c->ngroups * 2 * CU_MAX, sizeof(double));
    ordo_series *ser = ordo_xcalloc((size_t)c->ngroups + 1, sizeof *ser);
    int n = 0;
    for (int gi = 0; gi < c->ngroups; gi++) {
        double *x = xy + (size_t)gi * 2 * CU_MAX, *y = x + CU_MAX;
        int m = row_curve(c, &c->groups[gi], x, y, CU_MAX);
        if (!m) continue;
        ser[n++] = (ordo_series){.x = x,
                                 .y = y,
                                 .n = m,
                                 .color = c->groups[gi].color,
                                 .dash = c->groups[gi].dash,
                                 .width = 2.4,
                                 .cls = "context-use",
                                 .label = c->groups[gi].pos,
                                 .markers = 1};
    }
    double ngx[CU_MAX], ngy[CU_MAX];
    int ngn = n ? ngram_curve(c, ngx, ngy) : 0;
    if (ngn) // grey and dashed: a baseline, not a row
        ser[n++] = (ordo_series){.x = ngx,
                                 .y = ngy,
                                 .n = ngn,
                                 .color = "#7f7f7f",
                                 .dash = "5 4",
                                 .width = 1.6,
                                 .cls = "context-use-ngram",
                                 .label = "n-gram (best order)"};
    if (n) {
        ordo_svg_open(s, 820, 460, "ordo compare: context use");
        ordo_axes a = {.w = 820,
                       .h = 460,
                       .title = "loss with the context cut to k tokens (the same targets)",
                       .xlabel = "k, tokens of context",
                       .ylabel = "loss (nats/token)",
                       .logx = 1,
                       .legend_w = 170};
        ordo_svg_lineplot(s, &a, ser, n);
        ordo_svg_close(s);
    }
    free(ser);
    free(xy);
    return n > 0;
}

// RUN/viz/NAME's JSON, or NULL (no such file, or not JSON: viz was not run, or long ago).
static json_t *viz_json(const char *dir, const char *name) {
    char path[ORDO_PATH_MAX];
    if (ordo_path(path, sizeof path, "%s/viz/%s", dir, name)) {
        ordo_error_clear();
        return NULL;
    }
    json_error_t err;
    return ordo_json_load_file(path, 0, &err);
}

// The cell of a number, "-" when it is not finite.
static void num_cell(ordo_strbuf *h, double v, const char *fmt) {
    ordo_strbuf_printf(h, "<td>");
    if (isfinite(v))
        ordo_strbuf_printf(h, fmt, v);
    else
        ordo_strbuf_printf(h, "-");
    ordo_strbuf_printf(h, "</td>");
}

// One run's row: its probe (error at block 0's input and at the last block's output, chance)
// and its heads' spread (mean, max), each with the step viz measured it at. 0 when viz wrote
// neither file.
static int diag_row(const ordo_runinfo *r, ordo_strbuf *h) {
    json_t *probe = viz_json(r->dir, "probe.json"), *off = viz_json(r->dir, "offsets.json");
    if (!probe && !off) return 0;
    double first = NAN, last = NAN, chance = NAN, mean = NAN, most = NAN;
    long long step = -1;
    json_t *mae = json_object_get(probe, "mae");
    if (json_is_array(mae) && json_array_size(mae) > 0) {
        first = json_number_value(json_array_get(mae, 0));
        last = json_number_value(json_array_get(mae, json_array_size(mae) - 1));
        chance = json_number_value(json_object_get(probe, "chance"));
        step = json_integer_value(json_object_get(probe, "step"));
    }
    json_t *heads = json_object_get(off, "heads");
    if (json_is_array(heads) && json_array_size(heads) > 0) {
        double sum = 0;
        most = 0;
        for (size_t i = 0; i < json_array_size(heads); i++) {
            double v = json_number_value(json_object_get(json_array_get(heads, i), "spread"));
            sum += v;
            most = fmax(most, v);
        }
        mean = sum / (double)json_array_size(heads);
        if (step < 0) step = json_integer_value(json_object_get(off, "step"));
    }
    ordo_strbuf_printf(h, "<tr><td>");
    ordo_svg_escape(h, r->dir);
    ordo_strbuf_printf(h, "</td><td>");
    ordo_svg_escape(h, r->pos);
    ordo_strbuf_printf(h, "</td>");
    num_cell(h, first, "%.2f");
    num_cell(h, last, "%.2f");
    num_cell(h, chance, "%.2f");
    num_cell(h, mean, "%.3f");
    num_cell(h, most, "%.3f");
    // viz of an older checkpoint than the one compared: say so
    ordo_strbuf_printf(h, "<td%s>%lld%s</td></tr>\n", step != r->ckpt_step ? " class=\"flag\"" : "",
                       step, step != r->ckpt_step ? " (older)" : "");
    json_decref(probe);
    json_decref(off);
    return 1;
}

int ordo_cmp_diagnostics_html(const ordo_cmp *c, ordo_strbuf *h) {
    ordo_strbuf rows;
    ordo_strbuf_init(&rows);
    int n = 0;
    for (int gi = 0; gi < c->ngroups; gi++)
        for (int k = 0; k < c->groups[gi].n; k++)
            n += diag_row(&c->runs[c->groups[gi].runs[k]], &rows);
    if (n) {
        ordo_strbuf_printf(
            h,
            "<table>\n<tr><th>run</th><th>scheme</th><th>probe error, block 0 input</th>"
            "<th>probe error, last block</th><th>chance</th><th>spread, mean of heads</th>"
            "<th>spread, max</th><th>viz step</th></tr>\n%s</table>\n"
            "<p class=\"note\">From each run's RUN/viz (ordo viz): the position probe's "
            "held-out mean absolute error in positions (chance: predicting the mean "
            "position), and attention by offset's spread (0: a head that attends by offset "
            "alone, up to 1). See docs/guide.md.</p>\n",
            rows.buf);
    }
    ordo_strbuf_free(&rows);
    return n > 0;
}
