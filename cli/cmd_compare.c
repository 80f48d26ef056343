// `ordo compare RUN_DIR|SWEEP_DIR... [--out DIR] [--reeval] [--columns LIST | --wide]`: the
// options, then experiments/compare.c builds the table (one row per experiment and eval
// variant, mean ± sd over its seeds) and writes the files.
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "experiments/compare.h"
#include "sys/strbuf.h"
#include "run/options.h"

ordo_status ordo_cmd_compare(int argc, char **argv) {
    const char *out = NULL;
    int reeval = 0;
    ordo_cmp_view view = {0};
    ordo_opt opts[] = {
        {"out", ORDO_OPT_STRING, &out, "output directory (default: the sweep dir, or ./compare)",
         0},
        {"reeval", ORDO_OPT_FLAG, &reeval,
         "first evaluate again each eval older than its run's newest checkpoint", 0},
        {"columns", ORDO_OPT_STRING, &view.columns,
         "the table's columns, a comma list (default: those that fit 120 columns)", 0},
        {"wide", ORDO_OPT_FLAG, &view.wide, "the table with every column", 0},
        {"reference", ORDO_OPT_STRING, &view.reference,
         "a row (its scheme, or label): the report also plots each row's loss by position "
         "minus this row's",
         0},
        {0},
    };
    const char **pos;
    int npos, help;
    ordo_status s = ordo_args_command("compare", "RUN_DIR|SWEEP_DIR... [--out DIR]", opts, argc,
                                      argv, &pos, &npos, &help);
    if (!s && help) {
        printf("\nPools runs into one row when their config.json agree on every setting but the "
               "seed\n(and out, threads, eval/log/ckpt cadence, keep, vocab, attention); runs that "
               "differ are\nseparate rows, the differing keys named. Runs on different data are "
               "refused. Flags a\nrun whose val loss is not below the val split's unigram "
               "level (\"learned no use of\ncontext\"), marks eval losses resting on fewer "
               "than 10 windows, and shows the loss on\norder-dependent tokens when the eval "
               "has it. Writes compare.md, compare.csv,\nloss_curves.svg, extrapolation.svg "
               "and report.html (docs/experiments.md, \"Reading ordo\ncompare\").\n"
               "The terminal table fits 120 columns; --columns picks them from scheme, seeds,\n"
               "params, embedding, differs, variant, train, val, ppl, unigram, tps, time, 1x, 2x,"
               "\n4x, 8x, order; compare.csv has all of them.\nA SWEEP_DIR "
               "has sweep.json ({\"runs\": [...]}) or else holds the run dirs directly; sweeps "
               "and runs\nmay be given together. Each eval record of a run (RUN/eval/NAME.json: "
               "base, ntk-x4, ...)\ngives a row of its own; an eval older than the run's newest "
               "checkpoint is stale\n(marked; --reeval makes it again).\n");
        free(pos);
        return ORDO_OK;
    }
    if (!s && npos < 1) s = ordo_error(ORDO_ERR_ARG, "expected RUN_DIR... or a SWEEP_DIR");
    if (!s && view.wide && view.columns)
        s = ordo_error(ORDO_ERR_ARG, "--wide shows every column: give it or --columns, not both");
    if (!s && view.columns) s = ordo_cmp_columns_check(view.columns);
    char **dirs = NULL;
    int ndirs = 0;
    const char *sweep = NULL;
    ordo_strbuf source; // what the report says it compares; as long as the dirs need
    ordo_strbuf_init(&source);
    if (!s) s = ordo_compare_expand(pos, npos, &dirs, &ndirs, &source, &sweep);
    if (!s && reeval) s = ordo_compare_reeval((const char **)dirs, ndirs);
    const char *dir = out ? out : sweep ? sweep : "compare";
    if (!s) s = ordo_compare_write((const char **)dirs, ndirs, dir, source.buf, &view);
    ordo_strbuf_free(&source);
    for (int i = 0; i < ndirs; i++) free(dirs[i]);
    free(dirs);
    free(pos);
    return s;
}
