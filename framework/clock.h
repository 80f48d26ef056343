// Wall-clock time for measuring durations (training speed, ETA, benchmarks).
#ifndef ORDO_CLOCK_H
#define ORDO_CLOCK_H

// Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences mean anything.
double ordo_now_s(void);

#endif
