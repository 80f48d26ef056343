// Opening a run directory for eval, sample and viz (see run.h): its newest usable checkpoint,
// the config it was trained with, and the model and data rebuilt from that config.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/dist.h"
#include "sys/fileio.h"
#include "run/checkpoint.h"
#include "run/run.h"

// Passes over checkpoint `path`, whose reason is the current error message: a warning on
// stderr (rank 0) and an entry "\n  <path>: <why>" in `list`, which the error quotes when none
// is left. The message's own "<path>: " prefix, if any, is not repeated.
void ordo_run_skip(ordo_strbuf *list, const char *path) {
    const char *why = ordo_error_message();
    size_t n = strlen(path);
    if (strncmp(why, path, n) == 0 && why[n] == ':' && why[n + 1] == ' ') why += n + 2;
    if (ordo_dist_rank() == 0) fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, why);
    ordo_strbuf_printf(list, "\n  %s: %s", path, why);
}

// The config checkpoint `path` of run dir was trained with (cj, its metadata), over the
// defaults, with out set to dir (out may differ on resume; the check wants one), and checked:
// a hand-edited or damaged config must not reach a model unchecked. Errors name path.
ordo_status ordo_run_checkpoint_config(const char *path, const char *dir, json_t *cj,
                                       ordo_train_config *cfg) {
    ordo_train_config_defaults(cfg);
    ordo_status s = ordo_train_config_from_json(cfg, cj, path, 0, NULL);
    cfg->out = dir;
    if (!s && (s = ordo_train_config_check(cfg))) s = ordo_error_wrap(s, "%s", path);
    return s;
}

// (run.h) A checkpoint copied in from another run is refused, so that eval, sample, viz and
// export skip it as resume does, and nothing reports its numbers under this run's config.
ordo_status ordo_run_check_own(const char *dir, ordo_train_config *ck) {
    char path[ORDO_PATH_MAX];
    if (ordo_path(path, sizeof path, "%s/config.json", dir)) return ORDO_OK;
    json_error_t err;
    json_t *j = ordo_json_load_file(path, 0, &err);
    ordo_train_config run;
    ordo_train_config_defaults(&run);
    int have = j && ordo_train_config_from_json(&run, j, path, 0, NULL) == ORDO_OK;
    json_decref(j);
    ordo_error_clear();
    if (!have) return ORDO_OK;
    ordo_status s = ordo_train_config_compare(ck, &run);
    if (s) s = ordo_error_wrap(s, "it is not a checkpoint of this run (%s)", path);
    return s;
}

// Opens checkpoint `path` of run dir and rebuilds the run from it into cfg, data and m (freed
// again on failure). *step receives its step. With own, the checkpoint must belong to dir's
// run (check_own).
static ordo_status open_one(const char *dir, const ordo_run_select *sel, ordo_train_config *cfg,
                            ordo_rundata *data, ordo_gpt *m, ordo_run_view *v, int *data_err,
                            int own) {
    const char *path = v->ckpt;
    *data_err = 0;
    ordo_safetensors *f;
    json_t *cj;
    ordo_train_state st;
    ordo_status s = ordo_checkpoint_open(path, &f, &cj, &st);
    if (s) return s;
    // zeroed, so that a failure before they are built frees nothing it should not
    memset(data, 0, sizeof *data);
    memset(m, 0, sizeof *m);
    s = ordo_run_checkpoint_config(path, dir, cj, cfg);
    json_decref(cj);
    if (!s && own) s = ordo_run_check_own(dir, cfg);
    if (s) {
        ordo_safetensors_close(f);
        return s;
    }
    cfg->data_check = ORDO_DATA_WARN; // read-only: a changed data file is only warned about
    ordo_gpt_config g;
    if (!s) {
        s = sel->tokenizer_only ? ordo_rundata_load_tokenizer(data, cfg)
                                : ordo_rundata_load(data, cfg);
        *data_err = s != ORDO_OK;
    }
    if (!s) s = ordo_train_config_model(cfg, data->vocab_size, &g);
    if (!s) s = ordo_gpt_init(m, &g, 0);
    if (!s) s = ordo_checkpoint_load(f, m, NULL);
    const char *hex = ordo_safetensors_meta(f, ORDO_ST_HASH_KEY);
    snprintf(v->xxh3, sizeof v->xxh3, "%s", hex && strlen(hex) == 16 ? hex : "");
    ordo_safetensors_close(f);
    if (s) {
        ordo_gpt_free(m);
        ordo_rundata_free(data);
        return s;
    }
    v->step = st.step;
    return ORDO_OK;
}

// A target that is a file: its checkpoint alone, from the directory it is in.
static ordo_status open_file(const char *target, const ordo_run_select *sel, ordo_train_config *cfg,
                             ordo_rundata *data, ordo_gpt *m, ordo_run_view *v) {
    if (sel->step >= 0)
        return ordo_error(ORDO_ERR_ARG,
                          "--step %lld and the checkpoint file %s do not go together (give the "
                          "run directory with --step, or the file alone)",
                          (long long)sel->step, target);
    const char *slash = strrchr(target, '/');
    ordo_status s = ORDO_OK;
    if (!slash)
        snprintf(v->dir, sizeof v->dir, ".");
    else if (slash == target)
        snprintf(v->dir, sizeof v->dir, "/");
    else
        s = ordo_path(v->dir, sizeof v->dir, "%.*s", (int)(slash - target), target);
    if (!s) s = ordo_path(v->ckpt, sizeof v->ckpt, "%s", target);
    int data_err;
    // a file named by the user is taken as it is, whatever folder it sits in
    if (!s) s = open_one(v->dir, sel, cfg, data, m, v, &data_err, 0);
    return s;
}

ordo_status ordo_run_open(const char *target, const ordo_run_select *sel, ordo_train_config *cfg,
                          ordo_rundata *data, ordo_gpt *m, ordo_run_view *v) {
    static const ordo_run_select newest = {.step = -1};
    if (!sel) sel = &newest;
    memset(v, 0, sizeof *v);
    struct stat sb;
    int found = stat(target, &sb) == 0;
    if (found && S_ISREG(sb.st_mode)) return open_file(target, sel, cfg, data, m, v);
    size_t len = strlen(target), ext = strlen(".safetensors");
    if (!found && len > ext && strcmp(target + len - ext, ".safetensors") == 0)
        return ordo_error(ORDO_ERR_IO, "%s: no such checkpoint file", target);
    ordo_status s = ordo_path(v->dir, sizeof v->dir, "%s", target);
    int64_t *steps;
    int n;
    if (!s) s = ordo_checkpoint_list(target, &steps, &n);
    if (s) return s;
    if (n == 0) {
        free(steps);
        return ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run",
                          target);
    }
    if (sel->step >= 0) { // that one or an error: never another step in its place
        int i = 0;
        while (i < n && steps[i] != sel->step) i++;
        if (i == n) {
            ordo_strbuf have = {0};
            ordo_checkpoint_steps_text(target, steps, n, &have);
            s = ordo_error(ORDO_ERR_ARG,
                           "%s: no checkpoint of step %lld (ckpt-%lld.safetensors); the run has "
                           "checkpoints at steps %s",
                           target, (long long)sel->step, (long long)sel->step, have.buf);
            ordo_strbuf_free(&have);
        }
        if (!s) s = ordo_checkpoint_path(v->ckpt, sizeof v->ckpt, target, sel->step);
        int data_err;
        if (!s) s = open_one(target, sel, cfg, data, m, v, &data_err, 1);
        free(steps);
        return s;
    }
    ordo_strbuf skipped = {0};
    int i;
    for (i = 0; i < n; i++) {
        if ((s = ordo_checkpoint_path(v->ckpt, sizeof v->ckpt, target, steps[i]))) break;
        int data_err;
        if (!(s = open_one(target, sel, cfg, data, m, v, &data_err, 1))) break;
        if (data_err) break; // the run's data, not this checkpoint: an older one would not help
        ordo_run_skip(&skipped, v->ckpt);
    }
    if (i == n) // every one skipped: the last one's status, with the reason for each
        s = ordo_error(s, "%s: none of its %d checkpoint(s) could be used:%s", target, n,
                       skipped.buf ? skipped.buf : "");
    ordo_strbuf_free(&skipped);
    free(steps);
    return s;
}
