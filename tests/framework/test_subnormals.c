// framework/cpu.h's subnormal control: flushing makes a result below FLT_MIN 0 and reads a
// subnormal input as 0, keeping gives IEEE's subnormals back; ordo_set_threads applies the
// process's policy (flush unless ORDO_SUBNORMALS=keep) to the caller and to every thread of the
// OpenMP team, including threads a larger team starts later. On a CPU whose control register
// ordo does not know, the call says so (returns 0) and the checks are skipped.
#include <float.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "framework/cpu.h"
#include "framework/threads.h"
#include "test.h"

// FLT_MIN / 2: a subnormal result, or 0 when results are flushed
static float half_min(void) {
    volatile float m = FLT_MIN, h = m * 0.5f;
    return h;
}

// the smallest subnormal times 2^20: a subnormal input, read as 0 when inputs are flushed
static float scaled_subnormal(void) {
    uint32_t bits = 1;
    volatile float s;
    memcpy((void *)&s, &bits, sizeof bits);
    volatile float r = s * 1048576.0f;
    return r;
}

// how many threads of a team of n do not flush
static int team_keeps(int n) {
    int keeps = 0;
#pragma omp parallel num_threads(n) reduction(+ : keeps)
    keeps += half_min() != 0.0f || scaled_subnormal() != 0.0f;
    return keeps;
}

int main(void) {
    unsetenv("ORDO_SUBNORMALS"); // the default policy, whatever the caller's environment
    CHECK(ordo_cpu_subnormals_flushed() == 1);
    if (!ordo_cpu_flush_subnormals(0)) {
        fprintf(stderr, "test_subnormals: no subnormal control on this CPU; skipped\n");
        TEST_MAIN_END();
    }
    CHECK(half_min() > 0.0f && scaled_subnormal() > 0.0f); // kept: IEEE
    ordo_cpu_flush_subnormals(1);
    CHECK(half_min() == 0.0f);
#if defined(__SSE2__)
    CHECK(scaled_subnormal() == 0.0f); // x86's DAZ (AArch64's FZ flushes inputs as well)
#endif
    ordo_cpu_flush_subnormals(0);
    CHECK(half_min() > 0.0f);
    // the policy, applied by the thread knob to the caller and the team it sets
    CHECK(team_keeps(3) == 3); // nothing set yet: every thread keeps them
    ordo_set_threads(3);
    CHECK(half_min() == 0.0f);
    CHECK_MSG(team_keeps(3) == 0, "%d of 3 threads keep subnormals", team_keeps(3));
    CHECK_MSG(team_keeps(6) == 0, "%d of 6 threads keep subnormals", team_keeps(6));
    TEST_MAIN_END();
}
