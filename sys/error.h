// Errors: user-caused failures are a status plus a recorded message; broken
// invariants (bugs) abort with file and line. Only the CLI's main prints.
#ifndef ORDO_ERROR_H
#define ORDO_ERROR_H
#include <stddef.h>

typedef enum ordo_status {
    ORDO_OK = 0,
    ORDO_ERR_ARG,         // a bad argument, option or config value
    ORDO_ERR_IO,          // a file could not be opened, read or written
    ORDO_ERR_FORMAT,      // a file's content is malformed
    ORDO_ERR_NOMEM,       // an allocation failed or a size is absurd
    ORDO_ERR_NUMERIC,     // NaN or inf where a finite number was needed
    ORDO_ERR_INTERRUPTED, // stopped by a signal, state saved
    ORDO_ERR_STATE,       // an object is used in a state that does not allow it
} ordo_status;

// Records a printf-style message for the calling thread and returns `s`, so that
// library code can write `return ordo_error(ORDO_ERR_IO, "%s: %s", path, strerror(errno));`.
ordo_status ordo_error(ordo_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Prefixes the recorded message with "<prefix>: " (context added on the way up); returns `s`.
ordo_status ordo_error_wrap(ordo_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// The calling thread's last message ("" if none). Valid until the next ordo_error.
const char *ordo_error_message(void);
void ordo_error_clear(void);
const char *ordo_status_name(ordo_status s);

// Bug traps: print file:line and the failed condition, then abort. Never for user input.
_Noreturn void ordo_panic(const char *file, int line, const char *what);
#define ORDO_ASSERT(c) ((c) ? (void)0 : ordo_panic(__FILE__, __LINE__, #c))

// Allocation that cannot fail quietly: a failed malloc of a size that passed validation
// is treated as fatal (there is nothing sensible to return to the user mid-step).
void *ordo_xmalloc(size_t n);
void *ordo_xcalloc(size_t count, size_t size);
void *ordo_xrealloc(void *p, size_t n);
char *ordo_xstrdup(const char *s);

#endif
