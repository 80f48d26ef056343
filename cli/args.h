// The subcommands' common front: parse a command's options and, on --help, print its usage.
// It lives in cli/ and not beside the parser (run/options.c) because it writes to stdout,
// and printing is the CLI's part (parse -> call -> print).
#ifndef ORDO_CLI_ARGS_H
#define ORDO_CLI_ARGS_H
#include "run/options.h"

// A subcommand's parse: allocates *pos (argc + 1 entries; the caller frees it, also on error),
// parses as ordo_options_parse, and on --help prints the usage to stdout and sets *help.
ordo_status ordo_args_command(const char *cmd, const char *synopsis, ordo_opt *opts, int argc,
                              char **argv, const char ***pos, int *npos, int *help);
// A program's whole command line when it takes exactly npos_want positionals (the benches):
// ordo_args_command, then ORDO_ERR_ARG naming the synopsis unless exactly that many are
// given (the usage goes to stderr then). *pos as there.
ordo_status ordo_args_program(const char *prog, const char *synopsis, ordo_opt *opts, int argc,
                              char **argv, int npos_want, const char ***pos, int *help);

// What a command on one run (eval, sample, viz, export) asks of its arguments: exactly one
// RUN_DIR or checkpoint file, and a --step that names a checkpoint or is -1 (step NULL: the
// command has no --step). ORDO_ERR_ARG saying which otherwise.
ordo_status ordo_args_one_run(int npos, const long long *step);

// The rows of the options that the commands reading one run (eval, sample, viz) share:
// --threads (0..4096; its default is ordo_args_threads') and --step, the checkpoint to read
// (ordo_args_one_run checks it).
ordo_opt ordo_args_threads_opt(long long *threads);
ordo_opt ordo_args_step_opt(long long *step);

// The threads of a command that reads a run (eval, sample, viz): --threads when given (0: all
// cores), else the cores that the 1-minute load average (/proc/loadavg) leaves free, at least
// one, so that an eval beside a running sweep or training does not take every core from it.
// Sets them (ordo_set_threads) and returns the count; when the default is fewer than all
// cores and stderr is a terminal, says so there with how --threads changes it.
int ordo_args_threads(const char *cmd, ordo_opt *opts, long long threads);

#endif
