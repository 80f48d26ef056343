// Parity with the PyTorch reference (tests/ref/gpt_ref.py, computed in float64): for each
// position scheme, the fixture's weights and batch go through ordo's forward and backward,
// and the logits, the loss and the gradient of every parameter must match. Errors are
// measured relative to each reference tensor's largest magnitude.
#include <math.h>
#include <string.h>

#include <dirent.h>

#include "fixture.h"
#include "framework/autograd.h"
#include "framework/dnnl.h"
#include "framework/ops.h"
#include "framework/optim.h"
#include "models/gpt.h"
#include "run/init.h"
#include "test.h"

#define TOL_LOGITS 1e-5
#define TOL_GRAD   1e-4

// Below this, a reference gradient is zero in exact arithmetic (see run_case).
#define ZERO_GRAD 1e-12

// A parameter of the scheme by its name (models/pos/ declares them).
static ordo_tensor *param(const ordo_gpt *m, const char *name) {
    ordo_tensor *t = ordo_params_find(&m->params, name);
    CHECK_MSG(t != NULL, "no parameter %s", name);
    return t;
}

static double max_abs(const float *x, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

static int meta_int(const ordo_safetensors *f, const char *key) {
    const char *v = ordo_safetensors_meta(f, key);
    return v ? atoi(v) : -1;
}

// The weights of file, a learned model with a shorter table (its T_max), into m with the
// table grown by `how` as `ordo train --init` and `ordo eval --extend-pos` grow it
// (ordo_init_fit): the *_ext16_*_T40 cases.
static ordo_status load_grown(ordo_gpt *m, const char *file, const char *how) {
    int v;
    ordo_safetensors *w;
    ordo_status s = ordo_names_parse(&ordo_extend_pos_names, how, &v);
    if (!s) s = ordo_safetensors_open(fixture_path(file), &w);
    if (s) return s;
    ordo_gpt_config g = m->cfg;
    g.T_max = meta_int(w, "T_max");
    ordo_safetensors_close(w);
    ordo_gpt src;
    if ((s = ordo_gpt_init(&src, &g, 0))) return s;
    s = ordo_gpt_load(&src, fixture_path(file));
    if (!s) ordo_init_fit(m, &src, (ordo_extend_pos)v);
    ordo_gpt_free(&src);
    return s;
}

// How the cases' attention runs: fused (the default), or materialized for a second pass over
// the position options' cases (their biases in the tile and in the [NH, T, T] table both match
// PyTorch).
static ordo_attn_impl case_attention = ORDO_ATTN_FUSED;

static void run_case(const char *file) {
    ordo_safetensors *f;
    if (ordo_safetensors_open(fixture_path(file), &f)) {
        CHECK_MSG(0, "%s", ordo_error_message());
        return;
    }
    ordo_gpt_config cfg = {.V = meta_int(f, "V"),
                           .C = meta_int(f, "C"),
                           .L = meta_int(f, "L"),
                           .NH = meta_int(f, "NH"),
                           .T_max = meta_int(f, "T_max"),
                           .ln_eps = 1e-5f};
    CHECK(ordo_pos_parse(ordo_safetensors_meta(f, "pos"), &cfg.pos) == ORDO_OK);
    // the *_scaled cases multiply the token embeddings (not the tied head) by embed_scale
    const char *scale = ordo_safetensors_meta(f, "embed_scale");
    if (scale) cfg.embed_scale = (float)atof(scale);
    // the *_untied cases have a separate lm_head.weight (ordo train --untied-head)
    const char *untied = ordo_safetensors_meta(f, "untied_head");
    cfg.untied_head = untied && strcmp(untied, "1") == 0;
    // the gpt_rope_<scaling>_* cases: a RoPE scaling, as ordo writes it into the metadata
    const char *rs = ordo_safetensors_meta(f, "rope_scaling");
    if (rs) {
        CHECK(ordo_rope_scaling_parse(rs, &cfg.rope.scaling) == ORDO_OK);
        cfg.rope.factor = atof(ordo_safetensors_meta(f, "rope_factor"));
        cfg.rope.orig_T = meta_int(f, "rope_orig_context");
        if (ordo_safetensors_meta(f, "yarn_alpha"))
            cfg.rope.yarn_alpha = atof(ordo_safetensors_meta(f, "yarn_alpha"));
        if (ordo_safetensors_meta(f, "yarn_beta"))
            cfg.rope.yarn_beta = atof(ordo_safetensors_meta(f, "yarn_beta"));
        if (ordo_safetensors_meta(f, "yarn_temperature"))
            cfg.rope.yarn_no_temperature = meta_int(f, "yarn_temperature") == 0;
    }
    // partial rotary, head subsets, the scale on the absolute positions
    const char *rf = ordo_safetensors_meta(f, "rope_fraction");
    if (rf) cfg.rope_fraction = atof(rf);
    if (ordo_safetensors_meta(f, "rope_heads")) cfg.rope_heads = meta_int(f, "rope_heads");
    if (ordo_safetensors_meta(f, "alibi_heads")) cfg.alibi_heads = meta_int(f, "alibi_heads");
    CHECK(ordo_pos_scale_parse(ordo_safetensors_meta(f, "pos_scale"), &cfg.pos_scale) == ORDO_OK);
    // dynamic position bias: the dpb MLP's shape and input
    if (ordo_safetensors_meta(f, "dpb_dim")) cfg.dpb_dim = meta_int(f, "dpb_dim");
    if (ordo_safetensors_meta(f, "dpb_depth")) cfg.dpb_depth = meta_int(f, "dpb_depth");
    if (ordo_safetensors_meta(f, "dpb_log_distance"))
        cfg.dpb_log_distance = meta_int(f, "dpb_log_distance");
    if (ordo_safetensors_meta(f, "pos_random")) cfg.pos_random = meta_int(f, "pos_random");
    // contextual positions: cope's number of positions
    if (ordo_safetensors_meta(f, "cope_max")) cfg.cope_max = meta_int(f, "cope_max");
    if (ordo_safetensors_meta(f, "t5_max_distance"))
        cfg.t5_max_distance = meta_int(f, "t5_max_distance");
    // fox: the gates' initial bias (init only: the weights below replace it)
    const char *fgb = ordo_safetensors_meta(f, "fox_gate_bias");
    if (fgb) cfg.fox_gate_bias = atof(fgb);
    int B = meta_int(f, "B"), T = meta_int(f, "T");
    size_t n;
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &cfg, 0) == ORDO_OK);
    m.attention = case_attention;
    // the gates' init is the reference's (gpt_ref.py's init_gpt2: every bias b), bit for bit
    if (fgb && !ordo_safetensors_meta(f, "weights")) {
        for (int l = 0; l < cfg.L; l++) {
            char name[64];
            snprintf(name, sizeof name, "h.%d.attn.fgate.bias", l);
            float *want = fixture_read(f, name, &n);
            const ordo_tensor *b = param(&m, name);
            CHECK(n == b->n && memcmp(want, b->data, n * sizeof *want) == 0);
            free(want);
        }
    }
    // weights: in this file, or in the file named by the "weights" metadata (longer-T cases);
    // with "extend_pos", that file's shorter table grown to this T_max
    const char *wfile = ordo_safetensors_meta(f, "weights");
    const char *ext = ordo_safetensors_meta(f, "extend_pos");
    ordo_status s = ext && wfile ? load_grown(&m, wfile, ext)
                                 : ordo_gpt_load(&m, fixture_path(wfile ? wfile : file));
    CHECK_MSG(s == ORDO_OK, "%s: %s", file, ordo_error_message());

    float *idxf = fixture_read(f, "batch.idx", &n), *tgf = fixture_read(f, "batch.targets", NULL);
    int32_t *idx = malloc(n * sizeof *idx), *tg = malloc(n * sizeof *tg);
    for (size_t i = 0; i < n; i++) {
        idx[i] = (int32_t)idxf[i];
        tg[i] = (int32_t)tgf[i];
    }
    // the *_rand cases: each sequence at its own positions (--pos-random's draw), given
    int32_t *pos = NULL;
    if (ordo_safetensors_find(f, "batch.pos")) {
        float *pf = fixture_read(f, "batch.pos", NULL);
        pos = malloc(n * sizeof *pos);
        for (size_t i = 0; i < n; i++) pos[i] = (int32_t)pf[i];
        free(pf);
    }
    ordo_gpt_set_positions(&m, pos);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *logits, *loss;
    s = ordo_gpt_forward(&m, &ctx, idx, tg, B, T, &logits, &loss);
    CHECK_MSG(s == ORDO_OK, "%s: %s", file, ordo_error_message());
    if (s == ORDO_OK) {
        ordo_params_zero_grad(&m.params);
        ordo_backward(&ctx, loss);
        float *want_logits = fixture_read(f, "out.logits", &n);
        float *want_loss = fixture_read(f, "out.loss", NULL);
        double e_logits = scaled_err(logits->data, want_logits, n);
        double e_loss = fabs(loss->data[0] - want_loss[0]) / fabs(want_loss[0]);
        CHECK_MSG(e_logits < TOL_LOGITS, "%s: logits error %.3g", file, e_logits);
        CHECK_MSG(e_loss < TOL_LOGITS, "%s: loss %.9g vs %.9g", file, loss->data[0], want_loss[0]);
        double worst = 0;
        const char *worst_name = "";
        int ngrads = 0;
        for (int i = 0; i < m.params.count; i++) {
            ordo_tensor *t = m.params.t[i];
            char gname[128];
            snprintf(gname, sizeof gname, "grad.%s", t->name);
            if (!ordo_safetensors_find(f, gname)) continue; // extrapolation files: logits only
            float *want = fixture_read(f, gname, &n);
            CHECK(n == t->n);
            double e = scaled_err(t->grad, want, n);
            if (max_abs(want, n) < ZERO_GRAD) {
                // a gradient that is zero in exact arithmetic (FIRE's fc2.bias shifts a whole
                // causal row, which softmax ignores): the reference holds only its rounding
                // noise (1e-17), so relative to it any float32 noise is "huge"; ordo's must be
                // float32 noise too: below TOL_GRAD times the loss's typical gradient (~1e-2)
                e = max_abs(t->grad, n) / 1e-2;
            }
            CHECK_MSG(e < TOL_GRAD, "%s: gradient of %s error %.3g", file, t->name, e);
            if (e > worst) {
                worst = e;
                worst_name = t->name;
            }
            ngrads++;
            free(want);
        }
        printf("  %-32s logits %.2e  loss %.2e  grads(%d) worst %.2e (%s)\n", file, e_logits,
               e_loss, ngrads, worst, worst_name);
        free(want_logits);
        free(want_loss);
    }
    free(idxf);
    free(tgf);
    free(idx);
    free(tg);
    free(pos);
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    ordo_safetensors_close(f);
}

// --pos-random's draw: sorted, distinct, in [0, N), a function of the seed; all of [0, N)
// when T = N; each position about equally often (T/N of the draws).
static void test_random_draw(void) {
    int32_t a[16], b[16], all[8];
    int count[64] = {0};
    for (uint64_t seed = 0; seed < 2000; seed++) {
        ordo_random_positions(a, 16, 64, seed);
        for (int t = 0; t < 16; t++) {
            CHECK(a[t] >= 0 && a[t] < 64 && (t == 0 || a[t] > a[t - 1]));
            count[a[t]]++;
        }
    }
    for (int p = 0; p < 64; p++) // expected 500 each, sd about 19
        CHECK_MSG(count[p] > 400 && count[p] < 600, "position %d drawn %d times", p, count[p]);
    ordo_random_positions(a, 16, 64, 7);
    ordo_random_positions(b, 16, 64, 7);
    CHECK(memcmp(a, b, sizeof a) == 0);
    ordo_random_positions(all, 8, 8, 3);
    for (int t = 0; t < 8; t++) CHECK(all[t] == t);
}

// The largest |a[i] - b[i]| and |a[i]| over n floats.
static void max_diff(const float *a, const float *b, size_t n, float *diff, float *size) {
    *diff = *size = 0.0f;
    for (size_t i = 0; i < n; i++) {
        if (fabsf(a[i] - b[i]) > *diff) *diff = fabsf(a[i] - b[i]);
        if (fabsf(a[i]) > *size) *size = fabsf(a[i]);
    }
}

// In training mode the positions of a row are a function of (step seed, row in the step's
// batch): two micro-batches of 2 rows draw the positions of one batch of 4 and give its
// logits, and they differ from 0..T-1 (eval). The positions are integers and compared
// exactly; the logits within rounding, since a product's rows may round differently inside
// a product of another shape (OpenBLAS's Haswell and Zen kernels do: the rows of a 4-row
// batch are not bit-identical to the same rows as a 2-row batch there).
static void test_random_rows(void) {
    ordo_gpt_config cfg = {.V = 32,
                           .C = 16,
                           .L = 1,
                           .NH = 2,
                           .T_max = 8,
                           .pos = ORDO_POS_ROPE,
                           .pos_random = 40,
                           .ln_eps = 1e-5f};
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &cfg, 5) == ORDO_OK);
    int32_t idx[32];
    for (int i = 0; i < 32; i++) idx[i] = (i * 7) % 32;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.grad_enabled = 0;
    ordo_tensor *whole, *part, *shifted, *eval;
    const int32_t *drawn;
    int32_t pos_whole[32], pos_part[16], pos_shifted[16];
    ordo_gpt_pos_seed(&m, 99);
    ordo_gpt_train_mode(&m, 1, 0, 0);
    CHECK(ordo_gpt_forward_positions(&m, &ctx, 4, 8, &drawn) == ORDO_OK && drawn);
    memcpy(pos_whole, drawn, sizeof pos_whole);
    CHECK(ordo_gpt_forward(&m, &ctx, idx, NULL, 4, 8, &whole, NULL) == ORDO_OK);
    size_t half = whole->n / 2;
    ordo_gpt_train_mode(&m, 1, 0, 2);
    CHECK(ordo_gpt_forward_positions(&m, &ctx, 2, 8, &drawn) == ORDO_OK && drawn);
    memcpy(pos_part, drawn, sizeof pos_part);
    CHECK(memcmp(pos_whole + 16, pos_part, sizeof pos_part) == 0);
    CHECK(ordo_gpt_forward(&m, &ctx, idx + 16, NULL, 2, 8, &part, NULL) == ORDO_OK);
    // the same rows as the batch's first two (row0 0) draw rows 0-1's positions instead
    ordo_gpt_train_mode(&m, 1, 0, 0);
    CHECK(ordo_gpt_forward_positions(&m, &ctx, 2, 8, &drawn) == ORDO_OK && drawn);
    memcpy(pos_shifted, drawn, sizeof pos_shifted);
    CHECK(memcmp(pos_whole, pos_shifted, sizeof pos_shifted) == 0);
    CHECK(memcmp(pos_part, pos_shifted, sizeof pos_shifted) != 0);
    CHECK(ordo_gpt_forward(&m, &ctx, idx + 16, NULL, 2, 8, &shifted, NULL) == ORDO_OK);
    float same, other, size;
    max_diff(whole->data + half, part->data, half, &same, &size);
    max_diff(whole->data + half, shifted->data, half, &other, &size);
    // float rounding of a 1-layer model: a few ulp of the largest logit (2 ulp seen under
    // OpenBLAS's Haswell kernels, 0 under SkylakeX's); other positions move them by ~4e-4
    // of it at this init (0.02-scale weights)
    CHECK_MSG(same <= 1e-6f * size, "micro-batch logits %g from the whole batch's (|max| %g)", same,
              size);
    CHECK_MSG(other > 1e-4f * size, "other positions moved the logits by %g only (|max| %g)", other,
              size);
    ordo_gpt_train_mode(&m, 0, 0, 0);
    CHECK(ordo_gpt_forward(&m, &ctx, idx, NULL, 4, 8, &eval, NULL) == ORDO_OK);
    CHECK(memcmp(whole->data, eval->data, half * sizeof(float)) != 0);
    // the relative schemes take drawn positions; fox (no positions) is refused by name
    cfg.pos = ORDO_POS_ALIBI;
    CHECK(ordo_gpt_config_check(&cfg) == ORDO_OK);
    cfg.pos = ORDO_POS_FOX;
    CHECK(ordo_gpt_config_check(&cfg) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "--pos-random 40") && strstr(ordo_error_message(), "fox"));
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
}

static void test_learned_refuses_long(void) {
    ordo_gpt_config cfg = {
        .V = 10, .C = 8, .L = 1, .NH = 2, .T_max = 4, .pos = ORDO_POS_LEARNED, .ln_eps = 1e-5f};
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &cfg, 1) == ORDO_OK);
    int32_t idx[5] = {1, 2, 3, 4, 5};
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *lg;
    ordo_status s = ordo_gpt_forward(&m, &ctx, idx, NULL, 1, 5, &lg, NULL);
    CHECK(s == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "length 5") && strstr(ordo_error_message(), "4 positions"));
    // relative schemes run past T_max
    for (int p = 0; p < ORDO_POS_COUNT; p++) {
        if (p == ORDO_POS_LEARNED) continue;
        ordo_gpt m2;
        cfg.pos = (ordo_pos)p;
        CHECK(ordo_gpt_init(&m2, &cfg, 1) == ORDO_OK);
        CHECK(ordo_gpt_forward(&m2, &ctx, idx, NULL, 1, 5, &lg, NULL) == ORDO_OK);
        ordo_gpt_free(&m2);
    }
    // fire's materialized path numbers its causal pairs in an int: a length past that is an
    // error, not an abort (the fused path has no such limit)
    cfg.pos = ORDO_POS_FIRE;
    ordo_gpt mf;
    CHECK(ordo_gpt_init(&mf, &cfg, 1) == ORDO_OK);
    mf.attention = ORDO_ATTN_MATERIALIZED;
    int32_t *many = calloc(ORDO_FIRE_MAX_T + 1, sizeof *many);
    CHECK(ordo_gpt_forward(&mf, &ctx, many, NULL, 1, ORDO_FIRE_MAX_T + 1, &lg, NULL) ==
              ORDO_ERR_ARG &&
          strstr(ordo_error_message(),
                 "length 46341 is past what --pos fire runs at (46340) with the materialized"));
    free(many);
    ordo_gpt_free(&mf);
    // an id outside the vocabulary is an error, not a crash
    idx[2] = 10;
    cfg.pos = ORDO_POS_NONE;
    ordo_gpt m3;
    CHECK(ordo_gpt_init(&m3, &cfg, 1) == ORDO_OK);
    CHECK(ordo_gpt_forward(&m3, &ctx, idx, NULL, 1, 5, &lg, NULL) == ORDO_ERR_ARG);
    ordo_gpt_free(&m3);
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
}

static void test_config_errors(void) {
    ordo_gpt_config ok = {
        .V = 10, .C = 12, .L = 1, .NH = 3, .T_max = 4, .pos = ORDO_POS_NONE, .ln_eps = 1e-5f};
    CHECK(ordo_gpt_config_check(&ok) == ORDO_OK);
    ordo_gpt_config c = ok;
    c.NH = 5;
    CHECK(ordo_gpt_config_check(&c) == ORDO_ERR_ARG && strstr(ordo_error_message(), "divide"));
    c = ok;
    c.NH = 6; // head size 2: fine for rope
    c.pos = ORDO_POS_ROPE;
    CHECK(ordo_gpt_config_check(&c) == ORDO_OK);
    c.NH = 4; // head size 3: odd
    CHECK(ordo_gpt_config_check(&c) == ORDO_ERR_ARG && strstr(ordo_error_message(), "even"));
    c = ok;
    c.C = 0;
    CHECK(ordo_gpt_config_check(&c) == ORDO_ERR_ARG);
    c = ok;
    c.V = 1 << 21;
    CHECK(ordo_gpt_config_check(&c) == ORDO_ERR_ARG);
}

static double table_std(const ordo_tensor *t) {
    double s = 0, q = 0;
    for (size_t i = 0; i < t->n; i++) s += t->data[i], q += (double)t->data[i] * t->data[i];
    double m = s / (double)t->n;
    return sqrt(q / (double)t->n - m * m);
}

// The embedding convention's init: the token and learned position tables take embed_std (0 is
// GPT-2's 0.02, and a zero scale reads as 1); the other weights keep GPT-2's init.
static void test_embed_init(void) {
    ordo_gpt_config cfg = {
        .V = 256, .C = 64, .L = 1, .NH = 4, .T_max = 64, .pos = ORDO_POS_LEARNED, .ln_eps = 1e-5f};
    ordo_gpt a, b;
    CHECK(ordo_gpt_init(&a, &cfg, 3) == ORDO_OK);
    CHECK(a.cfg.embed_scale == 1.0f && a.cfg.embed_std == 0.02);
    CHECK_CLOSE(table_std(a.wte.table), 0.02, 0, 0.05);
    CHECK_CLOSE(table_std(ordo_gpt_wpe(&a)), 0.02, 0, 0.05);
    cfg.embed_scale = 8.0f;
    cfg.embed_std = 0.125; // vaswani at C = 64
    CHECK(ordo_gpt_init(&b, &cfg, 3) == ORDO_OK);
    CHECK(b.cfg.embed_scale == 8.0f);
    CHECK_CLOSE(table_std(b.wte.table), 0.125, 0, 0.05);
    CHECK_CLOSE(table_std(ordo_gpt_wpe(&b)), 0.125, 0, 0.05);
    CHECK_CLOSE(table_std(b.h[0].c_attn.w), table_std(a.h[0].c_attn.w), 0, 1e-12);
    ordo_gpt_free(&a);
    ordo_gpt_free(&b);
    cfg.embed_scale = -1.0f;
    CHECK(ordo_gpt_config_check(&cfg) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "--embed-scale is -1"));
    cfg.embed_scale = 1.0f;
    cfg.embed_std = NAN;
    CHECK(ordo_gpt_config_check(&cfg) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "--embed-std is"));
}

// ---- model options: the untied head (fixtures above), gradient accumulation
// against PyTorch's whole-batch gradients, and dropout's modes.

typedef struct fixture_run {
    ordo_gpt m;
    int B, T;
    int32_t *idx, *tg;
    ordo_safetensors *f;
} fixture_run;

static int fixture_open(fixture_run *r, const char *file, const ordo_gpt_config *extra) {
    memset(r, 0, sizeof *r);
    if (ordo_safetensors_open(fixture_path(file), &r->f)) {
        CHECK_MSG(0, "%s", ordo_error_message());
        return 0;
    }
    ordo_gpt_config cfg = *extra;
    cfg.V = meta_int(r->f, "V");
    cfg.C = meta_int(r->f, "C");
    cfg.L = meta_int(r->f, "L");
    cfg.NH = meta_int(r->f, "NH");
    cfg.T_max = meta_int(r->f, "T_max");
    cfg.ln_eps = 1e-5f;
    CHECK(ordo_pos_parse(ordo_safetensors_meta(r->f, "pos"), &cfg.pos) == ORDO_OK);
    const char *untied = ordo_safetensors_meta(r->f, "untied_head");
    cfg.untied_head = untied && strcmp(untied, "1") == 0;
    r->B = meta_int(r->f, "B");
    r->T = meta_int(r->f, "T");
    CHECK(ordo_gpt_init(&r->m, &cfg, 0) == ORDO_OK);
    CHECK(ordo_gpt_load(&r->m, fixture_path(file)) == ORDO_OK);
    size_t n;
    float *a = fixture_read(r->f, "batch.idx", &n), *b = fixture_read(r->f, "batch.targets", NULL);
    r->idx = malloc(n * sizeof *r->idx);
    r->tg = malloc(n * sizeof *r->tg);
    for (size_t i = 0; i < n; i++) r->idx[i] = (int32_t)a[i], r->tg[i] = (int32_t)b[i];
    free(a);
    free(b);
    return 1;
}

static void fixture_close(fixture_run *r) {
    free(r->idx);
    free(r->tg);
    ordo_gpt_free(&r->m);
    ordo_safetensors_close(r->f);
}

// Gradient accumulation as the trainer does it (train/trainer.c): micro-batches of rows,
// each backward seeded with its share of the counted targets, the gradients adding up in the
// parameters' grad block. Against PyTorch's gradient of the whole batch's mean loss (the
// fixture), at the parity tolerance, for unequal shares (1+2 and 2+1 rows) and three.
static void test_grad_accum(void) {
    fixture_run r;
    ordo_gpt_config none = {0};
    if (!fixture_open(&r, "gpt_learned.safetensors", &none)) return;
    int B = r.B, T = r.T, splits[][3] = {{1, 2, 0}, {2, 1, 0}, {1, 1, 1}};
    for (int sp = 0; sp < 3; sp++) {
        ordo_params_zero_grad(&r.m.params);
        int n_all = B * T, r0 = 0;
        double loss = 0;
        for (int k = 0; k < 3 && splits[sp][k]; k++) {
            int rows = splits[sp][k];
            ordo_ctx ctx;
            ordo_ctx_init(&ctx);
            ordo_tensor *lg, *l;
            CHECK(ordo_gpt_forward(&r.m, &ctx, r.idx + r0 * T, r.tg + r0 * T, rows, T, &lg, &l) ==
                  ORDO_OK);
            double w = (double)(rows * T) / n_all;
            float wf = (float)w;
            ordo_backward_from(&ctx, l, &wf);
            loss += w * l->data[0];
            ordo_ctx_free(&ctx);
            r0 += rows;
        }
        float *want_loss = fixture_read(r.f, "out.loss", NULL);
        CHECK_MSG(fabs(loss - want_loss[0]) / fabs(want_loss[0]) < TOL_LOGITS,
                  "accumulated loss %.9g vs %.9g", loss, want_loss[0]);
        free(want_loss);
        double worst = 0;
        for (int i = 0; i < r.m.params.count; i++) {
            ordo_tensor *t = r.m.params.t[i];
            char gname[128];
            size_t n;
            snprintf(gname, sizeof gname, "grad.%s", t->name);
            float *want = fixture_read(r.f, gname, &n);
            double e = scaled_err(t->grad, want, n);
            CHECK_MSG(e < TOL_GRAD, "accumulated gradient of %s: error %.3g", t->name, e);
            worst = fmax(worst, e);
            free(want);
        }
        printf("  grad accum %d+%d%s%s rows: worst grad error %.2e\n", splits[sp][0], splits[sp][1],
               splits[sp][2] ? "+" : "", splits[sp][2] ? "1" : "", worst);
    }
    fixture_close(&r);
}

// Forward and backward of a fixture's batch; copies of the logits and every gradient.
static void run_copy(fixture_run *r, float **logits, float **grads) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_params_zero_grad(&r->m.params);
    ordo_tensor *lg, *l;
    CHECK(ordo_gpt_forward(&r->m, &ctx, r->idx, r->tg, r->B, r->T, &lg, &l) == ORDO_OK);
    ordo_backward(&ctx, l);
    *logits = malloc(lg->n * sizeof(float));
    memcpy(*logits, lg->data, lg->n * sizeof(float));
    *grads = malloc(r->m.params.total * sizeof(float));
    memcpy(*grads, r->m.params.grad, r->m.params.total * sizeof(float));
    ordo_ctx_free(&ctx);
}

// Dropout's modes: rates of 0 in training mode, and any rates in eval mode (the mode after
// init), give bitwise the forward and backward of a model without dropout; in training mode
// the masks change the logits, the same seed gives the same bits, and a share of the batch
// placed at its row offset (a micro-batch, a rank's rows) draws the whole batch's masks.
static void test_dropout_modes(void) {
    fixture_run plain, zero, drop;
    ordo_gpt_config none = {0},
                    rates = {.dropout_embd = 0.1f, .dropout_attn = 0.2f, .dropout_resid = 0.3f};
    if (!fixture_open(&plain, "gpt_learned.safetensors", &none) ||
        !fixture_open(&zero, "gpt_learned.safetensors", &none) ||
        !fixture_open(&drop, "gpt_learned.safetensors", &rates))
        return;
    size_t nl = (size_t)plain.B * plain.T * plain.m.cfg.V, ng = plain.m.params.total;
    float *l0, *g0, *l1, *g1, *l2, *g2, *l3, *g3;
    run_copy(&plain, &l0, &g0);
    ordo_gpt_train_mode(&zero.m, 1, 1234, 0); // rates 0: nothing drops
    run_copy(&zero, &l1, &g1);
    CHECK(memcmp(l0, l1, nl * sizeof(float)) == 0 && memcmp(g0, g1, ng * sizeof(float)) == 0);
    run_copy(&drop, &l2, &g2); // eval mode: nothing drops
    CHECK(memcmp(l0, l2, nl * sizeof(float)) == 0 && memcmp(g0, g2, ng * sizeof(float)) == 0);
    free(l1), free(g1), free(l2), free(g2);

    ordo_gpt_train_mode(&drop.m, 1, 1234, 0);
    run_copy(&drop, &l1, &g1);
    run_copy(&drop, &l2, &g2); // the same seed: the same masks
    CHECK(memcmp(l1, l2, nl * sizeof(float)) == 0 && memcmp(g1, g2, ng * sizeof(float)) == 0);
    double moved = scaled_err(l1, l0, nl);
    CHECK_MSG(moved > 1e-2, "dropout moved the logits by only %.3g", moved);
    ordo_gpt_train_mode(&drop.m, 1, 1235, 0);
    run_copy(&drop, &l3, &g3);
    CHECK_MSG(scaled_err(l3, l1, nl) > 1e-2, "another seed, the same logits");
    // rows 1..B-1 alone, placed at row 1, against the same rows of the whole batch
    int T = drop.T, V = drop.m.cfg.V;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_gpt_train_mode(&drop.m, 1, 1234, 1);
    ordo_tensor *lg;
    CHECK(ordo_gpt_forward(&drop.m, &ctx, drop.idx + T, NULL, drop.B - 1, T, &lg, NULL) == ORDO_OK);
    double e = scaled_err(lg->data, l1 + (size_t)T * V, lg->n);
    CHECK_MSG(e < 1e-6, "a share at its row offset: logits differ by %.3g from the whole batch's",
              e);
    printf("  dropout: logits moved %.2e by the masks; a share at its offset within %.1e\n", moved,
           e);
    ordo_ctx_free(&ctx);
    free(l0), free(g0), free(l1), free(g1), free(l2), free(g2), free(l3), free(g3);
    fixture_close(&plain);
    fixture_close(&zero);
    fixture_close(&drop);

    ordo_gpt_config bad = {
        .V = 10, .C = 8, .L = 1, .NH = 2, .T_max = 4, .ln_eps = 1e-5f, .dropout_attn = 1.0f};
    CHECK(ordo_gpt_config_check(&bad) == ORDO_ERR_ARG &&
          strstr(ordo_error_message(), "--dropout-attn is 1, expected 0 <= p < 1"));
}

// The untied head: its own parameter, N(0, 0.02) and drawn after every other weight (a
// seed's other weights are the tied model's), in the metadata; in bf16 it is the head's
// weight that gets the bf16 copy, and the logits stay near the fixture's.
static void test_untied_head(void) {
    ordo_gpt_config cfg = {
        .V = 256, .C = 64, .L = 1, .NH = 4, .T_max = 16, .pos = ORDO_POS_LEARNED, .ln_eps = 1e-5f};
    ordo_gpt a, b;
    CHECK(ordo_gpt_init(&a, &cfg, 3) == ORDO_OK);
    cfg.untied_head = 1;
    CHECK(ordo_gpt_init(&b, &cfg, 3) == ORDO_OK);
    CHECK(a.lm_head == NULL && b.lm_head && b.lm_head->shape[0] == 256 &&
          b.lm_head->shape[1] == 64);
    CHECK(strcmp(b.lm_head->name, "lm_head.weight") == 0);
    CHECK(ordo_gpt_num_params(&b) == ordo_gpt_num_params(&a) + 256 * 64);
    CHECK(memcmp(a.wte.table->data, b.wte.table->data, a.wte.table->n * sizeof(float)) == 0);
    CHECK(memcmp(a.h[0].mlp_proj.w->data, b.h[0].mlp_proj.w->data,
                 a.h[0].mlp_proj.w->n * sizeof(float)) == 0);
    CHECK_CLOSE(table_std(b.lm_head), 0.02, 0, 0.05);
    ordo_gpt_meta mt;
    ordo_gpt_meta_init(&mt, &b.cfg);
    CHECK(mt.n == 7 && strcmp(mt.keys[6], "untied_head") == 0 && strcmp(mt.vals[6], "1") == 0);
    ordo_gpt_meta_init(&mt, &a.cfg);
    CHECK(mt.n == 6);
    ordo_gpt_free(&a);
    ordo_gpt_free(&b);

    if (ordo_dnnl_bf16_check() != ORDO_OK) {
        printf("  SKIP: untied head in bf16 (%s)\n", ordo_error_message());
        return;
    }
    fixture_run r;
    ordo_gpt_config none = {0};
    if (!fixture_open(&r, "gpt_untied.safetensors", &none)) return;
    CHECK(r.m.lm_head != NULL);
    CHECK(ordo_gpt_set_precision(&r.m, ORDO_PRECISION_BF16) == ORDO_OK);
    CHECK(r.m.lm_head->bf16 != NULL && r.m.wte.table->bf16 == NULL);
    float *lg, *g;
    run_copy(&r, &lg, &g);
    size_t n;
    float *want = fixture_read(r.f, "out.logits", &n);
    double e = scaled_err(lg, want, n);
    // bf16 operands (8 significant bits) in 2 layers' matmuls and the head: measured 1.0e-2 of
    // the logits' largest magnitude (the fixture's weights are 10x GPT-2's); bound twice that
    CHECK_MSG(e < 2e-2, "untied head in bf16: logits error %.3g", e);
    printf("  untied head in bf16: logits error %.2e\n", e);
    free(lg), free(g), free(want);
    fixture_close(&r);
}

static float tmin(const ordo_tensor *t) {
    float m = INFINITY;
    for (size_t i = 0; i < t->n; i++) m = fminf(m, t->data[i]);
    return m;
}
static float tmax(const ordo_tensor *t) {
    float m = -INFINITY;
    for (size_t i = 0; i < t->n; i++) m = fmaxf(m, t->data[i]);
    return m;
}

// the learned relative biases: the FIRE and Kerple parameters' names, init, weight-decay policy
// and clamp, and the other weights left as every scheme draws them for the seed.
static void test_wave2_params(void) {
    ordo_gpt_config cfg = {
        .V = 32, .C = 16, .L = 2, .NH = 4, .T_max = 8, .pos = ORDO_POS_NONE, .ln_eps = 1e-5f};
    ordo_gpt none, fire, ker, pow;
    CHECK(ordo_gpt_init(&none, &cfg, 5) == ORDO_OK);
    cfg.pos = ORDO_POS_FIRE;
    CHECK(ordo_gpt_init(&fire, &cfg, 5) == ORDO_OK);
    cfg.pos = ORDO_POS_KERPLE;
    CHECK(ordo_gpt_init(&ker, &cfg, 5) == ORDO_OK);
    cfg.pos = ORDO_POS_KERPLE_POWER;
    CHECK(ordo_gpt_init(&pow, &cfg, 5) == ORDO_OK);
    // drawn after the GPT-2 weights: those are the same as without the scheme
    CHECK(memcmp(none.h[1].mlp_proj.w->data, fire.h[1].mlp_proj.w->data,
                 none.h[1].mlp_proj.w->n * sizeof(float)) == 0);
    CHECK(memcmp(none.wte.table->data, ker.wte.table->data, none.wte.table->n * sizeof(float)) ==
          0);
    CHECK(fire.params.count == none.params.count + 6 && ker.params.count == none.params.count + 2);
    CHECK(strcmp(param(&fire, "fire.fc1.weight")->name, "fire.fc1.weight") == 0 &&
          param(&fire, "fire.fc1.weight")->shape[0] == 1 &&
          param(&fire, "fire.fc1.weight")->shape[1] == ORDO_FIRE_WIDTH);
    CHECK(strcmp(param(&fire, "fire.fc2.weight")->name, "fire.fc2.weight") == 0 &&
          param(&fire, "fire.fc2.weight")->shape[1] == 4);
    CHECK(strcmp(param(&fire, "fire.c")->name, "fire.c") == 0 &&
          param(&fire, "fire.c")->data[0] == 0.1f);
    CHECK(strcmp(param(&fire, "fire.L_multiplier")->name, "fire.L_multiplier") == 0 &&
          param(&fire, "fire.L_multiplier")->data[0] == 1);
    // torch.nn.Linear's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and not all equal
    CHECK(tmin(param(&fire, "fire.fc1.weight")) >= -1 &&
          tmax(param(&fire, "fire.fc1.weight")) <= 1 &&
          tmax(param(&fire, "fire.fc1.weight")) > 0.5f);
    CHECK(tmax(param(&fire, "fire.fc2.bias")) <= 1 / sqrtf(32) &&
          tmin(param(&fire, "fire.fc2.weight")) >= -1 / sqrtf(32));
    CHECK(strcmp(param(&ker, "kerple.r1")->name, "kerple.r1") == 0 &&
          param(&ker, "kerple.r1")->n == 4);
    CHECK(tmin(param(&ker, "kerple.r1")) >= 0.01f && tmax(param(&ker, "kerple.r1")) <= 2 &&
          tmax(param(&ker, "kerple.r2")) <= 1);
    CHECK(tmin(param(&pow, "kerple.r2")) >= 0.01f && tmax(param(&pow, "kerple.r2")) <= 2 &&
          tmax(param(&pow, "kerple.r1")) <= 1);
    // weight decay: FIRE's two matrices as position tables (on unless --no-decay-pos), the
    // 1-D parameters never
    ordo_optim_config oc;
    ordo_optim_defaults(&oc);
    ordo_optim o;
    CHECK(ordo_optim_init(&o, &fire.params, &oc) == ORDO_OK);
    CHECK(ordo_optim_decays(&o, param(&fire, "fire.fc1.weight")) &&
          ordo_optim_decays(&o, param(&fire, "fire.fc2.weight")));
    CHECK(!ordo_optim_decays(&o, param(&fire, "fire.fc1.bias")) &&
          !ordo_optim_decays(&o, param(&fire, "fire.c")) &&
          !ordo_optim_decays(&o, param(&fire, "fire.L_multiplier")));
    o.cfg.decay_pos = 0;
    CHECK(!ordo_optim_decays(&o, param(&fire, "fire.fc1.weight")) &&
          ordo_optim_decays(&o, fire.h[0].c_fc.w));
    ordo_optim_free(&o);
    CHECK(ordo_optim_init(&o, &ker.params, &oc) == ORDO_OK);
    CHECK(!ordo_optim_decays(&o, param(&ker, "kerple.r1")) &&
          !ordo_optim_decays(&o, param(&ker, "kerple.r2")));
    ordo_optim_free(&o);
    // the clamp: in place, before the forward; the power exponent also from above
    param(&ker, "kerple.r1")->data[0] = -1.0f;
    param(&ker, "kerple.r2")->data[1] = 0.001f;
    param(&pow, "kerple.r2")->data[2] = 7.0f;
    int32_t idx[6] = {1, 2, 3, 4, 5, 6};
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *lg;
    CHECK(ordo_gpt_forward(&ker, &ctx, idx, NULL, 1, 6, &lg, NULL) == ORDO_OK);
    CHECK(param(&ker, "kerple.r1")->data[0] == ORDO_KERPLE_EPS &&
          param(&ker, "kerple.r2")->data[1] == ORDO_KERPLE_EPS);
    CHECK(ordo_gpt_forward(&pow, &ctx, idx, NULL, 1, 6, &lg, NULL) == ORDO_OK);
    CHECK(param(&pow, "kerple.r2")->data[2] == ORDO_KERPLE_POWER_MAX);
    // the bias viz reads is the one the forward uses: kerple's -r1 log(1 + r2 d) at d = 3
    ordo_tensor *b = ordo_gpt_position_bias(&ker, &ctx, 6); // (NH, 6, 6)
    double want =
        -param(&ker, "kerple.r1")->data[3] * log1p(3.0 * param(&ker, "kerple.r2")->data[3]);
    CHECK_CLOSE(b->data[(3 * 6 + 5) * 6 + 2], want, 1e-6, 1e-6);
    CHECK(b->data[(3 * 6 + 2) * 6 + 5] == 0.0f); // above the diagonal
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&none);
    ordo_gpt_free(&fire);
    ordo_gpt_free(&ker);
    ordo_gpt_free(&pow);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// The names of the fixtures gpt_*.safetensors, sorted, into *out (malloc'd); their count.
static int model_fixtures(char ***out) {
    char dirpath[4096];
    snprintf(dirpath, sizeof dirpath, "%s", fixture_path(""));
    DIR *d = opendir(dirpath);
    int n = 0, cap = 128;
    char **names = malloc((size_t)cap * sizeof *names);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "gpt_", 4) != 0 || len < 12 ||
            strcmp(e->d_name + len - 12, ".safetensors") != 0)
            continue;
        if (n == cap) names = realloc(names, (size_t)(cap *= 2) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    *out = names;
    return n;
}

int main(void) {
    // every model fixture the PyTorch scripts wrote (tests/ref/make_fixtures*.py), so that a
    // new scheme's fixture is checked without a line here; the count guards against an empty
    // or unreadable folder (67 when this was written)
    char **cases;
    int n_cases = model_fixtures(&cases);
    CHECK_MSG(n_cases >= 67, "only %d gpt_*.safetensors fixtures found", n_cases);
    for (int i = 0; i < n_cases; i++) run_case(cases[i]);
    printf("  with --attention materialized:\n");
    case_attention = ORDO_ATTN_MATERIALIZED;
    for (int i = 0; i < n_cases; i++) run_case(cases[i]);
    case_attention = ORDO_ATTN_FUSED;
    for (int i = 0; i < n_cases; i++) free(cases[i]);
    free(cases);
    test_learned_refuses_long();
    test_random_draw();
    test_random_rows();
    test_config_errors();
    test_embed_init();
    // model options
    test_grad_accum();
    test_dropout_modes();
    test_untied_head();
    test_wave2_params();
    TEST_MAIN_END();
}
