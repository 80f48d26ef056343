// `ordo sweep --pos A,B,... --seeds N [train options] --out DIR`: the train options plus the
// sweep's own, then experiments/sweep.c plans the runs (DIR/<pos>-s<seed>, DIR/sweep.json)
// and trains and evaluates them; this prints the summary lines around that.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "experiments/sweep.h"
#include "models/positional.h"
#include "run/config.h"

static const char *SYNOPSIS =
    "--pos LIST --seeds N [train options] --out DIR [--jobs J]\n\n"
    "Trains one run per scheme of --pos (comma-separated) and seed (--seed, --seed+1, ...,\n"
    "--seeds of them) with the same data and budget, into DIR/<pos>-s<seed>, and evaluates\n"
    "each at the --eval-lengths multiples of --context, once per --eval-variants entry\n"
    "(DIR/<run>/eval/NAME.json: base, base-sliding, ntk-x4, ...). Running the same command\n"
    "again keeps finished runs and evals and resumes interrupted ones. Then:\n"
    "ordo compare DIR";

// The train options over cfg (with the sweep's help for pos, seed and out), then the
// sweep's own over o. NULL-terminated; caller frees.
static ordo_opt *sweep_options(ordo_train_config *cfg, ordo_sweep_options *o) {
    ordo_opt *base = ordo_train_config_options(cfg);
    int nbase = 0;
    while (base[nbase].name) nbase++;
    ordo_opt *opts = ordo_xcalloc((size_t)nbase + 8, sizeof *opts);
    memcpy(opts, base, (size_t)nbase * sizeof *opts);
    free(base);
    static char pos_help[256] = "comma-separated schemes: ";
    size_t k = strlen("comma-separated schemes: ");
    ordo_names_join(&ordo_pos_names, ",", ",", pos_help + k, sizeof pos_help - k);
    ordo_options_find(opts, "pos")->help = pos_help;
    ordo_options_find(opts, "seed")->help = "first seed (runs use seed .. seed+seeds-1)";
    ordo_options_find(opts, "out")->help = "sweep directory";
    opts[nbase] = (ordo_opt){"seeds", ORDO_OPT_INT, &o->seeds, "seeds per scheme", 0};
    opts[nbase + 1] =
        (ordo_opt){"jobs", ORDO_OPT_INT, &o->jobs, "runs at a time (each its own process)", 0};
    opts[nbase + 2] = (ordo_opt){"eval-lengths", ORDO_OPT_STRING, &o->eval_lengths,
                                 "evaluate at these multiples of --context", 0};
    opts[nbase + 3] =
        (ordo_opt){"examples", ORDO_OPT_INT, &o->examples,
                   "copy/reverse: examples per length in the accuracy eval; passkey: per\n"
                   "                         length and depth",
                   0};
    // progress: how the sweep shows its runs' steps
    opts[nbase + 4] =
        (ordo_opt){"progress", ORDO_OPT_STRING, &o->progress_name,
                   "the runs' steps: auto (live on a terminal, else plain) | live |\n"
                   "                         plain | off (each run's lines: RUN/train.log)",
                   0};
    // eval variants: several evals of each run, each its own record and compare row
    opts[nbase + 5] = (ordo_opt){
        "eval-variants", ORDO_OPT_STRING, &o->eval_variants,
        "evals of each run (RUN/eval/NAME.json), comma-separated: base (as\n"
        "                         trained), ntk:F, yarn:F, pi:F (rope: scaled by F),\n"
        "                         dynamic-ntk[:F] (rope: ntk at each length's own\n"
        "                         scale, HF's factor F, 1 when not given),\n"
        "                         extend:interpolate, extend:fresh, extend:copy\n"
        "                         (learned: the table grown), sliding[:S] (every scheme:\n"
        "                         sliding windows of stride S, T/4 when not given, as eval\n"
        "                         --mode sliding; record base-sliding or\n"
        "                         base-sliding-stride<S>), any of the others +sliding[:S]\n"
        "                         (ntk:4+sliding: ntk-x4-sliding); each made for the\n"
        "                         schemes it applies to",
        0};
    opts[nbase + 6] = (ordo_opt){"depths", ORDO_OPT_STRING, &o->depths,
                                 "passkey: the key's depths in 0..1 of each run's eval grid\n"
                                 "                         (none = eval's 0,0.25,0.5,0.75,1)",
                                 0};
    return opts;
}

ordo_status ordo_cmd_sweep(int argc, char **argv) {
    ordo_train_config cfg;
    ordo_train_config_defaults(&cfg);
    cfg.pos = "learned,sinusoidal,none";
    cfg.out = "runs/sweep";
    ordo_sweep_options o = {.seeds = 2,
                            .jobs = 1,
                            .examples = 200,
                            .eval_lengths = "1,2,4,8",
                            .eval_variants = "base",
                            .progress_name = "auto"};
    ordo_opt *opts = sweep_options(&cfg, &o);
    const char **pos;
    int npos, help;
    ordo_sweep sw = {0};
    ordo_status s = ordo_args_command("sweep", SYNOPSIS, opts, argc, argv, &pos, &npos, &help);
    if (!s && help) goto done;
    if (!s && npos)
        s = ordo_error(ORDO_ERR_ARG, "unexpected argument '%s' (see 'ordo sweep --help')", pos[0]);
    o.threads_given = ordo_options_find(opts, "threads")->seen;
    int mode = ORDO_PROGRESS_AUTO;
    if (!s && (s = ordo_names_parse(&ordo_progress_names, o.progress_name, &mode)))
        s = ordo_error_wrap(s, "--progress");
    o.progress = (ordo_progress_mode)mode;
    if (!s) s = ordo_sweep_plan(&sw, &cfg, &o);
    if (s) goto done;
    printf("sweep: %d runs (%d schemes x %lld seeds), %lld at a time, %lld threads each -> %s\n",
           sw.nruns, sw.nschemes, sw.seeds, sw.jobs, sw.cfg.threads, sw.cfg.out);
    s = ordo_sweep_run(&sw);
    if (!s)
        printf("sweep: all %d runs done; compare them with: ordo compare %s\n", sw.nruns,
               sw.cfg.out);
done:
    ordo_sweep_free(&sw);
    free(pos);
    free(opts);
    ordo_config_strings_free();
    return s;
}
