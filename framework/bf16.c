// float32 -> bfloat16 rounding and the precision names (see bf16.h). The rounding is plain
// integer arithmetic on the float's bits, which GCC vectorises; no intrinsics, so that it
// builds everywhere and rounds the same everywhere (the hardware's VCVTNEPS2BF16 would also
// flush subnormals to zero, which this does not). Deliberately no bf16 arithmetic: oneDNN
// (dnnl.c) does the products.
#include <omp.h>
#include <string.h>

#include "framework/bf16.h"
#include "framework/blas.h"

ORDO_NAMES_ENUM(ordo_precision, ordo_precision_parse, ordo_precision_name, ordo_precision_names,
                "precision", ORDO_PRECISION_COUNT, "fp32", "bf16");

// Round to nearest even on the upper 16 bits: add 0x7fff plus the lowest kept bit, then
// truncate; a carry out of the mantissa correctly bumps the exponent (up to infinity). A NaN
// whose set mantissa bits are all in the lower half would round to infinity that way, so
// NaNs become the quiet NaN of their sign instead.
static inline ordo_bf16 round_bits(uint32_t u) {
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u;
    return (ordo_bf16)(nan ? ((u >> 16) | 0x0040u) : r);
}

ordo_bf16 ordo_bf16_from_f32(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return round_bits(u);
}

float ordo_bf16_to_f32(ordo_bf16 b) {
    uint32_t u = (uint32_t)b << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static void convert(ordo_bf16 *restrict dst, const float *restrict src, size_t n) {
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, src + i, sizeof u); // the float's bits (a plain load once compiled)
        dst[i] = round_bits(u);
    }
}

void ordo_bf16_convert(ordo_bf16 *restrict dst, const float *restrict src, size_t n) {
    // rows of a kernel's own parallel loop (the cross-entropy gradient) stay on their thread
    // without opening a nested region per row
    const size_t slice = 16 * ORDO_PAR_LOOP_MIN;
    if (n <= slice || omp_in_parallel()) {
        convert(dst, src, n);
        return;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i += slice) convert(dst + i, src + i, n - i < slice ? n - i : slice);
}
