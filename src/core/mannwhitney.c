/* mannwhitney.c — Mann–Whitney U (exact and normal) and Hodges–Lehmann. */
#include "mannwhitney.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double gb_normal_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

double gb_normal_quantile(double p) {
    if (!(p > 0.0)) return -INFINITY;
    if (!(p < 1.0)) return INFINITY;
    /* Bisection on the distribution function: slow by textbook standards,
     * but exact to the last bit and called a handful of times per compare. */
    double lo = -40.0, hi = 40.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (gb_normal_cdf(mid) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, size_t n) {
    double *c = malloc(n * sizeof *c);
    if (!c) return NULL;
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    return c;
}

static int has_nan(const double *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i])) return 1;
    return 0;
}

/* Null distribution of the sum of m of the N doubled ranks r2 (integers:
 * twice the mid-ranks, so ties stay exact). Returns counts[0..*smax] (number
 * of m-subsets with that sum; doubles: C(N, m) reaches 1e29 within our
 * limits, and only additions are made, so there is no cancellation). */
static double *rank_sum_counts(const long *r2, size_t N, size_t m, long *smax) {
    long top = 0;
    /* the largest m doubled ranks bound the sum */
    for (size_t i = 0; i < m; i++) top += r2[N - 1 - i];
    size_t width = (size_t)top + 1;
    double *cnt = calloc((m + 1) * width, sizeof *cnt);
    if (!cnt) return NULL;
    cnt[0] = 1.0; /* the empty subset, sum 0 */
    for (size_t i = 0; i < N; i++) {
        long r = r2[i];
        size_t kmax = i + 1 < m ? i + 1 : m;
        for (size_t k = kmax; k >= 1; k--) {
            double *to = cnt + k * width, *from = cnt + (k - 1) * width;
            for (long s = top; s >= r; s--) to[s] += from[s - r];
        }
    }
    double *out = malloc(width * sizeof *out);
    if (out) memcpy(out, cnt + m * width, width * sizeof *out);
    free(cnt);
    *smax = top;
    return out;
}

/* Twice the mid-rank of every value of the pooled sample (sorted in place
 * alongside a sample tag), plus the tie correction sum of t^3 - t. */
typedef struct { double v; int from_y; } tagged;
static int cmp_tagged(const void *a, const void *b) {
    double x = ((const tagged *)a)->v, y = ((const tagged *)b)->v;
    return (x > y) - (x < y);
}

int gb_mannwhitney(const double *x, size_t n1, const double *y, size_t n2, gb_mw_result *r) {
    memset(r, 0, sizeof *r);
    if (n1 == 0 || n2 == 0 || has_nan(x, n1) || has_nan(y, n2)) return -1;
    size_t N = n1 + n2;
    tagged *all = malloc(N * sizeof *all);
    long *r2 = malloc(N * sizeof *r2);
    if (!all || !r2) { free(all); free(r2); return -1; }
    for (size_t i = 0; i < n1; i++) all[i] = (tagged){x[i], 0};
    for (size_t j = 0; j < n2; j++) all[n1 + j] = (tagged){y[j], 1};
    qsort(all, N, sizeof *all, cmp_tagged);

    /* doubled mid-ranks: a tie group at 1-based positions a..b gets a + b */
    double tie_sum = 0.0;
    long w2_small = 0;               /* doubled rank sum of the smaller sample */
    int small_is_y = n2 <= n1;
    long wy2 = 0;
    for (size_t a = 0; a < N;) {
        size_t b = a;
        while (b + 1 < N && all[b + 1].v == all[a].v) b++;
        long rr = (long)(a + 1) + (long)(b + 1);
        double t = (double)(b - a + 1);
        if (t > 1) { tie_sum += t * t * t - t; r->ties = 1; }
        for (size_t i = a; i <= b; i++) {
            r2[i] = rr;
            if (all[i].from_y) wy2 += rr;
            if (all[i].from_y == small_is_y) w2_small += rr;
        }
        a = b + 1;
    }
    /* U_y = W_y - n2(n2+1)/2, with W_y the (un-doubled) rank sum of y */
    r->u = (double)wy2 / 2.0 - (double)n2 * ((double)n2 + 1.0) / 2.0;

    size_t m = small_is_y ? n2 : n1;
    if ((double)m * (double)N <= GB_MW_EXACT_LIMIT) {
        long smax = 0;
        double *cnt = rank_sum_counts(r2, N, m, &smax);
        if (cnt) {
            /* two-sided: every arrangement at least as far from the mean
             * rank sum as the one observed (doubled, so all integers) */
            long mean2 = (long)m * (long)(N + 1);
            long dev = labs(w2_small - mean2);
            double total = 0.0, tail = 0.0;
            for (long s = 0; s <= smax; s++) {
                total += cnt[s];
                if (labs(s - mean2) >= dev) tail += cnt[s];
            }
            free(cnt);
            free(all);
            free(r2);
            r->exact = 1;
            r->p = total > 0 ? fmin(1.0, tail / total) : 1.0;
            return 0;
        }
        /* out of memory: fall through to the approximation */
    }
    free(all);
    free(r2);
    double dn1 = (double)n1, dn2 = (double)n2, dN = (double)N;
    double mu = dn1 * dn2 / 2.0;
    double var = dn1 * dn2 / 12.0 * ((dN + 1.0) - tie_sum / (dN * (dN - 1.0)));
    if (!(var > 0.0)) { /* every value equal: no evidence of any difference */
        r->p = 1.0;
        return 0;
    }
    double z = (fabs(r->u - mu) - 0.5) / sqrt(var); /* continuity correction */
    if (z < 0) z = 0;
    r->z = r->u >= mu ? z : -z;
    r->p = fmin(1.0, erfc(z / sqrt(2.0)));
    return 0;
}

size_t gb_mw_ci_rank(size_t n1, size_t n2, double alpha) {
    if (n1 == 0 || n2 == 0 || !(alpha > 0.0) || !(alpha < 1.0)) return 0;
    size_t N = n1 + n2, m = n1 < n2 ? n1 : n2;
    double n12 = (double)n1 * (double)n2;
    if ((double)m * (double)N <= GB_MW_EXACT_LIMIT) {
        long *r2 = malloc(N * sizeof *r2);
        if (r2) {
            for (size_t i = 0; i < N; i++) r2[i] = 2 * (long)(i + 1);
            long smax = 0;
            double *cnt = rank_sum_counts(r2, N, m, &smax);
            free(r2);
            if (cnt) {
                double total = 0.0;
                for (long s = 0; s <= smax; s++) total += cnt[s];
                /* U = W - m(m+1)/2; in doubled rank sums, U = c at s = 2c + m(m+1) */
                long base = (long)m * (long)(m + 1);
                double cum = 0.0;
                size_t k = 0;
                for (long c = 0; (double)c <= n12 / 2.0; c++) {
                    cum += cnt[2 * c + base] / total; /* P(U <= c) */
                    if (cum <= alpha / 2.0) k = (size_t)c + 1; /* P(U <= k-1) <= alpha/2 */
                    else break;
                }
                free(cnt);
                return k;
            }
        }
    }
    double sigma = sqrt(n12 * ((double)N + 1.0) / 12.0);
    double k = floor(n12 / 2.0 + 0.5 - gb_normal_quantile(1.0 - alpha / 2.0) * sigma);
    return k < 1.0 ? 0 : (size_t)k;
}

/* #{(i, j): y_j - x_i <= t} for sorted x, y, in O(n1 + n2). */
static double count_le(const double *x, size_t n1, const double *y, size_t n2, double t) {
    double cnt = 0.0;
    size_t i = 0; /* x[0..i) are those with y[j] - x[i] > t; the prefix grows with j */
    for (size_t j = 0; j < n2; j++) {
        while (i < n1 && y[j] - x[i] > t) i++;
        cnt += (double)(n1 - i);
    }
    return cnt;
}

/* The k-th smallest (1-based) of the n1·n2 differences y_j - x_i, by
 * bisection on the value with the counting function above, then the exact
 * difference at the boundary. */
static double kth_difference(const double *x, size_t n1, const double *y, size_t n2, double k) {
    double dmin = y[0] - x[n1 - 1], dmax = y[n2 - 1] - x[0];
    double lo = dmin - (fabs(dmin) + 1.0), hi = dmax; /* count(lo) < k <= count(hi) */
    for (int it = 0; it < 2100; it++) {
        double mid = lo + (hi - lo) / 2.0;
        if (mid <= lo || mid >= hi) break;
        if (count_le(x, n1, y, n2, mid) >= k) hi = mid;
        else lo = mid;
    }
    /* every difference in (lo, hi] is the k-th: return the smallest above lo */
    double best = INFINITY;
    size_t i = 0;
    for (size_t j = 0; j < n2; j++) {
        while (i < n1 && y[j] - x[i] > lo) i++;
        if (i > 0 && y[j] - x[i - 1] < best) best = y[j] - x[i - 1];
    }
    return best;
}

int gb_hodges_lehmann(const double *x, size_t n1, const double *y, size_t n2, double alpha,
                      double *est, double *lo, double *hi) {
    if (n1 == 0 || n2 == 0 || has_nan(x, n1) || has_nan(y, n2)) return -1;
    double *xs = sorted_copy(x, n1), *ys = sorted_copy(y, n2);
    if (!xs || !ys) { free(xs); free(ys); return -1; }
    double n12 = (double)n1 * (double)n2;
    if (fmod(n12, 2.0) == 1.0) {
        *est = kth_difference(xs, n1, ys, n2, (n12 + 1.0) / 2.0);
    } else {
        *est = 0.5 * (kth_difference(xs, n1, ys, n2, n12 / 2.0) +
                      kth_difference(xs, n1, ys, n2, n12 / 2.0 + 1.0));
    }
    size_t k = gb_mw_ci_rank(n1, n2, alpha);
    if (k == 0) {
        *lo = -INFINITY;
        *hi = INFINITY;
    } else {
        *lo = kth_difference(xs, n1, ys, n2, (double)k);
        *hi = kth_difference(xs, n1, ys, n2, n12 + 1.0 - (double)k);
    }
    free(xs);
    free(ys);
    return 0;
}
