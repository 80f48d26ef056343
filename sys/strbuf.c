// The growable text buffer of strbuf.h. The text is always NUL-terminated, so that a
// caller can hand buf to printf or strcmp between appends. Deliberately not here: escaping
// (each format has its own rules: JSON in safetensors.c, XML in experiments/plot.c).
#include "sys/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fileio.h"

#define INITIAL_CAP 256

void ordo_strbuf_init(ordo_strbuf *b) {
    b->cap = INITIAL_CAP;
    b->buf = ordo_xmalloc(b->cap);
    b->buf[0] = 0;
    b->len = 0;
}

void ordo_strbuf_free(ordo_strbuf *b) {
    free(b->buf);
    b->buf = NULL;
    b->len = b->cap = 0;
}

// Room for extra more bytes and the NUL.
static void reserve(ordo_strbuf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : INITIAL_CAP;
    while (b->len + extra + 1 > cap) cap *= 2;
    b->buf = ordo_xrealloc(b->buf, cap);
    b->cap = cap;
}

void ordo_strbuf_append(ordo_strbuf *b, const char *s, size_t n) {
    reserve(b, n);
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = 0;
}

void ordo_strbuf_puts(ordo_strbuf *b, const char *s) {
    ordo_strbuf_append(b, s, strlen(s));
}

void ordo_strbuf_vprintf(ordo_strbuf *b, const char *fmt, va_list ap) {
    // format into the free space; if it does not fit, grow once to the size vsnprintf
    // reported and format again from a copy of the arguments
    va_list again;
    va_copy(again, ap);
    reserve(b, 0);
    int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    ORDO_ASSERT(n >= 0);
    if ((size_t)n + 1 > b->cap - b->len) {
        reserve(b, (size_t)n);
        vsnprintf(b->buf + b->len, b->cap - b->len, fmt, again);
    }
    va_end(again);
    b->len += (size_t)n;
}

void ordo_strbuf_printf(ordo_strbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ordo_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

ordo_status ordo_strbuf_save(const ordo_strbuf *b, const char *path) {
    const void *parts[1] = {b->buf};
    size_t lens[1] = {b->len};
    return ordo_write_atomic(path, parts, lens, 1);
}
