// The report's passkey heatmaps (see compare_grid.h): a row's grid is the mean of its runs'
// grids, and only of those shaped as the first one's, since a cell must mean one length and
// one depth in every run it averages.
#include "experiments/compare_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "experiments/plot.h"
#include "sys/fileio.h"

// passkey: a row's retrieval accuracy (length x depth) as a heatmap, the mean over the row's
// runs whose grid has the first one's shape (its lengths and depths), into out; 0 when no
// run of the row has a grid.
static int passkey_row(const ordo_cmp_group *g, const ordo_cmp *c, ordo_strbuf *out) {
    const ordo_runinfo *r0 = NULL;
    for (int k = 0; k < g->n && !r0; k++)
        if (c->runs[g->runs[k]].acc_grid) r0 = &c->runs[g->runs[k]];
    if (!r0) return 0;
    int nl = r0->nacc, nd = r0->acc_ndepths, used = 0;
    double *sum = ordo_xcalloc((size_t)nl * nd, sizeof *sum),
           *mean = ordo_xmalloc((size_t)nl * nd * sizeof *mean);
    int *cnt = ordo_xcalloc((size_t)nl * nd, sizeof *cnt),
        *lens = ordo_xmalloc((size_t)nl * sizeof *lens);
    for (int i = 0; i < nl; i++) lens[i] = r0->acc[i].n;
    for (int k = 0; k < g->n; k++) {
        const ordo_runinfo *r = &c->runs[g->runs[k]];
        int same = r->acc_grid && r->nacc == nl && r->acc_ndepths == nd;
        for (int i = 0; same && i < nl; i++) same = r->acc[i].n == lens[i];
        for (int j = 0; same && j < nd; j++) same = r->acc_depths[j] == r0->acc_depths[j];
        if (!same) continue;
        used++;
        for (size_t x = 0; x < (size_t)nl * nd; x++)
            if (isfinite(r->acc_grid[x])) sum[x] += r->acc_grid[x], cnt[x]++;
    }
    for (size_t x = 0; x < (size_t)nl * nd; x++) mean[x] = cnt[x] ? sum[x] / cnt[x] : NAN;
    char title[192];
    snprintf(title, sizeof title, "%s: passkey retrieval (mean of %d run%s)", g->pos, used,
             used == 1 ? "" : "s");
    ordo_svg_accuracy_grid(out, title, lens, nl, r0->acc_depths, nd,
                           "depth of the key (0 = start, 1 = right before the question)",
                           "accuracy", mean);
    free(sum), free(mean), free(cnt), free(lens);
    return 1;
}

ordo_status ordo_cmp_accuracy_grids(const ordo_cmp *c, const char *out_dir, ordo_strbuf *h) {
    ordo_status s = ORDO_OK;
    int any = 0;
    for (int gi = 0; gi < c->ngroups && !s; gi++) {
        ordo_strbuf one;
        ordo_strbuf_init(&one);
        if (passkey_row(&c->groups[gi], c, &one)) {
            if (!any++) ordo_strbuf_printf(h, "<h2>Passkey retrieval by length and depth</h2>\n");
            char path[ORDO_PATH_MAX];
            s = ordo_path(path, sizeof path, "%s/passkey-%d.svg", out_dir, gi + 1);
            if (!s) s = ordo_strbuf_save(&one, path);
            ordo_strbuf_printf(h, "%s", one.buf);
        }
        ordo_strbuf_free(&one);
    }
    return s;
}
