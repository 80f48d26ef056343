// Wall-clock time for measuring durations (training speed, ETA, benchmarks).
#ifndef ORDO_CLOCK_H
#define ORDO_CLOCK_H
#include <stddef.h>

// Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences mean anything.
double ordo_now_s(void);
// Writes a duration of s seconds into buf[cap] as "m:ss", or "h:mm:ss" from an hour on, and
// returns buf; "?" (not buf) when s is not known: negative, not finite, or past 1e9 seconds.
const char *ordo_duration_text(char *buf, size_t cap, double s);

#endif
