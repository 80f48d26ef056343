// The Markdown table of `ordo compare` (the terminal, and compare.md above its notes): which
// columns it has, their cells and the footnotes of its marks. By default a compact table that
// fits ORDO_CMP_TABLE_WIDTH columns (the scheme, seeds, variant, the settings a row differs
// in, the loss at each length, the unigram flag), columns padded so that a terminal lines
// them up; --columns picks the columns, --wide gives all of them in the long form (windows in
// the headers, "± -" for one seed). compare.csv keeps every column whatever the table shows.
// It reads a built ordo_cmp; the wording of cells and notes is compare_text.c's.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/compare.h"
#include "sys/fileio.h"
#include "sys/strbuf.h"

typedef enum col_id {
    COL_SCHEME,
    COL_SEEDS,
    COL_PARAMS,
    COL_EMBED,
    COL_DIFFERS,
    COL_VARIANT,
    COL_TRAIN,
    COL_VAL,
    COL_PPL,
    COL_UNIGRAM,
    COL_NGRAM,
    COL_TPS,
    COL_TIME,
    COL_X1, // the length columns: ordo_cmp.mults[id - COL_X1] times the training length
    COL_ORDER = COL_X1 + ORDO_CMP_MAXMULT,
    COL_N
} col_id;

// --columns names, in the order of col_id (docs/experiments.md lists them); the length
// columns are "Nx", any multiple of the training length
static const char *const col_names[COL_X1] = {"scheme",  "seeds", "params", "embedding", "differs",
                                              "variant", "train", "val",    "ppl",       "unigram",
                                              "ngram",   "tps",   "time"};

// The --columns name of column id ("8x" for a length), into buf[16].
static const char *col_name(const ordo_cmp *c, col_id id, char buf[16]) {
    if (id == COL_ORDER) return "order";
    if (id < COL_X1) return col_names[id];
    snprintf(buf, 16, "%dx", c->mults[id - COL_X1]);
    return buf;
}

// The ordo_cmp cell behind a numeric column (-1: not one).
static int cell_index(col_id id) {
    switch (id) {
    case COL_TRAIN:
        return ORDO_CMP_TRAIN;
    case COL_VAL:
        return ORDO_CMP_VAL;
    case COL_PPL:
        return ORDO_CMP_PPL;
    case COL_TPS:
        return ORDO_CMP_TPS;
    case COL_TIME:
        return ORDO_CMP_WALL;
    case COL_ORDER:
        return ORDO_CMP_ORDER;
    default:
        return id >= COL_X1 && id < COL_ORDER ? (int)ORDO_CMP_X1 + (int)id - (int)COL_X1 : -1;
    }
}

// The column a --columns name names (a length: c's column of that multiple, which the
// comparison adds when no record holds it), -1 when none; c NULL: only whether it is a name.
static int col_by_name(const ordo_cmp *c, const char *name, size_t len) {
    for (int i = 0; i < COL_X1; i++)
        if (strlen(col_names[i]) == len && strncmp(col_names[i], name, len) == 0) return i;
    if (len == 5 && strncmp(name, "order", 5) == 0) return COL_ORDER;
    int mult = ordo_cmp_mult_name(name, len);
    if (!mult) return -1;
    if (!c) return COL_X1;
    for (int m = 0; m < c->nmult; m++)
        if (c->mults[m] == mult) return COL_X1 + m;
    return -1; // past the most length columns a table has
}

ordo_status ordo_cmp_columns_check(const char *list) {
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (col_by_name(NULL, p, len) < 0) {
            ordo_strbuf valid;
            ordo_strbuf_init(&valid);
            for (int i = 0; i < COL_X1; i++)
                ordo_strbuf_printf(&valid, "%s%s", i ? "," : "", col_names[i]);
            ordo_strbuf_puts(&valid, ",Nx (the loss at N times the training length: 1x, 8x, "
                                     "32x, ...),order");
            ordo_status s =
                ordo_error(ORDO_ERR_ARG, "--columns: unknown column '%.*s'; the columns are %s",
                           (int)len, p, valid.buf);
            ordo_strbuf_free(&valid);
            return s;
        }
        p += len;
        if (!*p) return ORDO_OK;
    }
}

// ---------------------------------------------------------------------------------------
// which columns

typedef struct table {
    col_id col[COL_N + 1];
    int ncol;
    int wide;              // the long form of headers and cells
    col_id dropped[COL_N]; // default columns left out to fit the width
    int ndropped;
} table;

static int has_col(const table *t, col_id id) {
    for (int i = 0; i < t->ncol; i++)
        if (t->col[i] == id) return 1;
    return 0;
}

static void add_col(table *t, col_id id) {
    if (!has_col(t, id)) t->col[t->ncol++] = id;
}

static int any_eval(const ordo_cmp *c) {
    for (int i = 0; i < c->nruns; i++)
        if (c->runs[i].has_eval) return 1;
    return 0;
}

static int any_variant(const ordo_cmp *c) {
    for (int i = 0; i < c->ngroups; i++)
        if (c->groups[i].variant) return 1;
    return 0;
}

static void wide_cols(const ordo_cmp *c, table *t) {
    t->wide = 1;
    col_id first[] = {COL_SCHEME, COL_SEEDS, COL_PARAMS, COL_EMBED};
    for (size_t i = 0; i < sizeof first / sizeof *first; i++) add_col(t, first[i]);
    if (c->differs[0]) add_col(t, COL_DIFFERS);
    if (any_variant(c)) add_col(t, COL_VARIANT);
    for (int id = COL_TRAIN; id < COL_N; id++)
        if ((id != COL_ORDER || c->has_order) && (id != COL_NGRAM || c->has_ngram) &&
            (id < COL_X1 || id >= COL_ORDER || id - COL_X1 < c->nmult))
            add_col(t, (col_id)id);
}

static void listed_cols(const ordo_cmp *c, table *t) {
    add_col(t, COL_SCHEME); // what names the row comes first, always
    for (const char *p = c->view.columns;; p++) {
        size_t len = strcspn(p, ",");
        int id = col_by_name(c, p, len); // checked by ordo_cmp_columns_check
        if (id >= 0) add_col(t, (col_id)id);
        p += len;
        if (!*p) break;
    }
}

static void default_cols(const ordo_cmp *c, table *t) {
    add_col(t, COL_SCHEME);
    add_col(t, COL_SEEDS);
    if (ordo_cmp_variant_shown(c)) add_col(t, COL_VARIANT);
    if (c->differs[0]) add_col(t, COL_DIFFERS);
    if (!any_eval(c)) add_col(t, COL_VAL); // without eval.json, the loss training measured
    for (int m = 0; m < c->nmult && any_eval(c); m++) add_col(t, (col_id)(COL_X1 + m));
    if (c->has_order) add_col(t, COL_ORDER);
    add_col(t, COL_UNIGRAM);
    if (c->has_ngram) add_col(t, COL_NGRAM);
}

// ---------------------------------------------------------------------------------------
// cells

// Columns printed flush right: the numbers.
static int right_aligned(col_id id) {
    return id == COL_SEEDS || id == COL_PARAMS || id == COL_NGRAM || cell_index(id) >= 0;
}

static void header_text(const ordo_cmp *c, const table *t, col_id id, char *buf, size_t cap) {
    int k = cell_index(id);
    if (k >= ORDO_CMP_X1 && !t->wide) { // the windows go to the line under the table
        int mult = k == ORDO_CMP_ORDER ? 1 : c->mults[k - ORDO_CMP_X1];
        const char *what = k == ORDO_CMP_ORDER ? "order-dep." : c->exact ? "exact" : "loss";
        if (c->context > 0 && k != ORDO_CMP_ORDER) // (1x: the first loss column's T)
            snprintf(buf, cap, "%s@%dx T=%lld", what, mult, mult * c->context);
        else
            snprintf(buf, cap, "%s@%dx", what, mult);
        return;
    }
    if (k >= 0) {
        ordo_cmp_header(c, k, buf, cap);
        return;
    }
    switch (id) {
    case COL_SCHEME:
        snprintf(buf, cap, "scheme");
        return;
    case COL_SEEDS:
        snprintf(buf, cap, "seeds");
        return;
    case COL_PARAMS:
        snprintf(buf, cap, "params");
        return;
    case COL_EMBED:
        snprintf(buf, cap, "embedding");
        return;
    case COL_DIFFERS:
        snprintf(buf, cap, "differs in");
        return;
    case COL_VARIANT:
        snprintf(buf, cap, "variant");
        return;
    case COL_UNIGRAM:
        snprintf(buf, cap, "%s", t->wide ? "vs unigram level" : "vs unigram");
        return;
    case COL_NGRAM:
        snprintf(buf, cap, "%s", t->wide ? "vs best n-gram" : "vs n-gram");
        return;
    default:
        snprintf(buf, cap, "?");
        return;
    }
}

// A number cell in short: "1.0373±0.0009", one seed "1.0373", "inf", "n (k/n)" when only k
// runs have one.
static void compact_number(const ordo_cmp_cell *e, int k, char *buf, size_t cap) {
    int d = k == ORDO_CMP_TPS ? 0 : k == ORDO_CMP_WALL ? 2 : k == ORDO_CMP_PPL ? 3 : 4;
    int n = e->nonfinite && e->nonfinite < e->n
                ? snprintf(buf, cap, "inf (%d/%d not finite)", e->nonfinite, e->n)
            : e->nonfinite ? snprintf(buf, cap, "inf")
            : fabs(e->mean) >= 1e9
                ? (e->n > 1 ? snprintf(buf, cap, "%.4g\xc2\xb1%.2g", e->mean, e->sd)
                            : snprintf(buf, cap, "%.4g", e->mean))
            : e->n > 1 ? snprintf(buf, cap, "%.*f\xc2\xb1%.*f", d, e->mean, d, e->sd)
                       : snprintf(buf, cap, "%.*f", d, e->mean);
    if (e->n < e->of && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " (%d/%d)", e->n, e->of);
}

// Appends text to buf (cut to fit).
static void append(char *buf, size_t cap, const char *text) {
    size_t n = strlen(buf);
    if (n < cap) snprintf(buf + n, cap - n, "%s", text);
}

static void number_text(const ordo_cmp *c, const table *t, const ordo_cmp_group *g, int k,
                        char *buf, size_t cap) {
    const ordo_cmp_cell *e = &g->cell[k];
    if (e->n == 0 && e->note) { // the reason once, in the footnotes
        char sup[32];
        ordo_cmp_superscript(ordo_cmp_na_index(c, e->note), sup, sizeof sup);
        snprintf(buf, cap, "n/a%s", sup);
    } else if (e->n == 0) {
        snprintf(buf, cap, "-");
        return;
    } else if (t->wide) {
        ordo_cmp_cell_str(e, k, buf, cap); // with " ‡" when it rests on few windows
    } else {
        compact_number(e, k, buf, cap);
        if (ordo_cmp_few_windows(e)) append(buf, cap, "\xe2\x80\xa1"); // ‡
    }
    if (ordo_cmp_stale_col(g, k)) append(buf, cap, "\xe2\x80\xa0"); // †
}

static void unigram_text(const table *t, const ordo_cmp_group *g, char *buf, size_t cap) {
    if (t->wide || g->uni_n == 0)
        ordo_cmp_unigram_str(g, buf, cap);
    else if (g->uni_flagged == g->uni_n)
        snprintf(buf, cap, "no context");
    else if (g->uni_flagged)
        snprintf(buf, cap, "no context %d/%d", g->uni_flagged, g->uni_n);
    else
        snprintf(buf, cap, "%.3f below", g->uni_gap);
}

static void cell_text(const ordo_cmp *c, const table *t, const ordo_cmp_group *g, col_id id,
                      char *buf, size_t cap) {
    int k = cell_index(id);
    if (k >= 0) {
        number_text(c, t, g, k, buf, cap);
        return;
    }
    switch (id) {
    case COL_SCHEME:
        // the scheme alone when the differs column tells a scheme's rows apart; the label
        // (which also names the variant, for the plots' legends) without its variant when the
        // variant column names it
        if (has_col(t, COL_DIFFERS) || (has_col(t, COL_VARIANT) && !c->split)) {
            snprintf(buf, cap, "%s", g->scheme);
        } else if (has_col(t, COL_VARIANT)) {
            char d[256];
            ordo_cmp_differs_short(c, g, d, sizeof d);
            snprintf(buf, cap, d[0] ? "%s [%s]" : "%s", g->scheme, d);
        } else {
            snprintf(buf, cap, "%s", g->pos);
        }
        return;
    case COL_SEEDS:
        snprintf(buf, cap, "%d", g->n);
        return;
    case COL_PARAMS:
        if (g->params_min == g->params_max)
            snprintf(buf, cap, "%zu", g->params_min);
        else
            snprintf(buf, cap, "%zu-%zu", g->params_min, g->params_max);
        return;
    case COL_EMBED:
        snprintf(buf, cap, "%s", g->embed);
        return;
    case COL_DIFFERS:
        // short enough for the default table; in full in the notes
        ordo_cmp_differs_cell(c, g, buf, t->wide ? cap : 32);
        return;
    case COL_VARIANT:
        snprintf(buf, cap, "%s", g->variant ? g->variant : "-");
        return;
    case COL_UNIGRAM:
        unigram_text(t, g, buf, cap);
        return;
    case COL_NGRAM:
        ordo_cmp_ngram_str(g, t->wide, buf, cap);
        return;
    default:
        snprintf(buf, cap, "?");
        return;
    }
}

// ---------------------------------------------------------------------------------------
// layout

// Columns a UTF-8 string takes on a terminal (every character ordo prints is one column).
static int text_width(const char *s) {
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

// Markdown cells may not hold a '|'.
static char *md_escape(const char *s) {
    ordo_strbuf b;
    ordo_strbuf_init(&b);
    for (; *s; s++) {
        if (*s == '|') ordo_strbuf_puts(&b, "\\");
        ordo_strbuf_append(&b, s, 1);
    }
    return b.buf; // owned by the caller now
}

// The table's text, cell by cell: (rows + 1) x ncol strings, the header row first.
static char **table_cells(const ordo_cmp *c, const table *t) {
    char **cells = ordo_xcalloc((size_t)(c->ngroups + 1) * (size_t)t->ncol, sizeof *cells);
    char buf[1024];
    for (int j = 0; j < t->ncol; j++) {
        header_text(c, t, t->col[j], buf, sizeof buf);
        cells[j] = md_escape(buf);
    }
    for (int i = 0; i < c->ngroups; i++)
        for (int j = 0; j < t->ncol; j++) {
            cell_text(c, t, &c->groups[i], t->col[j], buf, sizeof buf);
            cells[(size_t)(i + 1) * (size_t)t->ncol + (size_t)j] = md_escape(buf);
        }
    return cells;
}

static void free_cells(char **cells, int n) {
    for (int i = 0; i < n; i++) free(cells[i]);
    free(cells);
}

// The widest line of t: "| a | b |" with every column padded to its widest cell.
static int table_width(const ordo_cmp *c, const table *t) {
    char **cells = table_cells(c, t);
    int total = 1;
    for (int j = 0; j < t->ncol; j++) {
        int w = 3; // a Markdown alignment row needs at least "---"
        for (int i = 0; i <= c->ngroups; i++) {
            int cw = text_width(cells[(size_t)i * (size_t)t->ncol + (size_t)j]);
            if (cw > w) w = cw;
        }
        total += w + 3;
    }
    free_cells(cells, (c->ngroups + 1) * t->ncol);
    return total;
}

static void remove_col(table *t, col_id id) {
    int k = 0;
    for (int i = 0; i < t->ncol; i++)
        if (t->col[i] != id) t->col[k++] = t->col[i];
    if (k < t->ncol) t->dropped[t->ndropped++] = id;
    t->ncol = k;
}

// The default table, narrowed to ORDO_CMP_TABLE_WIDTH: the order-dependent loss goes first
// (the loss at each length is what the table is for), then the middle lengths from the
// longest down (the first and the last frame the extrapolation), then the unigram flag, then
// the n-gram one (the stronger baseline, kept longest). What names a row (scheme, variant,
// differs) stays.
static void fit(const ordo_cmp *c, table *t) {
    col_id order[ORDO_CMP_MAXMULT + 3];
    int n = 0;
    order[n++] = COL_ORDER;
    for (int m = c->nmult - 2; m >= 1; m--) order[n++] = (col_id)(COL_X1 + m);
    order[n++] = COL_UNIGRAM;
    order[n++] = COL_NGRAM;
    for (int i = 0; i < n; i++) {
        if (table_width(c, t) <= ORDO_CMP_TABLE_WIDTH) return;
        if (has_col(t, order[i])) remove_col(t, order[i]);
    }
}

static void pad(ordo_strbuf *b, int n) {
    for (int i = 0; i < n; i++) ordo_strbuf_puts(b, " ");
}

static void render(const ordo_cmp *c, const table *t, ordo_strbuf *b) {
    char **cells = table_cells(c, t);
    int *w = ordo_xmalloc((size_t)t->ncol * sizeof *w);
    for (int j = 0; j < t->ncol; j++) {
        w[j] = 3;
        for (int i = 0; i <= c->ngroups; i++) {
            int cw = text_width(cells[(size_t)i * (size_t)t->ncol + (size_t)j]);
            if (cw > w[j]) w[j] = cw;
        }
    }
    for (int i = 0; i <= c->ngroups; i++) {
        ordo_strbuf_puts(b, "|");
        for (int j = 0; j < t->ncol; j++) {
            const char *s = cells[(size_t)i * (size_t)t->ncol + (size_t)j];
            int gap = w[j] - text_width(s), right = right_aligned(t->col[j]) && i > 0;
            ordo_strbuf_puts(b, " ");
            if (right) pad(b, gap);
            ordo_strbuf_puts(b, s);
            if (!right) pad(b, gap);
            ordo_strbuf_puts(b, " |");
        }
        ordo_strbuf_puts(b, "\n");
        if (i > 0) continue;
        ordo_strbuf_puts(b, "|");
        for (int j = 0; j < t->ncol; j++) {
            for (int k = 0; k < w[j] + 1; k++) ordo_strbuf_puts(b, "-");
            ordo_strbuf_puts(b, right_aligned(t->col[j]) ? ":|" : "-|");
        }
        ordo_strbuf_puts(b, "\n");
    }
    free(w);
    free_cells(cells, (c->ngroups + 1) * t->ncol);
}

// The lines under a compact table: what its short headers and cells leave out.
static void compact_notes(const ordo_cmp *c, const table *t, ordo_strbuf *b) {
    int lengths = 0;
    for (int j = 0; j < t->ncol; j++) {
        int k = cell_index(t->col[j]);
        if (k < ORDO_CMP_X1) continue;
        // "loss@2x (T=64, 312 windows)": the long header holds what the short one leaves out
        char h[128];
        ordo_cmp_header(c, k, h, sizeof h);
        ordo_strbuf_printf(b, "%s%s", lengths++ ? "; " : "at each length: ", h);
    }
    if (lengths) ordo_strbuf_puts(b, ".\n");
    ordo_strbuf_puts(b, "mean\xc2\xb1sd over the seeds of each row; one seed: its value.");
    if (has_col(t, COL_UNIGRAM)) {
        ordo_strbuf_puts(b, " vs unigram: the unigram level H");
        if (!isnan(c->unigram)) ordo_strbuf_printf(b, " (%.4f nats/token)", c->unigram);
        ordo_strbuf_printf(b,
                           " minus the loss at the training length; \"no context\": within "
                           "%g%% of H, learned no use of context.",
                           100 * ORDO_CMP_UNIGRAM_MARGIN);
    }
    if (has_col(t, COL_NGRAM))
        ordo_strbuf_puts(b, " vs n-gram: the lowest n-gram level (orders 1-6, the same targets) "
                            "minus the loss at the training length; positive: beats them all.");
    ordo_strbuf_puts(b, "\n");
}

// Appends text to b with its lines wrapped at spaces to `width` columns (a word longer than
// that stays whole), continuation lines indented by two: the footnotes read in a terminal.
static void wrapped(ordo_strbuf *b, const char *text, int width) {
    while (*text) {
        size_t end = strcspn(text, "\n");
        int indent = 0;
        for (size_t at = 0; at < end;) {
            // the longest run of words from `at` that fits
            size_t cut = end, last_space = 0;
            int w = indent;
            for (size_t k = at; k < end; k++) {
                if (text[k] == ' ' && k > at) last_space = k;
                w += ((unsigned char)text[k] & 0xc0) != 0x80;
                if (w > width && last_space) {
                    cut = last_space;
                    break;
                }
            }
            pad(b, indent);
            ordo_strbuf_append(b, text + at, cut - at);
            ordo_strbuf_puts(b, "\n");
            at = cut;
            while (at < end && text[at] == ' ') at++;
            indent = 2;
        }
        if (end == 0) ordo_strbuf_puts(b, "\n");
        text += end + (text[end] == '\n');
    }
}

void ordo_cmp_table(const ordo_cmp *c, ordo_strbuf *b) {
    table t = {0};
    if (c->view.wide)
        wide_cols(c, &t);
    else if (c->view.columns)
        listed_cols(c, &t);
    else {
        default_cols(c, &t);
        fit(c, &t);
    }
    render(c, &t, b);
    ordo_strbuf_puts(b, "\n"); // a blank line ends a Markdown table
    ordo_strbuf n;             // the footnotes, wrapped to the table's width
    ordo_strbuf_init(&n);
    if (!t.wide) compact_notes(c, &t, &n);
    if (has_col(&t, COL_DIFFERS))
        ordo_strbuf_puts(&n, "differs in: a row's settings where they are not those of most rows "
                             "(-: it has those); every row's in full in compare.md's notes.\n");
    ordo_cmp_mark_notes(c, 0, &n);
    if (has_col(&t, COL_NGRAM)) ordo_cmp_ngram_note(c, 0, &n);
    if (t.ndropped) {
        ordo_strbuf_printf(&n, "not shown, to fit %d columns:", ORDO_CMP_TABLE_WIDTH);
        for (int i = 0; i < t.ndropped; i++) {
            char name[16];
            ordo_strbuf_printf(&n, "%s %s", i ? "," : "", col_name(c, t.dropped[i], name));
        }
        ordo_strbuf_puts(&n, " (--columns LIST picks columns, --wide shows all).\n");
    }
    wrapped(b, n.buf, ORDO_CMP_TABLE_WIDTH);
    ordo_strbuf_free(&n);
}

// ---------------------------------------------------------------------------------------
// --reference

int ordo_cmp_reference_row(const ordo_cmp *c) {
    const char *ref = c->view.reference;
    if (!ref) return -1;
    for (int i = 0; i < c->ngroups; i++)
        if (strcmp(c->groups[i].pos, ref) == 0) return i;
    int found = -1, n = 0;
    for (int i = 0; i < c->ngroups; i++)
        if (strcmp(c->groups[i].scheme, ref) == 0) found = i, n++;
    return n == 1 ? found : -1;
}

ordo_status ordo_cmp_view_check(const ordo_cmp *c) {
    if (!c->view.reference || ordo_cmp_reference_row(c) >= 0) return ORDO_OK;
    ordo_strbuf rows;
    ordo_strbuf_init(&rows);
    for (int i = 0; i < c->ngroups; i++)
        ordo_strbuf_printf(&rows, "%s'%s'", i ? ", " : "", c->groups[i].pos);
    ordo_status s = ordo_error(ORDO_ERR_ARG,
                               "--reference %s names no single row; the rows are %s (a scheme "
                               "names its row when it has one)",
                               c->view.reference, rows.buf);
    ordo_strbuf_free(&rows);
    return s;
}
