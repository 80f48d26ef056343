// Times the gradient allreduce alone (ordo_dist_sum_f32 over a float block, as the trainer
// calls it once per step), for the communication model in docs/distributed.md. Run it under
// mpirun: `mpirun -np 2 build/bench_allreduce [FLOATS...]`. Prints, on rank 0, for each size:
// bytes, median and min seconds per allreduce over the repetitions, and the bus bandwidth
// 2(N-1)/N * bytes / time (the bytes each rank sends in a ring allreduce, per second).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sys/dist.h"
#include "sys/clock.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (ordo_dist_init(&argc, &argv)) {
        fprintf(stderr, "bench_allreduce: %s\n", ordo_error_message());
        return 1;
    }
    int rank = ordo_dist_rank(), size = ordo_dist_size();
    // default sizes: the d-model 256, 4 layers, byte-token model of bench/mpi.sh, and others
    size_t def[] = {13824, 1 << 20, 3296256, 1 << 24};
    int nsizes = argc > 1 ? argc - 1 : (int)(sizeof def / sizeof def[0]);
    if (rank == 0)
        printf("%d ranks\n%12s %12s %12s %12s %10s\n", size, "floats", "bytes", "median_s", "min_s",
               "busbw_GB/s");
    for (int k = 0; k < nsizes; k++) {
        size_t n = argc > 1 ? strtoull(argv[k + 1], NULL, 10) : def[k];
        float *buf = malloc(n * sizeof *buf);
        for (size_t i = 0; i < n; i++) buf[i] = (float)(i % 97) * 1e-3f;
        enum { REPS = 21 };
        double t[REPS];
        ordo_dist_sum_f32(buf, n); // warm up the connections
        for (int r = 0; r < REPS; r++) {
            double t0 = ordo_now_s();
            ordo_dist_sum_f32(buf, n);
            t[r] = ordo_now_s() - t0;
            // the mean over ranks of their time for this call
            ordo_dist_sum_f64(&t[r], 1);
            t[r] /= size;
        }
        qsort(t, REPS, sizeof t[0], cmp_d);
        double bytes = 4.0 * (double)n, med = t[REPS / 2];
        if (rank == 0)
            printf("%12zu %12.0f %12.6f %12.6f %10.3f\n", n, bytes, med, t[0],
                   size > 1 ? 2.0 * (size - 1) / size * bytes / med / 1e9 : 0.0);
        free(buf);
    }
    ordo_dist_finalize();
    return 0;
}
