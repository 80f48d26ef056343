// The metrics.jsonl reader (see metrics.h). Lines are split on '\n' over the whole buffer
// (memchr, so a stray NUL byte damages one line, not the rest of the file) and each is
// parsed on its own: a line written half-way by a killed process cannot hide the others.
#include "train/metrics.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/fileio.h"

#define METRICS_MAX_BYTES ((size_t)1 << 31)

static double num_or_nan(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void parse_line(const char *p, size_t len, ordo_metrics_line *l) {
    l->blank = 1;
    for (size_t i = 0; i < len && l->blank; i++)
        l->blank = p[i] == ' ' || p[i] == '\t' || p[i] == '\r';
    json_error_t err;
    json_t *j = l->blank ? NULL : json_loadb(p, len, 0, &err);
    l->ok = json_is_number(json_object_get(j, "step"));
    if (l->ok) {
        l->step = num_or_nan(j, "step");
        l->train_loss = num_or_nan(j, "train_loss");
        l->val_loss = num_or_nan(j, "val_loss");
        l->val_ppl = num_or_nan(j, "val_ppl");
        l->lr = num_or_nan(j, "lr");
        l->tokens_per_s = num_or_nan(j, "tokens_per_s");
        l->elapsed_s = num_or_nan(j, "elapsed_s");
    }
    json_decref(j);
}

ordo_status ordo_metrics_read(const char *path, ordo_metrics *m) {
    memset(m, 0, sizeof *m);
    ordo_status s = ordo_read_file(path, METRICS_MAX_BYTES, &m->text, &m->len);
    if (s) return s;
    int cap = 0;
    for (size_t i = 0; i < m->len;) {
        const char *nl = memchr(m->text + i, '\n', m->len - i);
        size_t stop = nl ? (size_t)(nl - m->text) : m->len;
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            m->line = ordo_xrealloc(m->line, (size_t)cap * sizeof *m->line);
        }
        ordo_metrics_line *l = &m->line[m->n];
        memset(l, 0, sizeof *l);
        l->lineno = ++m->n;
        l->complete = nl != NULL;
        l->end = nl ? stop + 1 : stop;
        parse_line(m->text + i, stop - i, l);
        i = l->end;
    }
    return ORDO_OK;
}

void ordo_metrics_free(ordo_metrics *m) {
    free(m->text);
    free(m->line);
    memset(m, 0, sizeof *m);
}
