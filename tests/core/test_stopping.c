/* test_stopping.c — the stopping rule (src/core/stopping.h) on a fake
 * backend and a scripted clock: every repetition "takes" the time the script
 * says, the clock advances by exactly that, so each test knows to the
 * repetition what the rule must do. */
#include <math.h>
#include <string.h>

#include "stopping.h"
#include "testlib.h"

/* A fake backend: repetition i takes times[i] (the last one repeats). */
typedef struct {
    double now;            /* the scripted clock */
    const double *times;
    int ntimes, calls;
    int fail_at;           /* 1-based call that fails; 0 never */
    volatile sig_atomic_t *stop_after; /* set *stop_after once calls reach stop_at */
    int stop_at;
} fake;

static double fake_now(void *ctx) { return ((fake *)ctx)->now; }

static int fake_rep(void *ctx, double *seconds, gb_err *e) {
    fake *f = ctx;
    f->calls++;
    if (f->fail_at && f->calls == f->fail_at) return gb_errf(e, GB_FAIL, "fake failure");
    double t = f->times[f->calls - 1 < f->ntimes ? f->calls - 1 : f->ntimes - 1];
    f->now += t;
    *seconds = t;
    if (f->stop_after && f->calls >= f->stop_at) *f->stop_after = 1;
    return GB_OK;
}

static gb_budget budget(int warmup, double min_warmup_s, int min_reps, double min_time_s, double max_time_s,
                        int max_reps) {
    return (gb_budget){.warmup = warmup, .min_warmup_s = min_warmup_s, .min_reps = min_reps,
                       .min_time_s = min_time_s, .max_time_s = max_time_s, .max_reps = max_reps};
}

static int visit(fake *f, const gb_budget *b, gb_visit v, gb_samples *s, int *capped, volatile sig_atomic_t *stop) {
    gb_clock clk = {fake_now, f};
    static volatile sig_atomic_t never = 0;
    gb_err e = {{0}};
    return gb_measure_visit(b, v, fake_rep, f, &clk, stop ? stop : &never, s, capped, NULL, &e);
}

TEST(stopping_min_reps_and_min_time_both_needed) {
    static const double t[] = {0.01};
    fake f = {.times = t, .ntimes = 1};
    gb_budget b = budget(0, 0, 5, 0.2, 10, 1000);
    gb_samples s = {0};
    int capped;
    CHECK(visit(&f, &b, GB_VISIT_FIRST_OF_KIND, &s, &capped, NULL) == GB_OK);
    /* 5 reps give 0.05 s: min_time_s (0.2 s) needs 20 */
    CHECK(s.n == 20 && s.rounds == 1 && s.round_n[0] == 20 && !capped && s.warmup_reps == 0);
    gb_samples_free(&s);
}

TEST(stopping_max_reps_ends_a_visit_of_a_fast_op) {
    static const double t[] = {1e-6};
    fake f = {.times = t, .ntimes = 1};
    gb_budget b = budget(0, 0, 5, 1.0, 10, 100);
    gb_samples s = {0};
    int capped;
    visit(&f, &b, GB_VISIT_FIRST_OF_KIND, &s, &capped, NULL);
    CHECK(s.n == 100 && !capped);
    gb_samples_free(&s);
}

TEST(stopping_max_time_caps_a_slow_op_after_one_sample) {
    static const double t[] = {3.0};
    fake f = {.times = t, .ntimes = 1};
    gb_budget b = budget(1, 0.1, 5, 0.5, 4, 1000);
    gb_samples s = {0};
    int capped;
    visit(&f, &b, GB_VISIT_FIRST_OF_KIND, &s, &capped, NULL);
    /* warm-up: one 3 s repetition (a long one is enough); then the first timed
     * one reaches 6 s > max_time_s 4: capped with one sample */
    CHECK(s.warmup_reps == 1 && s.n == 1 && capped);
    gb_samples_free(&s);
}

TEST(stopping_first_of_kind_warms_up_for_the_time_floor) {
    /* The thread-pool start-up case: slow repetitions for a while, then fast. */
    static const double t[] = {0.015, 0.015, 0.015, 0.0004};
    fake f = {.times = t, .ntimes = 4};
    gb_budget b = budget(2, 0.1, 5, 0.0, 10, 1000);
    gb_samples s = {0};
    int capped;
    visit(&f, &b, GB_VISIT_FIRST_OF_KIND, &s, &capped, NULL);
    /* 0.045 s in the first 3 reps, then 0.0004 s each until 0.1 s: every
     * sample is a fast one */
    CHECK(s.warmup_reps > 3);
    CHECK(f.now - 5 * 0.0004 >= 0.1 - 1e-12);
    for (size_t i = 0; i < s.n; i++) CHECK(s.v[i] == 0.0004);
    gb_samples_free(&s);
}

TEST(stopping_first_visit_of_a_warm_kind_counts_and_waits_for_stable_times) {
    static const double t[] = {0.010, 0.005, 0.001, 0.001};
    fake f = {.times = t, .ntimes = 4};
    gb_budget b = budget(2, 0.1, 3, 0.0, 10, 1000);
    gb_samples s = {0};
    int capped;
    visit(&f, &b, GB_VISIT_FIRST, &s, &capped, NULL);
    /* 2 reps (10, 5 ms) differ by half: not stable; the 3rd (1 ms) differs
     * from the 2nd; the 4th agrees with the 3rd: warm-up over after 4 reps,
     * far below the 0.1 s floor a first-of-kind visit would wait for */
    CHECK(s.warmup_reps == 4);
    CHECK(s.n == 3);
    gb_samples_free(&s);
}

/* One first visit of a warm kind (warm-up 2, floor 0.1 s, 2 reps, no time
 * floor) on the script t; the visit's cost in *cost. */
static void long_first_visit(const double *t, int nt, gb_visit v, fake *f, gb_samples *s, gb_visit_cost *cost) {
    *f = (fake){.times = t, .ntimes = nt};
    gb_budget b = budget(2, 0.1, 2, 0.0, 10, 1000);
    gb_clock clk = {fake_now, f};
    static volatile sig_atomic_t never = 0;
    gb_err e = {{0}};
    int capped;
    CHECK(gb_measure_visit(&b, v, fake_rep, f, &clk, &never, s, &capped, cost, &e) == GB_OK);
}

TEST(stopping_a_long_warm_up_rep_at_speed_counts_as_the_first_sample) {
    static const double t[] = {0.201, 0.2, 0.2};
    fake f;
    gb_samples s = {0};
    gb_visit_cost cost = {0};
    long_first_visit(t, 3, GB_VISIT_FIRST, &f, &s, &cost);
    /* one 0.2 s warm-up rep (longer than the floor), the first timed one
     * within 2% of it: it is kept, in the order it ran, and 2 reps suffice */
    CHECK(f.calls == 2 && s.n == 2 && s.v[0] == 0.201 && s.v[1] == 0.2);
    CHECK(s.warmup_reps == 0 && s.adopted_warmups == 1);
    CHECK(cost.warmup_s == 0 && fabs(cost.samples_s - 0.401) < 1e-12);
    gb_samples_free(&s);
}

TEST(stopping_a_warm_up_rep_off_speed_either_way_is_not_kept) {
    static const double slow[] = {0.21, 0.2, 0.2}, fast[] = {0.19, 0.2, 0.2};
    const double *scripts[] = {slow, fast};
    for (int i = 0; i < 2; i++) {
        fake f;
        gb_samples s = {0};
        gb_visit_cost cost = {0};
        long_first_visit(scripts[i], 3, GB_VISIT_FIRST, &f, &s, &cost);
        /* 5% off the first timed rep: a warm-up, and a third rep is needed */
        CHECK(f.calls == 3 && s.n == 2 && s.v[0] == 0.2 && s.warmup_reps == 1 && s.adopted_warmups == 0);
        CHECK(fabs(cost.warmup_s - scripts[i][0]) < 1e-12);
        gb_samples_free(&s);
    }
}

TEST(stopping_no_warm_up_rep_is_kept_on_a_first_visit_of_its_kind_or_when_short) {
    static const double t[] = {0.2};
    fake f;
    gb_samples s = {0};
    gb_visit_cost cost = {0};
    long_first_visit(t, 1, GB_VISIT_FIRST_OF_KIND, &f, &s, &cost); /* it absorbs a library's start-up */
    CHECK(s.warmup_reps == 1 && s.adopted_warmups == 0 && f.calls == 3);
    gb_samples_free(&s);
    static const double short_reps[] = {0.02};
    memset(&s, 0, sizeof s);
    long_first_visit(short_reps, 1, GB_VISIT_FIRST, &f, &s, &cost); /* a warm-up that cheap is not worth the doubt */
    CHECK(s.adopted_warmups == 0 && s.warmup_reps >= 2 && s.n == 2);
    gb_samples_free(&s);
}

/* A first visit (warm-up 2, 3 reps, no time floor) on the script t, then a
 * later visit of kind `later`; *before: the warm-up reps after the first.
 * restart: the later visit prepares again, so the script starts over. */
static void first_then(const double *t, int nt, gb_visit later, int restart, gb_samples *s, int *before) {
    static fake f;
    f = (fake){.times = t, .ntimes = nt};
    gb_budget b = budget(2, 0.0, 3, 0.0, 10, 1000);
    int capped;
    visit(&f, &b, GB_VISIT_FIRST_OF_KIND, s, &capped, NULL);
    *before = s->warmup_reps;
    if (restart) f.calls = 0;
    visit(&f, &b, later, s, &capped, NULL);
}

TEST(stopping_later_round_skips_the_warm_up_when_the_first_rep_ran_at_speed) {
    static const double t[] = {0.0101, 0.01, 0.01};
    gb_samples s = {0};
    int before;
    first_then(t, 3, GB_VISIT_AGAIN, 0, &s, &before);
    CHECK(s.first_rep_s == 0.0101 && s.first_rep_at_speed);
    CHECK(s.warmup_reps == before && s.rounds == 2 && s.n == 6);
    gb_samples_free(&s);
}

TEST(stopping_later_round_warms_up_when_the_first_rep_was_slow) {
    static const double t[] = {0.05, 0.01, 0.01};
    gb_samples s = {0};
    int before;
    first_then(t, 3, GB_VISIT_AGAIN, 1, &s, &before); /* prepared again: its first rep is slow again */
    CHECK(!s.first_rep_at_speed);
    CHECK(s.warmup_reps >= before + 2);
    CHECK(s.v[s.n - 1] == 0.01 && s.v[s.n - 3] == 0.01); /* the slow one was not timed */
    gb_samples_free(&s);
}

TEST(stopping_kept_state_needs_no_warm_up_when_its_first_rep_was_long_and_at_speed) {
    static const double t[] = {0.0101, 0.01, 0.01};
    gb_samples s = {0};
    int before;
    first_then(t, 3, GB_VISIT_KEPT, 0, &s, &before);
    CHECK(s.first_rep_at_speed && s.first_rep_s >= GB_KEPT_CACHE_S);
    CHECK(s.warmup_reps == before && s.rounds == 2 && s.n == 6);
    gb_samples_free(&s);
}

TEST(stopping_kept_state_refills_the_caches_with_one_rep_when_its_data_may_fit_one) {
    static const double t[] = {1.01e-5, 1e-5, 1e-5};
    gb_samples s = {0};
    int before;
    first_then(t, 3, GB_VISIT_KEPT, 0, &s, &before);
    CHECK(s.first_rep_at_speed && s.first_rep_s < GB_KEPT_CACHE_S);
    CHECK(s.warmup_reps == before + 1 && s.rounds == 2);
    /* the first visit's first repetition still decides: the kept visit does not overwrite it */
    CHECK(s.first_rep_s == 1.01e-5);
    gb_samples_free(&s);
}

TEST(stopping_kept_state_warms_up_as_a_first_visit_when_the_first_rep_was_slow) {
    static const double t[] = {0.05, 0.01, 0.01};
    gb_samples s = {0};
    int before;
    first_then(t, 3, GB_VISIT_KEPT, 0, &s, &before);
    CHECK(!s.first_rep_at_speed);
    CHECK(s.warmup_reps >= before + 2);
    /* that kept visit's first repetition ran at speed (the script repeats
     * 0.01): the next kept visit needs no warm-up */
    CHECK(s.kept_rep_at_speed);
    fake f = {.times = t + 1, .ntimes = 1};
    gb_budget b = budget(2, 0.0, 3, 0.0, 10, 1000);
    int capped;
    before = s.warmup_reps;
    visit(&f, &b, GB_VISIT_KEPT, &s, &capped, NULL);
    CHECK(s.warmup_reps == before && s.rounds == 3);
    gb_samples_free(&s);
}

TEST(stopping_a_signal_ends_the_visit_after_the_current_repetition) {
    static const double t[] = {0.001};
    static volatile sig_atomic_t stop = 0;
    stop = 0;
    fake f = {.times = t, .ntimes = 1, .stop_after = &stop, .stop_at = 3};
    gb_budget b = budget(0, 0, 100, 1.0, 10, 1000);
    gb_samples s = {0};
    int capped;
    CHECK(visit(&f, &b, GB_VISIT_FIRST, &s, &capped, &stop) == GB_OK);
    CHECK(s.n == 3 && f.calls == 3 && s.round_n[0] == 3);
    gb_samples_free(&s);
}

TEST(stopping_a_failed_repetition_is_returned_and_no_round_recorded) {
    static const double t[] = {0.001};
    fake f = {.times = t, .ntimes = 1, .fail_at = 4};
    gb_budget b = budget(1, 0, 10, 0, 10, 1000);
    gb_samples s = {0};
    int capped;
    CHECK(visit(&f, &b, GB_VISIT_FIRST, &s, &capped, NULL) == GB_FAIL);
    CHECK(s.rounds == 0);
    gb_samples_free(&s);
}

TEST(stopping_round_budget_splits_min_reps_exactly) {
    gb_budget b = budget(2, 0.1, 5, 0.6, 8, 1000);
    int total = 0;
    for (int r = 0; r < 3; r++) {
        gb_budget rb = gb_round_budget(&b, 3, r);
        total += rb.min_reps;
        CHECK_NEAR(rb.min_time_s, 0.2, 1e-12);
        CHECK(rb.max_reps == 333 && rb.max_time_s == 8);
    }
    CHECK(total == 5);
    CHECK(gb_round_budget(&b, 3, 0).min_reps == 2 && gb_round_budget(&b, 3, 2).min_reps == 1);
    /* never below one repetition a round */
    gb_budget one = budget(0, 0, 1, 0, 1, 10);
    CHECK(gb_round_budget(&one, 3, 2).min_reps == 1);
}

TEST(stopping_projection_uses_the_rate_of_the_previous_size) {
    gb_rate_book *book = gb_rate_book_new();
    const char *from = NULL;
    CHECK(gb_rate_project(book, 0, 0, 0, 1e9, &from) == 0);
    gb_rate_record(book, 0, 0, 0, 2e9, 0.5, "1024"); /* 4e9 units/s */
    CHECK_NEAR(gb_rate_project(book, 0, 0, 0, 8e10, &from), 20.0, 1e-9);
    CHECK(from && strcmp(from, "1024") == 0);
    /* another backend, dtype or benchmark knows nothing */
    CHECK(gb_rate_project(book, 0, 0, 1, 8e10, NULL) == 0 && gb_rate_project(book, 1, 0, 0, 8e10, NULL) == 0);
    /* a repetition under a millisecond is overhead, not a rate */
    gb_rate_record(book, 0, 0, 0, 1e6, 1e-4, "64");
    CHECK_NEAR(gb_rate_project(book, 0, 0, 0, 8e10, &from), 20.0, 1e-9);
    gb_rate_book_free(book);
}
