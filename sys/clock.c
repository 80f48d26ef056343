// Monotonic time (see clock.h): immune to the wall clock being set while a run goes on.
#include <stdio.h>
#include <time.h>

#include "sys/clock.h"

double ordo_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *ordo_duration_text(char *buf, size_t cap, double s) {
    if (!(s >= 0 && s < 1e9)) return "?";
    long long t = (long long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, cap, "%lld:%02lld", t / 60, t % 60);
    return buf;
}
