/* model_lock.c — the results model's lock (runner.h): a mutex the runner
 * holds while it changes the model and lets go of while a backend works. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "runner.h"

static pthread_mutex_t model_mutex = PTHREAD_MUTEX_INITIALIZER;

void gb_model_lock(void) { pthread_mutex_lock(&model_mutex); }
void gb_model_unlock(void) { pthread_mutex_unlock(&model_mutex); }

int gb_model_timedlock(double seconds) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)((seconds - (double)(long)seconds) * 1e9);
    until.tv_sec += (time_t)seconds + ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    int rc;
    while ((rc = pthread_mutex_timedlock(&model_mutex, &until)) == EINTR) {}
    return rc == 0 ? 0 : -1;
}
