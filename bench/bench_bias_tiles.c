// The cost of each scheme's bias tiles (models/bias_tiles.c) next to the score tile they are
// added to: ns per causal pair and head of fill and of grad, over every causal tile of one
// length, one thread; beside them a direct FIRE tile (the MLP evaluated per pair, its hidden
// layer computed once per pair for all heads) and the tile's q k^T product at head sizes 32
// and 64, the work the kernel does per pair anyway. dpb (a table per distance) and fox (per
// batch row: c_i - c_j from prefix sums) too, and the tiles at drawn positions (--pos-random,
// positions from [0, 4T): pair by pair) for the schemes that take them.
//
//   bench_bias_tiles [T [tile]]     defaults: T 2048, tile 64
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/blas.h"
#include "sys/clock.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "models/bias_tiles.h"
#include "models/positional.h"

static int T = 2048, BT = 64;
#define NH 4

typedef void (*tile_fn)(const ordo_bias_tiles *bt, int h, int i0, int nr, int j0, int nc, float *s,
                        float *g, void *u);

// Seconds for one pass over every causal tile of every head.
static double sweep(const ordo_bias_tiles *bt, tile_fn f, float *s, float *g, void *u,
                    double *pairs) {
    double t0 = ordo_now_s();
    *pairs = 0;
    for (int h = 0; h < NH; h++)
        for (int i0 = 0; i0 < T; i0 += BT)
            for (int j0 = 0; j0 <= i0; j0 += BT) {
                f(bt, h, i0, BT, j0, BT, s, g, u);
                *pairs += j0 < i0 ? (double)BT * BT : BT * (BT + 1) / 2.0;
            }
    return ordo_now_s() - t0;
}

static void do_fill(const ordo_bias_tiles *bt, int h, int i0, int nr, int j0, int nc, float *s,
                    float *g, void *u) {
    bt->bias.fill(bt->bias.self, 0, h, i0, nr, j0, nc, s, nc);
}
static void do_grad(const ordo_bias_tiles *bt, int h, int i0, int nr, int j0, int nc, float *s,
                    float *g, void *u) {
    bt->bias.grad(bt->bias.self, 0, h, i0, nr, j0, nc, s, nc, g);
}

// The direct FIRE tile: per pair u, the 32 hidden units once, then every head's output (all
// heads of the tile at once, so this runs once per tile, not per head: its time is divided
// by NH below).
typedef struct direct {
    const float *w1, *b1, *w2, *b2;
    double ca, L;
    float *out; // (NH, BT, BT)
} direct;

static void do_direct(const ordo_bias_tiles *bt, int h, int i0, int nr, int j0, int nc, float *s,
                      float *g, void *u) {
    direct *d = u;
    if (h) return; // all heads at h = 0
    int W = ORDO_FIRE_WIDTH;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r;
        double den = log1p(d->ca * fmax(i, d->L)) + 1e-6;
        for (int c = 0; c < nc && j0 + c <= i; c++) {
            float uu = (float)(log1p(d->ca * (i - j0 - c)) / den), hid[ORDO_FIRE_WIDTH];
            for (int k = 0; k < W; k++) {
                float x = uu * d->w1[k] + d->b1[k];
                hid[k] = x > 0 ? x : 0;
            }
            for (int hh = 0; hh < NH; hh++) {
                float o = d->b2[hh];
                for (int k = 0; k < W; k++) o += hid[k] * d->w2[k * NH + hh];
                d->out[((size_t)hh * BT + r) * BT + c] = o;
            }
        }
    }
}

typedef struct qk {
    const float *q, *k;
    int hs;
} qk;

static void do_qk(const ordo_bias_tiles *bt, int h, int i0, int nr, int j0, int nc, float *s,
                  float *g, void *u) {
    qk *x = u;
    ordo_gemm(0, 1, nr, nc, x->hs, 1.0f, x->q, x->hs, x->k, x->hs, 0.0f, s, nc);
}

static void report(const char *what, const ordo_bias_tiles *bt, tile_fn f, void *u, double per) {
    static float s[256 * 256], *g; // g: up to dpb's table at positions, 4T x NH
    if (!g) g = calloc((size_t)4 * T * NH + 4096, sizeof(float));
    double pairs, best = 1e30;
    for (int rep = 0; rep < 9; rep++) {
        double t = sweep(bt, f, s, g, u, &pairs);
        best = t < best ? t : best;
    }
    printf("%-30s %8.2f ns per pair and head\n", what, best / pairs * 1e9 * per);
}

int main(int argc, char **argv) {
    if (argc > 1) T = atoi(argv[1]);
    if (argc > 2) BT = atoi(argv[2]);
    if (T < 1 || BT < 1 || BT > 256) {
        fprintf(stderr, "usage: bench_bias_tiles [T [tile <= 256]]\n");
        return 2;
    }
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    int W = ORDO_FIRE_WIDTH;
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *table = ordo_params_add(&p, "t5", 2, (int[]){ORDO_T5_BUCKETS, NH}, 0);
    ordo_tensor *r1 = ordo_params_add(&p, "r1", 1, (int[]){NH}, 0);
    ordo_tensor *r2 = ordo_params_add(&p, "r2", 1, (int[]){NH}, 0);
    ordo_tensor *w1 = ordo_params_add(&p, "w1", 2, (int[]){1, W}, 0);
    ordo_tensor *b1 = ordo_params_add(&p, "b1", 1, (int[]){W}, 0);
    ordo_tensor *w2 = ordo_params_add(&p, "w2", 2, (int[]){W, NH}, 0);
    ordo_tensor *b2 = ordo_params_add(&p, "b2", 1, (int[]){NH}, 0);
    ordo_tensor *c = ordo_params_add(&p, "c", 1, (int[]){1}, 0);
    ordo_tensor *lm = ordo_params_add(&p, "l", 1, (int[]){1}, 0);
    ordo_tensor *dt = ordo_params_add(&p, "dpb", 2, (int[]){4 * T, NH}, 0);  // 0..4T-1
    ordo_tensor *fc = ordo_params_add(&p, "fox.c", 3, (int[]){1, NH, T}, 0); // (B, NH, T)
    ordo_params_alloc(&p);
    for (int k = 0; k < p.count; k++)
        for (size_t x = 0; x < p.t[k]->n; x++)
            p.t[k]->data[x] = (float)(2 * ordo_rng_uniform(&r) - 1);
    for (int h = 0; h < NH; h++) r1->data[h] = 0.5f + h * 0.1f, r2->data[h] = 0.3f + h * 0.2f;
    c->data[0] = ORDO_FIRE_INIT_C;
    lm->data[0] = 0.25f;         // L = 128: most rows of a long T past it
    for (int h = 0; h < NH; h++) // prefix sums of log f, f in (0.5, 1)
        for (int t = 0; t < T; t++)
            fc->data[(size_t)h * T + t] = (t ? fc->data[(size_t)h * T + t - 1] : 0) -
                                          (float)(0.05 + 0.6 * ordo_rng_uniform(&r));
    int32_t *pos = malloc((size_t)T * sizeof *pos); // one row's draw of T of [0, 4T)
    ordo_random_positions(pos, T, 4 * T, 7);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_bias_tiles al = *ordo_alibi_tiles(&ctx, NH, T), t5 = *ordo_t5_tiles(&ctx, table, T),
                    ke = *ordo_kerple_tiles(&ctx, r1, r2, T, 0),
                    kp = *ordo_kerple_tiles(&ctx, r1, r2, T, 1),
                    fi = *ordo_fire_tiles(&ctx, w1, b1, w2, b2, c, lm, T, ORDO_FIRE_INIT_L,
                                          ORDO_FIRE_EPS),
                    dp = *ordo_distance_tiles(
                        &ctx, ordo_tensor_wrap(&ctx, dt->data, 2, (int[]){T, NH}), T),
                    fx = *ordo_fox_tiles(&ctx, fc);
    int n = 4 * T; // the tiles at positions: tables over the distances 0..4T-1
    ordo_bias_tiles al_at = *ordo_alibi_tiles_at(&ctx, NH, NH, pos, 1, T, n),
                    t5_at = *ordo_t5_tiles_at(&ctx, table, pos, 1, T, n),
                    ke_at = *ordo_kerple_tiles_at(&ctx, r1, r2, pos, 1, T, n, 0),
                    dp_at = *ordo_distance_tiles_at(&ctx, dt, pos, 1, T),
                    fi_at = *ordo_fire_tiles_at(&ctx, w1, b1, w2, b2, c, lm, pos, 1, T, n,
                                                ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    int saved = ordo_blas_single_thread_begin();
    printf("T %d, tiles %dx%d, %d heads, one thread\n", T, BT, BT, NH);
    report("alibi fill", &al, do_fill, NULL, 1);
    report("t5 fill", &t5, do_fill, NULL, 1);
    report("t5 grad", &t5, do_grad, NULL, 1);
    report("kerple fill", &ke, do_fill, NULL, 1);
    report("kerple grad", &ke, do_grad, NULL, 1);
    report("kerple-power fill", &kp, do_fill, NULL, 1);
    report("fire fill (piecewise)", &fi, do_fill, NULL, 1);
    report("fire grad (piecewise)", &fi, do_grad, NULL, 1);
    report("dpb fill", &dp, do_fill, NULL, 1);
    report("dpb grad", &dp, do_grad, NULL, 1);
    report("fox fill", &fx, do_fill, NULL, 1);
    report("fox grad", &fx, do_grad, NULL, 1);
    report("alibi fill at positions", &al_at, do_fill, NULL, 1);
    report("t5 fill at positions", &t5_at, do_fill, NULL, 1);
    report("t5 grad at positions", &t5_at, do_grad, NULL, 1);
    report("kerple fill at positions", &ke_at, do_fill, NULL, 1);
    report("kerple grad at positions", &ke_at, do_grad, NULL, 1);
    report("dpb fill at positions", &dp_at, do_fill, NULL, 1);
    report("dpb grad at positions", &dp_at, do_grad, NULL, 1);
    report("fire fill at positions", &fi_at, do_fill, NULL, 1);
    report("fire grad at positions", &fi_at, do_grad, NULL, 1);
    direct d = {w1->data,
                b1->data,
                w2->data,
                b2->data,
                ORDO_FIRE_INIT_C,
                128,
                malloc((size_t)NH * BT * BT * sizeof(float))};
    report("fire fill (direct MLP)", &fi, do_direct, &d, 1); // one call per tile covers NH
    float *q = malloc((size_t)BT * 64 * sizeof(float)),
          *k = malloc((size_t)BT * 64 * sizeof(float));
    for (int x = 0; x < BT * 64; x++) q[x] = k[x] = (float)ordo_rng_uniform(&r);
    qk q32 = {q, k, 32}, q64 = {q, k, 64};
    report("q k^T tile, hs 32", &fi, do_qk, &q32, 1);
    report("q k^T tile, hs 64", &fi, do_qk, &q64, 1);
    ordo_blas_single_thread_end(saved);
    free(d.out);
    free(pos);
    free(q);
    free(k);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
    return 0;
}
