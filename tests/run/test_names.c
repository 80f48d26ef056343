// The name <-> enum tables: every name of every table parses back to its value and names
// it; an unknown or missing name is ORDO_ERR_ARG whose message lists every choice.
#include <stdio.h>
#include <string.h>

#include "data/corpus.h"
#include "data/tokenizer.h"
#include "framework/names.h"
#include "framework/optim.h"
#include "models/positional.h"
#include "test.h"
#include "run/config.h"
#include "eval/evaluate.h"

static void round_trip(const ordo_names *t) {
    CHECK_MSG(t->count >= 2, "%s: %d names", t->what, t->count);
    for (int v = 0; v < t->count; v++) {
        int got = -1;
        CHECK_MSG(ordo_names_parse(t, t->names[v], &got) == ORDO_OK && got == v, "%s '%s' -> %d",
                  t->what, t->names[v], got);
        CHECK(ordo_names_find(t, t->names[v]) == v);
        CHECK(strcmp(ordo_names_name(t, v), t->names[v]) == 0);
    }
    CHECK(strcmp(ordo_names_name(t, -1), "?") == 0);
    CHECK(strcmp(ordo_names_name(t, t->count), "?") == 0);
    // an unknown name: *out untouched, the message names the value and every choice
    int out = 12345;
    CHECK(ordo_names_parse(t, "no-such-name", &out) == ORDO_ERR_ARG && out == 12345);
    const char *msg = ordo_error_message();
    CHECK_MSG(strstr(msg, "'no-such-name'") && strstr(msg, t->what), "%s", msg);
    for (int v = 0; v < t->count; v++) CHECK_MSG(strstr(msg, t->names[v]), "%s", msg);
    CHECK(ordo_names_parse(t, NULL, &out) == ORDO_ERR_ARG && out == 12345);
    CHECK_MSG(strstr(ordo_error_message(), "is not set"), "%s", ordo_error_message());
    CHECK(ordo_names_find(t, NULL) == -1 && ordo_names_find(t, "") == -1);
}

int main(void) {
    round_trip(&ordo_pos_names);
    round_trip(&ordo_task_names);
    round_trip(&ordo_tokenizer_kind_names);
    round_trip(&ordo_optim_kind_names);
    round_trip(&ordo_schedule_names);
    round_trip(&ordo_rope_scaling_names);
    round_trip(&ordo_extend_pos_names);
    CHECK(ordo_pos_names.count == ORDO_POS_COUNT);

    // the exact message form, and the typed wrappers over the tables
    ordo_pos p = ORDO_POS_NONE;
    CHECK(ordo_pos_parse("rope", &p) == ORDO_OK && p == ORDO_POS_ROPE);
    CHECK(strcmp(ordo_pos_name(ORDO_POS_T5), "t5") == 0);
    CHECK(ordo_pos_parse("fourier", &p) == ORDO_ERR_ARG && p == ORDO_POS_ROPE);
    // every scheme of the table, in its order (the first ones as the docs list them)
    char all[512], want[640];
    ordo_names_join(&ordo_pos_names, ", ", " or ", all, sizeof all);
    snprintf(want, sizeof want, "unknown position scheme 'fourier' (expected %s)", all);
    CHECK_MSG(strcmp(ordo_error_message(), want) == 0, "%s", ordo_error_message());
    CHECK(strncmp(all,
                  "none, learned, sinusoidal, rope, alibi, t5, fire, kerple, xpos, "
                  "kerple-power, fox, dpb",
                  80) == 0);
    CHECK(ordo_pos_parse("kerple-power", &p) == ORDO_OK && p == ORDO_POS_KERPLE_POWER);
    CHECK(strcmp(ordo_pos_name(ORDO_POS_XPOS), "xpos") == 0);
    CHECK(ordo_pos_parse("dpb", &p) == ORDO_OK && p == ORDO_POS_DPB);
    CHECK(ordo_pos_parse("cope", &p) == ORDO_OK && p == ORDO_POS_COPE);
    ordo_optim_kind k;
    CHECK(ordo_optim_parse_kind("adam", &k) == ORDO_ERR_ARG);
    CHECK_MSG(strcmp(ordo_error_message(), "unknown optimizer 'adam' (expected adamw or sgd)") == 0,
              "%s", ordo_error_message());
    ordo_eval_mode m;
    CHECK(ordo_eval_mode_parse("sliding", &m) == ORDO_OK && m == ORDO_EVAL_SLIDING);
    CHECK(strcmp(ordo_eval_mode_name(ORDO_EVAL_NONOVERLAP), "nonoverlap") == 0);
    CHECK(ordo_eval_mode_parse("strided", &m) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "'strided' (expected nonoverlap or sliding)"));
    ordo_task t;
    CHECK(ordo_task_parse(NULL, &t) == ORDO_ERR_ARG);
    CHECK_MSG(strcmp(ordo_error_message(),
                     "task is not set (expected order, copy, reverse, passkey, mqar, flipflop, "
                     "add, selective-copy or count)") == 0,
              "%s", ordo_error_message());
    TEST_MAIN_END();
}
