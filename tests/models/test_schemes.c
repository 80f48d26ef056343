// Every row of the position-scheme table (models/pos/table.c) over a matrix of shapes, in the
// manner of ggml's test-backend-ops: no list of schemes here, so a new row is covered without
// an edit, and what applies to a row comes from its flags. The shapes: T = 1, the kernel's tile
// (64), a length that is no multiple of it (100) and four tiles (256); attention dropout off and
// on (training mode, the same keep bits on both paths); positions 0..T-1 and, for a row that
// takes positions (ORDO_POS_F_POSITIONS), a sorted draw per batch row from a range past T
// (within T_max for a row bound to its length, ORDO_POS_F_LENGTH). The modes:
//   parity    the fused attention against the materialized one through the whole model: the
//             loss and every parameter's gradient of one forward and backward (tolerances at
//             their definitions below); every cell;
//   gradcheck the fused path's gradient of sum(logits * R) against central differences, for a
//             few elements of each of the scheme's parameters and of the first layer's qkv
//             weight (which every scheme's backward reaches); at T 1 and 64 (gc_runs_at);
//   threads   the fused path's loss and gradients bit for bit at 1 and 3 threads; at T 100
//             (threads_run_at).
// Each row runs as initialised and with what its init leaves inert made to bite (the t5 table
// and cope's embeddings start at zero), and some with their options: fire with L inside the
// sequence, cope with P 6 (most pairs clamped), dpb on the log distance at depths 1 and 3.
// Besides the matrix: a row without ORDO_POS_F_POSITIONS refuses given positions; a row with
// ORDO_POS_F_LENGTH refuses T past T_max, the others run there.
#include <math.h>
#include <string.h>

#include "framework/rng.h"
#include "framework/threads.h"
#include "models/gpt.h"
#include "models/pos/scheme.h"
#include "models/positional.h"
#include "sys/clock.h"
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
// --dpb-log-distance), and at drawn positions, distances up to 3T + 5 and so biases three
// times as large, by up to 3.2e-6.
#define DPB_RTOL 5e-6
// cope: a count p_ij sums up to T gates sigmoid(s_il), each from a score that the two paths
// round differently (tile products against GEMMs), and backward rebuilds it as the row's total
// less a prefix, not bit for bit; the interpolation weight w = p - floor(p) carries that error
// into every gradient upstream of the scores. The other parameters' gradients differed by up
// to 1.0e-6 at T 256 in the optimised build and 2.0e-6 under the sanitizers (another compiler
// schedule of the same sums).
#define COPE_RTOL 3e-6

// The batch of every shape.
#define B 2
static const int Ts[] = {1, 64, 100, 256};
#define NT    (int)(sizeof Ts / sizeof Ts[0])
#define T_MAX 256

// One cell of the matrix.
typedef struct shape {
    int T;
    int dropout; // training mode, attention dropout 0.2
    int drawn;   // positions drawn per batch row from [0, n), n past T
} shape;

// A model of one row, as initialised or with an option set; what = the row's name and the option.
typedef struct variant {
    char what[48];
    ordo_gpt_config cfg;
    float fire_lmul; // fire.L_multiplier after init (0: as initialised)
} variant;

static ordo_tensor *param(const ordo_gpt *m, const char *name) {
    return ordo_params_find(&m->params, name);
}

// What the init leaves inert made to bite: the t5 table and cope's embeddings start at zero,
// where the bias (and cope's gates' gradient) vanish; FIRE's L as the variant asks.
static void make_bite(ordo_gpt *m, const variant *v) {
    for (int k = 0; k < m->params.count; k++) {
        ordo_tensor *t = m->params.t[k];
        if (strcmp(t->name, "rel_bias.weight") == 0)
            for (size_t i = 0; i < t->n; i++) t->data[i] = (float)(0.5 * sin(3.0 * i));
        if (strstr(t->name, ".attn.cope.pos_emb")) { // h.{l}.attn.cope.pos_emb
            int l = atoi(t->name + 2);
            for (size_t i = 0; i < t->n; i++) t->data[i] = (float)(0.3 * sin(1.7 * i + l));
        }
    }
    ordo_tensor *lmul = param(m, "fire.L_multiplier");
    if (lmul && v->fire_lmul != 0) lmul->data[0] = v->fire_lmul;
}

// The row's variants: as initialised, and its options that change which code runs. A row's
// options are its own; a new row runs as initialised until it adds any here.
static int variants(const ordo_pos_scheme *row, variant *out) {
    ordo_gpt_config c = {.V = 37,
                         .C = 32,
                         .L = 2,
                         .NH = 4,
                         .T_max = T_MAX,
                         .pos = row->pos,
                         .ln_eps = 1e-5f,
                         .dropout_attn = 0.2f}; // read in training mode only
    const char *name = ordo_pos_name(row->pos);
    int n = 0;
    out[n] = (variant){.cfg = c};
    snprintf(out[n++].what, sizeof out->what, "%s", name);
    if (row->pos == ORDO_POS_FIRE) { // L = 51.2: rows on both sides of max(i, L)
        out[n] = (variant){.cfg = c, .fire_lmul = 0.1f};
        snprintf(out[n++].what, sizeof out->what, "%s (L 51.2)", name);
    }
    if (row->pos == ORDO_POS_COPE) { // P 6: most pairs clamped, at every length past 5
        out[n] = (variant){.cfg = c};
        out[n].cfg.cope_max = 6;
        snprintf(out[n++].what, sizeof out->what, "%s (P 6)", name);
    }
    if (row->pos == ORDO_POS_DPB) // the other options: log distance, depth 1 and 3
        for (int k = 0; k < 2; k++) {
            out[n] = (variant){.cfg = c};
            out[n].cfg.dpb_log_distance = 1;
            out[n].cfg.dpb_depth = k ? 3 : 1;
            out[n].cfg.dpb_dim = k ? 8 : 32;
            snprintf(out[n++].what, sizeof out->what, "%s (log, depth %d)", name, k ? 3 : 1);
        }
    return n;
}

// The row's cells of the matrix: drawn positions only for a row that takes them, and only
// where the range they are drawn from can exceed T (a row bound to its length: T_max).
static int shapes(const ordo_pos_scheme *row, shape *out) {
    int n = 0;
    for (int x = 0; x < NT; x++)
        for (int drawn = 0; drawn < 2; drawn++)
            for (int dropout = 0; dropout < 2; dropout++) {
                if (drawn && !(row->flags & ORDO_POS_F_POSITIONS)) continue;
                if (drawn && (row->flags & ORDO_POS_F_LENGTH) && Ts[x] >= T_MAX) continue;
                out[n++] = (shape){Ts[x], dropout, drawn};
            }
    return n;
}

// One cell's inputs: tokens and targets (B, T), and the drawn positions (B, T) set on m.
typedef struct cell {
    int32_t *idx, *tg, *pos;
    char what[96];
} cell;

static cell cell_begin(ordo_gpt *m, const variant *v, shape s) {
    int T = s.T;
    cell c = {malloc((size_t)B * T * sizeof(int32_t)), malloc((size_t)B * T * sizeof(int32_t)),
              NULL};
    ordo_rng r;
    ordo_rng_seed(&r, (uint64_t)T * 7 + 3);
    for (int i = 0; i < B * T; i++) {
        c.idx[i] = (int32_t)ordo_rng_below(&r, (uint64_t)m->cfg.V);
        c.tg[i] = (int32_t)ordo_rng_below(&r, (uint64_t)m->cfg.V);
    }
    int n = 3 * T + 5; // distances past T: t5's far buckets, FIRE's rows past L
    if (s.drawn) {
        if (ordo_pos_row(m->cfg.pos)->flags & ORDO_POS_F_LENGTH) n = n < T_MAX ? n : T_MAX;
        c.pos = malloc((size_t)B * T * sizeof(int32_t));
        for (int b = 0; b < B; b++) ordo_random_positions(c.pos + b * T, T, n, 1000 + T + b);
    }
    ordo_gpt_set_positions(m, c.pos);
    ordo_gpt_train_mode(m, s.dropout, 99, 3); // row 3 of a larger batch: a non-zero offset
    snprintf(c.what, sizeof c.what, "%s T %d%s%s", v->what, T, s.dropout ? " dropout" : "",
             s.drawn ? " drawn" : "");
    return c;
}

static void cell_end(ordo_gpt *m, cell *c) {
    ordo_gpt_set_positions(m, NULL);
    ordo_gpt_train_mode(m, 0, 0, 0);
    free(c->idx);
    free(c->tg);
    free(c->pos);
}

typedef struct pass {
    float loss;
    float *grad; // a copy of the parameters' gradient block
} pass;

// One context for every forward of the run, reset before each (its chunks kept: no 64 MiB
// malloc per forward, which the sanitizers' allocator makes slow).
static ordo_ctx ctx;

static pass run(ordo_gpt *m, ordo_attn_impl a, const cell *c, int T) {
    ordo_ctx_reset(&ctx);
    m->attention = a;
    ordo_params_zero_grad(&m->params);
    ordo_tensor *loss;
    pass p = {NAN, malloc(m->params.total * sizeof(float))};
    ordo_status s = ordo_gpt_forward(m, &ctx, c->idx, c->tg, B, T, NULL, &loss);
    CHECK_MSG(s == ORDO_OK, "%s: %s", c->what, ordo_error_message());
    if (s == ORDO_OK) {
        ordo_backward(&ctx, loss);
        p.loss = loss->data[0];
    }
    memcpy(p.grad, m->params.grad, m->params.total * sizeof(float));
    return p;
}

// ---- parity: fused against materialized; the worst relative difference goes to *worst

static void parity(ordo_gpt *m, const cell *c, int T, double *worst) {
    pass mat = run(m, ORDO_ATTN_MATERIALIZED, c, T);
    pass fus = run(m, ORDO_ATTN_FUSED, c, T);
    CHECK_MSG(fabs(fus.loss - mat.loss) <= RTOL * fabs(mat.loss),
              "%s: loss %.9g fused, %.9g materialized", c->what, fus.loss, mat.loss);
    const ordo_pos_scheme *row = ordo_pos_row(m->cfg.pos);
    int dpb = m->cfg.pos == ORDO_POS_DPB, D = m->cfg.dpb_depth;
    char last_w[32], last_b[32];
    snprintf(last_w, sizeof last_w, "dpb.mlp.%d.weight", D);
    snprintf(last_b, sizeof last_b, "dpb.mlp.%d.bias", D);
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
        if (strcmp(t->name, "fire.fc2.bias") == 0 || (dpb && strcmp(t->name, last_b) == 0))
            ref = fmax(ref, w2_scale), rmax = fmax(rmax, w2_scale);
        if (strcmp(t->name, "fire.fc2.weight") == 0 || (dpb && strcmp(t->name, last_w) == 0))
            w2_scale = ref;
        double rel = ref > 0 ? err / ref : err, relmax = rmax > 0 ? emax / rmax : emax;
        // a bias scheme's own parameters (its tables, MLPs, fox's gate, cope's embeddings) get
        // their gradient through sums of dS that cancel: fox's gate through c, cope's
        // embeddings as a clamped row's last position gathers the dS of all its far keys (P 6,
        // T 256: 1.1e-6)
        int bias = (row->flags & ORDO_POS_F_BIAS) && (t->flags & ORDO_POSITION);
        double tol = bias                              ? BIAS_RTOL
                     : dpb && !m->cfg.dpb_log_distance ? DPB_RTOL
                     : m->cfg.pos == ORDO_POS_COPE     ? COPE_RTOL
                                                       : RTOL;
        if (!(rel <= *worst)) *worst = rel;
        CHECK_MSG(rel <= tol, "%s: %s's gradient differs by %.3g relative (norm %.3g)", c->what,
                  t->name, rel, ref);
        CHECK_MSG(relmax <= 4 * tol, "%s: %s's gradient differs by %.3g of its largest (%.3g)",
                  c->what, t->name, relmax, rmax);
    }
    free(mat.grad);
    free(fus.grad);
}

// ---- threads: the fused path bit for bit at 1 and 3 threads (the bias gradients are summed
// per (b, h) and then in a fixed order; the same shapes, so nothing may round apart). The
// threads split the (b, h) slices, whatever T: T 100 (two tiles a row, the second partial)
// stands for the other lengths, and dropout and drawn positions run as in gradcheck (each on
// and off, not crossed).
static int threads_run_at(const ordo_pos_scheme *row, shape s) {
    return s.T == 100 && (s.dropout == s.drawn || !(row->flags & ORDO_POS_F_POSITIONS));
}

static void threads(ordo_gpt *m, const cell *c, int T) {
    int before = ordo_get_threads();
    ordo_set_threads(1);
    pass one = run(m, ORDO_ATTN_FUSED, c, T);
    ordo_set_threads(3);
    pass three = run(m, ORDO_ATTN_FUSED, c, T);
    ordo_set_threads(before);
    CHECK_MSG(memcmp(&one.loss, &three.loss, sizeof one.loss) == 0 &&
                  memcmp(one.grad, three.grad, m->params.total * sizeof(float)) == 0,
              "%s: 1 and 3 threads differ", c->what);
    free(one.grad);
    free(three.grad);
}

// ---- gradcheck: finite differences of f = sum(logits * R) on the fused path
//
// framework/gradcheck.h's method (a fixed random R, f summed in double, the 4-point stencil),
// with changes for a whole model in float32. Its model has the attention branch made to
// matter: at GPT-2's init (c_attn and c_proj of std 0.02) the branch adds about 1e-2 of the
// residual stream to the logits, and the gradients of the scheme's parameters sank into the
// forward's rounding (about 1e-6 in f, 1e-4 in a difference quotient at a step of 1e-2); the
// attention weights times GC_ATTN_SCALE lift them above it. The step is relative
// (GC_STEP |x|, at least GC_STEP / 10): FIRE's c and L multiplier start at 0.1, and an
// absolute step of 1e-2 moved every pair's input across the ReLUs' kinks (9% off). The floor
// under the relative error is 0.1 of the tensor's largest analytic element (the whole
// gradient is at hand, not a few numeric samples), and at least 1e-3 of the qkv weight's (at
// T 1 a bias scheme's gradients are zero but for rounding: one key). A coordinate where f is
// not smooth over the stencil's width is not judged (fire's ReLUs, cope's floor, kerple's
// clamp): smooth means the central differences at h and 2h agree to GC_SMOOTH and the
// one-sided ones at h to GC_KINK; the analytic gradient plays no part in that, so an error in
// it cannot hide there. Each cell must judge some coordinate and each variant at least a third
// of its coordinates over its cells: not each cell a third, because dpb's deeper MLP weights
// move f by about 1e-5 over the stencil, a few times the forward's rounding, and which of them
// the rounding makes rough depends on the BLAS kernels (Debian's OpenBLAS running its Prescott
// kernels on one Xeon judged 8 of 27 in one dpb cell, 74 of 108 over the variant). What is
// judged agreed to 2.6e-2 at worst (dpb under Prescott), cope to 1.8e-2, fox to 1.3e-2, the
// others to 1.1e-2; GC_REL leaves a factor of about 2, and a wrong factor, sign or missing
// term fails.
#define GC_ATTN_SCALE 10
#define GC_COORDS     3
#define GC_STEP       1e-2
#define GC_SMOOTH     1e-2
#define GC_KINK       5e-2
#define GC_REL        5e-2
// Where gradcheck runs: T 1 and T 64 (one full tile); there dropout and drawn positions each
// on and off, not crossed (both off, both on; a row without positions: dropout off and on).
// The other cells change how the tiles fall and which keys are dropped, which parity covers
// at every cell against the materialized path (whose ops test_ops_gradcheck checks one by
// one); this mode asks whether the whole model's gradient is its loss's, and its forwards are
// the costly part of the run under the sanitizers.
static int gc_runs_at(const ordo_pos_scheme *row, shape s) {
    return (s.T == 1 || s.T == 64) &&
           (s.dropout == s.drawn || !(row->flags & ORDO_POS_F_POSITIONS));
}

// The variant's model with its attention weights times GC_ATTN_SCALE.
static void gc_model(ordo_gpt *m, const variant *v) {
    CHECK(ordo_gpt_init(m, &v->cfg, 5) == ORDO_OK);
    make_bite(m, v);
    for (int k = 0; k < m->params.count; k++) {
        ordo_tensor *t = m->params.t[k];
        if (strstr(t->name, ".attn.c_attn.weight") || strstr(t->name, ".attn.c_proj.weight"))
            for (size_t i = 0; i < t->n; i++) t->data[i] *= GC_ATTN_SCALE;
    }
}

static double gc_f(ordo_gpt *m, const cell *c, int T, const float *R) {
    ordo_ctx_reset(&ctx);
    ordo_tensor *logits; // (B, T, V)
    ORDO_ASSERT(ordo_gpt_forward(m, &ctx, c->idx, NULL, B, T, &logits, NULL) == ORDO_OK);
    double f = 0;
    for (size_t i = 0; i < logits->n; i++) f += (double)logits->data[i] * R[i];
    return f;
}

typedef struct gc_stats {
    int judged, rough;
    double worst;
} gc_stats;

static void gradcheck(ordo_gpt *m, const cell *c, int T, gc_stats *st) {
    // what is checked: the scheme's parameters and the first layer's qkv weight
    ordo_tensor *in[24];
    int nin = 0;
    in[nin++] = param(m, "h.0.attn.c_attn.weight");
    for (int k = 0; k < m->params.count && nin < 24; k++)
        if (m->params.t[k]->flags & ORDO_POSITION) in[nin++] = m->params.t[k];
    m->attention = ORDO_ATTN_FUSED;
    ordo_rng r;
    ordo_rng_seed(&r, 7 + (uint64_t)T);
    size_t nR = (size_t)B * T * m->cfg.V;
    float *R = malloc(nR * sizeof(float));
    for (size_t i = 0; i < nR; i++) R[i] = (float)ordo_rng_normal(&r);
    ordo_ctx_reset(&ctx);
    ordo_params_zero_grad(&m->params);
    ordo_tensor *logits;
    CHECK(ordo_gpt_forward(m, &ctx, c->idx, NULL, B, T, &logits, NULL) == ORDO_OK);
    ordo_backward_from(&ctx, logits, R);
    double f0 = gc_f(m, c, T, R);                       // unperturbed
    float *g = malloc(m->params.total * sizeof(float)); // backward's, before the forwards below
    memcpy(g, m->params.grad, m->params.total * sizeof(float));
    int judged = 0, rough = 0;
    double qkv_scale = 0;
    for (int k = 0; k < nin; k++) {
        ordo_tensor *x = in[k];
        const float *a = g + (x->grad - m->params.grad);
        double scale = 0;
        for (size_t i = 0; i < x->n; i++) scale = fmax(scale, fabs(a[i]));
        if (k == 0) qkv_scale = scale; // in[0]: the qkv weight
        double floor = fmax(0.1 * scale, 1e-3 * qkv_scale);
        for (int q = 0; q < GC_COORDS && (size_t)q < x->n; q++) {
            size_t i = x->n <= GC_COORDS ? (size_t)q : (size_t)ordo_rng_below(&r, x->n);
            float x0 = x->data[i];
            double h = GC_STEP * fmax(fabs(x0), 0.1), f[4];
            const double off[4] = {-2, -1, 1, 2};
            for (int s = 0; s < 4; s++) {
                x->data[i] = (float)(x0 + off[s] * h);
                f[s] = gc_f(m, c, T, R);
            }
            x->data[i] = x0;
            double d1 = (f[2] - f[1]) / (2 * h), d2 = (f[3] - f[0]) / (4 * h);
            double fwd = (f[2] - f0) / h, bwd = (f0 - f[1]) / h;
            if (!(fabs(d1 - d2) <= GC_SMOOTH * fmax(fabs(d1), fabs(d2))) ||
                !(fabs(fwd - bwd) <= GC_KINK * fmax(fabs(fwd), fabs(bwd)))) {
                rough++;
                continue;
            }
            double n = (4 * d1 - d2) / 3, err = fabs(a[i] - n);
            double rel = err / fmax(fmax(fabs(a[i]), fabs(n)), floor);
            judged++;
            if (!(rel <= st->worst)) st->worst = rel;
            CHECK_MSG(rel <= GC_REL, "%s: gradcheck %s[%zu]: analytic %.8g, numeric %.8g", c->what,
                      x->name, i, a[i], n);
        }
    }
    st->judged += judged;
    st->rough += rough;
    CHECK_MSG(judged > 0, "%s: gradcheck judged no coordinate, %d not smooth", c->what, rough);
    free(g);
    free(R);
}

// ---- besides the matrix

// The flags against what the model does: given positions refused without
// ORDO_POS_F_POSITIONS, T past T_max refused with ORDO_POS_F_LENGTH (and run without it).
static void check_flags(const ordo_pos_scheme *row) {
    ordo_gpt_config c = {.V = 37, .C = 32, .L = 1, .NH = 4, .T_max = 16, .pos = row->pos};
    c.ln_eps = 1e-5f;
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &c, 1) == ORDO_OK);
    ordo_ctx_reset(&ctx);
    int32_t idx[17] = {0}, pos[8] = {0, 2, 3, 5, 8, 9, 12, 15};
    ordo_tensor *lg;
    ordo_gpt_set_positions(&m, pos);
    ordo_status s = ordo_gpt_forward(&m, &ctx, idx, NULL, 1, 8, &lg, NULL);
    ordo_gpt_set_positions(&m, NULL);
    int takes = (row->flags & ORDO_POS_F_POSITIONS) != 0;
    CHECK_MSG(takes ? s == ORDO_OK : s == ORDO_ERR_ARG, "%s: given positions %s",
              ordo_pos_name(row->pos), s ? ordo_error_message() : "accepted");
    ordo_ctx_reset(&ctx);
    s = ordo_gpt_forward(&m, &ctx, idx, NULL, 1, 17, &lg, NULL);
    int bound = (row->flags & ORDO_POS_F_LENGTH) != 0;
    CHECK_MSG(bound ? s == ORDO_ERR_ARG : s == ORDO_OK, "%s: T past T_max %s",
              ordo_pos_name(row->pos), s ? ordo_error_message() : "accepted");
    ordo_gpt_free(&m);
}

int main(void) {
    ordo_ctx_init(&ctx);
    double secs[3] = {0}; // parity, threads, gradcheck
    for (int p = 0; p < ORDO_POS_COUNT; p++) {
        const ordo_pos_scheme *row = ordo_pos_schemes[p];
        check_flags(row);
        variant v[4];
        shape sh[4 * NT];
        int nv = variants(row, v), ns = shapes(row, sh);
        for (int k = 0; k < nv; k++) {
            ordo_gpt m;
            CHECK_MSG(ordo_gpt_init(&m, &v[k].cfg, 5) == ORDO_OK, "%s: %s", v[k].what,
                      ordo_error_message());
            make_bite(&m, &v[k]);
            double worst_parity = 0;
            gc_stats gc = {0};
            ordo_gpt gm;
            gc_model(&gm, &v[k]);
            for (int x = 0; x < ns; x++) {
                if (gc_runs_at(row, sh[x])) {
                    cell c = cell_begin(&gm, &v[k], sh[x]);
                    double t0 = ordo_now_s();
                    gradcheck(&gm, &c, sh[x].T, &gc);
                    secs[2] += ordo_now_s() - t0;
                    cell_end(&gm, &c);
                }
                cell c = cell_begin(&m, &v[k], sh[x]);
                double t0 = ordo_now_s();
                parity(&m, &c, sh[x].T, &worst_parity);
                double t1 = ordo_now_s();
                if (threads_run_at(row, sh[x])) threads(&m, &c, sh[x].T);
                secs[0] += t1 - t0, secs[1] += ordo_now_s() - t1;
                cell_end(&m, &c);
            }
            printf("%-22s %2d cells: parity worst %.3g; gradcheck worst %.3g, %d coordinates "
                   "judged, %d not smooth\n",
                   v[k].what, ns, worst_parity, gc.worst, gc.judged, gc.rough);
            CHECK_MSG(2 * gc.judged >= gc.rough,
                      "%s: gradcheck judged %d coordinates over its cells, %d not smooth",
                      v[k].what, gc.judged, gc.rough);
            ordo_gpt_free(&m);
            ordo_gpt_free(&gm);
        }
    }
    printf("seconds: parity %.1f, threads %.1f, gradcheck %.1f\n", secs[0], secs[1], secs[2]);
    ordo_ctx_free(&ctx);
    TEST_MAIN_END();
}
