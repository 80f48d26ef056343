// The position schemes' tape ops for the materialized attention: FIRE's normalised distance and
// the causal pair bias of its MLP, Kerple's table by distance, and a value per distance spread
// into the causal bias (the one dense op of the stationary biases: alibi, t5, kerple, dpb). Each
// node carries its own backward (ordo_tape_push), so the framework's tape runs them without
// knowing them. The fused attention computes the same biases in its tiles instead
// (models/bias_tiles.c).
#include <math.h>
#include <string.h>

#include "framework/kernels.h"
#include "models/pos/ops.h"
#include "sys/error.h"

static void fire_dist_backward(ordo_ctx *ctx, ordo_node *n);
static void pair_bias_backward(ordo_ctx *ctx, ordo_node *n);
static void dist_bias_backward(ordo_ctx *ctx, ordo_node *n);
static void kerple_table_backward(ordo_ctx *ctx, ordo_node *n);

static const struct {
    int op;
    const char *name;
} pos_op_names[] = {
    {ORDO_OP_FIRE_DIST, "fire_dist"},           {ORDO_OP_PAIR_BIAS, "pair_bias"},
    {ORDO_OP_KERPLE_TABLE, "kerple_table"},     {ORDO_OP_DIST_BIAS, "dist_bias"},
    {ORDO_OP_CUM_LOGSIGMOID, "cum_logsigmoid"}, {ORDO_OP_DIFF_BIAS, "diff_bias"},
    {ORDO_OP_COPE_POSITIONS, "cope_positions"}, {ORDO_OP_COPE_BIAS, "cope_bias"},
};
_Static_assert(sizeof pos_op_names / sizeof pos_op_names[0] == ORDO_POS_OP_END - ORDO_OP_COUNT,
               "pos_op_names must name every position op");

const char *ordo_pos_op_name(int op) {
    if (op >= 0 && op < ORDO_OP_COUNT) return ordo_op_name((ordo_op)op);
    for (size_t i = 0; i < sizeof pos_op_names / sizeof pos_op_names[0]; i++)
        if (pos_op_names[i].op == op) return pos_op_names[i].name;
    return "?";
}

// ---- the learned relative biases (FIRE, Kerple). Each is a function of the causal pairs
// (i, j <= i) only: what lies above the diagonal is masked by attention, so it is left 0 and
// gets no gradient. Per-pair maths is done in double and rounded once; the sums over pairs of
// the backward rules run in one fixed order (deterministic whatever the thread count).

static double sgn(double x) {
    return (x > 0) - (x < 0);
}

// The position of token t of batch row b: pos[b, t], or t without positions.
static int pos_at(const int32_t *pos, int b, int T, int t) {
    return pos ? pos[(size_t)b * T + t] : t;
}

// Node: in[0] = c, in[1] = lmul; iarg[0] = T, iarg[1] = B; farg[0] = init_L, farg[1] = eps;
// extra = pos (or NULL: 0..T-1).
ordo_tensor *ordo_fire_dist(ordo_ctx *ctx, ordo_tensor *c, ordo_tensor *lmul, int T, float init_L,
                            float eps) {
    return ordo_fire_dist_at(ctx, c, lmul, NULL, 1, T, init_L, eps);
}

ordo_tensor *ordo_fire_dist_at(ordo_ctx *ctx, ordo_tensor *c, ordo_tensor *lmul, const int32_t *pos,
                               int B, int T, float init_L, float eps) {
    ORDO_ASSERT(c->n == 1 && lmul->n == 1 && T > 0 && T <= 46340); // P = T(T+1)/2 fits an int
    ORDO_ASSERT(B >= 1 && (pos || B == 1));
    size_t P = (size_t)T * (T + 1) / 2;
    ordo_tensor *out = ordo_tensor_new2(ctx, (int)(B * P), 1); // (B*P, 1)
    double ca = fabs((double)c->data[0]), L = fabs((double)lmul->data[0] * init_L);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            int pi = pos_at(pos, b, T, i);
            double den = log1p(ca * fmax((double)pi, L)) + eps;
            float *u = out->data + b * P + (size_t)i * (i + 1) / 2;
            for (int j = 0; j <= i; j++)
                u[j] = (float)(log1p(ca * (pi - pos_at(pos, b, T, j))) / den);
        }
    if (ordo_needs_grad(ctx, c, lmul, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_FIRE_DIST, out, fire_dist_backward);
        n->in[0] = c;
        n->in[1] = lmul;
        n->iarg[0] = T;
        n->iarg[1] = B;
        n->farg[0] = init_L;
        n->farg[1] = eps;
        n->extra = pos;
    }
    return out;
}

static void fire_dist_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *c = n->in[0], *lmul = n->in[1];
    float *dc = ordo_tensor_grad(ctx, c), *dl = ordo_tensor_grad(ctx, lmul);
    if (!dc && !dl) return;
    const float *g = n->out->grad;
    const int32_t *pos = n->extra;
    int T = n->iarg[0], B = n->iarg[1];
    size_t P = (size_t)T * (T + 1) / 2;
    double init_L = n->farg[0], eps = n->farg[1];
    double cv = c->data[0], ca = fabs(cv), sc = sgn(cv);
    double L = fabs((double)lmul->data[0] * init_L);
    double sum_c = 0, sum_L = 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            int pi = pos_at(pos, b, T, i);
            double nrm = fmax((double)pi, L);
            double den = log1p(ca * nrm) + eps;
            double dden_dc = sc * nrm / (ca * nrm + 1);
            // d max(i, L)/dL: 1 where L wins, 1/2 at a tie (torch.maximum), 0 where i wins
            double wL = L > pi ? 1.0 : L == pi ? 0.5 : 0.0;
            double dden_dL = wL * ca / (ca * nrm + 1);
            const float *gi = g + b * P + (size_t)i * (i + 1) / 2;
            for (int j = 0; j <= i; j++) {
                double d = pi - pos_at(pos, b, T, j), a = log1p(ca * d);
                sum_c += gi[j] * (sc * d / (ca * d + 1) / den - a * dden_dc / (den * den));
                sum_L -= gi[j] * a * dden_dL / (den * den);
            }
        }
    if (dc) dc[0] += (float)sum_c;
    if (dl) dl[0] += (float)(sum_L * sgn(lmul->data[0] * init_L) * init_L);
}

// Node: in[0] = x; iarg[0] = T. B = rows of x / P: out (NH, T, T) for one, (B, NH, T, T) else.
ordo_tensor *ordo_pair_bias(ordo_ctx *ctx, ordo_tensor *x, int T) {
    size_t P = (size_t)T * (T + 1) / 2;
    ORDO_ASSERT(x->ndim == 2 && x->shape[0] > 0 && (size_t)x->shape[0] % P == 0);
    int B = (int)(x->shape[0] / P), NH = x->shape[1];
    ordo_tensor *out =
        B == 1 ? ordo_tensor_new3(ctx, NH, T, T) : ordo_tensor_new(ctx, 4, (int[]){B, NH, T, T});
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++) {
                float *row = out->data + (((size_t)b * NH + h) * T + i) * T;
                const float *xi = x->data + (b * P + (size_t)i * (i + 1) / 2) * NH + h;
                for (int j = 0; j <= i; j++) row[j] = xi[(size_t)j * NH];
                for (int j = i + 1; j < T; j++) row[j] = 0.0f;
            }
    if (ordo_needs_grad(ctx, x, NULL, NULL)) {
        ordo_node *n = ordo_tape_push(ctx, ORDO_OP_PAIR_BIAS, out, pair_bias_backward);
        n->in[0] = x;
        n->iarg[0] = T;
    }
    return out;
}

static void pair_bias_backward(ordo_ctx *ctx, ordo_node *n) {
    ordo_tensor *x = n->in[0];
    float *dx = ordo_tensor_grad(ctx, x);
    if (!dx) return;
    int T = n->iarg[0], NH = x->shape[1];
    size_t P = (size_t)T * (T + 1) / 2;
    int B = (int)(x->shape[0] / P);
    const float *g = n->out->grad;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++) {
                const float *row = g + (((size_t)b * NH + h) * T + i) * T;
                float *di = dx + (b * P + (size_t)i * (i + 1) / 2) * NH + h;
                for (int j = 0; j <= i; j++) di[(size_t)j * NH] += row[j];
            }
}

// Kerple's value at distance d >= 0, -r1 log(1 + r2 d) (power: -r1 d^r2), in double, and its
// partial derivatives in r1 (*d1) and r2 (*d2).
static double kerple_value(double r1, double r2, int d, int power, double *d1, double *d2) {
    if (power) {
        double p = d > 0 ? pow((double)d, r2) : 0.0; // d^r2, 0 at d = 0 (r2 > 0)
        *d1 = -p;
        *d2 = d > 0 ? -r1 * p * log((double)d) : 0.0;
        return -r1 * p;
    }
    double l = log1p(r2 * d);
    *d1 = -l;
    *d2 = -r1 * d / (1 + r2 * d);
    return -r1 * l;
}

// Node: in[0] = r1, in[1] = r2; iarg[0] = n, iarg[1] = power. out[d, h] = the value at
// distance d, at 0..T-1 or at the distances of drawn positions (spread by ordo_dist_bias).
ordo_tensor *ordo_kerple_table(ordo_ctx *ctx, ordo_tensor *r1, ordo_tensor *r2, int n, int power) {
    ORDO_ASSERT(r1->ndim == 1 && r2->ndim == 1 && r1->n == r2->n && n > 0);
    int NH = (int)r1->n;
    ordo_tensor *out = ordo_tensor_new2(ctx, n, NH); // (n, NH)
    double d1, d2;
    for (int d = 0; d < n; d++)
        for (int h = 0; h < NH; h++)
            out->data[(size_t)d * NH + h] =
                (float)kerple_value(r1->data[h], r2->data[h], d, power, &d1, &d2);
    if (ordo_needs_grad(ctx, r1, r2, NULL)) {
        ordo_node *nd = ordo_tape_push(ctx, ORDO_OP_KERPLE_TABLE, out, kerple_table_backward);
        nd->in[0] = r1;
        nd->in[1] = r2;
        nd->iarg[0] = n;
        nd->iarg[1] = power;
    }
    return out;
}

// dr1[h] += sum_d g[d, h] d1(d), dr2 likewise, in double, d ascending.
static void kerple_table_backward(ordo_ctx *ctx, ordo_node *nd) {
    ordo_tensor *r1 = nd->in[0], *r2 = nd->in[1];
    float *d1 = ordo_tensor_grad(ctx, r1), *d2 = ordo_tensor_grad(ctx, r2);
    if (!d1 && !d2) return;
    int n = nd->iarg[0], power = nd->iarg[1], NH = (int)r1->n;
    const float *g = nd->out->grad;
    for (int h = 0; h < NH; h++) {
        double s1 = 0, s2 = 0, p1, p2;
        for (int d = 0; d < n; d++) {
            double gd = g[(size_t)d * NH + h];
            kerple_value(r1->data[h], r2->data[h], d, power, &p1, &p2);
            s1 += gd * p1;
            s2 += gd * p2;
        }
        if (d1) d1[h] += (float)s1;
        if (d2) d2[h] += (float)s2;
    }
}

// ---- a value per distance spread into the causal bias (dpb's MLP table, kerple's values,
// alibi's and sandwich's constants)

// Node: in[0] = x; iarg[0] = B; extra = the positions [B, T] (0..T-1 made here for pos NULL).
ordo_tensor *ordo_dist_bias(ordo_ctx *ctx, ordo_tensor *x, const int32_t *pos, int B, int T) {
    ORDO_ASSERT(x->ndim == 2 && B > 0 && T > 0);
    int NH = x->shape[1], n = x->shape[0];
    ORDO_ASSERT(n >= T);
    if (!pos) B = 1;                                                       // one bias for every row
    ordo_tensor *out = pos ? ordo_tensor_new(ctx, 4, (int[]){B, NH, T, T}) // (B, NH, T, T)
                           : ordo_tensor_new3(ctx, NH, T, T);              // (NH, T, T)
    if (!pos) {
        int32_t *p = ordo_arena_alloc(&ctx->arena, (size_t)T * sizeof(int32_t)); // (T)
        for (int t = 0; t < T; t++) p[t] = t;
        pos = p;
    }
    for (int b = 0; b < B; b++) {
        const int32_t *p = pos + (size_t)b * T;
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++) {
                float *row = out->data + (((size_t)b * NH + h) * T + i) * T;
                for (int j = 0; j <= i; j++) {
                    int d = p[i] - p[j];
                    ORDO_ASSERT(d >= 0 && d < n);
                    row[j] = x->data[(size_t)d * NH + h];
                }
                for (int j = i + 1; j < T; j++) row[j] = 0.0f;
            }
    }
    if (ordo_needs_grad(ctx, x, NULL, NULL)) {
        ordo_node *nd = ordo_tape_push(ctx, ORDO_OP_DIST_BIAS, out, dist_bias_backward);
        nd->in[0] = x;
        nd->iarg[0] = B;
        nd->extra = pos;
    }
    return out;
}

// dx[d, h] += each (b, h)'s sum over its pairs at distance d, in double; (b, h) in order.
static void dist_bias_backward(ordo_ctx *ctx, ordo_node *nd) {
    ordo_tensor *x = nd->in[0];
    float *dx = ordo_tensor_grad(ctx, x);
    if (!dx) return;
    int B = nd->iarg[0], T = nd->out->shape[nd->out->ndim - 1], NH = x->shape[1], n = x->shape[0];
    const int32_t *pos = nd->extra;
    const float *g = nd->out->grad;
    double *gd = ordo_arena_alloc(&ctx->arena, (size_t)n * sizeof(double)); // (n) by distance
    for (int b = 0; b < B; b++) {
        const int32_t *p = pos + (size_t)b * T;
        for (int h = 0; h < NH; h++) {
            memset(gd, 0, (size_t)n * sizeof(double));
            for (int i = 0; i < T; i++) {
                const float *row = g + (((size_t)b * NH + h) * T + i) * T;
                for (int j = 0; j <= i; j++) gd[p[i] - p[j]] += row[j];
            }
            for (int d = 0; d < n; d++) dx[(size_t)d * NH + h] += (float)gd[d];
        }
    }
}
