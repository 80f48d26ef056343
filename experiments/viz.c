// `ordo viz`'s drawing (see viz.h): every map is computed here from the model (tables,
// biases, attention probabilities of one forward pass) and drawn with experiments/plot.c;
// each file is written atomically and listed in index.html. Colour ranges: symmetric around
// 0 for signed maps, 0 to the 99th percentile for attention (see head_grid).
// Deliberately not here: options and the run-directory summary line (cli/cmd_viz.c).
#include "experiments/viz.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "experiments/plot.h"
#include "experiments/runinfo.h"
#include "eval/attn_offsets.h"
#include "eval/pos_probe.h"
#include "sys/fileio.h"
#include "models/pos/scheme.h"
#include "run/run.h"

#define PANEL 260.0 // px per head panel
#define BAR_W 100.0 // px kept for the colour bar and its labels

// One per layer: the longest file names viz writes.
#define ATTN_FILE "attention_layer%d.svg"

// Saves one finished SVG as v->out/name, prints its path and adds it to index.html.
static ordo_status emit(ordo_viz *v, const char *name, const ordo_strbuf *s, const char *caption) {
    char path[ORDO_PATH_MAX];
    ordo_status st = ordo_path(path, sizeof path, "%s/%s", v->out, name);
    if (!st) st = ordo_strbuf_save(s, path);
    if (st) return st;
    printf("  %s\n", path);
    ordo_strbuf_printf(&v->index, "<h2>");
    ordo_svg_escape(&v->index, caption);
    ordo_strbuf_printf(&v->index, "</h2>\n<p><img src=\"");
    ordo_svg_escape(&v->index, name);
    ordo_strbuf_printf(&v->index, "\" alt=\"");
    ordo_svg_escape(&v->index, caption);
    ordo_strbuf_printf(&v->index, "\"/></p>\n");
    return ORDO_OK;
}

// The range of the non-NaN values of x[0..n); [0, 1] when there are none, never empty.
static void range_of(const float *x, size_t n, double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) *lo = fmin(*lo, x[i]), *hi = fmax(*hi, x[i]);
    if (!(*lo <= *hi)) *lo = 0, *hi = 1;
    if (*lo == *hi) *hi = *lo + 1e-6;
}

// One heatmap and its colour bar; symmetric range around 0 when diverging.
static ordo_status one_map(ordo_viz *v, const char *file, const char *title, const float *x,
                           int rows, int cols, int diverging, const char *xl, const char *yl,
                           const char *bar) {
    double lo, hi;
    range_of(x, (size_t)rows * cols, &lo, &hi);
    if (diverging) hi = fmax(fabs(lo), fabs(hi)), lo = -hi;
    double w = cols >= rows ? 720 : 720.0 * cols / rows + 60, h = 720.0 * rows / cols + 60;
    if (h > 760) h = 760;
    if (w < 300) w = 300;
    ordo_strbuf s;
    ordo_strbuf_init(&s);
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
    ordo_strbuf_free(&s);
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
static ordo_status head_grid(ordo_viz *v, const char *file, const char *title, const float *x,
                             int NH, int T, int diverging, int prob, const char *caption,
                             const char *bar) {
    double lo, hi;
    range_of(x, (size_t)NH * T * T, &lo, &hi);
    if (diverging) hi = fmax(fabs(lo), fabs(hi)), lo = -hi;
    if (prob) lo = 0, hi = fmax(quantile(x, (size_t)NH * T * T, 0.99), 1e-6);
    int cols = NH < 4 ? NH : 4, rows = (NH + cols - 1) / cols;
    double top = caption ? 52 : 34;
    ordo_strbuf s;
    ordo_strbuf_init(&s);
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
    ordo_strbuf_free(&s);
    return st;
}

// The position table (T, C) and the cosine similarity of its rows.
static ordo_status table_maps(ordo_viz *v, const char *scheme, const float *pe, int T, int C) {
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
    ordo_strbuf sv;
    ordo_strbuf_init(&sv);
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
    ordo_strbuf_free(&sv);
    free(cs);
    return s;
}

// ---- the learned biases (fire, kerple, kerple-power), through the same maps as t5

// A bias against distance, one curve per series, the training length marked, a caption
// under the plot: the picture of alibi-like biases and of fox's mean forget bias.
static ordo_status curves_svg(ordo_viz *v, const char *file, const char *title, const char *ylabel,
                              int legend_w, int T, const ordo_series *ser, int n,
                              const char *caption) {
    ordo_strbuf sv;
    ordo_strbuf_init(&sv);
    ordo_svg_open(&sv, 820, 500, title);
    ordo_axes a = {.x = 0,
                   .y = 0,
                   .w = 820,
                   .h = 470,
                   .title = title,
                   .xlabel = "distance i - j",
                   .ylabel = ylabel,
                   .legend_w = legend_w,
                   .xmark = T,
                   .xmark_label = "training length"};
    ordo_svg_lineplot(&sv, &a, ser, n);
    ordo_svg_text(&sv, 10, 492, "start", 11, "fill=\"#444\"", "%s", caption);
    ordo_svg_close(&sv);
    ordo_status s = emit(v, file, &sv, title);
    ordo_strbuf_free(&sv);
    return s;
}

// The scheme's shared bias at length T into *out (NH, T, T), made in *ctx, which the caller
// frees; on failure (no memory for it) ctx is freed and the error names `file`.
static ordo_status shared_bias(ordo_gpt *m, ordo_ctx *ctx, int T, const char *file,
                               const float **out) {
    ordo_ctx_init(ctx);
    ctx->grad_enabled = 0;
    ordo_tensor *bt = ordo_gpt_position_bias(m, ctx, T);
    if (!bt) {
        ordo_ctx_free(ctx);
        return ordo_error_wrap(ORDO_ERR_NOMEM, "%s", file);
    }
    *out = bt->data;
    return ORDO_OK;
}

// Each head's bias against the distance i - j, read off the last query row of a length 4T
// (at most 1024, at least T) so that the curves show what the model does past its training
// length too, which is marked.
static ordo_status bias_curves(ordo_viz *v, ordo_gpt *m, const char *file, const char *title,
                               const char *caption, int T) {
    int NH = m->cfg.NH, Tx = 4 * T < 1024 ? 4 * T : T > 1024 ? T : 1024;
    ordo_ctx ctx;
    const float *b = NULL; // (NH, Tx, Tx)
    ordo_status st = shared_bias(m, &ctx, Tx, file, &b);
    if (st) return st;
    double *xy = ordo_xmalloc((size_t)(NH + 1) * Tx * sizeof(double));
    ordo_series *ser = ordo_xcalloc((size_t)NH, sizeof *ser);
    char(*labels)[16] = ordo_xcalloc((size_t)NH, sizeof *labels);
    for (int d = 0; d < Tx; d++) xy[d] = d;
    for (int h = 0; h < NH; h++) {
        double *y = xy + (size_t)(h + 1) * Tx;
        const float *row = b + ((size_t)h * Tx + Tx - 1) * Tx; // query Tx - 1
        for (int d = 0; d < Tx; d++) y[d] = row[Tx - 1 - d];
        snprintf(labels[h], sizeof labels[h], "head %d", h);
        ser[h] = (ordo_series){.x = xy,
                               .y = y,
                               .n = Tx,
                               .color = ordo_svg_scheme_color("", h),
                               .width = 1.8,
                               .label = labels[h]};
    }
    ordo_status s = curves_svg(v, file, title, "bias added to the score", 110, T, ser, NH, caption);
    free(labels);
    free(ser);
    free(xy);
    ordo_ctx_free(&ctx);
    return s;
}

// fox: the forget bias depends on the text, so it is drawn from one window of the run's data
// (validation, else training) of length 4T (at most 1024, at least T; T where the data is
// shorter): per layer and head, the mean over the window's queries i >= d of c_i - c_{i-d},
// the bias at distance d, with the training length marked; the caption gives each head's mean
// gate f = exp(mean log f).
// The first *Tx tokens of the run's data (validation, else training) for the text-dependent
// pictures (fox, cope): *Tx = 4T (at most 1024, at least T), T where the data is shorter;
// NULL when not even T tokens are there (attention_maps says so).
static int32_t *sample_window(ordo_rundata *d, int T, int *Tx) {
    int n = 4 * T < 1024 ? 4 * T : T > 1024 ? T : 1024;
    size_t have = d->nval >= (size_t)n ? d->nval : d->n;
    if (have < (size_t)n) n = T;
    int32_t *idx = ordo_xmalloc((size_t)n * sizeof *idx); // (n)
    if (d->nval >= (size_t)n)
        memcpy(idx, d->val, (size_t)n * sizeof *idx);
    else if (d->n >= (size_t)n)
        ordo_rundata_ids(d, 0, (size_t)n, idx);
    else {
        free(idx);
        return NULL;
    }
    *Tx = n;
    return idx;
}

// One forward over sample_window's tokens with the attention recorded (the scheme's own
// record per layer in m->pos_record), in *ctx (the caller frees it, and the tokens returned);
// NULL when the data is too short (nothing to draw), else *s is the forward's status.
static int32_t *recorded_window(ordo_gpt *m, ordo_rundata *d, int T, ordo_ctx *ctx, int *Tx,
                                ordo_status *s) {
    int32_t *idx = sample_window(d, T, Tx); // (Tx)
    if (!idx) return NULL;
    ordo_ctx_init(ctx);
    ctx->grad_enabled = 0;
    m->record_attention = 1;
    ordo_tensor *logits;
    *s = ordo_gpt_forward(m, ctx, idx, NULL, 1, *Tx, &logits, NULL);
    m->record_attention = 0;
    return idx;
}

// A curve per layer and head over x = 0..n-1 (the text-dependent pictures): series k = l NH + h
// labelled "layer l head h", its y (n values) for the caller to fill.
typedef struct layer_curves {
    double *xy; // x, then each series' y: (1 + L NH, n)
    ordo_series *ser;
    char (*labels)[48];
} layer_curves;

static layer_curves layer_curves_new(int L, int NH, int n) {
    int ns = L * NH;
    layer_curves c = {ordo_xcalloc((size_t)(ns + 1) * n, sizeof(double)),
                      ordo_xcalloc((size_t)ns, sizeof(ordo_series)),
                      ordo_xcalloc((size_t)ns, sizeof *c.labels)};
    for (int x = 0; x < n; x++) c.xy[x] = x;
    for (int k = 0; k < ns; k++) {
        snprintf(c.labels[k], sizeof c.labels[0], "layer %d head %d", k / NH, k % NH);
        c.ser[k] = (ordo_series){.x = c.xy,
                                 .y = c.xy + (size_t)(k + 1) * n,
                                 .n = n,
                                 .color = ordo_svg_scheme_color("", k),
                                 .width = 1.8,
                                 .label = c.labels[k]};
    }
    return c;
}

// Series k's y, to fill.
static double *layer_curve_y(const layer_curves *c, int k) {
    return (double *)c->ser[k].y;
}

static void layer_curves_free(layer_curves *c) {
    free(c->labels);
    free(c->ser);
    free(c->xy);
}

static ordo_status fox_curves(ordo_viz *v, ordo_gpt *m, ordo_rundata *d, int T) {
    int NH = m->cfg.NH, L = m->cfg.L, Tx;
    ordo_ctx ctx;
    ordo_status s;
    int32_t *idx = recorded_window(m, d, T, &ctx, &Tx, &s); // every layer's c in m->pos_record
    if (!idx) return ORDO_OK;
    layer_curves lc = layer_curves_new(L, NH, Tx);
    char cap[256];
    int k = snprintf(cap, sizeof cap,
                     "mean over one window of c_i - c_(i-d); exp(mean log f) per layer, head:");
    for (int l = 0; l < L && !s; l++)
        for (int h = 0; h < NH; h++) {
            const float *c = m->pos_record[l] + (size_t)h * Tx; // (Tx), batch row 0
            double *y = layer_curve_y(&lc, l * NH + h);
            for (int dist = 0; dist < Tx; dist++) {
                double sum = 0;
                for (int i = dist; i < Tx; i++) sum += (double)c[i] - c[i - dist];
                y[dist] = sum / (Tx - dist);
            }
            if (k > 0 && (size_t)k < sizeof cap - 24) // c_0 = log f_0: the mean from the total
                k += snprintf(cap + k, sizeof cap - (size_t)k, " L%dH%d %.3g", l, h,
                              exp((double)c[Tx - 1] / Tx));
        }
    if (!s) {
        const char *title = "fox: the forget bias per layer and head against distance";
        s = curves_svg(v, "fox_bias_curves.svg", title, "bias added to the score (mean)", 150, T,
                       lc.ser, L * NH, cap);
    }
    layer_curves_free(&lc);
    free(idx);
    ordo_ctx_free(&ctx);
    return s;
}

// cope: its positions p_ij (gated counts of the keys between j and i) on one window of the
// run's data (sample_window), read from the materialized path: a heatmap per head of the last
// layer over the first T queries, and curves of p against the distance i - j for the window's
// last query, per layer and head, with the training length marked (past it, counts clamp at P -
// 1). p = d + 1 would count every token.
static ordo_status cope_positions(ordo_viz *v, ordo_gpt *m, ordo_rundata *d, int T) {
    int NH = m->cfg.NH, L = m->cfg.L, Tx;
    ordo_ctx ctx;
    ordo_status s;
    int32_t *idx = recorded_window(m, d, T, &ctx, &Tx, &s); // every layer's p in m->pos_record
    if (!idx) return ORDO_OK;
    float *map = ordo_xmalloc((size_t)NH * T * T * sizeof(float)); // (NH, T, T)
    for (int h = 0; h < NH && !s; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++)
                map[((size_t)h * T + i) * T + j] =
                    j > i ? NAN : m->pos_record[L - 1][((size_t)h * Tx + i) * Tx + j];
    char cap[256];
    snprintf(cap, sizeof cap,
             "p_ij = sum of sigmoid(q_i.k_l / sqrt(hs)) over l = j..i, clamped at P - 1 = %d; "
             "one window of the run's data",
             m->cfg.cope_max - 1);
    if (!s)
        s = head_grid(v, "cope_positions.svg",
                      "CoPE positions per head, last layer (query i x key j)", map, NH, T, 0, 0,
                      cap, "p");
    layer_curves lc = layer_curves_new(L, NH, Tx);
    for (int l = 0; l < L && !s; l++)
        for (int h = 0; h < NH; h++) {
            const float *row = m->pos_record[l] + ((size_t)h * Tx + Tx - 1) * Tx; // the last query
            double *y = layer_curve_y(&lc, l * NH + h);
            for (int dist = 0; dist < Tx; dist++) y[dist] = row[Tx - 1 - dist];
        }
    if (!s)
        s = curves_svg(v, "cope_position_curves.svg",
                       "cope: the last query's positions p against distance, per layer and head",
                       "position p (gated count)", 150, T, lc.ser, L * NH,
                       "p = d + 1 would count every token; the count stops at P - 1");
    layer_curves_free(&lc);
    free(map);
    free(idx);
    ordo_ctx_free(&ctx);
    return s;
}

// The stationary biases (alibi, t5, fire, kerple, kerple-power, dpb): the heatmap per head at
// the training length and the curves against distance, captioned by the scheme's row.
static ordo_status bias_maps(ordo_viz *v, ordo_gpt *m, int T) {
    int NH = m->cfg.NH;
    const char *name = ordo_pos_name(m->cfg.pos);
    char file[64], curves[64], title[128], cap[256];
    snprintf(file, sizeof file, "%s_bias.svg", name);
    snprintf(curves, sizeof curves, "%s_bias_curves.svg", name);
    m->pos->row->caption(m->pos, cap, sizeof cap);
    ordo_ctx ctx;
    const float *bias = NULL; // (NH, T, T)
    ordo_status st = shared_bias(m, &ctx, T, file, &bias);
    if (st) return st;
    float *b = ordo_xmalloc((size_t)NH * T * T * sizeof(float)); // (NH, T, T)
    for (int h = 0; h < NH; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                size_t k = ((size_t)h * T + i) * T + j;
                b[k] = j > i ? NAN : bias[k]; // masked
            }
    ordo_ctx_free(&ctx);
    snprintf(title, sizeof title, "%s bias per head (query i x key j)", name);
    ordo_status s = head_grid(v, file, title, b, NH, T, 1, 0, cap, "bias");
    free(b);
    snprintf(title, sizeof title, "%s bias per head against distance", name);
    if (!s) s = bias_curves(v, m, curves, title, cap, T);
    return s;
}

// The scheme's own picture (table or bias), or a line saying there is none.
// ---- RoPE frequency spectrum: what each scaling does to the rotation ----

// The wavelength 2 pi / theta_i of every pair (log10, in positions) and theta'_i / theta_i,
// unscaled and under pi, ntk and yarn at one factor, as two line plots side by side, with
// the training context and the context the factor reaches marked.
static ordo_status rope_spectrum(ordo_viz *v, ordo_gpt *m) {
    const ordo_rope_config *run = &m->cfg.rope;
    int hs = ordo_gpt_rope_dims(&m->cfg),
        half = hs / 2; // the rotated dims (partial rotary: fewer than C/NH)
    int trained_scaled = run->scaling != ORDO_ROPE_SCALING_NONE;
    double s = v->rope_factor > 0 ? v->rope_factor : trained_scaled ? run->factor : 4.0;
    int orig = trained_scaled ? run->orig_T : m->cfg.T_max;
    enum { NS = ORDO_ROPE_SCALING_COUNT };
    double *x = ordo_xmalloc((size_t)half * sizeof(double));
    double *inv = ordo_xmalloc((size_t)NS * half * sizeof(double));
    double *wl = ordo_xmalloc((size_t)NS * half * sizeof(double));
    double *ratio = ordo_xmalloc((size_t)NS * half * sizeof(double));
    double mscale[NS], ctx[2][2], cx[2] = {0, half - 1};
    char labels[NS][64];
    static const char *const colors[NS] = {"#444444", "#1f77b4", "#2ca02c", "#d62728", "#9467bd"};
    for (int i = 0; i < half; i++) x[i] = i;
    for (int k = 0; k < NS; k++) {
        // dynamic-ntk: HF's factor 1, at the context s * orig
        ordo_rope_config rc = {(ordo_rope_scaling)k, k && !ordo_rope_scaling_by_length(k) ? s : 1.0,
                               orig};
        // dynamic-ntk as it is at the context the factor reaches
        mscale[k] = ordo_rope_inv_freq_len(inv + (size_t)k * half, hs, &rc, (int)(s * orig));
        for (int i = 0; i < half; i++) {
            wl[k * half + i] = log10(2 * M_PI / inv[k * half + i]);
            ratio[k * half + i] = inv[k * half + i] / inv[i];
        }
        const char *mark = trained_scaled && k == (int)run->scaling ? " (the run's)" : "";
        if (k == 0)
            snprintf(labels[k], sizeof labels[k], "unscaled%s",
                     trained_scaled ? "" : " (the run's)");
        else if (ordo_rope_scaling_by_length(k))
            snprintf(labels[k], sizeof labels[k], "%s at context %d%s", ordo_rope_scaling_name(k),
                     (int)(s * orig), mark);
        else if (k == ORDO_ROPE_SCALING_YARN)
            snprintf(labels[k], sizeof labels[k], "yarn s=%g, q,k x%.3g%s", s, mscale[k], mark);
        else
            snprintf(labels[k], sizeof labels[k], "%s s=%g%s", ordo_rope_scaling_name(k), s, mark);
    }
    ctx[0][0] = ctx[0][1] = log10((double)orig);
    ctx[1][0] = ctx[1][1] = log10(s * orig);
    char lc[2][64];
    snprintf(lc[0], sizeof lc[0], "context %d (trained)", orig);
    snprintf(lc[1], sizeof lc[1], "context %g (x s)", s * orig);
    ordo_series ser[2][NS + 2];
    for (int p = 0; p < 2; p++) {
        for (int k = 0; k < NS; k++)
            ser[p][k] = (ordo_series){.x = x,
                                      .y = (p ? ratio : wl) + (size_t)k * half,
                                      .n = half,
                                      .color = colors[k],
                                      .width = k ? 2.0 : 3.0,
                                      .opacity = k ? 0.9 : 0.5,
                                      .cls = "spectrum",
                                      .label = labels[k],
                                      .markers = 1};
        for (int c = 0; c < 2; c++)
            ser[p][NS + c] = (ordo_series){.x = cx,
                                           .y = ctx[c],
                                           .n = 2,
                                           .color = c ? "#ff7f0e" : "#999999",
                                           .width = 1.0,
                                           .cls = "context",
                                           .label = lc[c]};
    }
    char title[160];
    snprintf(title, sizeof title, "RoPE spectrum: head size %d, base %g, factor s = %g%s", hs,
             ORDO_ROPE_BASE, s,
             v->rope_factor > 0 ? ""
             : trained_scaled   ? " (the run's)"
                                : " (default; --rope-factor)");
    ordo_strbuf b;
    ordo_strbuf_init(&b);
    ordo_svg_open(&b, 1240, 460, title);
    ordo_axes a = {.x = 0,
                   .y = 0,
                   .w = 620,
                   .h = 460,
                   .title = "wavelength of each pair",
                   .xlabel = "pair i (dims i, i + hs/2)",
                   .ylabel = "log10 wavelength 2pi/theta_i (positions)",
                   .legend_w = 0};
    ordo_svg_lineplot(&b, &a, ser[0], NS + 2);
    a.x = 620;
    a.title = "theta'_i / theta_i (1: kept, 1/s: interpolated)";
    a.ylabel = "scaled / unscaled frequency";
    a.legend_w = 190;
    ordo_svg_lineplot(&b, &a, ser[1], NS);
    ordo_svg_close(&b);
    ordo_status st = emit(v, "rope_spectrum.svg", &b, title);
    ordo_strbuf_free(&b);
    free(x);
    free(inv);
    free(wl);
    free(ratio);
    return st;
}

static ordo_status scheme_maps(ordo_viz *v, ordo_gpt *m, int T) {
    const ordo_pos_scheme *row = m->pos->row;
    ordo_status s = ORDO_OK;
    switch (row->picture) {
    case ORDO_POS_PICTURE_TABLE: {
        float *pe;
        int rows = row->input_rows(m->pos, T, &pe); // (rows, C)
        s = table_maps(v, ordo_pos_name(m->cfg.pos), pe, rows, m->cfg.C);
        free(pe);
        break;
    }
    case ORDO_POS_PICTURE_BIAS:
        s = bias_maps(v, m, T);
        break;
    case ORDO_POS_PICTURE_SPECTRUM:
        printf("  (%s)\n", row->note);
        s = rope_spectrum(v, m);
        break;
    case ORDO_POS_PICTURE_GATES: // the bias depends on the text: drawn from a window
        s = fox_curves(v, m, &v->data, T);
        break;
    case ORDO_POS_PICTURE_POSITIONS: // its positions too
        s = cope_positions(v, m, &v->data, T);
        break;
    case ORDO_POS_PICTURE_NOTE:
        printf("  (%s)\n", row->note);
        break;
    }
    return s;
}

// Attention of the first validation window, one SVG per layer.
static ordo_status attention_maps(ordo_viz *v, ordo_gpt *m, ordo_rundata *d, int T) {
    size_t nval = d->nval;
    int32_t *idx = ordo_xmalloc((size_t)T * sizeof *idx); // (T)
    if (nval >= (size_t)T) {
        memcpy(idx, d->val, (size_t)T * sizeof *idx); // the split, or the --val-data file
    } else {
        if (d->n < (size_t)T) {
            free(idx);
            return ordo_error(ORDO_ERR_ARG,
                              "the run's data has %zu tokens, fewer than its "
                              "context %d: no window to draw attention for",
                              d->n, T);
        }
        // a tiny validation split: use the first training window instead
        ordo_rundata_ids(d, 0, (size_t)T, idx);
    }
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.grad_enabled = 0;
    m->record_attention = 1;
    ordo_tensor *logits;
    ordo_status s = ordo_gpt_forward(m, &ctx, idx, NULL, 1, T, &logits, NULL);
    char *text = NULL;
    if (!s) s = ordo_rundata_decode(d, idx, (size_t)T, &text, NULL);
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
        snprintf(file, sizeof file, ATTN_FILE, l);
        snprintf(title, sizeof title, "attention probabilities, layer %d (one validation window)",
                 l);
        char quoted[256];
        snprintf(quoted, sizeof quoted, "window: \"%s\"", cap);
        s = head_grid(v, file, title, a, NH, T, 0, 1, quoted, "prob (p99 clip)");
    }
    m->record_attention = 0;
    free(a);
    free(idx);
    free(text);
    ordo_ctx_free(&ctx);
    return s;
}

// passkey, mqar, flipflop (the tasks whose accuracy is a grid): the heatmap of the run's eval
// record (base, else the first), from `ordo eval --save`, as <task>.svg; a line saying how to
// make one when the run has none.
static ordo_status accuracy_map(ordo_viz *v) {
    if (v->cfg.data || !ordo_runinfo_grid_label(v->cfg.task)) return ORDO_OK;
    ordo_runinfo r;
    ordo_status s = ordo_runinfo_load(&r, v->dir);
    if (s) return s;
    if (!r.acc_grid) {
        printf("  (no %s accuracy: 'ordo eval %s --save' scores it, then viz draws it)\n",
               v->cfg.task, v->dir);
        ordo_runinfo_free(&r);
        return ORDO_OK;
    }
    int *lens = ordo_xmalloc((size_t)r.nacc * sizeof *lens);
    for (int i = 0; i < r.nacc; i++) lens[i] = r.acc[i].n;
    const char *task = r.acc_grid_task;
    char title[192], file[64];
    if (strcmp(task, "passkey") == 0)
        snprintf(title, sizeof title, "passkey retrieval, eval record %s (step %lld)", r.eval_name,
                 r.eval_step);
    else
        snprintf(title, sizeof title, "%s accuracy, eval record %s (step %lld)", task, r.eval_name,
                 r.eval_step);
    snprintf(file, sizeof file, "%s.svg", task);
    ordo_strbuf svg;
    ordo_strbuf_init(&svg);
    ordo_svg_accuracy_grid(&svg, title, lens, r.nacc, r.acc_cols, r.acc_ncols, r.acc_col_label,
                           "accuracy", r.acc_grid);
    s = emit(v, file, &svg, title);
    ordo_strbuf_free(&svg);
    free(lens);
    ordo_runinfo_free(&r);
    return s;
}

// index.html: a title naming the run, then every file written, in order.
static ordo_status write_index(ordo_viz *v) {
    ordo_strbuf h;
    ordo_strbuf_init(&h);
    ordo_strbuf_printf(&h, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
                           "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>ordo viz: ");
    ordo_svg_escape(&h, v->run_dir);
    ordo_strbuf_printf(&h, "</title>\n<style>body{font-family:sans-serif;margin:24px}"
                           "img{max-width:100%%}</style>\n</head>\n<body>\n<h1>ordo viz: ");
    ordo_svg_escape(&h, v->run_dir);
    ordo_strbuf_printf(&h, "</h1>\n<p>");
    ordo_svg_escape(&h, v->cfg.pos);
    ordo_strbuf_printf(&h,
                       " position scheme, checkpoint step %lld, context %d</p>\n%s</body>\n"
                       "</html>\n",
                       (long long)v->step, v->T, v->index.buf);
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/index.html", v->out);
    if (!s) s = ordo_strbuf_save(&h, path);
    if (!s) printf("  %s\n", path);
    ordo_strbuf_free(&h);
    return s;
}

// offsets.json: the numbers of attention_by_offset.svg (eval/attn_offsets.h), for scripts and
// compare's report.
static ordo_status offsets_json(ordo_viz *v, const ordo_attn_offsets *o) {
    json_t *heads = json_array();
    for (int l = 0; l < o->L; l++)
        for (int h = 0; h < o->NH; h++) {
            const double *mass = o->mass + ((size_t)l * o->NH + h) * o->T;
            json_t *mj = json_array();
            for (int d = 0; d < o->T; d++) json_array_append_new(mj, json_real(mass[d]));
            json_array_append_new(heads, json_pack("{s:i, s:i, s:f, s:o}", "layer", l, "head", h,
                                                   "spread", o->spread[l * o->NH + h], "mass", mj));
        }
    json_t *j = json_pack("{s:i, s:i, s:i, s:i, s:o}", "T", o->T, "D", o->D, "windows", o->windows,
                          "step", (int)v->step, "heads", heads);
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/offsets.json", v->out);
    if (!s) s = ordo_write_json_atomic(path, j);
    json_decref(j);
    if (!s) printf("  %s\n", path);
    return s;
}

// Where each head looks by offset i - j, and how much that depends on the query's position:
// the mean attention mass per offset over windows of the validation data (curves per layer and
// head), each head's spread in the caption (0: by offset alone), and offsets.json.
static ordo_status offset_curves(ordo_viz *v, const ordo_attn_offsets *op) {
    ordo_attn_offsets o = *op;
    int T = o.T;
    ordo_status s;
    layer_curves lc = layer_curves_new(o.L, o.NH, T);
    char cap[256];
    int k =
        snprintf(cap, sizeof cap,
                 "%d windows; spread (0: by offset alone, up to 1) per layer, head:", o.windows);
    for (int i = 0; i < o.L * o.NH; i++) {
        memcpy(layer_curve_y(&lc, i), o.mass + (size_t)i * T, (size_t)T * sizeof(double));
        if (k > 0 && (size_t)k < sizeof cap - 16)
            k += snprintf(cap + k, sizeof cap - (size_t)k, " L%dH%d %.3f", i / o.NH, i % o.NH,
                          o.spread[i]);
    }
    s = curves_svg(v, "attention_by_offset.svg",
                   "attention by offset: mean mass on the key i - j tokens back",
                   "mean attention probability", 150, T, lc.ser, o.L * o.NH, cap);
    if (!s) s = offsets_json(v, &o);
    layer_curves_free(&lc);
    return s;
}

// The position probe (eval/pos_probe.h) over 16 validation windows: the held-out error of a
// linear probe of absolute position from each layer's residual stream, against chance, as
// position_probe.svg and probe.json.
static ordo_status position_probe(ordo_viz *v, const ordo_pos_probe *op) {
    ordo_pos_probe o = *op;
    int T = o.T;
    ordo_status s;
    double *xy = ordo_xmalloc((size_t)3 * o.points * sizeof(double)); // x, mae, chance
    for (int p = 0; p < o.points; p++)
        xy[p] = p, xy[o.points + p] = o.mae[p], xy[2 * o.points + p] = o.chance;
    ordo_series ser[2] = {{.x = xy,
                           .y = xy + o.points,
                           .n = o.points,
                           .color = "#1f77b4",
                           .width = 2.4,
                           .label = "held-out error",
                           .markers = 1},
                          {.x = xy,
                           .y = xy + 2 * o.points,
                           .n = o.points,
                           .color = "#888888",
                           .width = 1.5,
                           .label = "chance (the mean position)",
                           .dash = "6 4"}};
    const char *title = "position probe: a linear read-out of each token's position";
    ordo_strbuf sv;
    ordo_strbuf_init(&sv);
    ordo_svg_open(&sv, 820, 500, title);
    ordo_axes a = {.w = 820,
                   .h = 470,
                   .title = title,
                   .xlabel = "residual stream: 0 = block 0's input, l = block l's output",
                   .ylabel = "mean absolute error (positions)",
                   .legend_w = 190};
    ordo_svg_lineplot(&sv, &a, ser, 2);
    ordo_svg_text(&sv, 10, 492, "start", 11, "fill=\"#444\"",
                  "ridge regression fitted on %d windows of %d, scored on %d others", o.fit_windows,
                  T, o.test_windows);
    ordo_svg_close(&sv);
    s = emit(v, "position_probe.svg", &sv, title);
    ordo_strbuf_free(&sv);
    free(xy);
    if (!s) {
        json_t *mae = json_array();
        for (int p = 0; p < o.points; p++) json_array_append_new(mae, json_real(o.mae[p]));
        json_t *j = json_pack("{s:i, s:i, s:i, s:i, s:f, s:o}", "T", T, "fit_windows",
                              o.fit_windows, "test_windows", o.test_windows, "step", (int)v->step,
                              "chance", o.chance, "mae", mae);
        char path[ORDO_PATH_MAX];
        if (!(s = ordo_path(path, sizeof path, "%s/probe.json", v->out)) &&
            !(s = ordo_write_json_atomic(path, j)))
            printf("  %s\n", path);
        json_decref(j);
    }
    return s;
}

// The statistics viz draws beside its maps, each over 16 validation windows (eval/): attention
// by offset (one window at least) and the position probe (two: one fitted, one held out).
static ordo_status diagnostics(ordo_viz *v, ordo_gpt *m, ordo_rundata *d, int T) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_attn_offsets o = {0};
    ordo_pos_probe p = {0};
    ordo_status s = ORDO_OK;
    if (d->nval >= (size_t)T)
        s = ordo_attn_offsets_measure(m, &ctx, d->val, d->nval, T, 16, &o);
    else
        printf("  (attention by offset: the validation data is shorter than one window)\n");
    if (!s && d->nval >= 2 * (size_t)T)
        s = ordo_pos_probe_measure(m, &ctx, d->val, d->nval, T, 16, &p);
    else if (!s)
        printf("  (position probe: the validation data is shorter than two windows)\n");
    ordo_ctx_free(&ctx);
    if (!s && o.mass) s = offset_curves(v, &o);
    if (!s && p.mae) s = position_probe(v, &p);
    ordo_attn_offsets_free(&o);
    ordo_pos_probe_free(&p);
    return s;
}

ordo_status ordo_viz_open(ordo_viz *v, const char *run_dir, const ordo_run_select *sel,
                          const char *out_dir) {
    memset(v, 0, sizeof *v);
    v->run_dir = run_dir;
    ordo_strbuf_init(&v->index);
    char path[ORDO_PATH_MAX];
    struct stat st;
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", run_dir);
    if (s) return s;
    int file = stat(run_dir, &st) == 0 && S_ISREG(st.st_mode); // a checkpoint file
    if (!file && (stat(run_dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return ordo_error(ORDO_ERR_IO, "%s: cannot open the run directory", run_dir);
    if (!file && stat(path, &st) != 0)
        return ordo_error(ORDO_ERR_ARG, "%s: not a run directory (no config.json)", run_dir);
    ordo_run_view view;
    s = ordo_run_open(run_dir, sel, &v->cfg, &v->data, &v->model, &view);
    if (s) return s;
    v->step = view.step;
    run_dir = view.dir; // a checkpoint file's directory: the default out is beside it
    v->dir = ordo_xstrdup(run_dir);
    v->opened = 1;
    v->T = (int)v->cfg.context;
    if (out_dir) {
        v->out = ordo_xstrdup(out_dir);
    } else {
        size_t n = strlen(run_dir) + sizeof "/viz";
        v->out = ordo_xmalloc(n);
        ORDO_ASSERT(ordo_path(v->out, n, "%s/viz", run_dir) == ORDO_OK); // sized to fit
    }
    // an out dir that the last layer's map does not fit in is refused before it is made
    if ((s = ordo_path(path, sizeof path, "%s/" ATTN_FILE, v->out, v->model.cfg.L - 1)) ||
        (s = ordo_write_atomic_check(path)))
        return s;
    return ordo_mkdir_p(v->out, 0755);
}

ordo_status ordo_viz_write(ordo_viz *v) {
    ordo_status s = scheme_maps(v, &v->model, v->T);
    if (!s) s = attention_maps(v, &v->model, &v->data, v->T);
    if (!s) s = diagnostics(v, &v->model, &v->data, v->T);
    if (!s) s = accuracy_map(v);
    if (!s) s = write_index(v);
    return s;
}

void ordo_viz_free(ordo_viz *v) {
    if (v->opened) {
        ordo_gpt_free(&v->model);
        ordo_rundata_free(&v->data);
    }
    ordo_strbuf_free(&v->index);
    free(v->out);
    free(v->dir);
    memset(v, 0, sizeof *v);
}
