// One knob for parallelism: OpenBLAS threads for matmuls and OpenMP threads for the loops
// around them are always set together. Defined in blas.c, with the rest of the thread policy.
#ifndef ORDO_THREADS_H
#define ORDO_THREADS_H

// Sets both counts to n; n <= 0 means all online cores. Returns the count in effect. Also
// sets the subnormal policy (framework/cpu.h: flushed unless ORDO_SUBNORMALS=keep) on the
// calling thread and the OpenMP team, since the counts are set once, before the work.
int ordo_set_threads(int n);
// The OpenMP thread count in effect (what a parallel loop outside any region gets).
int ordo_get_threads(void);

#endif
