// Forward values of the ops against direct double-precision computations: numerically
// hard inputs (huge logits), ignored targets, the causal mask, broadcasting, and the
// per-step arena (no system allocation after the first step).
#include <math.h>
#include <string.h>

#include "framework/autograd.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "test.h"

static void test_cross_entropy_stable(void) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    int N = 4, V = 5;
    ordo_tensor *lg = ordo_tensor_new2(&ctx, N, V);
    const float rowsv[4][5] = {{1e4f, 0, -1e4f, 3, 1e4f - 1},
                               {-3e4f, -3e4f + 2, -3e4f + 1, -3e4f, -3e4f},
                               {88.0f, 89.0f, 90.0f, -100.0f, 0.5f},
                               {0, 0, 0, 0, 0}};
    memcpy(lg->data, rowsv, sizeof rowsv);
    int32_t tg[4] = {4, 1, 2, -1};
    ordo_tensor *loss = ordo_cross_entropy(&ctx, lg, tg);
    double want = 0;
    for (int i = 0; i < 3; i++) {
        double mx = -INFINITY, s = 0;
        for (int v = 0; v < V; v++) mx = fmax(mx, rowsv[i][v]);
        for (int v = 0; v < V; v++) s += exp(rowsv[i][v] - mx);
        want += mx + log(s) - rowsv[i][tg[i]];
    }
    want /= 3; // the ignored row is not counted
    CHECK(isfinite(loss->data[0]));
    CHECK_CLOSE(loss->data[0], want, 1e-5, 1e-5);
    // all targets ignored: loss 0, not NaN
    int32_t none[4] = {-1, -1, -1, -1};
    ordo_tensor *l0 = ordo_cross_entropy(&ctx, lg, none);
    CHECK(l0->data[0] == 0.0f);
    ordo_ctx_free(&ctx);
}

static void test_attention_causal(void) {
    // changing a future token's k or v must not change earlier outputs
    ordo_rng r;
    ordo_rng_seed(&r, 5);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    int B = 2, T = 6, C = 8, NH = 2;
    ordo_tensor *qkv = ordo_tensor_new3(&ctx, B, T, 3 * C);
    for (size_t i = 0; i < qkv->n; i++) qkv->data[i] = (float)ordo_rng_normal(&r);
    ordo_tensor *y1 = ordo_attention(&ctx, qkv, NULL, NH);
    for (int c = C; c < 3 * C; c++) qkv->data[(size_t)(0 * T + 4) * 3 * C + c] += 3.0f;
    ordo_tensor *y2 = ordo_attention(&ctx, qkv, NULL, NH);
    int same_before = 1, changed_after = 0;
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            float d = fabsf(y1->data[(size_t)t * C + c] - y2->data[(size_t)t * C + c]);
            if (t < 4 && d != 0.0f) same_before = 0;
            if (t >= 4 && d > 0.0f) changed_after = 1;
        }
    CHECK(same_before);
    CHECK(changed_after);
    // the first row attends only to itself: out[0] = v[0]
    for (int c = 0; c < C; c++) CHECK_CLOSE(y1->data[c], qkv->data[2 * C + c], 1e-6, 0);
    ordo_ctx_free(&ctx);
}

static void test_arena_steady_state(void) {
    // the same step run twice allocates nothing from the system the second time
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *w = ordo_params_add(&p, "w", 2, (int[]){16, 16}, 0);
    ordo_params_alloc(&p);
    for (size_t i = 0; i < w->n; i++) w->data[i] = 0.01f * (float)i;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.arena.chunk_size = 4096; // force a spill over several chunks on the first step
    size_t after_first = 0;
    for (int step = 0; step < 3; step++) {
        ordo_ctx_reset(&ctx);
        ordo_tensor *x = ordo_tensor_new3(&ctx, 4, 8, 16);
        for (size_t i = 0; i < x->n; i++) x->data[i] = 0.001f * (float)i;
        ordo_tensor *h = ordo_gelu(&ctx, ordo_matmul(&ctx, x, w, 0));
        ordo_backward(&ctx, ordo_sum(&ctx, h));
        if (step == 1) after_first = ctx.arena.system_allocs;
    }
    CHECK(ctx.arena.system_allocs == after_first);
    CHECK(ctx.arena.system_allocs >= 2);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

static void test_tied_use_accumulates(void) {
    // one table used twice (gather and tied head): its gradient is the sum of both paths
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *wte = ordo_params_add(&p, "wte", 2, (int[]){5, 3}, 0);
    ordo_params_alloc(&p);
    ordo_rng r;
    ordo_rng_seed(&r, 9);
    for (size_t i = 0; i < wte->n; i++) wte->data[i] = (float)ordo_rng_normal(&r);
    int32_t ids[2] = {1, 1};
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *x = ordo_embedding(&ctx, wte, ids, 1, (int[]){2});
    ordo_backward(&ctx, ordo_sum(&ctx, ordo_matmul(&ctx, x, wte, 1)));
    // d/dwte of sum(x @ wte^T): head path gives colsum(x) to every row; gather path gives
    // rowsum(wte) (= sum over V of wte[v]) to row 1, twice.
    for (int v = 0; v < 5; v++)
        for (int c = 0; c < 3; c++) {
            double head = wte->data[1 * 3 + c] * 2.0;
            double gather = 0;
            if (v == 1)
                for (int u = 0; u < 5; u++) gather += 2.0 * wte->data[u * 3 + c];
            CHECK_CLOSE(wte->grad[v * 3 + c], head + gather, 1e-5, 1e-5);
        }
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

int main(void) {
    test_cross_entropy_stable();
    test_attention_causal();
    test_arena_steady_state();
    test_tied_use_accumulates();
    TEST_MAIN_END();
}
