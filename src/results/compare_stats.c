/* compare_stats.c — see compare_stats.h for the model. */
#include "compare_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of v (sorted in place) */
static double median_inplace(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The median of a round's log samples and the sampling variance of that
 * median: pi/2 * sigma^2 / n, sigma from the MAD (robust to the slow
 * outliers every timing has). -1 when a sample is not a positive time. */
static int round_median(const double *x, size_t n, double *scratch, double *med, double *var) {
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0) || !isfinite(x[i])) return -1;
        scratch[i] = log(x[i]);
    }
    double m = median_inplace(scratch, n);
    for (size_t i = 0; i < n; i++) scratch[i] = fabs(scratch[i] - m);
    double mad = n > 1 ? median_inplace(scratch, n) : 0;
    double sigma = 1.4826 * mad;
    *med = m;
    *var = n > 1 ? M_PI / 2.0 * sigma * sigma / (double)n : NAN;
    return 0;
}

/* One side's processes: their means, the pooled within-process sums. */
typedef struct {
    double sum_means, ss_round, df_round, vw_sum, vw_n, vw_df, rounds;
    double pmin, pmax;    /* process medians (median of round medians) */
    double rspread;       /* largest round spread within a process */
    double means[64];
    int k;
} side_acc;

static int side_add(const gb_proc_view *v, side_acc *a, char *why, size_t len) {
    size_t one = v->n;
    const size_t *rn = v->round_n && v->rounds ? v->round_n : &one;
    size_t R = v->round_n && v->rounds ? v->rounds : 1;
    double *scratch = malloc((v->n ? v->n : 1) * sizeof *scratch);
    double *med = malloc(R * sizeof *med);
    if (!scratch || !med) { free(scratch); free(med); snprintf(why, len, "out of memory"); return -1; }
    size_t at = 0, used = 0;
    double sum = 0;
    for (size_t r = 0; r < R; at += rn[r], r++) {
        if (rn[r] == 0 || at + rn[r] > v->n) continue;
        double m, var;
        if (round_median(v->samples + at, rn[r], scratch, &m, &var) != 0) {
            snprintf(why, len, "a sample is not a positive time");
            free(scratch); free(med);
            return -1;
        }
        med[used++] = m;
        sum += m;
        if (isfinite(var)) { a->vw_sum += var; a->vw_n++; a->vw_df += GB_MAD_EFFICIENCY * (double)(rn[r] - 1); }
    }
    if (used == 0) { free(scratch); free(med); snprintf(why, len, "no samples"); return -1; }
    double mean = sum / (double)used;
    for (size_t r = 0; r < used; r++) a->ss_round += (med[r] - mean) * (med[r] - mean);
    a->df_round += (double)used - 1;
    a->rounds += (double)used;
    double lo = med[0], hi = med[0];
    for (size_t r = 1; r < used; r++) { lo = fmin(lo, med[r]); hi = fmax(hi, med[r]); }
    if (exp(hi - lo) - 1 > a->rspread) a->rspread = exp(hi - lo) - 1;
    double pm = median_inplace(med, used);
    if (a->k == 0 || pm < a->pmin) a->pmin = pm;
    if (a->k == 0 || pm > a->pmax) a->pmax = pm;
    if (a->k < 64) a->means[a->k] = mean;
    a->sum_means += mean;
    a->k++;
    free(scratch);
    free(med);
    return 0;
}

void gb_noise_summarize(const gb_proc_view *base, int kb, const gb_proc_view *cur, int kc, gb_case_noise *out) {
    memset(out, 0, sizeof *out);
    side_acc s[2];
    memset(s, 0, sizeof s);
    const gb_proc_view *views[2] = {base, cur};
    int ks[2] = {kb, kc};
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < ks[side] && p < 64; p++)
            if (side_add(&views[side][p], &s[side], out->reason, sizeof out->reason) != 0) {
                char tmp[sizeof out->reason];
                memcpy(tmp, out->reason, sizeof tmp);
                snprintf(out->reason, sizeof out->reason, "%s: %.100s", side ? "current" : "baseline", tmp);
                return;
            }
    if (s[0].k == 0 || s[1].k == 0) {
        snprintf(out->reason, sizeof out->reason, "no samples on the %s side", s[0].k ? "current" : "baseline");
        return;
    }
    out->ok = 1;
    out->kb = s[0].k;
    out->kc = s[1].k;
    out->rb = s[0].rounds / s[0].k;
    out->rc = s[1].rounds / s[1].k;
    out->mean_b = s[0].sum_means / s[0].k;
    out->mean_c = s[1].sum_means / s[1].k;
    double vwn = s[0].vw_n + s[1].vw_n;
    out->vw = vwn > 0 ? (s[0].vw_sum + s[1].vw_sum) / vwn : 0;
    out->df_w = s[0].vw_df + s[1].vw_df;
    out->df_r = s[0].df_round + s[1].df_round;
    out->sr2 = out->df_r > 0 ? (s[0].ss_round + s[1].ss_round) / out->df_r : NAN;
    double ss = 0;
    for (int side = 0; side < 2; side++) {
        double m = side ? out->mean_c : out->mean_b;
        for (int p = 0; p < s[side].k && p < 64; p++) ss += (s[side].means[p] - m) * (s[side].means[p] - m);
    }
    out->df_p = (double)(out->kb - 1 + out->kc - 1);
    out->sp2 = out->df_p > 0 ? ss / out->df_p : NAN;
    out->proc_spread_b = out->kb > 1 ? exp(s[0].pmax - s[0].pmin) - 1 : NAN;
    out->proc_spread_c = out->kc > 1 ? exp(s[1].pmax - s[1].pmin) - 1 : NAN;
    out->round_spread = fmax(s[0].rspread, s[1].rspread);
}

/* The median of chi^2_df / df (Wilson-Hilferty): a median of variance
 * estimates divided by it estimates the variance itself. */
static double chi2_median_ratio(double df) {
    if (!(df > 0)) return 1;
    double a = 1 - 2 / (9 * df);
    return a * a * a;
}

/* Mean rounds a process has, as Var(process mean) sees them. */
static double rounds_of(const gb_case_noise *c) {
    double inv = (1.0 / c->rb + 1.0 / c->rc) / 2;
    return 1.0 / inv;
}

/* digamma and trigamma: the recurrence up to x >= 6, then the asymptotic
 * series (plenty for weights). */
static double digamma(double x) {
    double r = 0;
    for (; x < 6; x++) r -= 1 / x;
    double f = 1 / (x * x);
    return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f / 240)));
}
static double trigamma(double x) {
    double r = 0;
    for (; x < 6; x++) r += 1 / (x * x);
    double f = 1 / (x * x);
    return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

/* How many degrees of freedom the suite's typical variance is worth to one
 * case: limma's moment estimate (Smyth 2004). With s_i^2 of df_i degrees,
 * e_i = log s_i^2 - digamma(df_i/2) + log(df_i/2) spreads by trigamma(df_i/2)
 * when every case has the same true variance, and by trigamma(d0/2) more
 * when the true variances themselves spread like a scaled inverse chi-square
 * of d0 degrees: d0 = trigamma^-1(Var(e) - mean trigamma(df_i/2)). Var(e)
 * from the MAD (a few wild cases do not set it; for few degrees the MAD
 * understates the spread, which errs toward the fixed weight). At most
 * GB_NOISE_PRIOR_DF: where the cases agree the weight stays what it was;
 * where they differ tenfold (the H100 host's rounds drift 5-50% case by
 * case) a quiet case keeps its own variance instead of being pulled up to
 * the suite's, and its interval its own width. */
static double prior_weight(const double *s2, const double *df, size_t n, double *e) {
    size_t k = 0;
    double tri = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(s2[i] > 0) || !(df[i] > 0) || !isfinite(s2[i])) continue;
        e[k++] = log(s2[i]) - digamma(df[i] / 2) + log(df[i] / 2);
        tri += trigamma(df[i] / 2);
    }
    if (k < 8) return GB_NOISE_PRIOR_DF;
    tri /= (double)k;
    double med = median_inplace(e, k);
    for (size_t i = 0; i < k; i++) e[i] = fabs(e[i] - med);
    double sd = 1.4826 * median_inplace(e, k), excess = sd * sd - tri;
    if (!(excess > trigamma(GB_NOISE_PRIOR_DF / 2))) return GB_NOISE_PRIOR_DF;
    /* trigamma falls: bisect for trigamma(d0 / 2) = excess on a log scale */
    double lo = 1e-3, hi = GB_NOISE_PRIOR_DF / 2;
    for (int it = 0; it < 60; it++) {
        double mid = sqrt(lo * hi);
        if (trigamma(mid) > excess) lo = mid;
        else hi = mid;
    }
    return 2 * sqrt(lo * hi);
}

/* The typical variance (a median) as the prior's scale s0^2 at weight d0:
 * true variances spread as s0^2 d0 / chi2_d0 have E log = log s0^2 +
 * log(d0/2) - digamma(d0/2), so the fewer the degrees, the further s0^2
 * lies below their typical value. Relative to GB_NOISE_PRIOR_DF, so a suite
 * whose cases agree keeps its prior exactly. */
static double prior_scale(double d0) {
    double cap = GB_NOISE_PRIOR_DF / 2, h = d0 / 2;
    return exp(digamma(h) - log(h) - (digamma(cap) - log(cap)));
}

void gb_noise_priors(const gb_case_noise *c, size_t n, gb_noise_prior *pr) {
    memset(pr, 0, sizeof *pr);
    pr->proc_var = NAN;
    double *v = malloc((n ? n : 1) * sizeof *v), *df = malloc((n ? n : 1) * sizeof *df);
    if (!v || !df) { free(v); free(df); return; }
    size_t k = 0;
    /* Rounds: the typical variance of a round median (the median of the
     * cases' own, scaled to a mean by the chi-square's median), less the
     * typical sampling variance: the drift between rounds, net. Medians,
     * so one wild case does not set everyone's prior. */
    double *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) { free(v); free(df); return; }
    for (size_t i = 0; i < n; i++)
        if (c[i].ok && c[i].df_r > 0) { v[k] = c[i].sr2; w[k] = c[i].vw; df[k++] = c[i].df_r; }
    pr->round_df0 = pr->proc_df0 = GB_NOISE_PRIOR_DF;
    if (k) {
        double typical = median_inplace(v, k) / chi2_median_ratio(median_inplace(df, k));
        pr->round_var = fmax(0, typical - median_inplace(w, k));
    }
    /* processes: measured where a side has two or more */
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].ok && c[i].df_p > 0) {
            double vm = c[i].vw + fmax(0, isfinite(c[i].sr2) ? c[i].sr2 - c[i].vw : 0);
            v[k] = c[i].sp2;
            w[k] = vm / rounds_of(&c[i]);
            df[k++] = c[i].df_p;
        }
    if (k) {
        double typical = median_inplace(v, k) / chi2_median_ratio(median_inplace(df, k));
        pr->proc_var = fmax(0, typical - median_inplace(w, k));
        pr->cases = k;
    } else {
        /* one process a side: how the cases' changes spread around their
         * median, less what their rounds explain. Robust (MAD), so a few
         * real changes do not inflate it; needs enough cases to mean
         * anything. */
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (!c[i].ok) continue;
            v[m] = c[i].mean_c - c[i].mean_b;
            double vm = c[i].vw + fmax(0, isfinite(c[i].sr2) ? c[i].sr2 - c[i].vw : 0);
            w[m++] = vm * (1.0 / (c[i].kb * c[i].rb) + 1.0 / (c[i].kc * c[i].rc));
        }
        if (m >= 8) {
            double med = median_inplace(v, m);
            for (size_t i = 0; i < m; i++) v[i] = fabs(v[i] - med);
            double sd = 1.4826 * median_inplace(v, m);
            double within = median_inplace(w, m);
            /* the same (one process a side) factor for every case */
            double per = 1.0 / c[0].kb + 1.0 / c[0].kc;
            for (size_t i = 0; i < n; i++)
                if (c[i].ok) { per = 1.0 / c[i].kb + 1.0 / c[i].kc; break; }
            pr->proc_var = fmax(0, sd * sd - within) / per;
            pr->proc_from_spread = 1;
            pr->cases = m;
        } else {
            pr->cases = m;
        }
    }
    free(w);
    free(v);
    free(df);
}

void gb_noise_priors_weigh(const gb_case_noise *c, size_t n, gb_noise_prior *pr) {
    /* zeroed: GCC's -O1 (the sanitized build) cannot see that prior_weight
     * reads only the k filled, and its -Werror stopped the build */
    double *s2 = calloc(n ? n : 1, sizeof *s2), *df = calloc(n ? n : 1, sizeof *df);
    double *e = calloc(n ? n : 1, sizeof *e);
    if (!s2 || !df || !e) { free(s2); free(df); free(e); return; }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].ok && c[i].df_r > 0) { s2[k] = c[i].sr2; df[k++] = c[i].df_r; }
    pr->round_df0 = prior_weight(s2, df, k, e);
    pr->round_var *= prior_scale(pr->round_df0);
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].ok && c[i].df_p > 0) { s2[k] = c[i].sp2; df[k++] = c[i].df_p; }
    pr->proc_df0 = prior_weight(s2, df, k, e);
    if (isfinite(pr->proc_var) && !pr->proc_from_spread && !pr->proc_assumed) pr->proc_var *= prior_scale(pr->proc_df0);
    else pr->proc_df0 = GB_NOISE_PRIOR_DF;
    free(s2);
    free(df);
    free(e);
}

int gb_noise_baselines_measure_themselves(const gb_case_noise *c, size_t n) {
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].ok) continue;
        if (c[i].kb < GB_LEARNT_WEIGHT_BASELINE_RUNS) return 0;
        ok++;
    }
    return ok > 0;
}

void gb_noise_priors_guard(gb_noise_prior *pr) {
    double floor = GB_MIN_PROCESS_SD * GB_MIN_PROCESS_SD;
    if (pr->proc_from_spread && pr->proc_var < floor) {
        pr->proc_var = floor;
        pr->proc_floored = 1; /* a bound, not an estimate: as known as the assumed one */
    } else if (!isfinite(pr->proc_var) && pr->cases > 0) {
        pr->proc_var = GB_ASSUMED_PROCESS_SD * GB_ASSUMED_PROCESS_SD;
        pr->proc_assumed = 1;
    }
}

int gb_noise_change(const gb_case_noise *c, const gb_noise_prior *pr, gb_change *out) {
    const double d0 = GB_NOISE_PRIOR_DF;
    memset(out, 0, sizeof *out);
    out->d = c->mean_c - c->mean_b;
    /* between rounds, net of sampling noise, shrunk toward the typical */
    double r_own = isfinite(c->sr2) ? fmax(0, c->sr2 - c->vw) : 0;
    double d0r = pr->round_df0 > 0 ? pr->round_df0 : d0, d0p = pr->proc_df0 > 0 ? pr->proc_df0 : d0;
    double df_r = d0r + c->df_r;
    double rvar = (d0r * pr->round_var + c->df_r * r_own) / df_r;
    double vm = c->vw + rvar; /* variance of one round median */
    double R = rounds_of(c);
    double pvar, df_p;
    if (c->df_p > 0) {
        double own = fmax(0, c->sp2 - vm / R);
        if (isfinite(pr->proc_var)) {
            pvar = (d0p * pr->proc_var + c->df_p * own) / (d0p + c->df_p);
            df_p = d0p + c->df_p;
        } else {
            pvar = own;
            df_p = c->df_p;
        }
        out->proc_measured = 1;
    } else if (isfinite(pr->proc_var)) {
        pvar = pr->proc_var;
        /* assumed (or the floor) as known: its size is the caution */
        df_p = pr->proc_assumed || pr->proc_floored ? INFINITY : d0;
        out->proc_assumed = pr->proc_assumed;
    } else {
        out->se = out->df = NAN;
        return -1;
    }
    out->round_var = rvar;
    out->proc_var = pvar;
    double K = 1.0 / c->kb + 1.0 / c->kc;
    double KR = 1.0 / (c->kb * c->rb) + 1.0 / (c->kc * c->rc);
    double A = pvar * K, B = rvar * KR, C = c->vw * KR;
    out->se = sqrt(A + B + C);
    double den = (isinf(df_p) ? 0 : A * A / df_p) + B * B / df_r + (c->df_w > 0 ? C * C / c->df_w : 0);
    out->df = den > 0 ? (A + B + C) * (A + B + C) / den : INFINITY;
    return 0;
}

void gb_confirm_conditional(const gb_case_noise *n2, const gb_change *ch2, double d1, int kc1, double rc1,
                            double threshold, gb_confirm_test *out) {
    double within = ch2->round_var + n2->vw; /* a round median's variance around its process */
    double vb = ch2->proc_var / n2->kb + within / (n2->kb * n2->rb);
    double v1 = vb + (ch2->proc_var + within / rc1) / kc1;
    double v2 = ch2->se * ch2->se;
    out->beta = v1 > 0 ? vb / v1 : 0;
    double vr = fmax(v2 - out->beta * vb, 1e-12 * v2);
    out->d = (ch2->d - out->beta * d1) / (1 - out->beta);
    out->se = sqrt(vr) / (1 - out->beta);
    out->df = ch2->df;
    double edge = log1p(threshold / 2), beyond = out->d - edge;
    out->p = out->se > 0 ? fmin(1, 2 * (1 - gb_t_cdf(beyond / out->se, out->df))) : (beyond > 0 ? 0 : 1);
}

/* ---- Student's t ------------------------------------------------------ */

/* Continued fraction of the regularized incomplete beta (Lentz). */
static double betacf(double a, double b, double x) {
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return h;
}

static double inc_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return exp(lbt) * betacf(a, b, x) / a;
    return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double gb_t_cdf(double t, double df) {
    if (isnan(t) || !(df > 0)) return NAN;
    if (isinf(df) || df > 1e7) return 0.5 * erfc(-t / sqrt(2.0));
    double tail = 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t)); /* P(T > |t|) */
    return t > 0 ? 1 - tail : tail;
}

double gb_t_quantile(double p, double df) {
    if (!(p > 0)) return -INFINITY;
    if (!(p < 1)) return INFINITY;
    double lo = -1e6, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (gb_t_cdf(mid, df) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* ---- Holm ------------------------------------------------------------- */

static const double *holm_p;
static int cmp_idx(const void *a, const void *b) {
    double x = holm_p[*(const size_t *)a], y = holm_p[*(const size_t *)b];
    return (x > y) - (x < y);
}

void gb_holm(const double *p, size_t n, double *adj) {
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), m = 0;
    for (size_t i = 0; i < n; i++) {
        adj[i] = NAN;
        if (idx && !isnan(p[i])) idx[m++] = i;
    }
    if (!idx) return;
    holm_p = p;
    qsort(idx, m, sizeof *idx, cmp_idx);
    double run = 0;
    for (size_t j = 0; j < m; j++) {
        run = fmax(run, fmin(1.0, (double)(m - j) * p[idx[j]]));
        adj[idx[j]] = run;
    }
    free(idx);
}

size_t gb_noise_family(const gb_case_noise *noise, const int *want, size_t n, const double *threshold,
                       const double *alpha, gb_family_change *out) {
    gb_noise_prior prior;
    gb_noise_priors(noise, n, &prior);
    return gb_noise_family_with(noise, want, n, threshold, alpha, &prior, out);
}

size_t gb_noise_family_with(const gb_case_noise *noise, const int *want, size_t n, const double *threshold,
                            const double *alpha, const gb_noise_prior *pr, gb_family_change *out) {
    double *p = calloc(n ? n : 1, sizeof *p), *adj = calloc(n ? n : 1, sizeof *adj);
    if (!p || !adj) {
        free(p);
        free(adj);
        return (size_t)-1;
    }
    const gb_noise_prior prior = *pr;
    size_t family = 0;
    for (size_t i = 0; i < n; i++) {
        gb_family_change *f = &out[i];
        memset(f, 0, sizeof *f);
        f->p = f->p_holm = f->change = f->lo = f->hi = NAN;
        p[i] = NAN;
        if (!noise[i].ok || (want && !want[i]) || gb_noise_change(&noise[i], &prior, &f->ch) != 0) continue;
        f->have = 1;
        /* H0: the change is within half the threshold on the side it points
         * to (one-sided, doubled for the two sides a case could move) */
        double half = threshold[i] / 2;
        double edge = f->ch.d >= 0 ? log1p(half) : -log1p(-fmin(half, 0.999));
        double beyond = fabs(f->ch.d) - edge;
        p[i] = f->ch.se > 0 ? fmin(1, 2 * (1 - gb_t_cdf(beyond / f->ch.se, f->ch.df))) : (beyond > 0 ? 0 : 1);
        family++;
    }
    gb_holm(p, n, adj);
    for (size_t i = 0; i < n; i++) {
        gb_family_change *f = &out[i];
        if (!f->have) continue;
        f->p = p[i];
        f->p_holm = adj[i];
        double q = gb_t_quantile(1 - alpha[i] / 2, f->ch.df);
        f->change = exp(f->ch.d) - 1;
        f->lo = exp(f->ch.d - q * f->ch.se) - 1;
        f->hi = exp(f->ch.d + q * f->ch.se) - 1;
    }
    free(p);
    free(adj);
    return family;
}
