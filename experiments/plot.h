// SVG drawing for the plots of `ordo compare` and `ordo viz`: XML escaping, line plots
// (linear or log-x axes, gaps at NaN, a legend) and heatmaps with a colour scale, all written
// into an ordo_strbuf (sys/strbuf.h), which also holds the HTML pages that inline them
// and saves them. Output is deterministic (fixed number formats, no timestamps, no ids), so
// that several SVGs can be inlined into one HTML page and files compare byte for byte.
#ifndef ORDO_PLOT_H
#define ORDO_PLOT_H
#include <stddef.h>

#include "sys/error.h"
#include "sys/strbuf.h"

// Appends text with & < > " ' escaped (and control characters other than tab and newline
// replaced by '?'), for element content and attribute values of SVG and XHTML alike.
void ordo_svg_escape(ordo_strbuf *s, const char *text);
// `<svg xmlns=... width height viewBox>` with a white background and a <title>; ordo_svg_close
// ends it.
void ordo_svg_open(ordo_strbuf *s, double w, double h, const char *title);
void ordo_svg_close(ordo_strbuf *s);
// A <text> at (x, y): anchor "start"|"middle"|"end", font size in px, extra attributes
// (markup, may be ""), and the printf-formatted text, escaped.
void ordo_svg_text(ordo_strbuf *s, double x, double y, const char *anchor, double size,
                   const char *attrs, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

// One line of a plot. Points with a non-finite y (or x <= 0 on a log axis) leave a gap.
typedef struct ordo_series {
    const double *x, *y;
    int n;
    const char *color; // "#1f77b4"
    double width;      // stroke width in px
    double opacity;    // 0 means 1
    const char *cls;   // class of the series' <g> (tests count them); NULL: "series"
    const char *label; // legend text and data-label attribute (NULL: neither)
    int nolegend;      // keep the data-label but leave the series out of the legend
    int markers;       // a dot at every point
    const char *dash;  // stroke-dasharray ("6 4"), in the legend too; NULL: solid
    int end_label;     // the label also written above the line's last point (a level line
                       // reads without a trip to the legend)
} ordo_series;

// A panel at (x, y) of size (w, h) in the SVG; the plot area leaves room for tick labels,
// the axis labels, the title and (legend_w > 0) a legend on the right.
typedef struct ordo_axes {
    double x, y, w, h;
    const char *title, *xlabel, *ylabel;
    int logx;        // log-scale x axis (ticks at powers of 2, or of 10 over wide ranges)
    double legend_w; // px kept right of the plot area for the legend (0: no legend)
    double xmark;    // a dashed vertical line at this x, labelled xmark_label (0: none)
    const char *xmark_label;
    int yzero; // a line at y = 0, inside the y range (a plot of differences)
} ordo_axes;

// Draws the axes, ticks, grid, labels, every series (one <g class=cls> each) and the legend.
// With no finite point at all, says so in the panel instead of drawing lines.
void ordo_svg_lineplot(ordo_strbuf *s, const ordo_axes *a, const ordo_series *ser, int n);

// A (rows, cols) matrix drawn as cells, row 0 at the top; NaN cells are left blank (grey).
typedef struct ordo_heatmap {
    const float *v; // row-major (rows, cols)
    int rows, cols;
    double vmin, vmax; // colour range (values outside are clamped)
    int diverging;     // blue-white-red centred at 0 (vmin = -vmax expected), else viridis
    const char *title, *xlabel, *ylabel;
    int max_cells; // at most this many cells per axis: bigger maps are drawn as block means
                   // (NaN cells ignored), ticks still in the original indices; 0 means 128
} ordo_heatmap;

// Draws the heatmap into the box (x, y, w, h) (title, tick labels and axis labels inside it).
void ordo_svg_heatmap(ordo_strbuf *s, const ordo_heatmap *hm, double x, double y, double w,
                      double h);
// A vertical colour bar in (x, y, w, h) with ticks at vmin, the middle and vmax, and a label.
void ordo_svg_colorbar(ordo_strbuf *s, double x, double y, double w, double h, double vmin,
                       double vmax, int diverging, const char *label);
// A whole SVG: an accuracy (0..1) as a grid, a row per length (lengths[nl]) and a column per
// value of cols[nc] (passkey's depths, mqar's pairs, ...; ticks "%g", the axis labelled
// xlabel), acc (nl, nc) row-major, each cell coloured and its value written in it (NaN: grey,
// "n/a"), with a colour bar labelled barlabel ("accuracy"): the picture the papers show.
void ordo_svg_accuracy_grid(ordo_strbuf *s, const char *title, const int *lengths, int nl,
                            const double *cols, int nc, const char *xlabel, const char *barlabel,
                            const double *acc);
// The colour of v in a map, as "#rrggbb" into out[8].
void ordo_svg_color(char out[8], double v, double vmin, double vmax, int diverging);
// Where a position scheme stands in tables and legends: the schemes in enum order with
// `none`, the baseline, last; an unknown name after all of them.
int ordo_scheme_rank(const char *pos);
// A fixed colour per position scheme name (same in every plot), else one by index.
const char *ordo_svg_scheme_color(const char *pos, int index);
// The line styles of n rows drawn together, so that no two rows share colour and dash: the
// rows of one key (key[i], the scheme; "none" is grey) share a colour, each distinct key in
// row order taking the next colour of a colour-blind-safe palette of 10, and each row takes
// the first dash pattern that no earlier row of its colour has (solid first); a colour out of
// patterns gives its row the next colour with one free. Only past ORDO_SVG_NSTYLES rows can
// two rows share a style. color[i] and dash[i] (NULL: solid) are static strings.
#define ORDO_SVG_NSTYLES 88 // 11 colours (the palette and grey) x 8 dash patterns
void ordo_svg_row_styles(const char *const *key, int n, const char **color, const char **dash);

#endif
