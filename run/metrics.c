// metrics.jsonl (see metrics.h): the line format, written with snprintf into the caller's
// buffer, and the reader. Lines are split on '\n' over the whole buffer (memchr, so a stray
// NUL byte damages one line, not the rest of the file) and each is parsed on its own: a line
// written half-way by a killed process cannot hide the others.
#include "run/metrics.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fileio.h"

#define METRICS_MAX_BYTES ((size_t)1 << 31)

// Appends `"key":value,` to buf at *k: the number in fmt, or null when it is not finite.
static void put(char *buf, size_t cap, size_t *k, const char *key, const char *fmt, double v) {
    ORDO_ASSERT(*k < cap);
    int n = snprintf(buf + *k, cap - *k, "\"%s\":", key);
    ORDO_ASSERT(n > 0 && (size_t)n < cap - *k);
    *k += (size_t)n;
    n = isfinite(v) ? snprintf(buf + *k, cap - *k, fmt, v) : snprintf(buf + *k, cap - *k, "null");
    ORDO_ASSERT(n > 0 && (size_t)n < cap - *k - 1);
    *k += (size_t)n;
    buf[(*k)++] = ',';
}

size_t ordo_metrics_format(char *buf, size_t cap, int64_t step, double train_loss, int has_val,
                           double val_loss, double lr, double tokens_per_s, double elapsed_s) {
    ORDO_ASSERT(cap >= ORDO_METRICS_LINE_MAX);
    cap = ORDO_METRICS_LINE_MAX; // what the header promises, whatever the buffer
    size_t k = (size_t)snprintf(buf, cap, "{\"step\":%" PRId64 ",", step);
    put(buf, cap, &k, "train_loss", "%.9g", train_loss);
    if (has_val) {
        put(buf, cap, &k, "val_loss", "%.9g", val_loss);
        put(buf, cap, &k, "val_ppl", "%.9g", exp(val_loss));
    }
    put(buf, cap, &k, "lr", "%.9g", lr);
    put(buf, cap, &k, "tokens_per_s", "%.1f", tokens_per_s);
    put(buf, cap, &k, "elapsed_s", "%.3f", elapsed_s);
    ORDO_ASSERT(k + 1 < cap);
    buf[k - 1] = '}'; // over the last ','
    buf[k++] = '\n';
    buf[k] = 0;
    return k;
}

// A number of the line, NaN when absent; a null sets its bit in *nulls.
static double field(json_t *o, const char *key, unsigned bit, unsigned *nulls) {
    json_t *v = json_object_get(o, key);
    if (json_is_null(v)) *nulls |= bit;
    return json_is_number(v) ? json_number_value(v) : NAN;
}

// The line with the bare inf, -inf, nan and -nan that printf's %g gave older ordo versions
// for a value that was not finite replaced by null, as a new string of *out_len bytes; NULL
// when it has none.
static char *legacy_nonfinite(const char *p, size_t len, size_t *out_len) {
    static const char *const bare[] = {"-inf", "inf", "-nan", "nan"};
    char *out = NULL;
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        if (i > 0 && p[i - 1] == ':')
            for (int b = 0; b < 4 && !n; b++) {
                size_t w = strlen(bare[b]);
                if (i + w <= len && memcmp(p + i, bare[b], w) == 0 &&
                    (i + w == len || p[i + w] == ',' || p[i + w] == '}'))
                    n = w;
            }
        if (n && !out) {                     // the first one: copy what came before it
            out = ordo_xmalloc(2 * len + 1); // "inf" -> "null" grows by one byte
            memcpy(out, p, i);
            k = i;
        }
        if (n) {
            memcpy(out + k, "null", 4);
            k += 4;
            i += n;
        } else {
            if (out) out[k++] = p[i];
            i++;
        }
    }
    if (out) out[k] = 0;
    *out_len = k;
    return out;
}

static void parse_line(const char *p, size_t len, ordo_metrics_line *l) {
    l->blank = 1;
    for (size_t i = 0; i < len && l->blank; i++)
        l->blank = p[i] == ' ' || p[i] == '\t' || p[i] == '\r';
    if (l->blank) return;
    json_error_t err;
    json_t *j = json_loadb(p, len, 0, &err);
    if (!j) {
        size_t n;
        char *fixed = legacy_nonfinite(p, len, &n);
        if (fixed) j = json_loadb(fixed, n, 0, &err);
        free(fixed);
    }
    l->ok = json_is_number(json_object_get(j, "step"));
    if (l->ok) {
        unsigned *nl = &l->nulls;
        l->step = json_number_value(json_object_get(j, "step"));
        l->train_loss = field(j, "train_loss", ORDO_METRICS_TRAIN_LOSS, nl);
        l->val_loss = field(j, "val_loss", ORDO_METRICS_VAL_LOSS, nl);
        l->val_ppl = field(j, "val_ppl", ORDO_METRICS_VAL_PPL, nl);
        l->lr = field(j, "lr", ORDO_METRICS_LR, nl);
        l->tokens_per_s = field(j, "tokens_per_s", ORDO_METRICS_TOKENS_PER_S, nl);
        l->elapsed_s = field(j, "elapsed_s", ORDO_METRICS_ELAPSED_S, nl);
    }
    json_decref(j);
}

ordo_status ordo_metrics_read(const char *path, ordo_metrics *m) {
    memset(m, 0, sizeof *m);
    ordo_status s = ordo_read_regular_file(path, METRICS_MAX_BYTES, &m->text, &m->len);
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
