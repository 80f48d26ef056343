// The fused attention against the materialized one through the whole model, for every
// position scheme: the loss and every parameter's gradient of one forward and backward agree
// to 1e-6 relative (per tensor: |fused - materialized| <= 1e-6 |materialized| in the 2-norm,
// and no element further than 4e-6 of the tensor's largest; the bias parameters' to
// BIAS_RTOL, see there), at T = 1, the kernel's tile (64), a length that is no multiple of it
// (100) and four tiles (256). Also with attention dropout in training mode (the same keep
// bits on both paths), fire with L inside the sequence (rows on both sides of max(i, L)), the
// fused path's results bit for bit at 1 and 3 threads (cope with its embeddings made non-zero,
// and with P 6, most pairs clamped), and the materialized path's T x T
// alibi table and t5 bucket map made only when it runs.
#include <math.h>
#include <string.h>

#include "framework/rng.h"
#include "framework/threads.h"
#include "models/gpt.h"
#include "models/pos/scheme.h"
#include "test.h"

#define RTOL 1e-6
// The bias parameters' gradients (t5 table, kerple r1 r2, fire's MLP, c and L, dpb's MLP) are sums
// over the T(T+1)/2 pairs of dS, whose rows sum to zero (fox's gate: up to 4.8e-6, T 256): the
// sums cancel, and the materialized reference sums FIRE's in float GEMMs over all pairs. Against
// double sums (test_bias_tiles) the tiles measure within 6e-7, the materialized ops up to 3.5e-6;
// here the two differed by up to 9e-6 of the largest element (fire.fc2.weight, T 256),
// kerple-power's r2 by 1.4e-6.
#define BIAS_RTOL 2e-5
// dpb on the raw distance: its MLP (SiLU, near linear for large inputs) makes a bias that
// grows with the distance, so the scores it is added to round on a coarser grid, and the
// paths add it at different points (in the tile, to the materialized scores). The other
// parameters' gradients then differed by up to 1.12e-6 (T 256; within 1e-6 with
// --dpb-log-distance).
#define DPB_RTOL 2e-6
// cope: a count p_ij sums up to T gates sigmoid(s_il), each from a score that the two paths
// round differently (tile products against GEMMs), and backward rebuilds it as the row's total
// less a prefix, not bit for bit; the interpolation weight w = p - floor(p) carries that error
// into every gradient upstream of the scores. The other parameters' gradients differed by up
// to 1.0e-6 at T 256 in the optimised build and 2.0e-6 under the sanitizers (another compiler
// schedule of the same sums).
#define COPE_RTOL 3e-6

// A parameter of the scheme by its name, or NULL (another scheme's).
static ordo_tensor *param(const ordo_gpt *m, const char *name) {
    return ordo_params_find(&m->params, name);
}

static const int Ts[] = {1, 64, 100, 256};

typedef struct pass {
    float loss;
    float *grad; // a copy of the parameters' gradient block
} pass;

static pass run(ordo_gpt *m, ordo_attn_impl a, const int32_t *idx, const int32_t *tg, int B,
                int T) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    m->attention = a;
    ordo_params_zero_grad(&m->params);
    ordo_tensor *loss;
    CHECK(ordo_gpt_forward(m, &ctx, idx, tg, B, T, NULL, &loss) == ORDO_OK);
    ordo_backward(&ctx, loss);
    pass p = {loss->data[0], malloc(m->params.total * sizeof(float))};
    memcpy(p.grad, m->params.grad, m->params.total * sizeof(float));
    ordo_ctx_free(&ctx);
    return p;
}

// One model, one batch, both paths; the worst relative difference goes to *worst.
static void compare(ordo_gpt *m, int B, int T, const char *what, double *worst) {
    ordo_rng r;
    ordo_rng_seed(&r, (uint64_t)T * 7 + 3);
    int32_t *idx = malloc((size_t)B * T * sizeof *idx), *tg = malloc((size_t)B * T * sizeof *tg);
    for (int i = 0; i < B * T; i++) {
        idx[i] = (int32_t)ordo_rng_below(&r, (uint64_t)m->cfg.V);
        tg[i] = (int32_t)ordo_rng_below(&r, (uint64_t)m->cfg.V);
    }
    pass mat = run(m, ORDO_ATTN_MATERIALIZED, idx, tg, B, T);
    pass fus = run(m, ORDO_ATTN_FUSED, idx, tg, B, T);
    CHECK_MSG(fabs(fus.loss - mat.loss) <= RTOL * fabs(mat.loss),
              "%s T %d: loss %.9g fused, %.9g materialized", what, T, fus.loss, mat.loss);
    double w2_scale = 0; // fire.fc2.weight's gradient norm (declared before fc2.bias)
    for (int k = 0; k < m->params.count; k++) {
        const ordo_tensor *t = m->params.t[k];
        size_t at = (size_t)(t->grad - m->params.grad);
        double e2 = 0, r2 = 0, emax = 0, rmax = 0;
        for (size_t i = 0; i < t->n; i++) {
            double e = (double)fus.grad[at + i] - mat.grad[at + i], g = mat.grad[at + i];
            e2 += e * e;
            r2 += g * g;
            if (!(fabs(e) <= emax)) emax = fabs(e); // NaN sticks
            rmax = fmax(rmax, fabs(g));
        }
        double err = sqrt(e2), ref = sqrt(r2);
        // fc2.bias's gradient is the sum of dS, zero but for rounding (softmax's dS rows sum
        // to zero): measured at fc2.weight's scale (the same dS times hidden values near 1)
        // (dpb's last bias likewise, at its last weight's scale)
        int dpb = m->cfg.pos == ORDO_POS_DPB, D = m->cfg.dpb_depth;
        char last_w[32], last_b[32];
        snprintf(last_w, sizeof last_w, "dpb.mlp.%d.weight", D);
        snprintf(last_b, sizeof last_b, "dpb.mlp.%d.bias", D);
        if (t == param(m, "fire.fc2.bias") || (dpb && t == param(m, last_b)))
            ref = fmax(ref, w2_scale), rmax = fmax(rmax, w2_scale);
        if (t == param(m, "fire.fc2.weight") || (dpb && t == param(m, last_w))) w2_scale = ref;
        double rel = ref > 0 ? err / ref : err, relmax = rmax > 0 ? emax / rmax : emax;
        // fox's gate gets its gradient through c, whose dS sums cancel as the bias's do; cope's
        // embeddings too: a clamped row's last position gathers the dS of all its far keys
        // (P 6, T 256: 1.1e-6)
        int bias =
            t->name && (strncmp(t->name, "fire.", 5) == 0 || strncmp(t->name, "dpb.", 4) == 0 ||
                        strncmp(t->name, "kerple.", 7) == 0 || t == param(m, "rel_bias.weight") ||
                        strstr(t->name, ".attn.fgate.") || strstr(t->name, ".attn.cope."));
        double tol = bias                              ? BIAS_RTOL
                     : dpb && !m->cfg.dpb_log_distance ? DPB_RTOL
                     : m->cfg.pos == ORDO_POS_COPE     ? COPE_RTOL
                                                       : RTOL;
        if (!(rel <= *worst)) *worst = rel;
        CHECK_MSG(rel <= tol, "%s T %d: %s's gradient differs by %.3g relative (norm %.3g)", what,
                  T, t->name, rel, ref);
        CHECK_MSG(relmax <= 4 * tol, "%s T %d: %s's gradient differs by %.3g of its largest (%.3g)",
                  what, T, t->name, relmax, rmax);
    }
    free(mat.grad);
    free(fus.grad);
    free(idx);
    free(tg);
}

// Cope's embeddings start at zero (the reference's init), where the bias and the gates'
// gradient vanish: a pattern that makes both bite.
static void cope_bite(ordo_gpt *m) {
    char name[64];
    for (int l = 0; l < m->cfg.L; l++) {
        snprintf(name, sizeof name, "h.%d.attn.cope.pos_emb", l);
        ordo_tensor *e = param(m, name);
        for (size_t i = 0; e && i < e->n; i++) e->data[i] = (float)(0.3 * sin(1.7 * i + l));
    }
}

static ordo_gpt_config small(ordo_pos pos) {
    ordo_gpt_config c = {
        .V = 37, .C = 32, .L = 2, .NH = 4, .T_max = 256, .pos = pos, .ln_eps = 1e-5f};
    return c;
}

int main(void) {
    for (int p = 0; p < ORDO_POS_COUNT; p++) {
        ordo_gpt_config c = small((ordo_pos)p);
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &c, 5) == ORDO_OK);
        // the T5 table starts at zero and FIRE's L past every length here: make both bite
        ordo_tensor *rel = param(&m, "rel_bias.weight"), *lmul = param(&m, "fire.L_multiplier");
        for (size_t i = 0; rel && i < rel->n; i++) rel->data[i] = (float)(0.5 * sin(3.0 * i));
        cope_bite(&m); // cope's embeddings too
        double worst = 0;
        for (int x = 0; x < 4; x++) compare(&m, 2, Ts[x], ordo_pos_name(c.pos), &worst);
        if (lmul) { // L = 51.2: rows on both sides of max(i, L)
            lmul->data[0] = 0.1f;
            for (int x = 0; x < 4; x++) compare(&m, 2, Ts[x], "fire (L 51.2)", &worst);
        }
        if (c.pos == ORDO_POS_COPE) { // P 6: most pairs clamped, at every length past 5
            ordo_gpt_config c2 = c;
            c2.cope_max = 6;
            ordo_gpt m2;
            CHECK(ordo_gpt_init(&m2, &c2, 5) == ORDO_OK);
            cope_bite(&m2);
            for (int x = 0; x < 4; x++) compare(&m2, 2, Ts[x], "cope (P 6)", &worst);
            ordo_gpt_free(&m2);
        }
        if (c.pos == ORDO_POS_DPB) { // the other options: log distance, depth 1 and 3
            for (int k = 0; k < 2; k++) {
                ordo_gpt_config c2 = c;
                c2.dpb_log_distance = 1;
                c2.dpb_depth = k ? 3 : 1;
                c2.dpb_dim = k ? 8 : 32;
                ordo_gpt m2;
                CHECK(ordo_gpt_init(&m2, &c2, 5) == ORDO_OK);
                for (int x = 0; x < 4; x++) compare(&m2, 2, Ts[x], "dpb (log, depth 1/3)", &worst);
                ordo_gpt_free(&m2);
            }
        }
        printf("%-13s worst relative difference %.3g\n", ordo_pos_name(c.pos), worst);
        ordo_gpt_free(&m);
    }
    // attention dropout in training mode: the same keep bits on both paths
    const ordo_pos dropped[] = {ORDO_POS_ALIBI, ORDO_POS_FIRE, ORDO_POS_ROPE, ORDO_POS_FOX,
                                ORDO_POS_COPE};
    for (int k = 0; k < 5; k++) {
        ordo_gpt_config c = small(dropped[k]);
        c.dropout_attn = 0.2f;
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &c, 6) == ORDO_OK);
        cope_bite(&m);
        ordo_gpt_train_mode(&m, 1, 99, 3); // row 3 of a larger batch: a non-zero offset
        double worst = 0;
        compare(&m, 2, 100, "dropout", &worst);
        printf("%-13s with dropout: worst relative difference %.3g\n", ordo_pos_name(c.pos), worst);
        ordo_gpt_free(&m);
    }
    // thread-independent: the fused path's loss and gradients bit for bit at 1 and 3 threads
    // (the bias gradients are summed per (b, h) and then in a fixed order)
    const ordo_pos biased[] = {ORDO_POS_ALIBI,        ORDO_POS_T5,  ORDO_POS_FIRE, ORDO_POS_KERPLE,
                               ORDO_POS_KERPLE_POWER, ORDO_POS_FOX, ORDO_POS_DPB,  ORDO_POS_COPE};
    for (int k = 0; k < 8; k++) {
        ordo_gpt_config c = small(biased[k]);
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &c, 7) == ORDO_OK);
        cope_bite(&m);
        if (param(&m, "fire.L_multiplier")) param(&m, "fire.L_multiplier")->data[0] = 0.1f;
        int B = 3, T = 100;
        int32_t *idx = malloc((size_t)B * T * sizeof *idx),
                *tg = malloc((size_t)B * T * sizeof *tg);
        for (int i = 0; i < B * T; i++) idx[i] = (i * 7 + 1) % c.V, tg[i] = (i * 5 + 2) % c.V;
        int before = ordo_get_threads();
        ordo_set_threads(1);
        pass one = run(&m, ORDO_ATTN_FUSED, idx, tg, B, T);
        ordo_set_threads(3);
        pass three = run(&m, ORDO_ATTN_FUSED, idx, tg, B, T);
        ordo_set_threads(before);
        CHECK_MSG(one.loss == three.loss &&
                      memcmp(one.grad, three.grad, m.params.total * sizeof(float)) == 0,
                  "%s: 1 and 3 threads differ", ordo_pos_name(c.pos));
        free(one.grad);
        free(three.grad);
        free(idx);
        free(tg);
        ordo_gpt_free(&m);
    }
    // the fused path makes no T x T table; the materialized one makes them for its length
    for (int k = 0; k < 2; k++) {
        ordo_gpt_config c = small(k ? ORDO_POS_T5 : ORDO_POS_ALIBI);
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &c, 1) == ORDO_OK);
        ordo_ctx ctx;
        ordo_ctx_init(&ctx);
        int32_t idx[64] = {0};
        ordo_tensor *lg;
        CHECK(ordo_gpt_forward(&m, &ctx, idx, NULL, 1, 64, &lg, NULL) == ORDO_OK);
        CHECK(ordo_pos_cached_bytes(m.pos) == 0);
        m.attention = ORDO_ATTN_MATERIALIZED;
        CHECK(ordo_gpt_forward(&m, &ctx, idx, NULL, 1, 64, &lg, NULL) == ORDO_OK);
        CHECK(ordo_pos_cached_bytes(m.pos) == (k ? 4u : 4u * c.NH) * 64 * 64);
        ordo_ctx_free(&ctx);
        ordo_gpt_free(&m);
    }
    TEST_MAIN_END();
}
