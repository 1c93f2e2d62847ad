/* stopping.h — the stopping rule: how one visit of a result is measured,
 * how a case's budget is split over rounds, and how a size that cannot be
 * afforded is projected from the previous size. It knows neither cJSON nor
 * printing nor any backend: the runner hands it a repetition function and a
 * clock, so tests drive it with a fake backend on a deterministic clock
 * (tests/core/test_stopping.c).
 *
 * One visit (gb_measure_visit):
 *   1. warm-up, untimed, by the kind of visit (gb_visit):
 *      GB_VISIT_FIRST_OF_KIND, the first result of its op, backend and timing
 *      in this process: at least `warmup` repetitions and at least
 *      min_warmup_s (a library's thread pool starts on first use and its
 *      start-up outlasts a fixed count of fast repetitions: on the H100 host
 *      the first ~50 ms of 16-thread OpenBLAS GEMMs at 512 ran 40× slower);
 *      GB_VISIT_FIRST, a result's first visit once its kind is warm: `warmup`
 *      repetitions, going on (up to min_warmup_s) while the last two still
 *      differ by more than GB_WARMUP_STABLE;
 *      GB_VISIT_AGAIN, a later round that prepared again: no warm-up when
 *      the first visit showed that the first repetition after prepare
 *      already ran at speed (within GB_WARMUP_STABLE of that visit's
 *      median), else as GB_VISIT_FIRST;
 *      GB_VISIT_KEPT, a later round on the state kept from the last one (no
 *      new prepare, run/run_kept.c): the buffers are warm but the caches hold the
 *      other cases visited since, where a prepare's upload would have left
 *      this case's data. So one repetition when the first one was shorter
 *      than GB_KEPT_CACHE_S (data that can sit in a cache), none when it was
 *      longer and at speed, else as GB_VISIT_FIRST; "at speed" is the first
 *      visit's first repetition after prepare or, once a kept visit has
 *      warmed up, that visit's first repetition (a library's start-up cost
 *      on the first call is not paid again on a kept state).
 *      On any visit, one repetition that by itself lasted min_warmup_s is
 *      warm-up enough: it has absorbed the start-up the floor is for. The
 *      warm-up stops anyway once it has used a quarter of max_time_s.
 *   2. timed repetitions until at least min_reps AND min_time_s are reached,
 *      or max_reps samples are kept; stopping anyway once the visit has used
 *      max_time_s (warm-up included) with one timed repetition ("capped":
 *      such a result is not visited again).
 *      The warm-up's last repetition counts as the first sample when it
 *      lasted at least GB_ADOPT_MIN_S and the first timed one came within
 *      GB_ADOPT_WITHIN of it: it ran at speed, and throwing it away cost a
 *      whole repetition of the longest cases (on the H100 host 13 s of a
 *      default run, a 2 s DGEMM 8192 among them). Not on a first visit of
 *      its kind, whose warm-up absorbs a library's start-up. The test is
 *      symmetric (a repetition faster by more than that is not kept either),
 *      so what it lets in lies within the samples' own noise.
 *   3. the stop flag (a signal) ends the visit after the current repetition. */
#ifndef GB_STOPPING_H
#define GB_STOPPING_H
#include <signal.h>
#include <stddef.h>
#include "gb.h"

/* How long a case is measured: `warmup` untimed reps, then timed reps until
 * at least min_reps AND min_time_s are reached, but never past max_time_s
 * (warm-up included) once at least one rep is timed, nor past max_reps
 * samples (a 10 µs op would otherwise keep 50,000 samples for 0.5 s, which
 * narrows no interval that matters and makes results files huge). */
typedef struct {
    int warmup;
    double min_warmup_s;  /* warm up for at least this long too (capped at max_time_s/4) */
    int min_reps;
    int max_reps;
    double min_time_s;
    double max_time_s;
} gb_budget;

/* Rounds are at most this many: each splits the repetition budget further. */
#define GB_MAX_ROUNDS 20

/* Two warm-up repetitions within this relative difference are "stable". */
#define GB_WARMUP_STABLE 0.10

/* A warm-up repetition at least this long, within this relative difference
 * of the first timed one, counts as a sample (step 2). */
#define GB_ADOPT_MIN_S 0.05
#define GB_ADOPT_WITHIN 0.02

/* The clock the rule reads: the host monotonic clock in a run, a scripted
 * one in tests. */
typedef struct {
    double (*now)(void *ctx);
    void *ctx;
} gb_clock;
extern const gb_clock gb_host_clock;

/* One repetition of one result, as the backend times it. */
typedef int (*gb_rep_fn)(void *ctx, double *seconds, gb_err *e);

typedef enum { GB_VISIT_FIRST_OF_KIND, GB_VISIT_FIRST, GB_VISIT_AGAIN, GB_VISIT_KEPT } gb_visit;

/* A repetition shorter than this may run on data a cache can hold (GB_VISIT_KEPT). */
#define GB_KEPT_CACHE_S 1e-3

/* Every sample of one result (case × backend × timing), across rounds. */
typedef struct {
    double *v;
    size_t n, cap;
    size_t round_n[GB_MAX_ROUNDS]; /* samples taken in each round, in order */
    int rounds;                    /* rounds measured */
    int warmup_reps;               /* across rounds (adopted ones not counted) */
    int adopted_warmups;           /* warm-up repetitions kept as samples (step 2) */
    double first_rep_s;            /* the first repetition after the first prepare (0: none) */
    int first_rep_at_speed;        /* it was within GB_WARMUP_STABLE of its visit's median */
    int kept_rep_at_speed;         /* a kept visit's first repetition was (GB_VISIT_KEPT) */
} gb_samples;
void gb_samples_free(gb_samples *s);

/* Where a visit's wall time went (added to, not reset). */
typedef struct {
    double warmup_s;   /* untimed repetitions */
    double timing_s;   /* the timed loop, as the user waits for it */
    double samples_s;  /* the sum of the samples themselves */
} gb_visit_cost;

/* Measure one visit (the rule above), appending its samples to out.
 * *capped is set
 * when max_time_s, not the budget, ended it. Returns the repetition's status
 * on failure (message in e). */
int gb_measure_visit(const gb_budget *b, gb_visit visit, gb_rep_fn rep, void *ctx, const gb_clock *clk,
                     volatile sig_atomic_t *stop, gb_samples *out, int *capped, gb_visit_cost *cost,
                     gb_err *e);

/* Round `round`'s share of a case's budget: min_reps split exactly over the
 * rounds (5 over 3: 2, 2, 1 — the total is what the suite asked for),
 * min_time_s divided by the rounds, max_reps divided (rounded down, at least
 * the round's min_reps); max_time_s stays a per-visit cap. So rounds cost
 * warm-ups, not a multiple of the run. */
gb_budget gb_round_budget(const gb_budget *b, int rounds, int round);

/* ---- projection ------------------------------------------------------------
 * The rate (work per second) last measured per benchmark, dtype and backend
 * (from the fastest repetition: only a size that even the best moment cannot
 * afford is skipped, whatever else the machine was doing), so a sweep skips a
 * size it cannot afford before spending the budget. Rates
 * from repetitions under GB_PROJECTION_MIN_S are not kept: they measure fixed
 * overheads (launches, thread wake-ups), not the op, and would predict absurd
 * times for larger sizes. */
#define GB_PROJECTION_MIN_S 1e-3
typedef struct gb_rate_book gb_rate_book;
gb_rate_book *gb_rate_book_new(void);
void gb_rate_book_free(gb_rate_book *b);
/* Remember a repetition's time for (benchmark, dtype, backend) at size label. */
void gb_rate_record(gb_rate_book *b, int benchmark, int dtype, int backend, double work, double seconds,
                    const char *label);
/* A later round's fastest repetition at the size label that set the rate:
 * a faster one raises the rate, one under GB_PROJECTION_MIN_S forgets it
 * (that size is fixed overhead after all: a first round that stalled made it
 * look like 59 ms and skipped the next size, issue #47). Another size's, or
 * none: nothing changes. */
void gb_rate_revise(gb_rate_book *b, int benchmark, int dtype, int backend, double work, double seconds,
                    const char *label);
/* The projected seconds of one repetition of `work`, or 0 when nothing is
 * known; *from names the size the rate was measured at. */
double gb_rate_project(const gb_rate_book *b, int benchmark, int dtype, int backend, double work,
                       const char **from);
#endif
