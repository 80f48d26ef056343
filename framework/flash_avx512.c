// The fused attention's tile product on AVX-512 (flash_kernel.h): a register tile of R rows
// by NV zmm columns of C, each step of p broadcasting R scalars of A against NV vectors of
// one row of B. The operands are the attention's [64, hs] and [hs, 64] tiles, already packed
// and zero-padded by flash.c, so there is no packing here and no edge case: m and n are
// multiples of 16. Compiled with -mavx512f (CMakeLists.txt); called only where the CPU has it.
#include "framework/flash_kernel.h"

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

void ordo_flash_tile_avx512(int m, int n, int k, const float *A, long ars, long acs, const float *B,
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

float ordo_flash_exp_row_avx512(float *p, float shift, int n, int nfull) {
    __m512 sh = _mm512_set1_ps(shift), sum = _mm512_setzero_ps();
    for (int c = 0; c < nfull; c += 16) {
        int left = n - c;
        __mmask16 m = left >= 16 ? 0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
        __m512 e = _mm512_maskz_mov_ps(m, exp16(_mm512_sub_ps(_mm512_loadu_ps(p + c), sh)));
        sum = _mm512_add_ps(sum, e);
        _mm512_storeu_ps(p + c, e);
    }
    return _mm512_reduce_add_ps(sum);
}

#else // a build without AVX-512: flash.c never calls this (ordo_gemm_own_available() is 0)

void ordo_flash_tile_avx512(int m, int n, int k, const float *A, long ars, long acs, const float *B,
                            long ldb, float *C, long ldc, int acc) {
    (void)m, (void)n, (void)k, (void)A, (void)ars, (void)acs, (void)B, (void)ldb, (void)C;
    (void)ldc, (void)acc;
    abort();
}

float ordo_flash_exp_row_avx512(float *p, float shift, int n, int nfull) {
    (void)p, (void)shift, (void)n, (void)nfull;
    abort();
}

#endif
