/* test_compare_rules.c — compare's statistics and rules on their own:
 * Mann–Whitney and Hodges–Lehmann against values computed independently
 * (textbook exact probabilities, all C(n1+n2, n1) arrangements equally
 * likely; scipy.stats.mannwhitneyu 1.10, hand-run, values quoted below;
 * brute-force enumeration written here), the verdict rules on synthetic
 * samples, and the parsing of durations, percentages and policies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "export.h"
#include "mannwhitney.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

/* ---- Mann–Whitney ------------------------------------------------------ */

TEST(mw_exact_small_samples_match_textbook_values) {
    gb_mw_result r;
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    CHECK(gb_mannwhitney(a, 3, b, 3, &r) == 0);
    CHECK(r.exact);
    CHECK_NEAR(r.u, 9.0, 0);
    CHECK_NEAR(r.p, 2.0 / 20.0, 1e-12); /* complete separation, 3 vs 3: 2 of 20 */
    double c[] = {1, 2, 4}, d[] = {3, 5, 6};
    CHECK(gb_mannwhitney(c, 3, d, 3, &r) == 0);
    CHECK_NEAR(r.p, 4.0 / 20.0, 1e-12); /* U = 1: P(U<=1) = 2/20, doubled; scipy 0.2 */
    double e[] = {1, 2, 3, 4}, f[] = {5, 6, 7, 8};
    CHECK(gb_mannwhitney(e, 4, f, 4, &r) == 0);
    CHECK_NEAR(r.p, 2.0 / 70.0, 1e-12);
    double g[] = {1, 2, 3, 4, 5}, h[] = {6, 7, 8, 9, 10};
    CHECK(gb_mannwhitney(g, 5, h, 5, &r) == 0);
    CHECK_NEAR(r.p, 2.0 / 252.0, 1e-12);
    /* unequal sizes; scipy.stats.mannwhitneyu(method='exact') = 0.012121212121 */
    double x[] = {1.1, 2.3, 0.7, 3.3}, y[] = {5, 6.2, 4.1, 2.9, 7.7, 8.1, 6.6};
    CHECK(gb_mannwhitney(x, 4, y, 7, &r) == 0);
    CHECK_NEAR(r.p, 0.012121212121212121, 1e-12);
    CHECK_NEAR(r.u, 27.0, 0); /* 28 pairs minus the one (2.9 < 3.3) */
    /* identical samples: no evidence at all */
    CHECK(gb_mannwhitney(a, 3, a, 3, &r) == 0);
    CHECK_NEAR(r.p, 1.0, 1e-12);
}

/* Two-sided permutation p-value by listing every split (independent of the
 * dynamic programme in mannwhitney.c). */
static double brute_p(const double *x, int n1, const double *y, int n2) {
    int N = n1 + n2;
    double all[16], rank[16];
    for (int i = 0; i < N; i++) all[i] = i < n1 ? x[i] : y[i - n1];
    for (int i = 0; i < N; i++) { /* mid-ranks */
        double less = 0, eq = 0;
        for (int j = 0; j < N; j++) { less += all[j] < all[i]; eq += all[j] == all[i]; }
        rank[i] = less + (eq + 1) / 2.0;
    }
    double wobs = 0, mean = n2 * (N + 1) / 2.0;
    for (int i = n1; i < N; i++) wobs += rank[i];
    long tot = 0, hit = 0;
    for (unsigned s = 0; s < (1u << N); s++) {
        if (__builtin_popcount(s) != n2) continue;
        double w = 0;
        for (int i = 0; i < N; i++) if (s & (1u << i)) w += rank[i];
        tot++;
        hit += fabs(w - mean) >= fabs(wobs - mean) - 1e-9;
    }
    return (double)hit / (double)tot;
}

TEST(mw_exact_with_ties_matches_enumeration) {
    unsigned seed = 7;
    for (int trial = 0; trial < 20; trial++) {
        double x[8], y[8];
        int n1 = 3 + trial % 5, n2 = 4 + (trial * 3) % 5;
        for (int i = 0; i < n1; i++) { seed = seed * 1103515245u + 12345u; x[i] = (seed >> 16) % 5; }
        for (int i = 0; i < n2; i++) { seed = seed * 1103515245u + 12345u; y[i] = 1 + (seed >> 16) % 5; }
        gb_mw_result r;
        CHECK(gb_mannwhitney(x, (size_t)n1, y, (size_t)n2, &r) == 0);
        CHECK(r.exact);
        CHECK_NEAR(r.p, brute_p(x, n1, y, n2), 1e-12);
    }
}

TEST(mw_normal_approximation_matches_scipy_with_ties) {
    /* scipy.stats.mannwhitneyu(y, x, method='asymptotic') with these (60 vs
     * 60, many ties): statistic 2675.0, pvalue 3.5825270394630678e-06 */
    static const double bx[] = {1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7}, by[] = {2, 3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 9};
    double x[60], y[60];
    for (int i = 0; i < 60; i++) { x[i] = bx[i % 12]; y[i] = by[i % 12]; }
    gb_mw_result r;
    CHECK(gb_mannwhitney(x, 60, y, 60, &r) == 0);
    CHECK(!r.exact);
    CHECK(r.ties);
    CHECK_NEAR(r.u, 2675.0, 0);
    CHECK_NEAR(r.p, 3.5825270394630678e-06, 1e-12);
}

TEST(mw_ci_rank_matches_critical_value_tables) {
    /* k = critical U + 1 from the usual two-sided tables */
    CHECK(gb_mw_ci_rank(3, 3, 0.05) == 0);   /* no interval possible */
    CHECK(gb_mw_ci_rank(5, 5, 0.05) == 3);   /* U crit 2 */
    CHECK(gb_mw_ci_rank(10, 10, 0.05) == 24); /* U crit 23 */
    CHECK(gb_mw_ci_rank(10, 10, 0.01) == 17); /* U crit 16 */
    CHECK(gb_mw_ci_rank(20, 20, 0.05) == 128); /* U crit 127 */
    CHECK_NEAR(gb_normal_quantile(0.975), 1.959963984540054, 1e-9);
}

TEST(hodges_lehmann_estimate_and_interval) {
    double x[10], y[10];
    for (int i = 0; i < 10; i++) { x[i] = i + 1; y[i] = i + 3; }
    double est, lo, hi;
    CHECK(gb_hodges_lehmann(x, 10, y, 10, 0.05, &est, &lo, &hi) == 0);
    /* numpy: median of all differences 2.0, sorted[23] -1, sorted[76] 5 */
    CHECK_NEAR(est, 2.0, 0);
    CHECK_NEAR(lo, -1.0, 0);
    CHECK_NEAR(hi, 5.0, 0);
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    CHECK(gb_hodges_lehmann(a, 3, b, 3, 0.05, &est, &lo, &hi) == 0);
    CHECK(isinf(lo) && isinf(hi));
    CHECK_NEAR(est, 3.0, 0);
}

/* ---- verdicts ------------------------------------------------------------ */

TEST(verdict_rules_on_synthetic_samples) {
    double b[30], c[30];
    gb_rule rule = {0.05, 0.01, 0};
    gb_sample_verdict v;
    for (int i = 0; i < 30; i++) b[i] = 1.0 + 0.001 * ((i * 7) % 30);
    for (int i = 0; i < 30; i++) c[i] = b[(i * 11) % 30] * 1.20;
    CHECK(gb_compare_samples(b, 30, c, 30, rule, &v) == 0);
    CHECK(v.verdict == GB_V_REGRESSION);
    CHECK_NEAR(v.change, 0.20, 0.01);
    for (int i = 0; i < 30; i++) c[i] = b[(i * 11) % 30] / 1.20;
    CHECK(gb_compare_samples(b, 30, c, 30, rule, &v) == 0);
    CHECK(v.verdict == GB_V_IMPROVEMENT);
    for (int i = 0; i < 30; i++) c[i] = b[(i * 11) % 30] * 1.02;
    CHECK(gb_compare_samples(b, 30, c, 30, rule, &v) == 0);
    CHECK(v.verdict == GB_V_SAME);
    /* significant, but the interval reaches below the threshold: unsure */
    for (int i = 0; i < 30; i++) c[i] = b[(i * 11) % 30] * (i % 2 ? 1.02 : 1.10);
    CHECK(gb_compare_samples(b, 30, c, 30, rule, &v) == 0);
    CHECK(v.p <= 0.01);
    CHECK(v.verdict == GB_V_UNSURE || v.verdict == GB_V_SAME);
    c[0] = -1;
    CHECK(gb_compare_samples(b, 30, c, 30, rule, &v) == 0);
    CHECK(v.verdict == GB_V_NOT_COMPARED);
}

TEST(durations_need_a_unit) {
    double d;
    char why[200];
    CHECK(gb_parse_duration("10us", &d, why, sizeof why) == 0 && fabs(d - 10e-6) < 1e-18);
    CHECK(gb_parse_duration("0.5ms", &d, why, sizeof why) == 0 && fabs(d - 5e-4) < 1e-18);
    CHECK(gb_parse_duration("2e-5s", &d, why, sizeof why) == 0 && fabs(d - 2e-5) < 1e-18);
    CHECK(gb_parse_duration("0", &d, why, sizeof why) == 0 && d == 0); /* zero needs no unit */
    CHECK(gb_parse_duration("10", &d, why, sizeof why) != 0);          /* was read as 10 seconds */
    CHECK(strstr(why, "10: give a unit: 10us, 10ms or 10s") != NULL);
    CHECK(gb_parse_duration("10 us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration("-1us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration("us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration("10min", &d, why, sizeof why) != 0 && strstr(why, "unknown unit") != NULL);
}

TEST(percent_and_policy_parsing) {
    double t;
    char pw[200];
    CHECK(gb_parse_percent("5%", &t, pw, sizeof pw) == 0 && fabs(t - 0.05) < 1e-15);
    CHECK(gb_parse_percent("12.5%", &t, pw, sizeof pw) == 0 && fabs(t - 0.125) < 1e-15);
    /* a bare number is neither read as percent nor as a fraction */
    CHECK(gb_parse_percent("0.05", &t, pw, sizeof pw) != 0);
    CHECK(strstr(pw, "'0.05' has no % sign: give it as 0.05% (or, if a fraction was meant, 5%)") != NULL);
    CHECK(gb_parse_percent("5", &t, pw, sizeof pw) != 0);
    CHECK(gb_parse_percent("5x", &t, pw, sizeof pw) != 0);
    CHECK(gb_parse_percent("-1%", &t, pw, sizeof pw) != 0);
    gb_err e = {{0}};
    const char *why = e.msg;
    cJSON *doc = cJSON_Parse("{\"threshold\": \"5%\", \"ops\": {\"fft\": {\"threshold\": \"10%\","
                             " \"backends\": {\"cpu\": {\"threshold\": \"20%\", \"alpha\": 0.05}}}}}");
    gb_policy *p = gb_policy_from_json(doc, "p.json", &e);
    CHECK(p != NULL);
    gb_rule base = {0.03, 0.01, 0};
    CHECK_NEAR(gb_policy_rule(p, "matmul", "cuda", base, 0).threshold, 0.05, 1e-15);
    CHECK_NEAR(gb_policy_rule(p, "matmul", "cuda", base, GB_CLI_THRESHOLD).threshold, 0.03, 1e-15); /* CLI wins over top */
    CHECK_NEAR(gb_policy_rule(p, "fft", "cuda", base, GB_CLI_THRESHOLD).threshold, 0.10, 1e-15);   /* op wins over CLI */
    gb_rule r = gb_policy_rule(p, "fft", "cpu", base, 0);
    CHECK_NEAR(r.threshold, 0.20, 1e-15);
    CHECK_NEAR(r.alpha, 0.05, 1e-15);
    gb_policy_free(p);
    cJSON_Delete(doc);
    /* min_change: a duration, top level and per op; the CLI's wins over the top level */
    doc = cJSON_Parse("{\"min_change\": \"50us\", \"ops\": {\"svd\": {\"min_change\": \"1ms\"}}}");
    p = gb_policy_from_json(doc, "p.json", &e);
    CHECK(p != NULL);
    gb_rule mb = {0.05, 0.01, 10e-6};
    CHECK_NEAR(gb_policy_rule(p, "fft", "cuda", mb, 0).min_change_s, 50e-6, 1e-18);
    CHECK_NEAR(gb_policy_rule(p, "fft", "cuda", mb, GB_CLI_MIN_CHANGE).min_change_s, 10e-6, 1e-18);
    CHECK_NEAR(gb_policy_rule(p, "svd", "cpu", mb, GB_CLI_MIN_CHANGE).min_change_s, 1e-3, 1e-18);
    gb_policy_free(p);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"min_change\": \"ten us\"}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: (top level).min_change: expected a duration") != NULL);
    cJSON_Delete(doc);
    /* numbers without their unit or sign are refused, as on the command line */
    doc = cJSON_Parse("{\"ops\": {\"svd\": {\"min_change\": 0.001}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: ops.svd.min_change: 0.001 is not a string: write it with its unit") != NULL);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"threshold\": 0.05}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: (top level).threshold: 0.05 is not a string: write it with its % sign") != NULL);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"threshold\": \"5\"}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "has no % sign") != NULL);
    cJSON_Delete(doc);
    /* the share of cases that must be present */
    doc = cJSON_Parse("{\"require_present\": \"90%\"}");
    p = gb_policy_from_json(doc, "p.json", &e);
    CHECK(p != NULL);
    CHECK_NEAR(gb_policy_require_present(p, 1), 0.9, 1e-15);
    CHECK_NEAR(gb_policy_require_present(NULL, 1), 1, 0);
    gb_policy_free(p);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"ops\": {\"fft\": {\"treshold\": \"10%\"}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: ops.fft: unknown key \"treshold\"") != NULL);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"ops\": {\"fftw\": {}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "unknown op \"fftw\"") != NULL);
    cJSON_Delete(doc);
    /* backends: those the results model knows */
    doc = cJSON_Parse("{\"ops\": {\"fft\": {\"backends\": {\"rocm\": {}}}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: ops.fft.backends.rocm: unknown backend \"rocm\" (expected cpu or cuda)") != NULL);
    cJSON_Delete(doc);
}

