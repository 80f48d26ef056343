// Monotonic time (see clock.h): immune to the wall clock being set while a run goes on.
#include <time.h>

#include "framework/clock.h"

double ordo_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
