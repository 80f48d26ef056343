// The bias tiles of models/bias_tiles.c against the materialized biases they replace: every
// scheme's fill, tile by tile, against the [NH, T, T] bias that the model's ops make (the
// distance tile of a table by distance against ordo_dist_bias, of alibi's table against
// ordo_alibi_bias; FIRE's fire_dist -> MLP -> pair_bias), and every grad, summed over the
// tiles of a random dS, against the ops' parameter gradients for the same dS. Tiles of several
// shapes (square, thin, wider than T) so that they straddle the diagonal and T is no multiple
// of them; T = 1; fire on both sides of L (and at a row equal to L), with c and the L
// multiplier of either sign; fox per batch row, its fill bit for bit against ordo_diff_bias;
// and (--pos-random) the tiles at per-row positions against the ops at positions. t5, kerple,
// kerple-power and sandwich are the distance tile of their tables (dpb's case here).
#include <math.h>
#include <string.h>

#include "framework/autograd.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "models/bias_tiles.h"
#include "models/pos/ops.h"
#include "models/pos/scheme.h"
#include "models/positional.h"
#include "test.h"

static ordo_rng rng;

static double uniform(double lo, double hi) {
    return lo + (hi - lo) * ordo_rng_uniform(&rng);
}

static const int TILES[][2] = {{16, 16}, {7, 5}, {64, 32}, {5, 64}, {128, 128}};
#define NTILES (int)(sizeof TILES / sizeof TILES[0])

// dS [NH, T, T]: random below and on the diagonal, zero above (as the kernel hands it).
static float *random_ds(int NH, int T) {
    float *ds = calloc((size_t)NH * T * T, sizeof(float));
    for (int h = 0; h < NH; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j <= i; j++)
                ds[((size_t)h * T + i) * T + j] = (float)ordo_rng_normal(&rng);
    return ds;
}

#define SENTINEL 12345.0f

// Fills every tile that holds a causal pair, for every head and tile shape, and compares the
// causal entries with ref [NH, T, T]: |fill - ref| <= atol (0: bit for bit). Checks that the
// entries past nc (the row's padding up to ld) are untouched and that all others are finite.
// B > 1: ref [B, NH, T, T], each batch row's tiles (a bias at per-row positions).
static void check_fill_rows(const char *what, const ordo_bias_tiles *bt, const float *ref, int B,
                            int NH, int T, double atol) {
    double worst = 0;
    int bad_pad = 0, nonfinite = 0;
    for (int t = 0; t < NTILES; t++) {
        int Br = TILES[t][0], Bc = TILES[t][1], ld = Bc + 3;
        float *s = malloc((size_t)Br * ld * sizeof(float));
        for (int bh = 0; bh < B * NH; bh++) {
            int b = bh / NH, h = bh % NH;
            for (int i0 = 0; i0 < T; i0 += Br) {
                int nr = i0 + Br < T ? Br : T - i0;
                for (int j0 = 0; j0 <= i0 + nr - 1; j0 += Bc) {
                    int nc = j0 + Bc < T ? Bc : T - j0;
                    for (int r = 0; r < nr; r++)
                        for (int c = 0; c < ld; c++) s[r * ld + c] = c < nc ? 0.0f : SENTINEL;
                    bt->bias.fill(bt->bias.self, b, h, i0, nr, j0, nc, s, ld);
                    for (int r = 0; r < nr; r++)
                        for (int c = 0; c < ld; c++) {
                            float v = s[r * ld + c];
                            int i = i0 + r, j = j0 + c;
                            if (c >= nc)
                                bad_pad += v != SENTINEL;
                            else if (j > i)
                                nonfinite += !isfinite(v);
                            else {
                                double e = fabs(v - ref[((size_t)bh * T + i) * T + j]);
                                if (!(e <= worst)) worst = e; // NaN sticks
                            }
                        }
                }
            }
        }
        free(s);
    }
    CHECK_MSG(worst <= atol, "%s: fill differs from the materialized bias by %.3g (allowed %.3g)",
              what, worst, atol);
    CHECK_MSG(!bad_pad, "%s: fill wrote %d entries past nc", what, bad_pad);
    CHECK_MSG(!nonfinite, "%s: %d non-finite entries above the diagonal", what, nonfinite);
}

static void check_fill(const char *what, const ordo_bias_tiles *bt, const float *ref, int NH, int T,
                       double atol) {
    check_fill_rows(what, bt, ref, 1, NH, T, atol);
}

// Sums grad over the tiles of dS for each tile shape and compares g with the materialized
// gradients of params (read from their ->grad): per tensor, max |g - ref| <= rtol * max |ref|
// (+ a floor for tensors whose gradient is 0).
// B > 1: ds [B, NH, T, T], every batch row's tiles adding into one g (the kernel sums the
// (b, h) slices; here the order differs, within rounding).
static void check_grad_rows(const char *what, const ordo_bias_tiles *bt, const float *ds, int B,
                            int NH, int T, double rtol) {
    float *g = malloc(bt->bias.n_grad * sizeof(float));
    for (int t = 0; t < NTILES; t++) {
        int Br = TILES[t][0], Bc = TILES[t][1];
        memset(g, 0, bt->bias.n_grad * sizeof(float));
        for (int bh = 0; bh < B * NH; bh++) {
            int b = bh / NH, h = bh % NH;
            for (int i0 = 0; i0 < T; i0 += Br) {
                int nr = i0 + Br < T ? Br : T - i0;
                for (int j0 = 0; j0 <= i0 + nr - 1; j0 += Bc) {
                    int nc = j0 + Bc < T ? Bc : T - j0;
                    bt->bias.grad(bt->bias.self, b, h, i0, nr, j0, nc,
                                  ds + ((size_t)bh * T + i0) * T + j0, T, g);
                }
            }
        }
        size_t at = 0;
        for (int p = 0; p < bt->n_params; p++) {
            const ordo_tensor *x = bt->params[p];
            double mx = 0, err = 0;
            for (size_t k = 0; k < x->n; k++) {
                double e = fabs(g[at + k] - x->grad[k]);
                mx = fmax(mx, fabs(x->grad[k]));
                if (!(e <= err)) err = e;
            }
            CHECK_MSG(err <= rtol * mx + 1e-30,
                      "%s: tiles %dx%d: %s's gradient differs by %.3g "
                      "(max |ref| %.3g, allowed %.3g)",
                      what, Br, Bc, x->name, err, mx, rtol * mx);
            at += x->n;
        }
        CHECK(at == bt->bias.n_grad);
    }
    free(g);
}

static void check_grad(const char *what, const ordo_bias_tiles *bt, const float *ds, int NH, int T,
                       double rtol) {
    check_grad_rows(what, bt, ds, 1, NH, T, rtol);
}

// alibi's table by distance [n, NH], -m_h d as the model makes it: a constant.
static ordo_tensor *alibi_table(ordo_ctx *ctx, int NH, int n) {
    double m[256];
    ordo_alibi_slopes(m, NH);
    ordo_tensor *x = ordo_tensor_new2(ctx, n, NH);
    for (int d = 0; d < n; d++)
        for (int h = 0; h < NH; h++) x->data[d * NH + h] = (float)(-m[h] * d);
    return x;
}

// Through the distance tiles, bit for bit ordo_alibi_bias's -m_h (i - j) per pair.
static void test_alibi(int NH, int T) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    float *ref = malloc((size_t)NH * T * T * sizeof(float));
    ordo_alibi_bias(ref, NH, T);
    ordo_bias_tiles bt = *ordo_distance_tiles(&ctx, alibi_table(&ctx, NH, T), NULL, 1, T);
    CHECK(bt.bias.grad == NULL && bt.bias.n_grad == 0 && bt.n_params == 0);
    char what[64];
    snprintf(what, sizeof what, "alibi NH %d T %d", NH, T);
    check_fill(what, &bt, ref, NH, T, 0);
    free(ref);
    ordo_ctx_free(&ctx);
}

// FIRE's parameter gradients for dS in double, pair by pair (the MLP on the float u that
// ordo_fire_dist makes, everything after it in double): the reference that both the tiles
// and the materialized ops are measured against. out: the tiles' layout.
static void fire_grad_double(double *out, ordo_tensor *const *t, const float *ds, int NH, int T,
                             float init_L, float eps) {
    int W = (int)t[0]->n;
    const float *w1 = t[0]->data, *b1 = t[1]->data, *w2 = t[2]->data;
    double cv = t[4]->data[0], ca = fabs(cv), sc = (cv > 0) - (cv < 0);
    double lv = (double)t[5]->data[0] * init_L, L = fabs(lv), sl = (lv > 0) - (lv < 0);
    double *dw1 = out, *db1 = out + W, *dw2 = out + 2 * W, *db2 = dw2 + W * NH;
    memset(out, 0, (2 * W + W * NH + NH + 2) * sizeof(double));
    for (int i = 0; i < T; i++) {
        double nrm = fmax((double)i, L), den = log1p(ca * nrm) + eps;
        double wL = L > i ? 1.0 : L == i ? 0.5 : 0.0;
        for (int j = 0; j <= i; j++) {
            int d = i - j;
            double num = log1p(ca * d), u = (float)(num / den), du = 0;
            for (int h = 0; h < NH; h++) {
                double g = ds[((size_t)h * T + i) * T + j];
                db2[h] += g;
                for (int k = 0; k < W; k++) {
                    double pre = (double)w1[k] * u + b1[k];
                    if (pre <= 0) continue;
                    dw2[k * NH + h] += g * pre;
                    double dh = g * w2[k * NH + h];
                    dw1[k] += dh * u;
                    db1[k] += dh;
                    du += dh * w1[k];
                }
            }
            db2[NH] +=
                du * (sc * d / (ca * d + 1) / den - num * sc * nrm / (ca * nrm + 1) / (den * den));
            db2[NH + 1] -= du * num * wL * ca / (ca * nrm + 1) / (den * den) * sl * init_L;
        }
    }
}

// max over the tensors of FIRE (tiles' layout) of max |x - ref| / max |ref|. fc2.bias's
// gradient is the sum of dS, zero but for rounding when each row of dS sums to zero: it is
// measured against fc2.weight's scale (the same dS times hidden values of about 1). c's and
// L's are sums over the pairs of du times u's derivatives, which cancel likewise (2.3e-4
// against fc1.weight's 0.03 at T 2, an error of 1.4e-9 in both): measured against
// fc1.weight's scale (du times u, u at most 1).
static double fire_rel_err(const float *x, const double *ref, ordo_tensor *const *t) {
    double worst = 0, w1max = 0, w2max = 0;
    size_t at = 0;
    for (int p = 0; p < 6; p++) {
        double err = 0, mx = 0;
        for (size_t k = 0; k < t[p]->n; k++) {
            double e = fabs(x[at + k] - ref[at + k]);
            if (!(e <= err)) err = e; // NaN sticks
            mx = fmax(mx, fabs(ref[at + k]));
        }
        if (p == 0) w1max = mx;
        if (p == 2) w2max = mx;
        if (p == 3) mx = fmax(mx, w2max);
        if (p >= 4) mx = fmax(mx, w1max);
        if (mx > 0 && !(err / mx <= worst)) worst = err / mx;
        at += t[p]->n;
    }
    return worst;
}

// FIRE as gpt.c's fire_bias composes it, with L = |lmul| * 512.
static void test_fire(int NH, int T, double c, double lmul, int zero_unit) {
    int W = ORDO_FIRE_WIDTH;
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *w1 = ordo_params_add(&p, "fire.fc1.weight", 2, (int[]){1, W}, 0);
    ordo_tensor *b1 = ordo_params_add(&p, "fire.fc1.bias", 1, (int[]){W}, 0);
    ordo_tensor *w2 = ordo_params_add(&p, "fire.fc2.weight", 2, (int[]){W, NH}, 0);
    ordo_tensor *b2 = ordo_params_add(&p, "fire.fc2.bias", 1, (int[]){NH}, 0);
    ordo_tensor *cc = ordo_params_add(&p, "fire.c", 1, (int[]){1}, 0);
    ordo_tensor *lm = ordo_params_add(&p, "fire.L_multiplier", 1, (int[]){1}, 0);
    ordo_params_alloc(&p);
    double k2 = 1 / sqrt((double)W);
    for (int k = 0; k < W; k++) {
        w1->data[k] = (float)uniform(-1, 1);
        b1->data[k] = (float)uniform(-1, 1);
        for (int h = 0; h < NH; h++) w2->data[k * NH + h] = (float)uniform(-k2, k2);
    }
    for (int h = 0; h < NH; h++) b2->data[h] = (float)uniform(-k2, k2);
    if (zero_unit) { // a unit with no kink (always on), one always off, two with one kink
        w1->data[0] = 0, b1->data[0] = 0.5f;
        w1->data[1] = 0, b1->data[1] = -0.5f;
        w1->data[3] = w1->data[2], b1->data[3] = b1->data[2];
        // kinks at u = 0, the diagonal's: the units are at 0 there, with no gradient
        w1->data[4] = -0.7f, b1->data[4] = 0;
        w1->data[5] = 0.6f, b1->data[5] = 0;
    }
    cc->data[0] = (float)c;
    lm->data[0] = (float)lmul;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *u = ordo_fire_dist(&ctx, cc, lm, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    ordo_tensor *hdn = ordo_relu(&ctx, ordo_linear(&ctx, u, w1, b1));
    ordo_tensor *ref = ordo_pair_bias(&ctx, ordo_linear(&ctx, hdn, w2, b2), T);
    float *ds = random_ds(NH, T);
    ordo_backward_from(&ctx, ref, ds);
    ordo_bias_tiles bt =
        *ordo_fire_tiles(&ctx, w1, b1, w2, b2, cc, lm, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    char what[96];
    snprintf(what, sizeof what, "fire NH %d T %d c %g L %g%s", NH, T, c, fabs(lmul) * 512,
             zero_unit ? " (flat units)" : "");
    // the materialized MLP rounds each of its 32 products and sums in float: a few ulp of
    // the terms' size (about 1), where the tiles evaluate it in double
    check_fill(what, &bt, ref->data, NH, T, 5e-7);
    check_grad(what, &bt, ds, NH, T, 1e-5);
    // both against the double reference, with dS as softmax's backward makes it (each row
    // summing to zero: the sums over pairs cancel)
    for (int h = 0; h < NH; h++)
        for (int i = 0; i < T; i++) {
            float *row = ds + ((size_t)h * T + i) * T;
            double mean = 0;
            for (int j = 0; j <= i; j++) mean += row[j];
            mean /= i + 1;
            for (int j = 0; j <= i; j++) row[j] -= (float)mean;
        }
    ordo_ctx_reset(&ctx);
    ordo_params_zero_grad(&p);
    u = ordo_fire_dist(&ctx, cc, lm, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    hdn = ordo_relu(&ctx, ordo_linear(&ctx, u, w1, b1));
    ref = ordo_pair_bias(&ctx, ordo_linear(&ctx, hdn, w2, b2), T);
    ordo_backward_from(&ctx, ref, ds);
    bt = *ordo_fire_tiles(&ctx, w1, b1, w2, b2, cc, lm, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    size_t n = bt.bias.n_grad;
    double *exact = malloc(n * sizeof(double));
    float *g = calloc(n, sizeof(float)), *mat = malloc(n * sizeof(float));
    fire_grad_double(exact, bt.params, ds, NH, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    for (int h = 0; h < NH; h++)
        for (int i0 = 0; i0 < T; i0 += 64) {
            int nr = i0 + 64 < T ? 64 : T - i0;
            for (int j0 = 0; j0 <= i0; j0 += 64)
                bt.bias.grad(bt.bias.self, 0, h, i0, nr, j0, j0 + 64 < T ? 64 : T - j0,
                             ds + ((size_t)h * T + i0) * T + j0, T, g);
        }
    size_t at = 0;
    for (int k = 0; k < 6; k++) {
        memcpy(mat + at, bt.params[k]->grad, bt.params[k]->n * sizeof(float));
        at += bt.params[k]->n;
    }
    double et = fire_rel_err(g, exact, bt.params), em = fire_rel_err(mat, exact, bt.params);
    printf("%s, dS rows summing to 0: tiles %.3g, materialized %.3g from the double sums\n", what,
           et, em);
    CHECK_MSG(et <= 1e-6, "%s: the tiles' gradient is %.3g from the double sums", what, et);
    free(exact);
    free(g);
    free(mat);
    free(ds);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

// A NaN in FIRE's first layer makes the whole bias NaN (the trainer's check then stops the
// run), and the kinks' sort does not run on it.
static void test_fire_nan(void) {
    int W = ORDO_FIRE_WIDTH, NH = 2, T = 9;
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *t[6] = {ordo_params_add(&p, "w1", 2, (int[]){1, W}, 0),
                         ordo_params_add(&p, "b1", 1, (int[]){W}, 0),
                         ordo_params_add(&p, "w2", 2, (int[]){W, NH}, 0),
                         ordo_params_add(&p, "b2", 1, (int[]){NH}, 0),
                         ordo_params_add(&p, "c", 1, (int[]){1}, 0),
                         ordo_params_add(&p, "l", 1, (int[]){1}, 0)};
    ordo_params_alloc(&p);
    for (int k = 0; k < 6; k++)
        for (size_t x = 0; x < t[k]->n; x++) t[k]->data[x] = (float)uniform(0.1, 1);
    t[0]->data[5] = NAN;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_bias_tiles bt = *ordo_fire_tiles(&ctx, t[0], t[1], t[2], t[3], t[4], t[5], T, 512, 1e-6f);
    float s[81] = {0};
    bt.bias.fill(bt.bias.self, 0, 1, 0, T, 0, T, s, T);
    CHECK(isnan(s[0]) && isnan(s[80]));
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

// fox, per batch row: B = 2 rows of c [B, NH, T] (falling as prefix sums of log f do, by
// about 0.7 a position, so that c_i - c_j rounds as at long lengths); each (b, h) tile's fill
// against ordo_diff_bias, bit for bit, and its grad, handed the (b, h) slice of g as the
// kernel hands it (per_batch), summed over every tile, against the op's gradient of c.
static void test_fox(int NH, int T) {
    int B = 2;
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *c = ordo_params_add(&p, "c", 3, (int[]){B, NH, T}, 0);
    ordo_params_alloc(&p);
    for (int bh = 0; bh < B * NH; bh++) {
        double acc = 0;
        for (int t = 0; t < T; t++) c->data[(size_t)bh * T + t] = (float)(acc -= uniform(0.1, 1.3));
    }
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *ref = ordo_diff_bias(&ctx, c); // (B, NH, T, T)
    float *ds = random_ds(B * NH, T);
    ordo_backward_from(&ctx, ref, ds);
    ordo_bias_tiles bt = *ordo_fox_tiles(&ctx, c);
    CHECK(bt.bias.per_batch && bt.bias.n_grad == (size_t)T && bt.n_params == 1 &&
          bt.params[0] == c);
    float *g = malloc(c->n * sizeof(float));
    for (int t = 0; t < NTILES; t++) {
        int Br = TILES[t][0], Bc = TILES[t][1], ld = Bc + 3, differ = 0;
        float *s = malloc((size_t)Br * ld * sizeof(float));
        memset(g, 0, c->n * sizeof(float));
        for (int b = 0; b < B; b++)
            for (int h = 0; h < NH; h++) {
                size_t bh = (size_t)b * NH + h;
                for (int i0 = 0; i0 < T; i0 += Br) {
                    int nr = i0 + Br < T ? Br : T - i0;
                    for (int j0 = 0; j0 <= i0 + nr - 1; j0 += Bc) {
                        int nc = j0 + Bc < T ? Bc : T - j0;
                        memset(s, 0, (size_t)Br * ld * sizeof(float));
                        bt.bias.fill(bt.bias.self, b, h, i0, nr, j0, nc, s, ld);
                        for (int r = 0; r < nr; r++)
                            for (int x = 0; x < nc && j0 + x <= i0 + r; x++)
                                differ +=
                                    s[r * ld + x] != ref->data[(bh * T + i0 + r) * T + j0 + x];
                        bt.bias.grad(bt.bias.self, b, h, i0, nr, j0, nc,
                                     ds + (bh * T + i0) * T + j0, T, g + bh * T);
                    }
                }
            }
        free(s);
        CHECK_MSG(!differ, "fox NH %d T %d tiles %dx%d: %d fill entries differ from diff_bias", NH,
                  T, Br, Bc, differ);
        double mx = 0, err = 0;
        for (size_t k = 0; k < c->n; k++) {
            mx = fmax(mx, fabs(c->grad[k]));
            err = fmax(err, fabs(g[k] - c->grad[k]));
        }
        CHECK_MSG(err <= 1e-5 * mx + 1e-30,
                  "fox NH %d T %d tiles %dx%d: dc differs by %.3g (max |ref| %.3g)", NH, T, Br, Bc,
                  err, mx);
    }
    free(g);
    free(ds);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

// dpb from its table [T, NH] (the MLP's output; here random): the fill bit for bit against
// ordo_dist_bias, the table's gradient (each distance's sum of dS) against the op's.
static void test_dpb(int NH, int T) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *table = ordo_params_add(&p, "dpb.table", 2, (int[]){T, NH}, 0);
    ordo_params_alloc(&p);
    for (size_t k = 0; k < table->n; k++) table->data[k] = (float)ordo_rng_normal(&rng);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *ref = ordo_dist_bias(&ctx, table, NULL, 1, T); // (NH, T, T)
    float *ds = random_ds(NH, T);
    ordo_backward_from(&ctx, ref, ds);
    ordo_bias_tiles bt = *ordo_distance_tiles(&ctx, table, NULL, 1, T);
    CHECK(bt.bias.n_grad == (size_t)T * NH && bt.n_params == 1 && bt.params[0] == table);
    char what[64];
    snprintf(what, sizeof what, "dpb NH %d T %d", NH, T);
    check_fill(what, &bt, ref->data, NH, T, 0);
    check_grad(what, &bt, ds, NH, T, 1e-5);
    free(ds);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

// --pos-random: each scheme's tiles at per-row positions (B = 2 rows, each a sorted draw of T
// of [0, 3T + 5)) against the materialized ops at the same positions ([B, NH, T, T]): alibi
// and dpb through ordo_dist_bias (fill bit for bit), fire through
// ordo_fire_dist_at and its MLP (fill to float rounding); the gradients summed over the rows.
static void test_at(ordo_pos scheme, int NH, int T) {
    int B = 2, n = 3 * T + 5, W = 8;
    int32_t *pos = malloc((size_t)B * T * sizeof *pos);
    for (int b = 0; b < B; b++) ordo_random_positions(pos + b * T, T, n, ordo_rng_u64(&rng));
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *t[6] = {0};
    if (scheme == ORDO_POS_DPB) t[0] = ordo_params_add(&p, "dpb", 2, (int[]){n, NH}, 0);
    if (scheme == ORDO_POS_FIRE) {
        const char *names[6] = {"w1", "b1", "w2", "b2", "c", "lmul"};
        int shapes[6][2] = {{1, W}, {W, 0}, {W, NH}, {NH, 0}, {1, 0}, {1, 0}};
        for (int k = 0; k < 6; k++)
            t[k] = ordo_params_add(&p, names[k], shapes[k][1] ? 2 : 1, shapes[k], 0);
    }
    ordo_params_alloc(&p);
    for (int k = 0; k < 6 && t[k]; k++)
        for (size_t i = 0; i < t[k]->n; i++) t[k]->data[i] = (float)ordo_rng_normal(&rng);
    if (scheme == ORDO_POS_FIRE) t[4]->data[0] = 0.7f, t[5]->data[0] = (float)(T / 2.0 / 512.0);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *ref;
    ordo_bias_tiles *bt;
    if (scheme == ORDO_POS_FIRE) { // L = T/2: rows on both sides of max(pos_i, L)
        ordo_tensor *u = ordo_fire_dist_at(&ctx, t[4], t[5], pos, B, T, 512.0f, 1e-6f);
        ordo_tensor *hid = ordo_relu(&ctx, ordo_linear(&ctx, u, t[0], t[1]));
        ref = ordo_pair_bias(&ctx, ordo_linear(&ctx, hid, t[2], t[3]), T);
        bt = ordo_fire_tiles_at(&ctx, t[0], t[1], t[2], t[3], t[4], t[5], pos, B, T, n, 512.0f,
                                1e-6f);
    } else {
        ordo_tensor *x;
        if (scheme == ORDO_POS_ALIBI) {
            x = alibi_table(&ctx, NH, n);
            bt = ordo_distance_tiles(&ctx, x, pos, B, T);
        } else {
            x = t[0];
            bt = ordo_distance_tiles(&ctx, t[0], pos, B, T);
        }
        ref = ordo_dist_bias(&ctx, x, pos, B, T);
    }
    float *ds = random_ds(B * NH, T);
    if (scheme != ORDO_POS_ALIBI) ordo_backward_from(&ctx, ref, ds);
    char what[80];
    snprintf(what, sizeof what, "%s at positions NH %d T %d", ordo_pos_name(scheme), NH, T);
    // fire: the MLP as GEMMs (materialized) or its pieces in double (tiles): rounding apart
    check_fill_rows(what, bt, ref->data, B, NH, T, scheme == ORDO_POS_FIRE ? 1e-5 : 0);
    if (scheme == ORDO_POS_ALIBI)
        CHECK(bt->bias.grad == NULL && bt->n_params == 0);
    else // fire: as test_fire measures the tiles and the ops against each other
        check_grad_rows(what, bt, ds, B, NH, T, scheme == ORDO_POS_FIRE ? 2e-4 : 1e-5);
    free(ds);
    free(pos);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

// The tiles of every bias row of the scheme table (ORDO_POS_F_BIAS), by the constructor its
// prepare calls; 1 when p's tiles are checked (here or, for cope, elsewhere), 0 for a row
// without a bias. No default: a scheme added to the enum is a -Wswitch warning here, and a
// bias row that returns 0 fails main's check.
static int test_row(ordo_pos p, int T) {
    switch (p) {
    case ORDO_POS_ALIBI:
        test_alibi(4, T);
        test_alibi(6, T); // not a power of 2: interleaved slopes
        return 1;
    case ORDO_POS_FIRE:
        test_fire(4, T, 0.1, 1.0, 0);      // L = 512: every row below L
        test_fire(4, T, 0.7, 0.1, 0);      // L = 51.2: rows on both sides
        test_fire(3, T, -0.3, -0.0625, 1); // L = 32 exactly (a tie at row 32), c < 0
        return 1;
    case ORDO_POS_FOX:
        test_fox(3, T);
        return 1;
    case ORDO_POS_DPB:
        test_dpb(3, T);
        return 1;
    case ORDO_POS_T5:     // their tables through ordo_distance_tiles: dpb's case (the tables
    case ORDO_POS_KERPLE: // themselves: test_ops_gradcheck, test_schemes)
    case ORDO_POS_KERPLE_POWER:
    case ORDO_POS_SANDWICH:
        return 1;
    case ORDO_POS_COPE:
        return 1; // its tiles read qkv: test_ops_gradcheck (g_cope)
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_COUNT:
        return 0;
    }
    return 0;
}

// The same at positions, for the bias rows that take them (ORDO_POS_F_POSITIONS).
static int test_row_at(ordo_pos p, int T) {
    switch (p) {
    case ORDO_POS_ALIBI:
    case ORDO_POS_DPB:
    case ORDO_POS_FIRE:
        test_at(p, 3, T);
        return 1;
    case ORDO_POS_T5:
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
    case ORDO_POS_SANDWICH:
        return 1; // ordo_distance_tiles at positions: dpb's case
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_FOX:
    case ORDO_POS_COPE:
    case ORDO_POS_COUNT:
        return 0;
    }
    return 0;
}

int main(void) {
    const int Ts[] = {1, 2, 37, 129, 300};
    for (int p = 0; p < ORDO_POS_COUNT; p++) {
        const ordo_pos_scheme *row = ordo_pos_schemes[p];
        int bias = (row->flags & ORDO_POS_F_BIAS) != 0,
            at = bias && (row->flags & ORDO_POS_F_POSITIONS);
        int covered = 1, covered_at = 1;
        // each case its own draws, so that a row added to the table moves no other's
        for (int x = 0; x < 5; x++) {
            ordo_rng_seed(&rng, 25 + 1000 * (uint64_t)p + (uint64_t)Ts[x]);
            covered &= test_row(row->pos, Ts[x]) == bias;
            ordo_rng_seed(&rng, 26 + 1000 * (uint64_t)p + (uint64_t)Ts[x]);
            covered_at &= test_row_at(row->pos, Ts[x]) == at;
        }
        CHECK_MSG(covered && covered_at,
                  "%s: its bias tiles have %s case here (flags: bias %d, positions %d)",
                  ordo_pos_name(row->pos), bias ? "no" : "a", bias, at);
    }
    ordo_rng_seed(&rng, 25);
    test_fire_nan();
    TEST_MAIN_END();
}
