// One knob for parallelism: OpenBLAS threads for matmuls and OpenMP threads for the
// loops around them are always set together.
#ifndef ORDO_THREADS_H
#define ORDO_THREADS_H

// n <= 0 means all cores. Returns the count in effect.
int ordo_set_threads(int n);
int ordo_get_threads(void);

#endif
