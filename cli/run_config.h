// The commands that take train's options and optionally a RUN_DIR instead (data, baseline):
// the run's config.json read over the defaults, the flags given keeping their values.
#ifndef ORDO_CLI_RUN_CONFIG_H
#define ORDO_CLI_RUN_CONFIG_H
#include "run/config.h"
#include "run/options.h"

// The run directory's config.json over c, as the run trained with; options given on the
// command line (seen in opts) keep their values. The data file is only warned about when it
// changed since (data_check WARN). ORDO_ERR_FORMAT naming the file when it does not read.
ordo_status ordo_cli_run_config(ordo_train_config *c, const char *dir, ordo_opt *opts);

#endif
