// A config to and from JSON (config.json and a checkpoint's metadata; see config.h), and the
// comparison of a checkpoint's config with the options given on resume. Strings from JSON are
// kept in a small list so that the struct can keep plain `const char *` pointers, as argv
// gives for flags.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"
#include "sys/hash.h"
#include "run/config.h"

static json_t *record_json(const ordo_data_record *r) {
    char hex[17];
    ordo_hash_hex(r->hash, hex);
    json_t *o = json_pack("{s:I, s:s}", "size", (json_int_t)r->size, "xxh3", hex);
    if (r->rel) json_object_set_new(o, "run_relative", json_string(r->rel));
    if (r->have_ids) {
        ordo_hash_hex(r->ids_hash, hex);
        json_object_set_new(o, "ids_xxh3", json_string(hex));
    }
    return o;
}

json_t *ordo_train_config_to_json(ordo_train_config *c) {
    ordo_opt *opts = ordo_train_config_options(c);
    json_t *o = json_object();
    for (ordo_opt *p = opts; p->name; p++) {
        switch (p->type) {
        case ORDO_OPT_FLAG:
            json_object_set_new(o, p->name, json_integer(*(int *)p->dst));
            break;
        case ORDO_OPT_INT:
            json_object_set_new(o, p->name, json_integer(*(long long *)p->dst));
            break;
        case ORDO_OPT_FLOAT:
            json_object_set_new(o, p->name, json_real(*(double *)p->dst));
            break;
        case ORDO_OPT_STRING: {
            const char *s = *(const char **)p->dst;
            json_object_set_new(o, p->name, s ? json_string(s) : json_null());
            break;
        }
        }
    }
    free(opts);
    if (c->init_record.have) {
        const ordo_init_record *r = &c->init_record;
        json_t *ir = json_object();
        json_object_set_new(ir, "file", json_string(r->file));
        json_object_set_new(ir, "run", r->run ? json_string(r->run) : json_null());
        json_object_set_new(ir, "step", r->step >= 0 ? json_integer(r->step) : json_null());
        json_object_set_new(ir, "context", r->context > 0 ? json_integer(r->context) : json_null());
        json_object_set_new(ir, "sha256", json_string(r->sha256));
        json_object_set_new(o, ORDO_CONFIG_INIT_KEY, ir);
    }
    if (c->data_record.have)
        json_object_set_new(o, ORDO_CONFIG_DATA_KEY, record_json(&c->data_record));
    if (c->val_record.have)
        json_object_set_new(o, ORDO_CONFIG_VAL_DATA_KEY, record_json(&c->val_record));
    if (c->plan.have) {
        json_t *h = c->plan.history ? json_loads(c->plan.history, 0, NULL) : NULL;
        json_t *p = json_pack("{s:I, s:f, s:I}", "from_step", (json_int_t)c->plan.from_step,
                              "from_lr", c->plan.from_lr, "to_step", (json_int_t)c->plan.to_step);
        if (json_is_array(h)) json_object_set(p, "history", h);
        json_decref(h);
        json_object_set_new(o, ORDO_CONFIG_PLAN_KEY, p);
    }
    return o;
}

static const char *keep_string(const char *s);

// The data record of a config's JSON (v: its ORDO_CONFIG_DATA_KEY value) into *r.
static ordo_status data_record_from_json(ordo_data_record *r, json_t *v, const char *source) {
    json_t *size = json_object_get(v, "size");
    const char *hex = json_string_value(json_object_get(v, "xxh3"));
    memset(r, 0, sizeof *r);
    if (!json_is_object(v) || !json_is_integer(size) || json_integer_value(size) < 0 || !hex)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: \"%s\" must be an object {\"size\": bytes, \"xxh3\": hex} "
                          "(a record ordo train writes)",
                          source, ORDO_CONFIG_DATA_KEY);
    json_t *rel = json_object_get(v, "run_relative");
    if (rel && !json_is_string(rel))
        return ordo_error(ORDO_ERR_FORMAT, "%s: \"%s\".run_relative must be a string", source,
                          ORDO_CONFIG_DATA_KEY);
    ordo_status s = ordo_hash_parse(ORDO_CONFIG_DATA_KEY ".xxh3", hex, &r->hash);
    if (s) return ordo_error_wrap(s, "%s", source);
    r->size = json_integer_value(size);
    r->rel = rel ? keep_string(json_string_value(rel)) : NULL;
    json_t *ids = json_object_get(v, "ids_xxh3");
    if (ids) {
        if ((s = ordo_hash_parse(ORDO_CONFIG_DATA_KEY ".ids_xxh3", json_string_value(ids),
                                 &r->ids_hash)))
            return ordo_error_wrap(s, "%s", source);
        r->have_ids = 1;
    }
    r->have = 1;
    return ORDO_OK;
}

// The lr plan of a config's JSON (v: its ORDO_CONFIG_PLAN_KEY value) into *p.
static ordo_status plan_from_json(ordo_lr_plan *p, json_t *v, const char *source) {
    json_t *from = json_object_get(v, "from_step"), *to = json_object_get(v, "to_step"),
           *lr = json_object_get(v, "from_lr"), *h = json_object_get(v, "history");
    memset(p, 0, sizeof *p);
    if (!json_is_integer(from) || !json_is_integer(to) || !json_is_number(lr) ||
        json_integer_value(from) < 0 || json_integer_value(to) < 0 ||
        !(json_number_value(lr) >= 0 && json_number_value(lr) < 10) || (h && !json_is_array(h)))
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: \"%s\" must be an object {\"from_step\": N, \"from_lr\": X, "
                          "\"to_step\": N, \"history\": [...]} (a record ordo train writes)",
                          source, ORDO_CONFIG_PLAN_KEY);
    p->from_step = json_integer_value(from);
    p->to_step = json_integer_value(to);
    p->from_lr = json_number_value(lr);
    if (h) {
        char *text = json_dumps(h, JSON_COMPACT);
        p->history = keep_string(text);
        free(text);
    }
    p->have = 1;
    return ORDO_OK;
}

// The init record of a config's JSON (v: its ORDO_CONFIG_INIT_KEY value) into *r.
static ordo_status init_record_from_json(ordo_init_record *r, json_t *v, const char *source) {
    memset(r, 0, sizeof *r);
    const char *file = json_string_value(json_object_get(v, "file"));
    const char *sha = json_string_value(json_object_get(v, "sha256"));
    json_t *run = json_object_get(v, "run"), *step = json_object_get(v, "step"),
           *ctx = json_object_get(v, "context");
    int ok = json_is_object(v) && file && sha && strlen(sha) == 64 &&
             strspn(sha, "0123456789abcdef") == 64 &&
             (!run || json_is_null(run) || json_is_string(run)) &&
             (!step || json_is_null(step) || json_is_integer(step)) &&
             (!ctx || json_is_null(ctx) || json_is_integer(ctx));
    if (!ok)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: \"%s\" must be an object {\"file\": path, \"run\": dir or null, "
                          "\"step\": N or null, \"context\": N or null, \"sha256\": 64 hex "
                          "digits} (a record ordo train writes)",
                          source, ORDO_CONFIG_INIT_KEY);
    r->have = 1;
    r->file = keep_string(file);
    r->run = json_is_string(run) ? keep_string(json_string_value(run)) : NULL;
    r->step = json_is_integer(step) ? json_integer_value(step) : -1;
    r->context = json_is_integer(ctx) ? json_integer_value(ctx) : 0;
    memcpy(r->sha256, sha, 65);
    return ORDO_OK;
}

typedef struct strnode {
    struct strnode *next;
    char s[];
} strnode;
static strnode *strings;

static const char *keep_string(const char *s) {
    size_t n = strlen(s) + 1;
    strnode *k = ordo_xmalloc(sizeof *k + n);
    memcpy(k->s, s, n);
    k->next = strings;
    strings = k;
    return k->s;
}

void ordo_config_strings_free(void) {
    while (strings) {
        strnode *n = strings->next;
        free(strings);
        strings = n;
    }
}

ordo_status ordo_train_config_from_json(ordo_train_config *c, json_t *obj, const char *source,
                                        int skip_seen, ordo_opt *opts) {
    if (!json_is_object(obj))
        return ordo_error(ORDO_ERR_FORMAT, "%s: expected a JSON object of options", source);
    ordo_opt *own = opts ? NULL : ordo_train_config_options(c);
    ordo_opt *table = opts ? opts : own;
    const char *key;
    json_t *v;
    ordo_status s = ORDO_OK;
    // A run's own record (it has the backend) without "attention" predates the option: such
    // runs trained fused, whatever today's default
    if (json_is_object(json_object_get(obj, ORDO_CONFIG_BACKEND_KEY)) &&
        !json_object_get(obj, "attention") &&
        !(skip_seen && ordo_options_find(table, "attention")->seen))
        c->attention = "fused";
    json_object_foreach(obj, key, v) {
        if (strcmp(key, ORDO_CONFIG_BACKEND_KEY) == 0 && json_is_object(v)) continue; // a record
        if (strcmp(key, ORDO_CONFIG_UNIGRAM_KEY) == 0 && json_is_object(v)) continue; // a fact
        if (strcmp(key, ORDO_CONFIG_DATA_KEY) == 0) {
            if ((s = data_record_from_json(&c->data_record, v, source))) break;
            continue;
        }
        if (strcmp(key, ORDO_CONFIG_VAL_DATA_KEY) == 0) {
            if ((s = data_record_from_json(&c->val_record, v, source))) break;
            continue;
        }
        if (strcmp(key, ORDO_CONFIG_PLAN_KEY) == 0) {
            if ((s = plan_from_json(&c->plan, v, source))) break;
            continue;
        }
        if (strcmp(key, ORDO_CONFIG_INIT_KEY) == 0) {
            if ((s = init_record_from_json(&c->init_record, v, source))) break;
            continue;
        }
        ordo_opt *p = ordo_options_find(table, key);
        if (!p) {
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: unknown key \"%s\" (keys are the option names of "
                           "'ordo train --help')",
                           source, key);
            break;
        }
        if (skip_seen && p->seen) continue;
        switch (p->type) {
        case ORDO_OPT_FLAG:
            // 0 and 1 only: a 2 taken as true would accept what the message says is refused
            if (json_is_boolean(v) ||
                (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1)))
                *(int *)p->dst = json_is_integer(v) ? json_integer_value(v) != 0 : json_is_true(v);
            else
                s = ordo_error(ORDO_ERR_FORMAT, "%s: \"%s\" must be true/false or 0/1", source,
                               key);
            break;
        case ORDO_OPT_INT:
            if (json_is_integer(v))
                *(long long *)p->dst = json_integer_value(v);
            else
                s = ordo_error(ORDO_ERR_FORMAT, "%s: \"%s\" must be an integer", source, key);
            break;
        case ORDO_OPT_FLOAT:
            if (json_is_number(v) && isfinite(json_number_value(v)))
                *(double *)p->dst = json_number_value(v);
            else
                s = ordo_error(ORDO_ERR_FORMAT, "%s: \"%s\" must be a finite number", source, key);
            break;
        case ORDO_OPT_STRING:
            if (json_is_string(v))
                *(const char **)p->dst = keep_string(json_string_value(v));
            else if (json_is_null(v))
                *(const char **)p->dst = NULL;
            else
                s = ordo_error(ORDO_ERR_FORMAT, "%s: \"%s\" must be a string", source, key);
            break;
        }
        if (s) break;
    }
    free(own);
    return s;
}

// The value v of key in config c, for a message: a 0 that stands for a default says what it
// resolved to (cope-max 0: --context + 1).
static char *shown(const char *key, const json_t *v, const ordo_train_config *c) {
    char *text = json_dumps(v, JSON_ENCODE_ANY);
    if (strcmp(key, "cope-max") != 0 || !json_is_integer(v) || json_integer_value(v) != 0)
        return text;
    char *out = ordo_xmalloc(96);
    snprintf(out, 96, "%s (the default, --context + 1 = %lld)", text, c->context + 1);
    free(text);
    return out;
}

ordo_status ordo_train_config_compare(ordo_train_config *ckpt, ordo_train_config *now) {
    json_t *a = ordo_train_config_to_json(ckpt), *b = ordo_train_config_to_json(now);
    const char *key;
    json_t *va;
    ordo_status s = ORDO_OK;
    json_object_foreach(a, key, va) {
        if (ordo_config_resumable(key) || strcmp(key, ORDO_CONFIG_DATA_KEY) == 0 ||
            strcmp(key, ORDO_CONFIG_VAL_DATA_KEY) == 0 || strcmp(key, ORDO_CONFIG_PLAN_KEY) == 0 ||
            strcmp(key, ORDO_CONFIG_INIT_KEY) == 0)
            continue;
        json_t *vb = json_object_get(b, key);
        if (vb && json_equal(va, vb)) continue;
        char *sa = shown(key, va, ckpt), *sb = vb ? shown(key, vb, now) : NULL;
        s = ordo_error(ORDO_ERR_ARG,
                       "--%s is %s but the checkpoint was trained with %s; resuming would not "
                       "continue the same run (start a new --out instead)",
                       key, sb ? sb : "unset", sa);
        free(sa);
        free(sb);
        break;
    }
    json_decref(a);
    json_decref(b);
    return s;
}
