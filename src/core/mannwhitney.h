/* mannwhitney.h — the rank statistics behind `gpubench compare`.
 *
 * Timing samples are skewed, heavy-tailed and often tied (timer resolution),
 * so nothing here assumes normality: the two-sample Mann–Whitney U test for
 * "did it change", and the Hodges–Lehmann shift estimate with its
 * distribution-free confidence interval (the set of shifts the same test does
 * not reject) for "by how much". Test and interval come from one
 * distribution, so they agree: the interval excludes 0 exactly when the test
 * rejects (without ties). docs/ci.md explains the choice. */
#ifndef GB_MANNWHITNEY_H
#define GB_MANNWHITNEY_H
#include <stddef.h>

typedef struct {
    double u;      /* U of the second sample: #(y > x) + #(y == x)/2 */
    double p;      /* two-sided p-value */
    double z;      /* normal score (0 when exact) */
    int exact;     /* 1: exact permutation distribution; 0: normal approximation */
    int ties;      /* 1 if any value occurs more than once across both samples */
} gb_mw_result;

/* Largest m·N (m the smaller sample, N both together) for which the exact
 * permutation distribution is computed; above it the normal approximation
 * with tie and continuity corrections is used. Its error is NOT negligible
 * in the tails of very unequal samples: measured against the exact p-value,
 * up to 2.2e-3 at 25 vs 300 (issue 15). `gpubench compare` decides by
 * compare_stats.h, not by this test. */
#define GB_MW_EXACT_LIMIT 3000

/* Two-sided Mann–Whitney U test of x (n1 values) against y (n2 values).
 * Exact (conditional on the ties present, via the permutation distribution
 * of the mid-rank sum) when min(n1,n2)·(n1+n2) <= GB_MW_EXACT_LIMIT, normal
 * approximation with tie and continuity corrections above (accuracy: see
 * GB_MW_EXACT_LIMIT). Returns 0, or -1
 * when a sample is empty or holds a NaN. */
int gb_mannwhitney(const double *x, size_t n1, const double *y, size_t n2, gb_mw_result *r);

/* Hodges–Lehmann estimate of the shift y − x (the median of all n1·n2
 * differences y_j − x_i) and its confidence interval at level 1 − alpha:
 * [D(k), D(n1·n2 + 1 − k)] where D(i) is the i-th smallest difference and k
 * comes from the null distribution of U (exact where gb_mannwhitney is exact,
 * normal otherwise). When the samples are too small for any interval at
 * that level (e.g. 3 vs 3 at alpha 0.05), *lo = -INFINITY and *hi =
 * +INFINITY. Runs in O((n1 + n2) log) per order statistic: no n1·n2 array.
 * Returns 0, or -1 on empty samples or NaN. */
int gb_hodges_lehmann(const double *x, size_t n1, const double *y, size_t n2, double alpha,
                      double *est, double *lo, double *hi);

/* The rank k of the interval's lower end above: the largest k with
 * P(U <= k-1) <= alpha/2 under the null (no ties), or 0 when even k = 1 fails
 * (no interval at this level). Exposed for the tests. */
size_t gb_mw_ci_rank(size_t n1, size_t n2, double alpha);

/* Standard normal distribution function and its inverse. */
double gb_normal_cdf(double z);
double gb_normal_quantile(double p);
#endif
