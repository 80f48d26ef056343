// The fused attention's kernels on AVX-512 (flash_kernel.h). The tile product: a register tile of R
// rows by NV zmm columns of C, each step of p broadcasting R scalars of A against NV vectors of one
// row of B. The operands are the attention's [64, hs] and [hs, 64] tiles, already packed and
// zero-padded by flash.c, so there is no packing here and no edge case: m and n are multiples
// of 16. Compiled with -mavx512f (CMakeLists.txt); called only where the CPU has it.
#include "framework/flash_kernel.h"

#include <math.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#include <immintrin.h>

// R x NV accumulators (R*NV <= 24 leaves room for the NV rows of B and the broadcast, in 32
// zmm registers). Inlined with constant R and NV, so the arrays live in registers.
static inline __attribute__((always_inline)) void block(int R, int NV, int k, const float *A,
                                                        long ars, long acs, const float *B,
                                                        long ldb, float *C, long ldc, int acc) {
    __m512 c[16][4];
#pragma GCC unroll 16
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) c[r][v] = _mm512_setzero_ps();
    for (int p = 0; p < k; p++) {
        __m512 b[4];
        const float *bp = B + (long)p * ldb, *ap = A + (long)p * acs;
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) b[v] = _mm512_loadu_ps(bp + 16 * v);
#pragma GCC unroll 16
        for (int r = 0; r < R; r++) {
            __m512 a = _mm512_set1_ps(ap[r * ars]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) c[r][v] = _mm512_fmadd_ps(a, b[v], c[r][v]);
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            float *cp = C + (long)r * ldc + 16 * v;
            __m512 x = acc ? _mm512_add_ps(_mm512_loadu_ps(cp), c[r][v]) : c[r][v];
            _mm512_storeu_ps(cp, x);
        }
}

// Rows of C in register tiles of R rows; the rows left over (m is a multiple of 4) in tiles
// of 4. R*NV accumulators of at most 24 leave room for NV rows of B and a broadcast.
#define ROWS(R, R_LAST, NV)                                                                        \
    do {                                                                                           \
        int i = 0;                                                                                 \
        for (; i + (R) <= m; i += (R))                                                             \
            block(R, NV, k, A + (long)i * ars, ars, acs, B + j, ldb, C + (long)i * ldc + j, ldc,   \
                  acc);                                                                            \
        for (; i < m; i += (R_LAST))                                                               \
            block(R_LAST, NV, k, A + (long)i * ars, ars, acs, B + j, ldb, C + (long)i * ldc + j,   \
                  ldc, acc);                                                                       \
    } while (0)

static void tile_avx512(int m, int n, int k, const float *A, long ars, long acs, const float *B,
                        long ldb, float *C, long ldc, int acc) {
    int j = 0;
    for (; j + 64 <= n; j += 64) ROWS(6, 4, 4);  // 4 zmm of columns, 6 rows: 24 accumulators
    for (; j + 32 <= n; j += 32) ROWS(12, 4, 2); // 2 zmm, 12 rows
    for (; j < n; j += 16) ROWS(16, 4, 1);       // 1 zmm, 16 rows
}

static inline __m512 exp16(__m512 x) {
    x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
    x = _mm512_min_ps(x, _mm512_set1_ps(88.0f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 y = _mm512_set1_ps(1.9875691500e-4f);
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507e-3f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
    y = _mm512_fmadd_ps(_mm512_mul_ps(y, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(y, n);
}

// exp_row's loop: the row's exps in place and their sum as 16 lanes (reduced by the caller,
// so that a tile's rows do not wait on each other's reduction).
static inline __attribute__((always_inline)) __m512 exp_row16(float *p, float shift, int n,
                                                              int nfull) {
    __m512 sh = _mm512_set1_ps(shift), sum = _mm512_setzero_ps();
    for (int c = 0; c < nfull; c += 16) {
        int left = n - c;
        __mmask16 m = left >= 16 ? 0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
        __m512 e = _mm512_maskz_mov_ps(m, exp16(_mm512_sub_ps(_mm512_loadu_ps(p + c), sh)));
        sum = _mm512_add_ps(sum, e);
        _mm512_storeu_ps(p + c, e);
    }
    return sum;
}

static float exp_row_avx512(float *p, float shift, int n, int nfull) {
    return _mm512_reduce_add_ps(exp_row16(p, shift, n, nfull));
}

static inline __mmask16 first(int left) { // lanes [0, left) of 16
    return left >= 16 ? 0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
}

// Lane r of the result: op over the 16 lanes of v[r] (op add or max), for 16 rows at once by
// a shuffle tree (45 instructions for 16 rows where one row's reduction alone takes 8, each
// waiting on the last). The order of the adds is fixed, so the result is too.
#define TRANSPOSED_REDUCE(NAME, OP)                                                                \
    static inline __attribute__((always_inline)) __m512 NAME(const __m512 v[16]) {                 \
        __m512 x[8], y[4], z[2];                                                                   \
        for (int i = 0; i < 8; i++)                                                                \
            x[i] = OP(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]),                                  \
                      _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));                                 \
        for (int i = 0; i < 4; i++)                                                                \
            y[i] = OP(_mm512_shuffle_ps(x[2 * i], x[2 * i + 1], 0x44),                             \
                      _mm512_shuffle_ps(x[2 * i], x[2 * i + 1], 0xee));                            \
        for (int i = 0; i < 2; i++)                                                                \
            z[i] = OP(_mm512_shuffle_f32x4(y[2 * i], y[2 * i + 1], 0x88),                          \
                      _mm512_shuffle_f32x4(y[2 * i], y[2 * i + 1], 0xdd));                         \
        return OP(_mm512_shuffle_f32x4(z[0], z[1], 0x88), _mm512_shuffle_f32x4(z[0], z[1], 0xdd)); \
    }
TRANSPOSED_REDUCE(reduce16_add, _mm512_add_ps)
TRANSPOSED_REDUCE(reduce16_max, _mm512_max_ps)

// Rows r0 .. r0+15 (those < nr) of the tile: see flash_kernel.h's online_softmax.
static inline void rows16(float *s, int nfull, int r0, int nr, int i0, int j0, int nc, float *m,
                          float *l, float *o, int hsp, float *corr) {
    __mmask16 k = first(nr - r0);
    __m512 old = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, m + r0), v[16];
    for (int r = 0; r < 16; r++) { // each row's max, as 16 lanes
        int n = i0 + r0 + r - j0 + 1 < nc ? i0 + r0 + r - j0 + 1 : nc;
        const float *sr = s + (long)(r0 + r) * nfull;
        v[r] = _mm512_set1_ps(-INFINITY);
        if (r0 + r < nr)
            for (int c = 0; c < n; c += 16)
                v[r] = _mm512_mask_max_ps(v[r], first(n - c), v[r], _mm512_loadu_ps(sr + c));
    }
    __m512 now = _mm512_max_ps(old, reduce16_max(v));
    // a row's first tile has nothing to rescale: factor 0 where the old max is -inf
    __mmask16 seen = _mm512_mask_cmp_ps_mask(k, old, _mm512_set1_ps(-INFINITY), _CMP_NEQ_OQ);
    __m512 c = _mm512_maskz_mov_ps(seen, exp16(_mm512_sub_ps(old, now)));
    float mx[16], cr[16];
    _mm512_storeu_ps(mx, now);
    _mm512_storeu_ps(cr, c);
    for (int r = 0; r < 16; r++) {
        int n = i0 + r0 + r - j0 + 1 < nc ? i0 + r0 + r - j0 + 1 : nc;
        v[r] = _mm512_setzero_ps();
        if (r0 + r >= nr) continue;
        v[r] = exp_row16(s + (long)(r0 + r) * nfull, mx[r], n, nfull);
        if (cr[r] != 1.0f) {
            __m512 cb = _mm512_set1_ps(cr[r]);
            float *orow = o + (long)(r0 + r) * hsp;
            for (int d = 0; d < hsp; d += 16)
                _mm512_storeu_ps(orow + d, _mm512_mul_ps(cb, _mm512_loadu_ps(orow + d)));
        }
    }
    __m512 lv = _mm512_maskz_loadu_ps(k, l + r0);
    _mm512_mask_storeu_ps(l + r0, k, _mm512_fmadd_ps(lv, c, reduce16_add(v)));
    _mm512_mask_storeu_ps(m + r0, k, now);
    _mm512_mask_storeu_ps(corr + r0, k, c);
}

static void online_softmax_avx512(float *s, int nfull, int nr, int i0, int j0, int nc, float *m,
                                  float *l, float *o, int hsp, float *corr) {
    for (int r0 = 0; r0 < nr; r0 += 16) rows16(s, nfull, r0, nr, i0, j0, nc, m, l, o, hsp, corr);
}

const ordo_flash_kernel ordo_flash_kernel_avx512 = {"avx512", tile_avx512, exp_row_avx512,
                                                    online_softmax_avx512};

#else // a build without AVX-512 (not x86-64): never chosen (ordo_cpu_isa() is below avx512)

const ordo_flash_kernel ordo_flash_kernel_avx512 = {"avx512", NULL, NULL, NULL};

#endif
