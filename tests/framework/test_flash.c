// The fused attention (framework/flash.h, ordo_attention_fused) against the materialized one
// (ordo_attention_dropout with the bias made whole, [NH, T, T]): output, dqkv and the bias
// parameters' gradients within 1e-6 of the largest element, at T = 1, one tile (64), a
// non-multiple (100) and four tiles (256), with no bias, with a test bias that has parameters
// (a per-head slope times the distance, plus a table looked up by the distance) and with
// dropout; on every kernel set (AVX-512 and AVX2 where the CPU runs them, portable vector C,
// ordo_gemm for the products).
// Then a finite-difference gradient check of the op with its bias parameters, bit-equal
// results at 1 and 2 threads on each kernel set, and a bias of the row's scores (flash.h's rows)
// held to the kernel's promises: the tile order, the raw scores, the state per row, the dS and dq
// hooks.
#include <string.h>

#include "framework/gradcheck.h"
#include "framework/flash.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "framework/threads.h"
#include "test.h"

#define NDIST 6 // table rows: distances 0..4 exactly, 5 and beyond share the last

// The test's bias: b(h, i, j) = -slope[h] (i - j) / 16 + table[min(i - j, NDIST - 1), h].
// Parameters, in the order of g: slope [NH], then table [NDIST, NH]. The 1/16 keeps the loss
// from being so curved in the slope at T 70 that the gradient check's stencil is off by 1%
// (measured with the raw distance).
#define UNIT 0.0625f
typedef struct test_bias {
    const float *slope, *table;
    int NH;
} test_bias;

static int dist_row(int d) {
    d = d < 0 ? 0 : d; // above the diagonal: any finite value will do (flash.h)
    return d < NDIST - 1 ? d : NDIST - 1;
}

static void tb_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                    int ld) {
    const test_bias *t = self;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            int d = i0 + r - (j0 + c);
            s[(size_t)r * ld + c] +=
                -t->slope[h] * (float)d * UNIT + t->table[dist_row(d) * t->NH + h];
        }
}

// dS elements above the diagonal that were not 0 (tb_grad runs on several threads at once)
static _Atomic int nonzero_above;

static void tb_grad(const void *self, int b, int h, int i0, int nr, int j0, int nc, const float *ds,
                    int ld, float *g) {
    const test_bias *t = self;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            int d = i0 + r - (j0 + c);
            float x = ds[(size_t)r * ld + c];
            if (d < 0) {
                if (x != 0.0f) nonzero_above++; // the kernel promises zeros above the diagonal
                continue;
            }
            g[h] += -(float)d * UNIT * x;
            g[t->NH + dist_row(d) * t->NH + h] += x;
        }
}

// The reference of tb_grad over the materialized dL/dbias [NH, T, T], in double, with the
// sum of the contributions' magnitudes beside each element (ref_abs): the parameters'
// gradients are sums with heavy cancellation (each row of dS sums to 0), so a float error
// of e in each dS element moves them by up to e times ref_abs, not e times their value.
static void ref_grad(double *ref, double *ref_abs, const float *db, int T, int NH) {
    int ng = NH + NDIST * NH;
    memset(ref, 0, ng * sizeof(double));
    memset(ref_abs, 0, ng * sizeof(double));
    for (int h = 0; h < NH; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j <= i; j++) {
                double x = db[((size_t)h * T + i) * T + j];
                int d = i - j, e = NH + dist_row(d) * NH + h;
                ref[h] += -d * UNIT * x;
                ref_abs[h] += fabs(d * UNIT * x);
                ref[e] += x;
                ref_abs[e] += fabs(x);
            }
}

static ordo_rng rng;

static void fill_normal(float *x, size_t n, double s) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(s * ordo_rng_normal(&rng));
}

// max |a - b| / max |b|: the error against the scale of the tensor
static double rel_err(const float *a, const float *b, size_t n) {
    double e = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        e = d > e ? d : e;
        m = fabs(b[i]) > m ? fabs(b[i]) : m;
    }
    return m > 0 ? e / m : e;
}

// One parity case: B, NH, T and hs given; with the test bias or not; dropout p.
static void parity_bn(int B, int NH, int T, int hs, int with_bias, float p, const char *tiles) {
    int C = NH * hs;
    ordo_params P;
    ordo_params_init(&P);
    ordo_tensor *qkv = ordo_params_add(&P, "qkv", 3, (int[]){B, T, 3 * C}, 0);
    ordo_tensor *slope = ordo_params_add(&P, "slope", 1, (int[]){NH}, 0);
    ordo_tensor *table = ordo_params_add(&P, "table", 2, (int[]){NDIST, NH}, 0);
    ordo_params_alloc(&P);
    fill_normal(qkv->data, qkv->n, 1.0);
    for (int h = 0; h < NH; h++) slope->data[h] = 0.8f * (h + 1);
    fill_normal(table->data, table->n, 0.5);
    size_t nout = (size_t)B * T * C;
    float *dout = malloc(nout * sizeof(float));
    fill_normal(dout, nout, 1.0);
    test_bias tb = {slope->data, table->data, NH};
    ordo_fused_bias bias = {
        {&tb, tb_fill, tb_grad, (size_t)NH + NDIST * NH, 0, 0, NULL}, {slope, table}, 2};
    uint64_t seed = 77;
    size_t offset = 1000;

    // materialized: the bias made whole, [NH, T, T], as a leaf; its gradient [NH, T, T]
    // turned into the parameters' by the same grad function over the whole square
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *mb = NULL;
    if (with_bias) {
        mb = ordo_tensor_zeros(&ctx, 3, (int[]){NH, T, T});
        for (int h = 0; h < NH; h++)
            tb_fill(&tb, 0, h, 0, T, 0, T, mb->data + (size_t)h * T * T, T);
        mb->flags |= ORDO_REQUIRES_GRAD;
    }
    ordo_tensor *ref = ordo_attention_dropout(&ctx, qkv, mb, NH, p, seed, offset);
    ordo_backward_from(&ctx, ref, dout);
    float *ref_out = malloc(nout * sizeof(float)), *ref_dqkv = malloc(qkv->n * sizeof(float));
    double ref_g[2 + NDIST * 2], ref_abs[2 + NDIST * 2];
    memcpy(ref_out, ref->data, nout * sizeof(float));
    memcpy(ref_dqkv, qkv->grad, qkv->n * sizeof(float));
    if (with_bias) ref_grad(ref_g, ref_abs, mb->grad, T, NH);
    ordo_ctx_reset(&ctx);
    ordo_params_zero_grad(&P);

    ordo_tensor *fo =
        ordo_attention_fused(&ctx, qkv, with_bias ? &bias : NULL, NH, p, seed, offset);
    ordo_backward_from(&ctx, fo, dout);
    double eo = rel_err(fo->data, ref_out, nout), eq = rel_err(qkv->grad, ref_dqkv, qkv->n);
    double eg = 0;
    if (with_bias) {
        float g[2 + NDIST * 2];
        memcpy(g, slope->grad, NH * sizeof(float));
        memcpy(g + NH, table->grad, NDIST * NH * sizeof(float));
        for (size_t x = 0; x < bias.bias.n_grad; x++) { // against the contributions' scale
            double e = fabs(g[x] - ref_g[x]) / (ref_abs[x] > 0 ? ref_abs[x] : 1.0);
            eg = e > eg ? e : eg;
        }
    }
    printf("  %-20s B=%d NH=%d T=%3d hs=%2d %-7s p=%.2f: out %.1e, dqkv %.1e, dparams %.1e\n",
           tiles, B, NH, T, hs, with_bias ? "bias" : "no bias", p, eo, eq, eg);
    CHECK_MSG(eo <= 1e-6 && eq <= 1e-6 && eg <= 1e-6,
              "%s T=%d hs=%d bias=%d p=%.2f: out %.3g dqkv %.3g dparams %.3g", tiles, T, hs,
              with_bias, p, eo, eq, eg);
    ordo_ctx_free(&ctx);
    ordo_params_free(&P);
    free(dout);
    free(ref_out);
    free(ref_dqkv);
}

static void parity(int T, int hs, int with_bias, float p, const char *tiles) {
    parity_bn(2, 2, T, hs, with_bias, p, tiles);
}

// Eval: with gradients off the op records nothing and gives the same output.
static void no_grad(void) {
    int B = 1, T = 90, NH = 2, hs = 8, C = NH * hs;
    ordo_params P;
    ordo_params_init(&P);
    ordo_tensor *qkv = ordo_params_add(&P, "qkv", 3, (int[]){B, T, 3 * C}, 0);
    ordo_params_alloc(&P);
    fill_normal(qkv->data, qkv->n, 1.0);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *a = ordo_attention_fused(&ctx, qkv, NULL, NH, 0.0f, 0, 0);
    int taped = ctx.ntape;
    ctx.grad_enabled = 0;
    ordo_tensor *b = ordo_attention_fused(&ctx, qkv, NULL, NH, 0.0f, 0, 0);
    CHECK(taped == 1 && ctx.ntape == 1);
    CHECK(!memcmp(a->data, b->data, a->n * sizeof(float)));
    ordo_ctx_free(&ctx);
    ordo_params_free(&P);
}

// ---- gradient check: the op with the test bias, its parameters among the inputs

typedef struct gc_args {
    int NH;
    float p;
} gc_args;

static ordo_tensor *g_fused(ordo_ctx *c, ordo_tensor **in, void *u) {
    const gc_args *a = u;
    // the state must outlive the forward until backward: static, rebuilt on every call from
    // the (perturbed) inputs, which it reads through pointers (the op copies the bias itself)
    static test_bias tb;
    tb = (test_bias){in[1]->data, in[2]->data, a->NH};
    ordo_fused_bias bias = {
        {&tb, tb_fill, tb_grad, in[1]->n + in[2]->n, 0, 0, NULL}, {in[1], in[2]}, 2};
    return ordo_attention_fused(c, in[0], &bias, a->NH, a->p, 5, 0);
}

static void gradcheck(float p) {
    int B = 2, T = 70, NH = 2, hs = 3, C = NH * hs; // T past one tile, hs not a multiple of 16
    ordo_params P;
    ordo_params_init(&P);
    ordo_tensor *in[3];
    in[0] = ordo_params_add(&P, "qkv", 3, (int[]){B, T, 3 * C}, 0);
    in[1] = ordo_params_add(&P, "slope", 1, (int[]){NH}, 0);
    in[2] = ordo_params_add(&P, "table", 2, (int[]){NDIST, NH}, 0);
    ordo_params_alloc(&P);
    fill_normal(in[0]->data, in[0]->n, 0.5);
    for (int h = 0; h < NH; h++) in[1]->data[h] = 0.1f * (h + 1);
    fill_normal(in[2]->data, in[2]->n, 0.5);
    gc_args a = {NH, p};
    ordo_gradcheck_result res;
    ordo_gradcheck(g_fused, in, 3, &a, 40, 3e-2, 99, &res);
    printf("  gradcheck p=%.2f: %d coords, max rel err %.2e (input %d)\n", p, res.checked,
           res.max_rel_err, res.worst_input);
    CHECK_MSG(
        res.max_rel_err < 1e-3 && res.checked > 0 && res.op_nodes[ORDO_OP_ATTENTION_FUSED] == 1,
        "gradcheck p=%.2f: max rel err %.3g at input %d index %zu (%.8g vs %.8g)", p,
        res.max_rel_err, res.worst_input, res.worst_index, res.worst_analytic, res.worst_numeric);
    ordo_params_free(&P);
}

// ---- thread independence: forward and backward bit for bit at 1 and 2 threads

static void run_threads(int nt, float *o, float *dq, float *g) {
    int B = 1, T = 200, NH = 3, hs = 16, C = NH * hs;
    ordo_set_threads(nt);
    ordo_rng_seed(&rng, 4242);
    ordo_params P;
    ordo_params_init(&P);
    ordo_tensor *qkv = ordo_params_add(&P, "qkv", 3, (int[]){B, T, 3 * C}, 0);
    ordo_tensor *slope = ordo_params_add(&P, "slope", 1, (int[]){NH}, 0);
    ordo_tensor *table = ordo_params_add(&P, "table", 2, (int[]){NDIST, NH}, 0);
    ordo_params_alloc(&P);
    fill_normal(qkv->data, qkv->n, 1.0);
    for (int h = 0; h < NH; h++) slope->data[h] = 0.5f * (h + 1);
    fill_normal(table->data, table->n, 0.5);
    float *dout = malloc((size_t)B * T * C * sizeof(float));
    fill_normal(dout, (size_t)B * T * C, 1.0);
    test_bias tb = {slope->data, table->data, NH};
    ordo_fused_bias bias = {
        {&tb, tb_fill, tb_grad, (size_t)NH + NDIST * NH, 0, 0, NULL}, {slope, table}, 2};
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *out = ordo_attention_fused(&ctx, qkv, &bias, NH, 0.1f, 3, 0);
    ordo_backward_from(&ctx, out, dout);
    memcpy(o, out->data, out->n * sizeof(float));
    memcpy(dq, qkv->grad, qkv->n * sizeof(float));
    memcpy(g, slope->grad, NH * sizeof(float));
    memcpy(g + NH, table->grad, table->n * sizeof(float));
    ordo_ctx_free(&ctx);
    ordo_params_free(&P);
    free(dout);
}

// Bit-equal results at 1 and 2 threads on the kernels of each instruction set that runs here.
static void threads(void) {
    size_t no = 200 * 48, nq = 3 * no, ng = 3 + NDIST * 3;
    float *o[2], *dq[2], g[2][3 + NDIST * 3];
    const ordo_flash_tiles sets[] = {ORDO_FLASH_TILES_AVX512, ORDO_FLASH_TILES_AVX2,
                                     ORDO_FLASH_TILES_PORTABLE};
    for (size_t t = 0; t < sizeof sets / sizeof sets[0]; t++) {
        if (ordo_flash_set_tiles(sets[t]) != ORDO_OK) continue; // not on this CPU
        for (int k = 0; k < 2; k++) {
            o[k] = malloc(no * sizeof(float));
            dq[k] = malloc(nq * sizeof(float));
            run_threads(k + 1, o[k], dq[k], g[k]);
        }
        int same = !memcmp(o[0], o[1], no * sizeof(float)) &&
                   !memcmp(dq[0], dq[1], nq * sizeof(float)) &&
                   !memcmp(g[0], g[1], ng * sizeof(float));
        printf("  %s: 1 and 2 threads %s\n", ordo_flash_describe(),
               same ? "bit-identical" : "DIFFERENT");
        CHECK_MSG(same, "%s kernels: 1 and 2 threads differ", ordo_flash_describe());
        for (int k = 0; k < 2; k++) free(o[k]), free(dq[k]);
    }
    ordo_flash_set_tiles(ORDO_FLASH_TILES_AUTO);
    ordo_set_threads(2);
}

// ---- a bias of the row's scores (flash.h's rows), with no scheme behind it: the count of the
// row's keys from j to i, carried as state, times -CNT (so the bias is -CNT (i - j + 1), which the
// plain test_bias gives as slope CNT/UNIT and table CNT: the same model). Forward counts from
// the diagonal down (a suffix), backward up from 0 (the row's total, saved by fwd_end, less a
// prefix). The hooks check what the kernel promises: the order of the key blocks per row, the
// raw scores in fill, one begin and end per query block (forward) and per (b, h) (backward).
// bwd_grad adds CNT2 * dS into dS and bwd_end adds DQ into every dq element: both must show
// in dqkv exactly as made here.
#define CNT  0.05f
#define CNT2 0.25f
#define DQ   0.125f
typedef struct count_bias {
    const float *qkv;
    float *total; // (B, NH, T): the row's count, from fwd_end
    int T, C, NH, B;
    ordo_attn_row_bias rows;
} count_bias;
static _Atomic int order_bad, score_bad, calls_bad;

// work: next key block expected (fwd: from the diagonal down; bwd: per row, ascending), counts
static void cb_fwd_begin(const void *self, int b, int h, int i0, int nr, float *work) {
    work[0] = (float)(i0 / ORDO_FLASH_BLOCK); // the diagonal block comes first
    for (int r = 0; r < nr; r++) work[1 + r] = 0.0f;
}
static void cb_check_scores(const count_bias *cb, int b, int h, int i0, int nr, int j0, int nc,
                            const float *s, int ld) {
    int hs = cb->C / cb->NH;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc && j0 + c <= i0 + r; c++) {
            const float *q = cb->qkv + ((size_t)b * cb->T + i0 + r) * 3 * cb->C + h * hs;
            const float *k = cb->qkv + ((size_t)b * cb->T + j0 + c) * 3 * cb->C + cb->C + h * hs;
            double dot = 0;
            for (int d = 0; d < hs; d++) dot += (double)q[d] * k[d];
            if (fabs(dot / sqrt(hs) - s[(size_t)r * ld + c]) > 1e-4) score_bad++;
        }
}
static void cb_fwd_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                        int ld, float *work) {
    const count_bias *cb = self;
    if (j0 != (int)work[0] * ORDO_FLASH_BLOCK) order_bad++;
    work[0] -= 1.0f;
    cb_check_scores(cb, b, h, i0, nr, j0, nc, s, ld);
    for (int r = 0; r < nr; r++)
        for (int c = nc - 1; c >= 0; c--) {
            if (j0 + c > i0 + r) continue;
            work[1 + r] += 1.0f; // keys j0 + c .. i, counted from i down
            s[(size_t)r * ld + c] -= CNT * work[1 + r];
        }
}
static void cb_fwd_end(const void *self, int b, int h, int i0, int nr, float *work) {
    const count_bias *cb = self;
    if (work[0] != -1.0f) calls_bad++; // every block down to 0 was filled
    for (int r = 0; r < nr; r++) cb->total[((size_t)b * cb->NH + h) * cb->T + i0 + r] = work[1 + r];
}
static void cb_bwd_begin(const void *self, int b, int h, float *work) {
    const count_bias *cb = self;
    for (int i = 0; i < cb->T; i++) work[i] = 0.0f, work[cb->T + i] = 0.0f; // prefix, next block
}
static void cb_bwd_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                        int ld, float *work) {
    const count_bias *cb = self;
    cb_check_scores(cb, b, h, i0, nr, j0, nc, s, ld);
    for (int r = 0; r < nr; r++) {
        int i = i0 + r;
        if (j0 != (int)work[cb->T + i] * ORDO_FLASH_BLOCK) order_bad++;
        work[cb->T + i] += 1.0f;
        float total = cb->total[((size_t)b * cb->NH + h) * cb->T + i];
        for (int c = 0; c < nc && j0 + c <= i; c++) {
            s[(size_t)r * ld + c] -= CNT * (total - work[i]); // keys j .. i: all less those < j
            work[i] += 1.0f;
        }
    }
}
static void cb_bwd_grad(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *ds,
                        int ld, float *work, float *g) {
    if (g) calls_bad++; // no parameters: no g
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) ds[(size_t)r * ld + c] *= 1.0f + CNT2;
}
static void cb_bwd_end(const void *self, int b, int h, float *work, float *dq, int ldq, float *g) {
    const count_bias *cb = self;
    for (int i = 0; i < cb->T; i++)
        for (int d = 0; d < cb->C / cb->NH; d++) dq[(size_t)i * ldq + d] += DQ;
}

static void row_bias(int B, int NH, int T, int hs) {
    int C = NH * hs;
    ordo_params P;
    ordo_params_init(&P);
    ordo_tensor *qkv = ordo_params_add(&P, "qkv", 3, (int[]){B, T, 3 * C}, 0);
    ordo_params_alloc(&P);
    fill_normal(qkv->data, qkv->n, 1.0);
    size_t nout = (size_t)B * T * C;
    float *dout = malloc(nout * sizeof(float));
    fill_normal(dout, nout, 1.0);
    // the plain bias of the same values: slope CNT / UNIT per unit distance, table CNT
    float slope[8], table[NDIST * 8];
    for (int h = 0; h < NH; h++) slope[h] = CNT / UNIT;
    for (int x = 0; x < NDIST * NH; x++) table[x] = -CNT;
    test_bias tb = {slope, table, NH};
    ordo_fused_bias plain = {.bias = {&tb, tb_fill, NULL, 0, 0, 0, NULL}};
    count_bias cb = {.qkv = qkv->data, .T = T, .C = C, .NH = NH, .B = B};
    cb.total = malloc((size_t)B * NH * T * sizeof(float));
    cb.rows = (ordo_attn_row_bias){.fwd_floats = 1 + ORDO_FLASH_BLOCK,
                                   .bwd_floats = 2 * (size_t)T,
                                   .fwd_begin = cb_fwd_begin,
                                   .fwd_fill = cb_fwd_fill,
                                   .fwd_end = cb_fwd_end,
                                   .bwd_begin = cb_bwd_begin,
                                   .bwd_fill = cb_bwd_fill,
                                   .bwd_grad = cb_bwd_grad,
                                   .bwd_end = cb_bwd_end};
    ordo_fused_bias rows = {.bias = {.self = &cb, .rows = &cb.rows}};
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *ro = ordo_attention_fused(&ctx, qkv, &rows, NH, 0.0f, 0, 0);
    ordo_backward_from(&ctx, ro, dout);
    float *row_out = malloc(nout * sizeof(float)), *row_dqkv = malloc(qkv->n * sizeof(float));
    memcpy(row_out, ro->data, nout * sizeof(float));
    memcpy(row_dqkv, qkv->grad, qkv->n * sizeof(float));
    ordo_ctx_reset(&ctx);
    ordo_params_zero_grad(&P);
    ordo_tensor *po = ordo_attention_fused(&ctx, qkv, &plain, NH, 0.0f, 0, 0);
    ordo_backward_from(&ctx, po, dout);
    // what the hooks added: dS (1 + CNT2) into dq and dk, DQ into dq; v's gradient as it was
    float *want = malloc(qkv->n * sizeof(float));
    for (size_t x = 0; x < qkv->n; x++) {
        int part = (int)(x % (3 * C)) / C; // 0 q, 1 k, 2 v
        want[x] = part == 2 ? qkv->grad[x] : qkv->grad[x] * (1.0f + CNT2) + (part == 0 ? DQ : 0);
    }
    double eo = rel_err(row_out, po->data, nout), eq = rel_err(row_dqkv, want, qkv->n);
    printf("  row bias (counts)     B=%d NH=%d T=%3d hs=%2d: out %.1e, dqkv %.1e\n", B, NH, T, hs,
           eo, eq);
    CHECK_MSG(eo <= 1e-6 && eq <= 1e-6, "row bias T=%d: out %.3g dqkv %.3g", T, eo, eq);
    ordo_ctx_free(&ctx);
    ordo_params_free(&P);
    free(cb.total);
    free(want);
    free(row_out);
    free(row_dqkv);
    free(dout);
}

int main(void) {
    ordo_rng_seed(&rng, 2025);
    // the CPU's choice first, then each instruction set's kernels that run here
    const ordo_flash_tiles paths[] = {ORDO_FLASH_TILES_AUTO, ORDO_FLASH_TILES_AVX512,
                                      ORDO_FLASH_TILES_AVX2, ORDO_FLASH_TILES_PORTABLE,
                                      ORDO_FLASH_TILES_GEMM};
    // T: 1, a tile edge, a non-multiple of the tile, 4x a tile; hs: odd, 16, 64, 32
    const int Ts[] = {1, 64, 100, 256}, hss[] = {5, 16, 64, 32};
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
        if (ordo_flash_set_tiles(paths[k]) != ORDO_OK) {
            printf("  SKIP tiles %d: %s\n", (int)paths[k], ordo_error_message());
            continue;
        }
        const char *name = ordo_flash_describe();
        for (int c = 0; c < 4; c++) {
            // every path at every T is slow only on the 4-tile case; the forced paths
            // (each instruction set, ordo_gemm) check it once without bias
            if (k > 0 && Ts[c] == 256) continue;
            parity(Ts[c], hss[c], 0, 0.0f, name);
            parity(Ts[c], hss[c], 1, 0.0f, name);
            parity(Ts[c], hss[c], 1, 0.2f, name);
        }
    }
    ordo_flash_set_tiles(ORDO_FLASH_TILES_AUTO);
    // one (b, h) pair only (fewer than the threads), past two tiles; and B 3 NH 1
    parity_bn(1, 1, 130, 64, 1, 0.1f, ordo_flash_describe());
    parity_bn(3, 1, 65, 16, 1, 0.0f, ordo_flash_describe());
    no_grad();
    gradcheck(0.0f);
    gradcheck(0.3f);
    threads();
    // a bias of the row's scores: within a tile, past two, and B 3 NH 2
    row_bias(1, 1, 50, 8);
    row_bias(3, 2, 200, 16);
    CHECK_MSG(order_bad == 0 && score_bad == 0 && calls_bad == 0,
              "row bias: %d tiles out of order, %d scores not q.k/sqrt(hs), %d calls wrong",
              order_bad, score_bad, calls_bad);
    CHECK_MSG(nonzero_above == 0, "%d dS elements above the diagonal were not 0", nonzero_above);
    TEST_MAIN_END();
}
