/* compare_shift.c — the shift common to every case of a backend, named once
 * instead of blamed on each case.
 *
 * When a whole machine is 8% slower (another VM placement, a neighbour), or
 * a whole build is (-O0, another library), every case moves together: judged
 * one by one, each would be a regression, with only the ceilings to hint why.
 * Here the shift is estimated per backend by gb_common_shift_compute (the
 * median ratio over its cases with an order-statistics interval: a few real
 * regressions do not move it), checked against how far that backend's
 * measured ceilings moved between the runs, and, when the interval excludes
 * no shift and the shift is beyond the threshold, every case of the
 * backend is judged net of it (the raw change is still shown). The shift
 * itself gets a verdict:
 *   - beyond the threshold and the ceilings moved with it: the machine
 *     (a warning; the cases are judged net of it);
 *   - beyond the threshold, slower, and the ceilings did not move (or were
 *     not measured): the build or the code — a regression, exit 1;
 *   - within the threshold: shown; the cases are judged as they are.
 * Before any of these, with three or more baseline runs, the shift is
 * judged against how much a run's level moves on its own: each baseline
 * run's shift against the others (leave one out) gives the spread of a
 * run's level, and the shift's interval is widened by it (a prediction
 * interval, at GB_SHIFT_ALPHA). A shift within that interval is
 * GB_SHIFT_WITHIN_SPREAD: shown, never failed, the cases judged as they
 * are (their own between-process noise already holds the level's moves).
 * On a fresh H200 VM eight same-build quick runs moved the CPU side's
 * whole level 0.78-1.12 (log sd 12.5%); judged by the 54 cases of one
 * process alone, 4 of 8 of them "failed". With one or two baseline runs
 * the spread cannot be measured and the cases' interval is all there is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "stats.h"

/* Fewer cases than this make a median that one case decides. */
#define GB_SHIFT_MIN_CASES 6
/* A shift's level test: two-sided, per backend. Strict: a false alarm
 * here fails every case of a CI job at once. */
#define GB_SHIFT_ALPHA 0.01

const char *gb_cmp_shift_status_name(gb_cmp_shift_status s) {
    switch (s) {
    case GB_SHIFT_NONE: return "none";
    case GB_SHIFT_SMALL: return "within_threshold";
    case GB_SHIFT_MACHINE: return "machine";
    case GB_SHIFT_UNEXPLAINED: return "unexplained";
    case GB_SHIFT_WITHIN_SPREAD: return "within_spread";
    }
    return "?";
}

/* Is the shift explained by the ceilings: did they move the same way by at
 * least half as much (in log)? */
static int explained(double shift, double ceiling) {
    if (!(ceiling > 0) || !isfinite(ceiling)) return 0;
    double ls = log(shift), lc = log(ceiling);
    return ls * lc > 0 && fabs(lc) >= 0.5 * fabs(ls);
}

/* The spread of a run's level from the baseline runs themselves: for each
 * baseline run j, the median over this backend's cases (held by every
 * baseline run) of log(run j's median) - mean log(the others' medians).
 * A level L_j of variance s^2 makes each such shift vary as
 * s^2 (1 + 1/(nb - 1)); s is returned (NAN: fewer than 3 runs or too few
 * cases), with the smallest and largest shift. */
static double level_spread(const matched *ms, const gb_family_change *fam, size_t nm, size_t nb, const char *backend,
                           double *loo_min, double *loo_max) {
    *loo_min = *loo_max = NAN;
    if (nb < 3 || nb > GB_MAX_PROCS) return NAN;
    double *d = malloc((nm ? nm : 1) * sizeof *d);
    if (!d) return NAN;
    double ss = 0;
    size_t runs = 0;
    for (size_t j = 0; j < nb; j++) {
        size_t k = 0;
        for (size_t i = 0; i < nm; i++) {
            const matched *m = &ms[i];
            if (!fam[i].have || (size_t)m->kb != nb || strcmp(m->b->r->backend, backend)) continue;
            double others = 0, mine = NAN;
            int ok = 1;
            for (size_t l = 0; l < nb && ok; l++) {
                double med = m->bp[l]->stats.median;
                if (!(med > 0)) ok = 0;
                else if (l == j) mine = log(med);
                else others += log(med);
            }
            if (ok) d[k++] = mine - others / (double)(nb - 1);
        }
        if (k < GB_SHIFT_MIN_CASES) break;
        double ls = gb_median(d, k);
        ss += ls * ls;
        runs++;
        if (!(exp(ls) >= *loo_min)) *loo_min = exp(ls);
        if (!(exp(ls) <= *loo_max)) *loo_max = exp(ls);
    }
    free(d);
    if (runs < nb) return NAN;
    return sqrt(ss / (double)nb / (1 + 1 / (double)(nb - 1)));
}

int gb_cmp_shift_estimate(const matched *ms, const gb_family_change *fam, size_t nm, const gb_results *const *base,
                          size_t nb, const gb_results *const *cur, size_t nc, double threshold, gb_cmp_shift *out,
                          size_t max, size_t *nout) {
    *nout = 0;
    double *ratio = malloc((nm ? nm : 1) * sizeof *ratio);
    if (!ratio) return -1;
    for (size_t i = 0; i < nm; i++) {
        if (!fam[i].have) continue;
        const char *backend = ms[i].b->r->backend;
        size_t s = 0;
        while (s < *nout && strcmp(out[s].backend, backend)) s++;
        if (s < *nout || *nout == max) continue; /* this backend done, or no room */
        size_t k = 0;
        for (size_t j = i; j < nm; j++)
            if (fam[j].have && !strcmp(ms[j].b->r->backend, backend)) ratio[k++] = exp(fam[j].ch.d);
        gb_cmp_shift *sh = &out[(*nout)++];
        memset(sh, 0, sizeof *sh);
        sh->backend = backend;
        gb_common_shift cs;
        gb_common_shift_compute(ratio, k, &cs);
        sh->cases = cs.n;
        sh->ratio = cs.ratio;
        sh->lo = cs.ratio_lo;
        sh->hi = cs.ratio_hi;
        sh->case_lo = sh->lo;
        sh->case_hi = sh->hi;
        sh->ceiling_ratio = gb_cmp_ceiling_time_ratio(base, nb, cur, nc, backend, &sh->ceiling_keys);
        gb_cmp_differences(base, nb, cur, nc, sh->ceiling_ratio, sh->differs, sizeof sh->differs);
        sh->status = GB_SHIFT_NONE;
        sh->spread_sd = level_spread(ms, fam, nm, nb, backend, &sh->loo_min, &sh->loo_max);
        if (cs.n < GB_SHIFT_MIN_CASES) continue;
        if (isfinite(sh->spread_sd) && sh->ratio > 0) {
            /* the prediction interval of a run's level against nb runs' */
            sh->spread_runs = nb;
            double ps = sh->spread_sd * sqrt(1 / (double)(nc ? nc : 1) + 1 / (double)nb);
            double q = gb_t_quantile(1 - GB_SHIFT_ALPHA / 2, (double)(nb - 1)) * ps;
            double hw = fmax(log(sh->ratio / sh->lo), log(sh->hi / sh->ratio));
            if (!isfinite(hw)) hw = 0;
            hw = sqrt(hw * hw + q * q);
            sh->lo = sh->ratio * exp(-hw);
            sh->hi = sh->ratio * exp(hw);
            if (sh->lo <= 1 && sh->hi >= 1) {
                sh->status = GB_SHIFT_WITHIN_SPREAD;
                continue;
            }
        }
        if (!(sh->lo > 1 || sh->hi < 1)) continue;
        if (fabs(sh->ratio - 1) <= threshold) {
            /* established but within the threshold: shown, not taken out.
             * Taking out a median of noisy changes adds its own noise to
             * every case (the simulation's --confirm power fell from 97 to
             * 94 in 100 when shifts of 1-4% were taken out) */
            sh->status = GB_SHIFT_SMALL;
            continue;
        }
        sh->applied = 1; /* the cases are judged net of it */
        if (explained(sh->ratio, sh->ceiling_ratio)) sh->status = GB_SHIFT_MACHINE;
        else sh->status = GB_SHIFT_UNEXPLAINED;
    }
    free(ratio);
    return 0;
}

double gb_cmp_shift_log(const gb_cmp_shift *sh, size_t n, const char *backend) {
    for (size_t i = 0; i < n; i++)
        if (sh[i].applied && !strcmp(sh[i].backend, backend)) return log(sh[i].ratio);
    return 0;
}

void gb_cmp_shift_text(const gb_cmp_shift *sh, double threshold, char *buf, size_t len) {
    char ceil[160];
    if (sh->ceiling_keys)
        snprintf(ceil, sizeof ceil, "its ceilings make times x%.3f (%zu measured in both runs)", sh->ceiling_ratio,
                 sh->ceiling_keys);
    else
        snprintf(ceil, sizeof ceil, "no ceiling of it measured in both runs (kept from an earlier run, or --no-peak)");
    const char *what = "";
    switch (sh->status) {
    case GB_SHIFT_NONE:
        what = sh->cases < GB_SHIFT_MIN_CASES ? "too few cases to establish a common shift" : "no common shift established";
        break;
    case GB_SHIFT_WITHIN_SPREAD:
        what = "within how much the baseline runs' own level moves: shown, never failed; the cases judged as they are";
        break;
    case GB_SHIFT_SMALL:
        what = "within the threshold: shown, the cases judged as they are";
        break;
    case GB_SHIFT_MACHINE: what = "the machine moved (the ceilings explain it): a warning; cases judged net of it"; break;
    case GB_SHIFT_UNEXPLAINED:
        what = sh->ratio > 1 ? "REGRESSION: every case slower and the ceilings do not explain it (the build, a "
                               "library, or the code); cases judged net of it"
                             : "improvement of every case, not explained by the ceilings; cases judged net of it";
        break;
    }
    char spread[200];
    if (sh->spread_runs)
        snprintf(spread, sizeof spread,
                 "interval widened by the level's spread (log sd %.1f%%: the %zu baseline runs' leave-one-out shifts "
                 "x%.3f-x%.3f)",
                 100 * sh->spread_sd, sh->spread_runs, sh->loo_min, sh->loo_max);
    else
        snprintf(spread, sizeof spread, "the level's spread unknown (fewer than 3 baseline runs)");
    snprintf(buf, len, "%s: x%.3f [%.3f, %.3f] over %zu cases (threshold %.3g%%), %s; %s; %s: %s", sh->backend,
             sh->ratio, sh->lo, sh->hi, sh->cases, 100 * threshold, spread, sh->differs, ceil, what);
}
