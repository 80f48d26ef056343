// `ordo eval --extend-pos`: a learned run scored past its table gives, bit for bit,
// the losses of the model that `ordo train --init RUN --context T --extend-pos M` starts from
// (built here as the trainer builds it: the run's config at T, the run's seed, ordo_init_load),
// for interpolate, fresh and copy; lengths within the table are scored with the table as it is.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "run/config.h"
#include "eval/evaluate.h"
#include "run/init.h"
#include "run/run.h"
#include "train/trainer.h"

static char root[] = "/tmp/ordo_eval_extend_XXXXXX";
enum { T0 = 16, T = 40, WINDOWS = 6 };

// A learned run at context T0 in dir.
static ordo_status train_run(const char *dir) {
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    c.task = "order";
    c.corpus_tokens = 20000;
    c.context = T0;
    c.d_model = 32;
    c.layers = 1;
    c.heads = 2;
    c.batch = 8;
    c.steps = 6;
    c.warmup = 2;
    c.eval_every = 0;
    c.ckpt_every = 6;
    c.log_every = 6;
    c.threads = 2;
    c.seed = 7;
    c.out = dir;
    ordo_train_request req = {.cfg = &c};
    return ordo_train(&req);
}

// The val_loss of row i of report r (NaN when absent).
static double row_loss(const ordo_eval_report *r, int i) {
    return i < r->results.n ? ordo_eval_real_value(r->results.v[i].val_loss) : NAN;
}

// The loss at T of the model `ordo train --init dir --context T --extend-pos how` starts from.
static double reference(const char *dir, const char *how) {
    ordo_train_config cfg;
    ordo_rundata data;
    ordo_gpt m, ref;
    ordo_run_view view;
    double loss = NAN;
    if (ordo_run_open(dir, NULL, &cfg, &data, &m, &view)) {
        CHECK_MSG(0, "%s", ordo_error_message());
        return loss;
    }
    ordo_train_config c = cfg; // as trainer.c's build: config at T, the run's seed, the file
    c.context = T;
    c.init = dir;
    c.extend_pos = how;
    memset(&c.init_record, 0, sizeof c.init_record);
    ordo_gpt_config g;
    ordo_status s = ordo_train_config_model(&c, data.vocab_size, &g);
    if (!s) s = ordo_gpt_init(&ref, &g, (uint64_t)c.seed);
    if (!s) s = ordo_init_load(&c, &ref);
    CHECK_MSG(!s, "%s", s ? ordo_error_message() : "");
    if (!s) {
        ordo_ctx ctx;
        ordo_ctx_init(&ctx);
        ordo_eval_result r;
        s = ordo_eval_stream(&ref, &ctx, data.val, data.val_targets, data.nval, T,
                             ORDO_EVAL_NONOVERLAP, T, 8, WINDOWS, NULL, &r);
        CHECK_MSG(!s, "%s", s ? ordo_error_message() : "");
        if (!s) loss = r.loss;
        ordo_eval_result_free(&r);
        ordo_ctx_free(&ctx);
        ordo_gpt_free(&ref);
    }
    ordo_gpt_free(&m);
    ordo_rundata_free(&data);
    return loss;
}

// The report of the run in dir at T0 and T (have 0 when eval failed).
static ordo_eval_report eval(const char *dir, const char *how) {
    int lens[] = {T0, T};
    ordo_eval_request q = {.run_dir = dir,
                           .lengths = lens,
                           .nlen = 2,
                           .mode = ORDO_EVAL_NONOVERLAP,
                           .batch = 8,
                           .max_windows = WINDOWS,
                           .step = -1,
                           .extend_pos = how};
    ordo_eval_report r;
    ordo_status s = ordo_eval_run(&q, &r);
    CHECK_MSG(!s, "%s", s ? ordo_error_message() : "");
    return r;
}

int main(void) {
    ORDO_ASSERT(mkdtemp(root));
    char dir[300];
    snprintf(dir, sizeof dir, "%s/learned", root);
    CHECK(train_run(dir) == ORDO_OK);
    ordo_eval_report plain = eval(dir, NULL);
    CHECK(plain.have && isnan(row_loss(&plain, 1))); // past the table without --extend-pos: n/a
    double got[3] = {NAN, NAN, NAN};
    const char *hows[] = {"interpolate", "fresh", "copy"};
    for (int k = 0; k < 3 && plain.have; k++) {
        ordo_eval_report r = eval(dir, hows[k]);
        if (!r.have) break;
        double want = reference(dir, hows[k]);
        got[k] = row_loss(&r, 1);
        CHECK_MSG(memcmp(&got[k], &want, sizeof want) == 0,
                  "%s at %d: eval %.17g, the --init model %.17g", hows[k], T, got[k], want);
        // within the table: the table as it is
        double a = row_loss(&r, 0), b = row_loss(&plain, 0);
        CHECK(isfinite(a) && memcmp(&a, &b, sizeof a) == 0);
        const ordo_eval_extend *e = &r.results.v[1].extend_pos;
        CHECK(e->have && ordo_eval_int_or(e->table, 0) == T0 &&
              ordo_eval_int_or(e->grown_to, 0) == T &&
              strcmp(ordo_eval_str_value(e->method), hows[k]) == 0);
        CHECK(!r.results.v[0].extend_pos.have);
        printf("  %-11s at T = %d (table %d): %.6f, the --init model's bit for bit\n", hows[k], T,
               T0, got[k]);
        ordo_eval_report_free(&r);
    }
    CHECK(isfinite(got[0]) && isfinite(got[1]) && isfinite(got[2]) && got[0] != got[1] &&
          got[0] != got[2] && got[1] != got[2]); // three models
    ordo_eval_report_free(&plain);
    ordo_config_strings_free();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (!test_failures) CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
