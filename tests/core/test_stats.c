/* test_stats.c — statistics on known samples, and the generator. */
#include <string.h>
#include "rng.h"
#include "stats.h"
#include "testlib.h"

TEST(stats_known_samples) {
    double x[] = {5, 1, 4, 2, 3};
    gb_stats s;
    gb_stats_compute(x, 5, &s);
    CHECK(s.n == 5);
    CHECK_NEAR(s.min, 1, 0);
    CHECK_NEAR(s.max, 5, 0);
    CHECK_NEAR(s.median, 3, 0);
    CHECK_NEAR(s.mean, 3, 1e-15);
    CHECK_NEAR(s.stddev, 1.5811388300841898, 1e-15); /* sample stddev of 1..5 = sqrt(2.5) */
    CHECK_NEAR(s.cv, 1.5811388300841898 / 3, 1e-15);
    /* n = 5 is too few for a 95% distribution-free CI inside the range */
    CHECK_NEAR(s.ci95_low, 1, 0);
    CHECK_NEAR(s.ci95_high, 5, 0);
    double even[] = {4, 1, 3, 2};
    gb_stats_compute(even, 4, &s);
    CHECK_NEAR(s.median, 2.5, 0);
}

TEST(stats_median_ci_ranks_match_binomial_tables) {
    size_t lo, hi;
    /* Published order-statistic ranks for a 95% CI of the median:
     * n=6: (1,6) 96.9%; n=10: (2,9) 97.9%; n=20: (6,15) 95.9%. */
    gb_stats_median_ci_ranks(6, &lo, &hi);
    CHECK(lo == 1 && hi == 6);
    gb_stats_median_ci_ranks(10, &lo, &hi);
    CHECK(lo == 2 && hi == 9);
    gb_stats_median_ci_ranks(20, &lo, &hi);
    CHECK(lo == 6 && hi == 15);
    gb_stats_median_ci_ranks(100, &lo, &hi); /* normal approx: 50 - 9.8 → 40 */
    CHECK(lo == 40 && hi == 61);
}

TEST(stats_ci_contains_median_and_narrows_with_n) {
    double x[200];
    for (int i = 0; i < 200; i++) x[i] = 1.0 + gb_rng_uniform(3, 0, (uint64_t)i, 0, 0.1);
    gb_stats a, b;
    gb_stats_compute(x, 20, &a);
    gb_stats_compute(x, 200, &b);
    CHECK(a.ci95_low <= a.median && a.median <= a.ci95_high);
    CHECK(b.ci95_low <= b.median && b.median <= b.ci95_high);
    CHECK(b.ci95_high - b.ci95_low < a.ci95_high - a.ci95_low);
}

TEST(stats_ci_covers_every_round_median) {
    /* Rounds of 100, 8 and 100 samples; the short middle round ran 30% slow
     * (the machine drifted). Neither the order statistics nor the batch
     * medians (batches of 34) see it; the round medians do. */
    double x[208];
    for (int i = 0; i < 208; i++) x[i] = (i >= 100 && i < 108 ? 1.3 : 1.0) * (1.0 + 0.001 * ((i * 37) % 41));
    gb_stats plain, rounds;
    gb_stats_compute(x, 208, &plain);
    rounds = plain;
    size_t round_n[3] = {100, 8, 100};
    gb_stats_widen_to_rounds(x, round_n, 3, &rounds);
    double slow_median = gb_median(x + 100, 8);
    CHECK(plain.ci95_high < slow_median);
    CHECK(rounds.ci95_high >= slow_median);
    CHECK_NEAR(rounds.median, plain.median, 0);
    CHECK_NEAR(rounds.ci95_low, plain.ci95_low, 0); /* the fast rounds' medians were inside already */
    /* one round, or sizes beyond the samples: nothing changes */
    gb_stats one = plain;
    size_t all[1] = {208};
    gb_stats_widen_to_rounds(x, all, 1, &one);
    CHECK_NEAR(one.ci95_high, plain.ci95_high, 0);
    gb_stats bad = plain;
    size_t too_many[1] = {300};
    gb_stats_widen_to_rounds(x, too_many, 1, &bad);
    CHECK_NEAR(bad.ci95_high, plain.ci95_high, 0);
}

TEST(stats_mean_and_stddev_are_stable_far_from_zero) {
    double x[1000];
    for (int i = 0; i < 1000; i++) x[i] = 1e6 + (i % 2 ? 1 : -1);
    gb_stats s;
    gb_stats_compute(x, 1000, &s);
    CHECK_NEAR(s.mean, 1e6, 1e-9);
    CHECK_NEAR(s.stddev, 1.0005003753127735, 1e-8); /* sqrt(1000/999); the naive formula loses ~1e-4 here */
}

TEST(rng_is_deterministic_and_counter_based) {
    /* Same (seed, stream, index) → same bits, whatever the fill order. */
    CHECK(gb_rng_bits(42, 1, 12345) == gb_rng_bits(42, 1, 12345));
    CHECK(gb_rng_bits(42, 1, 12345) != gb_rng_bits(43, 1, 12345));
    CHECK(gb_rng_bits(42, 1, 12345) != gb_rng_bits(42, 2, 12345));
    CHECK(gb_rng_bits(42, 1, 12345) != gb_rng_bits(42, 1, 12346));
    float a[1000], b[1000];
    gb_rng_fill_f32(a, 1000, 42, 5, -1, 1);
    gb_rng_fill_f32(b, 1000, 42, 5, -1, 1);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(a[777] == (float)gb_rng_uniform(42, 5, 777, -1, 1));
    /* A fixed value pins the algorithm: a change would silently change every
     * published input. */
    CHECK(gb_rng_bits(0, 0, 0) == 0x6a3a53db7855b106ull);
    CHECK(gb_rng_bits(42, 7, 1000000) == 0x954d8b7ec0b4cf71ull);
}

TEST(rng_uniform_range_and_moments) {
    double sum = 0, sq = 0;
    int n = 100000, zeros = 0, out = 0;
    for (int i = 0; i < n; i++) {
        double u = gb_rng_uniform(9, 0, (uint64_t)i, -4, 4);
        out += u < -4 || u >= 4;
        zeros += u == 0;
        sum += u;
        sq += u * u;
    }
    CHECK(out == 0);
    CHECK(zeros == 0);
    CHECK_NEAR(sum / n, 0, 0.05);           /* mean 0, sd of mean 2.31/sqrt(n) ≈ 0.007 */
    CHECK_NEAR(sq / n, 64.0 / 12, 0.1);     /* variance (b-a)^2/12 */
}

TEST(stats_ci_widens_under_drift) {
    /* Independent noise: the batch medians sit inside the order-statistic
     * interval, which stays narrow. */
    double iid[600], drift[600];
    for (int i = 0; i < 600; i++) {
        iid[i] = 1.0 + gb_rng_uniform(11, 0, (uint64_t)i, 0, 0.01);
        /* a run whose second half is 10% slower (clock drop, other load) */
        drift[i] = iid[i] * (i < 300 ? 1.0 : 1.1);
    }
    gb_stats a, b;
    gb_stats_compute(iid, 600, &a);
    gb_stats_compute(drift, 600, &b);
    CHECK(a.ci95_high - a.ci95_low < 0.003);
    /* the interval now spans both halves' medians (≈1.005 and ≈1.1055) */
    CHECK(b.ci95_low < 1.006 && b.ci95_high > 1.105);
}

TEST(common_shift_is_the_median_ratio_and_ignores_odd_cases) {
    /* Ten cases 10% slower, two wildly off and one unusable: the shift is
     * 1.10 and its interval stays near it; the odd cases do not move it. */
    double r[13];
    for (int i = 0; i < 10; i++) r[i] = 1.10 * (1 + 0.002 * (i - 5));
    r[10] = 5.0; r[11] = 0.2; r[12] = NAN;
    gb_common_shift s;
    CHECK(gb_common_shift_compute(r, 13, &s) == 12);
    CHECK(fabs(s.ratio - 1.10) < 0.01);
    CHECK(s.ratio_lo < s.ratio && s.ratio < s.ratio_hi);
    CHECK(s.ratio_lo > 1.05 && s.ratio_hi < 1.15);
    /* Symmetric in log space: the inverses give the inverse shift. */
    double inv[12];
    for (int i = 0; i < 12; i++) inv[i] = 1 / r[i];
    gb_common_shift t;
    gb_common_shift_compute(inv, 12, &t);
    CHECK(fabs(t.ratio * s.ratio - 1) < 1e-12);
    /* Nothing usable: NAN, zero cases. */
    double none[2] = {0, -1};
    CHECK(gb_common_shift_compute(none, 2, &t) == 0 && isnan(t.ratio));
}
