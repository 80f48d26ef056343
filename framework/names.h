// Name <-> enum tables. An enum whose values are 0..count-1 keeps its names in one array;
// parsing, naming and the "expected a, b or c" of a message are all made from that array,
// so a new value is one new name and every parser, message and --help list follows.
// Each layer wraps its own table in typed functions (ordo_pos_parse, ordo_task_parse...).
#ifndef ORDO_NAMES_H
#define ORDO_NAMES_H
#include "sys/error.h"

typedef struct ordo_names {
    const char *what;         // what a value is, for messages: "position scheme"
    const char *const *names; // names[v] is the name of value v
    int count;
} ordo_names;

// A table over a static array: ORDO_NAMES("task", task_names).
#define ORDO_NAMES(what, array)                                                                    \
    { (what), (array), (int)(sizeof(array) / sizeof((array)[0])) }

// Defines the table `table` of an enum's names, each written once, in enum order, and checks
// at compile time that there is one per value 0..count-1:
//   ORDO_NAMES_TABLE(ordo_task_names, "task", ORDO_TASK_REVERSE + 1, "order", "copy", "reverse");
// defines `const ordo_names ordo_task_names` (ORDO_NAMES_STATIC_TABLE: a file-local one).
#define ORDO_NAMES_TABLE(table, what, count, ...)                                                  \
    ORDO_NAMES_TABLE_(, table, what, count, __VA_ARGS__)
#define ORDO_NAMES_STATIC_TABLE(table, what, count, ...)                                           \
    ORDO_NAMES_TABLE_(static, table, what, count, __VA_ARGS__)
#define ORDO_NAMES_TABLE_(storage, table, what, count, ...)                                        \
    static const char *const table##_list_[] = {__VA_ARGS__};                                      \
    _Static_assert(sizeof table##_list_ / sizeof table##_list_[0] == (count),                      \
                   "a name per value of " #table);                                                 \
    storage const ordo_names table = ORDO_NAMES(what, table##_list_)

// The typed pair over a table: `ordo_status parse(const char *name, type *out)` (as
// ordo_names_parse, *out unchanged on error) and `const char *name(type v)` (as
// ordo_names_name). ORDO_NAMES_ENUM is the table and the pair in one:
//   ORDO_NAMES_ENUM(ordo_task, ordo_task_parse, ordo_task_name, ordo_task_names, "task",
//                   ORDO_TASK_REVERSE + 1, "order", "copy", "reverse");
#define ORDO_NAMES_FUNCTIONS(type, parse, name, table)                                             \
    ordo_status parse(const char *name_, type *out_) {                                             \
        int v_;                                                                                    \
        ordo_status s_ = ordo_names_parse(&(table), name_, &v_);                                   \
        if (!s_) *out_ = (type)v_;                                                                 \
        return s_;                                                                                 \
    }                                                                                              \
    const char *name(type v_) {                                                                    \
        return ordo_names_name(&(table), (int)v_);                                                 \
    }                                                                                              \
    _Static_assert(1, "a semicolon after the macro")
#define ORDO_NAMES_ENUM(type, parse, name, table, what, count, ...)                                \
    ORDO_NAMES_TABLE(table, what, count, __VA_ARGS__);                                             \
    ORDO_NAMES_FUNCTIONS(type, parse, name, table)

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
