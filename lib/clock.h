/*
 * clock: the one host clock every timed region uses (monotonic, seconds as double).
 */
#ifndef PP_CLOCK_H
#define PP_CLOCK_H

#include <time.h>

static inline double clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
