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
 * as FFTW's planner and the CPU GEMM choice do, the team is measured: on
 * the prepared state itself, each candidate — 1, 2, 4, ... threads and all
 * of them — warmed up once, then timed in turn (A B C A B C ...) for
 * GB_TEAM_ROUNDS rounds; the fastest median wins, and the smallest team
 * within GB_TEAM_TIE of it (fewer threads meet fewer of the machine's other
 * tasks). Libraries do the same by rule: OpenBLAS runs a small GEMM on one
 * thread, PyTorch's parallel_for gives each thread at least 32768 elements.
 *
 * A case whose repetition on every thread takes GB_TEAM_MEASURE_S or more
 * runs on every thread, unmeasured, as before: its wake-ups are a few % of
 * it, and measuring the smaller teams would cost up to 16 times as long
 * (a bytes rule missed the stencil, which wakes its team once per sweep).
 * --threads N is the most a team gets. The choice is each result's
 * extra.threads, and extra.team says how it was made, with the medians. It
 * is measured with warm caches, also for a cold-cache run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"

#define GB_TEAM_MEASURE_S 2e-3
#define GB_TEAM_ROUNDS 5
#define GB_TEAM_TIE 1.03
#define GB_TEAM_MAX_S 0.25 /* the most a choice may take; fewer rounds past it */
#define GB_TEAM_MAX_CANDIDATES 16

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int timed(const gb_op_impl *impl, void *state, int team, double *seconds) {
    gb_err e = {{0}};
    impl->set_threads(state, team);
    return impl->run(state, 0, seconds, &e) == GB_OK && *seconds >= 0;
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
    int team[GB_TEAM_MAX_CANDIDATES], n = 0;
    for (int t = 1; t < all && n < GB_TEAM_MAX_CANDIDATES - 1; t *= 2) team[n++] = t;
    team[n++] = all;
    double t[GB_TEAM_MAX_CANDIDATES][GB_TEAM_ROUNDS], warm = first;
    for (int i = 0; i + 1 < n; i++) { /* all of them warmed up above */
        double s;
        if (!timed(impl, state, team[i], &s)) goto keep_all;
        warm += s;
    }
    int rounds = GB_TEAM_ROUNDS;
    if (warm * rounds > GB_TEAM_MAX_S) rounds = warm > 0 ? (int)(GB_TEAM_MAX_S / warm) : 1;
    if (rounds < 1) rounds = 1;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++)
            if (!timed(impl, state, team[i], &t[i][r])) goto keep_all;
    double med[GB_TEAM_MAX_CANDIDATES], best = INFINITY;
    for (int i = 0; i < n; i++) {
        med[i] = median_of(t[i], rounds);
        if (med[i] < best) best = med[i];
    }
    int pick = n - 1;
    for (int i = 0; i < n; i++)
        if (med[i] <= best * GB_TEAM_TIE) { pick = i; break; }
    int used = snprintf(why, len, "measured, median us of %d round%s:", rounds, rounds == 1 ? "" : "s");
    for (int i = 0; i < n && used > 0 && (size_t)used < len; i++)
        used += snprintf(why + used, len - (size_t)used, " %d:%.3g", team[i], med[i] * 1e6);
    impl->set_threads(state, team[pick]);
    return team[pick];
keep_all:
    impl->set_threads(state, all);
    snprintf(why, len, "all: a repetition failed while the team was measured");
    return all;
}
