// bfloat16 numbers and the training precision. A bf16 is the upper half of an IEEE float32:
// the same sign and 8-bit exponent (so the same range), 7 stored mantissa bits (8 with the
// implicit one). ordo keeps bf16 only as matmul operands (--precision bf16): weights' copies
// and activations converted once per use; every sum, every stored state and every
// non-matmul op stays float32.
#ifndef ORDO_BF16_H
#define ORDO_BF16_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"
#include "framework/names.h"

typedef uint16_t ordo_bf16;

// What the products of a training step run in. fp32: every product in float32 (OpenBLAS or
// ordo's GEMM). bf16: the matmuls of the linear layers and the LM head take bf16 operands
// and accumulate in float32 (oneDNN, framework/dnnl.h).
typedef enum ordo_precision {
    ORDO_PRECISION_FP32,
    ORDO_PRECISION_BF16,
    ORDO_PRECISION_COUNT
} ordo_precision;

// The precisions' names in enum order: "fp32", "bf16".
extern const ordo_names ordo_precision_names;
// The precision named `name`; ORDO_ERR_ARG otherwise, naming the value and the choices.
ordo_status ordo_precision_parse(const char *name, ordo_precision *out);
const char *ordo_precision_name(ordo_precision p); // "?" out of range

// x rounded to the nearest bf16, ties to even (as torch.bfloat16 and the hardware's
// VCVTNEPS2BF16 round normal numbers); NaN stays a (quiet) NaN of the same sign, infinities
// stay infinite, a value past the largest bf16 becomes infinite.
ordo_bf16 ordo_bf16_from_f32(float x);
// The float32 that b stands for (exact).
float ordo_bf16_to_f32(ordo_bf16 b);
// dst[i] = ordo_bf16_from_f32(src[i]) for i < n, over the OpenMP threads when n is large and
// the caller is not in a parallel region (then on the calling thread). Each element is
// rounded alone, so the result does not depend on the thread count.
void ordo_bf16_convert(ordo_bf16 *dst, const float *src, size_t n);

#endif
