// The `ordo` subcommands. Each takes the arguments after its name, prints its own
// output, and returns a status (message recorded) for main to report.
#ifndef ORDO_COMMANDS_H
#define ORDO_COMMANDS_H
#include "sys/error.h"

ordo_status ordo_cmd_tokenize(int argc, char **argv);
ordo_status ordo_cmd_train(int argc, char **argv);
ordo_status ordo_cmd_eval(int argc, char **argv);
ordo_status ordo_cmd_sample(int argc, char **argv);
ordo_status ordo_cmd_sweep(int argc, char **argv);
ordo_status ordo_cmd_compare(int argc, char **argv);
ordo_status ordo_cmd_viz(int argc, char **argv);
// what train reads, and a run's weights for other tools
ordo_status ordo_cmd_data(int argc, char **argv);
ordo_status ordo_cmd_baseline(int argc, char **argv);
ordo_status ordo_cmd_export(int argc, char **argv);

#endif
