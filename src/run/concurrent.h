/* concurrent.h — one case on several devices at once (--devices-concurrent).
 *
 * Where a shared PCIe switch, a host memory bus or a power limit shows: a
 * device that is fast alone can be slow when its neighbours work too. Each
 * device gets a host thread of its own; every thread makes its device
 * current (gb_backend.use_device), prepares the case from the same inputs,
 * and then all run the same number of repetitions of one timing, each
 * repetition started together behind a barrier, each timed by the backend's
 * own clock. The runner records what comes back (run_visit.c). */
#ifndef GB_CONCURRENT_H
#define GB_CONCURRENT_H
#include <signal.h>
#include "backends.h"

typedef struct {
    gb_backend_slot *slot;   /* a device slot of the backend (backends.h) */
    double *samples;         /* reps seconds (caller-owned, reps long) */
    int n;                   /* repetitions measured */
    int status;              /* GB_OK, or the first failure (prepare or a repetition) */
    gb_err err;
    /* Called by the lane's own thread just before its first timed repetition
     * (begin 1) and after its last (begin 0, with how many ran): what samples
     * the device's energy and clocks meanwhile (run_energy.c). NULL: none
     * (a caller zeroes the lanes it makes, then sets what it uses). */
    void (*timed)(void *ctx, int begin, int reps);
    void *timed_ctx;
    /* After the timed repetitions, with every lane's case still prepared, up
     * to GB_CONCURRENT_PHASES untimed phases: each lane's phase_want (on its
     * own thread, with timed_ctx) says how many seconds of back-to-back
     * repetitions it still wants (0: none); then every lane that prepared
     * runs phase for the longest wish of them all, together, so that each
     * device works while the others do, as in the timed repetitions (the
     * energy phase of run_energy.c). No lane wants: no more phases. NULL in
     * every lane: none. */
    double (*phase_want)(void *ctx);
    void (*phase)(void *ctx, const gb_backend *b, void *state, double seconds);
    int host_cpu;            /* the CPU the lane's thread ran its last repetition on (-1: unknown) */
} gb_concurrent_lane;

#define GB_CONCURRENT_PHASES 3

/* Prepare case c on every lane's device at once, then run `warmup` untimed
 * and `reps` timed repetitions of timing on all of them together. A lane whose prepare or
 * repetition fails keeps its status and reason; the others go on. Stops
 * early (fewer than reps) when *stop becomes non-zero. Returns GB_OK when
 * the threads ran, GB_FAIL (message in e) when they could not be started. */
int gb_concurrent_measure(const gb_case *c, const gb_arrays *in, gb_concurrent_lane *lanes, int nlanes, int timing,
                          int warmup, int reps, volatile sig_atomic_t *stop, gb_err *e);
#endif
