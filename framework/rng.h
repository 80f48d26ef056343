// Deterministic random numbers, identical on every machine: xoshiro256** seeded by
// splitmix64. The whole state is four words, so it is saved in checkpoints as-is.
#ifndef ORDO_RNG_H
#define ORDO_RNG_H
#include <stddef.h>
#include <stdint.h>

typedef struct ordo_rng {
    uint64_t s[4];
} ordo_rng;

void ordo_rng_seed(ordo_rng *r, uint64_t seed);
uint64_t ordo_rng_u64(ordo_rng *r);
// Uniform in [0, 1) with 53 random bits.
double ordo_rng_uniform(ordo_rng *r);
// Uniform integer in [0, n), unbiased (rejection); n > 0.
uint64_t ordo_rng_below(ordo_rng *r, uint64_t n);
// Standard normal (Box-Muller in double; uses two uniforms per call, no cached spare,
// so the stream position depends only on the number of calls).
double ordo_rng_normal(ordo_rng *r);
// Weights drawn in order from r: x[i] = (float)(std * normal), or (float)(lo + (hi - lo) *
// uniform) (GPT-2's normal init; torch.nn.Linear's uniform one).
void ordo_rng_fill_normal(ordo_rng *r, float *x, size_t n, double std);
void ordo_rng_fill_uniform(ordo_rng *r, float *x, size_t n, double lo, double hi);
// Fisher-Yates shuffle of a[0..n).
void ordo_rng_shuffle_i64(ordo_rng *r, int64_t *a, size_t n);

#endif
