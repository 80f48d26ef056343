// report.html's table of the rows (see compare_html.h).
#include "experiments/compare_html.h"

#include <stdio.h>
#include <string.h>

#include "experiments/plot.h"

// <tag attrs>text</tag>; tag may carry attributes ("td class=\"na\""), closed by its name.
void ordo_cmp_html_cell(ordo_strbuf *h, const char *tag, const char *text) {
    ordo_strbuf_printf(h, "<%s>", tag);
    ordo_svg_escape(h, text);
    ordo_strbuf_printf(h, "</%.*s>", (int)strcspn(tag, " "), tag);
}

// The "vs unigram level" cell of g (red when a run is flagged).
static void html_unigram(const ordo_cmp_group *g, ordo_strbuf *h) {
    char buf[128];
    ordo_cmp_unigram_str(g, buf, sizeof buf);
    ordo_cmp_html_cell(h,
                       g->uni_flagged ? "td class=\"uni flag\""
                       : g->uni_n     ? "td class=\"uni\""
                                      : "td class=\"uni na\"",
                       buf);
}

// The "vs best n-gram" cell of g (red when a run does not beat the 3-gram).
static void html_ngram(const ordo_cmp_group *g, ordo_strbuf *h) {
    char buf[128];
    ordo_cmp_ngram_str(g, 1, buf, sizeof buf);
    ordo_cmp_html_cell(h,
                       g->ng_flagged ? "td class=\"ng flag\""
                       : g->ng_n     ? "td class=\"ng\""
                                     : "td class=\"ng na\"",
                       buf);
}

void ordo_cmp_html_table(const ordo_cmp *c, ordo_strbuf *h) {
    char buf[512];
    // a table wider than the window scrolls on its own, the page does not
    ordo_strbuf_printf(
        h, "<div class=\"wide\"><table>\n<tr><th>scheme</th><th>seeds</th><th>params</th>"
           "<th>embedding</th>");
    if (c->differs[0]) ordo_strbuf_printf(h, "<th class=\"l\">differs in</th>");
    if (ordo_cmp_variant_shown(c)) ordo_strbuf_printf(h, "<th class=\"l\">variant</th>");
    for (int k = 0; k < ORDO_CMP_NCOL; k++) {
        if (!ordo_cmp_col_shown(c, k)) continue;
        ordo_cmp_header(c, k, buf, sizeof buf);
        ordo_cmp_html_cell(h, "th", buf);
        if (k == ORDO_CMP_PPL) ordo_strbuf_printf(h, "<th class=\"l\">vs unigram level</th>");
        if (k == ORDO_CMP_PPL && c->has_ngram) ordo_strbuf_printf(h, "<th>vs best n-gram</th>");
    }
    ordo_strbuf_printf(h, "</tr>\n");
    for (int i = 0; i < c->ngroups; i++) {
        const ordo_cmp_group *g = &c->groups[i];
        // the row's line as the plots draw it: its colour and dash tell rows apart
        ordo_strbuf_printf(h,
                           "<tr><td><svg class=\"sw\" xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"26\" height=\"10\"><line x1=\"0\" y1=\"5\" x2=\"26\" "
                           "y2=\"5\" stroke=\"%s\" stroke-width=\"2.75\"",
                           g->color);
        if (g->dash) ordo_strbuf_printf(h, " stroke-dasharray=\"%s\"", g->dash);
        ordo_strbuf_puts(h, "/></svg>");
        // the scheme alone: "differs in" tells a scheme's rows apart, the swatch its curves
        ordo_svg_escape(h, g->scheme);
        ordo_strbuf_printf(h, "</td><td>%d</td>", g->n);
        if (g->params_min == g->params_max)
            ordo_strbuf_printf(h, "<td>%zu</td>", g->params_min);
        else
            ordo_strbuf_printf(h, "<td>%zu-%zu</td>", g->params_min, g->params_max);
        ordo_cmp_html_cell(h, "td", g->embed);
        if (c->differs[0]) { // in short; in full in the title and the notes
            ordo_cmp_differs_cell(c, g, buf, sizeof buf);
            ordo_strbuf_printf(h, "<td class=\"cfg\" title=\"");
            ordo_svg_escape(h, g->differs);
            ordo_strbuf_printf(h, "\">");
            ordo_svg_escape(h, buf);
            ordo_strbuf_printf(h, "</td>");
        }
        if (ordo_cmp_variant_shown(c))
            ordo_cmp_html_cell(h, "td class=\"cfg\"", g->variant ? g->variant : "-");
        for (int k = 0; k < ORDO_CMP_NCOL; k++) {
            if (!ordo_cmp_col_shown(c, k)) continue;
            if (k == ORDO_CMP_TPS) html_unigram(g, h); // after the val ppl, as the header
            if (k == ORDO_CMP_TPS && c->has_ngram) html_ngram(g, h);

            const ordo_cmp_cell *e = &g->cell[k];
            // † on the eval cells of a row with a stale eval (the footnote says which)
            const char *stale =
                ordo_cmp_stale_col(g, k) ? "<span class=\"few\">\xe2\x80\xa0</span>" : "";
            if (e->n == 0 && e->note) {
                // the reason goes under the table (once), the cell stays narrow
                char sup[32];
                ordo_cmp_superscript(ordo_cmp_na_index(c, e->note), sup, sizeof sup);
                ordo_strbuf_printf(h, "<td class=\"na\" title=\"");
                ordo_svg_escape(h, e->note);
                ordo_strbuf_printf(h, "\">n/a%s%s</td>", sup, stale);
                continue;
            }
            ordo_cmp_cell_str(e, k, buf, sizeof buf);
            // the few-windows mark stays beside the mean, out of the small sd type
            char *few = strstr(buf, " \xe2\x80\xa1");
            if (few) *few = 0;
            // the sd in smaller type beside the mean keeps the wide table narrower
            char *pm = strstr(buf, " \xc2\xb1 ");
            if (pm) *pm = 0;
            ordo_strbuf_printf(h, "<td>");
            ordo_svg_escape(h, buf);
            if (few) ordo_strbuf_printf(h, "<span class=\"few\">\xe2\x80\xa1</span>");
            if (e->n) ordo_strbuf_puts(h, stale);
            // one seed: no sd, and no "± -" either (the seeds column says so; narrower)
            if (pm && strcmp(pm + 1, "\xc2\xb1 -") == 0) pm = NULL;
            if (pm) {
                ordo_strbuf_printf(h, " <span class=\"sd\">");
                ordo_svg_escape(h, pm + 1);
                ordo_strbuf_printf(h, "</span>");
            }
            ordo_strbuf_printf(h, "</td>");
        }
        ordo_strbuf_printf(h, "</tr>\n");
    }
    ordo_strbuf_printf(h, "</table></div>\n");
    ordo_cmp_mark_notes(c, 1, h); // n/a¹, ‡ and †
    ordo_cmp_ngram_note(c, 1, h); // §
}
