// The n-gram baselines of a run's data (see ngram_levels.h): the fit on the training split,
// scoring in eval's windows, and the cache, one JSON file per data hash holding every
// (length, mode, stride) computed so far. A cache is only ever a copy of what a fit gives:
// one that does not read, or reads wrong, is fitted again, never an error.
#include "eval/ngram_levels.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/evaluate.h"
#include "sys/clock.h"
#include "sys/fileio.h"
#include "sys/hash.h"

// The cache file's format; a change of the method or of what is scored changes it.
#define CACHE_FORMAT "ordo-ngram-levels-1"

ordo_status ordo_ngram_level_score(const ordo_ngram *m, const int32_t *val, const int32_t *targets,
                                   size_t n, int T, ordo_eval_mode mode, int stride,
                                   ordo_ngram_level *out) {
    int N = m->order;
    *out = (ordo_ngram_level){.context = T, .mode = mode, .stride = stride, .orders = N};
    for (int j = 0; j < N; j++) out->loss[j] = NAN;
    if (T < 1) return ordo_error(ORDO_ERR_ARG, "context %d, expected >= 1", T);
    if (n < (size_t)T + 1)
        return ordo_error(ORDO_ERR_ARG, "the stream has %zu tokens; a window of %d needs %d", n, T,
                          T + 1);
    if (mode == ORDO_EVAL_NONOVERLAP && stride <= 0) out->stride = stride = T;
    if (stride < 1 || (mode == ORDO_EVAL_SLIDING && stride > T))
        return ordo_error(ORDO_ERR_ARG, "--sliding-stride %d, expected 1..T (%d)", stride, T);
    double sum[ORDO_NGRAM_MAX_ORDER] = {0}, p[ORDO_NGRAM_MAX_ORDER];
    ordo_eval_window_iter it = {.mode = mode, .n = n, .T = T, .S = stride};
    size_t b;
    int from;
    while (ordo_eval_window_next(&it, &b, &from)) {
        out->windows++;
        for (int t = from; t < T; t++) {
            size_t y = b + (size_t)t + 1; // the target; the window gives it b..y-1
            if (targets && targets[y] < 0) continue;
            if (val[y] < 0 || val[y] >= m->vocab)
                return ordo_error(ORDO_ERR_ARG,
                                  "token %zu of the eval set is id %d, expected 0..%d", y, val[y],
                                  m->vocab - 1);
            int k = t + 1 < N - 1 ? t + 1 : N - 1; // the context an order-N model can use
            ordo_ngram_probs(m, val + y - k, k, p);
            for (int j = 0; j < N; j++) sum[j] -= log(p[j]);
            out->targets++;
        }
    }
    for (int j = 0; j < N && out->targets; j++) out->loss[j] = sum[j] / (double)out->targets;
    return ORDO_OK;
}

const char *ordo_ngram_cache_dir(char *buf, size_t cap) {
    const char *v = getenv("ORDO_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    int len = v && *v   ? snprintf(buf, cap, "%s/ngram", v)
              : x && *x ? snprintf(buf, cap, "%s/ordo/ngram", x)
              : h && *h ? snprintf(buf, cap, "%s/.cache/ordo/ngram", h)
                        : -1;
    return len > 0 && (size_t)len < cap ? buf : NULL;
}

// The data's hash: what the levels depend on besides the lengths (the method, the vocab, the
// order, the training ids, the validation ids and their mask).
static uint64_t data_key(const ordo_rundata *d, const int32_t *train, int N) {
    ordo_hasher h;
    ordo_hasher_init(&h);
    int64_t head[5] = {d->vocab_size, N, (int64_t)d->n_train, (int64_t)d->nval,
                       d->val_targets != NULL};
    ordo_hasher_update(&h, CACHE_FORMAT, strlen(CACHE_FORMAT));
    ordo_hasher_update(&h, head, sizeof head);
    ordo_hasher_update(&h, train, d->n_train * sizeof *train);
    ordo_hasher_update(&h, d->val, d->nval * sizeof *d->val);
    if (d->val_targets) ordo_hasher_update(&h, d->val_targets, d->nval * sizeof *d->val_targets);
    return ordo_hasher_digest(&h);
}

// How eval scores length T of d (evaluate.c's length_plan): the mode and stride, or 0 when it
// does not (a copy/reverse example longer than T).
static int plan(const ordo_rundata *d, int T, ordo_eval_mode mode, int sliding, int *stride,
                ordo_eval_mode *as) {
    *as = mode;
    *stride = mode == ORDO_EVAL_SLIDING
                  ? (sliding > 0 ? (sliding < T ? sliding : T) : (T / 4 > 0 ? T / 4 : 1))
                  : T;
    if (d->example_len > 0) {
        if (T < d->example_len) return 0;
        *as = ORDO_EVAL_NONOVERLAP, *stride = d->example_len;
    }
    return 1;
}

json_t *ordo_ngram_level_to_json(const ordo_ngram_level *l) {
    json_t *loss = json_array();
    for (int j = 0; j < l->orders; j++)
        json_array_append_new(loss, isfinite(l->loss[j]) ? json_real(l->loss[j]) : json_null());
    return json_pack("{s:i, s:s, s:i, s:I, s:I, s:o}", "context", l->context, "mode",
                     ordo_eval_mode_name(l->mode), "stride", l->stride, "targets",
                     (json_int_t)l->targets, "windows", (json_int_t)l->windows, "loss", loss);
}

// The cached level (T, mode, stride) of the file's levels into *l: 1 when there, well formed.
static int level_find(json_t *levels, int T, ordo_eval_mode mode, int stride, int N,
                      ordo_ngram_level *l) {
    size_t i;
    json_t *e;
    json_array_foreach(levels, i, e) {
        json_t *c = json_object_get(e, "context"), *md = json_object_get(e, "mode"),
               *s = json_object_get(e, "stride"), *loss = json_object_get(e, "loss"),
               *tg = json_object_get(e, "targets"), *w = json_object_get(e, "windows");
        if (!json_is_integer(c) || !json_is_string(md) || !json_is_integer(s) ||
            !json_is_integer(tg) || !json_is_integer(w) || !json_is_array(loss) ||
            json_array_size(loss) != (size_t)N)
            return 0; // a damaged file: fitted again
        if (json_integer_value(c) != T || json_integer_value(s) != stride ||
            strcmp(json_string_value(md), ordo_eval_mode_name(mode)) != 0)
            continue;
        *l = (ordo_ngram_level){.context = T,
                                .mode = mode,
                                .stride = stride,
                                .orders = N,
                                .targets = (size_t)json_integer_value(tg),
                                .windows = (size_t)json_integer_value(w)};
        for (int j = 0; j < N; j++) {
            json_t *v = json_array_get(loss, (size_t)j);
            if (!json_is_number(v) && !json_is_null(v)) return 0;
            l->loss[j] = json_is_null(v) ? NAN : json_number_value(v);
        }
        return 1;
    }
    return 0;
}

ordo_status ordo_ngram_levels(const ordo_rundata *d, const ordo_ngram_request *q,
                              ordo_ngram_level *out, int *cached, double *fit_s) {
    *cached = 0, *fit_s = 0;
    int N = q->order;
    if (N < 1 || N > ORDO_NGRAM_MAX_ORDER)
        return ordo_error(ORDO_ERR_ARG, "--order %d, expected 1..%d", N, ORDO_NGRAM_MAX_ORDER);
    if (d->n_train == 0)
        return ordo_error(ORDO_ERR_ARG, "the training split is empty: nothing to fit");
    int32_t *train = ordo_xmalloc(d->n_train * sizeof *train);
    ordo_rundata_ids(d, 0, d->n_train, train);
    char path[ORDO_PATH_MAX] = "", hex[17];
    ordo_hash_hex(data_key(d, train, N), hex);
    json_t *file = NULL, *levels = NULL;
    ordo_status s = ORDO_OK;
    if (q->cache_dir && !(s = ordo_path(path, sizeof path, "%s/%s.json", q->cache_dir, hex))) {
        json_error_t err;
        if (access(path, F_OK) == 0) { // absent: nothing cached yet; else it must read
            file = ordo_json_load_file(path, JSON_REJECT_DUPLICATES, &err);
            levels = file ? json_object_get(file, "levels") : NULL;
            json_t *fmt = file ? json_object_get(file, "format") : NULL;
            if (!json_is_array(levels) || !json_is_string(fmt) ||
                strcmp(json_string_value(fmt), CACHE_FORMAT) != 0) {
                fprintf(stderr,
                        "ordo: note: the n-gram cache %s does not read (%s); fitting "
                        "again\n",
                        path, file ? "not this format" : err.text);
                levels = NULL;
            }
        }
    }
    if (!levels) {
        json_decref(file);
        file = json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:[]}", "format", CACHE_FORMAT,
                         "method", "interpolated Witten-Bell", "data", hex, "vocab", d->vocab_size,
                         "order", N, "train_tokens", (json_int_t)d->n_train, "eval_tokens",
                         (json_int_t)d->nval, "levels");
        levels = json_object_get(file, "levels");
    }
    ordo_ngram m = {0};
    int fitted = 0, added = 0;
    for (int i = 0; i < q->nlen && !s; i++) {
        for (int md = 0; md < 2 && !s; md++) {
            int T = q->lengths[i], stride;
            ordo_eval_mode mode;
            ordo_ngram_level *l = &out[2 * i + md];
            *l = (ordo_ngram_level){.context = T, .mode = (ordo_eval_mode)md, .orders = N};
            for (int j = 0; j < N; j++) l->loss[j] = NAN;
            if (!plan(d, T, (ordo_eval_mode)md, q->sliding_stride, &stride, &mode) ||
                d->nval < (size_t)T + 1)
                continue;
            if (level_find(levels, T, mode, stride, N, l)) continue;
            if (!fitted) {
                double t0 = ordo_now_s();
                s = ordo_ngram_fit(&m, train, d->n_train, d->vocab_size, N);
                *fit_s = ordo_now_s() - t0;
                fitted = 1;
                if (s) break;
            }
            s = ordo_ngram_level_score(&m, d->val, d->val_targets, d->nval, T, mode, stride, l);
            if (!s) json_array_append_new(levels, ordo_ngram_level_to_json(l)), added = 1;
        }
    }
    ordo_ngram_free(&m);
    free(train);
    *cached = !fitted;
    if (!s && added && q->cache_dir && !(s = ordo_mkdir_p(q->cache_dir, 0755)))
        s = ordo_write_json_atomic(path, file);
    json_decref(file);
    return s;
}
