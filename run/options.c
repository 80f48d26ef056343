// Strict long-option parsing for the CLI. Values are checked completely (no trailing
// junk, finite floats, integers in range); anything off is an ORDO_ERR_ARG that names the
// option, the value and what was expected. Short options other than -h are not supported.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/options.h"
#include "sys/error.h"

ordo_opt *ordo_options_find(ordo_opt *opts, const char *name) {
    for (ordo_opt *o = opts; o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

// A value outside o's min..max: the message, in the form of the run config's range checks
// (config.c). val is the value as parsed, printed.
static ordo_status out_of_range(const ordo_opt *o, double x, const char *val) {
    if (!(o->min != 0 || o->max != 0) || (x >= o->min && x <= o->max)) return ORDO_OK;
    const char *f = o->type == ORDO_OPT_INT ? "%.0f" : "%g";
    char lo[40], hi[40];
    snprintf(lo, sizeof lo, f, o->min);
    if (isinf(o->max))
        return ordo_error(ORDO_ERR_ARG, "--%s is %s, expected >= %s", o->name, val, lo);
    snprintf(hi, sizeof hi, f, o->max);
    return ordo_error(ORDO_ERR_ARG, "--%s is %s, expected %s..%s", o->name, val, lo, hi);
}

static ordo_status set_value(const char *cmd, ordo_opt *o, const char *v) {
    char *end;
    errno = 0;
    switch (o->type) {
    case ORDO_OPT_FLAG:
        *(int *)o->dst = 1;
        return ORDO_OK;
    case ORDO_OPT_INT: {
        long long x = strtoll(v, &end, 10);
        if (!*v || *end || errno)
            return ordo_error(ORDO_ERR_ARG, "--%s: '%s' is not an integer", o->name, v);
        char val[32];
        snprintf(val, sizeof val, "%lld", x);
        ordo_status s = out_of_range(o, (double)x, val);
        if (s) return s;
        *(long long *)o->dst = x;
        return ORDO_OK;
    }
    case ORDO_OPT_FLOAT: {
        double x = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(x))
            return ordo_error(ORDO_ERR_ARG, "--%s: '%s' is not a finite number", o->name, v);
        char val[32];
        snprintf(val, sizeof val, "%g", x);
        ordo_status s = out_of_range(o, x, val);
        if (s) return s;
        *(double *)o->dst = x;
        return ORDO_OK;
    }
    case ORDO_OPT_STRING:
        *(const char **)o->dst = v;
        return ORDO_OK;
    }
    return ORDO_OK;
}

// The flag that --name turns off, if any: --no-x for the flag x, or --x for the flag no-x.
static ordo_opt *negated_flag(ordo_opt *opts, const char *name) {
    ordo_opt *o = strncmp(name, "no-", 3) == 0 ? ordo_options_find(opts, name + 3) : NULL;
    if (o && o->type == ORDO_OPT_FLAG) return o;
    char no[136];
    snprintf(no, sizeof no, "no-%s", name);
    o = ordo_options_find(opts, no);
    return o && o->type == ORDO_OPT_FLAG ? o : NULL;
}

// The two spellings of flag o: the one that sets it (its name) and the one that clears it.
static void flag_forms(const ordo_opt *o, char *on, char *off, size_t cap) {
    snprintf(on, cap, "--%s", o->name);
    if (strncmp(o->name, "no-", 3) == 0)
        snprintf(off, cap, "--%s", o->name + 3);
    else
        snprintf(off, cap, "--no-%s", o->name);
}

// A word that reads as a boolean value: what `--shuffle 0` meant before flags took none.
static int boolean_word(const char *v) {
    static const char *const words[] = {"0", "1", "true", "false", "on", "off", "yes", "no"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(v, words[i]) == 0) return 1;
    return 0;
}

ordo_status ordo_options_parse(const char *cmd, ordo_opt *opts, int argc, char **argv,
                               const char **pos, int *npos, int *help) {
    *npos = 0;
    *help = 0;
    int only_pos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
            pos[(*npos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *help = 1;
            continue;
        }
        if (a[1] != '-')
            return ordo_error(ORDO_ERR_ARG, "unknown option '%s' (options are long, e.g. --help)",
                              a);
        char name[128];
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        if (len >= sizeof name) return ordo_error(ORDO_ERR_ARG, "unknown option '%s'", a);
        memcpy(name, a + 2, len);
        name[len] = 0;
        ordo_opt *o = ordo_options_find(opts, name);
        int value = 1; // what a flag is set to: 0 for its negated form
        if (!o && (o = negated_flag(opts, name))) value = 0;
        if (!o)
            return ordo_error(ORDO_ERR_ARG, "unknown option '--%s' (see 'ordo %s --help')", name,
                              cmd);
        o->seen = 1;
        if (o->type == ORDO_OPT_FLAG) {
            char on[136], off[136];
            flag_forms(o, on, off, sizeof on);
            if (eq)
                return ordo_error(ORDO_ERR_ARG, "--%s takes no value (a flag: write %s or %s)",
                                  name, on, off);
            if (i + 1 < argc && boolean_word(argv[i + 1]))
                return ordo_error(ORDO_ERR_ARG,
                                  "--%s takes no value, but '%s' follows it (a flag: write %s or "
                                  "%s; a positional '%s' goes after --)",
                                  name, argv[i + 1], on, off, argv[i + 1]);
            *(int *)o->dst = value;
            continue;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) return ordo_error(ORDO_ERR_ARG, "--%s needs a value", name);
        ordo_status s = set_value(cmd, o, v);
        if (s) return s;
    }
    return ORDO_OK;
}

void ordo_options_usage(FILE *f, const char *cmd, const char *synopsis, const ordo_opt *opts) {
    fprintf(f, "usage: ordo %s %s\n\noptions:\n", cmd, synopsis);
    for (const ordo_opt *o = opts; o->name; o++) {
        char left[300], def[160] = "", on[136], off[136];
        const char *meta = o->type == ORDO_OPT_INT      ? " N"
                           : o->type == ORDO_OPT_FLOAT  ? " X"
                           : o->type == ORDO_OPT_STRING ? " S"
                                                        : "";
        snprintf(left, sizeof left, "--%s%s", o->name, meta);
        switch (o->type) {
        case ORDO_OPT_FLAG:
            flag_forms(o, on, off, sizeof on);
            if (strncmp(o->name, "no-", 3) == 0)
                snprintf(left, sizeof left, "%s, %s", on, off);
            else
                snprintf(left, sizeof left, "--[no-]%s", o->name);
            snprintf(def, sizeof def, " (default: %s)", *(int *)o->dst ? on : off);
            break;
        case ORDO_OPT_INT:
            snprintf(def, sizeof def, " (default: %lld)", *(long long *)o->dst);
            break;
        case ORDO_OPT_FLOAT:
            snprintf(def, sizeof def, " (default: %g)", *(double *)o->dst);
            break;
        case ORDO_OPT_STRING: {
            const char *s = *(const char **)o->dst;
            snprintf(def, sizeof def, " (default: %s)", s ? s : "none");
            break;
        }
        }
        if (strstr(o->help, "(default:")) def[0] = 0; // the help states its own
        fprintf(f, "  %-22s %s%s\n", left, o->help, def);
    }
    fprintf(f, "  %-22s %s\n", "--help", "show this text");
}
