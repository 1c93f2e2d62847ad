/* cpu_team.c — how many threads a loop of gpubench's own runs on
 * (gb_cpu_team_choose, cpu_backend.h).
 *
 * Why not always all of them: idle OpenMP workers sleep (OMP_WAIT_POLICY=
 * PASSIVE, cpu_environment.c), and waking one costs tens of microseconds,
 * so a small op on every thread measures the wake-ups, not the CPU. On the
 * GPU host (16 vCPUs) ten sweeps of a 64² stencil took 0.49 ms on 16
 * threads and 0.05 ms on one; a 256² stride-2 slice 0.044 ms against
 * 0.003 ms. No fixed rule fits every op: one thread per MiB touched (the
 * copy's old rule) made a 256² float64 elementwise 3.3x slower (its sin and
 * exp are compute, not memory traffic) and a 256² stencil 1.2x slower. So,
 * as FFTW's planner and the CPU GEMM choice do, it is measured: on the
 * prepared state itself, one thread against all of them, each warmed up
 * once, then timed in turn (A B A B ...) for GB_TEAM_ROUNDS rounds, each
 * time as the second of two repetitions in a row (the runner's repetitions
 * follow each other with the same team). One thread is chosen only when it
 * is GB_TEAM_MARGIN (10%) faster than every thread both in its median and
 * in its fastest round: a stall only adds time, and on the GPU host a
 * measurement whose rounds on 16 threads were stalled by the VM chose one
 * thread on the median alone, in about one process in ten, for ops that
 * then ran 2.7-7x slower on it for the whole run (a 256² float64
 * elementwise, a 1024² sum, the 4 MiB host copy: a false regression in
 * `history check`, issue #29); the fastest rounds showed the 16 threads
 * faster. Two things
 * were tried and dropped on the GPU host, 2026-11-26: the teams between (2,
 * 4, 8) timed alone, each right after a smaller one, paid for waking CPUs
 * the VM had halted meanwhile, and 1024² sums and elementwise passes then
 * ran on 2 or 8 threads 1.6-3.5x slower than on 16; and a choice near a tie
 * flips between processes, adding to their spread (issue #29). Libraries
 * choose by rule instead: OpenBLAS runs a small GEMM on one thread,
 * PyTorch's parallel_for gives each thread at least 32768 elements.
 *
 * A case whose repetition on every thread takes GB_TEAM_MEASURE_S or more
 * runs on every thread, unmeasured, as before: its wake-ups are a few % of
 * it, and one thread would take up to 16 times as long to measure.
 * --threads N is the team "all" means. The choice is each result's
 * extra.threads, and extra.team says how it was made, with the medians. It
 * is measured with warm caches, also for a cold-cache run. */
#include <stdio.h>

#include "cpu_backend.h"
#include "stats.h"

#define GB_TEAM_MEASURE_S 2e-3
#define GB_TEAM_ROUNDS 5
#define GB_TEAM_MARGIN 1.10
#define GB_TEAM_MAX_S 0.25 /* the most a choice may take; fewer rounds past it */

/* The second of two repetitions on this team (the first wakes it). */
static int timed(const gb_op_impl *impl, void *state, int team, double *seconds) {
    gb_err e = {{0}};
    impl->set_threads(state, team);
    return impl->run(state, 0, seconds, &e) == GB_OK && impl->run(state, 0, seconds, &e) == GB_OK && *seconds >= 0;
}

int gb_cpu_team_choose(const gb_op_impl *impl, void *state, char *why, size_t len) {
    int all = gb_cpu_threads();
    impl->set_threads(state, all);
    if (all <= 1) {
        snprintf(why, len, "all: one thread to run on");
        return all;
    }
    double first;
    if (!timed(impl, state, all, &first)) goto keep_all;
    if (first >= GB_TEAM_MEASURE_S) {
        snprintf(why, len, "all: a repetition on %d threads took %.3g ms (teams are measured under %.3g ms)", all,
                 first * 1e3, GB_TEAM_MEASURE_S * 1e3);
        return all;
    }
    const int team[2] = {1, all};
    double t[2][GB_TEAM_ROUNDS], warm = first;
    if (!timed(impl, state, 1, &first)) goto keep_all; /* one thread's warm-up (all's was above) */
    warm += first;
    int rounds = GB_TEAM_ROUNDS;
    if (warm * rounds > GB_TEAM_MAX_S) rounds = warm > 0 ? (int)(GB_TEAM_MAX_S / warm) : 1;
    if (rounds < 1) rounds = 1;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 2; i++)
            if (!timed(impl, state, team[i], &t[i][r])) goto keep_all;
    double one = gb_median(t[0], (size_t)rounds), every = gb_median(t[1], (size_t)rounds);
    double one_min = gb_fastest(t[0], (size_t)rounds), every_min = gb_fastest(t[1], (size_t)rounds);
    int pick = every > one * GB_TEAM_MARGIN && every_min > one_min * GB_TEAM_MARGIN ? 1 : all;
    snprintf(why, len, "measured, us of %d round%s (median, fastest): 1 thread %.3g, %.3g; %d threads %.3g, %.3g",
             rounds, rounds == 1 ? "" : "s", one * 1e6, one_min * 1e6, all, every * 1e6, every_min * 1e6);
    impl->set_threads(state, pick);
    return pick;
keep_all:
    impl->set_threads(state, all);
    snprintf(why, len, "all: a repetition failed while the team was measured");
    return all;
}
