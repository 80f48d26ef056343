// The parts of compare's report that say whether the models use their context and how they
// use positions: the context-use curve of each row (the eval records' context_use, from `ordo
// eval --context-use N --save`: loss against the tokens of context k, the mean of the row's
// runs), and a table per run of the position probe and attention by offset that `ordo viz`
// wrote into RUN/viz (probe.json, offsets.json), marked when viz measured an older checkpoint.
// Deliberately not here: the rest of the report (compare_report.c).
#ifndef ORDO_COMPARE_CONTEXT_H
#define ORDO_COMPARE_CONTEXT_H
#include "experiments/compare.h"
#include "sys/strbuf.h"

// The curves' SVG into s: 1, or 0 (s untouched) when no row has a curve.
int ordo_cmp_context_use_svg(const ordo_cmp *c, ordo_strbuf *s);
// The table (HTML) into h: 1, or 0 (h untouched) when no run has RUN/viz's files.
int ordo_cmp_diagnostics_html(const ordo_cmp *c, ordo_strbuf *h);

#endif
