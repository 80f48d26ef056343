// `ordo viz RUN_DIR [--out DIR] [--step N]` (or a checkpoint file for RUN_DIR): the options, then
// experiments/viz.c opens the run and draws its SVG heatmaps and index.html (RUN_DIR/viz by
// default); this prints the line saying which run and checkpoint they are of.
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "experiments/viz.h"
#include "framework/threads.h"
#include "run/config.h"

ordo_status ordo_cmd_viz(int argc, char **argv) {
    const char *out = NULL;
    long long threads = 0, step = -1;
    double rope_factor = 0;
    ordo_opt opts[] = {
        {"out", ORDO_OPT_STRING, &out, "output directory (default: RUN_DIR/viz)", 0},
        ordo_args_threads_opt(&threads),
        ordo_args_step_opt(&step),
        // the RoPE spectrum's scalings
        {"rope-factor", ORDO_OPT_FLOAT, &rope_factor,
         "rope: the factor of the pi/ntk/yarn spectra (0 = the run's, else 4)", 0},
        {0},
    };
    const char **pos;
    int npos, help;
    ordo_status s =
        ordo_args_command("viz", "RUN_DIR|CHECKPOINT.safetensors [--out DIR] [--step N]", opts,
                          argc, argv, &pos, &npos, &help);
    if (!s && help) {
        free(pos);
        return ORDO_OK;
    }
    if (!s) s = ordo_args_one_run(npos, &step);
    if (!s && rope_factor != 0 && !(rope_factor >= 1 && rope_factor <= 1e4))
        s = ordo_error(ORDO_ERR_ARG, "--rope-factor is %g, expected 1..1e4 (0 = the run's)",
                       rope_factor);
    if (s) {
        free(pos);
        return s;
    }
    ordo_args_threads("viz", opts, threads);
    ordo_viz v;
    ordo_run_select sel = {.step = step};
    s = ordo_viz_open(&v, pos[0], &sel, out);
    v.rope_factor = rope_factor;
    if (!s) {
        printf("ordo viz: %s (%s, step %lld, T=%d, %d layers x %d heads) -> %s\n", pos[0],
               v.cfg.pos, (long long)v.step, v.T, v.model.cfg.L, v.model.cfg.NH, v.out);
        s = ordo_viz_write(&v);
    }
    ordo_viz_free(&v);
    ordo_config_strings_free();
    free(pos);
    return s;
}
