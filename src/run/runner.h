/* runner.h — runs a plan: drives the backends through every case and round,
 * verifies their answers against each other, and records one results entry
 * per case. How a single result is timed — warm-up, the stopping rule, the
 * budget of a round, projection — is src/core/stopping.h, driven from
 * run_visit.c; this module is the
 * loop around it:
 *
 *   rounds: the whole plan is visited `rounds` times, in order. Round 0 makes
 *   each case's inputs, prepares each backend, measures every timing,
 *   fetches and verifies the output, and prints the case's line. Later
 *   rounds measure again the results that did not hit max_time_s, on the
 *   state each backend prepared in round 0 and round 0's inputs when they
 *   were kept (a quarter of the free host memory each holds them:
 *   run_kept.c), or prepared again on inputs made again from the
 *   same seed. Every round's median widens the confidence interval
 *   (stats.h). The results file is rewritten as visits finish (at most every
 *   5 s and 5% of the time; at the end of each round but the last, which
 *   the caller's final write follows; once at an interruption), so a killed
 *   run leaves a valid file. */
#ifndef GB_RUNNER_H
#define GB_RUNNER_H
#include <signal.h>
#include <stddef.h>
#include "backends.h"
#include "model_lock.h"
#include "results_model.h"
#include "stopping.h"
#include "suite.h"

/* Set by the signal handler to the signal's number (SIGINT, SIGTERM,
 * SIGHUP): the runner stops after the current repetition. */
extern volatile sig_atomic_t gb_interrupted;

/* Where a run's wall time went, so a user sees what their minutes bought:
 * the samples themselves, the rest of the timed loop (syncs, restores,
 * cache flushes between samples), warm-up, backend set-up and release,
 * making inputs, fetching and verifying outputs, the ceilings, writing the
 * results file; wall_s is set by the caller at the end. */
typedef enum {
    GB_T_SAMPLES, GB_T_BETWEEN, GB_T_WARMUP, GB_T_SETUP, GB_T_INPUTS, GB_T_VERIFY,
    GB_T_ENERGY, /* energy: the idle probe before the run and the energy phases (run_energy.c) */
    GB_T_PARTS
} gb_time_part;
typedef struct {
    double wall_s, ceilings_s, write_s;
    double all[GB_T_PARTS];
    double by_op[GB_OP_COUNT][GB_T_PARTS];
    /* backend states kept between rounds (run_kept.c, kept_states): how many
     * later visits ran on a kept state, how many prepared again, the most
     * host memory the kept states held at once */
    long kept_visits, prepared_again;
    double kept_peak_bytes;
    long adopted_warmups; /* warm-up repetitions kept as samples (stopping.h, step 2) */
} gb_time_breakdown;
/* Each part's key in the results ("samples_s", ...) and its words. */
extern const char *const gb_time_part_key[GB_T_PARTS];
extern const char *const gb_time_part_text[GB_T_PARTS];

/* What a case's visits have cost so far, for the estimate of the time left. */
typedef struct {
    int visits;      /* visits made (0: none yet) */
    int again;       /* it is visited in the next round */
    double first_s;  /* wall time of its first visit */
    double repeat_s; /* the part of the first visit a later one repeats (warm-up and timed loop);
                        0 when the case went no further than its first visit */
    double later_s;  /* wall time of its later visits, together */
} gb_visit_times;

/* Seconds left, from what the run has measured (time_left.c): a case to
 * visit again at its own later visits, else at its repeated part scaled by
 * how later visits compared with it elsewhere; a case not yet visited at the
 * mean first visit plus, per later round, the mean later visit (0 for the
 * cases that had none). 0 before anything was visited. */
double gb_time_left(const gb_visit_times *v, size_t n, int rounds);

/* Where the run stands, when a visit is about to begin: round (from 0) of
 * rounds, case index (from 0) of count, the backend about to visit it (NULL:
 * the case's inputs come first), the seconds since cfg->started and the
 * estimate of those left (gb_time_left). */
typedef struct {
    int round, rounds;
    size_t index, count;
    const gb_case *c;
    const char *backend;
    double elapsed_s, left_s;
} gb_run_progress;

/* How the runner reports, supplied by the command (the runner includes no
 * report header and prints nothing). Either may be NULL. */
typedef struct {
    void *ctx;
    void (*progress)(void *ctx, const gb_run_progress *p);
    /* a case's visit of this round is over; c is its entry in r as it
     * stands (round 0's is the case's first line) */
    void (*case_done)(void *ctx, const gb_results *r, const gb_case_result *c, int round);
} gb_run_callbacks;

typedef struct {
    gb_backend_set *backends;
    gb_run_callbacks report; /* progress and finished cases */
    int cache_cold;
    gb_results *results;    /* the results model (results_model.h): cases are appended to it */
    const char *out_path;   /* rewritten as cases finish (runner.c checkpoint); NULL: not written */
    gb_time_breakdown *breakdown; /* added to when not NULL */
    double started;         /* gb_now() when the run began (for the progress line) */
    int concurrent;         /* --devices-concurrent: after its visit in turn, each case runs on
                             * all of a backend's devices at once (concurrent.h) */
    double keep_bytes;      /* host memory kept between rounds for inputs, and as much again for
                             * backend states; 0: a quarter of what is free when the run starts */
    int energy;             /* --energy: gb_energy_mode */
} gb_run_config;

/* --energy (docs/energy.md): auto measures every counter that advances and
 * extends only the cheap cases' spans; on extends every case to the 2%
 * bound; off measures no energy (clocks are sampled either way). */
typedef enum { GB_ENERGY_AUTO = 0, GB_ENERGY_OFF, GB_ENERGY_ON } gb_energy_mode;
/* "auto", "off", "on" into *mode: GB_OK, or GB_FAIL. */
int gb_energy_mode_parse(const char *text, int *mode);
/* One warning per kind of limit seen (power, thermal) naming the results
 * that ran so limited during their timed repetitions, appended to warnings
 * (an array). Returns how many were added. */
int gb_run_energy_warnings(const gb_results *r, cJSON *warnings);
/* GPUBENCH_FAULT_SLOW (run_fault.c), a slowdown made on purpose to test a
 * regression gate: read from the environment (gb_runner_run reads it too);
 * GB_FAIL with the reason when malformed. Once read and set, describe adds
 * it to a run's context as "fault_slow" (the variable's value). */
#define GB_FAULT_SLOW_VAR "GPUBENCH_FAULT_SLOW"
int gb_run_fault_read(gb_err *e);
void gb_run_fault_describe(cJSON *context);
/* With GPUBENCH_FAULT_SLOW set: one warning naming how many
 * results it made slower on purpose, or that none matched. Returns 1 or 0. */
int gb_run_fault_warnings(const gb_results *r, cJSON *warnings);

/* Run every case of the suite. Returns GB_OK when the run went through (even
 * with failed cases: see the summary), GB_FAIL if the results could not be
 * written (message in e). */
int gb_runner_run(const gb_suite *s, gb_run_config *cfg, gb_err *e);

#endif
