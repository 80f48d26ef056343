// The score biases as tile functions for the fused attention (framework/flash.h). Each scheme
// keeps only what depends on one index: alibi its slopes, t5 a value per (head, distance)
// below 128 and the far bucket's, kerple a value and two partial derivatives per (head,
// distance), dpb a value per (head, distance), fox a prefix sum per row; fire is in
// fire_tiles.c. Deliberately nothing T x T and nothing per pair kept.
//
// Tiles: rows i = i0 + r (r < nr), columns j = j0 + c (c < nc), entries s[r*ld + c]. The
// causal columns of row i are c < i - j0 + 1; the entries above the diagonal are left as they
// are (the kernel masks them), and their dS is zero, so grad skips them too.
//
// Gradients: each call sums its tile's contributions in double and adds them to g once, so
// the result of a call depends only on its arguments (the kernel fixes the order of calls).
#include <math.h>
#include <string.h>

#include "models/bias_tiles.h"

#include "framework/ops.h"
#include "models/pos/ops.h"
#include "models/positional.h"

#define LANES 8 // partial sums per reduction: a fixed order that vectorises

// The causal columns of row i in a tile from column j0 with nc columns: [0, return).
static int causal_end(int i, int j0, int nc) {
    int e = i - j0 + 1;
    return e < 0 ? 0 : e < nc ? e : nc;
}

// ---- t5: table[bucket(d), h]. Buckets are log-spaced up to ORDO_T5_MAX_DISTANCE and every
// distance from there on falls in the last one, so a value per distance below it suffices.

#define T5_NEAR ORDO_T5_MAX_DISTANCE

typedef struct t5_state {
    int NH, T;
    int32_t bucket[T5_NEAR]; // ordo_t5_bucket(d), d < T5_NEAR
    float *near;             // (NH, T5_NEAR): table[bucket[d], h]
    float *far;              // (NH): table[ORDO_T5_BUCKETS - 1, h]
} t5_state;

// The first causal column of row i whose distance is below T5_NEAR (columns before it are far).
static int t5_near_begin(int i, int j0, int e) {
    int b = i - j0 - T5_NEAR + 1; // d = i - j0 - c < T5_NEAR  <=>  c > i - j0 - T5_NEAR
    return b < 0 ? 0 : b < e ? b : e;
}

static void t5_fill(const void *self, int batch, int h, int i0, int nr, int j0, int nc, float *s,
                    int ld) {
    const t5_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    const float *near = st->near + (size_t)h * T5_NEAR;
    float far = st->far[h];
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), b = t5_near_begin(i, j0, e);
        float *row = s + (size_t)r * ld;
        for (int c = 0; c < b; c++) row[c] += far;
        for (int c = b; c < e; c++) row[c] += near[i - j0 - c];
    }
}

// g = dtable [ORDO_T5_BUCKETS, NH], as the table is laid out.
static void t5_grad(const void *self, int batch, int h, int i0, int nr, int j0, int nc,
                    const float *ds, int ld, float *g) {
    const t5_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    double acc[ORDO_T5_BUCKETS] = {0};
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), b = t5_near_begin(i, j0, e);
        const float *row = ds + (size_t)r * ld;
        double far = 0;
        for (int c = 0; c < b; c++) far += row[c];
        acc[ORDO_T5_BUCKETS - 1] += far;
        for (int c = b; c < e; c++) acc[st->bucket[i - j0 - c]] += row[c];
    }
    for (int k = 0; k < ORDO_T5_BUCKETS; k++) g[(size_t)k * st->NH + h] += (float)acc[k];
}

ordo_bias_tiles *ordo_t5_tiles(ordo_ctx *ctx, ordo_tensor *table, int T) {
    ORDO_ASSERT(table->ndim == 2 && table->shape[0] == ORDO_T5_BUCKETS && T >= 1);
    // every distance from T5_NEAR on is in the last bucket (the bucket grows with the distance)
    ORDO_ASSERT(ordo_t5_bucket(T5_NEAR) == ORDO_T5_BUCKETS - 1);
    int NH = table->shape[1];
    t5_state *st = ordo_arena_alloc(&ctx->arena, sizeof *st);
    st->NH = NH;
    st->T = T;
    st->near = ordo_arena_alloc(&ctx->arena, (size_t)NH * T5_NEAR * sizeof(float));
    st->far = ordo_arena_alloc(&ctx->arena, (size_t)NH * sizeof(float));
    for (int d = 0; d < T5_NEAR; d++) st->bucket[d] = ordo_t5_bucket(d);
    for (int h = 0; h < NH; h++) {
        for (int d = 0; d < T5_NEAR; d++)
            st->near[(size_t)h * T5_NEAR + d] = table->data[(size_t)st->bucket[d] * NH + h];
        st->far[h] = table->data[(size_t)(ORDO_T5_BUCKETS - 1) * NH + h];
    }
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    out->bias = (ordo_attn_bias){
        .self = st, .fill = t5_fill, .grad = t5_grad, .n_grad = (size_t)ORDO_T5_BUCKETS * NH};
    out->params[0] = table;
    out->n_params = 1;
    return out;
}

// ---- kerple: a value per (head, distance), and the partial derivatives in r1 and r2

typedef struct kerple_state {
    int NH, T;
    // by (head, distance), the distances stored backwards (x = T - 1 - d) so that a row's
    // columns read them forwards (column c of row i: x = T - 1 - i + j0 + c)
    float *v;        // (NH, T) the bias, as ordo_kerple_bias rounds it
    double *d1, *d2; // (NH, T) its derivatives in r1 and r2
} kerple_state;

static void kerple_fill(const void *self, int batch, int h, int i0, int nr, int j0, int nc,
                        float *s, int ld) {
    const kerple_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    const float *v = st->v + (size_t)h * st->T;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc);
        float *row = s + (size_t)r * ld;
        const float *vr = v + (st->T - 1 - i + j0);
        for (int c = 0; c < e; c++) row[c] += vr[c];
    }
}

// The sums over a row of dS d1 and dS d2 in LANES partial sums each: a fixed order that
// vectorises (a function of its own, with restrict pointers, so that GCC 12 does).
__attribute__((noinline)) static void kerple_row_sums(double *out, const float *restrict ds,
                                                      const double *restrict d1,
                                                      const double *restrict d2, int e) {
    double v1[LANES] = {0}, v2[LANES] = {0};
    int c = 0;
    for (; c + LANES <= e; c += LANES)
        for (int l = 0; l < LANES; l++) {
            v1[l] += ds[c + l] * d1[c + l];
            v2[l] += ds[c + l] * d2[c + l];
        }
    for (; c < e; c++) {
        v1[0] += ds[c] * d1[c];
        v2[0] += ds[c] * d2[c];
    }
    out[0] = out[1] = 0;
    for (int l = 0; l < LANES; l++) out[0] += v1[l], out[1] += v2[l];
}

// g = [dr1 (NH), dr2 (NH)].
static void kerple_grad(const void *self, int batch, int h, int i0, int nr, int j0, int nc,
                        const float *ds, int ld, float *g) {
    const kerple_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    const double *d1 = st->d1 + (size_t)h * st->T, *d2 = st->d2 + (size_t)h * st->T;
    double s1 = 0, s2 = 0;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc);
        size_t x0 = (size_t)st->T - 1 - i + j0; // column c: d1[x0 + c]
        double sums[2];
        kerple_row_sums(sums, ds + (size_t)r * ld, d1 + x0, d2 + x0, e);
        s1 += sums[0];
        s2 += sums[1];
    }
    g[h] += (float)s1;
    g[st->NH + h] += (float)s2;
}

ordo_bias_tiles *ordo_kerple_tiles(ordo_ctx *ctx, ordo_tensor *r1, ordo_tensor *r2, int T,
                                   int power) {
    ORDO_ASSERT(r1->ndim == 1 && r2->ndim == 1 && r1->n == r2->n && T >= 1);
    int NH = (int)r1->n;
    kerple_state *st = ordo_arena_alloc(&ctx->arena, sizeof *st);
    size_t n = (size_t)NH * T;
    st->NH = NH;
    st->T = T;
    st->v = ordo_arena_alloc(&ctx->arena, n * sizeof(float));
    st->d1 = ordo_arena_alloc(&ctx->arena, n * sizeof(double));
    st->d2 = ordo_arena_alloc(&ctx->arena, n * sizeof(double));
    for (int h = 0; h < NH; h++)
        for (int d = 0; d < T; d++) {
            size_t x = (size_t)h * T + T - 1 - d;
            st->v[x] = (float)ordo_kerple_value(r1->data[h], r2->data[h], d, power, &st->d1[x],
                                                &st->d2[x]);
        }
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    out->bias = (ordo_attn_bias){
        .self = st, .fill = kerple_fill, .grad = kerple_grad, .n_grad = 2 * (size_t)NH};
    out->params[0] = r1;
    out->params[1] = r2;
    out->n_params = 2;
    return out;
}

// ---- a value per (distance, head) from a table [n, NH] that the scheme made once per forward
// (dpb's MLP, sandwich's constants): the tiles only read it; backward sums each tile's dS per
// distance, in double, into the table's gradient, through which the tape then takes what made
// the table once (not once per pair).

typedef struct dist_state {
    int B, T, NH, n;
    const int32_t *pos; // (B, T), or NULL: 0..T-1
    // (NH, n) table[d, h] with the distances backwards (x = n - 1 - d), so that a row's columns
    // read them forwards (column c of row i at 0..T-1: x = n - 1 - i + j0 + c)
    float *v;
} dist_state;

static void dist_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                      int ld) {
    const dist_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    const float *v = st->v + (size_t)h * st->n;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc);
        float *row = s + (size_t)r * ld;
        const float *vr = v + (st->n - 1 - i + j0);
        for (int c = 0; c < e; c++) row[c] += vr[c];
    }
}

// acc[c] += ds[c], c < e: a function of its own, with restrict pointers, so that GCC 12
// vectorises it.
__attribute__((noinline)) static void dist_row_add(double *restrict acc, const float *restrict ds,
                                                   int e) {
    for (int c = 0; c < e; c++) acc[c] += ds[c];
}

// g = dtable [n, NH], as the table is laid out. Each distance of the tile is one diagonal,
// summed along it in double (rows in order) and added to g once; the rows are added whole
// into the tile's sums by distance, which adds each diagonal in that same row order.
#define DIST_TILE_MAX 512 // nr + nc: the kernel's tiles are 64 x 64
static void dist_grad(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                      const float *ds, int ld, float *g) {
    const dist_state *st = self;
    ORDO_ASSERT(h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T && j0 >= 0);
    ORDO_ASSERT(nr + nc <= DIST_TILE_MAX);
    int dlo = i0 - (j0 + nc - 1), dhi = i0 + nr - 1 - j0; // the tile's distances
    if (dlo < 0) dlo = 0;
    double acc[DIST_TILE_MAX] = {0}; // distance d at y = dhi - d
    for (int r = 0; r < nr; r++) {   // row r's column c is at y = nr - 1 - r + c
        int e = causal_end(i0 + r, j0, nc);
        dist_row_add(acc + (nr - 1 - r), ds + (size_t)r * ld, e);
    }
    for (int d = dlo; d <= dhi; d++) g[(size_t)d * st->NH + h] += (float)acc[dhi - d];
}

// At drawn positions the pair (i, j) of batch row b is at distance d = pos[b, i] - pos[b, j]
// (>= i - j: the positions increase along a row), below n. Rows of one tile read scattered
// distances, so the loops are scalar: training at random positions pays that, eval (0..T-1)
// runs the tiles above.
static void dist_fill_at(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                         int ld) {
    const dist_state *st = self;
    ORDO_ASSERT(b >= 0 && b < st->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T);
    const int32_t *p = st->pos + (size_t)b * st->T;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc);
        float *row = s + (size_t)r * ld;
        const float *vi = st->v + (size_t)h * st->n + (st->n - 1 - p[i]); // column j: vi[p[j]]
        for (int c = 0; c < e; c++) row[c] += vi[p[j0 + c]];
    }
}

// Each pair added in float, as a tile's pairs scatter over the distances (no per-distance sum
// along a diagonal, as at 0..T-1).
static void dist_grad_at(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                         const float *ds, int ld, float *g) {
    const dist_state *st = self;
    ORDO_ASSERT(b >= 0 && b < st->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T);
    const int32_t *p = st->pos + (size_t)b * st->T;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), pi = p[i];
        const float *row = ds + (size_t)r * ld;
        for (int c = 0; c < e; c++) g[(size_t)(pi - p[j0 + c]) * st->NH + h] += row[c];
    }
}

ordo_bias_tiles *ordo_distance_tiles(ordo_ctx *ctx, ordo_tensor *table, const int32_t *pos, int B,
                                     int T) {
    ORDO_ASSERT(table->ndim == 2 && T >= 1 && B >= 1);
    int n = table->shape[0], NH = table->shape[1];
    ORDO_ASSERT(n >= T && NH >= 1);
    dist_state *st = ordo_arena_alloc(&ctx->arena, sizeof *st);
    *st = (dist_state){.B = B, .T = T, .NH = NH, .n = n, .pos = pos};
    st->v = ordo_arena_alloc(&ctx->arena, (size_t)NH * n * sizeof(float));
    for (int h = 0; h < NH; h++)
        for (int d = 0; d < n; d++)
            st->v[(size_t)h * n + n - 1 - d] = table->data[(size_t)d * NH + h];
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    out->bias = (ordo_attn_bias){.self = st, .fill = pos ? dist_fill_at : dist_fill};
    if (ordo_needs_grad(ctx, table, NULL, NULL)) { // a constant table: no gradient to make
        out->bias.grad = pos ? dist_grad_at : dist_grad;
        out->bias.n_grad = (size_t)n * NH;
        out->params[0] = table;
        out->n_params = 1;
    }
    return out;
}

// ---- fox: c_i - c_j from the prefix sums c [B, NH, T] of the forget gate's log f, per
// (batch row, head): the one bias that depends on b (per_batch). The fill subtracts in float
// as ordo_diff_bias does (the same floats); grad adds each row's dS sum to dc_i and takes each
// column's from dc_j, in double within the tile, into the (b, h) slice [T] that the kernel
// hands it.

typedef struct fox_state {
    const float *c; // (B, NH, T)
    int B, NH, T;
} fox_state;

static void fox_fill(const void *self, int batch, int h, int i0, int nr, int j0, int nc, float *s,
                     int ld) {
    const fox_state *st = self;
    ORDO_ASSERT(batch >= 0 && batch < st->B && h >= 0 && h < st->NH && i0 + nr <= st->T);
    const float *c = st->c + ((size_t)batch * st->NH + h) * st->T;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc);
        float ci = c[i], *row = s + (size_t)r * ld;
        const float *cj = c + j0;
        for (int x = 0; x < e; x++) row[x] += ci - cj[x];
    }
}

static void fox_grad(const void *self, int batch, int h, int i0, int nr, int j0, int nc,
                     const float *ds, int ld, float *g) {
    const fox_state *st = self;
    ORDO_ASSERT(batch >= 0 && batch < st->B && h >= 0 && h < st->NH && i0 + nr <= st->T);
    for (int r = 0; r < nr; r++) { // row sums: dc_i
        int e = causal_end(i0 + r, j0, nc);
        const float *dr = ds + (size_t)r * ld;
        double row = 0.0;
        for (int x = 0; x < e; x++) row += dr[x];
        g[i0 + r] += (float)row;
    }
    // column sums: dc_j, 64 columns at a time (the kernel's tile is one such block), read
    // row by row so that the loop runs along memory
    for (int x0 = 0; x0 < nc; x0 += 64) {
        int w = nc - x0 < 64 ? nc - x0 : 64;
        double col[64] = {0};
        for (int r = 0; r < nr; r++) {
            int e = causal_end(i0 + r, j0 + x0, w);
            const float *dr = ds + (size_t)r * ld + x0;
            for (int x = 0; x < e; x++) col[x] += dr[x];
        }
        for (int x = 0; x < w; x++) g[j0 + x0 + x] -= (float)col[x];
    }
}

ordo_bias_tiles *ordo_fox_tiles(ordo_ctx *ctx, ordo_tensor *c) {
    ORDO_ASSERT(c->ndim == 3);
    fox_state *st = ordo_arena_alloc(&ctx->arena, sizeof *st);
    *st = (fox_state){c->data, c->shape[0], c->shape[1], c->shape[2]};
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    out->bias = (ordo_attn_bias){
        .self = st, .fill = fox_fill, .grad = fox_grad, .n_grad = (size_t)st->T, .per_batch = 1};
    out->params[0] = c;
    out->n_params = 1;
    return out;
}

// ---- at drawn positions (--pos-random): the pair (i, j) of batch row b is at distance
// d = pos[b, i] - pos[b, j] (>= i - j: the positions increase along a row), below n, the
// tables' length. alibi, t5, kerple and dpb are a value per (head, distance) there, read by
// one fill; their grads differ only in where a pair's dS goes (at_grad_*). Rows of one tile read
// scattered distances, so the loops are scalar: training at random positions pays that, eval
// (0..T-1) runs the tiles above.

typedef struct at_state {
    int B, T, NH, n;
    const int32_t *pos; // (B, T)
    float *v;           // (NH, n) the bias by (head, distance)
    int32_t *bucket;    // t5: (n) the bucket of each distance
    double *d1, *d2;    // kerple: (NH, n) the derivatives in r1 and r2
} at_state;

static void at_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                    int ld) {
    const at_state *st = self;
    ORDO_ASSERT(b >= 0 && b < st->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T);
    const int32_t *p = st->pos + (size_t)b * st->T;
    const float *v = st->v + (size_t)h * st->n;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), pi = p[i];
        float *row = s + (size_t)r * ld;
        for (int c = 0; c < e; c++) row[c] += v[pi - p[j0 + c]];
    }
}

// Each grad as its parameters are laid out, a pair's dS going where its distance d says.

// g = dtable [ORDO_T5_BUCKETS, NH]: the sum per bucket in double, added once.
static void at_grad_t5(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                       const float *ds, int ld, float *g) {
    const at_state *st = self;
    ORDO_ASSERT(b >= 0 && b < st->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T);
    const int32_t *p = st->pos + (size_t)b * st->T;
    double acc[ORDO_T5_BUCKETS] = {0};
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), pi = p[i];
        const float *row = ds + (size_t)r * ld;
        for (int c = 0; c < e; c++) acc[st->bucket[pi - p[j0 + c]]] += row[c];
    }
    for (int k = 0; k < ORDO_T5_BUCKETS; k++) g[(size_t)k * st->NH + h] += (float)acc[k];
}

// g = [dr1 (NH), dr2 (NH)]: dS times the derivatives at each pair's distance, in double.
static void at_grad_kerple(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                           const float *ds, int ld, float *g) {
    const at_state *st = self;
    ORDO_ASSERT(b >= 0 && b < st->B && h >= 0 && h < st->NH && i0 >= 0 && i0 + nr <= st->T);
    const int32_t *p = st->pos + (size_t)b * st->T;
    const double *d1 = st->d1 + (size_t)h * st->n, *d2 = st->d2 + (size_t)h * st->n;
    double s1 = 0, s2 = 0;
    for (int r = 0; r < nr; r++) {
        int i = i0 + r, e = causal_end(i, j0, nc), pi = p[i];
        const float *row = ds + (size_t)r * ld;
        for (int c = 0; c < e; c++) {
            int d = pi - p[j0 + c];
            s1 += row[c] * d1[d];
            s2 += row[c] * d2[d];
        }
    }
    g[h] += (float)s1;
    g[st->NH + h] += (float)s2;
}

// The grad functions' type (ordo_attn_bias's grad).
typedef void at_grad_fn(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                        const float *ds, int ld, float *g);

// A state with its (NH, n) value table allocated, and the bias around it with `grad` (NULL:
// no parameters).
static ordo_bias_tiles *at_new(ordo_ctx *ctx, at_grad_fn *grad, int NH, const int32_t *pos, int B,
                               int T, int n, at_state **stp) {
    ORDO_ASSERT(NH >= 1 && NH <= 256 && B >= 1 && T >= 1 && n >= T && pos);
    at_state *st = ordo_arena_calloc(&ctx->arena, sizeof *st);
    *st = (at_state){.B = B, .T = T, .NH = NH, .n = n, .pos = pos};
    st->v = ordo_arena_alloc(&ctx->arena, (size_t)NH * n * sizeof(float));
    ordo_bias_tiles *out = ordo_arena_calloc(&ctx->arena, sizeof *out);
    out->bias = (ordo_attn_bias){.self = st, .fill = at_fill, .grad = grad, .n_grad = 0};
    *stp = st;
    return out;
}

ordo_bias_tiles *ordo_t5_tiles_at(ordo_ctx *ctx, ordo_tensor *table, const int32_t *pos, int B,
                                  int T, int n) {
    ORDO_ASSERT(table->ndim == 2 && table->shape[0] == ORDO_T5_BUCKETS);
    int NH = table->shape[1];
    at_state *st;
    ordo_bias_tiles *out = at_new(ctx, at_grad_t5, NH, pos, B, T, n, &st);
    st->bucket = ordo_arena_alloc(&ctx->arena, (size_t)n * sizeof(int32_t));
    for (int d = 0; d < n; d++) st->bucket[d] = ordo_t5_bucket(d);
    for (int h = 0; h < NH; h++)
        for (int d = 0; d < n; d++)
            st->v[(size_t)h * n + d] = table->data[(size_t)st->bucket[d] * NH + h];
    out->bias.n_grad = (size_t)ORDO_T5_BUCKETS * NH;
    out->params[0] = table;
    out->n_params = 1;
    return out;
}

ordo_bias_tiles *ordo_kerple_tiles_at(ordo_ctx *ctx, ordo_tensor *r1, ordo_tensor *r2,
                                      const int32_t *pos, int B, int T, int n, int power) {
    ORDO_ASSERT(r1->ndim == 1 && r2->ndim == 1 && r1->n == r2->n);
    int NH = (int)r1->n;
    at_state *st;
    ordo_bias_tiles *out = at_new(ctx, at_grad_kerple, NH, pos, B, T, n, &st);
    st->d1 = ordo_arena_alloc(&ctx->arena, (size_t)NH * n * sizeof(double));
    st->d2 = ordo_arena_alloc(&ctx->arena, (size_t)NH * n * sizeof(double));
    for (int h = 0; h < NH; h++)
        for (int d = 0; d < n; d++) {
            size_t x = (size_t)h * n + d;
            st->v[x] = (float)ordo_kerple_value(r1->data[h], r2->data[h], d, power, &st->d1[x],
                                                &st->d2[x]);
        }
    out->bias.n_grad = 2 * (size_t)NH;
    out->params[0] = r1;
    out->params[1] = r2;
    out->n_params = 2;
    return out;
}
