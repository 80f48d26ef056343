// Hugging Face GPT-2 export (see export.h). ordo's parameters already have GPT-2's names and
// layouts (Conv1D weights [in, out], the LM head tied to wte), so the export renames each
// tensor to `transformer.<name>` and writes config.json with the GPT2Config keys that make
// transformers' GPT2LMHeadModel compute what ordo's forward computes: tanh GELU (gelu_new),
// LayerNorm eps 1e-5, attention scaled by 1/sqrt(head size), no dropout, tied head.
//
// Deliberately not here: the optimizer moments (a model folder has none), other formats
// (GGUF, ONNX), and schemes GPT-2 cannot compute (they are refused, not approximated).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/tokenizer.h"
#include "models/pos/scheme.h"
#include "run/checkpoint.h"
#include "run/config.h"
#include "eval/export.h"
#include "run/run.h"

// The vocab files are small (about 1 MB and 0.5 MB); this bounds a mistaken path.
#define MAX_VOCAB_FILE_BYTES ((size_t)64 << 20)
#define MAX_POSITIONS        (1 << 20)

// Why GPT2LMHeadModel cannot compute scheme p (NULL: it can): the scheme's row says.
static const char *refusal(ordo_pos p) {
    return ordo_pos_row(p)->export_refusal;
}

// The model of checkpoint f (its config cj) rebuilt into m and loaded: the scheme and the
// embedding scale are checked first, so that a refusal costs no load.
static ordo_status load_model(const char *path, ordo_safetensors *f, json_t *cj,
                              ordo_train_config *cfg, ordo_gpt *m) {
    ordo_train_config_defaults(cfg);
    ordo_status s = ordo_train_config_from_json(cfg, cj, path, 0, NULL);
    if (s) return s;
    ordo_pos pos;
    if ((s = ordo_pos_parse(cfg->pos, &pos))) return ordo_error_wrap(s, "%s", path);
    const char *why = refusal(pos);
    if (why)
        return ordo_error(ORDO_ERR_ARG,
                          "%s: --pos %s cannot be exported as Hugging Face GPT-2: %s (only "
                          "learned and none can; docs/checkpoints.md gives the layout of every "
                          "scheme for loading the checkpoint itself)",
                          path, cfg->pos, why);
    const char *v = ordo_safetensors_meta(f, "V");
    char *end = NULL;
    long V = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || V < 1 || V > (1L << 24))
        return ordo_error(ORDO_ERR_FORMAT, "%s: metadata \"V\" is %s, expected a vocabulary size",
                          path, v ? v : "missing");
    ordo_gpt_config g;
    if ((s = ordo_train_config_model(cfg, (int)V, &g))) return ordo_error_wrap(s, "%s", path);
    if (g.embed_scale != 0 && g.embed_scale != 1.0f)
        return ordo_error(ORDO_ERR_ARG,
                          "%s: the run multiplies the token embeddings by %g before positions "
                          "are added (--embed-style/--embed-scale), which GPT-2 does not do; "
                          "only runs with embed scale 1 can be exported",
                          path, (double)g.embed_scale);
    // GPT-2 adds wpe as it is; a scaled table has no GPT2Config key (rope and alibi
    // options are refused with their schemes above)
    if (g.pos_scale.kind != ORDO_POS_SCALE_NONE)
        return ordo_error(ORDO_ERR_ARG,
                          "%s: the run multiplies its positions by a scale (--pos-scale %s), "
                          "which GPT2LMHeadModel does not do (it adds wpe unscaled); only runs "
                          "without --pos-scale can be exported",
                          path, cfg->pos_scale);
    if ((s = ordo_gpt_init(m, &g, 0))) return ordo_error_wrap(s, "%s", path);
    return ordo_checkpoint_load(f, m, NULL);
}

// Opens checkpoint `path` and loads its model. *refused is set when the checkpoint is sound
// but cannot be exported (then trying an older one of the run would not help).
static ordo_status open_one(const char *path, ordo_train_config *cfg, ordo_gpt *m, int64_t *step,
                            int *refused) {
    ordo_safetensors *f;
    json_t *cj;
    ordo_train_state st;
    *refused = 0;
    ordo_status s = ordo_checkpoint_open(path, &f, &cj, &st);
    if (s) return s;
    s = load_model(path, f, cj, cfg, m);
    *refused = s == ORDO_ERR_ARG;
    *step = st.step;
    json_decref(cj);
    ordo_safetensors_close(f);
    if (s) ordo_gpt_free(m);
    return s;
}

// The newest usable checkpoint of run dir into m (its path into info->checkpoint).
static ordo_status open_run(const char *dir, ordo_train_config *cfg, ordo_gpt *m,
                            ordo_export_info *info) {
    int64_t *steps;
    int n;
    ordo_status s = ordo_checkpoint_list(dir, &steps, &n);
    if (s) return s;
    if (n == 0) {
        free(steps);
        return ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run",
                          dir);
    }
    int refused = 0, i;
    for (i = 0; i < n; i++) {
        char *path = info->checkpoint;
        if ((s = ordo_checkpoint_path(path, sizeof info->checkpoint, dir, steps[i]))) break;
        if (!(s = open_one(path, cfg, m, &info->step, &refused))) {
            if (!(s = ordo_run_check_own(dir, cfg))) break;
            ordo_gpt_free(m); // another run's checkpoint copied in: skipped, as resume does
        } else if (refused)
            break;
        fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, ordo_error_message());
    }
    if (i == n)
        s = ordo_error(s, "%s: none of its %d checkpoint(s) could be used (see the warnings)", dir,
                       n);
    free(steps);
    return s;
}

// config.json: GPT2Config's keys with the values that reproduce ordo's forward, and an "ordo"
// object saying where the weights came from (GPT2Config keeps unknown keys as attributes).
static json_t *hf_config(const ordo_gpt *m, const ordo_train_config *cfg, int n_positions,
                         int64_t step) {
    const ordo_gpt_config *g = &m->cfg;
    int gpt2 = cfg->data && cfg->tokenizer && strcmp(cfg->tokenizer, "gpt2") == 0 && g->V == 50257;
    json_t *eot = gpt2 ? json_integer(50256) : json_null(); // <|endoftext|>
    // the float eps (1e-5f) written as the decimal it was meant to be
    char eps[32];
    snprintf(eps, sizeof eps, "%.7g", (double)g->ln_eps);
    json_t *j = json_pack(
        "{s:[s], s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:b, "
        "s:b, s:b, s:b, s:b, s:o, s:o, s:s, s:{s:s, s:I, s:s, s:s}}",
        "architectures", "GPT2LMHeadModel", "model_type", "gpt2", "vocab_size", g->V, "n_positions",
        n_positions, "n_ctx", n_positions, "n_embd", g->C, "n_layer", g->L, "n_head", g->NH,
        "n_inner", 4 * g->C, "activation_function", "gelu_new", "layer_norm_epsilon",
        strtod(eps, NULL), "resid_pdrop", (double)g->dropout_resid, "embd_pdrop",
        (double)g->dropout_embd, "attn_pdrop", (double)g->dropout_attn, "summary_first_dropout",
        0.0, "initializer_range", 0.02, "scale_attn_weights", 1, "scale_attn_by_inverse_layer_idx",
        0, "reorder_and_upcast_attn", 0, "tie_word_embeddings", !g->untied_head, "use_cache", 1,
        "bos_token_id", json_incref(eot), "eos_token_id", eot, "torch_dtype", "float32", "ordo",
        "pos", ordo_pos_name(g->pos), "step", (json_int_t)step, "precision",
        cfg->precision ? cfg->precision : "fp32", "tokenizer",
        cfg->data ? cfg->tokenizer : "corpus");
    ORDO_ASSERT(j); // the format above is fixed: a failure is a bug here
    if (!cfg->data) json_object_set_new(json_object_get(j, "ordo"), "task", json_string(cfg->task));
    return j;
}

// model.safetensors: every parameter as transformer.<name> (an untied head as lm_head.weight);
// for none, a wpe of zeros.
static ordo_status write_weights(const ordo_gpt *m, const char *path, int n_positions) {
    const ordo_params *p = &m->params;
    int n = p->count, C = m->cfg.C;
    ordo_st_write *w = ordo_xcalloc((size_t)n + 1, sizeof *w);
    char **names = ordo_xcalloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++) {
        const ordo_tensor *t = p->t[i];
        size_t len = strlen(t->name) + sizeof "transformer.";
        names[i] = ordo_xmalloc(len);
        // an untied head is GPT2LMHeadModel's own lm_head.weight, outside the transformer
        snprintf(names[i], len, "%s%s", strcmp(t->name, "lm_head.weight") ? "transformer." : "",
                 t->name);
        w[i] = (ordo_st_write){.name = names[i], .data = t->data, .ndim = t->ndim};
        for (int d = 0; d < t->ndim; d++) w[i].shape[d] = t->shape[d];
    }
    float *zeros = NULL;
    if (m->cfg.pos == ORDO_POS_NONE) { // GPT-2 always adds wpe[0..T); zeros add nothing
        zeros = ordo_xcalloc((size_t)n_positions * C, sizeof *zeros);
        w[n] = (ordo_st_write){.name = "transformer.wpe.weight", .data = zeros, .ndim = 2};
        w[n].shape[0] = n_positions;
        w[n].shape[1] = C;
        n++;
    }
    // transformers refuses a safetensors file whose metadata has no "format" of a framework
    const char *keys[] = {"format"}, *vals[] = {"pt"};
    ordo_status s = ordo_safetensors_write(path, w, n, keys, vals, 1);
    for (int i = 0; i < p->count; i++) free(names[i]);
    free(names);
    free(w);
    free(zeros);
    return s;
}

// vocab.json and merges.txt (GPT2Tokenizer's names for encoder.json and vocab.bpe) of a gpt2
// run, copied from its vocab dir: one that cannot be read is a warning (the model is exported
// without them), a write that fails is an error. *written says whether both were.
static ordo_status write_tokenizer(const ordo_train_config *cfg, const char *dir, int *written) {
    static const char *const from[2] = {"encoder.json", "vocab.bpe"};
    static const char *const to[2] = {"vocab.json", "merges.txt"};
    *written = 0;
    char def[ORDO_PATH_MAX], path[ORDO_PATH_MAX];
    const char *vocab = cfg->vocab;
    char *buf[2] = {NULL, NULL};
    size_t len[2];
    ordo_status s = ORDO_OK;
    if (!vocab && !(s = ordo_tokenizer_default_vocab_dir(def, sizeof def))) vocab = def;
    for (int i = 0; i < 2 && !s; i++)
        if (!(s = ordo_path(path, sizeof path, "%s/%s", vocab, from[i])))
            s = ordo_read_regular_file(path, MAX_VOCAB_FILE_BYTES, &buf[i], &len[i]);
    if (s) {
        fprintf(stderr,
                "ordo: warning: the tokenizer files (vocab.json, merges.txt) were not written: "
                "%s; the model is exported without them\n",
                ordo_error_message());
        ordo_error_clear();
        s = ORDO_OK;
    } else {
        for (int i = 0; i < 2 && !s; i++) {
            const void *parts[] = {buf[i]};
            if (!(s = ordo_path(path, sizeof path, "%s/%s", dir, to[i])))
                s = ordo_write_atomic(path, parts, &len[i], 1);
        }
        *written = !s;
    }
    free(buf[0]);
    free(buf[1]);
    return s;
}

// ---- the folder, whole or not at all
//
// The export is written into a fresh folder beside DIR, "<DIR>.export.<pid>", then swapped in
// with one rename (renameat2 RENAME_EXCHANGE when DIR exists, so that DIR never goes
// missing), and the old folder removed. A kill at any moment leaves DIR as it was or whole
// and new, never the new weights beside the old config.json or another model's vocab files;
// the temporary folders of killed exports are removed by the next export beside them.

// The names an export writes: a folder holding anything else is not replaced.
static const char *const EXPORT_FILES[] = {"config.json", "model.safetensors", "vocab.json",
                                           "merges.txt"};

static int export_file_name(const char *name) {
    for (size_t i = 0; i < sizeof EXPORT_FILES / sizeof EXPORT_FILES[0]; i++)
        if (strcmp(name, EXPORT_FILES[i]) == 0) return 1;
    return 0;
}

// An export's file, or ordo_write_atomic's temporary one of it ("<name>.tmp.<pid>"): what
// the folder of a killed export may hold.
static int export_or_temp_name(const char *name) {
    const char *t = strstr(name, ".tmp.");
    if (!t) return export_file_name(name);
    char base[64];
    if ((size_t)(t - name) >= sizeof base) return 0;
    memcpy(base, name, (size_t)(t - name));
    base[t - name] = 0;
    return export_file_name(base) && t[5] && strspn(t + 5, "0123456789") == strlen(t + 5);
}

// Removes a folder that holds only an export's files (and nothing else); 0 when done.
static int remove_export_folder(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    char path[ORDO_PATH_MAX];
    int r = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            if (!export_or_temp_name(e->d_name) ||
                ordo_path(path, sizeof path, "%s/%s", dir, e->d_name) || unlink(path) != 0)
                r = -1;
        }
    closedir(d);
    return r || rmdir(dir) != 0 ? -1 : 0;
}

// Whether DIR may be replaced by an export: missing, empty, or an earlier export (its
// config.json a GPT2Config with ordo's "ordo" record, and only an export's files in it).
// ORDO_ERR_ARG naming what is in the way otherwise: a run directory's config.json,
// a file an export does not write.
static ordo_status check_target(const char *dir) {
    struct stat st;
    if (lstat(dir, &st) != 0)
        return errno == ENOENT ? ORDO_OK
                               : ordo_error(ORDO_ERR_IO, "--hf %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ordo_error(ORDO_ERR_ARG, "--hf %s: is not a directory (expected a folder to write)",
                          dir);
    DIR *d = opendir(dir);
    if (!d) return ordo_error(ORDO_ERR_IO, "--hf %s: cannot open: %s", dir, strerror(errno));
    char other[256] = "";
    int has_config = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!strcmp(e->d_name, "config.json")) has_config = 1;
        if (!export_file_name(e->d_name) && !other[0])
            snprintf(other, sizeof other, "%s", e->d_name);
    }
    closedir(d);
    char path[ORDO_PATH_MAX];
    if (has_config) {
        json_error_t err;
        ordo_status s = ordo_path(path, sizeof path, "%s/config.json", dir);
        if (s) return s;
        json_t *j = ordo_json_load_file(path, 0, &err);
        int ours = j && json_is_object(json_object_get(j, "ordo")) &&
                   json_is_string(json_object_get(j, "model_type"));
        json_decref(j);
        if (!ours)
            return ordo_error(ORDO_ERR_ARG,
                              "--hf %s: its config.json is not an ordo export's (a run "
                              "directory?); an export replaces the whole folder: choose a new "
                              "or empty one",
                              dir);
    }
    if (other[0])
        return ordo_error(ORDO_ERR_ARG,
                          "--hf %s: holds '%s', which an export does not write; an export "
                          "replaces the whole folder: choose a new or empty one",
                          dir, other);
    return ORDO_OK;
}

// Removes "<dir>.export.<pid>" folders of exports that are no longer running.
static void sweep_stale(const char *dir) {
    char parent[ORDO_PATH_MAX], prefix[ORDO_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    const char *base = slash ? slash + 1 : dir;
    if (slash == parent)
        parent[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(parent, sizeof parent, ".");
    if (snprintf(prefix, sizeof prefix, "%s.export.", base) >= (int)sizeof prefix)
        return; // no temporary of an export can have a longer name
    DIR *d = opendir(parent);
    if (!d) return;
    struct dirent *e;
    size_t n = strlen(prefix);
    char path[ORDO_PATH_MAX];
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, n) != 0) continue;
        char *end;
        long pid = strtol(e->d_name + n, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; // alive, or not ours to ask
        if (!ordo_path(path, sizeof path, "%s/%s", parent, e->d_name))
            (void)remove_export_folder(path);
    }
    closedir(d);
}

// Makes the renames in the folder that holds dir durable.
static void sync_parent(const char *dir) {
    char parent[ORDO_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = 0;
    else if (slash)
        parent[1] = 0;
    else
        snprintf(parent, sizeof parent, ".");
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) (void)!fsync(fd), close(fd);
}

// Puts the finished folder tmp in place of dir.
static ordo_status swap_in(const char *tmp, const char *dir) {
    if (rename(tmp, dir) == 0) { // dir was missing (or an empty folder)
        sync_parent(dir);
        return ORDO_OK;
    }
    if (errno != EEXIST && errno != ENOTEMPTY)
        return ordo_error(ORDO_ERR_IO, "--hf %s: cannot move the export in place: %s", dir,
                          strerror(errno));
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0)
        return ordo_error(ORDO_ERR_IO, "--hf %s: cannot swap the export in place: %s", dir,
                          strerror(errno));
    sync_parent(dir);
    // tmp now holds the previous export
    if (remove_export_folder(tmp) != 0)
        fprintf(stderr, "ordo: warning: %s: the previous export could not be removed\n", tmp);
    return ORDO_OK;
}

ordo_status ordo_export_hf(const char *src, const char *dir, int n_positions,
                           ordo_export_info *info) {
    memset(info, 0, sizeof *info);
    if (n_positions < 0 || n_positions > MAX_POSITIONS)
        return ordo_error(ORDO_ERR_ARG,
                          "--n-positions %d, expected 0..%d (0: the training context)", n_positions,
                          MAX_POSITIONS);
    ordo_status s = ordo_path_check(src);
    if (s) return s;
    struct stat st;
    if (stat(src, &st) != 0)
        return ordo_error(ORDO_ERR_IO, "%s: %s (expected a run directory or a checkpoint file)",
                          src, strerror(errno));
    ordo_train_config cfg;
    ordo_gpt m;
    memset(&m, 0, sizeof m);
    if (S_ISDIR(st.st_mode)) {
        s = open_run(src, &cfg, &m, info);
    } else {
        int refused;
        snprintf(info->checkpoint, sizeof info->checkpoint, "%s", src);
        s = open_one(src, &cfg, &m, &info->step, &refused);
    }
    if (s) return s;
    int T_max = m.cfg.T_max;
    if (n_positions == 0) n_positions = T_max;
    if (m.cfg.pos == ORDO_POS_LEARNED && n_positions != T_max)
        s = ordo_error(ORDO_ERR_ARG,
                       "--n-positions %d: the learned table of %s has %d rows (its training "
                       "context); it is exported as it is (leave --n-positions out)",
                       n_positions, info->checkpoint, T_max);
    info->pos = ordo_pos_name(m.cfg.pos);
    info->n_positions = n_positions;
    char path[ORDO_PATH_MAX], tmp[ORDO_PATH_MAX], parent[ORDO_PATH_MAX], real[PATH_MAX];
    // a symbolic link to a folder: the export replaces the folder it points to, so that the
    // link stays a link and finds the new files
    struct stat ls;
    if (!s && lstat(dir, &ls) == 0 && S_ISLNK(ls.st_mode) && stat(dir, &st) == 0 &&
        S_ISDIR(st.st_mode) && realpath(dir, real))
        dir = real;
    if (!s) s = check_target(dir);
    if (!s) s = ordo_path(tmp, sizeof tmp, "%s.export.%ld", dir, (long)getpid());
    if (!s) { // the parent must exist for the folder to be renamed into it
        snprintf(parent, sizeof parent, "%s", dir);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) *slash = 0, s = ordo_mkdir_p(parent, 0755);
    }
    if (!s) sweep_stale(dir);
    if (!s)
        s = mkdir(tmp, 0755) == 0
                ? ORDO_OK
                : ordo_error(ORDO_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int made_tmp = !s;
    if (!s) s = ordo_path(path, sizeof path, "%s/model.safetensors", tmp);
    if (!s) s = write_weights(&m, path, n_positions);
    if (!s) s = ordo_path(path, sizeof path, "%s/config.json", tmp);
    if (!s) {
        json_t *j = hf_config(&m, &cfg, n_positions, info->step);
        s = ordo_write_json_atomic(path, j);
        json_decref(j);
    }
    int gpt2 = cfg.data && cfg.tokenizer && strcmp(cfg.tokenizer, "gpt2") == 0;
    if (!s && gpt2) s = write_tokenizer(&cfg, tmp, &info->tokenizer_files);
    if (!s) s = swap_in(tmp, dir);
    if (s && made_tmp) (void)remove_export_folder(tmp);
    ordo_gpt_free(&m);
    return s;
}
