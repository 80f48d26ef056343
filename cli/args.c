// A subcommand's option parsing and --help (see args.h); the parser itself is
// train/options.c.
#include <stdio.h>

#include "cli/args.h"
#include "framework/error.h"

ordo_status ordo_args_command(const char *cmd, const char *synopsis, ordo_opt *opts, int argc,
                              char **argv, const char ***pos, int *npos, int *help) {
    *pos = ordo_xcalloc((size_t)argc + 1, sizeof **pos);
    ordo_status s = ordo_options_parse(cmd, opts, argc, argv, *pos, npos, help);
    if (!s && *help) ordo_options_usage(stdout, cmd, synopsis, opts);
    return s;
}

ordo_status ordo_args_one_run(int npos, const long long *step) {
    if (npos != 1)
        return ordo_error(ORDO_ERR_ARG, "expected one RUN_DIR or checkpoint file, got %d arguments",
                          npos);
    if (step && *step < -1)
        return ordo_error(ORDO_ERR_ARG, "--step is %lld, expected a checkpoint's step (or -1)",
                          *step);
    return ORDO_OK;
}
