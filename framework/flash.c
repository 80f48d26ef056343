// The fused, tiled causal attention (flash.h): FlashAttention-2's loops on a CPU. Forward,
// per (b, h, query block): for each key block up to the diagonal, the score tile
// S = (scale q) k^T (+ the caller's bias tile), an online softmax (running row max m and
// sum l, O rescaled when m grows), O += P v; at the end O / l and lse = m + log l. Backward,
// per (b, h): for each key block, for each query block at or below it, P recomputed from
// the lse, dV += P^T dO, dP = dO v^T, dS = P * (dP - D) with D = rowsum(dO * O),
// dK += dS^T (scale q), dQ += dS k (scaled once at the end), and the bias's grad(dS).
// Nothing T x T exists: per thread a few [64, hs] and [64, 64] tiles.
//
// A bias of the row's scores (flash.h's rows) changes only the order and the hooks:
// forward takes the key blocks of a query block from the diagonal down (the bias carries each
// row's running sum of its gates from key i backward: a suffix sum, as its positions are);
// backward keeps its order, in which each query row meets its key blocks ascending (the bias
// recovers the same sums as the forward's row total, which it saved, minus a running prefix,
// and carries the prefix sums of its position gradients that the gates need), and calls the
// bias's grad on dS before dK and dQ are made from it. Every other bias runs as before.
//
// The tile products, the exps and the online softmax's step run on the kernels of the CPU's
// best instruction set (flash_kernel.h: AVX-512, AVX2 + FMA, or portable vector C that the
// compiler maps to NEON or SSE), chosen at run time (ordo_flash_set_tiles forces one, or
// ordo_gemm for the products, to compare). Tiles are packed once, zero-padded to BLOCK rows
// and hs to a multiple of 16 (hsp), so the products have no edges; padded rows and columns
// carry zeros and are never written out.
//
// Deliberately not here: a KV cache, a non-causal mode, bf16 tiles, and splitting one
// (b, h) over threads in backward (dK and dV are owned by their (b, h); parallelism is
// B*NH, enough for ordo's shapes, and nothing is reduced across threads but the bias's g).
#include <math.h>
#include <omp.h>
#include <string.h>

#include "framework/blas.h"
#include "framework/cpu.h"
#include "framework/dropout.h"
#include "sys/error.h"
#include "framework/flash.h"
#include "framework/flash_kernel.h"
#include "framework/gemm.h"
#include "framework/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

// Query and key rows per tile (one size for both, so the diagonal tile of a query block is
// the key block of the same index). At hs 64 a tile's operands (q, k^T, v, O: 16 KB each;
// S: 16 KB) stay in L2 (2 MB) and the row in work in L1 (48 KB), and 64 keys amortise the
// softmax's per-row bookkeeping. Measured with bench_flash, T 4096, 2 threads of a shared
// Xeon (Sapphire Rapids class), % of the GEMM peak, forward / backward, hs 64 and hs 32:
// 32: 43/62, 30/51; 64: 50/72, 38/60; 96: 51/69, 37/58; 128: 55/74, 28/39 (why hs 32 drops
// at 128 was not looked into). 64 is the best all round; medians of 3, machine under load.
#define BLOCK ORDO_FLASH_BLOCK

// Denormals: the probabilities of far keys under a strong bias (a linear distance bias at distance
// 4096: e^-2000) come out of exp at its floor, ~1e-38, and their products (P v, dS = P (dP - D), dS
// k) fall below FLT_MIN, where an Intel core takes a microcode assist per operation: measured, the
// backward with such a bias at T 4096 ran 80x slower. Each thread flushes them to zero
// (FTZ, DAZ) for the kernel's duration and puts its MXCSR back after; what that changes in a
// result is below 1e-38 absolute.
static unsigned flush_begin(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040); // FTZ | DAZ
    return csr;
#else
    return 0;
#endif
}
static void flush_end(unsigned csr) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(csr);
#else
    (void)csr;
#endif
}

static ordo_flash_tiles tiles_forced; // ordo_flash_set_tiles

// The kernels of the CPU's best instruction set (flash_kernel.h), or the forced ones; under
// TILES_GEMM the exps and the softmax are the portable kernel's.
static const ordo_flash_kernel *kernel(void) {
    switch (tiles_forced) {
    case ORDO_FLASH_TILES_AVX512:
        return &ordo_flash_kernel_avx512;
    case ORDO_FLASH_TILES_AVX2:
        return &ordo_flash_kernel_avx2;
    case ORDO_FLASH_TILES_PORTABLE:
    case ORDO_FLASH_TILES_GEMM:
        return &ordo_flash_kernel_portable;
    case ORDO_FLASH_TILES_AUTO:
        break;
    }
    switch (ordo_cpu_isa()) {
    case ORDO_ISA_AVX512:
        return &ordo_flash_kernel_avx512;
    case ORDO_ISA_AVX2:
        return &ordo_flash_kernel_avx2;
    case ORDO_ISA_PORTABLE:
        break;
    }
    return &ordo_flash_kernel_portable;
}

const char *ordo_flash_describe(void) {
    return tiles_forced == ORDO_FLASH_TILES_GEMM ? "ordo_gemm" : kernel()->name;
}

ordo_status ordo_flash_set_tiles(ordo_flash_tiles t) {
    ordo_isa need = t == ORDO_FLASH_TILES_AVX512 ? ORDO_ISA_AVX512
                    : t == ORDO_FLASH_TILES_AVX2 ? ORDO_ISA_AVX2
                                                 : ORDO_ISA_PORTABLE;
    if (ordo_cpu_isa() < need)
        return ordo_error(ORDO_ERR_ARG, "the fused attention's %s kernels do not run here (%s)",
                          ordo_isa_name(need), ordo_isa_name(ordo_cpu_isa()));
    tiles_forced = t;
    return ORDO_OK;
}

// C[m, n] = (acc ? C : 0) + A @ B, A read as A[i*ars + p*acs] (flash_kernel.h).
static void tile_mm(int m, int n, int k, const float *A, int ars, int acs, const float *B, int ldb,
                    float *C, int ldc, int acc) {
    if (tiles_forced != ORDO_FLASH_TILES_GEMM)
        kernel()->tile(m, n, k, A, ars, acs, B, ldb, C, ldc, acc);
    else if (acs == 1)
        ordo_gemm(0, 0, m, n, k, 1.0f, A, ars, B, ldb, acc ? 1.0f : 0.0f, C, ldc);
    else
        ordo_gemm(1, 0, m, n, k, 1.0f, A, acs, B, ldb, acc ? 1.0f : 0.0f, C, ldc);
}

// p[c] = exp(p[c] - shift) for c < n, 0 for n <= c < BLOCK; returns the sum of p[0..n).
static float exp_row(float *p, float shift, int n) {
    return kernel()->exp_row(p, shift, n, BLOCK);
}

// One step of the online softmax over the score tile s (flash_kernel.h says what it does):
// each row's new max m, its probabilities in place, its sum l and its part of O rescaled
// by corr = exp(old max - new max).
static void online_softmax(float *s, int nr, int i0, int j0, int nc, float *m, float *l, float *o,
                           int hsp, float *corr) {
    kernel()->online_softmax(s, BLOCK, nr, i0, j0, nc, m, l, o, hsp, corr);
}

// hs padded to whole zmm vectors, T to whole blocks.
static int pad16(int x) {
    return (x + 15) / 16 * 16;
}
static int blocks(int T) {
    return (T + BLOCK - 1) / BLOCK;
}
// Floats rounded up to 16 (64 bytes), so that every scratch region starts on a cache line
// when the scratch does.
static size_t up16(size_t n) {
    return (n + 15) / 16 * 16;
}

// Scratch regions, in floats: shared by all threads first, then one region per thread.
static size_t fwd_shared(int B, int T, int NH, int hsp) {
    return (size_t)B * NH * 2 * blocks(T) * BLOCK * hsp; // packed k^T and v per (b, h)
}
static size_t fwd_thread(int hsp) {
    return 2 * (size_t)BLOCK * hsp + (size_t)BLOCK * BLOCK + 3 * BLOCK; // q, O, S, m, l, corr
}
static size_t bwd_thread(int T, int hsp) {
    size_t Tp = (size_t)blocks(T) * BLOCK;
    // q, dO, dQ [Tp, hsp]; D, lse [Tp]; k^T, v^T [hsp, BLOCK]; k, dK, dV [BLOCK, hsp];
    // P, dP, dropped P [BLOCK, BLOCK]
    return 3 * Tp * hsp + 2 * Tp + 5 * (size_t)BLOCK * hsp + 3 * (size_t)BLOCK * BLOCK;
}

size_t ordo_flash_scratch_floats(int B, int T, int C, int NH, size_t n_grad) {
    int hsp = pad16(C / NH), nt = omp_get_max_threads();
    size_t f = fwd_shared(B, T, NH, hsp) + (size_t)nt * fwd_thread(hsp);
    size_t b = (size_t)B * NH * up16(n_grad) + (size_t)nt * bwd_thread(T, hsp);
    return f > b ? f : b;
}

size_t ordo_flash_bias_scratch_floats(const ordo_attn_bias *bias, int B, int T, int C, int NH,
                                      int backward) {
    size_t ng = bias && !bias->per_batch ? bias->n_grad : 0;
    size_t n = ordo_flash_scratch_floats(B, T, C, NH, ng);
    if (!bias || !bias->rows) return n;
    size_t f = up16(bias->rows->fwd_floats), b = up16(bias->rows->bwd_floats);
    size_t w = backward && b > f ? b : f;
    return n + (size_t)omp_get_max_threads() * w; // each thread's workspace after the rest
}

// What both passes derive from the shapes and the dropout rate: one function, so that the
// backward's recomputed scores and dropped probabilities are the forward's by construction.
typedef struct dims {
    int hs, hsp, C3; // head size; it padded to 16; the row of qkv
    int nb, Tp, BH;  // key (and query) blocks; T padded to them; B * NH
    float scale, ks; // 1 / sqrt(hs); a kept probability's factor 1 / (1 - p_drop)
    uint64_t below;  // dropout's keep threshold
} dims;

static dims dims_of(int B, int T, int C, int NH, float p_drop, const ordo_attn_bias *bias) {
    ORDO_ASSERT(B > 0 && T > 0 && NH > 0 && C % NH == 0 && p_drop >= 0.0f && p_drop < 1.0f);
    ORDO_ASSERT(!bias || bias->fill || bias->rows);
    dims z = {.hs = C / NH, .C3 = 3 * C, .nb = blocks(T), .BH = B * NH};
    z.hsp = pad16(z.hs);
    z.Tp = z.nb * BLOCK;
    z.scale = 1.0f / sqrtf((float)z.hs);
    z.ks = 1.0f / (1.0f - p_drop);
    z.below = ordo_dropout_below(p_drop);
    return z;
}

// The keep bits of tile row i, keys j0 .. j0+n-1, applied to p in place (x keep * ks); the
// index of (b, h, i, j) is ((b*NH + h)*T + i)*T + j, as ordo_attention_dropout lays out its
// mask [B, NH, T, T].
static void drop_row(float *p, const float *src, int n, size_t bh, int i, int j0, int T,
                     uint64_t seed, size_t offset, uint64_t below, float ks) {
    uint64_t x0 = offset + ((uint64_t)bh * T + i) * T + j0;
    for (int c = 0; c < n; c++) p[c] = ordo_dropout_keeps(seed, x0 + c, below) ? src[c] * ks : 0.0f;
}

// ---- forward

void ordo_flash_forward(float *out, float *lse, const float *qkv, const ordo_attn_bias *bias,
                        float p_drop, uint64_t seed, size_t offset, float *scratch, int B, int T,
                        int C, int NH) {
    dims z = dims_of(B, T, C, NH, p_drop, bias);
    int hs = z.hs, hsp = z.hsp, C3 = z.C3, nb = z.nb, Tp = z.Tp, BH = z.BH;
    const ordo_attn_row_bias *rb = bias ? bias->rows : NULL;
    float *packed = scratch, *threads = scratch + fwd_shared(B, T, NH, hsp);
    // a row bias's workspace per thread, after the threads' tiles
    float *rwork = threads + (size_t)omp_get_max_threads() * fwd_thread(hsp);
    int saved = ordo_blas_single_thread_begin();

    // k^T per key block [nb][hsp, BLOCK] and v [Tp, hsp] per (b, h), zero-padded: every
    // query block reads them, so they are packed once.
#pragma omp parallel for collapse(2) schedule(static)
    for (int bh = 0; bh < BH; bh++) {
        for (int jb = 0; jb < nb; jb++) {
            int b = bh / NH, h = bh % NH;
            const float *k = qkv + (size_t)b * T * C3 + C + h * hs, *v = k + C;
            float *kt = packed + (size_t)bh * 2 * Tp * hsp + (size_t)jb * hsp * BLOCK;
            float *vp = packed + ((size_t)bh * 2 + 1) * Tp * hsp + (size_t)jb * BLOCK * hsp;
            memset(kt, 0, (size_t)hsp * BLOCK * sizeof(float));
            memset(vp, 0, (size_t)BLOCK * hsp * sizeof(float));
            for (int c = 0; c < BLOCK && jb * BLOCK + c < T; c++) {
                size_t j = (size_t)jb * BLOCK + c;
                memcpy(vp + (size_t)c * hsp, v + j * C3, (size_t)hs * sizeof(float));
                for (int d = 0; d < hs; d++) kt[(size_t)d * BLOCK + c] = k[j * C3 + d];
            }
        }
    }

    // Query blocks of one (b, h) cost 1, 2, ... nb key tiles: dynamic scheduling balances
    // them; which thread runs a block does not change its result.
#pragma omp parallel
    {
        unsigned csr = flush_begin();
#pragma omp for collapse(2) schedule(dynamic, 1)
        for (int bh = 0; bh < BH; bh++) {
            for (int ib = 0; ib < nb; ib++) {
                int b = bh / NH, h = bh % NH, i0 = ib * BLOCK;
                int nr = T - i0 < BLOCK ? T - i0 : BLOCK;
                float *qs =
                    threads + (size_t)omp_get_thread_num() * fwd_thread(hsp); // (BLOCK, hsp)
                float *o = qs + (size_t)BLOCK * hsp;                          // (BLOCK, hsp)
                float *s = o + (size_t)BLOCK * hsp; // (BLOCK, BLOCK) scores, then probabilities
                float *m = s + (size_t)BLOCK * BLOCK, *l = m + BLOCK; // (BLOCK) running max, sum
                float *corr = l + BLOCK; // (BLOCK) each row's rescale factor of this tile
                const float *q = qkv + (size_t)b * T * C3 + h * hs;
                const float *kt = packed + (size_t)bh * 2 * Tp * hsp;
                const float *vp = kt + (size_t)Tp * hsp;
                // q scaled once here, so the score tile is one product
                for (int r = 0; r < BLOCK; r++)
                    for (int d = 0; d < hsp; d++)
                        qs[(size_t)r * hsp + d] =
                            r < nr && d < hs ? z.scale * q[(size_t)(i0 + r) * C3 + d] : 0.0f;
                memset(o, 0, (size_t)BLOCK * hsp * sizeof(float));
                for (int r = 0; r < BLOCK; r++) m[r] = -INFINITY, l[r] = 0.0f;
                float *work =
                    rb ? rwork + (size_t)omp_get_thread_num() * up16(rb->fwd_floats) : NULL;
                if (rb) rb->fwd_begin(bias->self, b, h, i0, nr, work);

                for (int t = 0; t <= ib; t++) { // key blocks up to the diagonal
                    int jb = rb ? ib - t : t;   // a row bias: from the diagonal down
                    int j0 = jb * BLOCK, nc = T - j0 < BLOCK ? T - j0 : BLOCK;
                    tile_mm(BLOCK, BLOCK, hsp, qs, hsp, 1, kt + (size_t)jb * hsp * BLOCK, BLOCK, s,
                            BLOCK, 0);
                    if (rb)
                        rb->fwd_fill(bias->self, b, h, i0, nr, j0, nc, s, BLOCK, work);
                    else if (bias)
                        bias->fill(bias->self, b, h, i0, nr, j0, nc, s, BLOCK);
                    online_softmax(s, nr, i0, j0, nc, m, l, o, hsp, corr);
                    // the sum is of the undropped probabilities; P v reads the dropped ones
                    if (p_drop > 0.0f)
                        for (int r = 0; r < nr; r++) {
                            int i = i0 + r, n = i - j0 + 1 < nc ? i - j0 + 1 : nc;
                            float *sr = s + (size_t)r * BLOCK;
                            drop_row(sr, sr, n, bh, i, j0, T, seed, offset, z.below, z.ks);
                        }
                    if (nr < BLOCK)
                        memset(s + (size_t)nr * BLOCK, 0,
                               (size_t)(BLOCK - nr) * BLOCK * sizeof(float));
                    // O (BLOCK, hsp) += P (BLOCK, BLOCK) @ v[j0 : j0 + BLOCK] (BLOCK, hsp)
                    tile_mm(BLOCK, hsp, BLOCK, s, BLOCK, 1, vp + (size_t)j0 * hsp, hsp, o, hsp, 1);
                }
                if (rb) rb->fwd_end(bias->self, b, h, i0, nr, work);
                for (int r = 0; r < nr; r++) {
                    float inv = 1.0f / l[r];
                    float *orow = out + ((size_t)b * T + i0 + r) * C + h * hs;
                    for (int d = 0; d < hs; d++) orow[d] = o[(size_t)r * hsp + d] * inv;
                    lse[(size_t)bh * T + i0 + r] = m[r] + logf(l[r]);
                }
            }
        }
        flush_end(csr);
    }
    ordo_blas_single_thread_end(saved);
}

// ---- backward

void ordo_flash_backward(float *dqkv, float *g_bias, const float *dout, const float *qkv,
                         const float *out, const float *lse, const ordo_attn_bias *bias,
                         float p_drop, uint64_t seed, size_t offset, float *scratch, int B, int T,
                         int C, int NH) {
    dims z = dims_of(B, T, C, NH, p_drop, bias);
    int hs = z.hs, hsp = z.hsp, C3 = z.C3, nb = z.nb, Tp = z.Tp, BH = z.BH;
    // the bias's gradient: one buffer per (b, h), summed below in (b, h) order
    const ordo_attn_row_bias *rb = bias ? bias->rows : NULL;
    int with_g = bias && (bias->grad || rb) && g_bias && bias->n_grad > 0;
    int per_batch = with_g && bias->per_batch; // then g is g_bias's own slice, no buffer
    size_t ng = with_g && !per_batch ? up16(bias->n_grad) : 0;
    float *gbuf = scratch, *threads = scratch + (size_t)BH * ng;
    float *rwork = threads + (size_t)omp_get_max_threads() * bwd_thread(T, hsp); // row bias's
    int saved = ordo_blas_single_thread_begin();

    // (b, h) pairs cost the same: static would do, dynamic keeps a loaded core from holding
    // the others up; the result does not depend on it (each pair is one thread's work).
#pragma omp parallel
    {
        unsigned csr = flush_begin();
#pragma omp for schedule(dynamic, 1)
        for (int bh = 0; bh < BH; bh++) {
            int b = bh / NH, h = bh % NH;
            float *qs = threads + (size_t)omp_get_thread_num() * bwd_thread(T, hsp); // (Tp, hsp)
            float *go = qs + (size_t)Tp * hsp;                                       // (Tp, hsp)
            float *dq = go + (size_t)Tp * hsp;                                       // (Tp, hsp)
            float *D = dq + (size_t)Tp * hsp, *L = D + Tp;                           // (Tp)
            float *kt = L + Tp, *vt = kt + (size_t)hsp * BLOCK;                      // (hsp, BLOCK)
            float *kr = vt + (size_t)hsp * BLOCK;                                    // (BLOCK, hsp)
            float *dk = kr + (size_t)BLOCK * hsp, *dv = dk + (size_t)BLOCK * hsp;    // (BLOCK, hsp)
            float *P = dv + (size_t)BLOCK * hsp, *dP = P + BLOCK * BLOCK; // (BLOCK, BLOCK)
            float *Pd = dP + BLOCK * BLOCK; // the dropped probabilities that the forward's P v read
            float *g = !with_g     ? NULL
                       : per_batch ? g_bias + (size_t)bh * bias->n_grad
                                   : gbuf + (size_t)bh * ng;
            const float *q = qkv + (size_t)b * T * C3 + h * hs, *k = q + C, *v = q + 2 * C;
            const float *gout = dout + (size_t)b * T * C + h * hs,
                        *o = out + (size_t)b * T * C + h * hs;
            float *dqg = dqkv + (size_t)b * T * C3 + h * hs, *dkg = dqg + C, *dvg = dqg + 2 * C;

            for (int i = 0; i < Tp; i++) {
                float dot = 0.0f;
                for (int d = 0; d < hsp; d++) {
                    int in = i < T && d < hs;
                    qs[(size_t)i * hsp + d] = in ? z.scale * q[(size_t)i * C3 + d] : 0.0f;
                    go[(size_t)i * hsp + d] = in ? gout[(size_t)i * C + d] : 0.0f;
                    if (in) dot += gout[(size_t)i * C + d] * o[(size_t)i * C + d];
                }
                D[i] = dot; // rowsum(dO * O): sum_j P_ij dP_ij, also with dropout
                L[i] = i < T ? lse[(size_t)bh * T + i] : 0.0f;
            }
            memset(dq, 0, (size_t)Tp * hsp * sizeof(float));
            if (g && !per_batch) memset(g, 0, ng * sizeof(float));
            float *work = rb ? rwork + (size_t)omp_get_thread_num() * up16(rb->bwd_floats) : NULL;
            if (rb) rb->bwd_begin(bias->self, b, h, work);

            for (int jb = 0; jb < nb; jb++) {
                int j0 = jb * BLOCK, nc = T - j0 < BLOCK ? T - j0 : BLOCK;
                for (int c = 0; c < BLOCK; c++) {
                    for (int d = 0; d < hsp; d++) {
                        int in = c < nc && d < hs;
                        float kv = in ? k[(size_t)(j0 + c) * C3 + d] : 0.0f;
                        kt[(size_t)d * BLOCK + c] = kv;
                        kr[(size_t)c * hsp + d] = kv;
                        vt[(size_t)d * BLOCK + c] = in ? v[(size_t)(j0 + c) * C3 + d] : 0.0f;
                    }
                }
                memset(dk, 0, 2 * (size_t)BLOCK * hsp * sizeof(float)); // dk, dv
                for (int ib = jb; ib < nb; ib++) { // query blocks at or below the diagonal
                    int i0 = ib * BLOCK, nr = T - i0 < BLOCK ? T - i0 : BLOCK;
                    const float *qi = qs + (size_t)i0 * hsp, *gi = go + (size_t)i0 * hsp;
                    // P = exp(S - lse), S = (scale q) k^T (+ bias), as the forward made it
                    tile_mm(BLOCK, BLOCK, hsp, qi, hsp, 1, kt, BLOCK, P, BLOCK, 0);
                    if (rb)
                        rb->bwd_fill(bias->self, b, h, i0, nr, j0, nc, P, BLOCK, work);
                    else if (bias)
                        bias->fill(bias->self, b, h, i0, nr, j0, nc, P, BLOCK);
                    // dP (of the dropped probabilities) = dO v^T
                    tile_mm(BLOCK, BLOCK, hsp, gi, hsp, 1, vt, BLOCK, dP, BLOCK, 0);
                    for (int r = 0; r < BLOCK; r++) {
                        int i = i0 + r, n = r >= nr ? 0 : i - j0 + 1 < nc ? i - j0 + 1 : nc;
                        float *pr = P + (size_t)r * BLOCK, *dpr = dP + (size_t)r * BLOCK;
                        float *pdr = Pd + (size_t)r * BLOCK;
                        exp_row(pr, L[i], n);
                        if (p_drop > 0.0f) {
                            drop_row(pdr, pr, n, bh, i, j0, T, seed, offset, z.below, z.ks);
                            // the gradient of the undropped probabilities: dP * keep * ks
                            drop_row(dpr, dpr, n, bh, i, j0, T, seed, offset, z.below, z.ks);
                            memset(pdr + n, 0, (size_t)(BLOCK - n) * sizeof(float));
                        }
                        // dS = P (dP - D_i), in place of dP; zero above the diagonal and outside
                        for (int c = 0; c < n; c++) dpr[c] = pr[c] * (dpr[c] - D[i]);
                        memset(dpr + n, 0, (size_t)(BLOCK - n) * sizeof(float));
                    }
                    // dV (BLOCK, hsp) += P^T (BLOCK keys, BLOCK queries) @ dO (BLOCK, hsp)
                    tile_mm(BLOCK, hsp, BLOCK, p_drop > 0.0f ? Pd : P, 1, BLOCK, gi, hsp, dv, hsp,
                            1);
                    if (rb) // dS += what flows through the bias's reading of the scores
                        rb->bwd_grad(bias->self, b, h, i0, nr, j0, nc, dP, BLOCK, work, g);
                    else if (g)
                        bias->grad(bias->self, b, h, i0, nr, j0, nc, dP, BLOCK, g);
                    // dK += dS^T (scale q): the scale of S = scale q k^T is already in qs
                    tile_mm(BLOCK, hsp, BLOCK, dP, 1, BLOCK, qi, hsp, dk, hsp, 1);
                    // dQ += dS k, scaled once at the end
                    tile_mm(BLOCK, hsp, BLOCK, dP, BLOCK, 1, kr, hsp, dq + (size_t)i0 * hsp, hsp,
                            1);
                }
                for (int c = 0; c < nc; c++)
                    for (int d = 0; d < hs; d++) {
                        dkg[(size_t)(j0 + c) * C3 + d] += dk[(size_t)c * hsp + d];
                        dvg[(size_t)(j0 + c) * C3 + d] += dv[(size_t)c * hsp + d];
                    }
            }
            for (int i = 0; i < T; i++)
                for (int d = 0; d < hs; d++)
                    dqg[(size_t)i * C3 + d] += z.scale * dq[(size_t)i * hsp + d];
            if (rb) rb->bwd_end(bias->self, b, h, work, dqg, C3, g);
        }
        flush_end(csr);
    }

    // per_head: head h's slice += its (b, h) buffers, in b order, each element by one thread
    if (with_g && bias->per_head) {
        size_t n = bias->n_grad;
#pragma omp parallel for collapse(2) schedule(static) if (n * BH > ORDO_PAR_LOOP_MIN)
        for (int h = 0; h < NH; h++)
            for (size_t x = 0; x < n; x++) {
                float s = 0.0f;
                for (int b = 0; b < B; b++) s += gbuf[((size_t)b * NH + h) * ng + x];
                g_bias[(size_t)h * n + x] += s;
            }
    }
    // g_bias += the (b, h) buffers in order: each element by one thread, over bh in sequence
    else if (with_g && !per_batch) {
        size_t n = bias->n_grad;
#pragma omp parallel for schedule(static) if (n * BH > ORDO_PAR_LOOP_MIN)
        for (size_t x = 0; x < n; x++) {
            float s = 0.0f;
            for (int bh = 0; bh < BH; bh++) s += gbuf[(size_t)bh * ng + x];
            g_bias[x] += s;
        }
    }
    ordo_blas_single_thread_end(saved);
}
