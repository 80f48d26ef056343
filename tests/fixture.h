// Helpers for tests that read the PyTorch fixtures of tests/ref/fixtures: load a tensor of
// any shape as floats, and compare arrays with an error relative to the reference's scale.
#ifndef ORDO_TEST_FIXTURE_H
#define ORDO_TEST_FIXTURE_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "framework/safetensors.h"

__attribute__((unused)) static const char *fixture_path(const char *file) {
    static char buf[4096];
    const char *root = getenv("ORDO_SOURCE_DIR");
    snprintf(buf, sizeof buf, "%s/tests/ref/fixtures/%s", root ? root : ".", file);
    return buf;
}

// Reads an F32 tensor of whatever shape the file has; NULL (and a message) if absent.
__attribute__((unused)) static float *fixture_read(const ordo_safetensors *f, const char *name,
                                                   size_t *n_out) {
    const ordo_st_tensor *t = ordo_safetensors_find(f, name);
    if (!t) {
        fprintf(stderr, "fixture %s: no tensor %s\n", ordo_safetensors_path(f), name);
        return NULL;
    }
    int shape[8];
    size_t n = 1;
    for (int i = 0; i < t->ndim; i++) {
        shape[i] = (int)t->shape[i];
        n *= (size_t)t->shape[i];
    }
    float *d = malloc((n ? n : 1) * sizeof(float));
    if (ordo_safetensors_read_f32(f, name, shape, t->ndim, d)) {
        fprintf(stderr, "fixture: %s\n", ordo_error_message());
        free(d);
        return NULL;
    }
    if (n_out) *n_out = n;
    return d;
}

// max |got - want| / max |want|: the error relative to the reference tensor's scale.
__attribute__((unused)) static double scaled_err(const float *got, const float *want, size_t n) {
    double maxw = 0, maxe = 0;
    for (size_t i = 0; i < n; i++) {
        maxw = fmax(maxw, fabs(want[i]));
        double e = fabs((double)got[i] - want[i]);
        if (!(e <= maxe)) maxe = e; // NaN propagates
    }
    return maxe / (maxw > 0 ? maxw : 1.0);
}

#endif
