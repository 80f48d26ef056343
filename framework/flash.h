// The fused, tiled causal attention (online softmax, FlashAttention-2 style): memory linear
// in T. Only O [B, T, C] and the row log-sum-exp [B, NH, T] are kept; backward recomputes
// each score tile from q, k, v and the log-sum-exp. A position bias is never materialized:
// the caller hands a tile function that adds the bias of a block of (query, key) pairs, and
// for backward a function that takes the tile's dL/dscore and accumulates the bias
// parameters' gradients. framework/ knows no scheme: models/ provides both functions.
//
// Scores: s[h, i, j] = scale * q_i . k_j + bias(h, i, j) for j <= i (causal), scale =
// 1/sqrt(hs); p = softmax over j; out_i = sum_j p_ij v_j (with dropout: p_ij * keep_ij / (1 -
// p_drop), keep from ordo_dropout_mask's counter-based hash at index ((b*NH + h)*T + i)*T + j
// + offset, the same bits as the materialized path).
//
// Deterministic: the result does not depend on the thread count (fixed tile order per
// (b, h); the bias gradients summed over (b, h) in a fixed order; no atomics).
//
// Threads: fill and grad are called from several threads at once (for different tiles), so
// they must only read self; each grad call gets the g of its own (b, h), which no other
// thread touches meanwhile. The tile pointer s (ds) has ld = the kernel's tile width.
//
// Batch row b: most schemes' bias is the same for every row of the batch and ignore b; a
// data-dependent one (from the layer's input) sets per_batch, and then its gradient is
// per (b, h) too: g_bias is [B*NH, n_grad], each (b, h)'s slice added into by its own thread,
// not summed over the batch. per_head: g_bias is [NH, n_grad], head h's slice the sum over the
// batch (in b order) of its (b, h) buffers; each grad call gets its own (b, h)'s n_grad floats.
//
// A bias of the row's scores (rows, below: say positions that count gates sigmoid(s) of the
// keys between j and i) cannot be a function of (i, j) alone: it reads the tile's
// scores before adding to them, carries state along each query row, and in backward adds
// into dS (the gradient through the scores' use in the bias) before dK and dQ are made from
// it, and into dq (a bias reading q itself). The kernel then fixes the tile order:
//   forward, per (b, h, query block): key blocks from the diagonal down to block 0 (the row's
//     keys from i backward, as a suffix sum runs; the online softmax is order-free);
//   backward, per (b, h): key blocks ascending, and for each the query blocks from it on, so
//     that every query row meets its key blocks in ascending order (as a prefix sum runs).
// The bias keeps what backward needs of the forward (a row's sum, say) in rows that it writes
// from fwd_end: each query row is made by one thread, so these writes never meet.
#ifndef ORDO_FLASH_H
#define ORDO_FLASH_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

// Query and key rows per tile (flash.c): a row bias's per-tile workspace is this square.
#define ORDO_FLASH_BLOCK 64

// The hooks of a bias of the row's scores (above). work is this thread's workspace, of
// fwd_floats (forward) or bwd_floats (backward) floats, 64-byte aligned, kept between the
// calls of one query block (forward) or one (b, h) (backward) and not beyond. Tiles: rows
// i0..i0+nr-1, columns j0..j0+nc-1, nr, nc <= ORDO_FLASH_BLOCK, entries s[r*ld + c].
typedef struct ordo_attn_row_bias {
    size_t fwd_floats, bwd_floats;
    // forward: begin, then fill for each key block (from the diagonal down): s holds the
    // tile's scale q.k, which fill reads and adds the bias to; then end
    void (*fwd_begin)(const void *self, int b, int h, int i0, int nr, float *work);
    void (*fwd_fill)(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                     int ld, float *work);
    void (*fwd_end)(const void *self, int b, int h, int i0, int nr, float *work);
    // backward: begin; per tile (the order above) fill, as the forward's (the same bias),
    // then grad with the tile's ds = dL/dscore: it adds into ds what flows back through its
    // reading of the scores (zero above the diagonal stays zero) and into g (its own (b, h)
    // buffer, NULL when no parameter wants a gradient) its parameters'; end adds into dq (the
    // head's q rows, T of them, stride ldq, the unscaled q's gradient) and g.
    void (*bwd_begin)(const void *self, int b, int h, float *work);
    void (*bwd_fill)(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                     int ld, float *work);
    void (*bwd_grad)(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *ds,
                     int ld, float *work, float *g);
    void (*bwd_end)(const void *self, int b, int h, float *work, float *dq, int ldq, float *g);
} ordo_attn_row_bias;

typedef struct ordo_attn_bias {
    const void *self; // the scheme's state (tables, parameter values); read only
    // s[r*ld + c] += bias(h, i0 + r, j0 + c) for r < nr, c < nc. Called only for tiles that
    // hold at least one causal pair; entries above the diagonal may get any finite value
    // (the kernel masks them afterwards).
    void (*fill)(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s, int ld);
    // g[0..n_grad) += dL/dparameters, given ds[r*ld + c] = dL/dbias(h, i0 + r, j0 + c) (zero
    // above the diagonal). NULL when the bias has no parameters (a fixed one).
    void (*grad)(const void *self, int b, int h, int i0, int nr, int j0, int nc, const float *ds,
                 int ld, float *g);
    size_t n_grad; // floats of g: the scheme's parameter gradients, laid out as it chooses
    int per_batch; // g_bias is [B*NH, n_grad], one slice per (b, h), nothing summed (above)
    int per_head;  // g_bias is [NH, n_grad], each head's slice summed over the batch (above)
    // a bias of the row's scores: these hooks instead of fill and grad (NULL: fill and grad)
    const ordo_attn_row_bias *rows;
} ordo_attn_bias;

// Dims (kernels.h): B batch, T sequence, C channels, NH heads, hs = C / NH head size. qkv is
// [B, T, 3C] with q, k, v at offsets 0, C, 2C of a row and head h at h*hs inside each, as
// ordo_attention_forward reads it. Dropout p_drop in [0, 1) (0: none), its bits as above.

// Floats of scratch that ordo_flash_forward and ordo_flash_backward need (one buffer serves
// both), for the OpenMP thread count in effect (omp_get_max_threads()): the kernels must be
// called with the same count, outside any parallel region (each thread of theirs takes its
// slice of the scratch by omp_get_thread_num()). Linear in T: per (b, h) a packed copy of k and v,
// per thread a few [64, hs] tiles and, for backward, a packed copy of one head's q, dout and dq;
// plus B*NH*n_grad floats for the per-(b, h) bias gradients. n_grad: bias ? bias->n_grad : 0 (0 too
// for a per_batch bias, whose gradients go straight to g_bias).
size_t ordo_flash_scratch_floats(int B, int T, int C, int NH, size_t n_grad);
// The scratch for this bias (NULL: none): ordo_flash_scratch_floats with its n_grad (0 for a
// per_batch bias) and, for a row bias, each thread's workspace for ordo_flash_backward
// (backward 1) or for ordo_flash_forward alone (0: eval's forward, whose workspace is smaller).
size_t ordo_flash_bias_scratch_floats(const ordo_attn_bias *bias, int B, int T, int C, int NH,
                                      int backward);

// out [B, T, C] and lse [B, NH, T] (the row log-sum-exp of the scores, for backward) from
// qkv [B, T, 3C]; bias NULL for none. Overwrites out and lse. Parallel over (b, h, query
// block); each output row is made by one thread in a fixed order, so the result does not
// depend on the thread count.
void ordo_flash_forward(float *out, float *lse, const float *qkv, const ordo_attn_bias *bias,
                        float p_drop, uint64_t seed, size_t offset, float *scratch, int B, int T,
                        int C, int NH);

// dqkv [B, T, 3C] += the gradient of qkv, and g_bias[0..bias->n_grad) += the bias
// parameters' gradient ([0..B*NH*n_grad) for a per_batch bias, [0..NH*n_grad) per_head; g_bias
// NULL, or bias->grad and bias->rows NULL: not computed), given dout [B, T, C]
// and the forward's qkv, out and lse with the same bias and dropout. Parallel over (b, h);
// the bias gradients go to one buffer per (b, h), summed in (b, h) order: the result does
// not depend on the thread count.
void ordo_flash_backward(float *dqkv, float *g_bias, const float *dout, const float *qkv,
                         const float *out, const float *lse, const ordo_attn_bias *bias,
                         float p_drop, uint64_t seed, size_t offset, float *scratch, int B, int T,
                         int C, int NH);

// Which code computes the tiles: AUTO (the default) takes the kernels of the CPU's best
// instruction set (ordo_cpu_isa: avx512, avx2 or portable); the others force one, for tests and
// benchmarks to check and measure one against the other: the AVX-512 or AVX2 kernels (where
// the CPU runs them), the portable vector C, or GEMM (ordo_gemm on each tile product).
typedef enum ordo_flash_tiles {
    ORDO_FLASH_TILES_AUTO,
    ORDO_FLASH_TILES_PORTABLE,
    ORDO_FLASH_TILES_GEMM,
    ORDO_FLASH_TILES_AVX2,
    ORDO_FLASH_TILES_AVX512,
} ordo_flash_tiles;
// Sets the choice for the process; ORDO_ERR_ARG (and no change) for kernels the CPU (or
// ORDO_MAX_ISA) does not run. Not thread-safe: call between kernel calls.
ordo_status ordo_flash_set_tiles(ordo_flash_tiles t);
// What computes them now: "avx512", "avx2", "portable" or "ordo_gemm" (static).
const char *ordo_flash_describe(void);

#endif
