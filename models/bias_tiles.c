// The score biases as tile functions for the fused attention (framework/flash.h). Each scheme
// keeps only what depends on one index: the stationary biases (alibi, t5, kerple,
// kerple-power, dpb, sandwich) one table by (distance, head), fox a prefix sum per row; fire is
// in fire_tiles.c, cope in cope_tiles.c. Deliberately nothing T x T and nothing per pair kept.
//
// Tiles: rows i = i0 + r (r < nr), columns j = j0 + c (c < nc), entries s[r*ld + c]. The
// causal columns of row i are c < i - j0 + 1; the entries above the diagonal are left as they
// are (the kernel masks them), and their dS is zero, so grad skips them too.
//
// Gradients: each call sums its tile's contributions in double and adds them to g once (at
// drawn positions, pair by pair in float), so the result of a call depends only on its
// arguments (the kernel fixes the order of calls).
#include <math.h>
#include <string.h>

#include "models/bias_tiles.h"

#include "framework/ops.h"

// The causal columns of row i in a tile from column j0 with nc columns: [0, return).
static int causal_end(int i, int j0, int nc) {
    int e = i - j0 + 1;
    return e < 0 ? 0 : e < nc ? e : nc;
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
