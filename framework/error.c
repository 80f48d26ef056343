// Thread-local error messages and the bug trap. Deliberately tiny: no error codes
// beyond ordo_status, no stack of messages, just the last one with its context.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/error.h"

#define MSG_CAP 2048
static _Thread_local char msg[MSG_CAP];

// A message of n bytes was cut to fit msg: end it with "..." (not inside a UTF-8 char).
static void mark_cut(int n) {
    if (n < MSG_CAP) return;
    size_t k = MSG_CAP - 4;
    while (k > 0 && ((unsigned char)msg[k] & 0xC0) == 0x80) k--;
    memcpy(msg + k, "...", 4);
}

ordo_status ordo_error(ordo_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mark_cut(vsnprintf(msg, MSG_CAP, fmt, ap));
    va_end(ap);
    return s;
}

ordo_status ordo_error_wrap(ordo_status s, const char *fmt, ...) {
    char prefix[MSG_CAP], old[MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, MSG_CAP, fmt, ap);
    va_end(ap);
    memcpy(old, msg, MSG_CAP);
    mark_cut(snprintf(msg, MSG_CAP, "%s: %s", prefix, old));
    return s;
}

const char *ordo_error_message(void) {
    return msg;
}
void ordo_error_clear(void) {
    msg[0] = 0;
}

const char *ordo_status_name(ordo_status s) {
    switch (s) {
    case ORDO_OK:
        return "ok";
    case ORDO_ERR_ARG:
        return "bad argument";
    case ORDO_ERR_IO:
        return "i/o error";
    case ORDO_ERR_FORMAT:
        return "bad format";
    case ORDO_ERR_NOMEM:
        return "out of memory";
    case ORDO_ERR_NUMERIC:
        return "numeric error";
    case ORDO_ERR_INTERRUPTED:
        return "interrupted";
    case ORDO_ERR_STATE:
        return "bad state";
    }
    return "unknown";
}

_Noreturn void ordo_panic(const char *file, int line, const char *what) {
    fprintf(stderr, "ordo: internal error at %s:%d: %s\n", file, line, what);
    abort();
}

void *ordo_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) ordo_panic(__FILE__, __LINE__, "out of memory");
    return p;
}

void *ordo_xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) ordo_panic(__FILE__, __LINE__, "out of memory");
    return p;
}

void *ordo_xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) ordo_panic(__FILE__, __LINE__, "out of memory");
    return p;
}

char *ordo_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(ordo_xmalloc(n), s, n);
}
