// The tile product of the fused attention (flash.c), in its own file so that only it is
// compiled with AVX-512 (flash_avx512.c) and the rest of flash.c runs on any x86-64 CPU.
// Internal to flash.c.
#ifndef ORDO_FLASH_KERNEL_H
#define ORDO_FLASH_KERNEL_H

// C[m, n] = (acc ? C : 0) + A @ B, with A read as A[i*ars + p*acs] (i < m, p < k: ars = lda,
// acs = 1 for A, ars = 1, acs = lda for A^T) and B [k, n] row-major (ldb). m a multiple of
// 16, n a multiple of 16. Each C element sums over p in order, in registers, then adds C.
// Requires ordo_gemm_own_available() (gemm.h): the CPU runs AVX-512.
void ordo_flash_tile_avx512(int m, int n, int k, const float *A, long ars, long acs, const float *B,
                            long ldb, float *C, long ldc, int acc);

// p[c] = exp(p[c] - shift) for c < n and 0 for n <= c < nfull (nfull a multiple of 16), in
// place; returns the sum of p[0..n). Cephes' expf as kernels.c's (within 2 ulp of expf, x
// clamped to [-87, 88]) on 16 lanes, 2^n by scalef. Requires AVX-512 as above.
float ordo_flash_exp_row_avx512(float *p, float shift, int n, int nfull);

// One step of the forward's online softmax over a score tile s [nfull, nfull] (ld nfull) of
// query rows i0 .. i0+nr-1 and keys j0 .. j0+nc-1, row r's causal keys the first
// min(i0 + r - j0 + 1, nc): the new running max m[r], s's row replaced by exp(s - m[r]) (0
// past its keys), l[r] = l[r] * corr + the row's sum and o's row [hsp] scaled by corr =
// exp(old max - new max) (0 for a row's first tile). All rows' maxima first, then every corr
// in one vector exp, then the rows: per row this costs no scalar expf and no call. corr is
// returned in corr[r] for the caller's dropout. Requires AVX-512 as above.
void ordo_flash_online_softmax_avx512(float *s, int nfull, int nr, int i0, int j0, int nc, float *m,
                                      float *l, float *o, int hsp, float *corr);

#endif
