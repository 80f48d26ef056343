// ordo's own sgemm for AVX-512 CPUs, in the layout of BLIS/GotoBLAS: pack a block of op(A)
// into MR-row panels and a block of op(B) into NR-column panels, then sweep a 12 x 32
// register tile (24 zmm accumulators) over them. One thread per call: the kernel itself.
// Whether a product comes here, and how it is split over threads, is blas.c's decision.
//
// Why ordo has one: on the AVX-512 machine ordo is benchmarked on, OpenBLAS runs its AVX2
// (Haswell) kernels because the environment forces them (OPENBLAS_CORETYPE=Haswell is set
// there), and PyTorch, calling the same OpenBLAS, is held to them too. Measured on that machine
// (2 threads): 2048^3 OpenBLAS 215 GFLOP/s, this kernel about 370; the LM-head products of
// the bench configs 1.5x to 2x (docs/performance.md). ORDO_GEMM=blas turns it off.
//
// Every C element is summed over k in the same blocks and order whichever slice of C it falls
// in (the K blocks depend on K alone, and a slice cut on tile boundaries keeps the tiles), so
// the result does not depend on how blas.c splits C over threads.
#include "framework/gemm.h"

#include "framework/cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__)
#include <immintrin.h>

enum {
    MR = ORDO_GEMM_OWN_MR, // rows of the register tile
    NR = ORDO_GEMM_OWN_NR, // columns: two zmm
    KC = 384,              // depth of a packed block: an A panel (18 KB) stays in L1, B's in L2
    MB = 256 * MR,         // rows of op(A) packed at a time (L3)
    NB = 8 * NR,           // columns of op(B) packed at a time (L2)
};

// Compiled without AVX-512 itself: it runs on every CPU (CMake builds this file -mavx512f).
__attribute__((target("no-avx512f"))) int ordo_gemm_own_available(void) {
    return ordo_cpu_isa() >= ORDO_ISA_AVX512;
}

// c[MR, NR] = alpha * a-panel @ b-panel (+ beta * c, if accumulate: then beta is 1 or the
// caller's beta on the first K block). a: kc x MR, b: kc x NR, both packed.
static void tile(int kc, const float *restrict a, const float *restrict b, float *restrict c,
                 long ldc, float alpha, float beta, int accumulate) {
    __m512 r[MR][2];
    for (int i = 0; i < MR; i++) r[i][0] = r[i][1] = _mm512_setzero_ps();
    for (int k = 0; k < kc; k++) {
        // B's panel comes from L2: ask for it 8 steps ahead (measured ~3% on one thread)
        _mm_prefetch((const char *)(b + 8 * NR), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + 8 * NR + 16), _MM_HINT_T0);
        __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
        for (int i = 0; i < MR; i++) {
            __m512 ai = _mm512_set1_ps(a[i]);
            r[i][0] = _mm512_fmadd_ps(ai, b0, r[i][0]);
            r[i][1] = _mm512_fmadd_ps(ai, b1, r[i][1]);
        }
        a += MR;
        b += NR;
    }
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++) {
        float *ci = c + (long)i * ldc;
        __m512 x0 = _mm512_mul_ps(va, r[i][0]), x1 = _mm512_mul_ps(va, r[i][1]);
        if (accumulate) {
            x0 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(ci), x0);
            x1 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(ci + 16), x1);
        }
        _mm512_storeu_ps(ci, x0);
        _mm512_storeu_ps(ci + 16, x1);
    }
}

// z[i] holds row i of a 16 x 16 block; afterwards z[j] holds its column j. Packs row-major
// operands into k-major panels 16 k at a time instead of one scalar at a time (pack_a was
// 8% of a one-thread GEMM with scalar copies).
static inline void transpose16(__m512 z[16]) {
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(z[2 * i], z[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(z[2 * i], z[2 * i + 1]);
    }
    for (int j = 0; j < 4; j++) {
        u[4 * j + 0] = _mm512_shuffle_ps(t[4 * j], t[4 * j + 2], 0x44);
        u[4 * j + 1] = _mm512_shuffle_ps(t[4 * j], t[4 * j + 2], 0xEE);
        u[4 * j + 2] = _mm512_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0x44);
        u[4 * j + 3] = _mm512_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0xEE);
    }
    for (int c = 0; c < 4; c++) {
        t[c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
        t[4 + c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
        t[8 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        t[12 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    }
    for (int c = 0; c < 8; c++) {
        z[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);
        z[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xDD);
    }
}

// op(A)[i0 .. i0+mc, k0 .. k0+kc] into MR-row panels (k-major within a panel), zero-padded.
static void pack_a(float *restrict dst, int ta, const float *A, long lda, int i0, int mc, int k0,
                   int kc) {
    if (ta) { // A is stored K x M: a row of A holds one k. 16 rows at a time (in L2), each
              // panel gets 16 x MR contiguous floats
        for (int kk = 0; kk < kc; kk += 16) {
            int ke = kc - kk < 16 ? kc : kk + 16;
            for (int ir = 0; ir < mc; ir += MR) {
                int m = mc - ir < MR ? mc - ir : MR;
                for (int k = kk; k < ke; k++) {
                    const float *s = A + (long)(k0 + k) * lda + i0 + ir;
                    float *d = dst + (long)ir * kc + (long)k * MR;
                    if (m == MR)
                        memcpy(d, s, MR * sizeof(float));
                    else
                        for (int i = 0; i < MR; i++) d[i] = i < m ? s[i] : 0.0f;
                }
            }
        }
        return;
    }
    for (int ir = 0; ir < mc; ir += MR) { // MR row streams, written k by k
        int m = mc - ir < MR ? mc - ir : MR;
        float *d = dst + (long)ir * kc;
        const float *row[MR];
        for (int i = 0; i < MR; i++) row[i] = A + (long)(i0 + ir + (i < m ? i : 0)) * lda + k0;
        int k = 0;
        if (m == MR)
            for (; k + 16 <= kc; k += 16) {
                __m512 z[16];
                for (int i = 0; i < 16; i++)
                    z[i] = i < MR ? _mm512_loadu_ps(row[i] + k) : _mm512_setzero_ps();
                transpose16(z);
                for (int kk = 0; kk < 16; kk++)
                    _mm512_mask_storeu_ps(d + (long)(k + kk) * MR, (1 << MR) - 1, z[kk]);
            }
        for (; k < kc; k++)
            for (int i = 0; i < MR; i++) d[k * MR + i] = i < m ? row[i][k] : 0.0f;
    }
}

// op(B)[k0 .. k0+kc, j0 .. j0+nc] into NR-column panels, zero-padded.
static void pack_b(float *restrict dst, int tb, const float *B, long ldb, int k0, int kc, int j0,
                   int nc) {
    for (int jr = 0; jr < nc; jr += NR) {
        int n = nc - jr < NR ? nc - jr : NR;
        float *d = dst + (long)jr * kc;
        if (!tb) { // B is stored K x N: panel rows are contiguous
            for (int k = 0; k < kc; k++) {
                const float *s = B + (long)(k0 + k) * ldb + j0 + jr;
                if (n == NR)
                    memcpy(d + k * NR, s, NR * sizeof(float));
                else
                    for (int j = 0; j < NR; j++) d[k * NR + j] = j < n ? s[j] : 0.0f;
            }
        } else { // B is stored N x K: NR row streams, written k by k
            const float *row[NR];
            for (int j = 0; j < NR; j++) row[j] = B + (long)(j0 + jr + (j < n ? j : 0)) * ldb + k0;
            int k = 0;
            if (n == NR)
                for (; k + 16 <= kc; k += 16)
                    for (int h = 0; h < NR; h += 16) { // two 16 x 16 blocks per 16 k
                        __m512 z[16];
                        for (int j = 0; j < 16; j++) z[j] = _mm512_loadu_ps(row[h + j] + k);
                        transpose16(z);
                        for (int kk = 0; kk < 16; kk++)
                            _mm512_store_ps(d + (long)(k + kk) * NR + h, z[kk]);
                    }
            for (; k < kc; k++)
                for (int j = 0; j < NR; j++) d[k * NR + j] = j < n ? row[j][k] : 0.0f;
        }
    }
}

// One thread's product over its slice of C, with its own packing buffers. The loop order is
// BLIS's with the roles of the operands swapped, because the vector side of the tile is N:
// an MB x kc block of op(A) is packed once (L3) and a kc x NB block of op(B) per pass over
// it (L2); the innermost loop walks B's panels out of L2 while one A panel (12 x kc) stays
// in L1.
static void gemm_serial(int ta, int tb, int M, int N, int K, float alpha, const float *A, long lda,
                        const float *B, long ldb, float beta, float *C, long ldc, float *abuf,
                        float *bbuf) {
    float edge[MR * NR];
    int nkb = (K + KC - 1) / KC, kb = (K + nkb - 1) / nkb; // equal K blocks, none tiny
    for (int ic = 0; ic < M; ic += MB) {
        int mb = M - ic < MB ? M - ic : MB;
        for (int pc = 0; pc < K; pc += kb) {
            int kc = K - pc < kb ? K - pc : kb;
            pack_a(abuf, ta, A, lda, ic, mb, pc, kc);
            // the first K block applies beta (beta == 0: C is not read, as in BLAS)
            float bk = pc ? 1.0f : beta;
            int acc = pc || beta != 0.0f;
            for (int jc = 0; jc < N; jc += NB) {
                int nb = N - jc < NB ? N - jc : NB;
                pack_b(bbuf, tb, B, ldb, pc, kc, jc, nb);
                for (int ir = 0; ir < mb; ir += MR) {
                    int m = mb - ir < MR ? mb - ir : MR;
                    const float *ap = abuf + (long)ir * kc;
                    for (int jr = 0; jr < nb; jr += NR) {
                        int n = nb - jr < NR ? nb - jr : NR;
                        const float *bp = bbuf + (long)jr * kc;
                        float *c = C + (long)(ic + ir) * ldc + jc + jr;
                        if (m == MR && n == NR) {
                            tile(kc, ap, bp, c, ldc, alpha, bk, acc);
                            continue;
                        }
                        tile(kc, ap, bp, edge, NR, alpha, 0.0f, 0); // a partial tile
                        for (int i = 0; i < m; i++)
                            for (int j = 0; j < n; j++) {
                                float *cij = c + (long)i * ldc + j;
                                *cij = acc ? bk * *cij + edge[i * NR + j] : edge[i * NR + j];
                            }
                    }
                }
            }
        }
    }
}

// Packing buffers (the A block, then the B block) per OS thread, allocated on a thread's first
// product and kept: no allocation per product (ordo trains without malloc in the step).
// Keyed by thread rather than by OpenMP thread number, so that products called at the same
// time from two threads of a host program (each with its own OpenMP team, numbered from 0)
// never share a buffer; a thread that exits frees its own.
static pthread_key_t buffer_key;
static pthread_once_t buffer_once = PTHREAD_ONCE_INIT;
static int buffer_key_ok;

static void buffer_key_init(void) {
    buffer_key_ok = pthread_key_create(&buffer_key, free) == 0;
}

static float *buffers(void) {
    pthread_once(&buffer_once, buffer_key_init);
    if (!buffer_key_ok) return NULL;
    float *p = pthread_getspecific(buffer_key);
    if (!p) {
        p = aligned_alloc(64, ((size_t)MB + NB) * KC * sizeof(float));
        if (p && pthread_setspecific(buffer_key, p) != 0) {
            free(p);
            p = NULL;
        }
    }
    return p;
}

int ordo_gemm_own_serial(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                         const float *B, int ldb, float beta, float *C, int ldc) {
    float *buf = buffers();
    if (!buf) return 0;
    gemm_serial(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, buf, buf + (size_t)MB * KC);
    return 1;
}

#else // no AVX-512 in this build (e.g. the valgrind build, or a build for an older CPU)

int ordo_gemm_own_available(void) {
    return 0;
}

int ordo_gemm_own_serial(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                         const float *B, int ldb, float beta, float *C, int ldc) {
    (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)lda, (void)B;
    (void)ldb, (void)beta, (void)C, (void)ldc;
    abort(); // callers check ordo_gemm_own_available() first
}

#endif
