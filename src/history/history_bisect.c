/* history_bisect.c — where did a case get slower: a step (the first commit
 * after which it stayed slower) or a slow drift (a few % a commit, no
 * single step) and where the drift started.
 *
 * Four models are fitted by least squares to a series' log figures (one a
 * run, oldest first):
 *   flat         y = a
 *   step at s    y = a + c [i >= s]
 *   drift from h y = a + b max(0, i - h)       (flat, then a constant slope)
 *   both         y = a + b max(0, i - h) + c [i >= s]
 * over every s and h, and the one with the smallest BIC
 * (n ln(RSS/n + floor) + k ln n, k counting the change locations too) is
 * kept. Searching every location finds something in pure noise (on five
 * real H100 runs, BIC alone "found" drifts of 20% a run), so each part of
 * the chosen model must also pass on its own: dropping it must raise the
 * RSS by GB_BISECT_MIN_F residual variances (a t of 5: what a search over
 * n locations needs to stay quiet on noise), and it must be beyond the
 * threshold (the step's size; the drift's total from its start to the last
 * run). A step needs three runs on each side, a drift four runs, a series
 * six runs. Only the last GB_BISECT_WINDOW runs are searched (the search is
 * cubic in n). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history_internal.h"

#define GB_BISECT_WINDOW 60
#define GB_BISECT_MIN_F 25.0
#define GB_BISECT_MIN_RUNS 6
/* A floor on the residual variance (0.2% a run): a perfect fit is not
 * infinitely better than a near-perfect one. */
#define FLOOR_VAR (0.002 * 0.002)

/* Least squares of x on the columns [1, hinge(h), step(s)] that are used;
 * the RSS, and the coefficients in coef[0..2] (unused: 0). INFINITY when
 * the columns are degenerate. */
static double fit(const double *x, size_t n, long h, long s, double coef[3]) {
    int use[3] = {1, h >= 0, s >= 0};
    double A[3][4] = {{0}};
    int idx[3], m = 0;
    for (int j = 0; j < 3; j++)
        if (use[j]) idx[m++] = j;
    for (size_t i = 0; i < n; i++) {
        double col[3] = {1, h >= 0 && (long)i > h ? (double)((long)i - h) : 0, s >= 0 && (long)i >= s ? 1 : 0};
        for (int a = 0; a < m; a++) {
            for (int b = 0; b < m; b++) A[a][b] += col[idx[a]] * col[idx[b]];
            A[a][3] += col[idx[a]] * x[i];
        }
    }
    /* Gaussian elimination with partial pivoting on the m x m system */
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c])) piv = r;
        if (fabs(A[piv][c]) < 1e-12) return INFINITY;
        for (int k = 0; k < 4; k++) {
            double t = A[c][k];
            A[c][k] = A[piv][k];
            A[piv][k] = t;
        }
        for (int r = 0; r < m; r++) {
            if (r == c) continue;
            double fct = A[r][c] / A[c][c];
            for (int k = c; k < 4; k++) A[r][k] -= fct * A[c][k];
        }
    }
    coef[0] = coef[1] = coef[2] = 0;
    for (int a = 0; a < m; a++) coef[idx[a]] = A[a][3] / A[a][a];
    double rss = 0;
    for (size_t i = 0; i < n; i++) {
        double y = coef[0] + (h >= 0 && (long)i > h ? coef[1] * (double)((long)i - h) : 0) +
                   (s >= 0 && (long)i >= s ? coef[2] : 0);
        rss += (x[i] - y) * (x[i] - y);
    }
    return rss;
}

static double bic(double rss, size_t n, int k) {
    return (double)n * log(rss / (double)n + FLOOR_VAR) + k * log((double)n);
}

void gb_history_changepoint(const double *x_all, size_t n_all, double threshold, gb_changepoint *out) {
    memset(out, 0, sizeof *out);
    size_t off = n_all > GB_BISECT_WINDOW ? n_all - GB_BISECT_WINDOW : 0;
    const double *x = x_all + off;
    size_t n = n_all - off;
    if (n < GB_BISECT_MIN_RUNS) return;
    double coef[3], best_c[3];
    double best = bic(fit(x, n, -1, -1, coef), n, 1);
    long bh = -1, bs = -1;
    memcpy(best_c, coef, sizeof coef);
    for (long s = 3; s <= (long)n - 3; s++) {
        double v = bic(fit(x, n, -1, s, coef), n, 3);
        if (v < best) { best = v; bh = -1; bs = s; memcpy(best_c, coef, sizeof coef); }
    }
    for (long h = 0; h <= (long)n - 5; h++) {
        double v = bic(fit(x, n, h, -1, coef), n, 3);
        if (v < best) { best = v; bh = h; bs = -1; memcpy(best_c, coef, sizeof coef); }
        for (long s = 3; s <= (long)n - 3; s++) {
            if (s == h + 1) continue; /* a step where the drift starts: the two are one */
            double w = bic(fit(x, n, h, s, coef), n, 5);
            if (w < best) { best = w; bh = h; bs = s; memcpy(best_c, coef, sizeof coef); }
        }
    }
    double rss = fit(x, n, bh, bs, coef);
    out->noise = sqrt(rss / (double)n);
    double lt = log1p(threshold);
    int k = 1 + (bh >= 0) + (bs >= 0);
    double var = fmax(rss / (double)((long)n - k), FLOOR_VAR);
    /* each part on its own: how much worse the fit is without it */
    int step_real = bs >= 0 && (fit(x, n, bh, -1, coef) - rss) / var >= GB_BISECT_MIN_F;
    int drift_real = bh >= 0 && (fit(x, n, -1, bs, coef) - rss) / var >= GB_BISECT_MIN_F;
    if (step_real && fabs(best_c[2]) >= lt) {
        out->step = 1;
        out->step_at = (size_t)bs + off;
        out->step_change = expm1(best_c[2]);
    }
    if (drift_real) {
        double total = best_c[1] * (double)((long)n - 1 - bh);
        if (fabs(total) >= lt) {
            out->drift = 1;
            out->drift_from = (size_t)bh + 1 + off;
            out->drift_per_point = expm1(best_c[1]);
            out->drift_total = expm1(total);
        }
    }
}

/* Whether runs a..b of s (inclusive) all measured one named commit: a
 * change among them came from the machine (a VM's neighbours, its clocks),
 * not from the code, and no commit is to blame. On one H200 VM, eight
 * same-build runs of suites/quick.json "found" 28 steps and drifts in 178
 * series, two of them slower (a CPU GEMM's +36% from run 4 on). */
static int one_commit(const gb_history_series *s, size_t a, size_t b) {
    if (!*s->p[a].commit) return 0;
    for (size_t i = a + 1; i <= b && i < s->n; i++)
        if (strcmp(s->p[i].commit, s->p[a].commit)) return 0;
    return 1;
}

static const char *const SAME_BUILD = " (between runs of that one commit: the machine changed, not the code)";

void gb_history_series_changepoint(const gb_history_series *s, double threshold, gb_changepoint *out) {
    memset(out, 0, sizeof *out);
    double *x = malloc((s->n ? s->n : 1) * sizeof *x);
    if (!x) return;
    for (size_t i = 0; i < s->n; i++) x[i] = s->p[i].value;
    gb_history_changepoint(x, s->n, threshold, out);
    free(x);
    /* the step: the runs on its two sides; the drift: from the run before
     * its first slower one to the last */
    out->step_same_build = out->step && out->step_at > 0 && one_commit(s, out->step_at - 1, out->step_at);
    out->drift_same_build = out->drift && out->drift_from > 0 && one_commit(s, out->drift_from - 1, s->n - 1);
}

static void point_name(const gb_history_point *p, char *buf, size_t len) {
    snprintf(buf, len, "run %lld, commit %.12s%s%s", p->run_id, *p->commit ? p->commit : "-",
             *p->commit_time ? " of " : "", p->commit_time);
}

int gb_history_bisect(gb_history *h, const gb_history_filter *f, double threshold, FILE *out, gb_err *e) {
    gb_history_series_set set;
    if (gb_history_series_load(h, f, &set, e) != GB_OK) return GB_FAIL;
    if (set.n == 0) {
        gb_history_series_free(&set);
        return gb_errf(e, GB_FAIL, "%s: no case matches '%s'", gb_history_name(h), f && f->pattern ? f->pattern : "");
    }
    int slower = 0;
    for (size_t k = 0; k < set.n; k++) {
        const gb_history_series *s = &set.s[k];
        gb_changepoint cp;
        gb_history_series_changepoint(s, threshold, &cp);
        fprintf(out, "%s @ %s: %zu runs\n", s->name, s->machine, s->n);
        char where[200];
        if (s->n < GB_BISECT_MIN_RUNS) fprintf(out, "  too few runs to find a change (%d or more)\n", GB_BISECT_MIN_RUNS);
        if (cp.step) {
            int machine = cp.step_same_build;
            point_name(&s->p[cp.step_at], where, sizeof where);
            fprintf(out, "  step: %+.1f%% from %s on (the first run after which it stayed %s)%s\n",
                    cp.step_change * 100, where, cp.step_change > 0 ? "slower" : "faster", machine ? SAME_BUILD : "");
            if (cp.step_change > 0 && !machine) slower = 1;
        }
        if (cp.drift) {
            int machine = cp.drift_same_build;
            point_name(&s->p[cp.drift_from], where, sizeof where);
            fprintf(out, "  drift: %+.2f%% a run from %s on, %+.1f%% in all (no single step)%s\n",
                    cp.drift_per_point * 100, where, cp.drift_total * 100, machine ? SAME_BUILD : "");
            if (cp.drift_total > 0 && !machine) slower = 1;
        }
        if (!cp.step && !cp.drift && s->n >= GB_BISECT_MIN_RUNS)
            fprintf(out, "  no step or drift beyond %.3g%% (run-to-run noise %.1f%%)\n", threshold * 100,
                    cp.noise * 100);
    }
    gb_history_series_free(&set);
    return slower ? 1 : 0;
}
