/* test_compare_stats.c — the pieces of compare_stats.h against values
 * computed by hand or by scipy.stats. */
#include <math.h>
#include <stdlib.h>

#include "compare_stats.h"
#include "testlib.h"

TEST(t_distribution_matches_scipy) {
    CHECK_NEAR(gb_t_cdf(2.0, 10), 0.9633060, 1e-6);        /* scipy.stats.t.cdf(2, 10) */
    CHECK_NEAR(gb_t_cdf(-1.5, 3), 0.1152919, 1e-6);        /* t.cdf(-1.5, 3) */
    CHECK_NEAR(gb_t_quantile(0.975, 5), 2.5705818, 1e-6);  /* t.ppf(0.975, 5) */
    CHECK_NEAR(gb_t_quantile(0.995, 1), 63.6567412, 1e-4); /* t.ppf(0.995, 1) */
    CHECK_NEAR(gb_t_cdf(1.96, INFINITY), 0.9750021, 1e-6); /* the normal */
}

TEST(holm_adjusts_and_skips_untested) {
    double p[4] = {0.01, 0.04, 0.03, NAN}, adj[4];
    gb_holm(p, 4, adj);
    CHECK_NEAR(adj[0], 0.03, 1e-15); /* 3 x 0.01 */
    CHECK_NEAR(adj[2], 0.06, 1e-15); /* 2 x 0.03 */
    CHECK_NEAR(adj[1], 0.06, 1e-15); /* max(1 x 0.04, 0.06): monotone */
    CHECK(isnan(adj[3]));
}

TEST(noise_components_from_rounds_and_processes) {
    /* baseline: two processes of two rounds, one sample a round (no
     * sampling variance known); current: one process */
    double b0[2] = {1.0, exp(0.2)}, b1[2] = {exp(0.4), exp(0.6)}, c0[2] = {exp(1.0), exp(1.2)};
    size_t rn[2] = {1, 1};
    gb_proc_view base[2] = {{b0, 2, rn, 2}, {b1, 2, rn, 2}}, cur[1] = {{c0, 2, rn, 2}};
    gb_case_noise n;
    gb_noise_summarize(base, 2, cur, 1, &n);
    CHECK(n.ok);
    CHECK(n.kb == 2 && n.kc == 1);
    CHECK_NEAR(n.mean_b, 0.3, 1e-12);            /* means 0.1 and 0.5 */
    CHECK_NEAR(n.mean_c, 1.1, 1e-12);
    CHECK_NEAR(n.sr2, 3 * 0.02 / 3, 1e-12);      /* each round 0.1 off its process mean: 6 x 0.01 / 3 df */
    CHECK_NEAR(n.df_r, 3, 0);
    CHECK_NEAR(n.sp2, 0.08, 1e-12);              /* 0.2^2 twice, 1 df */
    CHECK_NEAR(n.df_p, 1, 0);
    CHECK_NEAR(n.proc_spread_b, exp(0.4) - 1, 1e-12);
    CHECK(isnan(n.proc_spread_c));
    /* the change: what a single case with no prior would say */
    gb_noise_prior pr = {0, NAN, 0, 0, 0, 0, 0, 0};
    gb_change ch;
    CHECK(gb_noise_change(&n, &pr, &ch) == 0);
    CHECK_NEAR(ch.d, 0.8, 1e-12);
    CHECK(ch.proc_measured);
    /* one process a side and nothing to learn from: unknown, said so */
    gb_noise_summarize(base, 1, cur, 1, &n);
    CHECK(gb_noise_change(&n, &pr, &ch) == -1);
    /* a non-positive sample is refused with the side named */
    double bad[2] = {1.0, 0};
    gb_proc_view vb = {bad, 2, rn, 2};
    gb_noise_summarize(&vb, 1, cur, 1, &n);
    CHECK(!n.ok);
}
