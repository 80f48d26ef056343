// The dropout mask's bits, shared by ordo_dropout_mask (ops.c) and the fused attention
// (flash.c), which regenerates the bits of one tile instead of keeping a T x T mask: both
// must draw exactly the same bit for the same (seed, index).
#ifndef ORDO_DROPOUT_H
#define ORDO_DROPOUT_H
#include <stdint.h>

// splitmix64's output at counter x from state seed (Steele et al.): a strong 64-bit mix.
static inline uint64_t ordo_dropout_hash(uint64_t seed, uint64_t x) {
    uint64_t z = seed + (x + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Element x is dropped when the hash's top 32 bits fall below p * 2^32: probability p to
// within 2^-32. ordo_dropout_below(p) is that bound.
static inline uint64_t ordo_dropout_below(float p) {
    return (uint64_t)((double)p * 4294967296.0);
}
static inline int ordo_dropout_keeps(uint64_t seed, uint64_t x, uint64_t below) {
    return (ordo_dropout_hash(seed, x) >> 32) >= below;
}

#endif
