// Counting examples (see count.h), every draw from ordo_rng so that a seed gives the same
// examples on every machine. The draws follow the generator's rejections: a statement that
// cannot be made is drawn again, and an example whose question has no variable to ask
// (none was set) is made again from the start.
#include "data/count.h"

const char *const ordo_count_words[ORDO_COUNT_VOCAB] = {
    "pass;", "=",  ";", "++;", "print", "0", "1", "2", "3", "4", "5", "6", "7", "8",
    "9",     "10", "a", "b",   "c",     "d", "e", "f", "g", "h", "i", "j", "k", "l",
    "m",     "n",  "o", "p",   "q",     "r", "s", "t", "u", "v", "w", "x", "y", "z"};

ordo_status ordo_count_check(int len, int vars) {
    if (vars < 1 || vars > ORDO_COUNT_MAX_VARS)
        return ordo_error(ORDO_ERR_ARG, "--count-vars %d, expected 1..%d", vars,
                          ORDO_COUNT_MAX_VARS);
    if (len < 8)
        return ordo_error(ORDO_ERR_ARG,
                          "count: an example of %d tokens, expected 8 or more (a set, the "
                          "question and its answer)",
                          len);
    return ORDO_OK;
}

enum { SET, INCREMENT, DUMMY };

// One statement of at most `room` tokens into out; returns its length, or 0 when this draw
// cannot be made (an increment with no variable set, or past the largest value). A set or an
// increment with no room left is a "pass;": the gap at the end of the example.
static int statement(ordo_rng *r, int vars, int room, int *val, int *set, int *nset, int32_t *out) {
    uint64_t u = ordo_rng_below(r, 58); // weights 1 : 7 : 50
    int op = u < 1 ? SET : u < 8 ? INCREMENT : DUMMY;
    if (op == SET && room >= 4) {
        int v = (int)ordo_rng_below(r, (uint64_t)vars);
        if (val[v] < 0) set[(*nset)++] = v;
        val[v] = 0;
        out[0] = ORDO_COUNT_VAR0 + v, out[1] = ORDO_COUNT_EQ, out[2] = ORDO_COUNT_VAL0,
        out[3] = ORDO_COUNT_SEMI;
        return 4;
    }
    if (op == INCREMENT && room >= 2) {
        if (*nset == 0) return 0;
        int v = set[ordo_rng_below(r, (uint64_t)*nset)];
        if (val[v] + 1 > ORDO_COUNT_MAX_VAL) return 0;
        val[v]++;
        out[0] = ORDO_COUNT_VAR0 + v, out[1] = ORDO_COUNT_INC;
        return 2;
    }
    out[0] = ORDO_COUNT_PASS;
    return 1;
}

ordo_status ordo_count_example(const void *task, int len, double vars_d, ordo_rng *r, int32_t *out,
                               uint8_t *mask) {
    (void)task;
    int vars = (int)vars_d;
    ordo_status s = ordo_count_check(len, vars);
    if (s) return s;
    int body = len - 3; // "print x v"
    for (;;) {
        int val[ORDO_COUNT_MAX_VARS], set[ORDO_COUNT_MAX_VARS], nset = 0, n = 0;
        for (int v = 0; v < vars; v++) val[v] = -1; // not set
        while (n < body) n += statement(r, vars, body - n, val, set, &nset, out + n);
        if (nset == 0) continue; // nothing to ask: a new example, as their generator does
        int v = set[ordo_rng_below(r, (uint64_t)nset)];
        out[body] = ORDO_COUNT_PRINT, out[body + 1] = ORDO_COUNT_VAR0 + v;
        out[body + 2] = ORDO_COUNT_VAL0 + val[v];
        for (int t = 0; t < len; t++) mask[t] = t == body + 2;
        return ORDO_OK;
    }
}
