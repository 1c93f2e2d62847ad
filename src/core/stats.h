/* stats.h — summary statistics of timing samples. */
#ifndef GB_STATS_H
#define GB_STATS_H
#include <stddef.h>

typedef struct {
    size_t n;
    double min, max, median, mean, stddev, cv;
    /* 95% confidence interval of the median: distribution-free, from the
     * order statistics whose ranks the binomial(n, 1/2) distribution gives
     * (normal approximation for n > 20, exact binomial below). Timings are
     * skewed and have outliers, so no normality is assumed.
     * That interval assumes independent samples; consecutive repetitions
     * are not (clocks, caches, other load drift during a run). So with 12
     * or more samples the interval is widened to cover the medians of 6
     * consecutive batches of the samples (the batch-means idea of
     * simulation output analysis, with medians): for independent samples
     * that range alone covers the median with probability 1 − 2·2⁻⁶ ≈ 97%,
     * and under drift it widens as the drift does. */
    double ci95_low, ci95_high;
} gb_stats;

/* Summarise n samples, in the order they were taken (not modified; n may be
 * 0: all fields 0). */
void gb_stats_compute(const double *samples, size_t n, gb_stats *out);
/* Widen out's interval to cover the median of every round as well. A run
 * visits its whole suite `rounds` times (runner.h), so each round samples
 * the machine at a different moment of the run: clocks, neighbours on a
 * shared host and thread wake-up paths drift over seconds, which the
 * consecutive repetitions of one visit cannot show. round_n[r] samples of
 * round r follow each other in samples, in order. */
void gb_stats_widen_to_rounds(const double *samples, const size_t *round_n, int rounds, gb_stats *out);
/* The smallest and largest of the rounds' medians (same layout as above;
 * rounds whose sizes run past n are ignored). Returns how many rounds had
 * samples; *lo and *hi are untouched when none did. */
int gb_stats_round_median_range(const double *samples, size_t n, const size_t *round_n, int rounds,
                                double *lo, double *hi);
/* 1-based ranks (lo, hi) of the order statistics bounding the 95% CI of the
 * median of n samples; exposed for the tests. */
void gb_stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi);
/* Median of n values (sorted copy). */
double gb_median(const double *x, size_t n);
/* The smallest of n values (0 when n is 0): the fastest repetition, which
 * a stall cannot make look faster. */
double gb_fastest(const double *x, size_t n);
/* The shift common to many cases: the median of their ratios (current ÷
 * reference time, one per case) with a distribution-free 95% interval from
 * the order statistics of the cases (gb_stats_median_ci_ranks). Used for a
 * machine-wide shift in compare and for one node against its fleet: both ask
 * "did everything move, and by how much", and a few odd cases must not
 * decide it. Ratios are taken in log space, so 2x slower and 2x faster are
 * symmetric. Non-finite or non-positive ratios are skipped. Returns how many
 * cases counted; with none, the fields are NAN. */
typedef struct {
    size_t n;
    double ratio;            /* median ratio (1 = no shift) */
    double ratio_lo, ratio_hi; /* its 95% interval; the whole range of the ratios below 6 cases */
} gb_common_shift;
size_t gb_common_shift_compute(const double *ratios, size_t n, gb_common_shift *out);
#endif
