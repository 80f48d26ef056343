// Typed long options: a table (one per subcommand, or the training config's, config.h)
// gives each option's name, type, destination and help. The parser writes values through
// the destinations, so what they hold beforehand is the default that --help shows.
#ifndef ORDO_OPTIONS_H
#define ORDO_OPTIONS_H
#include <stdio.h>

#include "framework/error.h"

typedef enum ordo_opt_type {
    ORDO_OPT_FLAG,   // int, set to 1 when present
    ORDO_OPT_INT,    // long long; strict decimal
    ORDO_OPT_FLOAT,  // double; strict, finite
    ORDO_OPT_STRING, // const char *; the parser points it into argv
} ordo_opt_type;

typedef struct ordo_opt {
    const char *name; // without the leading "--"
    ordo_opt_type type;
    void *dst;        // int* / long long* / double* / const char**
    const char *help; // one line; the default is appended from *dst by the usage printer
    int seen;         // set by the parser: the user gave this option on the command line
} ordo_opt;

// Parses argv[0..argc) (argv[0] is the first argument after the command name).
// Options may be `--name value` or `--name=value`; `--` ends options; `-` is positional.
// Positionals are returned in pos[0..*npos) (pointers into argv; pos must hold argc).
// Marks each option given `seen`; sets *help when --help/-h is seen. Returns ORDO_ERR_ARG
// with a message naming the option and what was expected for unknown options, missing or
// malformed values, and a value given to a flag; options before it are already written.
ordo_status ordo_options_parse(const char *cmd, ordo_opt *opts, int argc, char **argv,
                               const char **pos, int *npos, int *help);

// Prints "usage: ordo <cmd> <synopsis>" to f, then every option with its help and its
// default (the value *dst holds now; flags have none), then --help.
void ordo_options_usage(FILE *f, const char *cmd, const char *synopsis, const ordo_opt *opts);

// Finds an option by name in a table (NULL if absent).
ordo_opt *ordo_options_find(ordo_opt *opts, const char *name);

#endif
