// report.html's table: the rows of the terminal table as HTML, each row's line swatch, the
// flagged cells in red, and their notes; the report around it is compare_report.c's.
#ifndef ORDO_COMPARE_HTML_H
#define ORDO_COMPARE_HTML_H
#include "experiments/compare.h"
#include "sys/strbuf.h"

// <tag attrs>text</tag>, text escaped; tag may carry attributes ("td class=\"na\"").
void ordo_cmp_html_cell(ordo_strbuf *h, const char *tag, const char *text);
// The table of c's rows, in a scrolling <div>, and its notes.
void ordo_cmp_html_table(const ordo_cmp *c, ordo_strbuf *h);

#endif
