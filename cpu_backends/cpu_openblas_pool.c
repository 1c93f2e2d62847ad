/* cpu_openblas_pool.c — OpenBLAS's worker threads asleep between visits
 * (cpu_backend.h).
 *
 * Why: a pthread build of OpenBLAS keeps a pool of worker threads that spin
 * after each call for about 2^28 cycles (a tenth of a second) before they
 * sleep. The runner visits the CPU side of a case and then the GPU side of
 * the same case, then the CPU side of the next (often an OpenMP op of
 * gpubench's own): for that tenth of a second the spinning workers take the
 * CPUs that the next visit wants. On the GPU host (16 vCPUs) gpubench's
 * OpenMP ops ran 1.4-2.6x faster with the workers told to sleep at once
 * (OPENBLAS_THREAD_TIMEOUT=4), and the GPU side's host-bound small cases
 * (a stencil that reads its norm every sweep, a small SVD) varied 8-12%
 * between runs. That environment setting is no fix, though: it makes
 * LAPACK, which calls BLAS many times, wake its workers for each call, and
 * a 256² solve ran 2.3x slower (docs/timing.md).
 *
 * So the pool is shut down after every visit of the CPU backend
 * (blas_thread_shutdown_, which OpenBLAS exports and its own fork handler
 * uses) and started again, its workers pinned as before (cpu_bind.c), when
 * an op that calls OpenBLAS is prepared: within a visit, LAPACK keeps its
 * spinning workers; between visits nothing spins. Both are looked up at run
 * time: an OpenMP build of OpenBLAS has no pool of its own (libgomp's
 * threads already sleep at once: gpubench sets OMP_WAIT_POLICY=PASSIVE),
 * and then both calls do nothing. A BLAS call made while the pool is down
 * starts it itself, unpinned: slower perhaps, never wrong. */
#include <dlfcn.h>

#include "cpu_backend.h"

static int (*pool_stop)(void);
static int (*pool_start)(void);
static int looked_up, stopped;

static void look_up(void) {
    if (looked_up) return;
    looked_up = 1;
    pool_stop = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    pool_start = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_init");
    if (!pool_stop || !pool_start) pool_stop = pool_start = NULL;
}

void gb_cpu_openblas_rest(void) {
    look_up();
    if (!pool_stop) return;
    pool_stop(); /* does nothing when the pool is already down */
    stopped = 1;
}

void gb_cpu_openblas_ready(void) {
    look_up();
    if (!pool_start || !stopped) return;
    pool_start(); /* does nothing when a BLAS call already started it */
    gb_cpu_bind_openblas(gb_cpu_threads());
    stopped = 0;
}

int gb_cpu_openblas_pool_stops(void) {
    look_up();
    return pool_stop != NULL;
}
