// `ordo viz RUN_DIR [--out DIR]`: SVG heatmaps of what a run's position scheme looks like
// and what its attention does, from the newest checkpoint:
//   learned / sinusoidal: the table (position x dim) and the cosine similarity between
//     positions (T x T); alibi: the bias per head (T x T, from the slopes); t5: the trained
//     bias per head (T x T, table through the bucket map); every scheme: the attention
//     probabilities of one validation window, one SVG per layer with a panel per head.
// Plus index.html showing them all. Schemes without a table or bias (rope, none) get the
// attention maps only, and stdout says so. It draws; it does not compute statistics.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "framework/fileio.h"
#include "framework/threads.h"
#include "train/options.h"
#include "cli/commands.h"
#include "experiments/plot.h"
#include "train/run.h"

#define PANEL 260.0 // px per head panel
#define BAR_W 100.0 // px kept for the colour bar and its labels

typedef struct viz {
    const char *out;
    ordo_svg index; // index.html body
    int nfiles;
} viz;

static ordo_status emit(viz *v, const char *name, const ordo_svg *s, const char *caption) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", v->out, name);
    ordo_status st = ordo_svg_save(s, path);
    if (st) return st;
    printf("  %s\n", path);
    ordo_svg_printf(&v->index, "<h2>");
    ordo_svg_escape(&v->index, caption);
    ordo_svg_printf(&v->index, "</h2>\n<p><img src=\"");
    ordo_svg_escape(&v->index, name);
    ordo_svg_printf(&v->index, "\" alt=\"");
    ordo_svg_escape(&v->index, caption);
    ordo_svg_printf(&v->index, "\"/></p>\n");
    v->nfiles++;
    return ORDO_OK;
}

static void range_of(const float *x, size_t n, double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) *lo = fmin(*lo, x[i]), *hi = fmax(*hi, x[i]);
    if (!(*lo <= *hi)) *lo = 0, *hi = 1;
    if (*lo == *hi) *hi = *lo + 1e-6;
}

// One heatmap and its colour bar; symmetric range around 0 when diverging.
static ordo_status one_map(viz *v, const char *file, const char *title, const float *x, int rows,
                           int cols, int diverging, const char *xl, const char *yl,
                           const char *bar) {
    double lo, hi;
    range_of(x, (size_t)rows * cols, &lo, &hi);
    if (diverging) hi = fmax(fabs(lo), fabs(hi)), lo = -hi;
    double w = cols >= rows ? 720 : 720.0 * cols / rows + 60, h = 720.0 * rows / cols + 60;
    if (h > 760) h = 760;
    if (w < 300) w = 300;
    ordo_svg s;
    ordo_svg_init(&s);
    ordo_svg_open(&s, w + BAR_W, h, title);
    ordo_heatmap hm = {.v = x,
                       .rows = rows,
                       .cols = cols,
                       .vmin = lo,
                       .vmax = hi,
                       .diverging = diverging,
                       .title = title,
                       .xlabel = xl,
                       .ylabel = yl};
    ordo_svg_heatmap(&s, &hm, 0, 0, w, h);
    ordo_svg_colorbar(&s, w + 12, 40, 16, h - 110, lo, hi, diverging, bar);
    ordo_svg_close(&s);
    ordo_status st = emit(v, file, &s, title);
    ordo_svg_free(&s);
    return st;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

// The q-quantile of the non-NaN values of x[0..n).
static double quantile(const float *x, size_t n, double q) {
    float *c = ordo_xmalloc((n ? n : 1) * sizeof(float));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) c[m++] = x[i];
    qsort(c, m, sizeof(float), cmp_float);
    double r = m ? c[(size_t)(q * (double)(m - 1))] : 1;
    free(c);
    return r;
}

// NH panels of (T, T) maps in a grid with one shared colour scale. prob: the scale runs
// from 0 to the 99th percentile (the first rows' attention is 1 and would wash out the rest).
static ordo_status head_grid(viz *v, const char *file, const char *title, const float *x, int NH,
                             int T, int diverging, int prob, const char *caption, const char *bar) {
    double lo, hi;
    range_of(x, (size_t)NH * T * T, &lo, &hi);
    if (diverging) hi = fmax(fabs(lo), fabs(hi)), lo = -hi;
    if (prob) lo = 0, hi = fmax(quantile(x, (size_t)NH * T * T, 0.99), 1e-6);
    int cols = NH < 4 ? NH : 4, rows = (NH + cols - 1) / cols;
    double top = caption ? 52 : 34;
    ordo_svg s;
    ordo_svg_init(&s);
    ordo_svg_open(&s, cols * PANEL + BAR_W, top + rows * PANEL, title);
    ordo_svg_text(&s, 10, 20, "start", 14, "font-weight=\"bold\"", "%s", title);
    if (caption) ordo_svg_text(&s, 10, 40, "start", 11, "fill=\"#444\"", "%s", caption);
    for (int h = 0; h < NH; h++) {
        char t[32];
        snprintf(t, sizeof t, "head %d", h);
        ordo_heatmap hm = {.v = x + (size_t)h * T * T,
                           .rows = T,
                           .cols = T,
                           .vmin = lo,
                           .vmax = hi,
                           .diverging = diverging,
                           .title = t,
                           .xlabel = "key j",
                           .ylabel = "query i",
                           .max_cells = 64};
        ordo_svg_heatmap(&s, &hm, (h % cols) * PANEL, top + (h / cols) * PANEL, PANEL, PANEL);
    }
    ordo_svg_colorbar(&s, cols * PANEL + 12, top + 30, 16, rows * PANEL - 80, lo, hi, diverging,
                      bar);
    ordo_svg_close(&s);
    ordo_status st = emit(v, file, &s, title);
    ordo_svg_free(&s);
    return st;
}

// The position table (T, C) and the cosine similarity of its rows.
static ordo_status table_maps(viz *v, const char *scheme, const float *pe, int T, int C) {
    char title[128];
    snprintf(title, sizeof title, "%s position table (position x dim, T=%d, C=%d)", scheme, T, C);
    ordo_status s =
        one_map(v, "pos_table.svg", title, pe, T, C, 1, "dimension", "position", "value");
    if (s) return s;
    float *cs = ordo_xmalloc((size_t)T * T * sizeof(float)); // (T, T)
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            double d = 0, ni = 0, nj = 0;
            for (int c = 0; c < C; c++) {
                d += (double)pe[i * C + c] * pe[j * C + c];
                ni += (double)pe[i * C + c] * pe[i * C + c];
                nj += (double)pe[j * C + c] * pe[j * C + c];
            }
            cs[i * T + j] = ni > 0 && nj > 0 ? (float)(d / sqrt(ni * nj)) : 0.0f;
        }
    snprintf(title, sizeof title, "%s: cosine similarity between positions", scheme);
    ordo_svg sv;
    ordo_svg_init(&sv);
    double w = 560, h = 560;
    ordo_svg_open(&sv, w + BAR_W, h, title);
    ordo_heatmap hm = {.v = cs,
                       .rows = T,
                       .cols = T,
                       .vmin = -1,
                       .vmax = 1,
                       .diverging = 1,
                       .title = title,
                       .xlabel = "position j",
                       .ylabel = "position i"};
    ordo_svg_heatmap(&sv, &hm, 0, 0, w, h);
    ordo_svg_colorbar(&sv, w + 12, 40, 16, h - 110, -1, 1, 1, "cos");
    ordo_svg_close(&sv);
    s = emit(v, "pos_cosine.svg", &sv, title);
    ordo_svg_free(&sv);
    free(cs);
    return s;
}

// The scheme's own picture (table or bias), or a line saying there is none.
static ordo_status scheme_maps(viz *v, ordo_gpt *m, int T) {
    int C = m->cfg.C, NH = m->cfg.NH;
    const char *name = ordo_pos_name(m->cfg.pos);
    ordo_status s = ORDO_OK;
    switch (m->cfg.pos) {
    case ORDO_POS_LEARNED:
        s = table_maps(v, name, m->wpe.table->data, m->cfg.T_max, C);
        break;
    case ORDO_POS_SINUSOIDAL: {
        float *pe = ordo_xmalloc((size_t)T * C * sizeof(float)); // (T, C)
        ordo_sinusoidal_table(pe, T, C);
        s = table_maps(v, name, pe, T, C);
        free(pe);
        break;
    }
    case ORDO_POS_ALIBI: {
        float *b = ordo_xmalloc((size_t)NH * T * T * sizeof(float)); // (NH, T, T)
        ordo_alibi_bias(b, NH, T);
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++)
                for (int j = i + 1; j < T; j++) b[((size_t)h * T + i) * T + j] = NAN; // masked
        double *slopes = ordo_xmalloc((size_t)NH * sizeof(double));
        ordo_alibi_slopes(slopes, NH);
        char cap[256];
        int k = snprintf(cap, sizeof cap, "bias = -m_h (i - j); slopes m_h:");
        for (int h = 0; h < NH && k > 0 && (size_t)k < sizeof cap - 12; h++)
            k += snprintf(cap + k, sizeof cap - (size_t)k, " %.4g", slopes[h]);
        free(slopes);
        s = head_grid(v, "alibi_bias.svg", "ALiBi bias per head (query i x key j)", b, NH, T, 0, 0,
                      cap, "bias");
        free(b);
        break;
    }
    case ORDO_POS_T5: {
        const float *tab = m->rel_bias->data;                        // (32, NH)
        int32_t *bk = ordo_xmalloc((size_t)T * T * sizeof(int32_t)); // (T, T)
        float *b = ordo_xmalloc((size_t)NH * T * T * sizeof(float)); // (NH, T, T)
        ordo_t5_bucket_map(bk, T);
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++)
                    b[((size_t)h * T + i) * T + j] = j > i ? NAN : tab[bk[i * T + j] * NH + h];
        s = head_grid(v, "t5_bias.svg", "T5 relative bias per head (query i x key j)", b, NH, T, 1,
                      0, "trained table rel_bias.weight [32, NH] through the bucket map", "bias");
        free(b);
        free(bk);
        break;
    }
    case ORDO_POS_ROPE:
        printf("  (rope: no position table or bias to draw, q and k are rotated; attention "
               "maps only)\n");
        break;
    case ORDO_POS_NONE:
        printf("  (none: the model has no position signal; attention maps only)\n");
        break;
    case ORDO_POS_COUNT:
        ORDO_ASSERT(0);
    }
    return s;
}

// Attention of the first validation window, one SVG per layer.
static ordo_status attention_maps(viz *v, ordo_gpt *m, ordo_rundata *d, int T) {
    size_t nval = d->n - d->n_train;
    const int32_t *idx = d->tokens + d->n_train;
    if (nval < (size_t)T) {
        if (d->n < (size_t)T)
            return ordo_error(ORDO_ERR_ARG,
                              "the run's data has %zu tokens, fewer than its "
                              "context %d: no window to draw attention for",
                              d->n, T);
        idx = d->tokens; // a tiny validation split: use the first training window instead
    }
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.grad_enabled = 0;
    m->record_attention = 1;
    ordo_tensor *logits;
    ordo_status s = ordo_gpt_forward(m, &ctx, idx, NULL, 1, T, &logits, NULL);
    char *text = NULL;
    if (!s) s = ordo_rundata_decode(d, idx, (size_t)T, &text);
    int NH = m->cfg.NH;
    float *a = ordo_xmalloc((size_t)NH * T * T * sizeof(float)); // (NH, T, T)
    char cap[200];
    if (!s) {
        // the window's text, one line, shortened to the figure's width (~6 px per char at
        // 11 px): which tokens the maps are about
        size_t maxch = (size_t)(((NH < 4 ? NH : 4) * PANEL + BAR_W) / 6.2) - 16;
        if (maxch > 150) maxch = 150;
        size_t k = 0;
        for (const char *p = text; *p && k < maxch; p++)
            cap[k++] = (*p == '\n' || *p == '\t') ? ' ' : *p;
        while (k > 0 && ((unsigned char)cap[k - 1] & 0xC0) == 0x80) k--; // no cut UTF-8
        if (k > 0 && (unsigned char)cap[k - 1] >= 0xC0) k--;
        cap[k] = 0;
        snprintf(cap + k, sizeof cap - k, "%s", text[k] ? " ..." : "");
    }
    for (int l = 0; l < m->cfg.L && !s; l++) {
        const float *att = m->att[l]; // (1, NH, T, T)
        for (size_t i = 0; i < (size_t)NH * T * T; i++) {
            size_t r = (i / T) % T, c = i % T;
            a[i] = c > r ? NAN : att[i]; // above the diagonal is masked (always 0)
        }
        char file[64], title[128];
        snprintf(file, sizeof file, "attention_layer%d.svg", l);
        snprintf(title, sizeof title, "attention probabilities, layer %d (one validation window)",
                 l);
        char quoted[256];
        snprintf(quoted, sizeof quoted, "window: \"%s\"", cap);
        s = head_grid(v, file, title, a, NH, T, 0, 1, quoted, "prob (p99 clip)");
    }
    m->record_attention = 0;
    free(a);
    free(text);
    ordo_ctx_free(&ctx);
    return s;
}

ordo_status ordo_cmd_viz(int argc, char **argv) {
    const char *out = NULL;
    long long threads = 0;
    ordo_opt opts[] = {
        {"out", ORDO_OPT_STRING, &out, "output directory (default: RUN_DIR/viz)", 0},
        {"threads", ORDO_OPT_INT, &threads, "threads (0 = all cores)", 0},
        {0},
    };
    const char **pos;
    int npos, help;
    ordo_status s =
        ordo_args_command("viz", "RUN_DIR [--out DIR]", opts, argc, argv, &pos, &npos, &help);
    if (!s && help) {
        free(pos);
        return ORDO_OK;
    }
    if (!s && npos != 1)
        s = ordo_error(ORDO_ERR_ARG, "expected one RUN_DIR, got %d arguments", npos);
    char path[4200];
    struct stat st;
    if (!s) {
        snprintf(path, sizeof path, "%s/config.json", pos[0]);
        if (stat(pos[0], &st) != 0 || !S_ISDIR(st.st_mode))
            s = ordo_error(ORDO_ERR_IO, "%s: cannot open the run directory", pos[0]);
        else if (stat(path, &st) != 0)
            s = ordo_error(ORDO_ERR_ARG, "%s: not a run directory (no config.json)", pos[0]);
    }
    if (s) {
        free(pos);
        return s;
    }
    ordo_set_threads((int)threads);
    ordo_train_config cfg;
    ordo_rundata data;
    ordo_gpt m;
    int64_t step;
    if ((s = ordo_run_open(pos[0], &cfg, &data, &m, &step))) {
        free(pos);
        ordo_config_strings_free();
        return s;
    }
    char outbuf[4200];
    snprintf(outbuf, sizeof outbuf, "%s/viz", pos[0]);
    viz v = {.out = out ? out : outbuf};
    ordo_svg_init(&v.index);
    int T = (int)cfg.context;
    s = ordo_mkdir_p(v.out, 0755);
    if (!s) {
        printf("ordo viz: %s (%s, step %lld, T=%d, %d layers x %d heads) -> %s\n", pos[0], cfg.pos,
               (long long)step, T, m.cfg.L, m.cfg.NH, v.out);
        s = scheme_maps(&v, &m, T);
    }
    if (!s) s = attention_maps(&v, &m, &data, T);
    if (!s) {
        ordo_svg h;
        ordo_svg_init(&h);
        ordo_svg_printf(&h, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
                            "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>ordo viz: ");
        ordo_svg_escape(&h, pos[0]);
        ordo_svg_printf(&h, "</title>\n<style>body{font-family:sans-serif;margin:24px}"
                            "img{max-width:100%%}</style>\n</head>\n<body>\n<h1>ordo viz: ");
        ordo_svg_escape(&h, pos[0]);
        ordo_svg_printf(&h, "</h1>\n<p>");
        ordo_svg_escape(&h, cfg.pos);
        ordo_svg_printf(&h,
                        " position scheme, checkpoint step %lld, context %d</p>\n%s</body>\n"
                        "</html>\n",
                        (long long)step, T, v.index.buf);
        snprintf(path, sizeof path, "%s/index.html", v.out);
        s = ordo_svg_save(&h, path);
        if (!s) printf("  %s\n", path);
        ordo_svg_free(&h);
    }
    ordo_svg_free(&v.index);
    ordo_gpt_free(&m);
    ordo_rundata_free(&data);
    ordo_config_strings_free();
    free(pos);
    return s;
}
