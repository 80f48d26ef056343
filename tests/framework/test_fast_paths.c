// Speed-ups must not change the numbers: a GPT step with activation-gradient recycling
// (ctx.reuse_grads) and with the chunked LM head (logits not taken; lmhead.h: here one chunk,
// the same products as the logits path) gives bit-identical parameter gradients to the plain
// path, for every position scheme, and the
// recycled step uses less arena memory; ordo_gemm's split of long products over threads
// agrees with a double-precision product for every transpose and both split sides.
#include <omp.h>
#include <string.h>

#include "framework/autograd.h"
#include "framework/kernels.h"
#include "framework/rng.h"
#include "models/gpt.h"
#include "test.h"

enum { V = 61, C = 16, L = 2, NH = 2, T = 12, B = 3 };

// One forward/backward; copies the gradient block to grad and returns the arena high water.
static size_t step(ordo_gpt *m, int reuse, int take_logits, const int32_t *in, const int32_t *tg,
                   float *grad, float *loss) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.reuse_grads = reuse;
    ordo_tensor *lg, *l;
    CHECK(ordo_gpt_forward(m, &ctx, in, tg, B, T, take_logits ? &lg : NULL, &l) == ORDO_OK);
    ordo_params_zero_grad(&m->params);
    ordo_backward(&ctx, l);
    memcpy(grad, m->params.grad, m->params.total * sizeof(float));
    *loss = l->data[0];
    size_t hw = ctx.arena.high_water;
    ordo_ctx_free(&ctx);
    return hw;
}

// C = alpha op(A) op(B) + beta C with M x N long enough on one side to be split.
static void check_gemm(int ta, int tb, int M, int N, int K) {
    ordo_rng r;
    ordo_rng_seed(&r, 7);
    float *Am = malloc((size_t)M * K * sizeof(float)), *Bm = malloc((size_t)K * N * sizeof(float));
    float *Cm = malloc((size_t)M * N * sizeof(float));
    for (size_t i = 0; i < (size_t)M * K; i++) Am[i] = (float)ordo_rng_normal(&r);
    for (size_t i = 0; i < (size_t)K * N; i++) Bm[i] = (float)ordo_rng_normal(&r);
    for (size_t i = 0; i < (size_t)M * N; i++) Cm[i] = (float)ordo_rng_normal(&r);
    int lda = ta ? M : K, ldb = tb ? K : N;
    double worst = 0;
    float *C0 = malloc((size_t)M * N * sizeof(float));
    memcpy(C0, Cm, (size_t)M * N * sizeof(float));
    ordo_gemm(ta, tb, M, N, K, 0.5f, Am, lda, Bm, ldb, 1.0f, Cm, N);
    for (int i = 0; i < M; i += 7)
        for (int j = 0; j < N; j += 5) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)(ta ? Am[(size_t)k * lda + i] : Am[(size_t)i * lda + k]) *
                     (tb ? Bm[(size_t)j * ldb + k] : Bm[(size_t)k * ldb + j]);
            double want = 0.5 * s + C0[(size_t)i * N + j], e = fabs(Cm[(size_t)i * N + j] - want);
            if (e > worst) worst = e;
        }
    CHECK_MSG(worst < 1e-4 * sqrt((double)K), "gemm ta=%d tb=%d %dx%dx%d: error %g", ta, tb, M, N,
              K, worst);
    free(Am);
    free(Bm);
    free(Cm);
    free(C0);
}

int main(void) {
    omp_set_num_threads(2); // the split needs more than one thread
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            check_gemm(ta, tb, 70, 4133, 96); // N long: split by columns
            check_gemm(ta, tb, 4133, 70, 96); // M long: split by rows
        }
    int32_t in[B * T], tg[B * T];
    for (int i = 0; i < B * T; i++) {
        in[i] = (i * 7 + 3) % V;
        tg[i] = i % 5 == 4 ? -1 : (i * 11 + 1) % V; // some ignored targets too
    }
    for (int pos = 0; pos < ORDO_POS_COUNT; pos++) {
        ordo_gpt_config cfg = {
            .V = V, .C = C, .L = L, .NH = NH, .T_max = T, .pos = pos, .ln_eps = 1e-5f};
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &cfg, 5) == ORDO_OK);
        size_t n = m.params.total;
        float *g0 = malloc(n * sizeof(float)), *g1 = malloc(n * sizeof(float)),
              *g2 = malloc(n * sizeof(float));
        float l0, l1, l2;
        size_t hw0 = step(&m, 0, 1, in, tg, g0, &l0);
        size_t hw1 = step(&m, 1, 0, in, tg, g1, &l1);
        step(&m, 0, 0, in, tg, g2, &l2);
        CHECK_MSG(memcmp(g0, g1, n * sizeof(float)) == 0, "pos %s: recycled grads differ",
                  ordo_pos_name(pos));
        CHECK_MSG(memcmp(g0, g2, n * sizeof(float)) == 0, "pos %s: chunked-head grads differ",
                  ordo_pos_name(pos));
        CHECK_MSG(l0 == l1 && l0 == l2,
                  "pos %s: losses %.9g (plain), %.9g (recycled), %.9g (chunked head)",
                  ordo_pos_name(pos), l0, l1, l2);
        CHECK_MSG(hw1 < hw0, "pos %s: arena %zu with recycling, %zu without", ordo_pos_name(pos),
                  hw1, hw0);
        double norm = 0;
        for (size_t i = 0; i < n; i++) norm += fabs(g0[i]);
        CHECK(norm > 0);
        free(g0);
        free(g1);
        free(g2);
        ordo_gpt_free(&m);
    }
    TEST_MAIN_END();
}
