// ordo_gemm's promise (blas.h): each C element does not depend on the thread count. CTest
// runs this under every OpenBLAS core type the project's machines use (OPENBLAS_CORETYPE
// unset, Haswell, SkylakeX, Zen): with the Haswell and Zen kernels OpenBLAS's own threading,
// or any cut of C that moves with the thread count, changes the rounding.
// Products of every size class blas.c tells apart (one thread; cut into blocks by shape;
// ordo's kernel where the policy sends them), every transpose, alpha and beta, skewed and
// square, at 1, 2 and 3 threads: bitwise equal. Also the whole rule's point, the OpenBLAS
// core it ran on is printed, and a forced core type that this CPU cannot run is a SKIP (77).
#include <cblas.h>
#include <omp.h>
#include <string.h>
#include <strings.h>

#include "framework/blas.h"
#include "framework/rng.h"
#include "framework/threads.h"
#include "test.h"

static float *randn(ordo_rng *r, size_t n) {
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = (float)ordo_rng_normal(r);
    return p;
}

// One product at 1, 2 and 3 threads; 1 is the reference.
static void check(int ta, int tb, int M, int N, int K, float alpha, float beta) {
    ordo_rng r;
    ordo_rng_seed(&r, (uint64_t)M * 1000003u + (uint64_t)N * 101u + (uint64_t)K);
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = randn(&r, na), *B = randn(&r, nb), *C0 = randn(&r, nc);
    float *ref = malloc(nc * sizeof *ref), *got = malloc(nc * sizeof *got);
    int lda = ta ? M : K, ldb = tb ? K : N;
    for (int t = 1; t <= 3; t++) {
        float *c = t == 1 ? ref : got;
        memcpy(c, C0, nc * sizeof *c);
        ordo_set_threads(t);
        ordo_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, c, N);
        if (t == 1) continue;
        size_t diff = 0;
        for (size_t i = 0; i < nc; i++) diff += memcmp(&ref[i], &got[i], sizeof(float)) != 0;
        CHECK_MSG(diff == 0,
                  "%s%s M %d N %d K %d alpha %g beta %g: %zu of %zu elements differ "
                  "between 1 and %d threads",
                  ta ? "A^T" : "A", tb ? " B^T" : " B", M, N, K, alpha, beta, diff, nc, t);
    }
    free(A), free(B), free(C0), free(ref), free(got);
}

// Whether the CPU can run the kernels OPENBLAS_CORETYPE asks for, and whether OpenBLAS took them.
static int coretype_usable(void) {
    const char *want = getenv("OPENBLAS_CORETYPE");
    if (!want || !*want) return 1;
#if defined(__x86_64__) || defined(__i386__) // x86 core types only (arm64: OpenBLAS's differ)
    __builtin_cpu_init();
    if ((!strcasecmp(want, "SkylakeX") || !strcasecmp(want, "Cooperlake")) &&
        !__builtin_cpu_supports("avx512f"))
        return 0;
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
#endif
    const char *got = openblas_get_corename();
    return got && strcasecmp(got, want) == 0;
}

int main(void) {
    if (!coretype_usable()) {
        printf("SKIP: OPENBLAS_CORETYPE=%s is not what OpenBLAS runs here (%s)\n",
               getenv("OPENBLAS_CORETYPE"), openblas_get_corename());
        return 77;
    }
    char buf[256];
    printf("%s\n", ordo_blas_describe(buf, sizeof buf));
    // (M, N, K): the shapes of the tiny models the CLI tests train (B*T = 128, C 32), of
    // bench's small (2048 rows, C 256, 4C), square-ish ones between the thresholds, and the
    // LM head's skewed ones (a vocabulary by a few rows)
    static const int shapes[][3] = {
        {128, 96, 32},   {128, 32, 96},    {96, 128, 32},    {32, 96, 128},    {256, 256, 256},
        {512, 512, 64},  {1000, 100, 100}, {2048, 768, 256}, {256, 2048, 256}, {777, 333, 129},
        {50257, 64, 32}, {64, 50257, 32},  {32, 64, 4096},   {3000, 1, 7},
    };
    static const float ab[][2] = {{1.0f, 0.0f}, {0.5f, 1.0f}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (int k = 0; k < 2; k++)
                check(t & 1, t >> 1, shapes[s][0], shapes[s][1], shapes[s][2], ab[k][0], ab[k][1]);
    TEST_MAIN_END();
}
