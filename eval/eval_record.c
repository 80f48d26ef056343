// A run's saved evaluations as named records (see eval_record.h): their names, writing and
// finding them, and the request that makes one again.
#include "eval/eval_record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/fileio.h"

const char *ordo_eval_default_name(const json_t *report, char *buf, size_t cap) {
    json_t *rope = json_object_get(report, "rope_scaling");
    json_t *ext = json_object_get(report, "extend_pos");
    const char *src = json_string_value(json_object_get(rope, "source"));
    const char *scaling = json_string_value(json_object_get(rope, "scaling"));
    const char *method = json_string_value(json_object_get(ext, "method"));
    const char *mode = json_string_value(json_object_get(report, "mode"));
    int n;
    if (src && scaling && strcmp(src, "eval") == 0 && strcmp(scaling, "none") == 0)
        n = snprintf(buf, cap, "unscaled");
    else if (src && scaling && strcmp(src, "eval") == 0)
        n = snprintf(buf, cap, "%s-x%g", scaling,
                     json_number_value(json_object_get(rope, "factor")));
    else if (method)
        n = snprintf(buf, cap, "extend-%s", method);
    else if (json_object_get(json_object_get(report, "variant"), "positions"))
        n = snprintf(buf, cap, "drawn"); // --pos-random's draw at eval too
    else
        n = snprintf(buf, cap, "base");
    if (mode && strcmp(mode, "sliding") == 0 && n >= 0 && (size_t)n < cap) {
        // a stride other than the default (T/4) is a record of its own, not base-sliding's
        json_t *q = json_object_get(report, "request");
        long long stride = (long long)json_integer_value(json_object_get(q, "sliding_stride"));
        if (stride > 0)
            snprintf(buf + n, cap - (size_t)n, "-sliding-stride%lld", stride);
        else
            snprintf(buf + n, cap - (size_t)n, "-sliding");
    }
    return buf;
}

const char *ordo_eval_record_name(const json_t *record, char *buf, size_t cap) {
    const char *name = json_string_value(json_object_get(record, "name"));
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

ordo_status ordo_eval_save(const char *run_dir, const char *name, json_t *report) {
    ordo_status s = ordo_eval_name_check("eval record name", name);
    if (s) return s;
    json_object_set_new(report, "name", json_string(name));
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
    if ((s = ordo_write_json_atomic(path, report))) return s;
    // the file older ordo versions and scripts read (demo.sh, experiment_tables.py)
    if (strcmp(name, "base") != 0) return ORDO_OK;
    if ((s = ordo_path(path, sizeof path, "%s/eval.json", run_dir))) return s;
    return ordo_write_json_atomic(path, report);
}

json_t *ordo_eval_load(const char *run_dir, const char *name) {
    char path[ORDO_PATH_MAX], buf[ORDO_EVAL_NAME_MAX + 16];
    json_error_t err;
    json_t *j = NULL;
    if (!ordo_path(path, sizeof path, "%s/%s/%s.json", run_dir, ORDO_EVAL_DIR, name))
        j = ordo_json_load_file(path, 0, &err);
    if (j) return j;
    ordo_error_clear();
    if (!ordo_path(path, sizeof path, "%s/eval.json", run_dir))
        j = ordo_json_load_file(path, 0, &err);
    ordo_error_clear();
    if (j && strcmp(ordo_eval_record_name(j, buf, sizeof buf), name) != 0) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

// An integer of o, or dflt when absent or not an integer.
static long long int_or(const json_t *o, const char *key, long long dflt) {
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

// The request of an older eval.json, which has no "request": what its content says.
static void request_of_old(const json_t *rec, ordo_eval_request *q) {
    json_t *rope = json_object_get(rec, "rope_scaling");
    const char *src = json_string_value(json_object_get(rope, "source"));
    if (src && strcmp(src, "eval") == 0) {
        q->rope_scaling = json_string_value(json_object_get(rope, "scaling"));
        if (q->rope_scaling && strcmp(q->rope_scaling, "none") != 0) {
            q->rope_factor = json_number_value(json_object_get(rope, "factor"));
            q->rope_orig_context = (int)int_or(rope, "original_context", 0);
        }
    }
    q->extend_pos =
        json_string_value(json_object_get(json_object_get(rec, "extend_pos"), "method"));
    json_t *by = json_object_get(json_object_get(rec, "accuracy"), "by_length");
    q->examples = (int)int_or(json_array_get(by, 0), "examples", q->examples);
    q->max_n = (int)json_array_size(by);
}

ordo_status ordo_eval_request_of(const json_t *record, const char *run_dir, ordo_eval_request *q,
                                 int *lens, int cap) {
    json_t *r = json_object_get(record, "request");
    *q = (ordo_eval_request){.run_dir = run_dir, .batch = 8, .examples = 200, .step = -1};
    const char *mode = json_string_value(json_object_get(r ? r : record, "mode"));
    if (mode && ordo_eval_mode_parse(mode, &q->mode) != ORDO_OK)
        return ordo_error_wrap(ORDO_ERR_FORMAT, "%s: the eval record's mode", run_dir);
    json_t *l = json_object_get(r, "lengths");
    int n = 0;
    size_t i;
    json_t *v;
    if (r) {
        json_array_foreach(l, i, v) {
            if (n < cap && json_is_integer(v)) lens[n++] = (int)json_integer_value(v);
        }
        q->stride = (int)int_or(r, "sliding_stride", 0);
        q->batch = (int)int_or(r, "batch", 8);
        q->max_windows = (size_t)int_or(r, "max_windows", 0);
        q->examples = (int)int_or(r, "examples", 200);
        q->max_n = (int)int_or(r, "max_n", 0);
        q->rope_scaling = json_string_value(json_object_get(r, "rope_scaling"));
        q->rope_factor = json_number_value(json_object_get(r, "rope_factor"));
        q->rope_orig_context = (int)int_or(r, "rope_orig_context", 0);
        q->extend_pos = json_string_value(json_object_get(r, "extend_pos"));
        const char *att = json_string_value(json_object_get(r, "attention"));
        if (att && ordo_attn_impl_parse(att, &q->attention) != ORDO_OK) ordo_error_clear();
    } else {
        json_array_foreach(json_object_get(record, "results"), i, v) {
            json_t *c = json_object_get(v, "context");
            if (n < cap && json_is_integer(c)) lens[n++] = (int)json_integer_value(c);
        }
        request_of_old(record, q);
    }
    if (n == 0)
        return ordo_error(ORDO_ERR_FORMAT, "%s: the eval record \"%s\" gives no lengths", run_dir,
                          json_string_value(json_object_get(record, "name")));
    q->lengths = lens;
    q->nlen = n;
    return ORDO_OK;
}

int ordo_eval_record_current(const json_t *record, int64_t step, const ordo_eval_request *q) {
    json_t *st = json_object_get(record, "step");
    if (!json_is_integer(st) || json_integer_value(st) != step) return 0;
    json_t *have = json_object_get(record, "request");
    if (have) {
        json_t *want = ordo_eval_request_json(q, q->lengths, q->nlen);
        int same = json_equal(have, want);
        json_decref(want);
        return same;
    }
    json_t *res = json_object_get(record, "results"); // an older record: its lengths
    int ok = json_array_size(res) == (size_t)q->nlen;
    for (int i = 0; ok && i < q->nlen; i++)
        ok = json_integer_value(json_object_get(json_array_get(res, (size_t)i), "context")) ==
             q->lengths[i];
    return ok;
}

ordo_status ordo_eval_record_make(const ordo_eval_request *q, const char *name) {
    json_t *report;
    ordo_status s = ordo_eval_name_check("eval record name", name);
    if (!s) s = ordo_eval_run(q, &report);
    if (s) return s;
    s = ordo_eval_save(q->run_dir, name, report);
    json_decref(report);
    return s;
}
