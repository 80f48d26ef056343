// `ordo train --init` (see init.h): a new run from another run's weights, possibly at a longer
// context; the learned table is fitted by ordo_extend_table (models/positional.h).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/dist.h"
#include "sys/fileio.h"
#include "sys/sha256.h"
#include "run/checkpoint.h"
#include "run/init.h"
#include "run/run.h"

void ordo_init_fit(ordo_gpt *m, const ordo_gpt *src, ordo_extend_pos how) {
    for (int i = 0; i < m->params.count; i++) {
        ordo_tensor *to = m->params.t[i];
        const ordo_tensor *from = src->params.t[i];
        if (to == ordo_gpt_wpe(m))
            ordo_extend_table(to->data, m->cfg.T_max, from->data, src->cfg.T_max, m->cfg.C, how);
        else
            memcpy(to->data, from->data, to->n * sizeof *to->data);
    }
}

ordo_status ordo_extend_model(const ordo_train_config *cfg, const ordo_gpt *src, int T,
                              ordo_extend_pos how, ordo_gpt *dst) {
    memset(dst, 0, sizeof *dst);
    if (!ordo_gpt_wpe(src))
        return ordo_error(ORDO_ERR_ARG, "a model with --pos %s has no learned table to extend",
                          ordo_pos_name(src->cfg.pos));
    // the model `ordo train --init RUN --context T` builds before it reads the weights: the
    // run's config at context T and the run's seed (fresh rows are its init's rows)
    ordo_train_config c = *cfg;
    c.context = T;
    ordo_gpt_config g;
    ordo_status s = ordo_train_config_model(&c, src->cfg.V, &g);
    if (!s) s = ordo_gpt_init(dst, &g, (uint64_t)cfg->seed);
    if (s) return s;
    ordo_init_fit(dst, src, how);
    dst->attention = src->attention;
    if ((s = ordo_gpt_set_precision(dst, src->precision))) ordo_gpt_free(dst);
    return s;
}

// The metadata integer `key` of f (0 when absent or not a number).
static long long meta_ll(ordo_safetensors *f, const char *key) {
    const char *v = ordo_safetensors_meta(f, key);
    char *end;
    long long x = v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end ? x : 0;
}

// The newest checkpoint of run dir that opens intact, into path[ORDO_PATH_MAX].
static ordo_status newest_checkpoint(const char *dir, char *path) {
    int64_t *steps;
    int n;
    ordo_status s = ordo_checkpoint_list(dir, &steps, &n);
    if (s) return s;
    ordo_strbuf skipped = {0};
    int i;
    for (i = 0; i < n; i++) {
        ordo_safetensors *f;
        json_t *cj;
        ordo_train_state st;
        if ((s = ordo_checkpoint_path(path, ORDO_PATH_MAX, dir, steps[i]))) break;
        if ((s = ordo_checkpoint_open(path, &f, &cj, &st))) {
            ordo_run_skip(&skipped, path);
            continue;
        }
        json_decref(cj);
        ordo_safetensors_close(f);
        break;
    }
    if (!s && n == 0)
        s = ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run", dir);
    else if (i == n && n > 0)
        s = ordo_error(ORDO_ERR_FORMAT, "%s: none of its %d checkpoint(s) could be used:%s", dir, n,
                       skipped.buf ? skipped.buf : "");
    ordo_strbuf_free(&skipped);
    free(steps);
    return s;
}

// The run directory of a checkpoint file path (its directory, when that holds config.json
// and the name is ckpt-<step>.safetensors), into dir[ORDO_PATH_MAX]; 0 when it has none.
static int run_of_file(const char *path, char *dir) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    long long step;
    char tail[32];
    if (sscanf(base, "ckpt-%lld.safetensor%31s", &step, tail) != 2 || strcmp(tail, "s") != 0)
        return 0;
    if (ordo_path(dir, ORDO_PATH_MAX, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : "."))
        return 0;
    char cj[ORDO_PATH_MAX];
    return !ordo_path(cj, sizeof cj, "%s/config.json", dir) && access(cj, F_OK) == 0;
}

// The record of --init src (a run directory or a file) into *r, its strings kept by the
// config's string list (ordo_config_strings_free); the source's metadata checked against cfg.
static ordo_status init_record(const ordo_train_config *cfg, const char *src, ordo_init_record *r) {
    char path[ORDO_PATH_MAX], dir[ORDO_PATH_MAX];
    struct stat sb;
    memset(r, 0, sizeof *r);
    ordo_status s = ORDO_OK;
    int is_dir = stat(src, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (is_dir) {
        if ((s = newest_checkpoint(src, path))) return s;
    } else if ((s = ordo_path(path, sizeof path, "%s", src))) {
        return s;
    }
    ordo_safetensors *f;
    if ((s = ordo_safetensors_open(path, &f))) return s;
    // the settings the file names (ordo writes them; other files have none): all but the
    // context must be the run's
    const struct {
        const char *key, *opt;
        long long want;
    } keys[] = {
        {"C", "d-model", cfg->d_model}, {"L", "layers", cfg->layers}, {"NH", "heads", cfg->heads}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !s; k++) {
        long long have = meta_ll(f, keys[k].key);
        if (have && have != keys[k].want)
            s = ordo_error(ORDO_ERR_ARG,
                           "%s has %s %lld (metadata \"%s\") but this run --%s %lld; only "
                           "--context may differ from the weights a run starts from",
                           path, keys[k].opt, have, keys[k].key, keys[k].opt, keys[k].want);
    }
    const char *pos = ordo_safetensors_meta(f, "pos");
    if (!s && pos && strcmp(pos, cfg->pos) != 0)
        s = ordo_error(ORDO_ERR_ARG,
                       "%s was trained with --pos %s but this run has --pos %s; a run started "
                       "from it keeps its position scheme",
                       path, pos, cfg->pos);
    const char *fmt = ordo_safetensors_meta(f, "format");
    int ordo_ckpt = fmt && strncmp(fmt, "ordo-checkpoint", 15) == 0;
    r->step = ordo_ckpt && ordo_safetensors_meta(f, "step") ? meta_ll(f, "step") : -1;
    r->context = meta_ll(f, "T_max");
    const ordo_st_tensor *wpe = ordo_checkpoint_find_weight(f, "wpe.weight");
    if (!r->context && wpe && wpe->ndim == 2) r->context = wpe->shape[0];
    ordo_safetensors_close(f);
    if (s) return s;
    if ((s = ordo_sha256_file(path, r->sha256))) return s;
    // strings that live as long as the config's own (see ordo_train_config_from_json)
    json_t *keep = json_pack("{s:s}", "file", path);
    ordo_train_config tmp;
    ordo_train_config_defaults(&tmp);
    if (is_dir || run_of_file(path, dir))
        json_object_set_new(keep, "run", json_string(is_dir ? src : dir));
    json_object_set_new(keep, "sha256", json_string(r->sha256));
    json_t *obj = json_pack("{s:o}", ORDO_CONFIG_INIT_KEY, keep);
    s = ordo_train_config_from_json(&tmp, obj, path, 0, NULL);
    json_decref(obj);
    if (s) return s;
    r->file = tmp.init_record.file;
    r->run = tmp.init_record.run;
    r->have = 1;
    return ORDO_OK;
}

ordo_status ordo_init_resolve(ordo_train_config *cfg) {
    ordo_status s = ordo_train_config_check(cfg);
    if (s) return s;
    memset(&cfg->init_record, 0, sizeof cfg->init_record);
    if (cfg->init && (s = init_record(cfg, cfg->init, &cfg->init_record)))
        return ordo_error_wrap(s, "--init %s", cfg->init);
    ordo_rope_config rc;
    if ((s = ordo_train_config_rope(cfg, &rc))) return s;
    if (rc.scaling == ORDO_ROPE_SCALING_NONE) return ORDO_OK;
    // written into the config: the run records the numbers it trains with
    long long from = cfg->init_record.context;
    if (!cfg->rope_orig_context) cfg->rope_orig_context = from > 0 ? from : cfg->context;
    if (!cfg->rope_factor) {
        cfg->rope_factor = (double)cfg->context / (double)cfg->rope_orig_context;
        if (cfg->rope_factor == 1)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-scaling %s with a factor of --context %lld / %lld (%s) = 1 "
                              "changes nothing; give --rope-factor, or --init from a run trained "
                              "at a shorter context",
                              cfg->rope_scaling, cfg->context, cfg->rope_orig_context,
                              from > 0 ? "the --init run's context" : "--rope-orig-context");
    }
    return ordo_train_config_check(cfg);
}

ordo_status ordo_init_load(const ordo_train_config *cfg, ordo_gpt *m) {
    ordo_init_record r = cfg->init_record;
    ordo_status s = r.have ? ORDO_OK : init_record(cfg, cfg->init, &r);
    if (s) return s;
    if (cfg->init_record.have) { // the file the run recorded, unchanged
        char now[65];
        if ((s = ordo_sha256_file(r.file, now))) return s;
        if (strcmp(now, r.sha256) != 0)
            return ordo_error(ORDO_ERR_ARG,
                              "%s changed since the run recorded it (sha256 %s, now %s); the "
                              "run would not start from the weights its config.json names",
                              r.file, r.sha256, now);
    }
    ordo_extend_pos how;
    int v;
    if ((s = ordo_names_parse(&ordo_extend_pos_names, cfg->extend_pos, &v))) return s;
    how = (ordo_extend_pos)v;
    int T0 = 0;
    if (ordo_gpt_wpe(m)) { // the learned table: its length in the file
        ordo_safetensors *f;
        if ((s = ordo_safetensors_open(r.file, &f))) return s;
        const ordo_st_tensor *t = ordo_checkpoint_find_weight(f, "wpe.weight");
        if (t && t->ndim == 2 && t->shape[0] > 0 && t->shape[0] <= (1 << 20)) T0 = (int)t->shape[0];
        ordo_safetensors_close(f);
    }
    if (!T0 || T0 == m->cfg.T_max) return ordo_checkpoint_load_weights(r.file, m);
    // another length: the file is read into a model of its own length, then fitted
    ordo_gpt src;
    ordo_gpt_config g = m->cfg;
    g.T_max = T0;
    g.rope = (ordo_rope_config){0};
    if ((s = ordo_gpt_init(&src, &g, 0))) return s;
    s = ordo_checkpoint_load_weights(r.file, &src);
    if (!s) ordo_init_fit(m, &src, how);
    ordo_gpt_free(&src);
    if (!s && ordo_dist_rank() == 0)
        fprintf(stderr, "ordo: --init %s: the learned table goes from %d to %d positions (%s)\n",
                r.file, T0, m->cfg.T_max,
                m->cfg.T_max < T0 ? "its first rows" : ordo_extend_pos_names.names[how]);
    return s;
}
