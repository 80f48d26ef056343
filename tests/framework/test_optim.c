// Optimizers against PyTorch (tests/ref/fixtures/optim.safetensors: torch.optim.AdamW and
// SGD, three steps with fresh gradients each; clip_grad_norm_), and the schedules against
// their formulas.
#include <string.h>

#include "fixture.h"
#include "framework/optim.h"
#include "test.h"

static ordo_safetensors *F;

static void load(float *dst, const char *fmt, const char *pname, int step) {
    char name[96];
    snprintf(name, sizeof name, fmt, pname, step);
    size_t n;
    float *d = fixture_read(F, name, &n);
    ORDO_ASSERT(d);
    memcpy(dst, d, n * sizeof(float));
    free(d);
}

static void cmp(const float *got, const char *fmt, const char *pname, int step, double tol) {
    char name[96];
    snprintf(name, sizeof name, fmt, pname, step);
    size_t n;
    float *want = fixture_read(F, name, &n);
    double e = want ? scaled_err(got, want, n) : 1;
    CHECK_MSG(e < tol, "%s: error %.3g", name, e);
    free(want);
}

static void run_optimizer(ordo_optim_kind kind) {
    const char *pre = kind == ORDO_OPTIM_ADAMW ? "adamw" : "sgd";
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *w = ordo_params_add(&p, "w", 2, (int[]){4, 5}, 0);
    ordo_tensor *b = ordo_params_add(&p, "b", 1, (int[]){5}, ORDO_NO_DECAY);
    ordo_params_alloc(&p);
    ordo_tensor *ts[2] = {w, b};
    const char *names[2] = {"w", "b"};
    char fmt[64];
    for (int k = 0; k < 2; k++) {
        snprintf(fmt, sizeof fmt, "%s.%%s.param.%%d", pre);
        load(ts[k]->data, fmt, names[k], 0);
    }
    ordo_optim_config cfg;
    ordo_optim_defaults(&cfg);
    cfg.kind = kind;
    float lr = 1e-3f;
    if (kind == ORDO_OPTIM_SGD) {
        cfg.weight_decay = 0;
        cfg.momentum = 0.9;
        lr = 0.05f;
    }
    ordo_optim o;
    CHECK(ordo_optim_init(&o, &p, &cfg) == ORDO_OK);
    for (int step = 1; step <= 3; step++) {
        for (int k = 0; k < 2; k++) {
            snprintf(fmt, sizeof fmt, "%s.%%s.grad.%%d", pre);
            load(ts[k]->grad, fmt, names[k], step);
        }
        ordo_optim_step(&o, lr);
        for (int k = 0; k < 2; k++) {
            size_t off = (size_t)(ts[k]->data - p.data);
            snprintf(fmt, sizeof fmt, "%s.%%s.param.%%d", pre);
            cmp(ts[k]->data, fmt, names[k], step, 1e-6);
            if (kind == ORDO_OPTIM_ADAMW) {
                snprintf(fmt, sizeof fmt, "%s.%%s.exp_avg.%%d", pre);
                cmp(o.m + off, fmt, names[k], step, 1e-6);
                snprintf(fmt, sizeof fmt, "%s.%%s.exp_avg_sq.%%d", pre);
                cmp(o.v + off, fmt, names[k], step, 1e-6);
            } else {
                snprintf(fmt, sizeof fmt, "%s.%%s.momentum_buffer.%%d", pre);
                cmp(o.m + off, fmt, names[k], step, 1e-6);
            }
        }
    }
    CHECK(ordo_optim_decays(&o, w) == (kind == ORDO_OPTIM_ADAMW));
    CHECK(!ordo_optim_decays(&o, b));
    ordo_optim_free(&o);
    ordo_params_free(&p);
}

static void run_clip(const char *which) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *w = ordo_params_add(&p, "w", 2, (int[]){4, 5}, 0);
    ordo_tensor *b = ordo_params_add(&p, "b", 1, (int[]){5}, 0);
    ordo_params_alloc(&p);
    char fmt[64];
    snprintf(fmt, sizeof fmt, "clip.%s.%%s.grad%%.0d", which);
    load(w->grad, fmt, "w", 0);
    load(b->grad, fmt, "b", 0);
    double norm = ordo_clip_grad_norm(&p, 1.0);
    char name[64];
    snprintf(name, sizeof name, "clip.%s.total_norm", which);
    float *want = fixture_read(F, name, NULL);
    CHECK_CLOSE(norm, want[0], 0, 1e-6);
    free(want);
    snprintf(fmt, sizeof fmt, "clip.%s.%%s.clipped%%.0d", which);
    cmp(w->grad, fmt, "w", 0, 1e-6);
    cmp(b->grad, fmt, "b", 0, 1e-6);
    ordo_params_free(&p);
}

static void test_schedules(void) {
    double lr = 1e-3, mn = 1e-4;
    // warmup: linear from lr/W to lr
    CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_COSINE, 0, 100, 10, lr, mn), lr / 10, 1e-15, 0);
    CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_COSINE, 9, 100, 10, lr, mn), lr, 1e-15, 0);
    // cosine: lr right after warmup, min_lr at the last step, halfway in the middle
    CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_COSINE, 10, 101, 10, lr, mn), lr, 1e-15, 0);
    CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_COSINE, 100, 101, 10, lr, mn), mn, 1e-15, 0);
    CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_COSINE, 55, 101, 10, lr, mn), (lr + mn) / 2, 1e-15, 0);
    for (int s = 10; s < 101; s++) {
        double f = (s - 10) / 90.0;
        CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_COSINE, s, 101, 10, lr, mn),
                    mn + 0.5 * (lr - mn) * (1 + cos(M_PI * f)), 1e-15, 0);
        CHECK_CLOSE(ordo_lr_at(ORDO_SCHED_LINEAR, s, 101, 10, lr, mn), lr + (mn - lr) * f, 1e-15,
                    0);
        CHECK(ordo_lr_at(ORDO_SCHED_CONSTANT, s, 101, 10, lr, mn) == lr);
    }
    CHECK(ordo_lr_at(ORDO_SCHED_CONSTANT, 0, 10, 0, lr, mn) == lr);
    ordo_schedule sch;
    CHECK(ordo_schedule_parse("cosine", &sch) == ORDO_OK && sch == ORDO_SCHED_COSINE);
    CHECK(ordo_schedule_parse("step", &sch) == ORDO_ERR_ARG);
    ordo_optim_kind k;
    CHECK(ordo_optim_parse_kind("adam", &k) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "adamw or sgd"));
}

static void test_bad_config(void) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_params_add(&p, "w", 1, (int[]){3}, 0);
    ordo_params_alloc(&p);
    ordo_optim_config c;
    ordo_optim o;
    ordo_optim_defaults(&c);
    c.beta2 = 1.0;
    CHECK(ordo_optim_init(&o, &p, &c) == ORDO_ERR_ARG && strstr(ordo_error_message(), "beta2"));
    ordo_optim_defaults(&c);
    c.eps = 0;
    CHECK(ordo_optim_init(&o, &p, &c) == ORDO_ERR_ARG);
    ordo_params_free(&p);
}

static void test_no_decay_pos(void) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *wpe = ordo_params_add(&p, "wpe.weight", 2, (int[]){4, 3}, ORDO_POSITION);
    ordo_params_alloc(&p);
    ordo_optim_config c;
    ordo_optim o;
    ordo_optim_defaults(&c);
    CHECK(ordo_optim_init(&o, &p, &c) == ORDO_OK);
    CHECK(ordo_optim_decays(&o, wpe));
    ordo_optim_free(&o);
    c.decay_pos = 0;
    CHECK(ordo_optim_init(&o, &p, &c) == ORDO_OK);
    CHECK(!ordo_optim_decays(&o, wpe));
    ordo_optim_free(&o);
    ordo_params_free(&p);
}

int main(void) {
    if (ordo_safetensors_open(fixture_path("optim.safetensors"), &F)) {
        CHECK_MSG(0, "%s", ordo_error_message());
        TEST_MAIN_END();
    }
    run_optimizer(ORDO_OPTIM_ADAMW);
    run_optimizer(ORDO_OPTIM_SGD);
    run_clip("big");
    run_clip("small");
    ordo_safetensors_close(F);
    test_schedules();
    test_bad_config();
    test_no_decay_pos();
    TEST_MAIN_END();
}
