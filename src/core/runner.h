/* runner.h — runs a plan: inputs, warm-up, the stopping rule, statistics,
 * verification across backends, and one results entry per case.
 *
 * How a result is timed, in one place (runner.c, measure()):
 *   0. rounds: the whole plan is visited `rounds` times, in order; each
 *      visit makes the inputs and prepares the backend again and takes its
 *      share of the budget (min_reps and min_time_s divided by rounds,
 *      rounded up; max_reps divided, rounded down; max_time_s as is). The
 *      output is verified on the first visit. A result whose visit was cut
 *      by max_time_s is not visited again. Every round's median widens the
 *      confidence interval (stats.h). Then, per visit:
 *   1. untimed repetitions: at least `warmup` of them and min_warmup_s of
 *      them (cut short once they have used a quarter of max_time_s, so a
 *      huge case does not spend its budget warming up);
 *   2. timed repetitions until at least min_reps AND min_time_s are reached
 *      (or max_reps samples are kept),
 *      stopping anyway once the case has used max_time_s (warm-up included)
 *      with at least one timed repetition; every sample is kept;
 *   3. in cold-cache mode the backend's caches are flushed before every
 *      repetition, outside the timer.
 * A size whose single repetition is projected — from the op's work (flops,
 * or bytes for memory-bound ops) and the rate measured at the previous size
 * of the same benchmark, dtype and backend — to exceed max_time_s is skipped
 * with that reason instead of run. Rates from repetitions under 1 ms are not
 * used: they measure fixed overheads, not the op. */
#ifndef GB_RUNNER_H
#define GB_RUNNER_H
#include <signal.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "backends.h"
#include "suite.h"

/* Set by the SIGINT handler: the runner stops after the current repetition. */
extern volatile sig_atomic_t gb_interrupted;

typedef struct {
    gb_backend_set *backends;
    int quiet;              /* no per-case lines */
    int progress;           /* "case i of N" on stderr (when it is a terminal) */
    int cache_cold;
    cJSON *results;         /* the results document: cases are appended to its "cases" */
    const char *out_path;   /* rewritten after every case; NULL: not written */
    FILE *lines;            /* per-case lines (stdout) */
} gb_run_config;

/* Run every case of the suite. Returns GB_OK when the run went through (even
 * with failed cases: see the summary), GB_FAIL if the results could not be
 * written (message in e). */
int gb_runner_run(const gb_suite *s, gb_run_config *cfg, gb_err *e);

/* Count results by status into results' "summary"; returns the number of
 * failed verifications plus errors. */
int gb_runner_summarize(cJSON *results);

/* The ceiling a result is judged against: its key in peaks.<backend>
 * ("gemm_float32_gflops", "triad_gbs", ...), or NULL when none applies
 * (end-to-end timings include transfers, which no single ceiling bounds). */
const char *gb_peak_key(const char *backend, const char *timing, const char *op_name,
                        const char *rate_kind, const char *dtype, const cJSON *params);
#endif
