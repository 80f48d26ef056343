// `ordo compare RUN_DIR... | SWEEP_DIR [--out DIR]`: the options, then experiments/compare.c
// builds the table (one row per experiment, mean ± sd over its seeds) and writes the files.
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "experiments/compare.h"
#include "framework/strbuf.h"
#include "train/options.h"

ordo_status ordo_cmd_compare(int argc, char **argv) {
    const char *out = NULL;
    ordo_opt opts[] = {
        {"out", ORDO_OPT_STRING, &out, "output directory (default: the sweep dir, or ./compare)",
         0},
        {0},
    };
    const char **pos;
    int npos, help;
    ordo_status s = ordo_args_command("compare", "RUN_DIR... | SWEEP_DIR [--out DIR]", opts, argc,
                                      argv, &pos, &npos, &help);
    if (!s && help) {
        printf("\nPools runs into one row when their config.json agree on every setting but the "
               "seed\n(and out, threads, eval/log/ckpt cadence, keep, vocab, attention); runs that "
               "differ are\nseparate rows, the differing keys named. Runs on different data are "
               "refused. Flags a\nrun whose val loss is not below the val split's unigram "
               "level (\"learned no use of\ncontext\"), marks eval losses resting on fewer "
               "than 10 windows, and shows the loss on\norder-dependent tokens when eval.json "
               "has it. Writes compare.md, compare.csv,\nloss_curves.svg, extrapolation.svg "
               "and report.html (docs/experiments.md, \"Reading ordo\ncompare\").\nA SWEEP_DIR "
               "has sweep.json ({\"runs\": [...]}) or else holds the run dirs directly.\n");
        free(pos);
        return ORDO_OK;
    }
    if (!s && npos < 1) s = ordo_error(ORDO_ERR_ARG, "expected RUN_DIR... or a SWEEP_DIR");
    char **swept = NULL;
    int nswept = 0, is_sweep = 0;
    if (!s && npos == 1) s = ordo_compare_sweep_runs(pos[0], &swept, &nswept, &is_sweep);
    if (!s) {
        ordo_strbuf source; // what the report says it compares; as long as the dir needs
        ordo_strbuf_init(&source);
        if (is_sweep)
            ordo_strbuf_printf(&source, "sweep %s", pos[0]);
        else
            ordo_strbuf_printf(&source, "%d run director%s", npos, npos == 1 ? "y" : "ies");
        const char *dir = out ? out : is_sweep ? pos[0] : "compare";
        s = is_sweep ? ordo_compare_write((const char **)swept, nswept, dir, source.buf)
                     : ordo_compare_write(pos, npos, dir, source.buf);
        ordo_strbuf_free(&source);
    }
    for (int i = 0; i < nswept; i++) free(swept[i]);
    free(swept);
    free(pos);
    return s;
}
