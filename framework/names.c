// Name <-> enum tables (see names.h): the one loop over names that every enum of ordo
// with a user-facing name shares. Deliberately no case folding and no prefixes: a name is
// what config.json and the checkpoint metadata store, so it is matched exactly.
#include <stdio.h>
#include <string.h>

#include "framework/names.h"

int ordo_names_find(const ordo_names *t, const char *name) {
    if (!name) return -1;
    for (int v = 0; v < t->count; v++)
        if (strcmp(name, t->names[v]) == 0) return v;
    return -1;
}

char *ordo_names_join(const ordo_names *t, const char *sep, const char *last, char *buf,
                      size_t cap) {
    size_t len = 0;
    if (cap) buf[0] = 0;
    for (int v = 0; v < t->count && len < cap; v++) {
        int n = snprintf(buf + len, cap - len, "%s%s",
                         v == 0              ? ""
                         : v == t->count - 1 ? last
                                             : sep,
                         t->names[v]);
        if (n < 0) break;
        len += (size_t)n;
    }
    return buf;
}

ordo_status ordo_names_parse(const ordo_names *t, const char *name, int *out) {
    int v = ordo_names_find(t, name);
    if (v >= 0) {
        *out = v;
        return ORDO_OK;
    }
    char list[512];
    ordo_names_join(t, ", ", " or ", list, sizeof list);
    if (!name) return ordo_error(ORDO_ERR_ARG, "%s is not set (expected %s)", t->what, list);
    return ordo_error(ORDO_ERR_ARG, "unknown %s '%s' (expected %s)", t->what, name, list);
}

const char *ordo_names_name(const ordo_names *t, int v) {
    return v >= 0 && v < t->count ? t->names[v] : "?";
}
