/* stats.c — see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n) {
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double gb_fastest(const double *x, size_t n) {
    double m = n ? x[0] : 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] < m) m = x[i];
    return m;
}

double gb_median(const double *x, size_t n) {
    if (n == 0) return 0;
    double *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = median_sorted(s, n);
    free(s);
    return m;
}

/* P(X <= k) for X ~ Binomial(n, 1/2), summed in log space to stay finite. */
static double binom_half_cdf(size_t n, size_t k) {
    double total = 0;
    for (size_t i = 0; i <= k; i++)
        total += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
                     (double)n * log(2.0));
    return total;
}

void gb_stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi) {
    if (n == 0) { *lo = *hi = 0; return; }
    size_t j;
    if (n <= 20) {
        /* Largest j with P(X < j) <= 2.5%: the interval [x_(j), x_(n-j+1)]
         * then covers the median with probability >= 95%. For n < 6 no such
         * j >= 1 exists and the interval is the whole range. */
        j = 1;
        while (j + 1 <= n / 2 && binom_half_cdf(n, j) <= 0.025) j++;
        if (binom_half_cdf(n, j - 1) > 0.025) j = 1;
    } else {
        double half = 0.5 * 1.959964 * sqrt((double)n);
        double r = floor(0.5 * (double)n - half);
        j = r < 1 ? 1 : (size_t)r;
    }
    *lo = j;
    *hi = n + 1 - j;
}

void gb_stats_compute(const double *samples, size_t n, gb_stats *out) {
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0) return;
    double *s = malloc(n * sizeof *s);
    if (!s) return;
    memcpy(s, samples, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = median_sorted(s, n);
    /* Two passes over the samples in the order taken: the mean, then the
     * squared deviations from it (no cancellation for samples far from
     * zero, unlike the one-pass sum of squares). Exporters recompute these
     * from the samples they list, through this function, so the numbers of
     * an export are these to the last bit. */
    double sum = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) sum += samples[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) m2 += (samples[i] - mean) * (samples[i] - mean);
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
    out->cv = mean > 0 ? out->stddev / mean : 0;
    size_t lo, hi;
    gb_stats_median_ci_ranks(n, &lo, &hi);
    out->ci95_low = s[lo - 1];
    out->ci95_high = s[hi - 1];
    free(s);
    /* Widen to the range of the batch medians (see stats.h). */
    enum { BATCHES = 6 };
    if (n >= 2 * BATCHES) {
        size_t k = n / BATCHES;
        for (size_t b = 0; b < BATCHES; b++) {
            double m = gb_median(samples + b * k, k);
            if (m < out->ci95_low) out->ci95_low = m;
            if (m > out->ci95_high) out->ci95_high = m;
        }
    }
}

int gb_stats_round_median_range(const double *samples, size_t n, const size_t *round_n, int rounds,
                                double *lo, double *hi) {
    size_t at = 0;
    int counted = 0;
    for (int r = 0; r < rounds; at += round_n[r], r++) {
        if (round_n[r] == 0 || at + round_n[r] > n) continue;
        double m = gb_median(samples + at, round_n[r]);
        if (!counted || m < *lo) *lo = m;
        if (!counted || m > *hi) *hi = m;
        counted++;
    }
    return counted;
}

void gb_stats_widen_to_rounds(const double *samples, const size_t *round_n, int rounds, gb_stats *out) {
    double lo, hi;
    if (!gb_stats_round_median_range(samples, out->n, round_n, rounds, &lo, &hi)) return;
    if (lo < out->ci95_low) out->ci95_low = lo;
    if (hi > out->ci95_high) out->ci95_high = hi;
}

size_t gb_common_shift_compute(const double *ratios, size_t n, gb_common_shift *out) {
    out->n = 0;
    out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    double *logs = n ? malloc(n * sizeof *logs) : NULL;
    if (n && !logs) return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ratios[i]) && ratios[i] > 0) logs[k++] = log(ratios[i]);
    if (k) {
        qsort(logs, k, sizeof *logs, cmp_double);
        size_t lo, hi;
        gb_stats_median_ci_ranks(k, &lo, &hi);
        out->n = k;
        out->ratio = exp(median_sorted(logs, k));
        out->ratio_lo = exp(logs[lo - 1]);
        out->ratio_hi = exp(logs[hi - 1]);
    }
    free(logs);
    return k;
}
