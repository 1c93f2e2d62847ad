/* concurrent.c — see concurrent.h. */
#include "concurrent.h"
#include "node_env.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* The start gate: no thread touches its device until every thread exists,
 * and none does if one could not be started (the rest would wait at the
 * barrier for ever). */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int open, abort;
    int halt; /* *stop as one thread read it for a repetition: every thread follows it */
    int phased; /* some lane has a phase (concurrent.h) */
    double phase_s[GB_CONCURRENT_PHASES]; /* each phase's length: the longest wish */
} gate;

typedef struct {
    gate *g;
    const gb_case *c;
    const gb_arrays *in;
    gb_concurrent_lane *lane;
    int timing, warmup, reps;
    pthread_barrier_t *barrier;
    volatile sig_atomic_t *stop;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    pthread_mutex_lock(&w->g->lock);
    while (!w->g->open) pthread_cond_wait(&w->g->cond, &w->g->lock);
    int abort = w->g->abort;
    pthread_mutex_unlock(&w->g->lock);
    if (abort) return NULL;
    gb_concurrent_lane *l = w->lane;
    const gb_backend *b = l->slot->b;
    void *state = NULL;
    int prepared = gb_backends_use(l->slot, &l->err);
    if (prepared == GB_OK) prepared = b->supports(w->c, &l->err);
    if (prepared == GB_OK) prepared = b->prepare(w->c, w->in, &state, &l->err);
    l->status = prepared;
    /* Every thread meets the barrier the same number of times, whether its
     * own device could prepare or not, so the others are never left waiting. */
    for (int r = 0; r < w->warmup + w->reps; r++) {
        /* one thread reads the stop request, then all start the repetition
         * together, and all see the same answer (no thread left at a barrier) */
        if (pthread_barrier_wait(w->barrier) == PTHREAD_BARRIER_SERIAL_THREAD) w->g->halt = *w->stop != 0;
        pthread_barrier_wait(w->barrier);
        if (w->g->halt) break;
        if (l->status != GB_OK) continue;
        if (r == w->warmup && l->timed) l->timed(l->timed_ctx, 1, 0);
        double s = 0;
        int st = b->run(state, w->timing, &s, &l->err);
        l->host_cpu = sched_getcpu();
        if (st != GB_OK) l->status = st;
        else if (r >= w->warmup) l->samples[l->n++] = s;
    }
    if (l->timed && prepared == GB_OK && w->reps > 0) l->timed(l->timed_ctx, 0, l->n);
    /* the phases: every thread meets the barrier once a phase, and all read
     * the same length after it, so all stop together */
    int ready = prepared == GB_OK && l->status == GB_OK && !w->g->halt;
    for (int p = 0; w->g->phased && p < GB_CONCURRENT_PHASES; p++) {
        double want = ready && l->phase_want && !*w->stop ? l->phase_want(l->timed_ctx) : 0;
        pthread_mutex_lock(&w->g->lock);
        if (want > w->g->phase_s[p]) w->g->phase_s[p] = want;
        pthread_mutex_unlock(&w->g->lock);
        pthread_barrier_wait(w->barrier);
        double s = w->g->phase_s[p]; /* written before the barrier, by this phase's wishes only */
        if (!(s > 0)) break;
        if (ready && l->phase) l->phase(l->timed_ctx, b, state, s);
    }
    if (prepared == GB_OK) b->release(state);
    return NULL;
}

int gb_concurrent_measure(const gb_case *c, const gb_arrays *in, gb_concurrent_lane *lanes, int nlanes, int timing,
                          int warmup, int reps, volatile sig_atomic_t *stop, gb_err *e) {
    if (nlanes < 1) return gb_errf(e, GB_FAIL, "no device to run on");
    pthread_barrier_t barrier;
    if (pthread_barrier_init(&barrier, NULL, (unsigned)nlanes) != 0)
        return gb_errf(e, GB_FAIL, "cannot make a barrier for %d threads", nlanes);
    pthread_t tid[GB_MAX_BACKENDS];
    worker w[GB_MAX_BACKENDS];
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, {0}};
    int started = 0, status = GB_OK;
    if (nlanes > GB_MAX_BACKENDS) nlanes = GB_MAX_BACKENDS;
    for (int i = 0; i < nlanes; i++) {
        lanes[i].n = 0; /* (timed and timed_ctx are the caller's) */
        lanes[i].host_cpu = -1;
        lanes[i].status = GB_OK;
        lanes[i].err.msg[0] = '\0';
        g.phased |= lanes[i].phase != NULL;
        w[i] = (worker){&g, c, in, &lanes[i], timing, warmup, reps, &barrier, stop};
    }
    /* each device's host thread may run on any CPU of the process's set: a
     * thread inherits its creator's mask, and the main thread is pinned to
     * one CPU (cpu_bind.c), where every device's thread would then queue */
    pthread_attr_t attr;
    int attr_ok = pthread_attr_init(&attr) == 0;
    size_t set_size = 0;
    const cpu_set_t *set = attr_ok ? gb_node_original_mask(&set_size) : NULL;
    if (set) pthread_attr_setaffinity_np(&attr, set_size, set);
    for (; started < nlanes; started++)
        if (pthread_create(&tid[started], attr_ok ? &attr : NULL, work, &w[started]) != 0) break;
    if (attr_ok) pthread_attr_destroy(&attr);
    pthread_mutex_lock(&g.lock);
    g.open = 1;
    g.abort = started < nlanes;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.lock);
    if (started < nlanes) status = gb_errf(e, GB_FAIL, "cannot start thread %d of %d", started + 1, nlanes);
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&barrier);
    return status;
}
