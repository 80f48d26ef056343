// The eval report's codec (eval/eval_report.h): reports of real evaluations (a rope run with a
// scaling and sliding windows, a learned run grown past its table, copy's exact match, a
// passkey grid with nulls, a --pos-random run's drawn positions) come back from their JSON
// member for member, and a saved record read and written again is the same bytes; records as
// an older ordo or a person wrote them keep their absent keys and nulls; a malformed record is
// an error that names the file, the key and what was expected.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "eval/eval_record.h"
#include "eval/eval_report.h"
#include "eval/evaluate.h"
#include "run/config.h"
#include "sys/fileio.h"
#include "train/trainer.h"

static char root[] = "/tmp/ordo_eval_report_XXXXXX";

// A tiny run of `pos` on `task` in root/name, two steps.
static const char *train_run(const char *name, const char *task, const char *pos, int context,
                             int pos_random) {
    static char dirs[8][320];
    static int ndirs;
    char *dir = dirs[ndirs++];
    snprintf(dir, sizeof dirs[0], "%s/%s", root, name);
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    c.task = task;
    c.pos = pos;
    c.pos_random = pos_random;
    if (strcmp(task, "passkey") == 0) c.tokenizer = "byte";
    c.max_len = 2;
    c.corpus_tokens = 6000;
    c.context = context;
    c.d_model = 16;
    c.layers = 1;
    c.heads = 2;
    c.batch = 4;
    c.steps = 2;
    c.warmup = 1;
    c.eval_every = 0;
    c.ckpt_every = 2;
    c.log_every = 2;
    c.threads = 1;
    c.seed = 3;
    c.out = dir;
    ordo_train_request req = {.cfg = &c};
    ordo_status s = ordo_train(&req);
    CHECK_MSG(!s, "training %s: %s", name, s ? ordo_error_message() : "");
    return dir;
}

// The text ordo_write_json_atomic writes for j.
static char *file_text(const json_t *j) {
    char *t = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
    size_t n = strlen(t);
    t = realloc(t, n + 2);
    memcpy(t + n, "\n", 2);
    return t;
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    t[fread(t, 1, (size_t)n, f)] = 0;
    fclose(f);
    return t;
}

// x through its JSON and back is x; printed (--json's order) twice, the same text; saved as a
// record, read back and written again, the file's bytes.
static void round_trip(const char *label, ordo_eval_report *x, const char *run_dir) {
    json_t *j = ordo_eval_report_to_json(x);
    ordo_eval_report y;
    ordo_status s = ordo_eval_report_from_json(j, label, &y);
    CHECK_MSG(!s, "%s: %s", label, s ? ordo_error_message() : "");
    CHECK_MSG(ordo_eval_report_equal(x, &y), "%s: from_json(to_json(x)) differs from x", label);
    json_t *j2 = ordo_eval_report_to_json(&y);
    char *a = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    char *b = json_dumps(j2, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    CHECK_MSG(strcmp(a, b) == 0, "%s: printed twice, two texts", label);
    free(a), free(b), json_decref(j), json_decref(j2);
    ordo_eval_report_free(&y);

    char name[ORDO_EVAL_NAME_MAX + 16], path[600];
    snprintf(name, sizeof name, "rt-%s", label);
    CHECK(ordo_eval_save(run_dir, name, x) == ORDO_OK);
    snprintf(path, sizeof path, "%s/eval/%s.json", run_dir, name);
    char *disk = read_text(path);
    ordo_eval_report z;
    s = ordo_eval_report_read(path, &z);
    CHECK_MSG(!s, "%s: %s", path, s ? ordo_error_message() : "");
    // (its reals are x's to the 9 digits of the file: equal as text, not as doubles)
    CHECK(strcmp(ordo_eval_str_value(z.name), name) == 0 && z.results.n == x->results.n);
    json_t *jz = ordo_eval_report_to_json(&z);
    char *again = file_text(jz);
    CHECK_MSG(disk && strcmp(disk, again) == 0, "%s: the record written again is other bytes",
              label);
    free(disk), free(again), json_decref(jz);
    ordo_eval_report_free(&z);
}

// q evaluated, and its report through round_trip (have 0 when eval failed).
static ordo_eval_report eval_and_check(const char *label, ordo_eval_request q) {
    ordo_eval_report r;
    q.batch = q.batch ? q.batch : 4;
    q.max_windows = 3;
    q.step = -1;
    ordo_status s = ordo_eval_run(&q, &r);
    CHECK_MSG(!s, "%s: %s", label, s ? ordo_error_message() : "");
    if (!s) round_trip(label, &r, q.run_dir);
    return r;
}

static void real_reports(void) {
    const char *rope = train_run("rope", "order", "rope", 16, 0);
    const char *learned = train_run("learned", "order", "learned", 16, 0);
    const char *copy = train_run("copy", "copy", "learned", 8, 0);
    const char *passkey = train_run("passkey", "passkey", "alibi", 128, 0);
    const char *drawn = train_run("drawn", "order", "rope", 16, 64);
    int lens[] = {16, 32}, pk_lens[] = {16, 128};
    double depths[] = {0, 0.5, 1};
    ordo_eval_report r[7];
    r[0] = eval_and_check("rope", (ordo_eval_request){.run_dir = rope, .examples = 4});
    r[1] = eval_and_check("ntk", (ordo_eval_request){.run_dir = rope,
                                                     .lengths = lens,
                                                     .nlen = 2,
                                                     .rope_scaling = "ntk",
                                                     .rope_factor = 4,
                                                     .mode = ORDO_EVAL_SLIDING,
                                                     .stride = 5});
    r[2] = eval_and_check("learned",
                          (ordo_eval_request){.run_dir = learned, .lengths = lens, .nlen = 2});
    r[3] = eval_and_check(
        "fresh",
        (ordo_eval_request){.run_dir = learned, .lengths = lens, .nlen = 2, .extend_pos = "fresh"});
    r[4] = eval_and_check("copy", (ordo_eval_request){.run_dir = copy, .examples = 4, .max_n = 4});
    r[5] = eval_and_check("passkey", (ordo_eval_request){.run_dir = passkey,
                                                         .lengths = pk_lens,
                                                         .nlen = 2,
                                                         .examples = 2,
                                                         .depths = depths,
                                                         .ndepths = 3});
    r[6] = eval_and_check("drawn", (ordo_eval_request){.run_dir = drawn, .drawn_positions = 1});
    for (int i = 0; i < 7; i++) CHECK(r[i].have && r[i].results.n > 0);
    // the members that each kind of report adds: the round trips above went through them
    CHECK(r[0].rope_scaling.have && !r[0].accuracy.have && r[0].results.v[0].order_loss.has);
    CHECK(r[1].variant.factor.has == ORDO_EVAL_SET && r[1].results.v[0].stride.v == 5);
    CHECK(r[2].results.v[1].val_loss.has == ORDO_EVAL_NULL && r[2].results.v[1].note.v);
    CHECK(r[3].extend_pos.seed.has == ORDO_EVAL_SET && r[3].results.v[1].extend_pos.have);
    CHECK(r[4].accuracy.by_length.n == 4 && r[4].accuracy.by_length.v[3].note.v &&
          r[4].results.v[0].aligned_to_examples.has == ORDO_EVAL_SET);
    const ordo_eval_accuracy *pk = &r[5].accuracy;
    CHECK(pk->depths.n == 3 && pk->by_length.n == 2 && pk->by_depth.n == 3 &&
          pk->by_length.v[0].note.v && isnan(pk->by_length.v[0].by_depth.v[0]) &&
          r[5].request.depths.n == 3);
    CHECK(r[6].variant.positions.v && r[6].request.positions.v);
    for (int i = 0; i < 7; i++) ordo_eval_report_free(&r[i]);
}

// A record as text: read, its members, and written again (keys sorted, as on disk).
static void hand_written(void) {
    // an older record: no request, variant, data; "stride" is a key no longer written
    const char *old =
        "{\"run\": \"x\", \"step\": 20, \"pos\": \"learned\", \"train_context\": 16, \"mode\": "
        "\"nonoverlap\", \"stride\": 16, \"task\": null, \"results\": [{\"context\": 16, "
        "\"val_loss\": 2.25, \"val_ppl\": 9.49, \"loss_by_position\": [2.5, null]}, {\"context\": "
        "32, \"val_loss\": null, \"note\": \"past the learned table (T_max 16)\"}], \"accuracy\": "
        "{\"task\": \"copy\", \"by_length\": [{\"n\": 1, \"exact_match\": null, \"examples\": "
        "4}]}}";
    json_error_t err;
    json_t *j = json_loads(old, 0, &err);
    ordo_eval_report r;
    CHECK(ordo_eval_report_from_json(j, "old.json", &r) == ORDO_OK);
    CHECK(r.step.has == ORDO_EVAL_SET && r.step.v == 20);
    CHECK(r.task.has == ORDO_EVAL_NULL && r.checkpoint.has == ORDO_EVAL_ABSENT);
    CHECK(!r.request.have && !r.variant.have && !r.eval_set.have && !r.rope_scaling.have);
    CHECK(r.results.n == 2 && r.results.v[1].val_loss.has == ORDO_EVAL_NULL);
    CHECK(r.results.v[0].windows.has == ORDO_EVAL_ABSENT);
    CHECK(r.results.v[0].loss_by_position.n == 2 && isnan(r.results.v[0].loss_by_position.v[1]));
    CHECK(r.accuracy.have && r.accuracy.by_length.v[0].exact_match.has == ORDO_EVAL_NULL);
    char buf[80];
    CHECK(strcmp(ordo_eval_record_name(&r, buf, sizeof buf), "base") == 0);
    // written again: every key but the one it does not know, as it was
    json_object_del(j, "stride");
    json_t *back = ordo_eval_report_to_json(&r);
    char *want = file_text(j), *got = file_text(back);
    CHECK_MSG(strcmp(want, got) == 0, "an older record written again:\n%s\nnot\n%s", got, want);
    free(want), free(got), json_decref(back), json_decref(j);
    ordo_eval_report_free(&r);
}

// The error for record text `text` holds each of the strings `want` (NULL-ended).
static void refused(const char *text, const char **want) {
    char path[400];
    snprintf(path, sizeof path, "%s/bad.json", root);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    ordo_eval_report r;
    ordo_status s = ordo_eval_report_read(path, &r);
    CHECK_MSG(s == ORDO_ERR_FORMAT, "%s was read", text);
    const char *msg = s ? ordo_error_message() : "";
    CHECK_MSG(strstr(msg, path) != NULL, "the error does not name the file: %s", msg);
    for (const char **w = want; *w; w++)
        CHECK_MSG(strstr(msg, *w) != NULL, "the error for %s lacks '%s': %s", text, *w, msg);
    ordo_eval_report_free(&r);
    ordo_error_clear();
}

static void malformed(void) {
    refused("{\"results\": 3}", (const char *[]){"expected a \"results\" array", NULL});
    refused("[1, 2]", (const char *[]){"expected a JSON object", "found an array", NULL});
    refused("{\"results\": [{\"context\": 16, \"val_loss\": 2.5}, {\"context\": 32, \"val_loss\": "
            "3, \"windows\": \"many\"}]}",
            (const char *[]){"\"results[1].windows\"", "expected an integer or null",
                             "found a string", NULL});
    refused("{\"results\": [{\"val_loss\": 2.5}]}",
            (const char *[]){"\"results[0].context\"", "no such key", NULL});
    refused("{\"results\": [{\"context\": null, \"val_loss\": 2.5}]}",
            (const char *[]){"\"results[0].context\"", "expected an integer,", "found null", NULL});
    refused("{\"results\": [], \"step\": 2.5}",
            (const char *[]){"\"step\"", "expected an integer or null", "found a real", NULL});
    refused("{\"results\": [], \"accuracy\": {\"by_length\": [{\"length\": 8, \"by_depth\": "
            "[1.0, \"x\"]}]}}",
            (const char *[]){"\"accuracy.by_length[0].by_depth\"",
                             "expected an array of numbers or nulls", NULL});
    refused("{\"results\": [], \"request\": {\"lengths\": [16, 32.5]}}",
            (const char *[]){"\"request.lengths\"", "expected an array of integers", NULL});
    refused("{\"results\": [], \"variant\": \"ntk\"}",
            (const char *[]){"\"variant\"", "expected an object", "found a string", NULL});
    refused("{\"results\": [", (const char *[]){"line", NULL}); // not JSON: where it broke
}

int main(void) {
    ORDO_ASSERT(mkdtemp(root));
    real_reports();
    hand_written();
    malformed();
    ordo_config_strings_free();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (!test_failures) CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
