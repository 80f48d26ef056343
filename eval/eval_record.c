// A run's saved evaluations as named records (see eval_record.h): their names, writing and
// finding them, and the request that makes one again.
#include "eval/eval_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "framework/safetensors.h"
#include "run/checkpoint.h"
#include "sys/fileio.h"

const char *ordo_eval_default_name(const ordo_eval_report *report, char *buf, size_t cap) {
    const ordo_eval_rope *rope = &report->rope_scaling;
    const char *src = ordo_eval_str_value(rope->source);
    const char *scaling = ordo_eval_str_value(rope->scaling);
    const char *method = ordo_eval_str_value(report->extend_pos.method);
    const char *mode = ordo_eval_str_value(report->mode);
    int n;
    if (src && scaling && strcmp(src, "eval") == 0 && strcmp(scaling, "none") == 0)
        n = snprintf(buf, cap, "unscaled");
    else if (src && scaling && strcmp(src, "eval") == 0) {
        n = snprintf(buf, cap, "%s-x%g", scaling,
                     rope->factor.has == ORDO_EVAL_SET ? rope->factor.v : 0.0);
        // yarn with another ramp or without its temperature: a record of its own
        if (rope->yarn_alpha.has == ORDO_EVAL_SET && n >= 0 && (size_t)n < cap)
            n += snprintf(buf + n, cap - (size_t)n, "-a%g", rope->yarn_alpha.v);
        if (rope->yarn_beta.has == ORDO_EVAL_SET && n >= 0 && (size_t)n < cap)
            n += snprintf(buf + n, cap - (size_t)n, "-b%g", rope->yarn_beta.v);
        if (ordo_eval_int_or(rope->yarn_temperature, 1) == 0 && n >= 0 && (size_t)n < cap)
            n += snprintf(buf + n, cap - (size_t)n, "-notemp");
    } else if (method)
        n = snprintf(buf, cap, "extend-%s", method);
    else if (report->variant.positions.has != ORDO_EVAL_ABSENT)
        n = snprintf(buf, cap, "drawn"); // --pos-random's draw at eval too
    else
        n = snprintf(buf, cap, "base");
    if (mode && strcmp(mode, "sliding") == 0 && n >= 0 && (size_t)n < cap) {
        // a stride other than the default (T/4) is a record of its own, not base-sliding's
        long long stride = ordo_eval_int_or(report->request.sliding_stride, 0);
        if (stride > 0)
            snprintf(buf + n, cap - (size_t)n, "-sliding-stride%lld", stride);
        else
            snprintf(buf + n, cap - (size_t)n, "-sliding");
    }
    return buf;
}

const char *ordo_eval_record_name(const ordo_eval_report *record, char *buf, size_t cap) {
    const char *name = ordo_eval_str_value(record->name);
    if (!name) return ordo_eval_default_name(record, buf, cap);
    snprintf(buf, cap, "%s", name);
    return buf;
}

ordo_status ordo_eval_name_check(const char *what, const char *name) {
    size_t n = strlen(name);
    int ok = n > 0 && n <= ORDO_EVAL_NAME_MAX && name[0] != '.' &&
             strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
    if (ok) return ORDO_OK;
    return ordo_error(ORDO_ERR_ARG,
                      "%s '%s': expected 1..%d characters of A-Z a-z 0-9 . _ - not starting "
                      "with '.' (it names the file RUN/eval/NAME.json)",
                      what, name, ORDO_EVAL_NAME_MAX);
}

// RUN/eval.json, the file older ordo versions and scripts read (demo.sh,
// experiment_tables.py), as a link to eval/base.json: one file, so that the two never
// disagree. Made once (an older run's copy is replaced); where it cannot be made (a full
// disk, a file system without links) an older copy is removed rather than left stale. The
// record itself is saved by then, so this only warns.
static void legacy_link(const char *run_dir) {
    char path[ORDO_PATH_MAX], have[32];
    if (ordo_path(path, sizeof path, "%s/eval.json", run_dir)) {
        ordo_error_clear();
        return;
    }
    ssize_t n = readlink(path, have, sizeof have - 1);
    if (n >= 0) have[n] = 0;
    if (n >= 0 && strcmp(have, ORDO_EVAL_DIR "/base.json") == 0) return;
    if (ordo_symlink_atomic(ORDO_EVAL_DIR "/base.json", path) == ORDO_OK) return;
    int gone = unlink(path) == 0 || errno == ENOENT;
    fprintf(stderr, "ordo: warning: %s; %s\n", ordo_error_message(),
            gone ? "the record is eval/base.json (older scripts that read eval.json will not "
                   "find it)"
                 : "eval.json holds an older record: eval/base.json is the run's record");
    ordo_error_clear();
}

ordo_status ordo_eval_save(const char *run_dir, const char *name, ordo_eval_report *report) {
    ordo_status s = ordo_eval_name_check("eval record name", name);
    if (s) return s;
    free(report->name.v);
    report->name = ordo_eval_str_of(name);
    char dir[ORDO_PATH_MAX], path[ORDO_PATH_MAX];
    if ((s = ordo_path(dir, sizeof dir, "%s/%s", run_dir, ORDO_EVAL_DIR)) ||
        (s = ordo_path(path, sizeof path, "%s/%s.json", dir, name)) ||
        (s = ordo_write_atomic_check(path)))
        return s;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return ordo_error(ORDO_ERR_IO, "%s: cannot make the folder of the eval records: %s", dir,
                          strerror(errno));
    // what a killed eval --save left in the folder (its process gone: a live writer's stays)
    ordo_remove_dead_tmp(dir, NULL);
    json_t *j = ordo_eval_report_to_json(report);
    s = ordo_write_json_atomic(path, j);
    json_decref(j);
    if (!s && strcmp(name, "base") == 0) legacy_link(run_dir);
    return s;
}

int ordo_eval_load(const char *run_dir, const char *name, ordo_eval_report *out) {
    char path[ORDO_PATH_MAX], buf[ORDO_EVAL_NAME_MAX + 16];
    memset(out, 0, sizeof *out);
    if (!ordo_path(path, sizeof path, "%s/%s/%s.json", run_dir, ORDO_EVAL_DIR, name) &&
        !ordo_eval_report_read(path, out))
        return 1;
    ordo_eval_report_free(out);
    ordo_error_clear();
    int ok = !ordo_path(path, sizeof path, "%s/eval.json", run_dir) &&
             !ordo_eval_report_read(path, out) &&
             strcmp(ordo_eval_record_name(out, buf, sizeof buf), name) == 0;
    ordo_error_clear();
    if (!ok) ordo_eval_report_free(out);
    return ok;
}

// The data checksum in the metadata of run_dir's checkpoint of `step` into hex[17]: 1, or 0
// when there is no such file or it has no checksum.
static int ckpt_xxh3(const char *run_dir, long long step, char hex[17]) {
    char path[ORDO_PATH_MAX];
    ordo_safetensors *f;
    struct stat st;
    int ok = !ordo_checkpoint_path(path, sizeof path, run_dir, step) && stat(path, &st) == 0 &&
             !ordo_safetensors_open(path, &f);
    ordo_error_clear();
    if (!ok) return 0;
    const char *h = ordo_safetensors_meta(f, ORDO_ST_HASH_KEY);
    ok = h && strlen(h) == 16;
    if (ok) memcpy(hex, h, 17);
    ordo_safetensors_close(f);
    return ok;
}

// 1 when paths a and b are one directory.
static int same_dir(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int ordo_eval_record_own(const char *run_dir, const ordo_eval_report *record, char *why,
                         size_t cap) {
    const char *mine = ordo_eval_str_value(record->checkpoint_xxh3);
    char have[17];
    if (mine && record->step.has == ORDO_EVAL_SET && ckpt_xxh3(run_dir, record->step.v, have)) {
        if (strcmp(have, mine) == 0) return 1;
        snprintf(why, cap,
                 "it scored a checkpoint of step %lld with data checksum %s, but this run's "
                 "ckpt-%lld.safetensors has %s",
                 record->step.v, mine, record->step.v, have);
        return 0;
    }
    const char *run = ordo_eval_str_value(record->run);
    struct stat a, b;
    char cfg[ORDO_PATH_MAX];
    if (!run || stat(run, &a) != 0 || !S_ISDIR(a.st_mode) || stat(run_dir, &b) != 0 ||
        same_dir(&a, &b) || ordo_path(cfg, sizeof cfg, "%s/config.json", run) ||
        stat(cfg, &a) != 0) {
        ordo_error_clear();
        return 1;
    }
    snprintf(why, cap, "it is a record of the run %s", run);
    return 0;
}

// The request of an older eval.json, which has no request: what its content says.
static void request_of_old(const ordo_eval_report *rec, ordo_eval_request *q) {
    const ordo_eval_rope *rope = &rec->rope_scaling;
    const char *src = ordo_eval_str_value(rope->source);
    if (src && strcmp(src, "eval") == 0) {
        q->rope_scaling = ordo_eval_str_value(rope->scaling);
        if (q->rope_scaling && strcmp(q->rope_scaling, "none") != 0) {
            q->rope_factor = rope->factor.has == ORDO_EVAL_SET ? rope->factor.v : 0;
            q->rope_orig_context = (int)ordo_eval_int_or(rope->original_context, 0);
        }
    }
    q->extend_pos = ordo_eval_str_value(rec->extend_pos.method);
    const ordo_eval_acc_rows *by = &rec->accuracy.by_length;
    if (by->n > 0) q->examples = (int)ordo_eval_int_or(by->v[0].examples, q->examples);
    q->max_n = by->n;
}

// The request that the record's request gives (lengths into lens[cap], *n of them).
static void request_of_new(const ordo_eval_report_request *r, ordo_eval_request *q, int *lens,
                           int cap, int *n) {
    for (int i = 0; i < r->lengths.n; i++)
        if (*n < cap) lens[(*n)++] = (int)r->lengths.v[i];
    q->stride = (int)ordo_eval_int_or(r->sliding_stride, 0);
    q->batch = (int)ordo_eval_int_or(r->batch, 8);
    q->max_windows = (size_t)ordo_eval_int_or(r->max_windows, 0);
    q->examples = (int)ordo_eval_int_or(r->examples, 200);
    q->max_n = (int)ordo_eval_int_or(r->max_n, 0);
    q->rope_scaling = ordo_eval_str_value(r->rope_scaling);
    q->rope_factor = r->rope_factor.has == ORDO_EVAL_SET ? r->rope_factor.v : 0;
    q->rope_orig_context = (int)ordo_eval_int_or(r->rope_orig_context, 0);
    q->yarn_alpha = r->yarn_alpha.has == ORDO_EVAL_SET ? r->yarn_alpha.v : 0;
    q->yarn_beta = r->yarn_beta.has == ORDO_EVAL_SET ? r->yarn_beta.v : 0;
    q->yarn_no_temperature = ordo_eval_int_or(r->yarn_temperature, 1) == 0;
    q->context_use = (int)ordo_eval_int_or(r->context_use, 0);
    q->extend_pos = ordo_eval_str_value(r->extend_pos);
    const char *att = ordo_eval_str_value(r->attention);
    if (att && ordo_attn_impl_parse(att, &q->attention) != ORDO_OK) ordo_error_clear();
}

ordo_status ordo_eval_request_of(const ordo_eval_report *record, const char *run_dir,
                                 ordo_eval_request *q, int *lens, int cap) {
    const ordo_eval_report_request *r = record->request.have ? &record->request : NULL;
    *q = (ordo_eval_request){.run_dir = run_dir, .batch = 8, .examples = 200, .step = -1};
    const char *mode = ordo_eval_str_value(r ? r->mode : record->mode);
    if (mode && ordo_eval_mode_parse(mode, &q->mode) != ORDO_OK)
        return ordo_error_wrap(ORDO_ERR_FORMAT, "%s: the eval record's mode", run_dir);
    int n = 0;
    if (r) {
        request_of_new(r, q, lens, cap, &n);
    } else {
        for (int i = 0; i < record->results.n; i++) {
            const ordo_eval_int *c = &record->results.v[i].context;
            if (n < cap && c->has == ORDO_EVAL_SET) lens[n++] = (int)c->v;
        }
        request_of_old(record, q);
    }
    if (n == 0)
        return ordo_error(ORDO_ERR_FORMAT, "%s: the eval record \"%s\" gives no lengths", run_dir,
                          ordo_eval_str_value(record->name));
    q->lengths = lens;
    q->nlen = n;
    return ORDO_OK;
}

int ordo_eval_record_current(const ordo_eval_report *record, int64_t step,
                             const ordo_eval_request *q) {
    if (record->step.has != ORDO_EVAL_SET || record->step.v != step) return 0;
    if (record->request.have) {
        ordo_eval_report_request want;
        ordo_eval_request_record(q, q->lengths, q->nlen, &want);
        int same = ordo_eval_report_request_equal(&record->request, &want);
        ordo_eval_report_request_free(&want);
        return same;
    }
    const ordo_eval_results *res = &record->results; // an older record: its lengths
    int ok = res->n == q->nlen;
    for (int i = 0; ok && i < q->nlen; i++)
        ok = ordo_eval_int_or(res->v[i].context, 0) == q->lengths[i];
    return ok;
}

ordo_status ordo_eval_record_make(const ordo_eval_request *q, const char *name) {
    ordo_eval_report report;
    ordo_status s = ordo_eval_name_check("eval record name", name);
    if (s) return s;
    if ((s = ordo_eval_run(q, &report))) return s;
    s = ordo_eval_save(q->run_dir, name, &report);
    ordo_eval_report_free(&report);
    return s;
}
