// Strict long-option parsing for the CLI. Values are checked completely (no trailing
// junk, finite floats, integers in range); anything off is an ORDO_ERR_ARG that names the
// option, the value and what was expected. Short options other than -h are not supported.
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/options.h"
#include "framework/error.h"

ordo_opt *ordo_options_find(ordo_opt *opts, const char *name) {
    for (ordo_opt *o = opts; o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
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
        *(long long *)o->dst = x;
        return ORDO_OK;
    }
    case ORDO_OPT_FLOAT: {
        double x = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(x))
            return ordo_error(ORDO_ERR_ARG, "--%s: '%s' is not a finite number", o->name, v);
        *(double *)o->dst = x;
        return ORDO_OK;
    }
    case ORDO_OPT_STRING:
        *(const char **)o->dst = v;
        return ORDO_OK;
    }
    return ORDO_OK;
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
        if (!o)
            return ordo_error(ORDO_ERR_ARG, "unknown option '--%s' (see 'ordo %s --help')", name,
                              cmd);
        o->seen = 1;
        if (o->type == ORDO_OPT_FLAG) {
            if (eq) return ordo_error(ORDO_ERR_ARG, "--%s takes no value", name);
            *(int *)o->dst = 1;
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
        char left[64], def[96] = "";
        const char *meta = o->type == ORDO_OPT_INT      ? " N"
                           : o->type == ORDO_OPT_FLOAT  ? " X"
                           : o->type == ORDO_OPT_STRING ? " S"
                                                        : "";
        snprintf(left, sizeof left, "--%s%s", o->name, meta);
        switch (o->type) {
        case ORDO_OPT_FLAG:
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
        fprintf(f, "  %-22s %s%s\n", left, o->help, def);
    }
    fprintf(f, "  %-22s %s\n", "--help", "show this text");
}
