// A subcommand's option parsing and --help (see args.h); the parser itself is
// run/options.c.
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/args.h"
#include "sys/error.h"
#include "framework/threads.h"

ordo_status ordo_args_command(const char *cmd, const char *synopsis, ordo_opt *opts, int argc,
                              char **argv, const char ***pos, int *npos, int *help) {
    *pos = ordo_xcalloc((size_t)argc + 1, sizeof **pos);
    ordo_status s = ordo_options_parse(cmd, opts, argc, argv, *pos, npos, help);
    if (!s && *help) ordo_options_usage(stdout, cmd, synopsis, opts);
    return s;
}

ordo_status ordo_args_program(const char *prog, const char *synopsis, ordo_opt *opts, int argc,
                              char **argv, int npos_want, const char ***pos, int *help) {
    int npos;
    ordo_status s = ordo_args_command(prog, synopsis, opts, argc, argv, pos, &npos, help);
    if (s || *help || npos == npos_want) return s;
    ordo_options_usage(stderr, prog, synopsis, opts);
    return ordo_error(ORDO_ERR_ARG, "expected %d positional argument%s, got %d (usage: %s %s)",
                      npos_want, npos_want == 1 ? "" : "s", npos, prog, synopsis);
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

ordo_opt ordo_args_threads_opt(long long *threads) {
    return (ordo_opt){
        "threads", ORDO_OPT_INT,
        threads,   "threads, 0 = all cores (default: the cores the load average leaves free)",
        .min = 0,  .max = 4096};
}

ordo_opt ordo_args_step_opt(long long *step) {
    return (ordo_opt){"step", ORDO_OPT_INT, step,
                      "read the checkpoint of this step (-1 = the newest usable one)"};
}

// The online cores less the 1-minute load average (rounded), at least 1; all online cores
// when /proc/loadavg cannot be read. *load gets the load average (NaN: unknown).
static int threads_free(int cores, double *load) {
    *load = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return cores;
    if (fscanf(f, "%lf", load) != 1) *load = NAN;
    fclose(f);
    if (!(*load >= 0)) return cores;
    long busy = lround(*load);
    return busy >= cores ? 1 : cores - (int)busy;
}

int ordo_args_threads(const char *cmd, ordo_opt *opts, long long threads) {
    if (ordo_options_find(opts, "threads")->seen) return ordo_set_threads((int)threads);
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    int cores = c > 0 ? (int)c : 1;
    double load;
    int n = threads_free(cores, &load);
    if (n < cores && isatty(STDERR_FILENO)) // for the person watching; scripts read stdout
        fprintf(stderr,
                "ordo: %s on %d thread%s: %d cores, load average %.1f (--threads N sets it, "
                "0 = all cores)\n",
                cmd, n, n == 1 ? "" : "s", cores, load);
    return ordo_set_threads(n);
}
