// A run's config.json as the options of a command that also takes train's flags, and the
// table of those flags (see run_config.h).
#include "cli/run_config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fileio.h"

ordo_status ordo_cli_run_config(ordo_train_config *c, const char *dir, ordo_opt *opts) {
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", dir);
    if (s) return s;
    json_error_t err;
    json_t *j = ordo_json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!j)
        return ordo_error(ORDO_ERR_FORMAT, "%s: %s (is %s a run directory?)", path, err.text, dir);
    s = ordo_train_config_from_json(c, j, path, 1, opts);
    json_decref(j);
    c->data_check = ORDO_DATA_WARN;
    return s;
}

ordo_opt *ordo_cli_train_options(ordo_train_config *c, const ordo_opt *own, int n, int *nbase) {
    ordo_opt *base = ordo_train_config_options(c);
    int nb = 0;
    while (base[nb].name) nb++;
    ordo_opt *opts = ordo_xcalloc((size_t)(nb + n + 1), sizeof *opts);
    memcpy(opts, base, (size_t)nb * sizeof *opts);
    memcpy(opts + nb, own, (size_t)n * sizeof *opts);
    free(base);
    *nbase = nb;
    return opts;
}
