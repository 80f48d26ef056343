// Exact resume: training N steps in one go and training k steps, stopping, and resuming to
// N give bit-identical weights, optimizer moments, training state and metrics, for each
// optimizer with shuffling on. Also: a conflicting config is refused on resume, a corrupt
// newest checkpoint is skipped for the previous one, and a NaN stops the run without
// touching the last good checkpoint.
// `test_train_resume --equal A B` compares two checkpoint files (used by the kill -9 test).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "framework/dnnl.h"
#include "sys/fileio.h"
#include "framework/safetensors.h"
#include "test.h"
#include "run/config.h"
#include "train/trainer.h"

static char root[] = "/tmp/ordo_resume_XXXXXX";

// Bitwise equality of every tensor and of the state metadata (not the config: its "out" differs).
static int ckpt_equal(const char *a, const char *b, int verbose) {
    ordo_safetensors *fa, *fb;
    if (ordo_safetensors_open(a, &fa)) {
        if (verbose) fprintf(stderr, "%s\n", ordo_error_message());
        return 0;
    }
    if (ordo_safetensors_open(b, &fb)) {
        if (verbose) fprintf(stderr, "%s\n", ordo_error_message());
        ordo_safetensors_close(fa);
        return 0;
    }
    int ok = ordo_safetensors_count(fa) == ordo_safetensors_count(fb);
    for (int i = 0; ok && i < ordo_safetensors_count(fa); i++) {
        const ordo_st_tensor *ta = ordo_safetensors_at(fa, i);
        const ordo_st_tensor *tb = ordo_safetensors_find(fb, ta->name);
        ok = tb && ta->nbytes == tb->nbytes &&
             memcmp(ordo_safetensors_data(fa, ta), ordo_safetensors_data(fb, tb), ta->nbytes) == 0;
        if (!ok && verbose) fprintf(stderr, "tensor %s differs\n", ta->name);
    }
    const char *keys[] = {"step", "rng", "dataloader", "optim_t"};
    for (int k = 0; ok && k < 4; k++) {
        const char *va = ordo_safetensors_meta(fa, keys[k]),
                   *vb = ordo_safetensors_meta(fb, keys[k]);
        ok = va && vb && strcmp(va, vb) == 0;
        if (!ok && verbose) fprintf(stderr, "metadata %s differs: %s vs %s\n", keys[k], va, vb);
    }
    ordo_safetensors_close(fa);
    ordo_safetensors_close(fb);
    return ok;
}

// metrics.jsonl without the timing field, which cannot repeat.
static char *metrics_without_timing(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
    char *buf;
    size_t len;
    if (ordo_read_file(path, 1 << 26, &buf, &len)) return NULL;
    char *out = malloc(len + 1), *o = out;
    for (char *p = buf; *p;) {
        char *t = strstr(p, ",\"tokens_per_s\":");
        if (!t) {
            o = stpcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(t - p));
        o += t - p;
        p = strchr(t, '}');
    }
    *o = 0;
    free(buf);
    return out;
}

// ordo_train as `ordo train` calls it: a resumed run's config is resolved first.
static ordo_status train_req(ordo_train_config *c, ordo_opt *opts, const char *resume,
                             long long stop_after, long long poison_step) {
    ordo_resume run = {0};
    ordo_status s = resume ? ordo_resume_open(&run, resume, c, opts) : ORDO_OK;
    ordo_train_request req = {.cfg = c,
                              .resume = resume ? &run : NULL,
                              .stop_after = stop_after,
                              .poison_step = poison_step};
    if (!s) s = ordo_train(&req);
    ordo_resume_free(&run);
    return s;
}

// The matmul precision of every run below (main repeats the resume check in bf16).
static const char *precision = "fp32";
// The scheme and --pos-random of every run below (main repeats the check with drawn positions).
static const char *pos = "learned";
static long long pos_random = 0;

static ordo_status train(const char *out, const char *optimizer, long long steps,
                         long long stop_after, const char *resume) {
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    c.task = "order";
    c.corpus_tokens = 20000;
    c.context = 16;
    c.d_model = 32;
    c.layers = 1;
    c.heads = 2;
    c.batch = 8;
    c.steps = steps;
    c.warmup = 3;
    c.eval_every = 5;
    c.eval_batches = 2;
    c.ckpt_every = 4;
    c.keep = 2;
    c.log_every = 2;
    c.optimizer = optimizer;
    c.shuffle = 1;
    c.threads = 2;
    c.precision = precision;
    c.pos = pos;
    c.pos_random = pos_random;
    c.out = out;
    ordo_opt *opts = ordo_train_config_options(&c);
    if (resume) ordo_options_find(opts, "steps")->seen = 1; // as if --steps were given again
    ordo_status s = train_req(&c, opts, resume, stop_after, 0);
    free(opts);
    return s;
}

static void resume_identity(const char *optimizer) {
    char a[256], b[256], ca[300], cb[300];
    snprintf(a, sizeof a, "%s/%s-%s-%s%lld-one", root, optimizer, precision, pos, pos_random);
    snprintf(b, sizeof b, "%s/%s-%s-%s%lld-two", root, optimizer, precision, pos, pos_random);
    CHECK(train(a, optimizer, 22, 0, NULL) == ORDO_OK);
    CHECK(train(b, optimizer, 22, 9, NULL) == ORDO_ERR_INTERRUPTED); // stops after step 9
    CHECK(strstr(ordo_error_message(), "--resume"));
    CHECK(train(b, optimizer, 22, 15, b) == ORDO_ERR_INTERRUPTED); // and again after 15
    CHECK(train(b, optimizer, 22, 0, b) == ORDO_OK);
    snprintf(ca, sizeof ca, "%s/ckpt-22.safetensors", a);
    snprintf(cb, sizeof cb, "%s/ckpt-22.safetensors", b);
    CHECK_MSG(ckpt_equal(ca, cb, 1), "%s: resumed run differs from the uninterrupted one",
              optimizer);
    char *ma = metrics_without_timing(a), *mb = metrics_without_timing(b);
    CHECK(ma && mb && strcmp(ma, mb) == 0);
    CHECK(ma && strstr(ma, "\"val_loss\""));
    free(ma);
    free(mb);
    // --keep 2: only the newest two checkpoints remain
    snprintf(ca, sizeof ca, "%s/ckpt-16.safetensors", a);
    CHECK(access(ca, F_OK) != 0);
    snprintf(ca, sizeof ca, "%s/ckpt-20.safetensors", a);
    CHECK(access(ca, F_OK) == 0);
}

static void conflicts_and_corruption(void) {
    char d[256], p[300];
    snprintf(d, sizeof d, "%s/conflict", root);
    CHECK(train(d, "adamw", 12, 8, NULL) == ORDO_ERR_INTERRUPTED);
    // another position scheme on resume: refused, naming the option
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    ordo_opt *opts = ordo_train_config_options(&c);
    c.pos = "rope";
    ordo_options_find(opts, "pos")->seen = 1;
    CHECK(train_req(&c, opts, d, 0, 0) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "--pos") && strstr(ordo_error_message(), "learned"));
    free(opts);
    // starting a new run over an existing one is refused
    CHECK(train(d, "adamw", 12, 0, NULL) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "--resume"));
    // truncate the newest checkpoint (step 8): resume falls back to step 4 and still finishes
    snprintf(p, sizeof p, "%s/ckpt-8.safetensors", d);
    CHECK(truncate(p, 1000) == 0);
    CHECK(train(d, "adamw", 12, 0, d) == ORDO_OK);
    snprintf(p, sizeof p, "%s/ckpt-12.safetensors", d);
    char ref[256], rp[300];
    snprintf(ref, sizeof ref, "%s/conflict-ref", root);
    CHECK(train(ref, "adamw", 12, 0, NULL) == ORDO_OK);
    snprintf(rp, sizeof rp, "%s/ckpt-12.safetensors", ref);
    CHECK(ckpt_equal(p, rp, 1));
}

// A NaN loss stops the run with ORDO_ERR_NUMERIC: no checkpoint of the bad step, the last
// good one byte-identical, no metrics line past it, and the run still resumes from it.
static void nan_stops(void) {
    char d[256], p[300];
    snprintf(d, sizeof d, "%s/nan", root);
    CHECK(train(d, "sgd", 12, 4, NULL) == ORDO_ERR_INTERRUPTED);
    snprintf(p, sizeof p, "%s/ckpt-4.safetensors", d);
    char *before, *after;
    size_t nb, na;
    CHECK(ordo_read_file(p, 1 << 26, &before, &nb) == ORDO_OK);
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    ordo_opt *opts = ordo_train_config_options(&c);
    ordo_options_find(opts, "steps")->seen = 1;
    c.steps = 12;
    CHECK(train_req(&c, opts, d, 0, 7) == ORDO_ERR_NUMERIC);
    CHECK(strstr(ordo_error_message(), "nan") && strstr(ordo_error_message(), "step 7"));
    free(opts);
    CHECK(ordo_read_file(p, 1 << 26, &after, &na) == ORDO_OK);
    CHECK(nb == na && memcmp(before, after, nb) == 0);
    free(before);
    free(after);
    snprintf(p, sizeof p, "%s/ckpt-8.safetensors", d);
    CHECK(access(p, F_OK) != 0);
    char *m = metrics_without_timing(d);
    CHECK(m && !strstr(m, "nan") && !strstr(m, "\"step\":8"));
    free(m);
    CHECK(train(d, "sgd", 12, 0, d) == ORDO_OK); // the good checkpoint still resumes
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--equal") == 0)
        return ckpt_equal(argv[2], argv[3], 1) ? 0 : 1;
    ORDO_ASSERT(mkdtemp(root));
    resume_identity("adamw");
    resume_identity("sgd");
    conflicts_and_corruption();
    nan_stops();
    // --pos-random: the positions are a function of the run seed and the step (trainer.c)
    // (the relative schemes too: their bias from the drawn positions' differences)
    const char *drawn[] = {"learned", "sinusoidal", "rope", "t5", "fire", "xpos", "dpb"};
    for (int i = 0; i < 7; i++) {
        pos = drawn[i];
        pos_random = 64;
        resume_identity("adamw");
    }
    pos = "learned";
    pos_random = 0;
    if (ordo_dnnl_bf16_available()) { // bf16 products, float32 state: as exact on resume
        precision = "bf16";
        resume_identity("adamw");
    } else {
        printf("bf16 resume skipped: this CPU runs no bf16\n");
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (!test_failures) CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
