// The inner kernels of the fused attention (flash.c): the tile product, a row's exp and the
// online softmax's step, one set per instruction set, each in its own file so that only it
// is compiled for its instructions: flash_avx512.c (-mavx512f), flash_avx2.c (-mavx2 -mfma)
// and flash_portable.c (the build's own flags: NEON on arm64). flash_avx2.c and
// flash_portable.c are one source, flash_vec.h, in GCC's vector extensions. flash.c picks one
// by ordo_cpu_isa() (cpu.h). Internal to flash.c.
#ifndef ORDO_FLASH_KERNEL_H
#define ORDO_FLASH_KERNEL_H

typedef struct ordo_flash_kernel {
    const char *name; // "avx512", "avx2", "portable"
    // C[m, n] = (acc ? C : 0) + A @ B, with A read as A[i*ars + p*acs] (i < m, p < k: ars =
    // lda, acs = 1 for A, ars = 1, acs = lda for A^T) and B [k, n] row-major (ldb). m a
    // multiple of 4, n a multiple of 16. Each C element sums over p in order, in registers,
    // then adds C.
    void (*tile)(int m, int n, int k, const float *A, long ars, long acs, const float *B, long ldb,
                 float *C, long ldc, int acc);
    // p[c] = exp(p[c] - shift) for c < n and 0 for n <= c < nfull (nfull a multiple of 16), in
    // place; returns the sum of p[0..n). Cephes' expf as kernels.c's (within 2 ulp of expf, x
    // clamped to [-87, 88]).
    float (*exp_row)(float *p, float shift, int n, int nfull);
    // One step of the forward's online softmax over a score tile s [nfull, nfull] (ld nfull)
    // of query rows i0 .. i0+nr-1 and keys j0 .. j0+nc-1, row r's causal keys the first
    // min(i0 + r - j0 + 1, nc): the new running max m[r], s's row replaced by exp(s - m[r]) (0
    // past its keys), l[r] = l[r] * corr + the row's sum and o's row [hsp] scaled by corr =
    // exp(old max - new max) (0 for a row's first tile). corr is returned in corr[r] for the
    // caller's dropout.
    void (*online_softmax)(float *s, int nfull, int nr, int i0, int j0, int nc, float *m, float *l,
                           float *o, int hsp, float *corr);
} ordo_flash_kernel;

// Each runs only where ordo_cpu_isa() reaches its level (the portable one everywhere).
extern const ordo_flash_kernel ordo_flash_kernel_avx512, ordo_flash_kernel_avx2,
    ordo_flash_kernel_portable;

#endif
