/* timer.h — the host monotonic clock (CPU timings, setup times). */
#ifndef GB_TIMER_H
#define GB_TIMER_H
#include <time.h>
static inline double gb_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
