// What every bench shares: CPU time, the median of repeated timings (the machine is noisy:
// benches quote medians), and a main that runs the bench's `run` on its arguments and says
// what failed.
#ifndef ORDO_BENCH_H
#define ORDO_BENCH_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sys/error.h"

// Seconds of CPU the process has used, all threads together.
static inline double bench_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The median of v[0..n) (sorts v).
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// main() of a bench whose work is `static ordo_status run(int argc, char **argv)`.
#define ORDO_BENCH_MAIN(name)                                                                      \
    int main(int argc, char **argv) {                                                              \
        ordo_status s_ = run(argc - 1, argv + 1);                                                  \
        if (s_) fprintf(stderr, "%s: %s\n", name, ordo_error_message());                           \
        return s_ ? 1 : 0;                                                                         \
    }

#endif
