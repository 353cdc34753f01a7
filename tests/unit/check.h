/*
 * check: the unit tests' assertions. Each CHECK prints "FAIL test: message" on failure; a test function
 * returns and main prints "PASS test" when it recorded no failure (counted by tests/run.sh).
 */
#ifndef PP_CHECK_H
#define PP_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            printf("FAIL %s: %s:%d: ", __func__, __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                                             \
            printf("\n");                                                                                    \
            check_failures++;                                                                                \
        }                                                                                                    \
    } while (0)

#define RUN(test)                                                                                            \
    do {                                                                                                     \
        int before_ = check_failures;                                                                        \
        test();                                                                                              \
        if (check_failures == before_)                                                                       \
            printf("PASS %s\n", #test);                                                                      \
    } while (0)

#endif
