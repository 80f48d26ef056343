// The fused attention's kernels (flash_kernel.h) in GCC's vector extensions, 8 floats to a
// vector, so that one source serves two instruction sets: flash_avx2.c compiles it -mavx2
// -mfma (a vector is a ymm register, a * b + c one FMA by contraction), flash_portable.c with
// the build's own flags (two NEON or SSE registers a vector). The same loops as
// flash_avx512.c's at half its width; sums run in another order, so the results agree with it
// within rounding, not to the bit. Everything here is static: include it once per file.
#ifndef ORDO_FLASH_VEC_H
#define ORDO_FLASH_VEC_H
#include <math.h>
#include <stdint.h>

#include "framework/flash_kernel.h"

#define VW 8 // floats per vector
typedef float vf __attribute__((vector_size(4 * VW)));
typedef int32_t vi __attribute__((vector_size(4 * VW)));
typedef uint32_t vu __attribute__((vector_size(4 * VW)));
typedef float vf_u __attribute__((vector_size(4 * VW), aligned(4), may_alias)); // unaligned

static const vi lanes = {0, 1, 2, 3, 4, 5, 6, 7};

static inline vf vload(const float *p) {
    return *(const vf_u *)p;
}
static inline void vstore(float *p, vf x) {
    *(vf_u *)p = x;
}
static inline vf vsplat(float x) {
    return (vf){x, x, x, x, x, x, x, x};
}
static inline vi vsplati(int32_t x) {
    return (vi){x, x, x, x, x, x, x, x};
}
// m ? a : b lane by lane, m from a comparison (all bits set or none)
static inline vf vselect(vi m, vf a, vf b) {
    return (vf)(((vi)a & m) | ((vi)b & ~m));
}
// x86's max: a > b ? a : b, so a NaN in b comes through as maxps lets it
static inline vf vmax(vf a, vf b) {
    return vselect(a > b, a, b);
}
// the lanes [0, left) of a vector
static inline vi vfirst(int left) {
    return lanes < vsplati(left);
}
// the lanes' sum and max in a fixed order
static inline float vsum(vf x) {
    return ((x[0] + x[4]) + (x[2] + x[6])) + ((x[1] + x[5]) + (x[3] + x[7]));
}
static inline float vhmax(vf x) {
    float a = x[0] > x[4] ? x[0] : x[4], b = x[2] > x[6] ? x[2] : x[6];
    float c = x[1] > x[5] ? x[1] : x[5], d = x[3] > x[7] ? x[3] : x[7];
    a = a > b ? a : b, c = c > d ? c : d;
    return a > c ? a : c;
}

// Cephes' expf as kernels.c's exp_f, lane by lane: x clamped to [-87, 88] (a NaN comes
// through), n = round(x log2 e) by the 1.5 * 2^23 trick, a degree-6 polynomial for e^r and
// 2^n through the exponent bits.
static inline vf vexp(vf x) {
    x = vselect(x < vsplat(-87.0f), vsplat(-87.0f), x);
    x = vselect(x > vsplat(88.0f), vsplat(88.0f), x);
    vf n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    vf r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    vf y = vsplat(1.9875691500e-4f);
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = (y * r) * r + (r + 1.0f);
    // unsigned, so that a NaN's lane (INT_MIN after the conversion) shifts without overflow
    vu bits = ((vu) __builtin_convertvector(n, vi) + 127u) << 23;
    return y * (vf)bits;
}

// An R-row, NV-vector register tile of C over the whole k. Inlined with constant R and NV, so
// that the arrays live in registers: R * NV <= 12 accumulators, NV rows of B and a broadcast
// fit AVX2's 16 ymm registers (and NEON's 32 q registers at two a vector).
static inline __attribute__((always_inline)) void vblock(int R, int NV, int k, const float *A,
                                                         long ars, long acs, const float *B,
                                                         long ldb, float *C, long ldc, int acc) {
    vf c[6][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) c[r][v] = vsplat(0.0f);
    for (int p = 0; p < k; p++) {
        vf b[2];
        const float *bp = B + (long)p * ldb, *ap = A + (long)p * acs;
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) b[v] = vload(bp + VW * v);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            vf a = vsplat(ap[r * ars]);
#pragma GCC unroll 2
            for (int v = 0; v < NV; v++) c[r][v] = a * b[v] + c[r][v];
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) {
            float *cp = C + (long)r * ldc + VW * v;
            vstore(cp, acc ? vload(cp) + c[r][v] : c[r][v]);
        }
}

// Columns in strips of 16 (two vectors); rows in tiles of 6, the last 4 (m is 64 in flash.c:
// ten of 6 and one of 4; any multiple of 2 works).
static void vec_tile(int m, int n, int k, const float *A, long ars, long acs, const float *B,
                     long ldb, float *C, long ldc, int acc) {
    for (int j = 0; j < n; j += 2 * VW) {
        int i = 0;
        for (; i + 6 <= m; i += 6)
            vblock(6, 2, k, A + (long)i * ars, ars, acs, B + j, ldb, C + (long)i * ldc + j, ldc,
                   acc);
        for (; i + 4 <= m; i += 4)
            vblock(4, 2, k, A + (long)i * ars, ars, acs, B + j, ldb, C + (long)i * ldc + j, ldc,
                   acc);
        for (; i < m; i += 2)
            vblock(2, 2, k, A + (long)i * ars, ars, acs, B + j, ldb, C + (long)i * ldc + j, ldc,
                   acc);
    }
}

// exp_row's loop: the row's exps in place (0 from n on) and their sum as VW lanes.
static inline vf vexp_row(float *p, float shift, int n, int nfull) {
    vf sh = vsplat(shift), sum = vsplat(0.0f);
    for (int c = 0; c < nfull; c += VW) {
        vf e = vselect(vfirst(n - c), vexp(vload(p + c) - sh), vsplat(0.0f));
        sum += e;
        vstore(p + c, e);
    }
    return sum;
}

static float vec_exp_row(float *p, float shift, int n, int nfull) {
    return vsum(vexp_row(p, shift, n, nfull));
}

// Rows r0 .. r0+VW-1 (those < nr) of the tile: each row's max first, then every row's
// rescale factor in one vector exp, then the rows.
static void vec_rows(float *s, int nfull, int r0, int nr, int i0, int j0, int nc, float *m,
                     float *l, float *o, int hsp, float *corr) {
    vf old = vsplat(-INFINITY), now = old;
    for (int r = 0; r < VW && r0 + r < nr; r++) {
        int n = i0 + r0 + r - j0 + 1 < nc ? i0 + r0 + r - j0 + 1 : nc;
        const float *sr = s + (long)(r0 + r) * nfull;
        vf v = vsplat(-INFINITY);
        for (int c = 0; c < n; c += VW)
            v = vmax(v, vselect(vfirst(n - c), vload(sr + c), vsplat(-INFINITY)));
        old[r] = m[r0 + r];
        now[r] = vhmax(v);
    }
    now = vmax(old, now);
    // a row's first tile has nothing to rescale: factor 0 where the old max is -inf
    vf c = vselect(old != vsplat(-INFINITY), vexp(old - now), vsplat(0.0f));
    for (int r = 0; r < VW && r0 + r < nr; r++) {
        int n = i0 + r0 + r - j0 + 1 < nc ? i0 + r0 + r - j0 + 1 : nc;
        float sum = vsum(vexp_row(s + (long)(r0 + r) * nfull, now[r], n, nfull));
        if (c[r] != 1.0f) {
            vf cb = vsplat(c[r]);
            float *orow = o + (long)(r0 + r) * hsp;
            for (int d = 0; d < hsp; d += VW) vstore(orow + d, cb * vload(orow + d));
        }
        l[r0 + r] = l[r0 + r] * c[r] + sum;
        m[r0 + r] = now[r];
        corr[r0 + r] = c[r];
    }
}

static void vec_online_softmax(float *s, int nfull, int nr, int i0, int j0, int nc, float *m,
                               float *l, float *o, int hsp, float *corr) {
    for (int r0 = 0; r0 < nr; r0 += VW) vec_rows(s, nfull, r0, nr, i0, j0, nc, m, l, o, hsp, corr);
}

#define ORDO_FLASH_VEC_KERNEL(NAME)                                                                \
    { NAME, vec_tile, vec_exp_row, vec_online_softmax }

#endif
