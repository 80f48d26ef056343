// A growable NUL-terminated text buffer: append bytes, strings or printf output, then use
// buf as a C string or write it out. One idea shared by the safetensors header writer and
// the SVG/HTML writers of experiments/plot.c.
#ifndef ORDO_STRBUF_H
#define ORDO_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

#include "sys/error.h"

typedef struct ordo_strbuf {
    char *buf;  // NUL-terminated text so far (owned); NULL only in a {0} buffer never appended to
    size_t len; // bytes in buf, not counting the NUL
    size_t cap; // bytes allocated
} ordo_strbuf;

// An empty buffer whose buf is "" (so it prints as a string at once). A zero-initialised
// buffer ({0}) is empty too, with buf NULL until the first append.
void ordo_strbuf_init(ordo_strbuf *b);
// Frees the text and leaves b empty ({0}); b may be reused after ordo_strbuf_init.
void ordo_strbuf_free(ordo_strbuf *b);

// Append n bytes of s (which may hold NULs), a C string, or printf-formatted text. Growth is
// by doubling; allocation failure is fatal (ordo_xrealloc).
void ordo_strbuf_append(ordo_strbuf *b, const char *s, size_t n);
void ordo_strbuf_puts(ordo_strbuf *b, const char *s);
void ordo_strbuf_printf(ordo_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ordo_strbuf_vprintf(ordo_strbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

// Writes the text (len bytes, no NUL) to path with ordo_write_atomic. Errors: ORDO_ERR_IO
// naming the path.
ordo_status ordo_strbuf_save(const ordo_strbuf *b, const char *path);

#endif
