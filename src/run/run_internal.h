/* run_internal.h — what the files of the runner share (runner.h is what the
 * rest of the program sees). Which file does what:
 *
 *   runner.c      the plan and its rounds: each case's first and later
 *                 visits, the checkpoints, the progress and finished-case
 *                 callbacks (gb_run_callbacks)
 *   run_visit.c   one visit of a backend (prepare, measure, fetch, verify;
 *                 a later round's measuring again), and all devices at once
 *   run_kept.c    backend states and inputs kept between rounds; a slot's
 *                 device made current and a case prepared on it
 *   run_shared.c  host results shared between cases of the same host work
 *   run_record.c  recording into the results model, and the time breakdown
 *   run_fault.c   GPUBENCH_FAULT_SLOW: a slowdown made on purpose
 *
 * Each file uses only those listed below it (tests/test_layers.c checks
 * that no two depend on each other). */
#ifndef GB_RUN_INTERNAL_H
#define GB_RUN_INTERNAL_H
#include "energy.h"
#include "model_lock.h"
#include "runner.h"
#include "timer.h"

typedef struct {
    double unix0, unix1, energy_j, seconds, span_s, reps;
} energy_window_log;

/* What a result's timed spans saw of energy and clocks (run_energy.c). */
typedef struct {
    gb_energy_sum sum;              /* the energy windows of its spans */
    int tried;                      /* energy was to be measured on it */
    int extended;                   /* an energy phase added back-to-back repetitions */
    double sm_sum, mem_sum;         /* clocks: sums over the samples that read them */
    long sm_n, mem_n, samples;
    unsigned reasons;               /* GB_CLK_* seen */
    /* GPUBENCH_ENERGY_LOG (run_energy.c): the windows since the last record */
    energy_window_log log[4];
    int nlog;
} track_energy;

/* Every sample of one result (case × backend × timing), across rounds. */
typedef struct {
    size_t result;                  /* its index in its case's results (when measured) */
    gb_samples s;
    int again;                      /* measure it in the next round too */
    const char *backend;            /* its backend's name and the ceiling that bounds it */
    const char *ceiling;
    double slow;                    /* GPUBENCH_FAULT_SLOW's factor for it (run_fault.c); 0 or 1: none */
    track_energy en;
    int projected;                  /* skipped by the projection, decided again in a later round */
    double steal_s[GB_MAX_ROUNDS];  /* the VM's steal time (CPU-seconds, all CPUs) while each round measured */
} track;

/* The tracks of one case: per backend slot and timing. */
typedef struct {
    track t[GB_MAX_BACKENDS][GB_MAX_TIMINGS];
    size_t ci;                      /* the case's index in the results' cases */
    int again;                      /* some track is measured in the next round */
    gb_arrays inputs;               /* round 0's inputs, kept for later rounds when they fit */
    int have_inputs;
    void *state[GB_MAX_BACKENDS];   /* a slot's prepared state, kept for the next round (kept_states) */
    long host_twin;                 /* an earlier case that is this one's host work (host_twins); -1: none */
    int nshared;                    /* its host results copied here: shared[i] = {ours, the twin's} */
    size_t shared[GB_MAX_BACKENDS * GB_MAX_TIMINGS][2];
    double state_bytes[GB_MAX_BACKENDS];
} case_tracks;

/* A backend or a library at work: the model is whole, and its lock is free
 * for the signal watchdog meanwhile (runner.h, gb_model_lock). */
#define OUTSIDE_MODEL(stmt) \
    do {                    \
        gb_model_unlock();  \
        stmt;               \
        gb_model_lock();    \
    } while (0)

/* The reference output of a case's first visit. */
typedef struct {
    gb_arrays out;          /* the reference output: first backend that passed its own check */
    const char *from;
    int have;
} reference;

typedef struct {
    const gb_suite *suite;
    case_tracks *tracks;
    double cap, used;
    long count;           /* states kept now */
} kept_states;
extern kept_states gb_run_kept; /* set by gb_runner_run */

/* Inputs kept between rounds (run_kept.c):
 * Inputs are made before the clock, from the case's seed, and no backend
 * writes to them (prepare copies what it needs), so a later round can reuse
 * round 0's instead of making them again. They are kept while all kept
 * inputs fit in a quarter of the host memory that was free when the run
 * started; a case beyond that makes its inputs again, as before. */
typedef struct {
    double cap, used;
} input_cache;


/* GPUBENCH_FAULT_SLOW (run_fault.c): the factor for a result (1 when it
 * does not match); a repetition's time made that many times as long, the
 * difference waited out. */
double gb_run_fault_factor(const gb_case_result *c, const gb_result *r);
void gb_run_fault_slow(double factor, double *seconds);

/* An out-of-memory while filling the model: remembered, and the next
 * checkpoint fails (run_record.c). */
extern int gb_run_model_oom;

static inline gb_case_result *case_at(gb_run_config *cfg, size_t ci) { return &cfg->results->cases[ci]; }

/* Does timing t of backend b apply to the case (gb_backend.has_timing)?
 * A timing that does not gets no result at all. */
static inline int timing_applies(const gb_backend *b, const gb_case *c, int t) {
    return !b->has_timing || b->has_timing(c, t);
}

/* run_record.c */
void gb_run_set_status(gb_result *r, gb_result_status status, const char *reason);
long gb_run_new_result(gb_run_config *cfg, size_t ci, const gb_backend_slot *slot, const char *timing,
                       gb_result_status status, const char *reason);
void gb_run_set_stats(gb_result *r, const double *samples, size_t n, const size_t *round_n, int rounds,
                      const gb_case *c);
void gb_run_set_verdict(gb_result *r, const gb_verdict *v);
void gb_run_write_measurement(gb_run_config *cfg, size_t ci, const gb_case *c, const track *t);
long gb_run_new_case(gb_run_config *cfg, const gb_case *c);
void gb_run_add_all_timings(gb_run_config *cfg, size_t ci, const gb_case *c, const gb_backend_slot *slot,
                            gb_result_status status, const char *reason);
void gb_run_account(gb_run_config *cfg, gb_op_id op, gb_time_part part, double seconds);
void gb_run_spent(gb_run_config *cfg, gb_op_id op, gb_time_part part, double t0);
void gb_run_add_speedups(gb_case_result *c, const gb_backend_set *set);

/* run_kept.c */
double gb_run_host_available_bytes(void);
void gb_run_release_state(gb_run_config *cfg, case_tracks *ct, int k, gb_op_id op);
void gb_run_release_case_states(gb_run_config *cfg, case_tracks *ct, gb_op_id op);
void *gb_run_take_state(case_tracks *ct, int k);
void gb_run_keep_or_release(gb_run_config *cfg, case_tracks *ct, int k, const gb_case *c, void *state,
                            double bytes, int wanted);
int gb_run_use_slot(gb_run_config *cfg, gb_backend_slot *slot, const gb_case *c, int check, gb_err *e);
int gb_run_prepare_case(gb_run_config *cfg, gb_backend_slot *slot, const gb_case *c, const gb_arrays *in,
                        void **state, double *setup, double *bytes, gb_err *e);
void gb_run_keep_or_free_inputs(input_cache *cache, case_tracks *ct, gb_arrays *in);
void gb_run_drop_inputs(input_cache *cache, case_tracks *ct);

/* run_shared.c */
void gb_run_host_twins(const gb_suite *s, case_tracks *tracks);
void gb_run_share_host_results(gb_run_config *cfg, const gb_suite *s, case_tracks *tracks, case_tracks *ct,
                               const gb_backend_slot *slot);
void gb_run_refresh_shared(gb_run_config *cfg, const gb_suite *s, case_tracks *tracks, case_tracks *ct);

/* run_energy.c: the meters of the run's backend slots (probed at the start
 * of the run: idle power, the counter's period and step), the spans that
 * sample them around a timed phase, the energy phase, and the recording. */
void gb_run_energy_begin_run(gb_run_config *cfg);
void gb_run_energy_end_run(void);
typedef struct gb_span gb_span;
/* Sample slot k's meter from now (energy: whether its counter is read too);
 * NULL when there is nothing to sample. */
gb_span *gb_run_span_begin(int k, int energy);
/* Stop and add what it saw to en (reps: repetitions run in it). */
void gb_run_span_end(gb_span *sp, track_energy *en, double reps);
/* Whether the energy of timing t of slot k is to be measured in this run. */
int gb_run_energy_wanted(const gb_run_config *cfg, int k, int t);
/* The energy phase of a first visit: back-to-back repetitions of timing 0
 * when its timed span fell short of the bound and extending it is cheap (or
 * --energy on). */
void gb_run_energy_phase(gb_run_config *cfg, const gb_case *c, int k, const gb_backend *b, void *state, track *tr);
/* Write what en saw into result ri of case ci (slot k's). */
void gb_run_energy_record(gb_run_config *cfg, size_t ci, const gb_case *c, int k, track_energy *en, size_t ri);
/* A lane of --devices-concurrent (concurrent.h's hooks, ctx a gb_lane_energy). */
typedef struct {
    int k, energy, mode; /* mode: cfg->energy */
    gb_span *span;
    track_energy en;
    int tries;      /* energy phases run */
    double phase_s; /* their seconds */
} gb_lane_energy;
void gb_run_energy_lane_hook(void *ctx, int begin, int reps);
double gb_run_energy_lane_want(void *ctx);
void gb_run_energy_lane_phase(void *ctx, const gb_backend *b, void *state, double seconds);
/* After the group: its phases' time (the longest lane's) into the run's
 * energy time; returned, for the caller to leave out of the samples' time. */
double gb_run_energy_lanes_spent(gb_run_config *cfg, const gb_case *c, const gb_lane_energy *le, int n);
/* The energy ratio (host J / accelerator J) of each accelerator result. */
void gb_run_energy_ratios(gb_case_result *c);

/* run_visit.c */
/* A backend's first visit of a case, in round 0 — or in a later round when
 * round 0's projection skipped it and the rates known now say it fits (its
 * skipped results are then measured in place). */
void gb_run_backend_first(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot, int slot_index,
                          const gb_arrays *in, reference *ref, gb_rate_book *rates, case_tracks *ct, int round,
                          int rounds);
void gb_run_backend_again(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot, int slot_index,
                          gb_rate_book *rates, const gb_arrays *in, case_tracks *ct, int round, int rounds);
void gb_run_concurrent_visit(const gb_plan_item *item, size_t ci, gb_run_config *cfg, const gb_arrays *in);

#endif
