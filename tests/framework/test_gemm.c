// ordo's own AVX-512 sgemm (framework/gemm.c) against a double-precision product: every
// transpose, alpha and beta (0 must not read C: it is filled with NaN), leading dimensions
// wider than the matrix, and sizes on both sides of each blocking edge (MR 12, NR 32, KC 384,
// MB 3072, NB 256; products of 2^24+ multiply-adds are split over threads). The result must
// not depend on the thread count or on being called from inside a parallel region
// (bitwise), two host threads multiplying at the same time must not disturb each other, and
// ordo_gemm must route large products to it.
// Exits 77 (SKIP) where the build or the CPU has no AVX-512.
#include <omp.h>
#include <pthread.h>
#include <string.h>

#include "framework/gemm.h"
#include "framework/kernels.h"
#include "framework/rng.h"
#include "test.h"

static float *randn(ordo_rng *r, size_t n) {
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = (float)ordo_rng_normal(r);
    return p;
}

typedef struct {
    int ta, tb, M, N, K, pad; // pad: extra columns in every leading dimension
    float alpha, beta;
} shape;

// Runs one product with 1, 2 and 3 threads and from inside a parallel region, checks all four
// are identical and that sampled elements match the double-precision product within a bound
// that grows with the sum of |a||b| over k (the float rounding of K accumulations).
static void check(shape s) {
    ordo_rng r;
    ordo_rng_seed(&r, (uint64_t)(s.M * 131 + s.N * 7 + s.K));
    int ar = s.ta ? s.K : s.M, ac = s.ta ? s.M : s.K; // A as stored
    int br = s.tb ? s.N : s.K, bc = s.tb ? s.K : s.N;
    int lda = ac + s.pad, ldb = bc + s.pad, ldc = s.N + s.pad;
    float *A = randn(&r, (size_t)ar * lda), *B = randn(&r, (size_t)br * ldb);
    float *C0 = randn(&r, (size_t)s.M * ldc);
    if (s.beta == 0.0f)
        for (size_t i = 0; i < (size_t)s.M * ldc; i++) C0[i] = NAN;
    float *out[4];
    for (int v = 0; v < 4; v++) {
        out[v] = malloc((size_t)s.M * ldc * sizeof(float));
        memcpy(out[v], C0, (size_t)s.M * ldc * sizeof(float));
        if (v < 3) {
            omp_set_num_threads(v + 1);
            ordo_gemm_own(s.ta, s.tb, s.M, s.N, s.K, s.alpha, A, lda, B, ldb, s.beta, out[v], ldc);
        } else {
            omp_set_num_threads(2);
#pragma omp parallel num_threads(2)
            if (omp_get_thread_num() == 1)
                ordo_gemm_own(s.ta, s.tb, s.M, s.N, s.K, s.alpha, A, lda, B, ldb, s.beta, out[v],
                              ldc);
        }
    }
    for (int v = 1; v < 4; v++)
        CHECK_MSG(memcmp(out[0], out[v], (size_t)s.M * ldc * sizeof(float)) == 0,
                  "ta=%d tb=%d %dx%dx%d: variant %d differs from 1 thread", s.ta, s.tb, s.M, s.N,
                  s.K, v);
    double worst = 0;
    int bad_pad = 0;
    size_t step = (size_t)s.M * s.N > 20000 ? 97 : 1;
    for (size_t e = 0; e < (size_t)s.M * s.N; e += step) {
        int i = (int)(e / s.N), j = (int)(e % s.N);
        double sum = 0, mag = 0;
        for (int k = 0; k < s.K; k++) {
            double a = s.ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
            double b = s.tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
            sum += a * b;
            mag += fabs(a * b);
        }
        double c0 = s.beta == 0.0f ? 0.0 : C0[(size_t)i * ldc + j];
        double want = s.alpha * sum + s.beta * c0;
        double bound = 1e-6 * (fabs(s.alpha) * mag + fabs(s.beta * c0)) * (1 + sqrt(s.K)) + 1e-30;
        double err = fabs(out[0][(size_t)i * ldc + j] - want) / bound;
        if (!(err <= worst)) worst = err; // NaN counts as worst
    }
    for (int i = 0; i < s.M; i++) // the padding columns of C are never written
        for (int j = s.N; j < ldc; j++) {
            float a = out[0][(size_t)i * ldc + j], b = C0[(size_t)i * ldc + j];
            bad_pad += memcmp(&a, &b, sizeof a) != 0;
        }
    CHECK_MSG(worst <= 1.0, "ta=%d tb=%d %dx%dx%d alpha %g beta %g: error %.3g of bound", s.ta,
              s.tb, s.M, s.N, s.K, s.alpha, s.beta, worst);
    CHECK_MSG(bad_pad == 0, "ta=%d tb=%d %dx%dx%d: %d padding elements written", s.ta, s.tb, s.M,
              s.N, s.K, bad_pad);
    for (int v = 0; v < 4; v++) free(out[v]);
    free(A);
    free(B);
    free(C0);
}

// Two host threads (each with its own OpenMP team) run products at the same time, again and
// again; each must get the bits it gets alone (the packing buffers are per thread).
typedef struct {
    const float *A, *B, *want;
    int M, N, K, bad;
} job;

static void *repeat(void *arg) {
    job *j = arg;
    float *C = malloc((size_t)j->M * j->N * sizeof(float));
    omp_set_num_threads(2);
    for (int r = 0; r < 20; r++) {
        ordo_gemm_own(0, 0, j->M, j->N, j->K, 1.0f, j->A, j->K, j->B, j->N, 0.0f, C, j->N);
        j->bad += memcmp(C, j->want, (size_t)j->M * j->N * sizeof(float)) != 0;
    }
    free(C);
    return NULL;
}

static void check_concurrent(void) {
    enum { M = 700, N = 300, K = 500 };
    ordo_rng r;
    ordo_rng_seed(&r, 11);
    job jobs[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        float *A = randn(&r, (size_t)M * K), *B = randn(&r, (size_t)K * N);
        float *want = malloc((size_t)M * N * sizeof(float));
        omp_set_num_threads(2);
        ordo_gemm_own(0, 0, M, N, K, 1.0f, A, K, B, N, 0.0f, want, N);
        jobs[t] = (job){A, B, want, M, N, K, 0};
    }
    for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, repeat, &jobs[t]) == 0);
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        CHECK_MSG(jobs[t].bad == 0, "host thread %d: %d of 20 products differ", t, jobs[t].bad);
        free((void *)jobs[t].A);
        free((void *)jobs[t].B);
        free((void *)jobs[t].want);
    }
}

int main(void) {
    if (!ordo_gemm_own_available()) {
        printf("SKIP: no AVX-512 kernel in this build or on this CPU\n");
        return 77;
    }
    // (M, N, K) around every blocking edge, small and odd
    static const int dims[][3] = {
        {1, 1, 1},     {12, 32, 1},    {11, 31, 7},    {13, 33, 385},    {25, 65, 384},
        {192, 96, 5},  {193, 97, 769}, {37, 3073, 64}, {3100, 40, 130},  {200, 3200, 400},
        {1, 4000, 33}, {4000, 1, 33},  {7, 5, 2000},   {1000, 301, 100}, {90, 2001, 100},
    };
    static const float ab[][2] = {{1, 0}, {1, 1}, {0.5f, 1}, {-2, 0.25f}};
    int n = 0;
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int t = 0; t < 4; t++) {
            const float *x = ab[(d + t) % 4];
            shape s = {t >> 1,           t & 1, dims[d][0], dims[d][1], dims[d][2],
                       (int)(d % 3) * 5, x[0],  x[1]};
            check(s);
            n++;
        }
    printf("%d products checked\n", n);
    check_concurrent();

    // ordo_gemm sends a large product to the kernel: same bits as calling it directly
    // (where it uses the kernel at all: not with ORDO_GEMM=blas, nor where OpenBLAS has
    // AVX-512 kernels itself)
    printf("ordo_gemm backend: %s\n", ordo_gemm_backend());
    if (strncmp(ordo_gemm_backend(), "ordo", 4) == 0) {
        enum { M = 300, N = 200, K = 100 };
        ordo_rng r;
        ordo_rng_seed(&r, 3);
        float *A = randn(&r, M * K), *B = randn(&r, K * N), *C1 = calloc(M * N, sizeof(float)),
              *C2 = calloc(M * N, sizeof(float));
        omp_set_num_threads(2);
        ordo_gemm(0, 0, M, N, K, 1.0f, A, K, B, N, 0.0f, C1, N);
        ordo_gemm_own(0, 0, M, N, K, 1.0f, A, K, B, N, 0.0f, C2, N);
        CHECK(memcmp(C1, C2, sizeof(float) * M * N) == 0);
        free(A);
        free(B);
        free(C1);
        free(C2);
    }
    TEST_MAIN_END();
}
