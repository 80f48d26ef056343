// The eval report's JSON codec (see eval_report.h). One table per object of the report names
// each key, its type and its member; writing, reading, comparing and freeing walk the tables,
// so that a key added to the format is one line here and one member in the header, and the
// four cannot disagree about it.
//
// Deliberately not here: what the values mean or whether they agree with each other (the
// readers decide; compare tolerates a record with only "results").
#include "eval/eval_report.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fileio.h"

typedef enum kind {
    K_INT,   // ordo_eval_int
    K_REAL,  // ordo_eval_real
    K_STR,   // ordo_eval_str
    K_INTS,  // ordo_eval_ints
    K_REALS, // ordo_eval_reals
    K_OBJ,   // a struct of `sub`'s shape, its first member `int have`
    K_ROWS,  // {int have, n; T *v;} of `sub`'s shape
} kind;

enum { REQUIRED = 1, NOT_NULL = 2 };

typedef struct shape shape;
typedef struct field {
    const char *key;
    kind k;
    size_t off;
    int flags;
    const shape *sub;
} field;
struct shape {
    size_t size; // of the struct (a row's, for K_ROWS)
    const field *f;
    int n;
};

// The generic view of ordo_eval_results and its kind (the same members), read and written
// whole with memcpy.
typedef struct rows {
    int have, n;
    void *v;
} rows;

#define F(T, m, k)                                                                                 \
    { #m, k, offsetof(T, m), 0, NULL }
#define FS(T, m, k, flags, sub)                                                                    \
    { #m, k, offsetof(T, m), flags, sub }
#define SHAPE(T, fields)                                                                           \
    { sizeof(T), fields, (int)(sizeof fields / sizeof *fields) }

static const field set_f[] = {
    F(ordo_eval_set, kind, K_STR),
    F(ordo_eval_set, file, K_STR),
    F(ordo_eval_set, tokens, K_INT),
    F(ordo_eval_set, xxh3, K_STR),
};
static const shape set_s = SHAPE(ordo_eval_set, set_f);

static const field rope_f[] = {
    F(ordo_eval_rope, scaling, K_STR),          F(ordo_eval_rope, factor, K_REAL),
    F(ordo_eval_rope, original_context, K_INT), F(ordo_eval_rope, yarn_alpha, K_REAL),
    F(ordo_eval_rope, yarn_beta, K_REAL),       F(ordo_eval_rope, yarn_temperature, K_INT),
    F(ordo_eval_rope, source, K_STR),
};
static const shape rope_s = SHAPE(ordo_eval_rope, rope_f);

static const field extend_f[] = {
    F(ordo_eval_extend, method, K_STR),   F(ordo_eval_extend, table, K_INT),
    F(ordo_eval_extend, grown_to, K_INT), F(ordo_eval_extend, source, K_STR),
    F(ordo_eval_extend, seed, K_INT),
};
static const shape extend_s = SHAPE(ordo_eval_extend, extend_f);

static const field variant_f[] = {
    F(ordo_eval_variant, scaling, K_STR),          F(ordo_eval_variant, factor, K_REAL),
    F(ordo_eval_variant, original_context, K_INT), F(ordo_eval_variant, yarn_alpha, K_REAL),
    F(ordo_eval_variant, yarn_beta, K_REAL),       F(ordo_eval_variant, yarn_temperature, K_INT),
    F(ordo_eval_variant, extension, K_STR),        F(ordo_eval_variant, positions, K_STR),
};
static const shape variant_s = SHAPE(ordo_eval_variant, variant_f);

static const field data_f[] = {
    F(ordo_eval_data, source, K_STR),
    F(ordo_eval_data, size, K_INT),
    F(ordo_eval_data, xxh3, K_STR),
};
static const shape data_s = SHAPE(ordo_eval_data, data_f);

#define RQ ordo_eval_report_request
static const field request_f[] = {
    F(RQ, lengths, K_INTS),
    F(RQ, mode, K_STR),
    F(RQ, sliding_stride, K_INT),
    F(RQ, batch, K_INT),
    F(RQ, max_windows, K_INT),
    F(RQ, examples, K_INT),
    F(RQ, max_n, K_INT),
    F(RQ, depths, K_REALS),
    F(RQ, rope_scaling, K_STR),
    F(RQ, rope_factor, K_REAL),
    F(RQ, rope_orig_context, K_INT),
    F(RQ, yarn_alpha, K_REAL),
    F(RQ, yarn_beta, K_REAL),
    F(RQ, yarn_temperature, K_INT),
    F(RQ, extend_pos, K_STR),
    F(RQ, attention, K_STR),
    F(RQ, positions, K_STR),
    F(RQ, context_use, K_INT),
};
#undef RQ
static const shape request_s = SHAPE(ordo_eval_report_request, request_f);

#define RS ordo_eval_report_result
static const field result_f[] = {
    FS(RS, context, K_INT, REQUIRED | NOT_NULL, NULL),
    FS(RS, extend_pos, K_OBJ, 0, &extend_s),
    F(RS, aligned_to_examples, K_INT),
    FS(RS, val_loss, K_REAL, REQUIRED, NULL),
    F(RS, val_ppl, K_REAL),
    F(RS, note, K_STR),
    F(RS, targets, K_INT),
    F(RS, windows, K_INT),
    F(RS, attention_ran, K_STR),
    F(RS, stride, K_INT),
    F(RS, loss_by_position, K_REALS),
    F(RS, order_loss, K_REAL),
    F(RS, order_targets, K_INT),
    F(RS, ngram_loss, K_REALS),
};
#undef RS
static const shape result_s = SHAPE(ordo_eval_report_result, result_f);

static const field acc_row_f[] = {
    F(ordo_eval_acc_row, n, K_INT),
    F(ordo_eval_acc_row, length, K_INT),
    F(ordo_eval_acc_row, exact_match, K_REAL),
    F(ordo_eval_acc_row, by_depth, K_REALS),
    F(ordo_eval_acc_row, accuracy, K_REAL),
    F(ordo_eval_acc_row, by_pairs, K_REALS),
    F(ordo_eval_acc_row, by_p_ignore, K_REALS),
    F(ordo_eval_acc_row, by_tokens, K_REALS),
    F(ordo_eval_acc_row, by_vars, K_REALS),
    F(ordo_eval_acc_row, note, K_STR),
    F(ordo_eval_acc_row, examples, K_INT),
};
static const shape acc_row_s = SHAPE(ordo_eval_acc_row, acc_row_f);

static const field depth_mean_f[] = {
    F(ordo_eval_depth_mean, depth, K_REAL),
    F(ordo_eval_depth_mean, exact_match, K_REAL),
};
static const shape depth_mean_s = SHAPE(ordo_eval_depth_mean, depth_mean_f);

#define AC ordo_eval_accuracy
static const field acc_f[] = {
    F(AC, task, K_STR),
    F(AC, train_min_len, K_INT),
    F(AC, train_max_len, K_INT),
    F(AC, digits, K_INT),
    F(AC, train_context, K_INT),
    F(AC, examples, K_INT),
    F(AC, depths, K_REALS),
    F(AC, vocab, K_INT),
    F(AC, train_pairs, K_INT),
    F(AC, train_p_ignore, K_REAL),
    F(AC, train_tokens, K_INT),
    F(AC, train_vars, K_INT),
    F(AC, pairs, K_INTS),
    F(AC, p_ignore, K_REALS),
    F(AC, tokens, K_INTS),
    F(AC, vars, K_INTS),
    FS(AC, by_length, K_ROWS, 0, &acc_row_s),
    FS(AC, by_depth, K_ROWS, 0, &depth_mean_s),
};
#undef AC
static const shape acc_s = SHAPE(ordo_eval_accuracy, acc_f);

static const field context_use_f[] = {
    F(ordo_eval_context_use, k, K_INTS),
    F(ordo_eval_context_use, loss, K_REALS),
    F(ordo_eval_context_use, targets, K_INT),
    // the n-gram line (absent with --data or --no-ngram)
    F(ordo_eval_context_use, ngram_loss, K_REALS),
    F(ordo_eval_context_use, ngram_order, K_INTS),
};
static const shape context_use_s = SHAPE(ordo_eval_context_use, context_use_f);

#define RP ordo_eval_report
static const field report_f[] = {
    F(RP, run, K_STR),
    F(RP, step, K_INT),
    F(RP, checkpoint, K_STR),
    F(RP, checkpoint_xxh3, K_STR),
    FS(RP, eval_set, K_OBJ, 0, &set_s),
    F(RP, pos, K_STR),
    F(RP, task, K_STR),
    F(RP, train_context, K_INT),
    FS(RP, rope_scaling, K_OBJ, 0, &rope_s),
    FS(RP, extend_pos, K_OBJ, 0, &extend_s),
    F(RP, mode, K_STR),
    F(RP, attention, K_STR),
    F(RP, parameters, K_INT),
    FS(RP, variant, K_OBJ, 0, &variant_s),
    FS(RP, data, K_OBJ, 0, &data_s),
    FS(RP, request, K_OBJ, 0, &request_s),
    FS(RP, results, K_ROWS, REQUIRED, &result_s),
    FS(RP, accuracy, K_OBJ, 0, &acc_s),
    FS(RP, context_use, K_OBJ, 0, &context_use_s),
    F(RP, name, K_STR),
};
#undef RP
static const shape report_s = SHAPE(ordo_eval_report, report_f);

ordo_eval_str ordo_eval_str_of(const char *s) {
    if (!s) return (ordo_eval_str){ORDO_EVAL_NULL, NULL};
    return (ordo_eval_str){ORDO_EVAL_SET, ordo_xstrdup(s)};
}

// ---------------------------------------------------------------------------------------
// Writing

static json_t *obj_to_json(const shape *s, const char *base);

// A scalar's JSON: NULL (the key left out) when absent.
static json_t *scalar_to_json(kind k, const char *p) {
    const ordo_eval_int *i = (const void *)p;
    const ordo_eval_real *r = (const void *)p;
    const ordo_eval_str *s = (const void *)p;
    ordo_eval_has has = k == K_INT ? i->has : k == K_REAL ? r->has : s->has;
    if (has == ORDO_EVAL_ABSENT) return NULL;
    if (has == ORDO_EVAL_NULL) return json_null();
    if (k == K_INT) return json_integer((json_int_t)i->v);
    if (k == K_REAL) return isfinite(r->v) ? json_real(r->v) : json_null();
    return json_string(s->v); // NULL for text that is no UTF-8: the key left out, as before
}

static json_t *value_to_json(const field *f, const char *p) {
    switch (f->k) {
    case K_INT:
    case K_REAL:
    case K_STR:
        return scalar_to_json(f->k, p);
    case K_INTS: {
        const ordo_eval_ints *a = (const void *)p;
        if (!a->have) return NULL;
        json_t *o = json_array();
        for (int i = 0; i < a->n; i++) json_array_append_new(o, json_integer(a->v[i]));
        return o;
    }
    case K_REALS: {
        const ordo_eval_reals *a = (const void *)p;
        if (!a->have) return NULL;
        json_t *o = json_array();
        for (int i = 0; i < a->n; i++)
            json_array_append_new(o, isfinite(a->v[i]) ? json_real(a->v[i]) : json_null());
        return o;
    }
    case K_OBJ:
        return *(const int *)p ? obj_to_json(f->sub, p) : NULL;
    case K_ROWS: {
        rows h;
        memcpy(&h, p, sizeof h);
        if (!h.have) return NULL;
        json_t *o = json_array();
        for (int i = 0; i < h.n; i++)
            json_array_append_new(o, obj_to_json(f->sub, (const char *)h.v + i * f->sub->size));
        return o;
    }
    }
    return NULL;
}

static json_t *obj_to_json(const shape *s, const char *base) {
    json_t *o = json_object();
    for (int i = 0; i < s->n; i++) {
        json_t *v = value_to_json(&s->f[i], base + s->f[i].off);
        if (v) json_object_set_new(o, s->f[i].key, v);
    }
    return o;
}

json_t *ordo_eval_report_to_json(const ordo_eval_report *r) {
    return obj_to_json(&report_s, (const char *)r);
}

// ---------------------------------------------------------------------------------------
// Reading

static const char *type_name(const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

// Where a value is in the record: a key of the object `up` holds, or (key NULL) an element of
// the array; made into text ("results[2].val_loss") only for an error.
typedef struct at {
    const struct at *up;
    const char *key;
    int index;
} at;

static size_t at_format(const at *a, char *buf, size_t cap) {
    size_t n = a->up ? at_format(a->up, buf, cap) : 0;
    if (n >= cap) return n;
    int k = a->key ? snprintf(buf + n, cap - n, "%s%s", n ? "." : "", a->key)
                   : snprintf(buf + n, cap - n, "[%d]", a->index);
    return n + (k > 0 ? (size_t)k : 0);
}

// The error for the value at `where` of record `what`: what was expected and what is there.
static ordo_status bad(const char *what, const at *where, const char *expected, const json_t *got) {
    char path[256] = "";
    at_format(where, path, sizeof path);
    return ordo_error(ORDO_ERR_FORMAT, "%s: \"%s\": expected %s, found %s", what, path, expected,
                      got ? type_name(got) : "no such key");
}

static ordo_status obj_from_json(const shape *s, const json_t *j, const char *what, const at *where,
                                 char *base);

static ordo_status scalar_from_json(const field *f, const json_t *j, const char *what,
                                    const at *where, char *p) {
    static const char *const want[] = {
        [K_INT] = "an integer", [K_REAL] = "a number", [K_STR] = "a string"};
    char expected[48];
    snprintf(expected, sizeof expected, "%s%s", want[f->k], f->flags & NOT_NULL ? "" : " or null");
    ordo_eval_has has = json_is_null(j) ? ORDO_EVAL_NULL : ORDO_EVAL_SET;
    if (has == ORDO_EVAL_NULL && (f->flags & NOT_NULL)) return bad(what, where, expected, j);
    if (f->k == K_INT) {
        if (has == ORDO_EVAL_SET && !json_is_integer(j)) return bad(what, where, expected, j);
        *(ordo_eval_int *)(void *)p = (ordo_eval_int){has, (long long)json_integer_value(j)};
    } else if (f->k == K_REAL) {
        if (has == ORDO_EVAL_SET && !json_is_number(j)) return bad(what, where, expected, j);
        *(ordo_eval_real *)(void *)p = (ordo_eval_real){has, json_number_value(j)};
    } else {
        if (has == ORDO_EVAL_SET && !json_is_string(j)) return bad(what, where, expected, j);
        *(ordo_eval_str *)(void *)p =
            (ordo_eval_str){has, has == ORDO_EVAL_SET ? ordo_xstrdup(json_string_value(j)) : NULL};
    }
    return ORDO_OK;
}

static ordo_status numbers_from_json(const field *f, const json_t *j, const char *what,
                                     const at *where, char *p) {
    int ints = f->k == K_INTS;
    const char *expected = ints ? "an array of integers" : "an array of numbers or nulls";
    if (!json_is_array(j)) return bad(what, where, expected, j);
    int n = (int)json_array_size(j);
    for (int i = 0; i < n; i++) {
        json_t *v = json_array_get(j, (size_t)i);
        if (ints ? !json_is_integer(v) : !(json_is_number(v) || json_is_null(v)))
            return bad(what, where, expected, j);
    }
    if (ints) {
        ordo_eval_ints *a = (void *)p;
        *a = (ordo_eval_ints){1, n, ordo_xmalloc(((size_t)n + 1) * sizeof *a->v)};
        for (int i = 0; i < n; i++) a->v[i] = (long long)json_integer_value(json_array_get(j, i));
    } else {
        ordo_eval_reals *a = (void *)p;
        *a = (ordo_eval_reals){1, n, ordo_xmalloc(((size_t)n + 1) * sizeof *a->v)};
        for (int i = 0; i < n; i++) {
            json_t *v = json_array_get(j, (size_t)i);
            a->v[i] = json_is_null(v) ? NAN : json_number_value(v);
        }
    }
    return ORDO_OK;
}

static ordo_status rows_from_json(const field *f, const json_t *j, const char *what,
                                  const at *where, char *p) {
    if (!json_is_array(j)) return bad(what, where, "an array of objects", j);
    rows h = {1, (int)json_array_size(j), NULL};
    h.v = ordo_xcalloc((size_t)h.n + 1, f->sub->size);
    memcpy(p, &h, sizeof h); // before the rows are read: freed whole after an error too
    ordo_status s = ORDO_OK;
    for (int i = 0; i < h.n && !s; i++) {
        at sub = {where, NULL, i};
        json_t *v = json_array_get(j, (size_t)i);
        s = json_is_object(v) ? obj_from_json(f->sub, v, what, &sub, (char *)h.v + i * f->sub->size)
                              : bad(what, &sub, "an object", v);
    }
    return s;
}

static ordo_status value_from_json(const field *f, const json_t *j, const char *what,
                                   const at *where, char *p) {
    if (!j) return f->flags & REQUIRED ? bad(what, where, "a value", NULL) : ORDO_OK;
    switch (f->k) {
    case K_INT:
    case K_REAL:
    case K_STR:
        return scalar_from_json(f, j, what, where, p);
    case K_INTS:
    case K_REALS:
        return numbers_from_json(f, j, what, where, p);
    case K_OBJ:
        if (!json_is_object(j)) return bad(what, where, "an object", j);
        *(int *)(void *)p = 1;
        return obj_from_json(f->sub, j, what, where, p);
    case K_ROWS:
        return rows_from_json(f, j, what, where, p);
    }
    return ORDO_OK;
}

static ordo_status obj_from_json(const shape *s, const json_t *j, const char *what, const at *where,
                                 char *base) {
    ordo_status st = ORDO_OK;
    for (int i = 0; i < s->n && !st; i++) {
        const field *f = &s->f[i];
        at sub = {where, f->key, 0};
        st = value_from_json(f, json_object_get(j, f->key), what, &sub, base + f->off);
    }
    return st;
}

ordo_status ordo_eval_report_from_json(const json_t *j, const char *what, ordo_eval_report *r) {
    memset(r, 0, sizeof *r);
    if (!what) what = "eval report";
    if (!json_is_object(j))
        return ordo_error(ORDO_ERR_FORMAT, "%s: expected a JSON object (an eval report), found %s",
                          what, type_name(j));
    if (!json_is_array(json_object_get(j, "results"))) // the one key every record has
        return ordo_error(ORDO_ERR_FORMAT, "%s: expected a \"results\" array", what);
    r->have = 1;
    return obj_from_json(&report_s, j, what, NULL, (char *)r);
}

ordo_status ordo_eval_report_read(const char *path, ordo_eval_report *r) {
    memset(r, 0, sizeof *r);
    json_error_t err;
    json_t *j = ordo_json_load_file(path, 0, &err);
    if (!j) return ordo_json_load_error(path, &err);
    ordo_status s = ordo_eval_report_from_json(j, path, r);
    json_decref(j);
    return s;
}

// ---------------------------------------------------------------------------------------
// Freeing and comparing

static void obj_free(const shape *s, char *base);

static void value_free(const field *f, char *p) {
    switch (f->k) {
    case K_INT:
    case K_REAL:
        break;
    case K_STR:
        free(((ordo_eval_str *)(void *)p)->v);
        break;
    case K_INTS:
        free(((ordo_eval_ints *)(void *)p)->v);
        break;
    case K_REALS:
        free(((ordo_eval_reals *)(void *)p)->v);
        break;
    case K_OBJ:
        obj_free(f->sub, p);
        break;
    case K_ROWS: {
        rows h;
        memcpy(&h, p, sizeof h);
        for (int i = 0; h.v && i < h.n; i++) obj_free(f->sub, (char *)h.v + i * f->sub->size);
        free(h.v);
        break;
    }
    }
}

static void obj_free(const shape *s, char *base) {
    for (int i = 0; i < s->n; i++) value_free(&s->f[i], base + s->f[i].off);
}

void ordo_eval_report_free(ordo_eval_report *r) {
    obj_free(&report_s, (char *)r);
    memset(r, 0, sizeof *r);
}

void ordo_eval_report_request_free(ordo_eval_report_request *q) {
    obj_free(&request_s, (char *)q);
    memset(q, 0, sizeof *q);
}

// Reals bit for bit, except that every NaN (a null element) is alike.
static int same_real(double a, double b) {
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static int obj_equal(const shape *s, const char *a, const char *b);

static int value_equal(const field *f, const char *pa, const char *pb) {
    switch (f->k) {
    case K_INT: {
        const ordo_eval_int *a = (const void *)pa, *b = (const void *)pb;
        return a->has == b->has && (a->has != ORDO_EVAL_SET || a->v == b->v);
    }
    case K_REAL: {
        const ordo_eval_real *a = (const void *)pa, *b = (const void *)pb;
        return a->has == b->has && (a->has != ORDO_EVAL_SET || same_real(a->v, b->v));
    }
    case K_STR: {
        const ordo_eval_str *a = (const void *)pa, *b = (const void *)pb;
        return a->has == b->has && (a->has != ORDO_EVAL_SET || strcmp(a->v, b->v) == 0);
    }
    case K_INTS: {
        const ordo_eval_ints *a = (const void *)pa, *b = (const void *)pb;
        if (a->have != b->have || a->n != b->n) return 0;
        for (int i = 0; i < a->n; i++)
            if (a->v[i] != b->v[i]) return 0;
        return 1;
    }
    case K_REALS: {
        const ordo_eval_reals *a = (const void *)pa, *b = (const void *)pb;
        if (a->have != b->have || a->n != b->n) return 0;
        for (int i = 0; i < a->n; i++)
            if (!same_real(a->v[i], b->v[i])) return 0;
        return 1;
    }
    case K_OBJ: {
        int ha = *(const int *)pa, hb = *(const int *)pb;
        return ha == hb && (!ha || obj_equal(f->sub, pa, pb));
    }
    case K_ROWS: {
        rows a, b;
        memcpy(&a, pa, sizeof a);
        memcpy(&b, pb, sizeof b);
        if (a.have != b.have || a.n != b.n) return 0;
        for (int i = 0; i < a.n; i++)
            if (!obj_equal(f->sub, (const char *)a.v + i * f->sub->size,
                           (const char *)b.v + i * f->sub->size))
                return 0;
        return 1;
    }
    }
    return 0;
}

static int obj_equal(const shape *s, const char *a, const char *b) {
    for (int i = 0; i < s->n; i++)
        if (!value_equal(&s->f[i], a + s->f[i].off, b + s->f[i].off)) return 0;
    return 1;
}

int ordo_eval_report_equal(const ordo_eval_report *a, const ordo_eval_report *b) {
    return obj_equal(&report_s, (const char *)a, (const char *)b);
}

int ordo_eval_report_request_equal(const ordo_eval_report_request *a,
                                   const ordo_eval_report_request *b) {
    return value_equal(&(field){"request", K_OBJ, 0, 0, &request_s}, (const char *)a,
                       (const char *)b);
}
