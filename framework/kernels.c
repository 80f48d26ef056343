// Row-wise kernels (elementwise, layernorm, gelu, softmax, cross-entropy, embedding).
// Rows run in parallel with OpenMP, on one thread below ORDO_PAR_LOOP_MIN scalar operations
// (blas.h); reductions into parameter gradients run over columns so that their result does
// not depend on the thread count. The matrix product is blas.c's (ordo_gemm).
#include <math.h>
#include <string.h>

#include "sys/error.h"
#include "framework/kernels.h"
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
    float t = x * 1.44269504088896341f + 12582912.0f;
    float n = t - 12582912.0f;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * r * r + r + 1.0f;
    // 2^n, n in [-126, 127], from t's low mantissa bits (t = 1.5*2^23 + n: they hold 2^22 + n)
    // rather than a float-to-int conversion, which is undefined for the NaN n of a NaN x (the
    // NaN in y comes through whatever these bits are)
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    uint32_t bits = ((tb & 0x7fffffu) - 0x400000u + 127u) << 23;
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

void ordo_add_forward(float *out, const float *a, const float *b, size_t outer, size_t inner) {
#pragma omp parallel for if (outer * inner > ORDO_PAR_LOOP_MIN)
    for (size_t i = 0; i < outer; i++)
        for (size_t j = 0; j < inner; j++) out[i * inner + j] = a[i * inner + j] + b[j];
}

void ordo_add_backward(float *da, float *db, const float *dout, size_t outer, size_t inner) {
    if (da) {
        size_t n = outer * inner;
#pragma omp parallel for if (n > ORDO_PAR_LOOP_MIN)
        for (size_t i = 0; i < n; i++) da[i] += dout[i];
    }
    if (db) {
        // Column sums a block of COLS columns at a time, rows in order: the same additions
        // in the same order as one column at a time (bit-identical, any thread count), but
        // reading rows contiguously instead of with a stride of `inner` floats.
#pragma omp parallel for if (outer * inner > ORDO_PAR_LOOP_MIN)
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
#pragma omp parallel for if (outer * inner > ORDO_PAR_LOOP_MIN)
    for (size_t i = 0; i < outer; i++)
        for (size_t j = 0; j < inner; j++) out[i * inner + j] = a[i * inner + j] * b[j];
}

void ordo_mul_backward(float *da, float *db, const float *dout, const float *a, const float *b,
                       size_t outer, size_t inner) {
    if (da) {
#pragma omp parallel for if (outer * inner > ORDO_PAR_LOOP_MIN)
        for (size_t i = 0; i < outer; i++)
            for (size_t j = 0; j < inner; j++) da[i * inner + j] += dout[i * inner + j] * b[j];
    }
    if (db) { // column blocks as in ordo_add_backward
#pragma omp parallel for if (outer * inner > ORDO_PAR_LOOP_MIN)
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

void ordo_add_transposed(float *dst, const float *src, int R, int C) {
    enum { TILE = 32 }; // 32 x 32 floats: a tile of each side stays in L1
#pragma omp parallel for collapse(2) schedule(static) if ((size_t)R * C > ORDO_PAR_LOOP_MIN)
    for (int c0 = 0; c0 < C; c0 += TILE)
        for (int r0 = 0; r0 < R; r0 += TILE) {
            int c1 = c0 + TILE < C ? c0 + TILE : C, r1 = r0 + TILE < R ? r0 + TILE : R;
            for (int c = c0; c < c1; c++)
                for (int r = r0; r < r1; r++) dst[(size_t)c * R + r] += src[(size_t)r * C + c];
        }
}

void ordo_embedding_forward(float *out, const float *table, const int32_t *ids, int N, int C) {
#pragma omp parallel for if ((size_t)N * C > ORDO_PAR_LOOP_MIN)
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
#pragma omp parallel for if ((size_t)N * C > ORDO_PAR_LOOP_MIN)
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
#pragma omp parallel for if ((size_t)N * C > ORDO_PAR_LOOP_MIN)
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
#pragma omp parallel for if ((size_t)N * C > ORDO_PAR_LOOP_MIN)
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
#pragma omp parallel for if (n > ORDO_PAR_LOOP_MIN)
    for (size_t i = 0; i < n; i++) {
        float x = inp[i];
        out[i] = 0.5f * x * (1.0f + tanh_f(GELU_K * (x + 0.044715f * x * x * x)));
    }
}

void ordo_gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
#pragma omp parallel for if (n > ORDO_PAR_LOOP_MIN)
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
#pragma omp parallel for if ((size_t)N * C > ORDO_PAR_LOOP_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        float *o = out + (size_t)i * C;
        float inv = 1.0f / ordo_exp_sum(o, x, row_max(x, C), C);
        for (int c = 0; c < C; c++) o[c] *= inv;
    }
}

void ordo_softmax_backward(float *dinp, const float *dout, const float *out, int N, int C) {
#pragma omp parallel for if ((size_t)N * C > ORDO_PAR_LOOP_MIN)
    for (int i = 0; i < N; i++) {
        const float *g = dout + (size_t)i * C, *y = out + (size_t)i * C;
        float dot = 0.0f;
        for (int c = 0; c < C; c++) dot += g[c] * y[c];
        float *dx = dinp + (size_t)i * C;
        for (int c = 0; c < C; c++) dx[c] += y[c] * (g[c] - dot);
    }
}

// log of sum(exp(x[v] - mx)) over x [V]: double across blocks (V can be 50257 and the loss
// must match PyTorch closely), float lanes within a block of 1024 so that the exp loop
// vectorises.
static double log_sum_exp_shifted(const float *x, int V, float mx) {
    double s = 0.0;
    for (int v0 = 0; v0 < V; v0 += 1024) {
        int n = V - v0 < 1024 ? V - v0 : 1024;
        const float *xb = x + v0;
        float sb = 0.0f;
#pragma omp simd reduction(+ : sb)
        for (int v = 0; v < n; v++) sb += exp_f(xb[v] - mx);
        s += sb;
    }
    return log(s);
}

double ordo_row_nll(const float *x, int V, int target) {
    float mx = row_max(x, V);
    return ((double)mx - x[target]) + log_sum_exp_shifted(x, V, mx);
}

void ordo_crossentropy_stats(float *stats, const float *logits, int N, int V) {
#pragma omp parallel for if ((size_t)N * V > ORDO_PAR_LOOP_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = logits + (size_t)i * V;
        float mx = row_max(x, V);
        // keep max and log-sum apart: folded into one float, a logit of 1e4 would leave
        // only ~1e-3 of precision for the log-sum
        stats[i] = mx;
        stats[N + i] = (float)log_sum_exp_shifted(x, V, mx);
    }
}

double ordo_crossentropy_sum(double total, const float *stats, const float *logits,
                             const int32_t *targets, int N, int V) {
    for (int i = 0; i < N; i++)
        if (targets[i] >= 0)
            total += ((double)stats[i] - logits[(size_t)i * V + targets[i]]) + stats[N + i];
    return total;
}

double ordo_crossentropy_forward(float *stats, const float *logits, const int32_t *targets, int N,
                                 int V, int *count) {
    int cnt = 0;
    for (int i = 0; i < N; i++) cnt += targets[i] >= 0;
    ordo_crossentropy_stats(stats, logits, N, V);
    *count = cnt;
    return cnt ? ordo_crossentropy_sum(0.0, stats, logits, targets, N, V) / cnt : 0.0;
}

void ordo_crossentropy_backward(float *dlogits, ordo_bf16 *dlogits_bf16, const float *logits,
                                const float *stats, const int32_t *targets, int N, int V,
                                float scale) {
    ORDO_ASSERT(!dlogits_bf16 || dlogits == logits);
#pragma omp parallel for if ((size_t)N * V > ORDO_PAR_LOOP_MIN)
    for (int i = 0; i < N; i++) {
        const float *x = logits + (size_t)i * V;
        float *d = dlogits + (size_t)i * V;
        ordo_bf16 *h = dlogits_bf16 ? dlogits_bf16 + (size_t)i * V : NULL;
        if (targets[i] < 0) {
            if (d == x) memset(d, 0, (size_t)V * sizeof(float)); // an ignored row has no grad
            if (h) memset(h, 0, (size_t)V * sizeof(ordo_bf16));
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
        if (h) ordo_bf16_convert(h, d, (size_t)V); // the row is still in cache
    }
}
