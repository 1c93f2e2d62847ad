/* model_lock.c — the results model's lock (model_lock.h): a mutex the runner
 * holds while it changes the model and lets go of while a backend works. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "model_lock.h"

static pthread_mutex_t model_mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_long progress;

void gb_progress_tick(void) { atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed); }
long gb_progress_count(void) { return atomic_load_explicit(&progress, memory_order_relaxed); }

void gb_model_lock(void) {
    pthread_mutex_lock(&model_mutex);
    gb_progress_tick(); /* back from a backend call, or on to the next change */
}
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
