/* compare_judge.c — verdicts: of one matched case from its change,
 * interval and Holm-adjusted p (gb_cmp_judge, both stages of compare), and
 * of two bare sets of samples (gb_compare_samples, the samples-only test
 * kept for tools). The rules: docs/regression-statistics.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "mannwhitney.h"
#include "stats.h"

const char *gb_verdict_name(gb_cmp_verdict v) {
    switch (v) {
    case GB_V_SAME: return "same";
    case GB_V_IMPROVEMENT: return "improvement";
    case GB_V_UNSURE: return "unsure";
    case GB_V_REGRESSION: return "regression";
    case GB_V_FAILED: return "failed";
    case GB_V_NOT_COMPARED: return "not_compared";
    }
    return "?";
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of an already sorted array */
static double sorted_median(const double *s, size_t n) {
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int gb_compare_samples(const double *base, size_t nb, const double *cur, size_t nc, gb_rule rule,
                       gb_sample_verdict *out) {
    memset(out, 0, sizeof *out);
    out->n_base = nb;
    out->n_cur = nc;
    out->change = out->ci_low = out->ci_high = out->p = NAN;
    out->base_median = out->cur_median = NAN;
    out->verdict = GB_V_NOT_COMPARED;
    if (nb == 0 || nc == 0) {
        snprintf(out->reason, sizeof out->reason, "no samples on the %s side", nb == 0 ? "baseline" : "current");
        return 0;
    }
    double *lb = malloc(nb * sizeof *lb), *lc = malloc(nc * sizeof *lc);
    if (!lb || !lc) { free(lb); free(lc); return -1; }
    for (size_t i = 0; i < nb + nc; i++) {
        double v = i < nb ? base[i] : cur[i - nb];
        if (!(v > 0) || !isfinite(v)) {
            snprintf(out->reason, sizeof out->reason, "%s sample %zu is %g, not a positive time",
                     i < nb ? "baseline" : "current", i < nb ? i : i - nb, v);
            free(lb); free(lc);
            return 0;
        }
        /* times compare by ratio: work on logs, so a shift is a ratio */
        if (i < nb) lb[i] = log(v);
        else lc[i - nb] = log(v);
    }
    /* medians of the raw samples, as the results file states them */
    double *s = malloc((nb > nc ? nb : nc) * sizeof *s);
    if (!s) { free(lb); free(lc); return -1; }
    memcpy(s, base, nb * sizeof *s);
    qsort(s, nb, sizeof *s, cmp_d);
    out->base_median = sorted_median(s, nb);
    memcpy(s, cur, nc * sizeof *s);
    qsort(s, nc, sizeof *s, cmp_d);
    out->cur_median = sorted_median(s, nc);
    free(s);
    gb_mw_result mw;
    double est, lo, hi;
    if (gb_mannwhitney(lb, nb, lc, nc, &mw) != 0 ||
        gb_hodges_lehmann(lb, nb, lc, nc, rule.alpha, &est, &lo, &hi) != 0) {
        free(lb); free(lc);
        return -1;
    }
    free(lb);
    free(lc);
    out->p = mw.p;
    out->exact = mw.exact;
    out->change = exp(est) - 1.0;
    out->ci_low = isinf(lo) ? -INFINITY : exp(lo) - 1.0;
    out->ci_high = isinf(hi) ? INFINITY : exp(hi) - 1.0;
    double t = rule.threshold;
    int significant = mw.p <= rule.alpha;
    if (isinf(lo) || isinf(hi)) {
        out->verdict = GB_V_UNSURE;
        snprintf(out->reason, sizeof out->reason,
                 "too few samples (%zu vs %zu) for any conclusion at alpha %g", nb, nc, rule.alpha);
    } else if (fabs(out->change) <= t) {
        out->verdict = GB_V_SAME;
    } else {
        int up = out->change > 0;
        int clear = up ? out->ci_low > t : out->ci_high < -t;
        if (significant && clear) {
            out->verdict = up ? GB_V_REGRESSION : GB_V_IMPROVEMENT;
        } else {
            out->verdict = GB_V_UNSURE;
            if (!significant)
                snprintf(out->reason, sizeof out->reason, "not significant: p = %.3g > alpha %g", mw.p,
                         rule.alpha);
            else
                snprintf(out->reason, sizeof out->reason, "interval reaches %+.1f%%, inside the %.1f%% threshold",
                         100.0 * (up ? out->ci_low : out->ci_high), 100.0 * t);
        }
    }
    return 0;
}

/* The verdict of one case from its change, interval and Holm-adjusted p
 * (of "the change is beyond half the threshold"). */
void gb_cmp_judge(matched *m, double lo, double hi, size_t family) {
    double t = m->rule.threshold, change = exp(m->ch.d) - 1;
    double shift = exp(m->noise.mean_c) - exp(m->noise.mean_b);
    int established = m->p_holm <= m->rule.alpha, beyond = fabs(change) > t;
    char noise[200];
    snprintf(noise, sizeof noise, "between processes %.2g%% (%s), between rounds %.2g%%",
             100 * sqrt(m->ch.proc_var),
             m->ch.proc_measured ? "this case's runs"
             : m->ch.proc_assumed ? "assumed: one run a side and under 8 cases to learn it from"
                                  : "typical of the suite: this case's cannot be measured from one run a side",
             100 * sqrt(m->ch.round_var));
    if (established && beyond && m->plan_changed) {
        /* recorded and shown, not hidden: the lottery is not the code */
        m->verdict = GB_V_UNSURE;
        snprintf(m->reason, sizeof m->reason,
                 "changed by %+.1f%%, but the current run's library chose a plan none of the baseline's runs did "
                 "(extra.plan; FFTW's planner=measure picks per process): re-run, or give the baseline more runs",
                 100 * change);
        return;
    }
    if (established && beyond && fabs(shift) >= m->rule.min_change_s) {
        m->verdict = change > 0 ? GB_V_REGRESSION : GB_V_IMPROVEMENT;
        return;
    }
    if (lo >= -t && hi <= t) {
        m->verdict = GB_V_SAME;
        return;
    }
    m->verdict = GB_V_UNSURE;
    if (established && beyond)
        snprintf(m->reason, sizeof m->reason, "medians differ by %.3g us, under --min-change %.3g us", fabs(shift) * 1e6,
                 m->rule.min_change_s * 1e6);
    else if (established)
        snprintf(m->reason, sizeof m->reason,
                 "changed by %+.1f%%, within the %.3g%% threshold, but the interval reaches %+.1f%%; %.150s",
                 100 * change, 100 * t, 100 * (change > 0 ? hi : lo), noise);
    else
        snprintf(m->reason, sizeof m->reason,
                 "interval [%+.1f%%, %+.1f%%] is not within +-%.3g%%, and a change of %.3g%% or more is not "
                 "established (p = %.2g, %.2g after Holm over %zu cases > alpha %g); %.150s",
                 100 * lo, 100 * hi, 100 * t, 50 * t, m->p, m->p_holm, family, m->rule.alpha, noise);
}

