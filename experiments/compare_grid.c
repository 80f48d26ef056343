// The report's accuracy heatmaps (see compare_grid.h): a row's grid is the mean of its runs'
// grids, and only of those shaped as the first one's, since a cell must mean one length and
// one column in every run it averages.
#include "experiments/compare_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/plot.h"
#include "sys/fileio.h"

// The first run of row g whose record has a grid, or NULL.
static const ordo_runinfo *first_grid(const ordo_cmp *c, const ordo_cmp_group *g) {
    for (int k = 0; k < g->n; k++)
        if (c->runs[g->runs[k]].acc_grid) return &c->runs[g->runs[k]];
    return NULL;
}

// Row g's heatmap into out: the mean over its runs whose grid has r0's task, lengths and
// columns (a cell that is null in some runs is the mean of the others).
static void row_map(const ordo_cmp *c, const ordo_cmp_group *g, const ordo_runinfo *r0,
                    ordo_strbuf *out) {
    int nl = r0->nacc, nc = r0->acc_ncols, used = 0;
    double *sum = ordo_xcalloc((size_t)nl * nc + 1, sizeof *sum),
           *mean = ordo_xmalloc(((size_t)nl * nc + 1) * sizeof *mean);
    int *cnt = ordo_xcalloc((size_t)nl * nc + 1, sizeof *cnt),
        *lens = ordo_xmalloc(((size_t)nl + 1) * sizeof *lens);
    for (int i = 0; i < nl; i++) lens[i] = r0->acc[i].n;
    for (int k = 0; k < g->n; k++) {
        const ordo_runinfo *r = &c->runs[g->runs[k]];
        int same = r->acc_grid && strcmp(r->acc_grid_task, r0->acc_grid_task) == 0 &&
                   r->nacc == nl && r->acc_ncols == nc;
        for (int i = 0; same && i < nl; i++) same = r->acc[i].n == lens[i];
        for (int j = 0; same && j < nc; j++) same = r->acc_cols[j] == r0->acc_cols[j];
        if (!same) continue;
        used++;
        for (size_t x = 0; x < (size_t)nl * nc; x++)
            if (isfinite(r->acc_grid[x])) sum[x] += r->acc_grid[x], cnt[x]++;
    }
    for (size_t x = 0; x < (size_t)nl * nc; x++) mean[x] = cnt[x] ? sum[x] / cnt[x] : NAN;
    const char *task = r0->acc_grid_task;
    char title[192];
    if (strcmp(task, "passkey") == 0)
        snprintf(title, sizeof title, "%s: passkey retrieval (mean of %d run%s)", g->pos, used,
                 used == 1 ? "" : "s");
    else
        snprintf(title, sizeof title, "%s: %s per-answer accuracy (mean of %d run%s)", g->pos, task,
                 used, used == 1 ? "" : "s");
    ordo_svg_accuracy_grid(out, title, lens, nl, r0->acc_cols, nc, r0->acc_col_label, "accuracy",
                           mean);
    free(sum), free(mean), free(cnt), free(lens);
}

ordo_status ordo_cmp_accuracy_grids(const ordo_cmp *c, const char *out_dir, ordo_strbuf *h) {
    const ordo_runinfo **r0 = ordo_xcalloc((size_t)c->ngroups + 1, sizeof *r0);
    for (int gi = 0; gi < c->ngroups; gi++) r0[gi] = first_grid(c, &c->groups[gi]);
    ordo_status s = ORDO_OK;
    // a heading per task where a row first shows it, then the maps of every row of that task
    // (runs of several tasks compared together keep each task's maps in one place)
    for (int gi = 0; gi < c->ngroups && !s; gi++) {
        if (!r0[gi]) continue;
        const char *task = r0[gi]->acc_grid_task;
        int seen = 0;
        for (int k = 0; k < gi && !seen; k++)
            seen = r0[k] && strcmp(r0[k]->acc_grid_task, task) == 0;
        if (seen) continue;
        if (strcmp(task, "passkey") == 0) {
            ordo_strbuf_printf(h, "<h2>Passkey retrieval by length and depth</h2>\n");
        } else {
            ordo_strbuf_printf(h, "<h2>");
            ordo_svg_escape(h, task);
            ordo_strbuf_printf(h, " accuracy by length and ");
            ordo_svg_escape(h, r0[gi]->acc_col_label);
            ordo_strbuf_printf(h, "</h2>\n");
        }
        for (int gj = gi; gj < c->ngroups && !s; gj++) {
            if (!r0[gj] || strcmp(r0[gj]->acc_grid_task, task) != 0) continue;
            ordo_strbuf one;
            ordo_strbuf_init(&one);
            row_map(c, &c->groups[gj], r0[gj], &one);
            char path[ORDO_PATH_MAX];
            s = ordo_path(path, sizeof path, "%s/%s-%d.svg", out_dir, task, gj + 1);
            if (!s) s = ordo_strbuf_save(&one, path);
            ordo_strbuf_printf(h, "%s", one.buf);
            ordo_strbuf_free(&one);
        }
    }
    free(r0);
    return s;
}
