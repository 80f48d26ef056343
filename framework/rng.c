// xoshiro256** (Blackman & Vigna) with splitmix64 seeding. Chosen over the C library's
// rand() because runs must replay bit-identically across machines and libc versions.
#include <math.h>

#include "framework/rng.h"

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ordo_rng_seed(ordo_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t ordo_rng_u64(ordo_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ordo_rng_uniform(ordo_rng *r) {
    return (ordo_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t ordo_rng_below(ordo_rng *r, uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n; // values >= limit would bias the modulo
    for (;;) {
        uint64_t x = ordo_rng_u64(r);
        if (x < limit) return x % n;
    }
}

double ordo_rng_normal(ordo_rng *r) {
    double u1 = 1.0 - ordo_rng_uniform(r); // (0, 1]: log is finite
    double u2 = ordo_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void ordo_rng_shuffle_i64(ordo_rng *r, int64_t *a, size_t n) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)ordo_rng_below(r, i);
        int64_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

void ordo_rng_fill_normal(ordo_rng *r, float *x, size_t n, double std) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(std * ordo_rng_normal(r));
}

void ordo_rng_fill_uniform(ordo_rng *r, float *x, size_t n, double lo, double hi) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * ordo_rng_uniform(r));
}
