// Causal self-attention and the position ops that act inside it (rotary embedding of q
// and k, a bias gathered per bucket). Each (batch, head) pair is independent, so the
// loops run over B*NH in parallel and call ordo_gemm (one thread each: blas.c) on strided
// views of qkv: no copy of q, k or v is ever made; the products run in causal row blocks.
// Deliberately no KV cache and no flash-style tiling.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "framework/blas.h"
#include "sys/error.h"
#include "framework/kernels.h"

// Query rows per block of the causal products.
#define ROWS 64

// The dropped probabilities of one (b, h) pair: d = a * keep * s, zero above the diagonal as
// a is (the causal row blocks of the products read past the diagonal up to the block's end).
static void drop_rows(float *d, const float *a, const uint8_t *keep, float s, int T) {
    for (int i = 0; i < T; i++) {
        for (int j = 0; j <= i; j++) {
            size_t x = (size_t)i * T + j;
            d[x] = keep[x] ? a[x] * s : 0.0f;
        }
        for (int j = i + 1; j < T; j++) d[(size_t)i * T + j] = 0.0f;
    }
}

void ordo_attention_forward(float *out, float *att, const float *qkv, const float *bias,
                            size_t bias_bstride, const uint8_t *keep, float keep_scale,
                            float *scratch, int B, int T, int C, int NH) {
    int hs = C / NH, C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)hs);
    int saved = ordo_blas_single_thread_begin();
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++) {
        for (int h = 0; h < NH; h++) {
            const float *q = qkv + (size_t)b * T * C3 + h * hs;
            const float *k = q + C, *v = q + 2 * C;
            float *a = att + ((size_t)b * NH + h) * T * T; // (T, T)
            const float *bh = bias ? bias + b * bias_bstride + (size_t)h * T * T : NULL;
            // Rows in blocks of ROWS: block [r0, r1) only needs keys 0..r1-1 (causal), so the
            // products skip most of the upper triangle (T = 256: 62% of the full squares).
            for (int r0 = 0; r0 < T; r0 += ROWS) {
                int r1 = r0 + ROWS < T ? r0 + ROWS : T;
                // scores[r0:r1, 0:r1] = scale * q[r0:r1] @ k[0:r1]^T
                ordo_gemm(0, 1, r1 - r0, r1, hs, scale, q + (size_t)r0 * C3, C3, k, C3, 0.0f,
                          a + (size_t)r0 * T, T);
            }
            for (int i = 0; i < T; i++) {
                float *row = a + (size_t)i * T;
                if (bh)
                    for (int j = 0; j <= i; j++) row[j] += bh[(size_t)i * T + j];
                float mx = -INFINITY;
                for (int j = 0; j <= i; j++) mx = row[j] > mx ? row[j] : mx;
                float inv = 1.0f / ordo_exp_sum(row, row, mx, i + 1);
                for (int j = 0; j <= i; j++) row[j] *= inv;
                for (int j = i + 1; j < T; j++) row[j] = 0.0f;
            }
            // with dropout the product reads the dropped copy (this thread's scratch block)
            const float *p = a;
            if (keep) {
                float *d = scratch + (size_t)omp_get_thread_num() * T * T;
                drop_rows(d, a, keep + ((size_t)b * NH + h) * T * T, keep_scale, T);
                p = d;
            }
            // out[b, r0:r1, h*hs:(h+1)*hs] = p[r0:r1, 0:r1] @ v[0:r1]
            for (int r0 = 0; r0 < T; r0 += ROWS) {
                int r1 = r0 + ROWS < T ? r0 + ROWS : T;
                ordo_gemm(0, 0, r1 - r0, hs, r1, 1.0f, p + (size_t)r0 * T, T, v, C3, 0.0f,
                          out + ((size_t)b * T + r0) * C + h * hs, C);
            }
        }
    }
    ordo_blas_single_thread_end(saved);
}

void ordo_attention_backward(float *dqkv, float *dbias, size_t bias_bstride, const float *dout,
                             const float *qkv, const float *att, const uint8_t *keep,
                             float keep_scale, float *scratch, int B, int T, int C, int NH) {
    int hs = C / NH, C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)hs);
    // blocks per half of the scratch: counted outside the parallel region, as the caller did
    size_t half = (size_t)omp_get_max_threads() * T * T;
    int saved = ordo_blas_single_thread_begin();
    // Heads outermost and batch inner, so that dbias[h] is written by one thread only and
    // the sum over the batch happens in a fixed order.
#pragma omp parallel for schedule(static)
    for (int h = 0; h < NH; h++) {
        float *datt = scratch + (size_t)omp_get_thread_num() * T * T;
        // with dropout, the dropped probabilities (the scratch's second half)
        float *drop = keep ? datt + half : NULL;
        for (int b = 0; b < B; b++) {
            const float *q = qkv + (size_t)b * T * C3 + h * hs;
            const float *k = q + C, *v = q + 2 * C;
            float *dq = dqkv + (size_t)b * T * C3 + h * hs;
            float *dk = dq + C, *dv = dq + 2 * C;
            const float *a = att + ((size_t)b * NH + h) * T * T;
            const float *g = dout + (size_t)b * T * C + h * hs;
            const uint8_t *kp = keep ? keep + ((size_t)b * NH + h) * T * T : NULL;
            const float *p = a; // the probabilities the forward's AV product read
            if (kp) {
                drop_rows(drop, a, kp, keep_scale, T);
                p = drop;
            }
            // datt = dout @ v^T ; dv += p^T @ dout, in causal row blocks as forward
            for (int r0 = 0; r0 < T; r0 += ROWS) {
                int r1 = r0 + ROWS < T ? r0 + ROWS : T;
                ordo_gemm(0, 1, r1 - r0, r1, hs, 1.0f, g + (size_t)r0 * C, C, v, C3, 0.0f,
                          datt + (size_t)r0 * T, T);
                ordo_gemm(1, 0, r1, hs, r1 - r0, 1.0f, p + (size_t)r0 * T, T, g + (size_t)r0 * C, C,
                          1.0f, dv, C3);
            }
            // through the dropout: the gradient of the undropped probabilities
            if (kp)
                for (int i = 0; i < T; i++)
                    for (int j = 0; j <= i; j++) {
                        size_t x = (size_t)i * T + j;
                        datt[x] = kp[x] ? datt[x] * keep_scale : 0.0f;
                    }
            // softmax backward, row by row over the causal part: dscore = a * (datt - <a, datt>)
            for (int i = 0; i < T; i++) {
                float *dr = datt + (size_t)i * T;
                const float *ar = a + (size_t)i * T;
                float dot = 0.0f;
                for (int j = 0; j <= i; j++) dot += ar[j] * dr[j];
                for (int j = 0; j <= i; j++) dr[j] = ar[j] * (dr[j] - dot);
                for (int j = i + 1; j < T; j++) dr[j] = 0.0f;
            }
            if (dbias) {
                float *db = dbias + b * bias_bstride + (size_t)h * T * T;
                for (size_t x = 0; x < (size_t)T * T; x++) db[x] += datt[x];
            }
            // scores = scale * q k^T: dq += scale * dscore @ k ; dk += scale * dscore^T @ q
            for (int r0 = 0; r0 < T; r0 += ROWS) {
                int r1 = r0 + ROWS < T ? r0 + ROWS : T;
                const float *dr = datt + (size_t)r0 * T;
                ordo_gemm(0, 0, r1 - r0, hs, r1, scale, dr, T, k, C3, 1.0f, dq + (size_t)r0 * C3,
                          C3);
                ordo_gemm(1, 0, r1, hs, r1 - r0, scale, dr, T, q + (size_t)r0 * C3, C3, 1.0f, dk,
                          C3);
            }
        }
    }
    ordo_blas_single_thread_end(saved);
}

void ordo_rope_forward(float *out, const float *qkv, const float *cosv, const float *sinv, int B,
                       int T, int C, int NH, int rd, int nrot, int per_row) {
    int hs = C / NH, half = rd / 2, C3 = 3 * C;
#pragma omp parallel for collapse(2) if ((size_t)B * T * C > ORDO_PAR_LOOP_MIN)
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const float *x = qkv + ((size_t)b * T + t) * C3;
            float *o = out + ((size_t)b * T + t) * C3;
            size_t row = per_row ? (size_t)b * T + t : (size_t)t;
            const float *cs = cosv + row * half, *sn = sinv + row * half;
            // the dims and heads that do not rotate (partial rotary, head subsets), and v
            if (rd < hs || nrot < NH) memcpy(o, x, (size_t)2 * C * sizeof(float));
            for (int part = 0; part < 2; part++) { // q, then k
                for (int h = 0; h < nrot; h++) {
                    const float *xh = x + part * C + h * hs;
                    float *oh = o + part * C + h * hs;
                    for (int i = 0; i < half; i++) {
                        float x1 = xh[i], x2 = xh[i + half];
                        oh[i] = x1 * cs[i] - x2 * sn[i];
                        oh[i + half] = x2 * cs[i] + x1 * sn[i];
                    }
                }
            }
            memcpy(o + 2 * C, x + 2 * C, (size_t)C * sizeof(float));
        }
    }
}

void ordo_rope_backward(float *dqkv, const float *dout, const float *cosv, const float *sinv, int B,
                        int T, int C, int NH, int rd, int nrot, int per_row) {
    int hs = C / NH, half = rd / 2, C3 = 3 * C;
#pragma omp parallel for collapse(2) if ((size_t)B * T * C > ORDO_PAR_LOOP_MIN)
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const float *g = dout + ((size_t)b * T + t) * C3;
            float *d = dqkv + ((size_t)b * T + t) * C3;
            size_t row = per_row ? (size_t)b * T + t : (size_t)t;
            const float *cs = cosv + row * half, *sn = sinv + row * half;
            for (int part = 0; part < 2; part++) {
                for (int h = 0; h < NH; h++) {
                    const float *gh = g + part * C + h * hs;
                    float *dh = d + part * C + h * hs;
                    int r = h < nrot ? half : 0;  // pairs rotated in this head
                    for (int i = 0; i < r; i++) { // the transpose of the rotation
                        float g1 = gh[i], g2 = gh[i + half];
                        dh[i] += g1 * cs[i] + g2 * sn[i];
                        dh[i + half] += g2 * cs[i] - g1 * sn[i];
                    }
                    for (int i = 2 * r; i < hs; i++) dh[i] += gh[i]; // passed through
                }
            }
            for (int c = 0; c < C; c++) d[2 * C + c] += g[2 * C + c];
        }
    }
}

size_t ordo_attention_scratch_floats(int T, int dropout) {
    return (size_t)(dropout ? 2 : 1) * omp_get_max_threads() * T * T;
}
