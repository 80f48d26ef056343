// SVG drawing into an ordo_strbuf: XML escaping, line plots and heatmaps (see plot.h). Plain
// SVG 1.1 elements only (rect, line, polyline, circle, text, g), no ids, no scripts, no external
// references, so a file is both a standalone image and inlinable XHTML content. Numbers are
// printed with fixed precision so the same data always gives the same bytes. It does not
// try to be a plotting library: one panel layout, no automatic label collision handling.
#include "experiments/plot.h"
#include "models/positional.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT 12.0

void ordo_svg_escape(ordo_strbuf *s, const char *text) {
    for (const char *p = text; *p; p++) {
        const char *e = NULL;
        switch (*p) {
        case '&':
            e = "&amp;";
            break;
        case '<':
            e = "&lt;";
            break;
        case '>':
            e = "&gt;";
            break;
        case '"':
            e = "&quot;";
            break;
        case '\'':
            e = "&#39;";
            break;
        default:
            break;
        }
        // control characters other than tab/newline are not allowed in XML 1.0 at all
        if (!e && (unsigned char)*p < 0x20 && *p != '\t' && *p != '\n') e = "?";
        if (e)
            ordo_strbuf_puts(s, e);
        else
            ordo_strbuf_append(s, p, 1);
    }
}

void ordo_svg_open(ordo_strbuf *s, double w, double h, const char *title) {
    ordo_strbuf_printf(s,
                       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                       "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"%.0f\">\n"
                       "<title>",
                       w, h, w, h, FONT);
    ordo_svg_escape(s, title ? title : "");
    ordo_strbuf_printf(s,
                       "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                       "fill=\"#ffffff\"/>\n",
                       w, h);
}

void ordo_svg_close(ordo_strbuf *s) {
    ordo_strbuf_printf(s, "</svg>\n");
}

void ordo_svg_text(ordo_strbuf *s, double x, double y, const char *anchor, double size,
                   const char *attrs, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    ordo_strbuf_printf(s, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" font-size=\"%.1f\"%s%s>",
                       x, y, anchor, size, attrs && *attrs ? " " : "", attrs ? attrs : "");
    ordo_svg_escape(s, tmp);
    ordo_strbuf_printf(s, "</text>\n");
}

// ---------------------------------------------------------------------------------------
// axes

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `want` ticks over span.
static double nice_step(double span, int want) {
    double raw = span / want, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

// Decimals needed to print multiples of step distinctly.
static int step_decimals(double step) {
    int d = (int)ceil(-log10(step) - 1e-9);
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

typedef struct frame {
    double px, py, pw, ph; // plot area
    double x0, x1, y0, y1; // data range (log10 of x when logx)
    int logx;
} frame;

static double fx(const frame *f, double x) {
    double v = f->logx ? log10(x) : x;
    return f->px + (v - f->x0) / (f->x1 - f->x0) * f->pw;
}
static double fy(const frame *f, double y) {
    return f->py + f->ph - (y - f->y0) / (f->y1 - f->y0) * f->ph;
}

static int usable(const frame *f, double x, double y) {
    return isfinite(x) && isfinite(y) && (!f->logx || x > 0);
}

static void widen(double *lo, double *hi) {
    if (*hi > *lo) return;
    double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 0.5;
    *lo -= d;
    *hi += d;
}

// A grid line (light) and its tick mark (dark), each from (x1, y1) to (x2, y2).
static void grid_tick(ordo_strbuf *s, double gx1, double gy1, double gx2, double gy2, double tx1,
                      double ty1, double tx2, double ty2) {
    ordo_strbuf_printf(
        s,
        "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e5e5e5\"/>\n"
        "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n",
        gx1, gy1, gx2, gy2, tx1, ty1, tx2, ty2);
}

static void draw_axes(ordo_strbuf *s, const frame *f, const ordo_axes *a) {
    ordo_strbuf_printf(s, "<g class=\"axes\">\n");
    // y ticks and horizontal grid
    double step = nice_step(f->y1 - f->y0, 5);
    int dec = step_decimals(step);
    for (double t = ceil(f->y0 / step - 1e-9) * step; t <= f->y1 + step * 1e-9; t += step) {
        double y = fy(f, t);
        grid_tick(s, f->px, y, f->px + f->pw, y, f->px - 4, y, f->px, y);
        ordo_svg_text(s, f->px - 6, y + 4, "end", FONT - 1, "", "%.*f", dec,
                      fabs(t) < step * 1e-9 ? 0.0 : t);
    }
    // x ticks: powers of 2 (or 10) on a log axis, nice steps otherwise
    if (f->logx) {
        double base = (f->x1 - f->x0) > log10(8192.0) ? 10 : 2;
        double lb = log10(base);
        for (double k = ceil(f->x0 / lb - 1e-9); k * lb <= f->x1 + 1e-9; k++) {
            double v = pow(base, k), x = fx(f, v);
            grid_tick(s, x, f->py, x, f->py + f->ph, x, f->py + f->ph, x, f->py + f->ph + 4);
            ordo_svg_text(s, x, f->py + f->ph + 17, "middle", FONT - 1, "", "%g", v);
        }
    } else {
        double xs = nice_step(f->x1 - f->x0, 6);
        int xd = step_decimals(xs);
        for (double t = ceil(f->x0 / xs - 1e-9) * xs; t <= f->x1 + xs * 1e-9; t += xs) {
            double x = fx(f, t);
            grid_tick(s, x, f->py, x, f->py + f->ph, x, f->py + f->ph, x, f->py + f->ph + 4);
            ordo_svg_text(s, x, f->py + f->ph + 17, "middle", FONT - 1, "", "%.*f", xd,
                          fabs(t) < xs * 1e-9 ? 0.0 : t);
        }
    }
    ordo_strbuf_printf(s,
                       "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                       "stroke=\"#333\"/>\n",
                       f->px, f->py, f->pw, f->ph);
    if (a->title)
        ordo_svg_text(s, f->px + f->pw / 2, a->y + 18, "middle", FONT + 2, "font-weight=\"bold\"",
                      "%s", a->title);
    if (a->xlabel)
        ordo_svg_text(s, f->px + f->pw / 2, f->py + f->ph + 36, "middle", FONT, "", "%s",
                      a->xlabel);
    if (a->ylabel) {
        double x = a->x + 14, y = f->py + f->ph / 2;
        char rot[96];
        snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.2f %.2f)\"", x, y);
        ordo_svg_text(s, x, y, "middle", FONT, rot, "%s", a->ylabel);
    }
    if (a->xmark > 0) {
        double x = fx(f, a->xmark);
        if (x >= f->px && x <= f->px + f->pw) {
            ordo_strbuf_printf(s,
                               "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                               "stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n",
                               x, f->py, x, f->py + f->ph);
            // right of the line, unless it would run past the plot area into the legend
            // (about 0.6 em a character): then left of it
            double tw = 0.6 * (FONT - 2) * (double)(a->xmark_label ? strlen(a->xmark_label) : 0);
            int left = x + 4 + tw > f->px + f->pw && x - 4 - tw >= f->px;
            if (a->xmark_label)
                ordo_svg_text(s, left ? x - 4 : x + 4, f->py + 12, left ? "end" : "start", FONT - 2,
                              "fill=\"#666\" class=\"xmark\"", "%s", a->xmark_label);
        }
    }
    ordo_strbuf_printf(s, "</g>\n");
}

void ordo_svg_lineplot(ordo_strbuf *s, const ordo_axes *a, const ordo_series *ser, int n) {
    frame f = {.px = a->x + 62, .py = a->y + 30, .logx = a->logx};
    f.pw = a->w - 62 - 12 - a->legend_w;
    f.ph = a->h - 30 - 46;
    int any = 0;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ser[i].n; k++) {
            if (!usable(&f, ser[i].x[k], ser[i].y[k])) continue;
            double x = a->logx ? log10(ser[i].x[k]) : ser[i].x[k];
            xlo = fmin(xlo, x), xhi = fmax(xhi, x);
            ylo = fmin(ylo, ser[i].y[k]), yhi = fmax(yhi, ser[i].y[k]);
            any = 1;
        }
    if (!any) xlo = ylo = 0, xhi = yhi = 1;
    if (a->yzero) ylo = fmin(ylo, 0), yhi = fmax(yhi, 0);
    widen(&xlo, &xhi);
    widen(&ylo, &yhi);
    double yp = (yhi - ylo) * 0.05, xp = a->logx ? (xhi - xlo) * 0.04 : 0;
    f.x0 = xlo - xp, f.x1 = xhi + xp, f.y0 = ylo - yp, f.y1 = yhi + yp;
    draw_axes(s, &f, a);
    if (a->yzero)
        ordo_strbuf_printf(s,
                           "<line class=\"zero\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                           "y2=\"%.2f\" stroke=\"#333\"/>\n",
                           f.px, fy(&f, 0), f.px + f.pw, fy(&f, 0));
    if (!any)
        ordo_svg_text(s, f.px + f.pw / 2, f.py + f.ph / 2, "middle", FONT, "fill=\"#888\"",
                      "no data");

    for (int i = 0; i < n; i++) {
        const ordo_series *e = &ser[i];
        double op = e->opacity > 0 ? e->opacity : 1;
        ordo_strbuf_printf(s, "<g class=\"");
        ordo_svg_escape(s, e->cls ? e->cls : "series");
        ordo_strbuf_printf(s, "\"");
        if (e->label) {
            ordo_strbuf_printf(s, " data-label=\"");
            ordo_svg_escape(s, e->label);
            ordo_strbuf_printf(s, "\"");
        }
        ordo_strbuf_printf(s,
                           " stroke=\"%s\" fill=\"none\" stroke-width=\"%.2f\" opacity=\"%.2f\" "
                           "stroke-linejoin=\"round\"",
                           e->color, e->width, op);
        if (e->dash) ordo_strbuf_printf(s, " stroke-dasharray=\"%s\"", e->dash);
        ordo_strbuf_printf(s, ">\n");
        // one polyline per run of usable points; a gap where a point is missing
        int open = 0;
        for (int k = 0; k < e->n; k++) {
            if (!usable(&f, e->x[k], e->y[k])) {
                if (open) ordo_strbuf_printf(s, "\"/>\n");
                open = 0;
                continue;
            }
            if (!open) ordo_strbuf_printf(s, "<polyline points=\"");
            ordo_strbuf_printf(s, "%s%.2f,%.2f", open ? " " : "", fx(&f, e->x[k]), fy(&f, e->y[k]));
            open = 1;
        }
        if (open) ordo_strbuf_printf(s, "\"/>\n");
        int last = -1;
        for (int k = 0; k < e->n; k++)
            if (usable(&f, e->x[k], e->y[k])) last = k;
        if (e->end_label && e->label && last >= 0)
            ordo_svg_text(s, fx(&f, e->x[last]) - 2, fy(&f, e->y[last]) - 4, "end", FONT - 2,
                          "stroke=\"none\" fill=\"#444\" class=\"level\"", "%s", e->label);
        if (e->markers)
            for (int k = 0; k < e->n; k++)
                if (usable(&f, e->x[k], e->y[k]))
                    ordo_strbuf_printf(s,
                                       "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\" fill=\"%s\"/>\n",
                                       fx(&f, e->x[k]), fy(&f, e->y[k]), e->color);
        ordo_strbuf_printf(s, "</g>\n");
    }

    if (a->legend_w <= 0) return;
    double lx = f.px + f.pw + 14, ly = f.py + 8;
    ordo_strbuf_printf(s, "<g class=\"legend\">\n");
    for (int i = 0; i < n; i++) {
        if (!ser[i].label || ser[i].nolegend) continue;
        ordo_strbuf_printf(s,
                           "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                           "stroke-width=\"%.2f\"",
                           lx, ly, lx + 20, ly, ser[i].color, fmin(fmax(ser[i].width, 1.5), 4));
        if (ser[i].dash) ordo_strbuf_printf(s, " stroke-dasharray=\"%s\"", ser[i].dash);
        ordo_strbuf_printf(s, "/>\n");
        ordo_svg_text(s, lx + 26, ly + 4, "start", FONT - 1, "", "%s", ser[i].label);
        ly += 17;
    }
    ordo_strbuf_printf(s, "</g>\n");
}

// ---------------------------------------------------------------------------------------
// colours and heatmaps

typedef struct stop {
    double t;
    int r, g, b;
} stop;

static const stop viridis[] = {{0.00, 0x44, 0x01, 0x54},
                               {0.25, 0x3b, 0x52, 0x8b},
                               {0.50, 0x21, 0x91, 0x8c},
                               {0.75, 0x5e, 0xc9, 0x62},
                               {1.00, 0xfd, 0xe7, 0x25}};
static const stop rdbu[] = {{0.00, 0x21, 0x66, 0xac},
                            {0.25, 0x92, 0xc5, 0xde},
                            {0.50, 0xf7, 0xf7, 0xf7},
                            {0.75, 0xf4, 0xa5, 0x82},
                            {1.00, 0xb2, 0x18, 0x2b}};

void ordo_svg_color(char out[8], double v, double vmin, double vmax, int diverging) {
    const stop *m = diverging ? rdbu : viridis;
    double t = vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.5;
    if (!(t >= 0)) t = 0; // also NaN
    if (t > 1) t = 1;
    int k = 0;
    while (k < 3 && t > m[k + 1].t) k++;
    double u = (t - m[k].t) / (m[k + 1].t - m[k].t);
    int r = (int)lround(m[k].r + u * (m[k + 1].r - m[k].r));
    int g = (int)lround(m[k].g + u * (m[k + 1].g - m[k].g));
    int b = (int)lround(m[k].b + u * (m[k + 1].b - m[k].b));
    snprintf(out, 8, "#%02x%02x%02x", r, g, b);
}

int ordo_scheme_rank(const char *pos) {
    int v = ordo_names_find(&ordo_pos_names, pos);
    if (v < 0) return ordo_pos_names.count;
    return v == ORDO_POS_NONE ? ordo_pos_names.count - 1 : v - 1;
}

const char *ordo_svg_scheme_color(const char *pos, int index) {
    // matplotlib's tab10 in rank order; none is grey, so that the baseline reads as one
    static const char *colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"};
    static const char *extra[] = {"#8c564b", "#e377c2", "#bcbd22", "#17becf"};
    int r = ordo_scheme_rank(pos);
    if (r == ordo_pos_names.count - 1) return "#7f7f7f";
    if (r < 5) return colors[r];
    return extra[(r < ordo_pos_names.count ? r - 5 : index < 0 ? -index : index) % 4];
}

void ordo_svg_row_styles(const char *const *key, int n, const char **color, const char **dash) {
    // Okabe and Ito's colour-blind-safe set without its yellow (too pale on white), then
    // three of Paul Tol's muted ones; grey, the baseline's, last
    static const char *const palette[] = {"#0072b2", "#e69f00", "#009e73", "#d55e00",
                                          "#cc79a7", "#56b4e9", "#882255", "#999933",
                                          "#332288", "#000000", "#7f7f7f"};
    // none of them the n-gram levels' dashes ("2 3", "6 4", "10 3 2 3"), drawn in grey
    static const char *const dashes[] = {NULL,  "8 3",          "1.5 3",    "12 3 3 3",
                                         "4 4", "14 4 2 4 2 4", "3 2 10 2", "16 6"};
    enum { NC = sizeof palette / sizeof *palette, ND = sizeof dashes / sizeof *dashes };
    _Static_assert(NC * ND == ORDO_SVG_NSTYLES, "ORDO_SVG_NSTYLES counts the styles");
    unsigned char used[NC][ND] = {{0}};
    int *colour_of = ordo_xmalloc((size_t)(n ? n : 1) * sizeof *colour_of), next = 0;
    for (int i = 0; i < n; i++) {
        int c = -1;
        for (int j = 0; j < i && c < 0; j++)
            if (strcmp(key[j], key[i]) == 0) c = colour_of[j];
        if (c < 0) c = strcmp(key[i], "none") == 0 ? NC - 1 : next++ % (NC - 1);
        colour_of[i] = c;
        int cc = c, d = -1;
        for (int k = 0; k < NC && d < 0; k++) {
            cc = (c + k) % NC;
            for (int j = 0; j < ND && d < 0; j++)
                if (!used[cc][j]) d = j;
        }
        if (d < 0) cc = c, d = i % ND; // every style taken: reuse
        used[cc][d] = 1;
        color[i] = palette[cc];
        dash[i] = dashes[d];
    }
    free(colour_of);
}

// Index ticks over 0..n-1: about five of them at nice integer steps.
static int index_step(int n) {
    int st = (int)nice_step(n > 1 ? n : 2, 5);
    return st < 1 ? 1 : st;
}

// Means of fr x fc blocks of v (rows, cols), NaN where a block has no number. (R, Cc) out.
static float *block_means(const float *v, int rows, int cols, int fr, int fc, int *R, int *Cc) {
    *R = (rows + fr - 1) / fr, *Cc = (cols + fc - 1) / fc;
    float *out = ordo_xmalloc((size_t)*R * *Cc * sizeof(float));
    for (int br = 0; br < *R; br++)
        for (int bc = 0; bc < *Cc; bc++) {
            double sum = 0;
            int n = 0;
            for (int r = br * fr; r < rows && r < (br + 1) * fr; r++)
                for (int c = bc * fc; c < cols && c < (bc + 1) * fc; c++) {
                    float u = v[(size_t)r * cols + c];
                    if (!isnan(u)) sum += u, n++;
                }
            out[(size_t)br * *Cc + bc] = n ? (float)(sum / n) : NAN;
        }
    return out;
}

void ordo_svg_heatmap(ordo_strbuf *s, const ordo_heatmap *hm, double x, double y, double w,
                      double h) {
    double px = x + 44, py = y + 24, pw = w - 44 - 6, ph = h - 24 - 36;
    // a drawn cell covers fr x fc matrix entries when the matrix is bigger than max_cells
    int maxc = hm->max_cells > 0 ? hm->max_cells : 128;
    int fr = (hm->rows + maxc - 1) / maxc, fc = (hm->cols + maxc - 1) / maxc;
    double ch0 = ph / hm->rows, cw0 = pw / hm->cols; // px per matrix entry
    int rows = hm->rows, cols = hm->cols;
    const float *v = hm->v;
    float *blocks = NULL;
    if (fr > 1 || fc > 1) v = blocks = block_means(hm->v, hm->rows, hm->cols, fr, fc, &rows, &cols);
    double cw = cw0 * fc, ch = ch0 * fr;
    ordo_strbuf_printf(s, "<g class=\"heatmap\">\n");
    if (hm->title)
        ordo_svg_text(s, px + pw / 2, y + 16, "middle", FONT, "font-weight=\"bold\"", "%s",
                      hm->title);
    ordo_strbuf_printf(
        s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#dddddd\"/>\n", px,
        py, pw, ph);
    ordo_strbuf_printf(s, "<g shape-rendering=\"crispEdges\">\n");
    // a run of equal colours in a row is one rect: smaller files for flat regions
    for (int r = 0; r < rows; r++) {
        int c = 0;
        while (c < cols) {
            float u = v[(size_t)r * cols + c];
            if (isnan(u)) {
                c++;
                continue;
            }
            char col[8], nxt[8];
            ordo_svg_color(col, u, hm->vmin, hm->vmax, hm->diverging);
            int e = c + 1;
            while (e < cols) {
                float t = v[(size_t)r * cols + e];
                if (isnan(t)) break;
                ordo_svg_color(nxt, t, hm->vmin, hm->vmax, hm->diverging);
                if (strcmp(nxt, col) != 0) break;
                e++;
            }
            // cells overlap their neighbour by a hair so no background line shows between
            // them; the last block of a row or column may be partial
            ordo_strbuf_printf(
                s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                px + c * cw, py + r * ch, fmin(e * cw, pw) - c * cw + 0.3,
                fmin((r + 1) * ch, ph) - r * ch + 0.3, col);
            c = e;
        }
    }
    ordo_strbuf_printf(s,
                       "</g>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                       "fill=\"none\" stroke=\"#333\"/>\n",
                       px, py, pw, ph);
    int rs = index_step(hm->rows), cs = index_step(hm->cols);
    for (int r = 0; r < hm->rows; r += rs)
        ordo_svg_text(s, px - 3, py + (r + 0.5) * ch0 + 3.5, "end", FONT - 2, "", "%d", r);
    for (int c = 0; c < hm->cols; c += cs)
        ordo_svg_text(s, px + (c + 0.5) * cw0, py + ph + 12, "middle", FONT - 2, "", "%d", c);
    if (hm->xlabel)
        ordo_svg_text(s, px + pw / 2, py + ph + 27, "middle", FONT - 1, "", "%s", hm->xlabel);
    if (hm->ylabel) {
        double lx = x + 10, ly = py + ph / 2;
        char rot[96];
        snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.2f %.2f)\"", lx, ly);
        ordo_svg_text(s, lx, ly, "middle", FONT - 1, rot, "%s", hm->ylabel);
    }
    if (blocks)
        ordo_svg_text(s, px + pw, py + ph + 27, "end", FONT - 3, "fill=\"#666\"",
                      "cells: means of %dx%d", fr, fc);
    free(blocks);
    ordo_strbuf_printf(s, "</g>\n");
}

void ordo_svg_colorbar(ordo_strbuf *s, double x, double y, double w, double h, double vmin,
                       double vmax, int diverging, const char *label) {
    const int steps = 64;
    ordo_strbuf_printf(s, "<g class=\"colorbar\">\n<g shape-rendering=\"crispEdges\">\n");
    for (int i = 0; i < steps; i++) {
        char col[8];
        // top of the bar is vmax
        double v = vmax - (vmax - vmin) * (i + 0.5) / steps;
        ordo_svg_color(col, v, vmin, vmax, diverging);
        ordo_strbuf_printf(
            s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x,
            y + h * i / steps, w, h / steps + 0.3, col);
    }
    ordo_strbuf_printf(s,
                       "</g>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                       "fill=\"none\" stroke=\"#333\"/>\n",
                       x, y, w, h);
    double ticks[3] = {vmax, (vmin + vmax) / 2, vmin};
    for (int i = 0; i < 3; i++) {
        double ty = y + h * i / 2.0;
        ordo_strbuf_printf(
            s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n", x + w,
            ty, x + w + 4, ty);
        ordo_svg_text(s, x + w + 6, ty + 4, "start", FONT - 2, "", "%.3g",
                      fabs(ticks[i]) < 1e-12 ? 0.0 : ticks[i]);
    }
    if (label) ordo_svg_text(s, x - 6, y - 8, "start", FONT - 1, "", "%s", label);
    ordo_strbuf_printf(s, "</g>\n");
}

void ordo_svg_accuracy_grid(ordo_strbuf *s, const char *title, const int *lengths, int nl,
                            const double *cols, int nc, const char *xlabel, const char *barlabel,
                            const double *acc) {
    double cw = 64, chh = 30, px = 80, py = 40; // cell size, plot origin
    double w = px + nc * cw + 90, h = py + nl * chh + 50;
    // a title wider than the grid (a long row label over flipflop's three columns) moves right
    // and widens the picture rather than running off its edges (bold 12 px: ~7 px a character)
    double tw = 7.0 * (double)strlen(title), tx = px + nc * cw / 2;
    if (tx - tw / 2 < 10) tx = tw / 2 + 10;
    if (tx + tw / 2 + 10 > w) w = tx + tw / 2 + 10;
    ordo_svg_open(s, w, h, title);
    ordo_svg_text(s, tx, 22, "middle", FONT, "font-weight=\"bold\"", "%s", title);
    for (int i = 0; i < nl; i++) {
        ordo_svg_text(s, px - 6, py + (i + 0.5) * chh + 4, "end", FONT - 1, "", "%d", lengths[i]);
        for (int j = 0; j < nc; j++) {
            double v = acc[(size_t)i * nc + j], x = px + j * cw, y = py + i * chh;
            char col[8] = "#dddddd";
            if (isfinite(v)) ordo_svg_color(col, v, 0, 1, 0);
            ordo_strbuf_printf(s,
                               "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                               "fill=\"%s\" stroke=\"#ffffff\"/>\n",
                               x, y, cw, chh, col);
            // dark text on the light (high) end of viridis, light text on the dark end
            const char *ink = isfinite(v) && v > 0.6 ? "#000000" : "#ffffff";
            char attr[32];
            snprintf(attr, sizeof attr, "fill=\"%s\"", isfinite(v) ? ink : "#666666");
            if (isfinite(v))
                ordo_svg_text(s, x + cw / 2, y + chh / 2 + 4, "middle", FONT - 1, attr, "%.2f", v);
            else
                ordo_svg_text(s, x + cw / 2, y + chh / 2 + 4, "middle", FONT - 1, attr, "n/a");
        }
    }
    for (int j = 0; j < nc; j++)
        ordo_svg_text(s, px + (j + 0.5) * cw, py + nl * chh + 14, "middle", FONT - 1, "", "%g",
                      cols[j]);
    ordo_svg_text(s, px + nc * cw / 2, py + nl * chh + 32, "middle", FONT - 1, "", "%s", xlabel);
    ordo_svg_text(s, px - 6, py - 6, "end", FONT - 1, "", "length");
    ordo_svg_colorbar(s, px + nc * cw + 20, py, 14, nl * chh, 0, 1, 0, barlabel);
    ordo_svg_close(s);
}
