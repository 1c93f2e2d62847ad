/* compare_judge.c — verdicts: of one matched case from its change,
 * interval and Holm-adjusted p (gb_cmp_judge, both stages of compare). The
 * rules: docs/regression-statistics.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

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

