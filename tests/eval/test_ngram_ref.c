// ordo's n-gram levels (eval/ngram_levels.h over data/ngram.h) against an independent Python
// implementation of interpolated Witten-Bell and of eval's windows (tests/ref/ngram_ref.py,
// which wrote fixtures/ngram_wb.json): bytes of a sonnet at orders 1-4, and a masked stream
// whose validation split holds an id the training split never has, each in both modes at
// several strides.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evaluate.h"
#include "eval/ngram_levels.h"
#include "fixture.h"
#include "test.h"

// json ints [n] as int32 (malloc'd); NULL for a JSON null.
static int32_t *ids_of(json_t *a, size_t *n) {
    if (json_is_null(a)) return NULL;
    *n = json_array_size(a);
    int32_t *v = malloc((*n + 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++) v[i] = (int32_t)json_integer_value(json_array_get(a, i));
    return v;
}

int main(void) {
    json_error_t err;
    json_t *root = json_load_file(fixture_path("ngram_wb.json"), 0, &err);
    CHECK_MSG(root != NULL, "%s: %s", fixture_path("ngram_wb.json"), err.text);
    if (!root) TEST_MAIN_END();
    json_t *cases = json_object_get(root, "cases"), *c;
    size_t ci, levels = 0;
    json_array_foreach(cases, ci, c) {
        size_t ntrain = 0, nval = 0, nt = 0;
        int32_t *train = ids_of(json_object_get(c, "train"), &ntrain);
        int32_t *val = ids_of(json_object_get(c, "val"), &nval);
        int32_t *tg = ids_of(json_object_get(c, "targets"), &nt);
        int V = (int)json_integer_value(json_object_get(c, "vocab"));
        int N = (int)json_integer_value(json_object_get(c, "order"));
        const char *name = json_string_value(json_object_get(c, "name"));
        ordo_ngram m;
        CHECK(ordo_ngram_fit(&m, train, ntrain, V, N) == ORDO_OK);
        json_t *l;
        size_t li;
        json_array_foreach(json_object_get(c, "levels"), li, l) {
            ordo_eval_mode mode;
            CHECK(ordo_eval_mode_parse(json_string_value(json_object_get(l, "mode")), &mode) ==
                  ORDO_OK);
            int T = (int)json_integer_value(json_object_get(l, "context"));
            int S = (int)json_integer_value(json_object_get(l, "stride"));
            ordo_ngram_level out;
            CHECK(ordo_ngram_level_score(&m, val, tg, nval, T, mode, S, &out) == ORDO_OK);
            CHECK_MSG(out.targets == (size_t)json_integer_value(json_object_get(l, "targets")),
                      "%s T=%d S=%d: %zu targets", name, T, S, out.targets);
            CHECK_MSG(out.windows == (size_t)json_integer_value(json_object_get(l, "windows")),
                      "%s T=%d S=%d: %zu windows", name, T, S, out.windows);
            json_t *loss = json_object_get(l, "loss");
            CHECK((int)json_array_size(loss) == N);
            for (int j = 0; j < N; j++) {
                double want = json_number_value(json_array_get(loss, (size_t)j));
                CHECK_CLOSE(out.loss[j], want, 1e-9, 0);
            }
            levels++;
        }
        ordo_ngram_free(&m);
        free(train);
        free(val);
        free(tg);
    }
    CHECK(levels == 9);
    json_decref(root);
    TEST_MAIN_END();
}
