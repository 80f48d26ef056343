// Minimal test harness: CHECK and CHECK_CLOSE report file:line and count failures;
// TEST_MAIN_END prints a summary line and returns non-zero if anything failed.
#ifndef ORDO_TEST_H
#define ORDO_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int test_failures = 0, test_checks = 0;

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(c)) {                                                                                \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                  \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(c, ...)                                                                          \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(c)) {                                                                                \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #c);                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

// |a-b| <= atol + rtol*|b|; NaN never passes.
#define CHECK_CLOSE(a, b, atol, rtol)                                                              \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        test_checks++;                                                                             \
        if (!(fabs(a_ - b_) <= (atol) + (rtol)*fabs(b_))) {                                        \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK_CLOSE failed: %s = %.9g, %s = %.9g\n", __FILE__,         \
                    __LINE__, #a, a_, #b, b_);                                                     \
        }                                                                                          \
    } while (0)

#define TEST_MAIN_END()                                                                            \
    do {                                                                                           \
        printf("%s: %d checks, %d failed\n", __FILE__, test_checks, test_failures);                \
        return test_failures ? 1 : 0;                                                              \
    } while (0)

#endif
