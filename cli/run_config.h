// The commands that take train's options and optionally a RUN_DIR instead (data, baseline):
// their option table (train's, then their own), and the run's config.json read over the
// defaults, the flags given keeping their values.
#ifndef ORDO_CLI_RUN_CONFIG_H
#define ORDO_CLI_RUN_CONFIG_H
#include "run/config.h"
#include "run/options.h"

// The run directory's config.json over c, as the run trained with; options given on the
// command line (seen in opts) keep their values. The data file is only warned about when it
// changed since (data_check WARN). ORDO_ERR_FORMAT naming the file when it does not read.
ordo_status ordo_cli_run_config(ordo_train_config *c, const char *dir, ordo_opt *opts);

// Train's options over c, then a command's own n options: one NULL-terminated table (the
// caller frees it). *nbase is where the command's own begin: a run's config.json or a JSON
// file sets train's options only, so the caller ends the table there while it reads one.
ordo_opt *ordo_cli_train_options(ordo_train_config *c, const ordo_opt *own, int n, int *nbase);

#endif
