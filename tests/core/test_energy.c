/* test_energy.c — the counter arithmetic of core/energy.h on traces written
 * out here (no clock, no device): a counter that wraps, one that does not
 * advance, one that advances only every 100 ms (NVML on the H100 host: 20
 * updates in 2 s idle, steps of 7-13 J; 645 W under SGEMM), the length a span
 * needs for the 2% bound, and what a RAPL reader sums when domains are missing. */
#include <math.h>
#include <string.h>

#include "energy.h"
#include "testlib.h"

/* A counter of `watts` updated every `period` s, read every `poll` s from t0
 * for `span` s (the read at t sees the last update at or before t). */
static size_t stepped_trace(gb_energy_read *r, size_t cap, double t0, double span, double poll, double period,
                            double watts, double j0) {
    size_t n = 0;
    for (double t = t0; t <= t0 + span + 1e-12 && n < cap; t += poll) {
        double last_update = floor(t / period + 1e-9) * period;
        r[n].t = t;
        r[n].j = j0 + watts * last_update;
        n++;
    }
    return n;
}

TEST(energy_unwrap_adds_the_range_after_a_wrap) {
    /* RAPL energy_uj at the top of a 262143328850 uJ range, then past it */
    double range = 262143.328850, raw[] = {262140.0, 262143.0, 1.5, 10.0};
    double v = 0, prev = raw[0];
    for (int i = 1; i < 4; i++) {
        v = gb_energy_unwrap(prev, v, raw[i], range);
        prev = raw[i];
    }
    CHECK_NEAR(v, (262143.328850 - 262140.0) + 10.0, 1e-6);
    /* a counter that does not wrap (range 0) never gains a range */
    CHECK_NEAR(gb_energy_unwrap(5.0, 5.0, 7.0, 0), 7.0, 1e-12);
}

TEST(energy_probe_of_a_counter_updated_every_100ms) {
    static gb_energy_read r[2100];
    /* idle at 100 W, read every ms for 2 s: 20 updates of 10 J */
    size_t n = stepped_trace(r, 2100, 0.0005, 2.0, 0.001, 0.1, 100.0, 5000.0);
    gb_energy_probe p;
    char why[160] = "";
    CHECK(gb_energy_probe_trace(r, n, &p, why, sizeof why) == GB_OK);
    CHECK(p.advancing);
    CHECK(p.changes == 20);
    CHECK_NEAR(p.period_s, 0.1, 1e-6);
    CHECK_NEAR(p.step_j, 10.0, 1e-6);
    CHECK_NEAR(p.power_w, 100.0, 1e-6);
    CHECK_NEAR(p.poll_s, 0.001, 1e-9);
}

TEST(energy_probe_refuses_a_counter_that_does_not_advance) {
    /* the H100 host's perf energy-psys: readable, always the same value */
    gb_energy_read r[50];
    for (int i = 0; i < 50; i++) r[i] = (gb_energy_read){0.01 * i, 1234.5};
    gb_energy_probe p;
    char why[160] = "";
    CHECK(gb_energy_probe_trace(r, 50, &p, why, sizeof why) == GB_FAIL);
    CHECK(!p.advancing);
    CHECK(strstr(why, "does not advance") != NULL);
    CHECK(strstr(why, "no change") != NULL);
}

TEST(energy_probe_refuses_a_counter_going_backwards) {
    gb_energy_read r[3] = {{0, 10}, {0.1, 20}, {0.2, 15}};
    gb_energy_probe p;
    char why[160] = "";
    CHECK(gb_energy_probe_trace(r, 3, &p, why, sizeof why) == GB_FAIL);
    CHECK(strstr(why, "backwards") != NULL);
}

TEST(energy_window_synced_reads_are_exact_between_ticks) {
    static gb_energy_read r[1200];
    /* 645 W, counter every 100 ms, polled every 5 ms over 1.1 s */
    size_t n = stepped_trace(r, 1200, 0.0123, 1.1, 0.005, 0.1, 645.0, 0);
    gb_energy_window w;
    CHECK(gb_energy_window_of(r, n, 0.1, &w) == GB_OK);
    CHECK(w.synced);
    CHECK_NEAR(w.energy_j / w.seconds, 645.0, 645.0 * 2 * 0.005 / w.seconds);
    CHECK(w.uncertainty_s <= 0.0100001);
    gb_energy_sum s = {0};
    gb_energy_add(&s, &w, 1000);
    gb_energy_estimate e;
    char why[160];
    CHECK(gb_energy_estimate_of(&s, 1e-3, 100.0, &e, why, sizeof why) == GB_OK);
    CHECK(e.bound <= 0.011);
    CHECK(fabs(e.power_w - 645.0) <= e.bound * e.power_w);
    CHECK_NEAR(e.j_per_op, e.power_w * w.span_s / 1000, 1e-9);
    CHECK_NEAR(e.above_idle_w, e.power_w - 100.0, 1e-9);
    CHECK(e.above_idle_bound > e.bound);
}

TEST(energy_window_of_end_reads_is_uncertain_by_two_periods) {
    /* only the span's two ends were read (a RAPL reader, or a span too short
     * for a tick): 0.5 s at 100 ms updates is a 40% bound, never passed off as 2% */
    gb_energy_read r[2] = {{1.05, 105.0}, {1.55, 455.0}};
    gb_energy_window w;
    CHECK(gb_energy_window_of(r, 2, 0.1, &w) == GB_OK);
    CHECK(!w.synced);
    CHECK_NEAR(w.uncertainty_s, 0.2, 1e-12);
    gb_energy_sum s = {0};
    gb_energy_add(&s, &w, 50);
    gb_energy_estimate e;
    char why[160];
    CHECK(gb_energy_estimate_of(&s, 0, NAN, &e, why, sizeof why) == GB_OK);
    CHECK_NEAR(e.bound, 0.4, 1e-9);
    CHECK(isnan(e.above_idle_j_per_op));
}

TEST(energy_estimate_refuses_a_span_without_energy) {
    gb_energy_read r[3] = {{0, 7.0}, {0.02, 7.0}, {0.04, 7.0}};
    gb_energy_window w;
    gb_energy_window_of(r, 3, 0.1, &w);
    gb_energy_sum s = {0};
    gb_energy_add(&s, &w, 10);
    gb_energy_estimate e;
    char why[160] = "";
    CHECK(gb_energy_estimate_of(&s, 1e-3, 80, &e, why, sizeof why) == GB_FAIL);
    CHECK(strstr(why, "did not advance") != NULL);
    CHECK(isnan(e.j_per_op));
}

TEST(energy_windows_of_rounds_add_up) {
    static gb_energy_read r[400];
    gb_energy_sum s = {0};
    /* three rounds of 0.3 s each at 300 W, polled every 2 ms */
    for (int k = 0; k < 3; k++) {
        size_t n = stepped_trace(r, 400, 10.0 * k + 0.031, 0.3, 0.002, 0.1, 300.0, 0);
        gb_energy_window w;
        CHECK(gb_energy_window_of(r, n, 0.1, &w) == GB_OK);
        gb_energy_add(&s, &w, 100);
    }
    CHECK(s.synced.windows == 3 && s.ends.windows == 0);
    CHECK_NEAR(s.synced.reps, 300, 0);
    gb_energy_estimate e;
    char why[160];
    CHECK(gb_energy_estimate_of(&s, 1e-3, NAN, &e, why, sizeof why) == GB_OK);
    CHECK(fabs(e.power_w - 300.0) <= e.bound * 300.0);
}

TEST(energy_estimate_prefers_synced_windows) {
    /* a synced window of 1 s at 300 W and an end-read one of 0.2 s that says
     * 500 W: the estimate is the synced one's, with its bound */
    gb_energy_sum s = {0};
    gb_energy_window synced = {.energy_j = 300, .seconds = 1.0, .uncertainty_s = 0.004, .span_s = 1.1, .synced = 1};
    gb_energy_window ends = {.energy_j = 100, .seconds = 0.2, .uncertainty_s = 0.2, .span_s = 0.2, .synced = 0};
    gb_energy_add(&s, &ends, 10);
    gb_energy_estimate e;
    char why[160];
    CHECK(gb_energy_estimate_of(&s, 0, NAN, &e, why, sizeof why) == GB_OK);
    CHECK_NEAR(e.power_w, 500, 1e-9); /* alone, the end-read window is what there is */
    CHECK_NEAR(e.bound, 1.0, 1e-9);
    gb_energy_add(&s, &synced, 110);
    CHECK(gb_energy_estimate_of(&s, 0, NAN, &e, why, sizeof why) == GB_OK);
    CHECK_NEAR(e.power_w, 300, 1e-9);
    CHECK_NEAR(e.j_per_op, 300 * 1.1 / 110, 1e-12);
    CHECK_NEAR(e.bound, 0.004, 1e-12);
}

TEST(energy_needed_length_follows_period_poll_and_step) {
    gb_energy_probe p = {.advancing = 1, .period_s = 0.1, .step_j = 10, .power_w = 100, .poll_s = 0.001};
    /* synced at 5 ms: W = 2*0.005/0.02 = 0.5 s, + the two ticks' periods */
    CHECK_NEAR(gb_energy_needed_s(&p, 0.005, 0, 100, 0.02), 0.7, 1e-9);
    /* end reads only (poll >= period/2): 2 periods / 2% = 10 s */
    CHECK_NEAR(gb_energy_needed_s(&p, 0.1, 0, 100, 0.02), 10.0, 1e-9);
    /* a coarse counter unit at low power lengthens it: 1 J at 100 W is 0.01 s of energy */
    CHECK_NEAR(gb_energy_needed_s(&p, 0.005, 1.0, 100, 0.02), (0.01 + 0.01) / 0.02 + 0.2, 1e-9);
    /* a counter updated every ms (RAPL), read at the ends: 2 ms / 2% = 0.1 s */
    gb_energy_probe q = {.advancing = 1, .period_s = 0.001, .step_j = 0.05, .power_w = 50, .poll_s = 0.2};
    CHECK_NEAR(gb_energy_needed_s(&q, 1.0, 0, 50, 0.02), 0.1, 1e-9);
}

TEST(energy_clock_reason_names_are_the_results_names) {
    CHECK(strcmp(gb_clock_reason_name(2), "power_cap") == 0);
    CHECK(strcmp(gb_clock_reason_name(6), "hw_thermal_slowdown") == 0);
    CHECK(strcmp(gb_clock_reason_name(99), "unknown") == 0);
    CHECK((GB_CLK_POWER_LIMITS & GB_CLK_POWER_CAP) && !(GB_CLK_POWER_LIMITS & GB_CLK_SYNC_BOOST));
}
