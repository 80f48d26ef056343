// The chunked LM head + cross-entropy (framework/lmhead.h) against the path it replaces,
// ordo_cross_entropy(ordo_matmul(x, head, 1)): the loss and the gradients of x and of the
// head agree to float rounding (1e-6 relative to each tensor's largest magnitude) for chunks
// of 1 row, of sizes that do not divide N, of N, and the default; with ignored targets, with
// every target ignored, with an upstream gradient other than 1, with gradients already in the
// head (a tied table); in fp32 and, where oneDNN runs it, bf16. The result does not depend on
// the thread count (bit for bit), the per-row losses are those of a double-precision
// softmax, and the GPT's loss path (no logits) matches its logits path.
#include <omp.h>
#include <string.h>

#include "framework/autograd.h"
#include "framework/dnnl.h"
#include "framework/lmhead.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "models/gpt.h"
#include "test.h"

#define TOL 1e-6

static double max_abs(const float *x, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

// max |a - b| over max |b|: the error relative to the reference tensor's scale.
static double scaled_err(const float *a, const float *b, size_t n) {
    double e = 0, m = max_abs(b, n);
    for (size_t i = 0; i < n; i++) e = fmax(e, fabs((double)a[i] - b[i]));
    return m > 0 ? e / m : e;
}

typedef struct problem {
    int N, C, V;
    ordo_params p;
    ordo_tensor *x, *head; // (N, C), (V, C): parameters, so that they keep their gradients
    int32_t *tg;
} problem;

static void problem_init(problem *pb, int N, int C, int V, int ignore_every, uint64_t seed) {
    pb->N = N, pb->C = C, pb->V = V;
    ordo_params_init(&pb->p);
    pb->x = ordo_params_add(&pb->p, "x", 2, (int[]){N, C}, 0);
    pb->head = ordo_params_add(&pb->p, "head", 2, (int[]){V, C}, 0);
    ordo_params_alloc(&pb->p);
    ordo_rng r;
    ordo_rng_seed(&r, seed);
    for (size_t i = 0; i < pb->x->n; i++) pb->x->data[i] = (float)ordo_rng_normal(&r);
    for (size_t i = 0; i < pb->head->n; i++) pb->head->data[i] = (float)(0.5 * ordo_rng_normal(&r));
    pb->tg = malloc((size_t)N * sizeof *pb->tg);
    for (int i = 0; i < N; i++)
        pb->tg[i] = ignore_every && i % ignore_every == 1 ? -1 : (int32_t)ordo_rng_below(&r, V);
}

static void problem_free(problem *pb) {
    ordo_params_free(&pb->p);
    free(pb->tg);
}

typedef struct result {
    float loss;
    float *dx, *dhead;
} result;

// One forward and backward, seeded with upstream gradient g, the head's gradient starting at
// head0 (NULL: zero): chunk > 0 the chunked op with that many rows per chunk (-1: the
// default), chunk == 0 the reference path.
static result run(problem *pb, int chunk, float g, const float *head0, double *row_loss) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_params_zero_grad(&pb->p);
    pb->x->bf16 = NULL; // x stands for an activation: its bf16 rounding lived in the last arena
    if (head0) memcpy(pb->head->grad, head0, pb->head->n * sizeof(float));
    ordo_tensor *loss =
        chunk ? ordo_lm_head_loss(&ctx, pb->x, pb->head, pb->tg, chunk < 0 ? 0 : chunk, row_loss)
              : ordo_cross_entropy(&ctx, ordo_matmul(&ctx, pb->x, pb->head, 1), pb->tg);
    ordo_backward_from(&ctx, loss, &g);
    result r = {.loss = loss->data[0],
                .dx = malloc(pb->x->n * sizeof(float)),
                .dhead = malloc(pb->head->n * sizeof(float))};
    memcpy(r.dx, pb->x->grad, pb->x->n * sizeof(float));
    memcpy(r.dhead, pb->head->grad, pb->head->n * sizeof(float));
    ordo_ctx_free(&ctx);
    return r;
}

static void result_free(result *r) {
    free(r->dx);
    free(r->dhead);
}

static void check_close(const char *what, problem *pb, result *got, result *want, double tol) {
    double el = fabs((double)got->loss - want->loss) / fmax(fabs(want->loss), 1e-30);
    double ex = scaled_err(got->dx, want->dx, pb->x->n);
    double ew = scaled_err(got->dhead, want->dhead, pb->head->n);
    CHECK_MSG(el <= tol && ex <= tol && ew <= tol,
              "%s N %d C %d V %d: loss %.3g dx %.3g dhead %.3g", what, pb->N, pb->C, pb->V, el, ex,
              ew);
}

static int same_bits(problem *pb, result *a, result *b) {
    return a->loss == b->loss && memcmp(a->dx, b->dx, pb->x->n * sizeof(float)) == 0 &&
           memcmp(a->dhead, b->dhead, pb->head->n * sizeof(float)) == 0;
}

// The chunked op against the reference on one problem, in the precision the head is set to.
static void check_problem(int N, int C, int V, int ignore_every, int bf16) {
    problem pb;
    problem_init(&pb, N, C, V, ignore_every, (uint64_t)(N * 131 + V));
    if (bf16) { // only the head multiplies in bf16 (x, the activation, is rounded by the op)
        pb.head->flags |= ORDO_MATMUL_WEIGHT;
        ordo_params_bf16_enable(&pb.p);
    }
    const char *prec = bf16 ? "bf16" : "fp32";
    result want = run(&pb, 0, 1.0f, NULL, NULL);
    const int chunks[] = {1, 3, 7, N, N + 5, -1};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        result got = run(&pb, chunks[k], 1.0f, NULL, NULL);
        char what[64];
        snprintf(what, sizeof what, "%s chunk %d", prec, chunks[k]);
        check_close(what, &pb, &got, &want, TOL);
        result_free(&got);
    }
    // an upstream gradient other than 1 (a data-parallel share's weight), onto a head that
    // already holds a gradient (the tied table's embedding part)
    float *head0 = malloc(pb.head->n * sizeof(float));
    for (size_t i = 0; i < pb.head->n; i++) head0[i] = 0.01f * (float)(i % 17) - 0.05f;
    result want2 = run(&pb, 0, 0.37f, head0, NULL);
    result got2 = run(&pb, 5, 0.37f, head0, NULL);
    // The reference scales the logits' gradient before its products, the op after them: in
    // fp32 the two round differently, by up to 1.2e-6 of dx's scale at V = 1000 (about what
    // either misses a double product by). bf16: the reference rounds 0.37 * dlogits to bf16,
    // the op 0.37 * (rounded dlogits): they differ by bf16's rounding (2^-9), not float32's.
    check_close(bf16 ? "bf16 upstream 0.37" : "fp32 upstream 0.37", &pb, &got2, &want2,
                bf16 ? 1e-2 : 2 * TOL);
    result_free(&want2);
    result_free(&got2);
    free(head0);
    // the thread count changes no bit
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    result one = run(&pb, 3, 1.0f, NULL, NULL);
    omp_set_num_threads(2);
    result two = run(&pb, 3, 1.0f, NULL, NULL);
    omp_set_num_threads(threads);
    CHECK_MSG(same_bits(&pb, &one, &two), "%s N %d V %d: 1 and 2 threads differ", prec, N, V);
    result_free(&one);
    result_free(&two);
    result_free(&want);
    problem_free(&pb);
}

// row_loss: -log softmax(logits)[target] in double, NaN where ignored; the loss is its mean.
static void check_row_loss(void) {
    problem pb;
    problem_init(&pb, 37, 12, 301, 4, 9);
    double *rl = malloc((size_t)pb.N * sizeof *rl);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.grad_enabled = 0; // as eval runs it
    ordo_tensor *loss = ordo_lm_head_loss(&ctx, pb.x, pb.head, pb.tg, 5, rl);
    CHECK(ctx.ntape == 0);
    double sum = 0;
    int count = 0;
    for (int i = 0; i < pb.N; i++) {
        if (pb.tg[i] < 0) {
            CHECK(isnan(rl[i]));
            continue;
        }
        // the reference logits row in double
        double lg[301], mx = -INFINITY, s = 0;
        for (int v = 0; v < pb.V; v++) {
            double d = 0;
            for (int c = 0; c < pb.C; c++)
                d += (double)pb.x->data[i * pb.C + c] * pb.head->data[v * pb.C + c];
            lg[v] = d;
            mx = fmax(mx, d);
        }
        for (int v = 0; v < pb.V; v++) s += exp(lg[v] - mx);
        CHECK_CLOSE(rl[i], mx + log(s) - lg[pb.tg[i]], 1e-5, 1e-6);
        sum += rl[i];
        count++;
    }
    float l1 = loss->data[0];
    CHECK_CLOSE(l1, sum / count, 0, 1e-7);
    // with a tape too: the same row losses, and the scalar their mean
    ctx.grad_enabled = 1;
    ordo_ctx_reset(&ctx);
    double *rl2 = malloc((size_t)pb.N * sizeof *rl2);
    ordo_tensor *l2 = ordo_lm_head_loss(&ctx, pb.x, pb.head, pb.tg, 0, rl2);
    for (int i = 0; i < pb.N; i++) CHECK(pb.tg[i] < 0 || fabs(rl2[i] - rl[i]) <= 1e-6 * rl[i]);
    CHECK_CLOSE(l2->data[0], l1, 0, 1e-6);
    free(rl);
    free(rl2);
    ordo_ctx_free(&ctx);
    problem_free(&pb);
}

// Evaluation's path makes only the scored rows' logits (lmhead.c, scored_row_losses): with a
// sliding window's pattern (the first 3/4 of each 16-row window ignored) and chunks that
// gather rows across windows, its row losses are those of the path that makes every row's.
static void check_scored_rows_only(int bf16) {
    enum { N = 64, W = 16 };
    problem pb;
    problem_init(&pb, N, 8, 300, 0, 11);
    for (int i = 0; i < N; i++)
        if (i % W < 3 * W / 4) pb.tg[i] = -1;
    if (bf16) { // as check_problem
        pb.head->flags |= ORDO_MATMUL_WEIGHT;
        ordo_params_bf16_enable(&pb.p);
        CHECK(pb.head->bf16 != NULL);
    }
    double eval[N], taped[N];
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    for (int pass = 0; pass < 2; pass++) {
        ctx.grad_enabled = pass; // 0: evaluation's path; 1: a tape, so every row's logits
        ordo_ctx_reset(&ctx);
        pb.x->bf16 = NULL;
        ordo_tensor *l = ordo_lm_head_loss(&ctx, pb.x, pb.head, pb.tg, 3, pass ? taped : eval);
        CHECK(pass || ctx.ntape == 0);
        CHECK(isfinite(l->data[0]) && l->data[0] > 0);
    }
    for (int i = 0; i < N; i++) {
        if (pb.tg[i] < 0) {
            CHECK(isnan(eval[i]));
            continue;
        }
        CHECK_MSG(fabs(eval[i] - taped[i]) <= 1e-6 * taped[i], "%s row %d: %.9g against %.9g",
                  bf16 ? "bf16" : "fp32", i, eval[i], taped[i]);
    }
    ordo_ctx_free(&ctx);
    problem_free(&pb);
}

// Every target ignored: loss 0, no gradient, and backward still runs.
static void check_all_ignored(void) {
    problem pb;
    problem_init(&pb, 6, 4, 9, 0, 3);
    for (int i = 0; i < pb.N; i++) pb.tg[i] = -1;
    result r = run(&pb, 2, 1.0f, NULL, NULL);
    CHECK(r.loss == 0.0f && max_abs(r.dx, pb.x->n) == 0 && max_abs(r.dhead, pb.head->n) == 0);
    result_free(&r);
    problem_free(&pb);
}

// The chunk size is a function of V alone, a multiple of 16.
static void check_chunk_rows(void) {
    CHECK(ordo_lm_head_chunk_rows(50257) == 320); // 16Mi floats / 50257 = 333.8
    CHECK(ordo_lm_head_chunk_rows(256) == 65536);
    CHECK(ordo_lm_head_chunk_rows(1 << 30) == 16);
}

// The GPT: the loss path (no logits, the chunked head) against the logits path, and
// ordo_gpt_forward_loss's row losses against the logits.
static void check_gpt(int bf16) {
    enum { V = 203, C = 16, L = 2, NH = 2, T = 9, B = 3 };
    int32_t in[B * T], tg[B * T];
    for (int i = 0; i < B * T; i++) {
        in[i] = (i * 7 + 3) % V;
        tg[i] = i % 5 == 4 ? -1 : (i * 11 + 1) % V;
    }
    for (int untied = 0; untied < 2; untied++) {
        ordo_gpt_config cfg = {.V = V,
                               .C = C,
                               .L = L,
                               .NH = NH,
                               .T_max = T,
                               .pos = ORDO_POS_ROPE,
                               .ln_eps = 1e-5f,
                               .untied_head = untied};
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &cfg, 4) == ORDO_OK);
        if (bf16) CHECK(ordo_gpt_set_precision(&m, ORDO_PRECISION_BF16) == ORDO_OK);
        size_t n = m.params.total;
        float *g_ref = malloc(n * sizeof(float)), *g_new = malloc(n * sizeof(float));
        ordo_ctx ctx;
        ordo_ctx_init(&ctx);
        ordo_tensor *lg, *l_ref, *l_new;
        CHECK(ordo_gpt_forward(&m, &ctx, in, tg, B, T, &lg, &l_ref) == ORDO_OK);
        ordo_params_zero_grad(&m.params);
        ordo_backward(&ctx, l_ref);
        memcpy(g_ref, m.params.grad, n * sizeof(float));
        float want = l_ref->data[0];
        ordo_ctx_reset(&ctx);
        CHECK(ordo_gpt_forward(&m, &ctx, in, tg, B, T, NULL, &l_new) == ORDO_OK);
        ordo_params_zero_grad(&m.params);
        ordo_backward(&ctx, l_new);
        memcpy(g_new, m.params.grad, n * sizeof(float));
        CHECK_CLOSE(l_new->data[0], want, 0, TOL);
        double e = scaled_err(g_new, g_ref, n);
        CHECK_MSG(e <= TOL, "gpt %s untied %d: gradient error %.3g", bf16 ? "bf16" : "fp32", untied,
                  e);
        // the row losses of eval, without a tape, against the logits
        ctx.grad_enabled = 0;
        ordo_ctx_reset(&ctx);
        CHECK(ordo_gpt_forward(&m, &ctx, in, NULL, B, T, &lg, NULL) == ORDO_OK);
        float *logits = malloc((size_t)B * T * V * sizeof(float));
        memcpy(logits, lg->data, (size_t)B * T * V * sizeof(float));
        ordo_ctx_reset(&ctx);
        double rl[B * T];
        ordo_tensor *l_rows;
        CHECK(ordo_gpt_forward_loss(&m, &ctx, in, tg, B, T, rl, &l_rows) == ORDO_OK);
        for (int i = 0; i < B * T; i++) {
            if (tg[i] < 0) {
                CHECK(isnan(rl[i]));
                continue;
            }
            const float *x = logits + (size_t)i * V;
            float mx = x[0];
            for (int v = 1; v < V; v++) mx = x[v] > mx ? x[v] : mx;
            double s = 0;
            for (int v = 0; v < V; v++) s += exp((double)x[v] - mx);
            CHECK_CLOSE(rl[i], mx + log(s) - x[tg[i]], 0, 1e-6);
        }
        CHECK_CLOSE(l_rows->data[0], want, 0, TOL);
        free(logits);
        free(g_ref);
        free(g_new);
        ordo_ctx_free(&ctx);
        ordo_gpt_free(&m);
    }
}

int main(void) {
    omp_set_num_threads(2);
    check_chunk_rows();
    check_row_loss();
    check_all_ignored();
    int bf = ordo_dnnl_bf16_available();
    if (!bf) printf("no bf16 on this CPU: the bf16 cases are skipped\n");
    for (int prec = 0; prec <= bf; prec++) {
        check_scored_rows_only(prec);
        check_problem(1, 3, 5, 0, prec);      // one row
        check_problem(20, 8, 33, 3, prec);    // ignored targets, chunks that do not divide N
        check_problem(64, 32, 1000, 7, prec); // a longer vocabulary
        // dx in slices of V (lmhead.c, DX_SLICE_MIN_V; fp32 only: bf16's dx is oneDNN's)
        if (!prec) check_problem(40, 16, 9001, 5, prec);
        check_gpt(prec);
    }
    TEST_MAIN_END();
}
