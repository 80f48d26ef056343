// Thread-local error messages and the bug trap. Deliberately tiny: no error codes
// beyond ordo_status, no stack of messages, just the last one with its context.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"

#define MSG_CAP 2048
// A word (a run of non-blank bytes: a path, as a rule) longer than this, in a message that
// does not fit, is shown as its first and last WORD_END bytes.
#define WORD_LONG 256
#define WORD_END  100
static _Thread_local char msg[MSG_CAP];

// A message of n bytes was cut to fit msg: end it with "..." (not inside a UTF-8 char).
static void mark_cut(int n) {
    if (n < MSG_CAP) return;
    size_t k = MSG_CAP - 4;
    while (k > 0 && ((unsigned char)msg[k] & 0xC0) == 0x80) k--;
    memcpy(msg + k, "...", 4);
}

static int utf8_cont(char c) {
    return ((unsigned char)c & 0xC0) == 0x80;
}

// Sets msg to full (n bytes), which does not fit: each long word is shortened to its ends
// with the count of bytes left out between them, so that what follows a 10 MB path (the
// reason, as a rule) is kept; only if the message is still too long is its end cut.
static void set_shortened(const char *full, size_t n) {
    size_t out = 0, i = 0;
    char gap[48];
    while (i < n && out < MSG_CAP - 1) {
        size_t w = i;
        while (w < n && full[w] != ' ' && full[w] != '\n') w++;
        size_t len = w - i;
        if (len == 0) { // a blank
            msg[out++] = full[i++];
            continue;
        }
        size_t head = len, tail = w;
        if (len > WORD_LONG) {
            head = WORD_END;
            while (head > 0 && utf8_cont(full[i + head])) head--;
            tail = w - WORD_END;
            while (tail < w && utf8_cont(full[tail])) tail++;
        }
        size_t room = MSG_CAP - 1 - out, k = head < room ? head : room;
        memcpy(msg + out, full + i, k);
        out += k;
        if (len > WORD_LONG) {
            int g = snprintf(gap, sizeof gap, "...(%zu bytes left out)...", tail - (i + head));
            room = MSG_CAP - 1 - out;
            k = (size_t)g < room ? (size_t)g : room;
            memcpy(msg + out, gap, k);
            out += k;
            room = MSG_CAP - 1 - out;
            k = w - tail < room ? w - tail : room;
            memcpy(msg + out, full + tail, k);
            out += k;
        }
        i = w;
    }
    msg[out] = 0;
    if (i < n) mark_cut(MSG_CAP);
}

// Formats into msg; a message that does not fit goes through set_shortened.
static void set_formatted(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(msg, MSG_CAP, fmt, ap);
    if (n >= MSG_CAP) {
        char *full = malloc((size_t)n + 1);
        if (full && vsnprintf(full, (size_t)n + 1, fmt, again) == n)
            set_shortened(full, (size_t)n);
        else
            mark_cut(n); // no memory for the whole: the plain cut
        free(full);
    }
    va_end(again);
}

ordo_status ordo_error(ordo_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_formatted(fmt, ap);
    va_end(ap);
    return s;
}

// "%s: %s" of a and b, into msg.
static void set_joined(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    char *full = malloc(na + nb + 3);
    if (!full) {
        mark_cut(snprintf(msg, MSG_CAP, "%s: %s", a, b));
        return;
    }
    memcpy(full, a, na);
    memcpy(full + na, ": ", 2);
    memcpy(full + na + 2, b, nb + 1);
    if (na + nb + 2 < MSG_CAP)
        memcpy(msg, full, na + nb + 3);
    else
        set_shortened(full, na + nb + 2);
    free(full);
}

ordo_status ordo_error_wrap(ordo_status s, const char *fmt, ...) {
    char old[MSG_CAP];
    memcpy(old, msg, MSG_CAP);
    va_list ap;
    va_start(ap, fmt);
    set_formatted(fmt, ap); // the prefix, shortened as a message would be
    va_end(ap);
    char prefix[MSG_CAP];
    memcpy(prefix, msg, MSG_CAP);
    set_joined(prefix, old);
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
