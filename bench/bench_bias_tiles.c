// The cost of each scheme's bias tiles (models/bias_tiles.c) next to the score tile they are
// added to: ns per causal pair and head of fill and of grad, over every causal tile of one
// length, one thread; beside them a direct FIRE tile (the MLP evaluated per pair, its hidden
// layer computed once per pair for all heads) and the tile's q k^T product at head sizes 32
// and 64, the work the kernel does per pair anyway. dpb (a table per distance) and fox (per
// batch row: c_i - c_j from prefix sums) too, and the tiles at drawn positions (--pos-random,
// positions from [0, 4T): pair by pair) for the schemes that take them. The schemes are the
// table's bias rows (models/pos/table.c); one without a case here is an error.
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
#include "models/pos/scheme.h"
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

// The tensors every scheme's tiles are made from (main fills them).
typedef struct bench_in {
    ordo_ctx *ctx;
    ordo_tensor *w1, *b1, *w2, *b2, *c, *lm; // fire's MLP and distance
    ordo_tensor *table;                      // a table by distance [4T, NH], 0..4T-1
    ordo_tensor *fc;                         // fox's prefix sums (1, NH, T)
    const int32_t *pos;                      // one row's draw of T of [0, 4T)
} bench_in;

// Reports p's tiles (at: at the drawn positions): fill, and grad where it has parameters. 0
// for a scheme without a case here; no default, so that -Wswitch names a new scheme.
static int bench_row(ordo_pos p, int at, const bench_in *x) {
    ordo_ctx *ctx = x->ctx;
    int n = 4 * T; // the tiles at positions: tables over the distances 0..4T-1
    ordo_bias_tiles *bt = NULL;
    char fill[48], grad[48];
    snprintf(fill, sizeof fill, "%s fill%s", ordo_pos_name(p), at ? " at positions" : "");
    snprintf(grad, sizeof grad, "%s grad%s", ordo_pos_name(p), at ? " at positions" : "");
    switch (p) {
    case ORDO_POS_ALIBI:
        // a constant table by distance, as alibi's -m_h d is: no gradient
        bt = ordo_distance_tiles(ctx, ordo_tensor_wrap(ctx, x->table->data, 2, x->table->shape),
                                 at ? x->pos : NULL, 1, T);
        break;
    case ORDO_POS_FIRE:
        bt = at ? ordo_fire_tiles_at(ctx, x->w1, x->b1, x->w2, x->b2, x->c, x->lm, x->pos, 1, T, n,
                                     ORDO_FIRE_INIT_L, ORDO_FIRE_EPS)
                : ordo_fire_tiles(ctx, x->w1, x->b1, x->w2, x->b2, x->c, x->lm, T, ORDO_FIRE_INIT_L,
                                  ORDO_FIRE_EPS);
        snprintf(fill, sizeof fill, "fire fill%s", at ? " at positions" : " (piecewise)");
        snprintf(grad, sizeof grad, "fire grad%s", at ? " at positions" : " (piecewise)");
        break;
    case ORDO_POS_T5: // a table per distance on the tape, as each of these makes it
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
    case ORDO_POS_DPB:
    case ORDO_POS_SANDWICH:
        bt = ordo_distance_tiles(ctx, x->table, at ? x->pos : NULL, 1, T);
        break;
    case ORDO_POS_FOX:
        bt = ordo_fox_tiles(ctx, x->fc);
        break;          // per batch row: no positions
    case ORDO_POS_COPE: // its tiles read a layer's qkv, not a table: not timed here
        printf("%-30s not timed here (its tiles read the layer's qkv)\n", "cope");
        return 1;
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_COUNT:
        return 0;
    }
    if (!bt) return 0;
    report(fill, bt, do_fill, NULL, 1);
    if (bt->bias.grad) report(grad, bt, do_grad, NULL, 1);
    return 1;
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
    ordo_tensor *w1 = ordo_params_add(&p, "w1", 2, (int[]){1, W}, 0);
    ordo_tensor *b1 = ordo_params_add(&p, "b1", 1, (int[]){W}, 0);
    ordo_tensor *w2 = ordo_params_add(&p, "w2", 2, (int[]){W, NH}, 0);
    ordo_tensor *b2 = ordo_params_add(&p, "b2", 1, (int[]){NH}, 0);
    ordo_tensor *c = ordo_params_add(&p, "c", 1, (int[]){1}, 0);
    ordo_tensor *lm = ordo_params_add(&p, "l", 1, (int[]){1}, 0);
    ordo_tensor *table = ordo_params_add(&p, "table", 2, (int[]){4 * T, NH}, 0); // 0..4T-1
    ordo_tensor *fc = ordo_params_add(&p, "fox.c", 3, (int[]){1, NH, T}, 0);     // (B, NH, T)
    ordo_params_alloc(&p);
    for (int k = 0; k < p.count; k++)
        for (size_t x = 0; x < p.t[k]->n; x++)
            p.t[k]->data[x] = (float)(2 * ordo_rng_uniform(&r) - 1);
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
    bench_in in = {&ctx, w1, b1, w2, b2, c, lm, table, fc, pos};
    int saved = ordo_blas_single_thread_begin(), missing = 0;
    printf("T %d, tiles %dx%d, %d heads, one thread\n", T, BT, BT, NH);
    for (int at = 0; at < 2; at++) // the tiles at 0..T-1, then at positions
        for (int k = 0; k < ORDO_POS_COUNT; k++) {
            const ordo_pos_scheme *row = ordo_pos_schemes[k];
            if (!(row->flags & ORDO_POS_F_BIAS)) continue;
            if (at && !(row->flags & ORDO_POS_F_POSITIONS)) continue;
            if (!bench_row(row->pos, at, &in)) {
                fprintf(stderr, "bench_bias_tiles: no case for %s's tiles%s\n",
                        ordo_pos_name(row->pos), at ? " at positions" : "");
                missing++;
            }
        }
    ordo_bias_tiles fi =
        *ordo_fire_tiles(&ctx, w1, b1, w2, b2, c, lm, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
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
    return missing ? 1 : 0;
}
