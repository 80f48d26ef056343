// ordo compare's Markdown table (experiments/compare_table.c) on a comparison built by hand,
// so that what the loaders do not fill yet can be set: the variant column appears only when
// a row's eval is not "base", a stale row's eval cells carry † with a footnote naming it,
// n/a reasons become numbered marks with each reason once, the default table fits 120
// columns (dropping the named columns when it must), --columns and --wide pick columns and
// an unknown name is refused with the list; the "vs best n-gram" column appears only when a
// row has n-gram levels, signed, with § on a row that does not beat the 3-gram and "-" on a
// row without levels.
#include <math.h>
#include <string.h>

#include "experiments/compare.h"
#include "sys/strbuf.h"
#include "test.h"

// A cell of k runs with this mean and sd, resting on `windows` windows.
static ordo_cmp_cell cell(double mean, double sd, int n, long long windows) {
    return (ordo_cmp_cell){.mean = mean, .sd = sd, .n = n, .of = n, .windows = windows};
}

static ordo_cmp_cell na(const char *note, int of) {
    return (ordo_cmp_cell){.mean = NAN, .sd = NAN, .of = of, .note = note, .windows = -1};
}

// Columns a line takes: UTF-8 characters.
static int width(const char *s, size_t n) {
    int w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xc0) != 0x80;
    return w;
}

// The widest line of text that starts with '|' (a table line).
static int table_width(const char *text) {
    int most = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (*p == '|' && width(p, n) > most) most = width(p, n);
        p += n + (p[n] == '\n');
    }
    return most;
}

static int count(const char *text, const char *what) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

int main(void) {
    ordo_runinfo runs[4] = {{0}};
    for (int i = 0; i < 4; i++) runs[i].has_eval = 1; // (no lengths: headers without windows)
    int r0[] = {0, 1}, r1[] = {2}, r2[] = {3};
    ordo_cmp_group g[3] = {
        {.pos = "learned",
         .scheme = "learned",
         .embed = "x1 std 0.02",
         .differs = "",
         .variant = "base",
         .n = 2,
         .runs = r0,
         .params_min = 100,
         .params_max = 100,
         .uni_n = 2,
         .uni_gap = 0.8512},
        {.pos = "rope",
         .scheme = "rope",
         .embed = "x1 std 0.02",
         .differs = "",
         .variant = "base",
         .n = 1,
         .runs = r1,
         .params_min = 90,
         .params_max = 90,
         .uni_n = 1,
         .uni_flagged = 1,
         .stale = 1},
        {.pos = "alibi",
         .scheme = "alibi",
         .embed = "x1 std 0.02",
         .differs = "",
         .variant = "base",
         .n = 1,
         .runs = r2,
         .params_min = 90,
         .params_max = 90,
         .uni_n = 1,
         .uni_gap = 0.5},
    };
    const char *past = "past the learned table (T_max 128)";
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < ORDO_CMP_X1; k++) g[i].cell[k] = cell(2.5, 0.01, g[i].n, -1);
        for (int m = 0; m < 4; m++)
            g[i].cell[ORDO_CMP_X1 + m] = cell(2.0 + m, 0.0123, g[i].n, m == 3 ? 3 : 50);
        g[i].cell[ORDO_CMP_ORDER] = cell(0.5, 0.01, g[i].n, 50);
    }
    for (int m = 1; m < 4; m++) g[0].cell[ORDO_CMP_X1 + m] = na(past, 2);
    g[2].cell[ORDO_CMP_X1 + 3] = na("null in eval.json", 1);
    ordo_cmp c = {.nruns = 4,
                  .runs = runs,
                  .ngroups = 3,
                  .groups = g,
                  .context = 128,
                  .differs = "",
                  .has_order = 1,
                  .few_windows = 1,
                  .unigram = 2.5,
                  .source = "test",
                  .nmult = 4,
                  .mults = {1, 2, 4, 8}};

    // the default table: base evals only, so no variant column; it fits 120 columns
    ordo_strbuf b;
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(table_width(b.buf) <= ORDO_CMP_TABLE_WIDTH, "%d columns:\n%s", table_width(b.buf),
              b.buf);
    CHECK_MSG(!strstr(b.buf, "| variant"), "a variant column of base evals only:\n%s", b.buf);
    CHECK(strstr(b.buf, "| loss@1x T=128 ") && strstr(b.buf, "| loss@8x T=1024 "));
    // n/a: the reason once, as a numbered mark; the second reason gets ²
    CHECK_MSG(count(b.buf, "n/a\xc2\xb9") == 3 + 1, "three n/a¹ cells and the footnote:\n%s",
              b.buf);
    CHECK(strstr(b.buf, "n/a\xc2\xb9 past the learned table (T_max 128): learned from loss@2x on"));
    CHECK(strstr(b.buf, "n/a\xc2\xb2 null in eval.json: alibi from loss@8x on"));
    CHECK(count(b.buf, past) == 1);
    // † on the stale row's eval cells, not on the others; its footnote names the row
    CHECK_MSG(strstr(b.buf, "2.0000\xe2\x80\xa0 |") &&
                  strstr(b.buf, "5.0000\xe2\x80\xa1\xe2\x80\xa0 |"),
              "rope's eval cells should carry † (after ‡ at 8x):\n%s", b.buf);
    CHECK(count(b.buf, "\xe2\x80\xa0 |") == 4 + 1); // 1x, 2x, 4x, 8x and the order column
    CHECK(strstr(
        b.buf,
        "\xe2\x80\xa0 stale: an eval older than the run's newest checkpoint (rope: 1 of 1 runs)"));
    // one seed: the mean alone; two: mean±sd; the unigram flag in short
    CHECK(strstr(b.buf, "| 2.0000\xc2\xb1"
                        "0.0123 |"));
    CHECK(strstr(b.buf, "| no context ") && strstr(b.buf, "| 0.851 below "));
    CHECK_MSG(!strstr(b.buf, "n-gram"), "an n-gram column without levels:\n%s", b.buf);
    ordo_strbuf_free(&b);

    // another variant than base: a variant column, in the default table and in --wide
    g[1].variant = "ntk-x4";
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(strstr(b.buf, "| variant ") && strstr(b.buf, "| ntk-x4 ") && strstr(b.buf, "| base "),
              "no variant column:\n%s", b.buf);
    CHECK(table_width(b.buf) <= ORDO_CMP_TABLE_WIDTH);
    ordo_strbuf_free(&b);

    // too many rows' worth of width: long differs cells make the default drop columns, and
    // say which
    c.differs = "--lr";
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(table_width(b.buf) <= ORDO_CMP_TABLE_WIDTH, "%d columns:\n%s", table_width(b.buf),
              b.buf);
    CHECK_MSG(strstr(b.buf, "not shown, to fit 120 columns: order"), "%s", b.buf);
    ordo_strbuf_free(&b);
    c.differs = "";

    // --columns: the scheme first, then the list in its order; --wide: every column
    c.view.columns = "8x,seeds,params";
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(strncmp(b.buf, "| scheme  | loss@8x T=1024 | seeds | params |", 45) == 0, "%s",
              b.buf);
    ordo_strbuf_free(&b);
    c.view.columns = NULL;
    c.view.wide = 1;
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(strstr(b.buf, "| train loss (last batch) |") && strstr(b.buf, "| tokens/s ") &&
                  strstr(b.buf, "| vs unigram level ") && strstr(b.buf, "2.0000 ± 0.0123"),
              "%s", b.buf);
    ordo_strbuf_free(&b);

    c.view.wide = 0;

    // n-gram levels: learned beats the best (4-gram) by 0.1234, rope not even the 3-gram,
    // alibi's records have none
    g[0].ng_n = 2, g[0].ng_gap = 0.1234, g[0].ng_best_order = 4;
    g[1].ng_n = 1, g[1].ng_gap = -0.5, g[1].ng_best_order = 5, g[1].ng_flagged = 1;
    c.has_ngram = c.ngram_flagged = 1;
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(table_width(b.buf) <= ORDO_CMP_TABLE_WIDTH, "%d columns:\n%s", table_width(b.buf),
              b.buf);
    CHECK_MSG(strstr(b.buf, "| vs n-gram |") && strstr(b.buf, " +0.1234 |") &&
                  strstr(b.buf, " -0.5000\xc2\xa7 |") && strstr(b.buf, "|         - |"),
              "the n-gram column:\n%s", b.buf);
    CHECK_MSG(strstr(b.buf, "\xc2\xa7 does not beat the 3-gram at the training length"), "%s",
              b.buf);
    ordo_strbuf_free(&b);
    c.view.wide = 1;
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    // after the unigram column, its kin
    const char *uni = strstr(b.buf, "| vs unigram level "),
               *ng = strstr(b.buf, "| vs best n-gram ");
    CHECK_MSG(uni && ng && uni < ng && !memchr(uni + 1, '|', (size_t)(ng - uni - 1)) &&
                  strstr(b.buf, "+0.1234 (4-gram)") && strstr(b.buf, "-0.5000 (5-gram) \xc2\xa7"),
              "%s", b.buf);
    ordo_strbuf_free(&b);
    c.view.wide = 0;
    c.view.columns = "ngram";
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(strncmp(b.buf, "| scheme  | vs n-gram |", 23) == 0, "%s", b.buf);
    ordo_strbuf_free(&b);
    c.view.columns = NULL;

    // the length columns are the multiples the records hold: 1x, 8x and 32x, no 2x or 4x
    c.nmult = 3, c.mults[1] = 8, c.mults[2] = 32;
    for (int i = 0; i < 3; i++) g[i].cell[ORDO_CMP_X1 + 1] = cell(3.5, 0.01, g[i].n, 50);
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(strstr(b.buf, "| loss@1x T=128 ") && strstr(b.buf, "| loss@8x T=1024 ") &&
                  strstr(b.buf, "| loss@32x T=4096 ") && !strstr(b.buf, "loss@2x") &&
                  !strstr(b.buf, "loss@4x"),
              "1x, 8x and 32x:\n%s", b.buf);
    CHECK(table_width(b.buf) <= ORDO_CMP_TABLE_WIDTH);
    ordo_strbuf_free(&b);
    c.view.columns = "32x,seeds";
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(strncmp(b.buf, "| scheme  | loss@32x T=4096 | seeds |", 37) == 0, "%s", b.buf);
    ordo_strbuf_free(&b);
    c.view.columns = NULL;
    // six lengths (not all powers of two) and long differs cells: the middle lengths go first,
    // from the longest down, the first and the last stay
    c.nmult = 6;
    int six[] = {1, 2, 3, 4, 12, 32};
    memcpy(c.mults, six, sizeof six);
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 6; m++) g[i].cell[ORDO_CMP_X1 + m] = cell(2.0 + m, 0.0123, g[i].n, 50);
    c.differs = "--lr";
    ordo_strbuf_init(&b);
    ordo_cmp_table(&c, &b);
    CHECK_MSG(table_width(b.buf) <= ORDO_CMP_TABLE_WIDTH, "%d columns:\n%s", table_width(b.buf),
              b.buf);
    CHECK_MSG(strstr(b.buf, "| loss@1x T=128 ") && strstr(b.buf, "| loss@32x T=4096 ") &&
                  !strstr(b.buf, "loss@12x") &&
                  strstr(b.buf, "not shown, to fit 120 columns: "
                                "order, 12x"),
              "%s", b.buf);
    ordo_strbuf_free(&b);
    c.differs = "";

    CHECK(ordo_cmp_columns_check("seeds,1x,order") == ORDO_OK);
    CHECK(ordo_cmp_columns_check("32x,3x,1024x") == ORDO_OK);
    CHECK(ordo_cmp_columns_check("0x") == ORDO_ERR_ARG);
    CHECK(ordo_cmp_columns_check("x") == ORDO_ERR_ARG);
    CHECK(ordo_cmp_columns_check("8") == ORDO_ERR_ARG);
    CHECK(ordo_cmp_columns_check("2.5x") == ORDO_ERR_ARG);
    CHECK(ordo_cmp_columns_check("seeds,bogus") == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "unknown column 'bogus'") &&
          strstr(ordo_error_message(), "scheme,seeds,params,embedding,differs,variant") &&
          strstr(ordo_error_message(), "unigram,ngram,tps"));
    TEST_MAIN_END();
}
