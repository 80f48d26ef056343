// Typed long options: a table (one per subcommand, or the training config's, config.h)
// gives each option's name, type, destination and help. The parser writes values through
// the destinations, so what they hold beforehand is the default that --help shows.
#ifndef ORDO_OPTIONS_H
#define ORDO_OPTIONS_H
#include <stdio.h>

#include "sys/error.h"

typedef enum ordo_opt_type {
    ORDO_OPT_FLAG,   // int: --name sets 1, --no-name sets 0 (a name "no-x": --x sets 0)
    ORDO_OPT_INT,    // long long; strict decimal
    ORDO_OPT_FLOAT,  // double; strict, finite
    ORDO_OPT_STRING, // const char *; the parser points it into argv
} ordo_opt_type;

typedef struct ordo_opt {
    const char *name; // without the leading "--"
    ordo_opt_type type;
    void *dst; // int* / long long* / double* / const char**
    // one line; the usage printer appends "(default: ...)" from *dst, unless the help
    // already says "(default: ...)" itself (a default that is not a value: "the training
    // context"), so that every option shows exactly one
    const char *help;
    int seen; // set by the parser: the user gave this option on the command line
    // ORDO_OPT_INT and ORDO_OPT_FLOAT: the values the option takes, min..max (max INFINITY:
    // no bound above); both 0: any value. Checked as the value is parsed, so that every
    // command refuses an out-of-range value with the same message, made from this row.
    double min, max;
} ordo_opt;

// Parses argv[0..argc) (argv[0] is the first argument after the command name).
// Options may be `--name value` or `--name=value`; `--` ends options; `-` is positional.
// A flag is `--name` (sets 1) or `--no-name` (sets 0); a flag whose name starts with "no-"
// is undone by the name without it (`--decay-pos` for "no-decay-pos").
// Positionals are returned in pos[0..*npos) (pointers into argv; pos must hold argc).
// Marks each option given `seen`; sets *help when --help/-h is seen. Returns ORDO_ERR_ARG
// with a message naming the option and what was expected for unknown options, missing or
// malformed values, values outside the row's min..max ("--threads is -1, expected 0..4096",
// "--top-k is -1, expected >= 0"), and a value given to a flag (`--shuffle=0`, or `--shuffle 0`
// with one of 0 1 true false on off yes no after it: the old spelling, which a flag would otherwise
// leave as a stray positional; `-- 0` passes such a positional); options before it are
// already written.
ordo_status ordo_options_parse(const char *cmd, ordo_opt *opts, int argc, char **argv,
                               const char **pos, int *npos, int *help);

// Prints "usage: ordo <cmd> <synopsis>" to f, then every option with its help and one
// "(default: ...)": the value *dst holds now (a flag's as the form that is in effect,
// `--shuffle` or `--no-shuffle`), or the one its help states; then --help.
void ordo_options_usage(FILE *f, const char *cmd, const char *synopsis, const ordo_opt *opts);

// Finds an option by name in a table (NULL if absent).
ordo_opt *ordo_options_find(ordo_opt *opts, const char *name);

#endif
