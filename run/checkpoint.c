// Checkpoint files (see checkpoint.h). The metadata values are strings, as safetensors
// requires: the config as JSON, the state as decimal integers and hex RNG words, the data and
// header checksums as 16 hex digits each. Here a checkpoint is checked (checksums, step against
// name, finite values) and refused with a reason; nothing here decides which one to use instead:
// run/run.c and run/resume.c walk the list newest first.
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/checkpoint.h"

#include "sys/dist.h"
#include "run/run.h"
#include "sys/fileio.h"

#define FORMAT "ordo-checkpoint-1"
// The metadata of the training state, written before the model's config keys
// (ordo_gpt_meta_init); the values are made in ordo_checkpoint_save in this order.
static const char *const STATE_KEYS[] = {"format", "config",     "step",
                                         "rng",    "dataloader", "optim_t"};
#define NSTATE (int)(sizeof STATE_KEYS / sizeof *STATE_KEYS)

ordo_status ordo_checkpoint_path(char *buf, size_t cap, const char *dir, int64_t step) {
    return ordo_path(buf, cap, "%s/ckpt-%" PRId64 ".safetensors", dir, step);
}

// The step in a checkpoint's file name: `name` is exactly "ckpt-<step>.safetensors" as ordo
// writes it ("ckpt-007" or "ckpt-+7" would be read as ckpt-7's path, so they are not); else -1.
static int64_t name_step(const char *name) {
    int64_t step;
    int used = 0;
    if (sscanf(name, "ckpt-%" SCNd64 ".safetensors%n", &step, &used) != 1 || step < 0 ||
        name[used] != 0)
        return -1;
    char canon[64];
    snprintf(canon, sizeof canon, "ckpt-%" PRId64 ".safetensors", step);
    return strcmp(canon, name) == 0 ? step : -1;
}

static int cmp_desc(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

ordo_status ordo_checkpoint_list(const char *dir, int64_t **steps, int *n) {
    *steps = NULL;
    *n = 0;
    ordo_status s = ordo_path_check(dir);
    if (s) return s;
    DIR *d = opendir(dir);
    if (!d) return ordo_error(ORDO_ERR_IO, "%s: cannot open the run directory", dir);
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t step = name_step(e->d_name);
        if (step < 0) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *steps = ordo_xrealloc(*steps, (size_t)cap * sizeof **steps);
        }
        (*steps)[(*n)++] = step;
    }
    closedir(d);
    if (*n) qsort(*steps, (size_t)*n, sizeof **steps, cmp_desc);
    return ORDO_OK;
}

void ordo_checkpoint_clean_tmp(const char *dir) {
    // only those of dead processes: `eval --save` beside a starting resume writes its own
    ordo_remove_dead_tmp(dir, NULL);
    // and in the eval records' folder, where a killed `eval --save` leaves NAME.json.tmp.<pid>
    char records[ORDO_PATH_MAX];
    if (ordo_path(records, sizeof records, "%s/%s", dir, ORDO_EVAL_DIR) == ORDO_OK)
        ordo_remove_dead_tmp(records, NULL);
    else
        ordo_error_clear();
}

ordo_status ordo_checkpoint_save(const char *dir, const ordo_gpt *m, const ordo_optim *o,
                                 json_t *config, const ordo_train_state *st, int keep) {
    const ordo_params *p = &m->params;
    int per = o->v ? 3 : 2, n = 0;
    ordo_st_write *w = ordo_xcalloc((size_t)p->count * per, sizeof *w);
    char **names = ordo_xcalloc((size_t)p->count * per, sizeof *names);
    for (int i = 0; i < p->count; i++) {
        const ordo_tensor *t = p->t[i];
        size_t off = (size_t)(t->data - p->data);
        const float *src[3] = {t->data, o->m + off, o->v ? o->v + off : NULL};
        for (int k = 0; k < per; k++) {
            size_t len = strlen(t->name) + 16;
            names[n] = ordo_xmalloc(len);
            if (k == 0)
                snprintf(names[n], len, "%s", t->name);
            else
                snprintf(names[n], len, "optim.%c.%s", k == 1 ? 'm' : 'v', t->name);
            w[n].name = names[n];
            w[n].data = src[k];
            w[n].ndim = t->ndim;
            for (int d = 0; d < t->ndim; d++) w[n].shape[d] = t->shape[d];
            n++;
        }
    }
    char *cfg = json_dumps(config, JSON_COMPACT | JSON_SORT_KEYS);
    char v[4][96];
    snprintf(v[0], 96, "%" PRId64, st->step);
    snprintf(v[1], 96, "%016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64, st->rng.s[0],
             st->rng.s[1], st->rng.s[2], st->rng.s[3]);
    snprintf(v[2], 96, "{\"seed\":%" PRIu64 ",\"epoch\":%" PRId64 ",\"cursor\":%" PRId64 "}",
             st->loader.seed, st->loader.epoch, st->loader.cursor);
    snprintf(v[3], 96, "%" PRId64, st->optim_t);
    const char *keys[NSTATE + ORDO_GPT_NMETA + 1];
    const char *vals[NSTATE + ORDO_GPT_NMETA + 1] = {FORMAT, cfg, v[0], v[1], v[2], v[3]};
    ordo_gpt_meta mt;
    ordo_gpt_meta_init(&mt, &m->cfg);
    for (int i = 0; i < NSTATE; i++) keys[i] = STATE_KEYS[i];
    for (int i = 0; i < mt.n; i++) {
        keys[NSTATE + i] = mt.keys[i];
        vals[NSTATE + i] = mt.vals[i];
    }
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_checkpoint_path(path, sizeof path, dir, st->step);
    int nkeys = NSTATE + mt.n;
    if (st->milestone) { // only on milestones: the other checkpoints' metadata stays as it was
        keys[nkeys] = "milestone";
        vals[nkeys++] = "1";
    }
    if (!s) s = ordo_safetensors_write_hashed(path, w, n, keys, vals, nkeys);
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    free(w);
    free(cfg);
    if (s) return s;
    int64_t *steps;
    int count;
    if (ordo_checkpoint_list(dir, &steps, &count) == ORDO_OK) {
        for (int i = keep; i < count; i++) {
            if (steps[i] == st->step || ordo_checkpoint_is_milestone(dir, steps[i])) continue;
            if (ordo_checkpoint_path(path, sizeof path, dir, steps[i]) == ORDO_OK) unlink(path);
        }
        free(steps);
    }
    return ORDO_OK;
}

int ordo_checkpoint_is_milestone(const char *dir, int64_t step) {
    char path[ORDO_PATH_MAX];
    ordo_safetensors *f;
    if (ordo_checkpoint_path(path, sizeof path, dir, step) || ordo_safetensors_open(path, &f)) {
        ordo_error_clear();
        return 0;
    }
    const char *v = ordo_safetensors_meta(f, "milestone");
    int yes = v && strcmp(v, "1") == 0;
    ordo_safetensors_close(f);
    return yes;
}

void ordo_checkpoint_steps_text(const char *dir, const int64_t *steps, int n, ordo_strbuf *out) {
    if (n == 0) ordo_strbuf_printf(out, "none");
    for (int i = 0; i < n; i++)
        ordo_strbuf_printf(out, "%s%" PRId64 "%s", i ? ", " : "", steps[i],
                           ordo_checkpoint_is_milestone(dir, steps[i]) ? " (milestone)" : "");
}

static ordo_status parse_i64(const char *path, const char *key, const char *v, int64_t *out) {
    char *end;
    if (!v) return ordo_error(ORDO_ERR_FORMAT, "%s: metadata has no \"%s\"", path, key);
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno || x < 0)
        return ordo_error(ORDO_ERR_FORMAT, "%s: metadata \"%s\" is '%s', expected an integer >= 0",
                          path, key, v);
    *out = x;
    return ORDO_OK;
}

// A file without a checksum is noted once per path: resuming opens the checkpoint it resolves
// the config from a second time to restore it.
static void note_unchecked(const char *path, const char *why) {
    static char last[ORDO_PATH_MAX];
    if (strcmp(last, path) == 0) return;
    snprintf(last, sizeof last, "%s", path);
    if (ordo_dist_rank() == 0)
        fprintf(stderr, "ordo: note: %s has no checksum (%s); loading it unchecked\n", path, why);
}

// The metadata keys ordo has written into its checkpoints, before the header checksum.
static const char *const KNOWN_KEYS[] = {"format",
                                         "config",
                                         "step",
                                         "rng",
                                         "dataloader",
                                         "optim_t",
                                         "V",
                                         "C",
                                         "L",
                                         "NH",
                                         "T_max",
                                         "pos",
                                         "embed_scale",
                                         "untied_head",
                                         "rope_scaling",
                                         "rope_factor",
                                         "rope_orig_context",
                                         "yarn_alpha",
                                         "yarn_beta",
                                         "yarn_temperature",
                                         "rope_fraction",
                                         "rope_heads",
                                         "alibi_heads",
                                         "pos_scale",
                                         "dpb_dim",
                                         "dpb_depth",
                                         "dpb_log_distance",
                                         "cope_max",
                                         "t5_max_distance",
                                         "fox_gate_bias",
                                         "pos_random",
                                         "milestone",
                                         ORDO_ST_HASH_KEY};

// A checkpoint with a data checksum but no header checksum: an older ordo's, whose header is
// read on trust with a note (once per path, as the no-checksum note), unless a metadata key is
// none that ordo ever wrote: then the header checksum's own key is the likeliest thing a
// flipped bit changed, and the header is refused as damaged.
static ordo_status check_old_header(const ordo_safetensors *f) {
    const char *path = ordo_safetensors_path(f);
    for (int i = 0; i < ordo_safetensors_meta_count(f); i++) {
        const char *key = ordo_safetensors_meta_key(f, i);
        size_t k = 0, n = sizeof KNOWN_KEYS / sizeof *KNOWN_KEYS;
        while (k < n && strcmp(KNOWN_KEYS[k], key) != 0) k++;
        if (k == n)
            return ordo_error(ORDO_ERR_FORMAT,
                              "%s: metadata key \"%s\" is none that ordo writes, and there is no "
                              "header checksum (%s) to vouch for the header: the header is "
                              "damaged",
                              path, key, ORDO_ST_HEADER_HASH_KEY);
    }
    static char last[ORDO_PATH_MAX];
    if (strcmp(last, path) != 0 && ordo_dist_rank() == 0)
        fprintf(stderr,
                "ordo: note: %s has no header checksum (written by an older ordo?); its step, "
                "training state and config are taken unchecked\n",
                path);
    snprintf(last, sizeof last, "%s", path);
    return ORDO_OK;
}

// What can be checked before the tensors are read: the step of the metadata (-1: none)
// against a ckpt-<step> file name, then the header and the data against their checksums (the
// data the costly part: one pass over the file), or a note when the file has none.
static ordo_status check_intact(const ordo_safetensors *f, int64_t step, const char *unchecked) {
    const char *path = ordo_safetensors_path(f);
    const char *slash = strrchr(path, '/');
    int64_t named = name_step(slash ? slash + 1 : path);
    if (step >= 0 && named >= 0 && named != step)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: its metadata says step %" PRId64 ", its name step %" PRId64
                          " (renamed, or copied over another step's file?)",
                          path, step, named);
    int checked;
    ordo_status s = ordo_safetensors_verify(f, &checked);
    if (!s && !(checked & ORDO_ST_CHECKED_DATA)) note_unchecked(path, unchecked);
    const char *fmt = ordo_safetensors_meta(f, "format");
    if (!s && (checked & ORDO_ST_CHECKED_DATA) && !(checked & ORDO_ST_CHECKED_HEADER) && fmt &&
        strcmp(fmt, FORMAT) == 0)
        s = check_old_header(f);
    return s;
}

ordo_status ordo_checkpoint_open(const char *path, ordo_safetensors **f, json_t **config,
                                 ordo_train_state *st) {
    *config = NULL;
    ordo_status s = ordo_safetensors_open(path, f);
    if (s) return s;
    const char *fmt = ordo_safetensors_meta(*f, "format");
    if (!fmt || strcmp(fmt, FORMAT) != 0) {
        s = ordo_error(ORDO_ERR_FORMAT, "%s: not an ordo checkpoint (format %s, expected %s)", path,
                       fmt ? fmt : "missing", FORMAT);
        goto fail;
    }
    memset(st, 0, sizeof *st);
    if ((s = parse_i64(path, "step", ordo_safetensors_meta(*f, "step"), &st->step)) ||
        (s = parse_i64(path, "optim_t", ordo_safetensors_meta(*f, "optim_t"), &st->optim_t)))
        goto fail;
    const char *rng = ordo_safetensors_meta(*f, "rng");
    int used = 0;
    if (!rng || strlen(rng) != 4 * 16 + 3 || strspn(rng, "0123456789abcdef ") != strlen(rng) ||
        sscanf(rng, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 "%n", &st->rng.s[0],
               &st->rng.s[1], &st->rng.s[2], &st->rng.s[3], &used) != 4 ||
        rng[used] != 0) { // exactly what save writes: four 16-digit hex words
        s = ordo_error(ORDO_ERR_FORMAT, "%s: metadata \"rng\" is missing or malformed", path);
        goto fail;
    }
    json_error_t err;
    const char *dl = ordo_safetensors_meta(*f, "dataloader");
    json_t *j = dl ? json_loads(dl, 0, &err) : NULL;
    json_int_t seed, epoch, cursor;
    if (!j ||
        json_unpack(j, "{s:I, s:I, s:I}", "seed", &seed, "epoch", &epoch, "cursor", &cursor)) {
        json_decref(j);
        s = ordo_error(ORDO_ERR_FORMAT, "%s: metadata \"dataloader\" is missing or malformed",
                       path);
        goto fail;
    }
    json_decref(j);
    st->loader.seed = (uint64_t)seed;
    st->loader.epoch = epoch;
    st->loader.cursor = cursor;
    const char *cfg = ordo_safetensors_meta(*f, "config");
    *config = cfg ? json_loads(cfg, 0, &err) : NULL;
    if (!json_is_object(*config)) {
        s = ordo_error(ORDO_ERR_FORMAT, "%s: metadata \"config\" is missing or not a JSON object",
                       path);
        goto fail;
    }
    const char *ms = ordo_safetensors_meta(*f, "milestone");
    st->milestone = ms && strcmp(ms, "1") == 0;
    if ((s = check_intact(*f, st->step, "written by an older ordo?"))) goto fail;
    return ORDO_OK;
fail:
    json_decref(*config);
    *config = NULL;
    ordo_safetensors_close(*f);
    *f = NULL;
    return s;
}

// Copies F32 tensor `name` of f into dst as ordo_safetensors_read_f32 does, then refuses a NaN
// or an infinity (a bit flip in an exponent, or a run that diverged before it was saved):
// ORDO_ERR_NUMERIC naming the tensor, the index and the value.
static ordo_status read_finite(const ordo_safetensors *f, const char *name, const int *shape,
                               int ndim, float *dst) {
    ordo_status s = ordo_safetensors_read_f32(f, name, shape, ndim, dst);
    if (s) return s;
    size_t n = 1;
    for (int d = 0; d < ndim; d++) n *= (size_t)shape[d];
    // an all-exponent-bits test over the bits, which vectorizes; the index only on failure
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, dst + i, sizeof u);
        bad |= (u & 0x7f800000u) == 0x7f800000u;
    }
    if (!bad) return ORDO_OK;
    size_t i = 0;
    while (isfinite(dst[i])) i++;
    return ordo_error(ORDO_ERR_NUMERIC,
                      "%s: tensor %s holds %s at index %zu (expected finite values)",
                      ordo_safetensors_path(f), name,
                      isnan(dst[i]) ? "NaN"
                      : dst[i] > 0  ? "+inf"
                                    : "-inf",
                      i);
}

ordo_status ordo_checkpoint_load(ordo_safetensors *f, ordo_gpt *m, ordo_optim *o) {
    ordo_params *p = &m->params;
    char name[256];
    for (int i = 0; i < p->count; i++) {
        ordo_tensor *t = p->t[i];
        size_t off = (size_t)(t->data - p->data);
        ordo_status s = read_finite(f, t->name, t->shape, t->ndim, t->data);
        if (s) return s;
        if (!o) continue;
        snprintf(name, sizeof name, "optim.m.%s", t->name);
        if ((s = read_finite(f, name, t->shape, t->ndim, o->m + off))) return s;
        if (o->v) {
            snprintf(name, sizeof name, "optim.v.%s", t->name);
            if ((s = read_finite(f, name, t->shape, t->ndim, o->v + off))) return s;
        }
    }
    return ORDO_OK;
}

// Whether f names the model's tensors as `ordo export` and GPT2LMHeadModel write them, under
// "transformer." (lm_head.weight stays outside), rather than as ordo's checkpoints do.
static int prefixed(const ordo_safetensors *f) {
    return !ordo_safetensors_find(f, "wte.weight") &&
           ordo_safetensors_find(f, "transformer.wte.weight");
}

// The name of model tensor `name` in f, into buf[cap] (ORDO_ST_NAME_MAX).
static const char *file_name(const ordo_safetensors *f, const char *name, char *buf, size_t cap) {
    int under = prefixed(f) && strcmp(name, "lm_head.weight") != 0;
    snprintf(buf, cap, "%s%s", under ? "transformer." : "", name);
    return buf;
}

const ordo_st_tensor *ordo_checkpoint_find_weight(const ordo_safetensors *f, const char *name) {
    char buf[256];
    return ordo_safetensors_find(f, file_name(f, name, buf, sizeof buf));
}

// A file without the token table under either naming is no GPT-2 file: the message lists a
// few of its tensor names, so that a Llama or BERT file says what it is rather than that one
// name is missing.
static ordo_status no_token_table(const ordo_safetensors *f) {
    ordo_strbuf b = {0};
    int n = ordo_safetensors_count(f);
    for (int i = 0; i < n && i < 4; i++)
        ordo_strbuf_printf(&b, "%s%s", i ? ", " : "", ordo_safetensors_at(f, i)->name);
    if (n > 4) ordo_strbuf_printf(&b, ", ... (%d in all)", n);
    ordo_status s = ordo_error(ORDO_ERR_FORMAT,
                               "%s: no tensor wte.weight or transformer.wte.weight: not GPT-2 "
                               "names as ordo reads them (its tensors: %s)",
                               ordo_safetensors_path(f), n ? b.buf : "none");
    ordo_strbuf_free(&b);
    return s;
}

// The block index of a tensor name "h.<i>.<rest>" (bare or under "transformer."), with
// *rest on what follows "h.<i>."; -1 for a name outside the blocks.
static int block_of(const char *name, const char **rest) {
    if (strncmp(name, "transformer.", 12) == 0) name += 12;
    int i, used = 0;
    if (sscanf(name, "h.%d.%n", &i, &used) != 1 || used == 0 || i < 0) return -1;
    *rest = name + used;
    return i;
}

// The layers f holds: 1 + the largest block index among its tensor names (0: none).
static int file_layers(const ordo_safetensors *f) {
    int L = 0;
    const char *rest;
    for (int i = 0; i < ordo_safetensors_count(f); i++) {
        int b = block_of(ordo_safetensors_at(f, i)->name, &rest);
        if (b >= L) L = b + 1;
    }
    return L;
}

static int all_zero(const ordo_safetensors *f, const ordo_st_tensor *t) {
    const unsigned char *b = ordo_safetensors_data(f, t);
    unsigned char any = 0;
    for (size_t i = 0; i < t->nbytes; i++) any |= b[i];
    return !any;
}

// Whether tensor t of f, which no parameter of m reads, carries nothing m would lose: an ordo
// checkpoint's optimizer moments, GPT-2's causal-mask buffers (attn.bias, attn.masked_bias:
// ordo's mask is causal), a tied head's copy of wte (as Hugging Face files hold it), or the
// table of zeros an export of a --pos none run writes.
static int droppable(const ordo_safetensors *f, const ordo_st_tensor *t, const ordo_gpt *m) {
    const char *rest, *name = t->name;
    if (strncmp(name, "optim.m.", 8) == 0 || strncmp(name, "optim.v.", 8) == 0) return 1;
    if (block_of(name, &rest) >= 0 &&
        (!strcmp(rest, "attn.bias") || !strcmp(rest, "attn.masked_bias")))
        return 1;
    if (!m->lm_head && strcmp(name, "lm_head.weight") == 0) {
        const ordo_st_tensor *wte = ordo_checkpoint_find_weight(f, "wte.weight");
        return wte && wte->nbytes == t->nbytes &&
               memcmp(ordo_safetensors_data(f, wte), ordo_safetensors_data(f, t), t->nbytes) == 0;
    }
    if (!ordo_gpt_wpe(m) && t == ordo_checkpoint_find_weight(f, "wpe.weight"))
        return all_zero(f, t);
    return 0;
}

// Every tensor of f has a place in m, or is droppable: a run started from a file must not
// silently leave out weights (a second layer, a learned position table, an untied head),
// which would make every number of the run another model's. ORDO_ERR_ARG naming the first
// few such tensors and, where the layers differ, both layer counts.
static ordo_status refuse_unused(const ordo_safetensors *f, const ordo_gpt *m) {
    int n = ordo_safetensors_count(f), unused = 0, wpe = 0, head = 0;
    char *used = ordo_xcalloc((size_t)(n ? n : 1), 1);
    const ordo_st_tensor *first = ordo_safetensors_at(f, 0);
    for (int i = 0; i < m->params.count; i++) {
        const ordo_st_tensor *t = ordo_checkpoint_find_weight(f, m->params.t[i]->name);
        if (t) used[t - first] = 1;
    }
    ordo_strbuf list = {0};
    for (int i = 0; i < n; i++) {
        const ordo_st_tensor *t = ordo_safetensors_at(f, i);
        if (used[i] || droppable(f, t, m)) continue;
        if (unused++ < 4) ordo_strbuf_printf(&list, "%s%s", unused > 1 ? ", " : "", t->name);
        wpe |= t == ordo_checkpoint_find_weight(f, "wpe.weight");
        head |= strcmp(t->name, "lm_head.weight") == 0;
    }
    free(used);
    ordo_status s = ORDO_OK;
    if (unused) {
        int L = file_layers(f);
        char why[256] = "";
        if (L > m->cfg.L)
            snprintf(why, sizeof why,
                     "; the file holds %d layers (h.0 .. h.%d), this run has "
                     "--layers %d",
                     L, L - 1, m->cfg.L);
        else if (wpe)
            snprintf(why, sizeof why, "; a learned position table, but this run has --pos %s",
                     ordo_pos_name(m->cfg.pos));
        else if (head)
            snprintf(why, sizeof why, "; an LM head other than wte (untied): add --untied-head");
        s = ordo_error(ORDO_ERR_ARG,
                       "%s: %d tensor(s) of the file have no place in this model and would be "
                       "dropped: %s%s%s; a run starts from all of a file's weights or not at all",
                       ordo_safetensors_path(f), unused, list.buf, unused > 4 ? ", ..." : "", why);
    }
    ordo_strbuf_free(&list);
    return s;
}

ordo_status ordo_checkpoint_load_weights(const char *path, ordo_gpt *m) {
    ordo_safetensors *f;
    ordo_status s = ordo_safetensors_open(path, &f);
    if (s) return s;
    // an ordo checkpoint's step is checked against its name; other files have none
    const char *fmt = ordo_safetensors_meta(f, "format");
    int64_t step = -1;
    if (fmt && strcmp(fmt, FORMAT) == 0)
        s = parse_i64(path, "step", ordo_safetensors_meta(f, "step"), &step);
    if (!s) s = check_intact(f, step, "written by another program or an older ordo?");
    // the LM head: an untied model needs the file's own head, and a tied one must
    // not silently drop a trained one (ordo marks its untied files; HF files may hold a tied
    // copy of wte as lm_head.weight, which the tied model reads as wte anyway)
    const char *untied = ordo_safetensors_meta(f, "untied_head");
    if (!s && !ordo_checkpoint_find_weight(f, "wte.weight")) s = no_token_table(f);
    if (!s && m->lm_head && !ordo_safetensors_find(f, "lm_head.weight"))
        s = ordo_error(ORDO_ERR_ARG,
                       "%s: no lm_head.weight: its LM head is tied to wte, but --untied-head "
                       "wants a separate one (train without --untied-head)",
                       path);
    if (!s && !m->lm_head && untied && strcmp(untied, "1") == 0)
        s = ordo_error(ORDO_ERR_ARG,
                       "%s: its LM head is untied (lm_head.weight), which a tied model would "
                       "drop; add --untied-head",
                       path);
    if (!s) s = refuse_unused(f, m);
    char name[256];
    for (int i = 0; i < m->params.count && !s; i++) {
        ordo_tensor *t = m->params.t[i];
        s = read_finite(f, file_name(f, t->name, name, sizeof name), t->shape, t->ndim, t->data);
    }
    ordo_safetensors_close(f);
    return s;
}
