// The accuracy grids of compare's report: for the tasks whose eval records hold a grid (passkey
// by length and depth, mqar by length and pairs, flipflop by length and p_i: runinfo.c's
// table), a heatmap per row, the mean over the row's runs. Deliberately not here: the accuracy
// by length (a line per row) and the rest of the report (compare_report.c).
#ifndef ORDO_COMPARE_GRID_H
#define ORDO_COMPARE_GRID_H
#include "experiments/compare.h"
#include "sys/error.h"
#include "sys/strbuf.h"

// Saves each row's heatmap as out_dir/<task>-<row>.svg (row: 1 for the first row) and appends
// them to h, after a heading per task; h is untouched when no row has a grid. Errors: saving a
// file (the ones before it stay written).
ordo_status ordo_cmp_accuracy_grids(const ordo_cmp *c, const char *out_dir, ordo_strbuf *h);

#endif
