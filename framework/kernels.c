// Row-wise kernels (elementwise, layernorm, gelu, softmax, cross-entropy, embedding)
// and the sgemm wrapper. Rows run in parallel with OpenMP; reductions into parameter
// gradients run over columns so that their result does not depend on the thread count.
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "framework/gemm.h"
#include "framework/kernels.h"

// OpenBLAS's OpenMP build (openblas_get_parallel() == 2), asked once.
static int blas_openmp(void) {
    static int v = -1;
    if (v < 0) v = openblas_get_parallel() == 2;
    return v;
}

// Below this many scalar operations a parallel region costs more than it saves.
#define PAR_MIN 32768
// Columns per block in the reductions over rows (parameter gradients).
#define COLS 64

// exp(x) for the softmaxes and tanh, written so that GCC vectorises the loops that call
// it (glibc's expf is a scalar call: with it, the softmax-cross-entropy over [512, 50257]
// took as long as the LM head's matmuls). Cephes' expf: x = n ln2 + r, |r| <= ln2/2, a
// degree-6 polynomial for e^r and 2^n through the exponent bits; within 2 ulp of expf on
// [-87, 88], and x is clamped to that range (e^-87 ~ 1.6e-38: zero for every use here).
static inline float exp_f(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    // round to nearest by the 1.5*2^23 trick: floorf is a libm call unless -fno-trapping-math
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * r * r + r + 1.0f;
    // 2^n, n in [-126, 127]; unsigned, so that a NaN x (n = INT_MIN after the cast) gives
    // some bits rather than undefined behaviour, and the NaN in y still comes through
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float p2;
    memcpy(&p2, &bits, sizeof p2);
    return y * p2;
}

float ordo_exp_sum(float *out, const float *x, float shift, int n) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < n; i++) {
        out[i] = exp_f(x[i] - shift);
        s += out[i];
    }
    return s;
}

static float row_max(const float *x, int n) {
    float mx = -INFINITY;
#pragma omp simd reduction(max : mx)
    for (int i = 0; i < n; i++) mx = x[i] > mx ? x[i] : mx;
    return mx;
}

static void sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
                K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// Products with one side of C much longer than the other (the LM head: 50257 by 512 or
// 2048) are split along that side into one slice per thread, each a single-threaded sgemm
// (OpenBLAS's OpenMP build runs single-threaded inside a parallel region). OpenBLAS's own
// threads share packed panels and wait for each other with sched_yield; the slices share
// nothing. Each C element is computed as before, so results do not change. Measured on the
// tiny config, 2 threads, 5 interleaved pairs: median 645 ms/step against 745 (CPU 282/313).
// Only with the OpenMP build of OpenBLAS (with the pthreads build the slices would each
// start OpenBLAS threads too).
#define SPLIT_MIN   ((size_t)1 << 24) // M*N*K
#define SPLIT_RATIO 4

// ordo's own AVX-512 kernel (gemm.c) for products of at least OWN_MIN multiply-adds, where
// its packing pays off (below, OpenBLAS's small-matrix paths win), and only while OpenBLAS
// runs AVX2 kernels on an AVX-512 CPU: on the bench machine (OPENBLAS_CORETYPE=Haswell) it
// beat OpenBLAS on every product of the bench models, but OpenBLAS's own AVX-512 kernels
// (SkylakeX, Cooperlake, SapphireRapids), chosen when that variable is unset, beat its first
// version by 25% on `small` and are within 5% of the final one (docs/performance.md).
// ORDO_GEMM=blas keeps every product on OpenBLAS; ORDO_GEMM=own sends every product, however small,
// to the kernel (the tests run the PyTorch parity checks so). Decided once per process, so that a
// run never mixes the two.
#define OWN_MIN ((size_t)1 << 21)

enum { GEMM_BLAS, GEMM_AUTO, GEMM_OWN };

static int blas_has_avx512(void) {
    const char *core = openblas_get_corename();
    static const char *const wide[] = {"skylakex", "cooperlake", "sapphirerapids"};
    for (size_t i = 0; core && i < sizeof wide / sizeof wide[0]; i++)
        if (strcasecmp(core, wide[i]) == 0) return 1;
    return 0;
}

static int gemm_policy(void) {
    static _Atomic int v = -1; // attention calls ordo_gemm from several threads at once
    if (v < 0) {
        const char *e = getenv("ORDO_GEMM");
        if (!ordo_gemm_own_available() || (e && strcmp(e, "blas") == 0))
            v = GEMM_BLAS;
        else if (e && strcmp(e, "own") == 0)
            v = GEMM_OWN;
        else
            v = blas_has_avx512() ? GEMM_BLAS : GEMM_AUTO;
    }
    return v;
}

const char *ordo_gemm_backend(void) {
    static const char *const name[] = {"openblas", "ordo-avx512 for large products",
                                       "ordo-avx512 for all products"};
    return name[gemm_policy()];
}

void ordo_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
               const float *B, int ldb, float beta, float *C, int ldc) {
    int policy = gemm_policy();
    if (M > 0 && N > 0 && K > 0 &&
        (policy == GEMM_OWN || (policy == GEMM_AUTO && (size_t)M * N * K >= OWN_MIN))) {
        ordo_gemm_own(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    int nt = omp_in_parallel() ? 1 : omp_get_max_threads();
    int split_m = M >= SPLIT_RATIO * N, split_n = N >= SPLIT_RATIO * M;
    if (nt < 2 || (size_t)M * N * K < SPLIT_MIN || !(split_m || split_n) || !blas_openmp()) {
        sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    int len = split_m ? M : N, chunk = ((len + nt - 1) / nt + 63) / 64 * 64;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int p = 0; p < nt; p++) {
        int lo = p * chunk, n = len - lo < chunk ? len - lo : chunk;
        if (n <= 0) continue;
        if (split_m) // rows lo.. of op(A) and C
            sgemm(ta, tb, n, N, K, alpha, ta ? A + lo : A + (size_t)lo * lda, lda, B, ldb, beta,
                  C + (size_t)lo * ldc, ldc);
        else // columns lo.. of op(B) and C
            sgemm(ta, tb, M, n, K, alpha, A, lda, tb ? B + (size_t)lo * ldb : B + lo, ldb, beta,
                  C + lo, ldc);
    }
}

void ordo_add_forward(float *out, const float *a, const float *b, size_t outer, size_t inner) {
#pragma omp parallel for if (outer * inner > PAR_MIN)
    for (size_t i = 0; i < outer; i++)
        for (size_t j = 0; j < inner; j++) out[i * inner + j] = a[i * inner + j] + b[j];
}

void ordo_add_backward(float *da, float *db, const float *dout, size_t outer, size_t inner) {
    if (da) {
        size_t n = outer * inner;
#pragma omp parallel for if (n > PAR_MIN)
        for (size_t i = 0; i < n; i++) da[i] += dout[i];
    }
    if (db) {
        // Column sums a block of COLS columns at a time, rows in order: the same additions
        // in the same order as one column at a time (bit-identical, any thread count), but
        // reading rows contiguously instead of with a stride of `inner` floats.
#pragma omp parallel for if (outer * inner > PAR_MIN)
        for (size_t j0 = 0; j0 < inner; j0 += COLS) {
            size_t nj = inner - j0 < COLS ? inner - j0 : COLS;
            float s[COLS] = {0};
            for (size_t i = 0; i < outer; i++) {
                const float *g = dout + i * inner + j0;
                for (size_t j = 0; j < nj; j++) s[j] += g[j];
            }
            for (size_t j = 0; j < nj; j++) db[j0 + j] += s[j];
        }
    }
}

void ordo_mul_forward(float *out, const float *a, const float *b, size_t outer, size_t inner) {
#pragma omp parallel for if (outer * inner > PAR_MIN)
    for (size_t i = 0; i < outer; i++)
        for (size_t j = 0; j < inner; j++) out[i * inner + j] = a[i * inner + j] * b[j];
}

void ordo_mul_backward(float *da, float *db, const float *dout, const float *a, const float *b,
                       size_t outer, size_t inner) {
    if (da) {
#pragma omp parallel for if (outer * inner > PAR_MIN)
        for (size_t i = 0; i < outer; i++)
            for (size_t j = 0; j < inner; j++) da[i * inner + j] += dout[i * inner + j] * b[j];
    }
    if (db) { // column blocks as in ordo_add_backward
#pragma omp parallel for if (outer * inner > PAR_MIN)
        for (size_t j0 = 0; j0 < inner; j0 += COLS) {
            size_t nj = inner - j0 < COLS ? inner - j0 : COLS;
            float s[COLS] = {0};
            for (size_t i = 0; i < outer; i++) {
                const float *g = dout + i * inner + j0, *x = a + i * inner + j0;
                for (size_t j = 0; j < nj; j++) s[j] += g[j] * x[j];
            }
            for (size_t j = 0; j < nj; j++) db[j0 + j] += s[j];
        }
    }
}

void ordo_bias_backward(float *dbias, const float *dout, int N, int C) {
    ordo_add_backward(NULL, dbias, dout, (size_t)N, (size_t)C);
}

void ordo_embedding_forward(float *out, const float *table, const int32_t *ids, int N, int C) {
#pragma omp parallel for if ((size_t)N * C > PAR_MIN)
    for (int i = 0; i < N; i++)
        memcpy(out + (size_t)i * C, table + (size_t)ids[i] * C, (size_t)C * sizeof(float));
}

void ordo_embedding_backward(float *dtable, const float *dout, const int32_t *ids, int N, int C) {
    // Serial over rows: two rows with the same id add into the same table row.
    for (int i = 0; i < N; i++) {
        float *d = dtable + (size_t)ids[i] * C;
        const float *g = dout + (size_t)i * C;
        for (int c = 0; c < C; c++) d[c] += g[c];
    }
}

void ordo_layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                            const float *b, int N, int C, float eps) {
#pragma omp parallel for if ((size_t)N * C > PAR_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        float m = 0.0f;
        for (int c = 0; c < C; c++) m += x[c];
        m /= C;
        float v = 0.0f;
        for (int c = 0; c < C; c++) v += (x[c] - m) * (x[c] - m);
        v /= C;
        float s = 1.0f / sqrtf(v + eps);
        float *o = out + (size_t)i * C;
        for (int c = 0; c < C; c++) o[c] = (x[c] - m) * s * w[c] + b[c];
        mean[i] = m;
        rstd[i] = s;
    }
}

void ordo_layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                             const float *w, const float *mean, const float *rstd, int N, int C) {
    if (dinp) {
#pragma omp parallel for if ((size_t)N * C > PAR_MIN)
        for (int i = 0; i < N; i++) {
            const float *x = inp + (size_t)i * C, *g = dout + (size_t)i * C;
            float m = mean[i], s = rstd[i];
            float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
            for (int c = 0; c < C; c++) {
                float dn = w[c] * g[c];
                dnorm_mean += dn;
                dnorm_norm_mean += dn * (x[c] - m) * s;
            }
            dnorm_mean /= C;
            dnorm_norm_mean /= C;
            float *dx = dinp + (size_t)i * C;
            for (int c = 0; c < C; c++) {
                float norm = (x[c] - m) * s;
                dx[c] += (w[c] * g[c] - dnorm_mean - norm * dnorm_norm_mean) * s;
            }
        }
    }
    if (dw || db) { // column blocks as in ordo_add_backward
#pragma omp parallel for if ((size_t)N * C > PAR_MIN)
        for (int c0 = 0; c0 < C; c0 += COLS) {
            int nc = C - c0 < COLS ? C - c0 : COLS;
            float sw[COLS] = {0}, sb[COLS] = {0};
            for (int i = 0; i < N; i++) {
                const float *g = dout + (size_t)i * C + c0, *x = inp + (size_t)i * C + c0;
                float m = mean[i], r = rstd[i];
                for (int c = 0; c < nc; c++) {
                    sw[c] += g[c] * (x[c] - m) * r;
                    sb[c] += g[c];
                }
            }
            for (int c = 0; c < nc; c++) {
                if (dw) dw[c0 + c] += sw[c];
                if (db) db[c0 + c] += sb[c];
            }
        }
    }
}

#define GELU_K 0.7978845608028654f // sqrt(2/pi)

// tanh through the vectorisable exp; absolute error ~1e-7 (relative near 0 is worse, but
// GELU only ever uses 1 + tanh and 1 - tanh^2).
static inline float tanh_f(float u) {
    return 1.0f - 2.0f / (1.0f + exp_f(2.0f * u));
}

void ordo_gelu_forward(float *out, const float *inp, size_t n) {
#pragma omp parallel for if (n > PAR_MIN)
    for (size_t i = 0; i < n; i++) {
        float x = inp[i];
        out[i] = 0.5f * x * (1.0f + tanh_f(GELU_K * (x + 0.044715f * x * x * x)));
    }
}

void ordo_gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
#pragma omp parallel for if (n > PAR_MIN)
    for (size_t i = 0; i < n; i++) {
        float x = inp[i];
        float u = GELU_K * (x + 0.044715f * x * x * x);
        float th = tanh_f(u);
        float sech2 = 1.0f - th * th;
        float local =
            0.5f * (1.0f + th) + 0.5f * x * sech2 * GELU_K * (1.0f + 3 * 0.044715f * x * x);
        dinp[i] += local * dout[i];
    }
}

void ordo_softmax_forward(float *out, const float *inp, int N, int C) {
#pragma omp parallel for if ((size_t)N * C > PAR_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        float *o = out + (size_t)i * C;
        float inv = 1.0f / ordo_exp_sum(o, x, row_max(x, C), C);
        for (int c = 0; c < C; c++) o[c] *= inv;
    }
}

void ordo_softmax_backward(float *dinp, const float *dout, const float *out, int N, int C) {
#pragma omp parallel for if ((size_t)N * C > PAR_MIN)
    for (int i = 0; i < N; i++) {
        const float *g = dout + (size_t)i * C, *y = out + (size_t)i * C;
        float dot = 0.0f;
        for (int c = 0; c < C; c++) dot += g[c] * y[c];
        float *dx = dinp + (size_t)i * C;
        for (int c = 0; c < C; c++) dx[c] += y[c] * (g[c] - dot);
    }
}

double ordo_crossentropy_forward(float *stats, const float *logits, const int32_t *targets, int N,
                                 int V, int *count) {
    double total = 0.0;
    int cnt = 0;
#pragma omp parallel for reduction(+ : total, cnt) if ((size_t)N * V > PAR_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = logits + (size_t)i * V;
        float mx = row_max(x, V);
        // double across blocks: V can be 50257 and the loss must match PyTorch closely;
        // float lanes within a block of 1024 so that the exp loop vectorises
        double s = 0.0;
        for (int v0 = 0; v0 < V; v0 += 1024) {
            int n = V - v0 < 1024 ? V - v0 : 1024;
            const float *xb = x + v0;
            float sb = 0.0f;
#pragma omp simd reduction(+ : sb)
            for (int v = 0; v < n; v++) sb += exp_f(xb[v] - mx);
            s += sb;
        }
        // keep max and log-sum apart: folded into one float, a logit of 1e4 would leave
        // only ~1e-3 of precision for the log-sum
        stats[i] = mx;
        stats[N + i] = (float)log(s);
        if (targets[i] >= 0) {
            total += ((double)mx - x[targets[i]]) + log(s);
            cnt++;
        }
    }
    *count = cnt;
    return cnt ? total / cnt : 0.0;
}

void ordo_crossentropy_backward(float *dlogits, const float *logits, const float *stats,
                                const int32_t *targets, int N, int V, float scale) {
#pragma omp parallel for if ((size_t)N * V > PAR_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = logits + (size_t)i * V;
        float *d = dlogits + (size_t)i * V;
        if (targets[i] < 0) {
            if (d == x) memset(d, 0, (size_t)V * sizeof(float)); // an ignored row has no grad
            continue;
        }
        float mx = stats[i], ls = stats[N + i];
        if (d == x) { // in place: the logits row becomes its gradient
#pragma omp simd
            for (int v = 0; v < V; v++) d[v] = scale * exp_f((x[v] - mx) - ls);
        } else {
#pragma omp simd
            for (int v = 0; v < V; v++) d[v] += scale * exp_f((x[v] - mx) - ls);
        }
        d[targets[i]] -= scale;
    }
}
