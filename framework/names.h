// Name <-> enum tables. An enum whose values are 0..count-1 keeps its names in one array;
// parsing, naming and the "expected a, b or c" of a message are all made from that array,
// so a new value is one new name and every parser, message and --help list follows.
// Each layer wraps its own table in typed functions (ordo_pos_parse, ordo_task_parse...).
#ifndef ORDO_NAMES_H
#define ORDO_NAMES_H
#include "framework/error.h"

typedef struct ordo_names {
    const char *what;         // what a value is, for messages: "position scheme"
    const char *const *names; // names[v] is the name of value v
    int count;
} ordo_names;

// A table over a static array: ORDO_NAMES("task", task_names).
#define ORDO_NAMES(what, array)                                                                    \
    { (what), (array), (int)(sizeof(array) / sizeof((array)[0])) }

// The value named `name`, or -1 (also for NULL). Records no message.
int ordo_names_find(const ordo_names *t, const char *name);
// Sets *out to the value named `name`. Otherwise ORDO_ERR_ARG, *out unchanged, and the
// message names the value and every choice: "unknown task 'sort' (expected order, copy or
// reverse)"; for NULL: "task is not set (expected ...)".
ordo_status ordo_names_parse(const ordo_names *t, const char *name, int *out);
// The name of value v; "?" when v is out of range.
const char *ordo_names_name(const ordo_names *t, int v);
// Writes the names into buf (NUL-terminated, truncated to cap), `sep` between them and `last`
// before the last one: (", ", " or ") gives "a, b or c". Returns buf.
char *ordo_names_join(const ordo_names *t, const char *sep, const char *last, char *buf,
                      size_t cap);

#endif
