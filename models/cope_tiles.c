// CoPE's bias in the fused attention's tiles (--pos cope; framework/flash.h's bias of the
// row's scores): the same positions and bias as the materialized ops (framework/ops_cope.c),
// without a T x T table. Per (b, h), row i, keys j <= i, g_ij = sigmoid(scale q_i . k_j):
//   p_ij = min(sum_{l = j..i} g_il, P - 1),  bias = interp(lp_i, p_ij),  lp_i[k] = q_i . e[h, k]
//
// Forward: the kernel hands a query block's key blocks from the diagonal down, so each row's
// running sum of gates is carried from key i backward, in double, and p_ij is that sum rounded
// once (the materialized op sums in the same order: the same p for the same gates). Once the
// sum passes P - 1 it stays there for every earlier key: the row is clamped from that key on,
// and its earlier keys get lp_i[P - 1] without a gate. The row's first unclamped key and its
// sum from there to i (R_i) are saved, [B, NH, T] each.
//
// Backward: the kernel's order hands each row its key blocks ascending. From the row's first
// unclamped key j* on, p_ij = R_i - sum_{j* <= l < j} g_il (a running prefix in double, rounded
// once: the forward's float but for double rounding), and the gates' gradient dg_il = sum_{j <= l}
// dp_ij is the running prefix of dp_ij = dz_ij (lp_i[ceil] - lp_i[floor]); dS gets dg g (1 -
// g). Clamped keys pass nothing through p (floor = ceil). The bias's own gradient dlp [T, P]
// is summed per row over the (b, h) and turned at its end into dq += dlp e_h and de_h +=
// dlp^T q (unscaled q, the reference's query @ pos_emb).
//
// Workspace per thread: forward lp [64, P], the rows' carries and one row's gates; backward
// lp and dlp [T, P], two running sums per row and the tile's gates and positions [64, 64].
// The gates and the interpolation run as vectorised passes over a row's keys (cope.h); only
// the running sums go key by key.
#include <math.h>
#include <string.h>

#include "models/bias_tiles.h"

#include "framework/blas.h"
#include "models/pos/cope_math.h"
#include "sys/error.h"

#define BLK ORDO_FLASH_BLOCK

typedef struct cope_state {
    const float *qkv; // (B, T, 3C): q unscaled for lp, the kernel's scores for the gates
    const float *e;   // (NH, P, hs)
    double *R;        // (B, NH, T): each row's sum of gates from its first unclamped key to i
    int32_t *first;   // (B, NH, T): the row's first unclamped key (0: none clamped)
    int T, C, NH, P, hs;
    ordo_attn_row_bias rows;
} cope_state;

static size_t up16(size_t n) {
    return (n + 15) / 16 * 16;
}

// The causal columns of row i in a tile from column j0 with nc columns: [0, return).
static int causal_end(int i, int j0, int nc) {
    int e = i - j0 + 1;
    return e < 0 ? 0 : e < nc ? e : nc;
}

// lp [n, P] = q_i . e[h, k] for rows i0..i0+n-1 (q e_h^T), in products of one query block
// (BLK rows) each: backward makes each row's values with the same call as forward did, so the
// two read the same floats. (ordo_gemm runs on one thread here: flash.c's kernels hold
// OpenBLAS to one thread inside their parallel loops.)
static void lp_rows(float *lp, const cope_state *st, int b, int h, int i0, int n) {
    int C3 = 3 * st->C, hs = st->hs, P = st->P;
    const float *eh = st->e + (size_t)h * P * hs;
    for (int r = 0; r < n; r += BLK) {
        int m = n - r < BLK ? n - r : BLK;
        const float *q = st->qkv + ((size_t)b * st->T + i0 + r) * C3 + h * hs;
        ordo_gemm(0, 1, m, P, hs, 1.0f, q, C3, eh, hs, 0.0f, lp + (size_t)r * P, P);
    }
}

// ---- forward. work: lp (BLK, P) | carry (BLK) doubles | first (BLK) int32, -1: not clamped |
// a row's gates, then positions (BLK)

typedef struct fwd_work {
    float *lp;
    double *carry;
    int32_t *first;
    float *g; // (BLK) one row of a tile at a time
} fwd_work;

static fwd_work fwd_layout(const cope_state *st, float *work) {
    fwd_work w = {.lp = work};
    w.carry = (double *)(work + up16((size_t)BLK * st->P));
    w.first = (int32_t *)(w.carry + BLK);
    w.g = (float *)(w.first + BLK);
    return w;
}

static void fwd_begin(const void *self, int b, int h, int i0, int nr, float *work) {
    const cope_state *st = self;
    fwd_work w = fwd_layout(st, work);
    lp_rows(w.lp, st, b, h, i0, nr);
    for (int r = 0; r < BLK; r++) w.carry[r] = 0.0, w.first[r] = -1;
}

// One row's keys c = e-1 down to 0 of a tile: the running sum of gates, then the bias at it;
// from the key where the sum passes P - 1 on, lp[P - 1]. The gates and the bias are loops the
// compiler vectorises; only the sum between them runs key by key (g: BLK floats of scratch,
// the gates and then, in place, the positions).
static void fwd_row(const cope_state *st, float *row, int e, int j0, const float *lp, double *carry,
                    int32_t *first, float *g) {
    int c = e - 1, P = st->P;
    if (*first < 0) {
        ordo_cope_gates(g, row, e);
        double acc = *carry;
        for (; c >= 0; c--) {
            double next = acc + g[c];
            if (!(next <= P - 1)) { // past the clamp; a NaN count too, never an index
                *first = j0 + c + 1;
                break;
            }
            acc = next;
            g[c] = (float)acc; // p_ij, rounded once
        }
        *carry = acc;
        ordo_cope_add_interp(row + c + 1, lp, g + c + 1, e - c - 1);
    }
    float last = lp[P - 1]; // = ordo_cope_interp(lp, P - 1)
    for (; c >= 0; c--) row[c] += last;
}

static void fwd_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                     int ld, float *work) {
    const cope_state *st = self;
    fwd_work w = fwd_layout(st, work);
    for (int r = 0; r < nr; r++)
        fwd_row(st, s + (size_t)r * ld, causal_end(i0 + r, j0, nc), j0, w.lp + (size_t)r * st->P,
                &w.carry[r], &w.first[r], w.g);
}

static void fwd_end(const void *self, int b, int h, int i0, int nr, float *work) {
    const cope_state *st = self;
    fwd_work w = fwd_layout(st, work);
    size_t at = ((size_t)b * st->NH + h) * st->T + i0; // this block's rows: this thread's
    for (int r = 0; r < nr; r++) {
        st->R[at + r] = w.carry[r];
        st->first[at + r] = w.first[r] < 0 ? 0 : w.first[r];
    }
}

// ---- backward. work: lp, dlp (T, P) | pre_g, pre_dp (T) doubles | tile g, p (BLK, BLK)

typedef struct bwd_work {
    const double *R;      // this (b, h)'s rows of st->R
    const int32_t *first; // and of st->first
    float *lp, *dlp;
    double *pre_g, *pre_dp; // per row: sum of gates from the first unclamped key; of dp
    float *tg, *tp;         // the tile's gates and positions, from fill for grad
} bwd_work;

static bwd_work bwd_layout(const cope_state *st, int b, int h, float *work) {
    size_t TP = up16((size_t)st->T * st->P), T2 = up16(2 * (size_t)st->T);
    size_t at = ((size_t)b * st->NH + h) * st->T;
    bwd_work w = {.R = st->R + at, .first = st->first + at, .lp = work, .dlp = work + TP};
    w.pre_g = (double *)(work + 2 * TP);
    w.pre_dp = (double *)(work + 2 * TP + T2);
    w.tg = work + 2 * TP + 2 * T2;
    w.tp = w.tg + BLK * BLK;
    return w;
}

static void bwd_begin(const void *self, int b, int h, float *work) {
    const cope_state *st = self;
    bwd_work w = bwd_layout(st, b, h, work);
    lp_rows(w.lp, st, b, h, 0, st->T);
    memset(w.dlp, 0, (size_t)st->T * st->P * sizeof(float));
    for (int i = 0; i < st->T; i++) w.pre_g[i] = w.pre_dp[i] = 0.0;
}

static void bwd_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                     int ld, float *work) {
    const cope_state *st = self;
    ORDO_ASSERT(nr <= BLK && ld <= BLK);
    bwd_work w = bwd_layout(st, b, h, work);
    int P = st->P;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), first = w.first[i];
        const float *lp = w.lp + (size_t)i * P;
        float *row = s + (size_t)r * ld, *tg = w.tg + (size_t)r * ld, *tp = w.tp + (size_t)r * ld;
        int c0 = first - j0 < 0 ? 0 : first - j0 < e ? first - j0 : e; // clamped before
        for (int c = 0; c < c0; c++) {                                 // clamped: no gate needed
            row[c] += lp[P - 1];
            tp[c] = (float)(P - 1);
        }
        ordo_cope_gates(tg + c0, row + c0, e - c0);
        double pre = w.pre_g[i], R = w.R[i];
        for (int c = c0; c < e; c++) {
            double sum = R - pre; // p_ij: R_i less the gates from the first unclamped key to j
            pre += tg[c];
            // clamped to [0, P - 1], a NaN to P - 1 as the forward took it: never an index
            tp[c] = !(sum <= P - 1) ? (float)(P - 1) : sum < 0 ? 0.0f : (float)sum;
        }
        w.pre_g[i] = pre;
        ordo_cope_add_interp(row + c0, lp, tp + c0, e - c0);
    }
}

static void bwd_grad(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *ds,
                     int ld, float *work, float *g) {
    const cope_state *st = self;
    bwd_work w = bwd_layout(st, b, h, work);
    int P = st->P;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), first = w.first[i];
        const float *lp = w.lp + (size_t)i * P;
        float *dlp = w.dlp + (size_t)i * P, *row = ds + (size_t)r * ld;
        const float *tg = w.tg + (size_t)r * ld, *tp = w.tp + (size_t)r * ld;
        for (int c = 0; c < e; c++) {
            float dz = row[c], p = tp[c], f = floorf(p), wt = p - f;
            int fi = (int)f, ci = (int)ceilf(p);
            dlp[fi] += dz * (1.0f - wt);
            dlp[ci] += dz * wt;
            if (j0 + c < first) continue;          // clamped: nothing through p, and dg = 0 before
            w.pre_dp[i] += dz * (lp[ci] - lp[fi]); // dg_ij = sum_{j' <= j} dp_ij'
            row[c] += (float)w.pre_dp[i] * tg[c] * (1.0f - tg[c]);
        }
    }
}

// lp = q e_h^T: dq += dlp e_h (rows of stride ldq), g = de_h [P, hs] += dlp^T q
static void bwd_end(const void *self, int b, int h, float *work, float *dq, int ldq, float *g) {
    const cope_state *st = self;
    bwd_work w = bwd_layout(st, b, h, work);
    int T = st->T, P = st->P, hs = st->hs, C3 = 3 * st->C;
    const float *eh = st->e + (size_t)h * P * hs, *q = st->qkv + (size_t)b * T * C3 + h * hs;
    ordo_gemm(0, 0, T, hs, P, 1.0f, w.dlp, P, eh, hs, 1.0f, dq, ldq);
    if (g) ordo_gemm(1, 0, P, hs, T, 1.0f, w.dlp, P, q, C3, 1.0f, g, hs);
}

ordo_bias_tiles *ordo_cope_tiles(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *e) {
    ORDO_ASSERT(qkv->ndim == 3 && e->ndim == 3 && e->shape[1] >= 1);
    int B = qkv->shape[0], T = qkv->shape[1], C = qkv->shape[2] / 3;
    ORDO_ASSERT(e->shape[0] * e->shape[2] == C);
    cope_state *st = ordo_arena_calloc(&ctx->arena, sizeof *st);
    *st = (cope_state){.qkv = qkv->data,
                       .e = e->data,
                       .T = T,
                       .C = C,
                       .NH = e->shape[0],
                       .P = e->shape[1],
                       .hs = e->shape[2]};
    size_t n = (size_t)B * st->NH * T;
    st->R = ordo_arena_alloc(&ctx->arena, n * sizeof(double));
    st->first = ordo_arena_alloc(&ctx->arena, n * sizeof(int32_t));
    st->rows = (ordo_attn_row_bias){.fwd_floats = up16((size_t)BLK * st->P) + 4 * BLK,
                                    .bwd_floats = 2 * up16((size_t)T * st->P) +
                                                  2 * up16(2 * (size_t)T) + 2 * BLK * BLK,
                                    .fwd_begin = fwd_begin,
                                    .fwd_fill = fwd_fill,
                                    .fwd_end = fwd_end,
                                    .bwd_begin = bwd_begin,
                                    .bwd_fill = bwd_fill,
                                    .bwd_grad = bwd_grad,
                                    .bwd_end = bwd_end};
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    out->bias = (ordo_attn_bias){
        .self = st, .n_grad = (size_t)st->P * st->hs, .per_head = 1, .rows = &st->rows};
    out->params[0] = e;
    out->n_params = 1;
    return out;
}
