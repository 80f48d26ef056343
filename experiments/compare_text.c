// The comparison as text, shared by the tables (compare_table.c) and the report
// (compare_report.c): which keys define an experiment, the column headers, a cell's
// "mean ± sd", the unigram cell, the short summary of a row's differing settings, the marks
// (n/a¹, ‡, †) with their footnotes and the notes under the table. It reads a built ordo_cmp
// and calls neither file.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "experiments/compare.h"
#include "experiments/plot.h"
#include "sys/strbuf.h"
#include "run/config.h"

// The config keys that do not define the experiment: runs that differ only in these are
// seeds of one row. Everything else in config.json (lr, schedule, warmup, optimizer and its
// betas/eps, weight decay, clip, the embedding convention, model shape, context, tokenizer,
// val-frac, eval-batches, steps, batch, precision, init, and keys added later) must agree.
static const char *const ignored_keys[] = {
    "seed",       // what varies between the runs of a row
    "out",        // where the run was written
    "threads",    // how fast it ran, not what it computed
    "eval-every", // when the val loss was measured (and logged), not the training
    "log-every",  // ...
    "ckpt-every", // when checkpoints were written
    "keep",       // how many were kept
    "vocab",      // where the GPT-2 files were read from (--tokenizer says which)
    "attention",  // fused or materialized: how the scores were computed, the same model
    NULL};

// Keys that are not settings, or compared on their own.
static const char *const other_keys[] = {
    "backend", // the machine's BLAS/oneDNN record (config.json only)
    // the data: compared on their own (ordo_runinfo.data_id, the file's size and hash when
    // recorded); runs on different data are refused, and one file may have two paths
    "data", "task", ORDO_CONFIG_DATA_KEY,
    ORDO_CONFIG_UNIGRAM_KEY, // a fact about the val split, not a setting
    // the val file: compared by its size and hash (experiment_of), not by its path
    "val-data", ORDO_CONFIG_VAL_DATA_KEY,
    ORDO_CONFIG_PLAN_KEY, // the lr curve: its resume history is compared (experiment_of)
    // --init: the starting weights, compared by the file's SHA-256 (experiment_of), not path
    "init", ORDO_CONFIG_INIT_KEY, NULL};

int ordo_cmp_key_ignored(const char *key) {
    for (int i = 0; ignored_keys[i]; i++)
        if (strcmp(key, ignored_keys[i]) == 0) return 1;
    for (int i = 0; other_keys[i]; i++)
        if (strcmp(key, other_keys[i]) == 0) return 1;
    return 0;
}

int ordo_cmp_col_shown(const ordo_cmp *c, int col) {
    if (col >= ORDO_CMP_X1 && col < ORDO_CMP_ORDER) return col - ORDO_CMP_X1 < c->nmult;
    return col != ORDO_CMP_ORDER || c->has_order;
}

int ordo_cmp_mult_name(const char *name, size_t len) {
    // digits, then "x": at most 6 digits, a length no eval reaches past
    if (len < 2 || len > 7 || name[len - 1] != 'x' || name[0] == '0') return 0;
    int v = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (name[i] < '0' || name[i] > '9') return 0;
        v = 10 * v + (name[i] - '0');
    }
    return v;
}

// Adds v to the ascending distinct out[0..*n) (cap at most); 0 when it did not fit.
static int add_sorted(int *out, int *n, int cap, int v) {
    int i = 0;
    while (i < *n && out[i] < v) i++;
    if (i < *n && out[i] == v) return 1;
    if (*n == cap) return 0;
    memmove(out + i + 1, out + i, (size_t)(*n - i) * sizeof *out);
    out[i] = v;
    (*n)++;
    return 1;
}

int ordo_cmp_record_mults(const ordo_runinfo *r, int *out, int cap) {
    int n = 0, T = r->eval_train_context;
    if (!r->has_eval || T <= 0) return 0;
    for (int i = 0; i < r->neval; i++)
        if (r->eval[i].context % T == 0) add_sorted(out, &n, cap, r->eval[i].context / T);
    // passkey's lengths are the exact match columns' (ordo_cmp.exact); mqar's and flipflop's
    // grids are not in the table
    int passkey = r->acc_grid_task && strcmp(r->acc_grid_task, "passkey") == 0;
    for (int i = 0; passkey && i < r->nacc; i++)
        if (r->acc[i].n > 0 && r->acc[i].n % T == 0) add_sorted(out, &n, cap, r->acc[i].n / T);
    return n;
}

static int col_decimals(int col) {
    return col == ORDO_CMP_TPS ? 0 : col == ORDO_CMP_WALL ? 2 : col == ORDO_CMP_PPL ? 3 : 4;
}

// 1 if the cell has a value resting on fewer than ORDO_CMP_FEW_WINDOWS windows (marked ‡).
int ordo_cmp_few_windows(const ordo_cmp_cell *e) {
    return e->n > 0 && e->windows >= 0 && e->windows < ORDO_CMP_FEW_WINDOWS;
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
        k += snprintf(buf + k, cap - (size_t)k, " (%d of %d runs)", e->n, e->of);
    if (ordo_cmp_few_windows(e) && k > 0 && (size_t)k < cap)
        snprintf(buf + k, cap - (size_t)k, " \xe2\x80\xa1"); // ‡, see the notes
}

void ordo_cmp_unigram_str(const ordo_cmp_group *g, char *buf, size_t cap) {
    if (g->uni_n == 0)
        snprintf(buf, cap, "unknown");
    else if (g->uni_flagged == g->uni_n)
        snprintf(buf, cap, "learned no use of context");
    else if (g->uni_flagged)
        snprintf(buf, cap, "learned no use of context (%d of %d runs)", g->uni_flagged, g->uni_n);
    else
        snprintf(buf, cap, "%.4f below", g->uni_gap);
}

void ordo_cmp_ngram_str(const ordo_cmp_group *g, int wide, char *buf, size_t cap) {
    if (g->ng_n == 0) {
        snprintf(buf, cap, "-");
        return;
    }
    int k = snprintf(buf, cap, "%+.4f", g->ng_gap);
    if (wide && k > 0 && (size_t)k < cap)
        k += snprintf(buf + k, cap - (size_t)k, " (%d-gram)", g->ng_best_order);
    if (g->ng_n < g->n && k > 0 && (size_t)k < cap)
        k += snprintf(buf + k, cap - (size_t)k, wide ? " (%d of %d runs)" : " (%d/%d)", g->ng_n,
                      g->n);
    if (g->ng_flagged && k > 0 && (size_t)k < cap)
        snprintf(buf + k, cap - (size_t)k, "%s" ORDO_CMP_NGRAM_MARK, wide ? " " : "");
}

void ordo_cmp_ngram_note(const ordo_cmp *c, int html, ordo_strbuf *b) {
    if (!c->ngram_flagged) return;
    const char *p0 = html ? "<p class=\"note\">" : "", *p1 = html ? "</p>\n" : "\n";
    ordo_strbuf_printf(b,
                       "%s" ORDO_CMP_NGRAM_MARK " does not beat the %d-gram at the training "
                       "length (in some run of the row): the model uses no more of its context "
                       "than the last %d tokens would give.%s",
                       p0, ORDO_CMP_NGRAM_ORDER, ORDO_CMP_NGRAM_ORDER - 1, p1);
}

const ordo_eval_point *ordo_cmp_eval_at_mult(const ordo_runinfo *r, int mult) {
    return r->has_eval ? ordo_runinfo_eval_point(r, mult * r->eval_train_context) : NULL;
}

void ordo_cmp_header(const ordo_cmp *c, int col, char *buf, size_t cap) {
    // the train loss is one batch's (the last logged): noisy, and said so
    static const char *names[] = {"train loss (last batch)", "best val loss", "val ppl",
                                  "tokens/s"};
    if (col < ORDO_CMP_WALL) {
        snprintf(buf, cap, "%s", names[col]);
        return;
    }
    if (col == ORDO_CMP_WALL) {
        snprintf(buf, cap, "%s", c->wall_derived ? "train time (s)*" : "wall time (s)");
        return;
    }
    int mult = col == ORDO_CMP_ORDER ? 1 : c->mults[col - ORDO_CMP_X1];
    int k = col == ORDO_CMP_ORDER
                ? snprintf(buf, cap, "order-dep. loss@1x")
                : snprintf(buf, cap, "%s@%dx", c->exact ? "exact match" : "loss", mult);
    if (c->exact && col != ORDO_CMP_ORDER) { // the examples per cell are in eval's own table
        if (c->context > 0 && k > 0 && (size_t)k < cap)
            snprintf(buf + k, cap - (size_t)k, " (T=%lld)", mult * c->context);
        return;
    }
    // the windows per run that the values rest on, as a range over the runs
    long long wmin = -1, wmax = -1;
    for (int i = 0; i < c->nruns; i++) {
        const ordo_eval_point *p = ordo_cmp_eval_at_mult(&c->runs[i], mult);
        double v = !p ? NAN : col == ORDO_CMP_ORDER ? p->order_loss : p->val_loss;
        if (!p || isnan(v) || p->windows < 0) continue;
        if (wmin < 0 || p->windows < wmin) wmin = p->windows;
        if (p->windows > wmax) wmax = p->windows;
    }
    char w[64] = "";
    if (wmin >= 0 && wmin == wmax)
        snprintf(w, sizeof w, "%s%lld windows", c->context > 0 ? ", " : "", wmin);
    else if (wmin >= 0)
        snprintf(w, sizeof w, "%s%lld-%lld windows", c->context > 0 ? ", " : "", wmin, wmax);
    if (k < 0 || (size_t)k >= cap) return;
    if (c->context > 0)
        snprintf(buf + k, cap - (size_t)k, " (T=%lld%s)", mult * c->context, w);
    else if (w[0])
        snprintf(buf + k, cap - (size_t)k, " (%s)", w);
}

// Text into b, escaped for XHTML when html.
static void put(ordo_strbuf *b, int html, const char *s) {
    if (html)
        ordo_svg_escape(b, s);
    else
        ordo_strbuf_puts(b, s);
}

// ---------------------------------------------------------------------------------------
// the short summary of the settings a row differs in

// The value behind differing key `key` for run r: config.json's, or for the keys that
// compare.c's experiment_of makes up, the record they come from (NULL: absent).
static json_t *differing_value(const ordo_runinfo *r, const char *key) {
    if (strcmp(key, "resumed-with-other-steps") == 0) {
        json_t *h = json_object_get(json_object_get(r->config, ORDO_CONFIG_PLAN_KEY), "history");
        return json_array_size(h) ? h : NULL;
    }
    if (strcmp(key, "init-sha256") == 0)
        return json_object_get(json_object_get(r->config, ORDO_CONFIG_INIT_KEY), "sha256");
    if (strcmp(key, "val-data") == 0)
        return json_object_get(json_object_get(r->config, ORDO_CONFIG_VAL_DATA_KEY), "xxh3");
    return json_object_get(r->config, key);
}

// One differing key of a row in short, into b: "lr=0.003", "resumed 300->450", "init 1a2b3c4d".
static void differing_short(ordo_strbuf *b, const char *key, json_t *v) {
    if (strcmp(key, "resumed-with-other-steps") == 0) {
        // the --steps of the run as it was resumed: before, then after each resume
        if (!json_is_array(v)) {
            ordo_strbuf_puts(b, "not resumed");
            return;
        }
        ordo_strbuf_puts(b, "resumed ");
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *e = json_array_get(v, i);
            if (i == 0)
                ordo_strbuf_printf(
                    b, "%lld", (long long)json_integer_value(json_object_get(e, "steps_before")));
            ordo_strbuf_printf(b, "->%lld",
                               (long long)json_integer_value(json_object_get(e, "steps_after")));
        }
        return;
    }
    if (strcmp(key, "init-sha256") == 0 || strcmp(key, "val-data") == 0) {
        // a file by its hash's start: enough to tell the rows apart
        const char *h = json_string_value(v);
        ordo_strbuf_printf(b, "%s %.8s", key[0] == 'i' ? "init" : "val-data", h ? h : "none");
        return;
    }
    ordo_strbuf_printf(b, "%s=", key);
    if (!v || json_is_null(v))
        ordo_strbuf_puts(b, "unset");
    else if (json_is_integer(v))
        ordo_strbuf_printf(b, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        ordo_strbuf_printf(b, "%g", json_real_value(v));
    else if (json_is_string(v))
        ordo_strbuf_puts(b, json_string_value(v));
    else if (json_is_boolean(v))
        ordo_strbuf_puts(b, json_is_true(v) ? "true" : "false");
    else
        ordo_strbuf_puts(b, "(see the notes)"); // a JSON value: in full in the notes only
}

// Row g's value of differing key `key` in short (differing_short), into b.
static void key_short(const ordo_cmp *c, const ordo_cmp_group *g, const char *key, ordo_strbuf *b) {
    differing_short(b, key, differing_value(&c->runs[g->runs[0]], key));
}

// 1 if row g has the value of `key` that most rows have: more rows than any other value.
static int key_usual(const ordo_cmp *c, const ordo_cmp_group *g, const char *key) {
    ordo_strbuf mine, other;
    ordo_strbuf_init(&mine);
    key_short(c, g, key, &mine);
    int same = 0, most_else = 0;
    for (int i = 0; i < c->ngroups; i++) {
        ordo_strbuf_init(&other);
        key_short(c, &c->groups[i], key, &other);
        if (strcmp(other.buf, mine.buf) == 0) {
            same++;
        } else { // how many rows share this other value
            int n = 0;
            for (int j = 0; j < c->ngroups; j++) {
                ordo_strbuf v;
                ordo_strbuf_init(&v);
                key_short(c, &c->groups[j], key, &v);
                n += strcmp(v.buf, other.buf) == 0;
                ordo_strbuf_free(&v);
            }
            if (n > most_else) most_else = n;
        }
        ordo_strbuf_free(&other);
    }
    ordo_strbuf_free(&mine);
    return same > most_else;
}

void ordo_cmp_differs_short(const ordo_cmp *c, const ordo_cmp_group *g, char *buf, size_t cap) {
    if (cap == 0) return;
    buf[0] = 0;
    if (!c->differs || !c->differs[0] || g->n == 0) return;
    ordo_strbuf b;
    ordo_strbuf_init(&b);
    // c->differs is "--lr, --warmup": the keys, each after "--"
    for (const char *k = c->differs; (k = strstr(k, "--")) != NULL;) {
        k += 2;
        size_t len = strcspn(k, ",");
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)len, k);
        k += len;
        if (key_usual(c, g, key)) continue; // what most rows have goes without saying
        if (b.buf[0]) ordo_strbuf_puts(&b, ", ");
        key_short(c, g, key, &b);
    }
    size_t n = strlen(b.buf);
    if (n < cap) {
        memcpy(buf, b.buf, n + 1);
    } else if (cap > 4) { // cut at a character boundary, then "…"
        size_t k = cap - 4;
        while (k > 0 && ((unsigned char)b.buf[k] & 0xc0) == 0x80) k--;
        memcpy(buf, b.buf, k);
        memcpy(buf + k, "\xe2\x80\xa6", 4);
    }
    ordo_strbuf_free(&b);
}

void ordo_cmp_differs_cell(const ordo_cmp *c, const ordo_cmp_group *g, char *buf, size_t cap) {
    ordo_cmp_differs_short(c, g, buf, cap);
    if (cap > 2 && !buf[0]) snprintf(buf, cap, "-"); // the settings most rows have
}

// The rows' settings in full, when a short cell leaves something out or a label differs from
// it: each row's label and its values (a JSON value as JSON).
static void differs_in_full(const ordo_cmp *c, int html, ordo_strbuf *b) {
    if (!c->differs[0]) return;
    ordo_strbuf_puts(b, html ? "<p class=\"note\">" : "\n");
    ordo_strbuf_puts(b, "The settings each row differs in, in full:");
    for (int i = 0; i < c->ngroups; i++) {
        const ordo_cmp_group *g = &c->groups[i];
        ordo_strbuf_puts(b, html ? "<br/>" : "\n- ");
        put(b, html, g->pos);
        ordo_strbuf_puts(b, ": ");
        put(b, html, g->differs);
    }
    ordo_strbuf_puts(b, html ? "</p>\n" : "\n");
}

// ---------------------------------------------------------------------------------------
// marks and their footnotes

void ordo_cmp_superscript(int k, char *buf, size_t cap) {
    static const char *const digits[] = {
        "\xe2\x81\xb0", "\xc2\xb9",     "\xc2\xb2",     "\xc2\xb3",     "\xe2\x81\xb4",
        "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9"};
    char dec[16];
    snprintf(dec, sizeof dec, "%d", k < 0 ? 0 : k);
    size_t n = 0;
    if (cap) buf[0] = 0;
    for (const char *d = dec; *d; d++) {
        const char *s = digits[*d - '0'];
        size_t len = strlen(s);
        if (n + len >= cap) break;
        memcpy(buf + n, s, len + 1);
        n += len;
    }
}

// 1 if column col of c's tables holds eval.json values (the columns that take n/a and †).
static int eval_col(int col) {
    return col >= ORDO_CMP_X1 && col < ORDO_CMP_NCOL;
}

int ordo_cmp_na_index(const ordo_cmp *c, const char *note) {
    if (!note) return 0;
    int k = 0;
    for (int i = 0; i < c->ngroups; i++)
        for (int col = ORDO_CMP_X1; col < ORDO_CMP_NCOL; col++) {
            const ordo_cmp_cell *e = &c->groups[i].cell[col];
            if (e->n || !e->note) continue;
            // a note counts where it first appears
            int seen = 0;
            for (int j = 0; j <= i && !seen; j++)
                for (int q = ORDO_CMP_X1; q < ORDO_CMP_NCOL && !seen; q++) {
                    if (j == i && q == col) break;
                    const ordo_cmp_cell *f = &c->groups[j].cell[q];
                    seen = !f->n && f->note && strcmp(f->note, e->note) == 0;
                }
            if (seen) continue;
            k++;
            if (strcmp(e->note, note) == 0) return k;
        }
    return 0;
}

int ordo_cmp_stale_col(const ordo_cmp_group *g, int col) {
    return g->stale > 0 && eval_col(col);
}

int ordo_cmp_variant_shown(const ordo_cmp *c) {
    for (int i = 0; i < c->ngroups; i++)
        if (c->groups[i].variant && strcmp(c->groups[i].variant, "base") != 0) return 1;
    return 0;
}

void ordo_cmp_mark_notes(const ordo_cmp *c, int html, ordo_strbuf *b) {
    const char *p0 = html ? "<p class=\"note\">" : "", *p1 = html ? "</p>\n" : "\n";
    // each n/a reason once, with the rows and the first length it holds for
    for (int k = 1;; k++) {
        const char *note = NULL;
        for (int i = 0; i < c->ngroups && !note; i++)
            for (int col = ORDO_CMP_X1; col < ORDO_CMP_NCOL && !note; col++) {
                const ordo_cmp_cell *e = &c->groups[i].cell[col];
                if (!e->n && e->note && ordo_cmp_na_index(c, e->note) == k) note = e->note;
            }
        if (!note) break;
        char sup[32];
        ordo_cmp_superscript(k, sup, sizeof sup);
        ordo_strbuf_printf(b, "%sn/a%s ", p0, sup);
        put(b, html, note);
        ordo_strbuf_puts(b, ": ");
        for (int i = 0, n = 0; i < c->ngroups; i++) {
            const ordo_cmp_group *g = &c->groups[i];
            for (int col = ORDO_CMP_X1; col < ORDO_CMP_NCOL; col++) {
                const ordo_cmp_cell *e = &g->cell[col];
                if (e->n || !e->note || strcmp(e->note, note) != 0) continue;
                char h[96];
                ordo_cmp_header(c, col, h, sizeof h);
                char *win = strstr(h, " (");
                if (win) *win = 0; // "loss@2x": the length without its windows
                ordo_strbuf_puts(b, n++ ? "; " : "");
                put(b, html, g->pos);
                ordo_strbuf_printf(b, " from %s on", h);
                break;
            }
        }
        ordo_strbuf_puts(b, p1);
    }
    if (c->few_windows)
        ordo_strbuf_printf(b,
                           "%s\xe2\x80\xa1 rests on fewer than %d windows per run at that "
                           "length: a noisy estimate (more val text, --val-frac, or a shorter "
                           "length gives more).%s",
                           p0, ORDO_CMP_FEW_WINDOWS, p1);
    int stale = 0;
    for (int i = 0; i < c->ngroups; i++) stale += c->groups[i].stale > 0;
    if (!stale) return;
    ordo_strbuf_printf(b,
                       "%s\xe2\x80\xa0 stale: an eval older than the run's newest checkpoint "
                       "(",
                       p0);
    for (int i = 0, n = 0; i < c->ngroups; i++) {
        const ordo_cmp_group *g = &c->groups[i];
        if (g->stale <= 0) continue;
        ordo_strbuf_puts(b, n++ ? "; " : "");
        put(b, html, g->pos);
        ordo_strbuf_printf(b, ": %d of %d runs", g->stale, g->n);
    }
    ordo_strbuf_printf(b, "); evaluate again to see the newest weights.%s", p1);
}

void ordo_cmp_notes(const ordo_cmp *c, int html, ordo_strbuf *b) {
    const char *p0 = html ? "<p class=\"note\">" : "\n", *p1 = html ? "</p>\n" : "\n";
    ordo_strbuf_printf(
        b,
        "%smean ± sample sd over the seeds of each row (%s). Train loss: the last logged "
        "batch's (one batch, a noisy number; compare.csv's final_train_loss). Val loss: "
        "the best evaluated during training; ppl: exp of it. loss@Nx: eval.json at N times "
        "the training length, with the windows per run it rests on (\"-\": no eval.json or "
        "no such length, n/a: the run cannot go there). Embedding: xS std D, the token "
        "embeddings multiplied by S and their table initialised with std D (--embed-style, "
        "--embed-scale, --embed-std).%s",
        p0, html ? "one seed: no sd" : "\"± -\": one seed, no sd", p1);
    if (c->exact)
        ordo_strbuf_printf(b,
                           "%sexact match@Nx: passkey retrieval at N times the training length, "
                           "the share of examples whose key came out exactly, mean over the "
                           "depths (compare.csv's exact_match_Nx; the loss at each length is "
                           "in the plot of loss against length, each depth in the heatmaps).%s",
                           p0, p1);
    ordo_strbuf_printf(b, "%sA row pools the runs whose config.json agree on every setting but ",
                       p0);
    for (int i = 0; ignored_keys[i]; i++)
        ordo_strbuf_printf(b, "%s%s", i ? ", " : "", ignored_keys[i]);
    ordo_strbuf_puts(b, "; the data must be the same (a file by its recorded size and hash, "
                        "wherever its path pointed).");
    if (c->differs[0]) {
        ordo_strbuf_puts(b, " The runs differ in ");
        put(b, html, c->differs);
        ordo_strbuf_puts(b, ": the column \"differs in\" gives each row's values in short; rows "
                            "that differ in them are not on equal terms.");
    }
    ordo_strbuf_puts(b, p1);
    differs_in_full(c, html, b);
    if (c->has_order)
        ordo_strbuf_printf(b,
                           "%sorder-dep. loss@1x: eval.json's loss on the order-dependent "
                           "tokens alone at the training length (the order task: each "
                           "sentence's subject is the previous sentence's object); ln 2 = "
                           "%.4f is a guess between the two nouns that the bag of words "
                           "leaves open.%s",
                           p0, log(2.0), p1);
    ordo_strbuf_printf(b, "%svs unigram level: ", p0);
    if (!isnan(c->unigram))
        ordo_strbuf_printf(b, "H = %.4f nats/token, ", c->unigram);
    else if (c->unigram_mixed)
        ordo_strbuf_puts(b, "H (it differs between the runs' val splits), ");
    else
        ordo_strbuf_puts(b, "H (unknown: not recorded and the data could not be read), ");
    ordo_strbuf_printf(b,
                       "the entropy of the val split's token distribution, the lowest loss "
                       "that a predictor ignoring the context can reach there. \"x below\": H "
                       "minus the val loss at the training length (eval.json at 1x, else the "
                       "best val loss), mean over the seeds. A run whose loss is above %g%% of "
                       "H is flagged \"learned no use of context\": it does no better than "
                       "token frequencies.%s",
                       100 * (1 - ORDO_CMP_UNIGRAM_MARGIN), p1);
    if (c->has_ngram)
        ordo_strbuf_printf(b,
                           "%svs best n-gram: the lowest of the n-gram levels (Witten-Bell, "
                           "orders 1-6, fitted on the train split; `ordo baseline`) on the "
                           "very targets of the eval record at the training length, minus the "
                           "row's loss there, mean over the seeds: positive, the model beats "
                           "every n-gram. " ORDO_CMP_NGRAM_MARK ": a run of the row does not beat "
                           "the %d-gram. \"-\": the record has no n-gram levels (written "
                           "before ordo kept them, with --no-ngram, or of an --data file).%s",
                           p0, ORDO_CMP_NGRAM_ORDER, p1);
    if (c->wall_derived)
        ordo_strbuf_printf(b,
                           "%s*train time is derived from metrics.jsonl (no elapsed_s there): "
                           "the sum over log intervals of steps x batch x context / "
                           "tokens_per_s, i.e. the training loop with its evaluations, without "
                           "start-up.%s",
                           p0, p1);
    ordo_cmp_nonfinite_notes(c, html, b);
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
