// Sets OpenBLAS and OpenMP thread counts together (see threads.h).
#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include "framework/threads.h"

int ordo_set_threads(int n) {
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)c : 1;
    }
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
    return n;
}

int ordo_get_threads(void) {
    return omp_get_max_threads();
}
