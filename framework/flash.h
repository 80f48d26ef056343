// The fused, tiled causal attention (online softmax, FlashAttention-2 style): memory linear
// in T. Only O [B, T, C] and the row log-sum-exp [B, NH, T] are kept; backward recomputes
// each score tile from q, k, v and the log-sum-exp. A position bias is never materialised:
// the caller hands a tile function that adds the bias of a block of (query, key) pairs, and
// for backward a function that takes the tile's dL/dscore and accumulates the bias
// parameters' gradients. framework/ knows no scheme: models/ provides both functions.
//
// Scores: s[h, i, j] = scale * q_i . k_j + bias(h, i, j) for j <= i (causal), scale =
// 1/sqrt(hs); p = softmax over j; out_i = sum_j p_ij v_j (with dropout: p_ij * keep_ij / (1 -
// p_drop), keep from ordo_dropout_mask's counter-based hash at index ((b*NH + h)*T + i)*T + j
// + offset, the same bits as the materialised path).
//
// Deterministic: the result does not depend on the thread count (fixed tile order per
// (b, h); the bias gradients summed over (b, h) in a fixed order; no atomics).
//
// Threads: fill and grad are called from several threads at once (for different tiles), so
// they must only read self; each grad call gets the g of its own (b, h), which no other
// thread touches meanwhile. The tile pointer s (ds) has ld = the kernel's tile width.
//
// Batch row b: most schemes' bias is the same for every row of the batch and ignore b; a
// data-dependent one (fox: from the layer's input) sets per_batch, and then its gradient is
// per (b, h) too: g_bias is [B*NH, n_grad], each (b, h)'s slice added into by its own thread,
// not summed over the batch.
#ifndef ORDO_FLASH_H
#define ORDO_FLASH_H
#include <stddef.h>
#include <stdint.h>

typedef struct ordo_attn_bias {
    const void *self; // the scheme's state (tables, parameter values); read only
    // s[r*ld + c] += bias(h, i0 + r, j0 + c) for r < nr, c < nc. Called only for tiles that
    // hold at least one causal pair; entries above the diagonal may get any finite value
    // (the kernel masks them afterwards).
    void (*fill)(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s, int ld);
    // g[0..n_grad) += dL/dparameters, given ds[r*ld + c] = dL/dbias(h, i0 + r, j0 + c) (zero
    // above the diagonal). NULL when the bias has no parameters (alibi).
    void (*grad)(const void *self, int b, int h, int i0, int nr, int j0, int nc, const float *ds,
                 int ld, float *g);
    size_t n_grad; // floats of g: the scheme's parameter gradients, laid out as it chooses
    int per_batch; // g_bias is [B*NH, n_grad], one slice per (b, h), nothing summed (above)
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

// out [B, T, C] and lse [B, NH, T] (the row log-sum-exp of the scores, for backward) from
// qkv [B, T, 3C]; bias NULL for none. Overwrites out and lse. Parallel over (b, h, query
// block); each output row is made by one thread in a fixed order, so the result does not
// depend on the thread count.
void ordo_flash_forward(float *out, float *lse, const float *qkv, const ordo_attn_bias *bias,
                        float p_drop, uint64_t seed, size_t offset, float *scratch, int B, int T,
                        int C, int NH);

// dqkv [B, T, 3C] += the gradient of qkv, and g_bias[0..bias->n_grad) += the bias
// parameters' gradient ([0..B*NH*n_grad) for a per_batch bias; g_bias NULL, or bias->grad
// NULL: not computed), given dout [B, T, C]
// and the forward's qkv, out and lse with the same bias and dropout. Parallel over (b, h);
// the bias gradients go to one buffer per (b, h), summed in (b, h) order: the result does
// not depend on the thread count.
void ordo_flash_backward(float *dqkv, float *g_bias, const float *dout, const float *qkv,
                         const float *out, const float *lse, const ordo_attn_bias *bias,
                         float p_drop, uint64_t seed, size_t offset, float *scratch, int B, int T,
                         int C, int NH);

// Which code computes the tile products: AUTO (the default) takes the AVX-512 micro-kernel
// where the CPU has it, else the portable C loop; C and GEMM (ordo_gemm on each tile) are
// for tests and benchmarks, to check and measure one against the other.
typedef enum ordo_flash_tiles {
    ORDO_FLASH_TILES_AUTO,
    ORDO_FLASH_TILES_C,
    ORDO_FLASH_TILES_GEMM,
} ordo_flash_tiles;
// Sets the choice for the process. Not thread-safe: call between kernel calls.
void ordo_flash_set_tiles(ordo_flash_tiles t);
// What computes them now: "avx512 micro-kernel", "portable C" or "ordo_gemm" (static).
const char *ordo_flash_describe(void);

#endif
