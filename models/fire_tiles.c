// FIRE's score bias as tile functions for the fused attention (framework/flash.h), at positions
// 0..T-1 and at drawn ones (--pos-random). Split from bias_tiles.c, whose conventions it keeps:
// tiles of rows i0 + r and columns j0 + c, causal columns only, each grad call summing its
// tile in double and adding to g once. What fire keeps is a numerator per distance, a
// normaliser per query row and its MLP as a piecewise-linear function of u; nothing T x T.
#include <math.h>
#include <string.h>

#include "models/bias_tiles.h"

#include "framework/ops.h"
#include "models/pos/ops.h"
#include "models/positional.h"

// The causal columns of row i in a tile from column j0 with nc columns: [0, return).
static int causal_end(int i, int j0, int nc) {
    int e = i - j0 + 1;
    return e < 0 ? 0 : e < nc ? e : nc;
}

// ---- fire. u(i, j) = num[d] / den[i]: a numerator per distance, a normaliser per row. The
// MLP f_h(u) = b2_h + sum_k w2[k,h] relu(w1_k u + b1_k) is piecewise linear in the scalar u,
// with a kink where some w1_k u + b1_k changes sign (t_k = -b1_k / w1_k). Between two kinks it
// is a_h u + b_h, so a pair costs one lookup of its segment and one multiply-add per head, not
// the 32 + 32 NH multiply-adds of the MLP; the segment's coefficients are made once per build
// (in double). Backward likewise: per segment the sums of dS and of dS u are all the weights'
// gradients need (unit k is either on or off over a whole segment).
//
// Segments: the kinks sorted, t[0] <= ... <= t[nk-1]; u lies in segment s = #{k: t[k] < u}.
// Unit k with w1_k > 0 is on (w1_k u + b1_k > 0) exactly in the segments s > rank(k); with
// w1_k < 0 in the segments s <= rank(k), its kink stored one double below t_k so that u = t_k
// (where the unit is at 0) falls above it; with w1_k = 0 in all of them when b1_k > 0, in
// none otherwise. So a unit is on where its pre-activation is > 0 in exact arithmetic, and
// its gradient at 0 is 0, as torch's relu (the materialized path decides on the float
// pre-activation, which can differ within rounding of the kink).

#define FIRE_MAX_SEG (ORDO_FIRE_MAX_WIDTH + 1)

typedef struct fire_state {
    int NH, T, W, nk;
    // by distance, stored backwards (x = T - 1 - d), so that a row's columns read them forwards
    // (column c of row i: x = T - 1 - i + j0 + c); loops over both then vectorise
    double *num;  // (T) log(|c| d + 1)
    double *dnum; // (T) its derivative in c: sgn(c) d / (|c| d + 1)
    double *den;  // (T) log(|c| max(i, L) + 1) + eps by row
    double *kc;   // (T) d den/dc / den^2 by row
    double *kL;   // (T) d den/d lmul / den^2 by row (the chain through L = |lmul init_L|)
    double t[ORDO_FIRE_MAX_WIDTH]; // (nk) the kinks, ascending
    double *a, *b;                 // (NH, nk + 1) slope and intercept of f_h
    double w1[ORDO_FIRE_MAX_WIDTH], b1[ORDO_FIRE_MAX_WIDTH];
    const float *w2;                  // (W, NH) the parameter, read by grad
    int on_from[ORDO_FIRE_MAX_WIDTH]; // unit k is on in segments on_from..on_to-1
    int on_to[ORDO_FIRE_MAX_WIDTH];
} fire_state;

// The segment of u, searched from `s` (the previous pair's, nk + 1 to start afresh): within a
// row of a tile u falls as the column rises, so the walk down is short.
static int fire_segment(const fire_state *st, float u, int s) {
    if (s > st->nk) { // binary search: the number of kinks below u
        int lo = 0, hi = st->nk;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (st->t[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    while (s > 0 && !(st->t[s - 1] < u)) s--;
    while (s < st->nk && st->t[s] < u) s++;
    return s;
}

// u of pair (i, j) as ordo_fire_dist rounds it.
static inline float fire_u(const fire_state *st, int i, int d) {
    return (float)(st->num[st->T - 1 - d] / st->den[i]);
}

// The segment of a row's first causal column (the largest u) and of its last (the smallest):
// when they agree, the whole row is one linear piece and the loops below vectorise.
static int fire_row_segments(const fire_state *st, int i, int j0, int e, int *last) {
    *last = fire_segment(st, fire_u(st, i, i - j0 - (e - 1)), st->nk + 1);
    return fire_segment(st, fire_u(st, i, i - j0), st->nk + 1);
}

// The end of the run of piece s that starts at column c of row i: the first column after c
// whose u is at or below t[s-1] (u does not rise along a row), e for piece 0. Binary search.
static int fire_run_end(const fire_state *st, int i, int j0, int c, int e, int s) {
    if (s == 0) return e;
    double t = st->t[s - 1];
    int lo = c + 1, hi = e;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (!(t < fire_u(st, i, i - j0 - mid)))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

// row[c] += A u + B over a run of one piece, u = (float)(num[c] / den). A function of its own,
// with restrict pointers, so that GCC 12 vectorises it.
__attribute__((noinline)) static void fire_fill_run(float *restrict row, const double *restrict num,
                                                    double den, double A, double B, int n) {
    for (int c = 0; c < n; c++) {
        float u = (float)(num[c] / den);
        row[c] += (float)(A * u + B);
    }
}

static void fire_fill(const void *self, int batch, int h, int i0, int nr, int j0, int nc, float *s,
                      int ld) {
    const fire_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    int nseg = st->nk + 1;
    const double *a = st->a + (size_t)h * nseg, *b = st->b + (size_t)h * nseg;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), last;
        if (e == 0) continue;
        float *row = s + (size_t)r * ld;
        const double *num = st->num + (st->T - 1 - i + j0); // num[c]: column c's
        int seg = fire_row_segments(st, i, j0, e, &last);
        // the row in runs of one piece each (usually one run: the whole row)
        for (int c = 0; c < e;) {
            int end = seg == last ? e : fire_run_end(st, i, j0, c, e, seg);
            fire_fill_run(row + c, num + c, st->den[i], a[seg], b[seg], end - c);
            c = end;
            if (c < e) seg = fire_segment(st, fire_u(st, i, i - j0 - c), seg);
        }
    }
}

// The sums over a run of one piece of dS, dS u, dS dnum and dS num (u = (float)(num / den)), in
// 8 partial sums each (two vectors of 4, GCC's vector extension: GCC 12 does not vectorise the
// plain loop well), added up in a fixed order.
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
static void fire_row_sums(double *out, const float *restrict ds, const double *restrict num,
                          const double *restrict dnum, double den, int e) {
    v4d v0[2] = {{0}}, v1[2] = {{0}}, vc[2] = {{0}}, vn[2] = {{0}};
    int c = 0;
    for (; c + 8 <= e; c += 8)
        for (int k = 0; k < 2; k++) {
            v4f gf;
            v4d nm, dn;
            memcpy(&gf, ds + c + 4 * k, sizeof gf);
            memcpy(&nm, num + c + 4 * k, sizeof nm);
            memcpy(&dn, dnum + c + 4 * k, sizeof dn);
            v4d gs = __builtin_convertvector(gf, v4d);
            v4d u = __builtin_convertvector(__builtin_convertvector(nm / den, v4f), v4d);
            v0[k] += gs;
            v1[k] += gs * u;
            vc[k] += gs * dn;
            vn[k] += gs * nm;
        }
    double t0 = 0, t1 = 0, tc = 0, tn = 0;
    for (; c < e; c++) {
        double gs = ds[c], u = (float)(num[c] / den);
        t0 += gs;
        t1 += gs * u;
        tc += gs * dnum[c];
        tn += gs * num[c];
    }
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < 4; l++) t0 += v0[k][l], t1 += v1[k][l], tc += vc[k][l], tn += vn[k][l];
    out[0] = t0;
    out[1] = t1;
    out[2] = tc;
    out[3] = tn;
}

static void fire_grad_units(const fire_state *st, int h, const double *S0, const double *S1,
                            double sum_c, double sum_L, float *g);

// g = [dw1 (W), db1 (W), dw2 (W, NH), db2 (NH), dc (1), dlmul (1)].
static void fire_grad(const void *self, int batch, int h, int i0, int nr, int j0, int nc,
                      const float *ds, int ld, float *g) {
    const fire_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    int nseg = st->nk + 1;
    const double *a = st->a + (size_t)h * nseg;
    double S0[FIRE_MAX_SEG] = {0}, S1[FIRE_MAX_SEG] = {0}; // sum of dS, of dS u, per segment
    double sum_c = 0, sum_L = 0;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), last;
        if (e == 0) continue;
        const float *row = ds + (size_t)r * ld;
        int seg = fire_row_segments(st, i, j0, e, &last);
        // dL/du = dS a_seg; through u = num/den: row sums of dL/du dnum and of dL/du num, run
        // by run of one piece (a_seg factors out of a run's sums)
        size_t x0 = (size_t)st->T - 1 - i + j0; // column c: num[x0 + c]
        double rc = 0, rn = 0;
        for (int c = 0; c < e;) {
            int end = seg == last ? e : fire_run_end(st, i, j0, c, e, seg);
            double sums[4];
            fire_row_sums(sums, row + c, st->num + x0 + c, st->dnum + x0 + c, st->den[i], end - c);
            S0[seg] += sums[0];
            S1[seg] += sums[1];
            rc += a[seg] * sums[2];
            rn += a[seg] * sums[3];
            c = end;
            if (c < e) seg = fire_segment(st, fire_u(st, i, i - j0 - c), seg);
        }
        sum_c += rc / st->den[i] - rn * st->kc[i];
        sum_L -= rn * st->kL[i];
    }
    fire_grad_units(st, h, S0, S1, sum_c, sum_L, g);
}

// The weights' gradients of head h from the per-segment sums S0 (of dS), S1 (of dS u), and
// c's and lmul's from theirs, added into g once.
static void fire_grad_units(const fire_state *st, int h, const double *S0, const double *S1,
                            double sum_c, double sum_L, float *g) {
    int nseg = st->nk + 1, W = st->W, NH = st->NH;
    // prefix sums, so that each unit's segments [on_from, on_to) cost one subtraction
    double P0[FIRE_MAX_SEG + 1], P1[FIRE_MAX_SEG + 1];
    P0[0] = P1[0] = 0;
    for (int s = 0; s < nseg; s++) P0[s + 1] = P0[s] + S0[s], P1[s + 1] = P1[s] + S1[s];
    float *dw1 = g, *db1 = g + W, *dw2 = g + 2 * W, *db2 = dw2 + (size_t)W * NH;
    for (int k = 0; k < W; k++) {
        double z0 = P0[st->on_to[k]] - P0[st->on_from[k]];
        double z1 = P1[st->on_to[k]] - P1[st->on_from[k]];
        double w2 = st->w2[(size_t)k * NH + h];
        dw2[(size_t)k * NH + h] += (float)(st->w1[k] * z1 + st->b1[k] * z0);
        dw1[k] += (float)(w2 * z1);
        db1[k] += (float)(w2 * z0);
    }
    db2[h] += (float)P0[nseg];
    db2[NH] += (float)sum_c;     // dc
    db2[NH + 1] += (float)sum_L; // dlmul (kL carries the chain to lmul)
}

static int all_finite(const ordo_tensor *t) {
    for (size_t i = 0; i < t->n; i++)
        if (!isfinite(t->data[i])) return 0;
    return 1;
}

// The kinks of the hidden units, sorted, and each unit's segments.
static void fire_segments(fire_state *st) {
    int W = st->W, idx[ORDO_FIRE_MAX_WIDTH], nk = 0;
    double tk[ORDO_FIRE_MAX_WIDTH];
    for (int k = 0; k < W; k++) {
        if (st->w1[k] == 0) continue;
        // w1 < 0: on where u < t, strictly (at u = t the unit is at 0, and its gradient 0 as
        // torch's relu gives it): the kink one double below t puts u = t above it
        double t = -st->b1[k] / st->w1[k];
        tk[k] = st->w1[k] > 0 ? t : nextafter(t, -INFINITY);
        idx[nk++] = k;
    }
    for (int x = 1; x < nk; x++) // insertion sort by kink: at most 64 of them
        for (int y = x; y > 0 && tk[idx[y - 1]] > tk[idx[y]]; y--) {
            int p = idx[y - 1];
            idx[y - 1] = idx[y];
            idx[y] = p;
        }
    for (int x = 0; x < nk; x++) st->t[x] = tk[idx[x]];
    st->nk = nk;
    for (int k = 0; k < W; k++) { // w1 = 0: always on (b1 > 0) or always off
        st->on_from[k] = 0;
        st->on_to[k] = st->b1[k] > 0 ? nk + 1 : 0;
    }
    for (int x = 0; x < nk; x++) {
        int k = idx[x];
        st->on_from[k] = st->w1[k] > 0 ? x + 1 : 0;
        st->on_to[k] = st->w1[k] > 0 ? nk + 1 : x + 1;
    }
}

// The state of fire's tiles with tables for distances and query positions 0..T-1.
static fire_state *fire_state_new(ordo_ctx *ctx, ordo_tensor *w1, ordo_tensor *b1, ordo_tensor *w2,
                                  ordo_tensor *b2, ordo_tensor *c, ordo_tensor *lmul, int T,
                                  float init_L, float eps) {
    int W = (int)w1->n, NH = (int)b2->n;
    ORDO_ASSERT(W >= 1 && W <= ORDO_FIRE_MAX_WIDTH && NH >= 1 && NH <= 256 && T >= 1);
    ORDO_ASSERT(b1->n == (size_t)W && w2->ndim == 2 && w2->shape[0] == W && w2->shape[1] == NH);
    ORDO_ASSERT(c->n == 1 && lmul->n == 1);
    fire_state *st = ordo_arena_alloc(&ctx->arena, sizeof *st);
    st->NH = NH;
    st->T = T;
    st->W = W;
    st->w2 = w2->data;
    double *tab = ordo_arena_alloc(&ctx->arena, 5 * (size_t)T * sizeof(double));
    st->num = tab;
    st->dnum = tab + T;
    st->den = tab + 2 * (size_t)T;
    st->kc = tab + 3 * (size_t)T;
    st->kL = tab + 4 * (size_t)T;
    // as ordo_fire_dist and its backward: |c|, L = |lmul init_L|, d max(i, L)/dL = 1/2 at a tie
    double cv = c->data[0], ca = fabs(cv), sc = (cv > 0) - (cv < 0);
    double lv = (double)lmul->data[0] * init_L, L = fabs(lv), sl = (lv > 0) - (lv < 0);
    for (int x = 0; x < T; x++) {
        st->num[T - 1 - x] = log1p(ca * x);
        st->dnum[T - 1 - x] = sc * x / (ca * x + 1);
        double nrm = fmax((double)x, L), den = log1p(ca * nrm) + eps;
        double wL = L > x ? 1.0 : L == x ? 0.5 : 0.0;
        st->den[x] = den;
        st->kc[x] = sc * nrm / (ca * nrm + 1) / (den * den);
        st->kL[x] = wL * ca / (ca * nrm + 1) / (den * den) * sl * init_L;
    }
    for (int k = 0; k < W; k++) {
        st->w1[k] = w1->data[k];
        st->b1[k] = b1->data[k];
    }
    int finite = all_finite(w1) && all_finite(b1);
    if (finite)
        fire_segments(st);
    else // no order among NaN kinks: one segment, and the bias NaN as the MLP's would be
        st->nk = 0;
    int nseg = st->nk + 1;
    st->a = ordo_arena_alloc(&ctx->arena, (size_t)NH * nseg * sizeof(double));
    st->b = ordo_arena_alloc(&ctx->arena, (size_t)NH * nseg * sizeof(double));
    if (finite) {
        for (int h = 0; h < NH; h++)
            for (int s = 0; s < nseg; s++) {
                double sa = 0, sb = b2->data[h];
                for (int k = 0; k < W; k++)
                    if (st->on_from[k] <= s && s < st->on_to[k]) {
                        double v = w2->data[(size_t)k * NH + h];
                        sa += v * st->w1[k];
                        sb += v * st->b1[k];
                    }
                st->a[(size_t)h * nseg + s] = sa;
                st->b[(size_t)h * nseg + s] = sb;
            }
    } else {
        for (int k = 0; k < W; k++) st->on_from[k] = 0, st->on_to[k] = 1;
        for (int h = 0; h < NH; h++) st->a[h] = st->b[h] = NAN;
    }
    return st;
}

// The bias of fire_state st with its fill and grad; params the six tensors.
static ordo_bias_tiles *fire_bias_tiles(ordo_ctx *ctx, const void *self, const fire_state *st,
                                        ordo_attn_bias base, ordo_tensor *const *p) {
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    int W = st->W, NH = st->NH;
    out->bias = base;
    out->bias.self = self;
    out->bias.n_grad = 2 * (size_t)W + (size_t)W * NH + NH + 2;
    for (int k = 0; k < 6; k++) out->params[k] = p[k];
    out->n_params = 6;
    return out;
}

ordo_bias_tiles *ordo_fire_tiles(ordo_ctx *ctx, ordo_tensor *w1, ordo_tensor *b1, ordo_tensor *w2,
                                 ordo_tensor *b2, ordo_tensor *c, ordo_tensor *lmul, int T,
                                 float init_L, float eps) {
    fire_state *st = fire_state_new(ctx, w1, b1, w2, b2, c, lmul, T, init_L, eps);
    ordo_tensor *p[6] = {w1, b1, w2, b2, c, lmul};
    return fire_bias_tiles(ctx, st, st, (ordo_attn_bias){.fill = fire_fill, .grad = fire_grad}, p);
}
// fire: u = num(d) / den(pos[b, i]), its tables (fire_state) over distances and query
// positions 0..n-1, the pieces of the MLP as above; a pair at a time.
typedef struct fire_at_state {
    const fire_state *f; // tables of length n (f->T = n)
    const int32_t *pos;  // (B, T)
    int B, T;
} fire_at_state;

static void fire_at_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                         int ld) {
    const fire_at_state *at = self;
    const fire_state *st = at->f;
    ORDO_ASSERT(b >= 0 && b < at->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= at->T);
    const int32_t *p = at->pos + (size_t)b * at->T;
    int nseg = st->nk + 1, n = st->T;
    const double *a = st->a + (size_t)h * nseg, *bb = st->b + (size_t)h * nseg;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), pi = p[i], seg = nseg; // nseg: search afresh
        float *row = s + (size_t)r * ld;
        for (int c = 0; c < e; c++) {
            float u = (float)(st->num[n - 1 - (pi - p[j0 + c])] / st->den[pi]);
            seg = fire_segment(st, u, seg);
            row[c] += (float)(a[seg] * u + bb[seg]);
        }
    }
}

static void fire_at_grad(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                         const float *ds, int ld, float *g) {
    const fire_at_state *at = self;
    const fire_state *st = at->f;
    ORDO_ASSERT(b >= 0 && b < at->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= at->T);
    const int32_t *p = at->pos + (size_t)b * at->T;
    int nseg = st->nk + 1, n = st->T;
    const double *a = st->a + (size_t)h * nseg;
    double S0[FIRE_MAX_SEG] = {0}, S1[FIRE_MAX_SEG] = {0}, sum_c = 0, sum_L = 0;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), pi = p[i], seg = nseg;
        const float *row = ds + (size_t)r * ld;
        double rc = 0, rn = 0, den = st->den[pi];
        for (int c = 0; c < e; c++) {
            int x = n - 1 - (pi - p[j0 + c]);
            float u = (float)(st->num[x] / den);
            seg = fire_segment(st, u, seg);
            S0[seg] += row[c];
            S1[seg] += row[c] * (double)u;
            rc += a[seg] * row[c] * st->dnum[x]; // dL/du = dS a_seg, through u = num/den
            rn += a[seg] * row[c] * st->num[x];
        }
        sum_c += rc / den - rn * st->kc[pi];
        sum_L -= rn * st->kL[pi];
    }
    fire_grad_units(st, h, S0, S1, sum_c, sum_L, g);
}

ordo_bias_tiles *ordo_fire_tiles_at(ordo_ctx *ctx, ordo_tensor *w1, ordo_tensor *b1,
                                    ordo_tensor *w2, ordo_tensor *b2, ordo_tensor *c,
                                    ordo_tensor *lmul, const int32_t *pos, int B, int T, int n,
                                    float init_L, float eps) {
    ORDO_ASSERT(pos && B >= 1 && T >= 1 && n >= T);
    fire_state *st = fire_state_new(ctx, w1, b1, w2, b2, c, lmul, n, init_L, eps);
    fire_at_state *at = ordo_arena_alloc(&ctx->arena, sizeof *at);
    *at = (fire_at_state){.f = st, .pos = pos, .B = B, .T = T};
    ordo_tensor *p[6] = {w1, b1, w2, b2, c, lmul};
    return fire_bias_tiles(ctx, at, st,
                           (ordo_attn_bias){.fill = fire_at_fill, .grad = fire_at_grad}, p);
}
