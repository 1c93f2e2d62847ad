/* test_compare_stats.c — the pieces of compare_stats.h against values
 * computed by hand or by scipy.stats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* compare --confirm's second stage learns its prior's weight: suspects whose
 * own variances agree (within what 14 and 32 degrees of freedom explain)
 * keep the fixed GB_NOISE_PRIOR_DF and the prior as it was; suspects whose
 * variances differ a hundredfold (the H100 VM's rounds, 5-50%) get a weight
 * under 2, and a quiet case's variance stays near its own. */
TEST(confirm_prior_weight_is_learnt_from_how_the_cases_differ) {
    enum { N = 24 };
    gb_case_noise c[N];
    memset(c, 0, sizeof c);
    for (int i = 0; i < N; i++) {
        c[i].ok = 1;
        c[i].kb = c[i].kc = 8;
        c[i].rb = c[i].rc = 3;
        c[i].vw = 1e-6;
        c[i].df_w = 100;
        c[i].df_r = 32;
        c[i].df_p = 14;
        /* every case 10% between rounds, 2% between processes, each estimate
         * off by a factor its degrees of freedom allow (0.8 to 1.25) */
        double wobble = 0.8 + 0.45 * (double)(i % 6) / 5;
        c[i].sr2 = 0.01 * wobble;
        c[i].sp2 = (0.0004 + 0.01 / 3) * wobble;
    }
    gb_noise_prior pr;
    gb_noise_priors(c, N, &pr);
    gb_noise_prior same = pr;
    gb_noise_priors_weigh(c, N, &same);
    CHECK_NEAR(same.round_df0, GB_NOISE_PRIOR_DF, 0);
    CHECK_NEAR(same.proc_df0, GB_NOISE_PRIOR_DF, 0);
    CHECK_NEAR(same.round_var, pr.round_var, 1e-15);
    CHECK_NEAR(same.proc_var, pr.proc_var, 1e-15);
    /* now the rounds drift 2% to 50% case by case (log-spaced) */
    for (int i = 0; i < N; i++) {
        double sd = 0.02 * pow(25.0, (double)i / (N - 1));
        c[i].sr2 = sd * sd;
    }
    gb_noise_priors(c, N, &pr);
    gb_noise_prior learnt = pr;
    gb_noise_priors_weigh(c, N, &learnt);
    CHECK(learnt.round_df0 > 0 && learnt.round_df0 < 2);
    CHECK(learnt.round_var < pr.round_var);
    /* the quiet case (2% rounds): its round variance, shrunk, within 1.5x
     * of its own with the learnt weight (1.2x), over 3x with the fixed one */
    gb_change fixed, own;
    CHECK(gb_noise_change(&c[0], &pr, &fixed) == 0);
    CHECK(gb_noise_change(&c[0], &learnt, &own) == 0);
    CHECK(own.round_var < 1.5 * 0.0004);
    CHECK(fixed.round_var > 3 * 0.0004);
}
