// A run's config.json as the options of a command that also takes train's flags (see
// run_config.h).
#include "cli/run_config.h"

#include <jansson.h>

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
