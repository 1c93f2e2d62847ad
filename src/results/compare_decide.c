/* compare_decide.c — what would decide an unsure case, from its own noise.
 *
 * A case is unsure when its interval is too wide for either side of the
 * threshold. Its variance (compare_stats.h) is
 *   V = sp (1/kb + 1/kc) + (sr + sw) (1/(kb rb) + 1/(kc rc))
 * (sp between processes, sr between rounds, sw a round median's sampling
 * noise; kb, kc processes and rb, rc rounds a side). The standard error that
 * would decide it is the distance of its estimate from the nearer decision
 * edge over the quantile the verdict uses: for "same", the interval inside
 * +-threshold (log(1+t) - |d| over z(1 - alpha/2)); for a regression or an
 * improvement, a change of half the threshold established after Holm
 * (|d| - log(1+t/2) over z(1 - alpha/(2 m)), m the family). Each lever is
 * then solved for: more rounds a run (both sides measured again), more
 * baseline runs (a deeper history), more confirming processes
 * (--confirm-runs), or both of the last two together (k baseline runs, and
 * confirming processes up to k current ones). A lever that cannot get there
 * (the process term alone is too large for rounds to help) is 0. The time is this case's: a round is its median times its
 * samples a round; a process adds GB_PROCESS_START_S for starting and
 * measuring ceilings. The estimate assumes the change stays where it is: a
 * case sitting on the threshold needs more than any lever gives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

/* Seconds a fresh `gpubench run --case` process costs beyond its rounds
 * (start, CUDA context, ceilings): on the H100 host --confirm re-measured 56
 * suspects in 8 processes in 70 s, about 2 s each beyond the cases' time. */
#define GB_PROCESS_START_S 2.0
/* The most of any lever worth naming. */
#define GB_DECIDE_MAX 64

/* The normal quantile (Student's t with infinite df). */
static double z_of(double p) {
    return gb_t_quantile(p, INFINITY);
}

static double var_of(double sp, double sw, double kb, double kc, double rb, double rc) {
    return sp * (1 / kb + 1 / kc) + sw * (1 / (kb * rb) + 1 / (kc * rc));
}

void gb_cmp_decide(const matched *m, size_t family, gb_cmp_decide_plan *out) {
    memset(out, 0, sizeof *out);
    if (!m->have_ch || m->verdict != GB_V_UNSURE || m->plan_changed) return;
    double t = m->rule.threshold, a = m->rule.alpha, d = fabs(m->ch.d);
    double se_same = NAN, se_flag = NAN;
    if (d < log1p(t)) se_same = (log1p(t) - d) / z_of(1 - a / 2);
    if (d > log1p(t)) se_flag = (d - log1p(t / 2)) / z_of(1 - a / (2.0 * (family ? family : 1)));
    double target = fmax(isfinite(se_same) ? se_same : 0, isfinite(se_flag) ? se_flag : 0);
    out->have = 1;
    out->cost_s = INFINITY;
    if (!(target > 0) || target < 0.1 * m->ch.se) {
        out->on_threshold = 1; /* within a tenth of an interval of the edge: no lever decides it */
        return;
    }
    double v2 = target * target;
    double sp = m->ch.proc_var, sw = m->ch.round_var + m->noise.vw;
    double kb = m->noise.kb, kc = m->noise.kc, rb = m->noise.rb, rc = m->noise.rc;
    /* rounds: both sides measured again with r rounds a run (--rounds r) */
    for (int r = (int)ceil(fmax(rb, rc)) + 1; r <= (int)ceil(fmax(rb, rc)) + GB_DECIDE_MAX; r++)
        if (var_of(sp, sw, kb, kc, r, r) <= v2) { out->more_rounds = r - (int)ceil(rc); break; }
    for (int k = (int)kb + 1; k <= GB_DECIDE_MAX; k++)
        if (var_of(sp, sw, k, kc, rb, rc) <= v2) { out->baseline_runs = k; break; }
    for (int k = 1; k <= GB_DECIDE_MAX; k++)
        if (var_of(sp, sw, kb, kc + k, rb, rc) <= v2) { out->processes = k; break; }
    /* both: k baseline runs and confirming processes up to k current ones
     * (a history of k runs and --confirm-runs k) */
    for (int k = (int)fmax(kb, kc) + 1; k <= GB_DECIDE_MAX; k++)
        if (var_of(sp, sw, k, k, rb, rc) <= v2) { out->runs_each = k; break; }
    /* a round of this case: its samples a round at its median */
    const gb_result *r0 = m->cp[0];
    double nround = r0 && r0->nrounds ? (double)r0->nsamples / (double)r0->nrounds : (r0 ? (double)r0->nsamples : 1);
    double round_s = exp(m->noise.mean_c) * nround;
    out->round_s = round_s;
    double proc_s = rc * round_s + GB_PROCESS_START_S; /* one more run of this case */
    double r_all = ceil(rc) + out->more_rounds;
    double c_rounds = out->more_rounds ? (kb + kc) * (r_all * round_s + GB_PROCESS_START_S) : INFINITY;
    double c_procs = out->processes ? out->processes * proc_s : INFINITY;
    double c_base = out->baseline_runs ? (out->baseline_runs - kb) * proc_s : INFINITY;
    double c_each = out->runs_each ? (2 * out->runs_each - kb - kc) * proc_s : INFINITY;
    out->cost_s = fmin(fmin(c_rounds, c_procs), fmin(c_base, c_each));
    out->cheapest = out->cost_s == c_procs  ? "confirming processes"
                    : out->cost_s == c_base ? "baseline runs"
                    : out->cost_s == c_each ? "baseline runs and confirming processes"
                                            : "rounds";
}

void gb_cmp_decide_text(const gb_cmp_decide_plan *p, char *buf, size_t len) {
    if (!p->have) { *buf = '\0'; return; }
    if (p->on_threshold) {
        snprintf(buf, len, "its change sits on the threshold: no number of rounds or runs decides it");
        return;
    }
    char a[64] = "", b[64] = "", c[64] = "", d[96] = "";
    if (p->more_rounds) snprintf(a, sizeof a, "%d more rounds a run", p->more_rounds);
    if (p->baseline_runs) snprintf(b, sizeof b, "%s%d baseline runs", *a ? ", " : "", p->baseline_runs);
    if (p->processes) snprintf(c, sizeof c, "%s%d confirming processes", *a || *b ? ", " : "", p->processes);
    if (p->runs_each)
        snprintf(d, sizeof d, "%s%d baseline runs with %d confirming processes", *a || *b || *c ? ", or " : "",
                 p->runs_each, p->runs_each - 1);
    if (!*a && !*b && !*c && !*d)
        snprintf(buf, len, "more than %d rounds, baseline runs or confirming processes would be needed", GB_DECIDE_MAX);
    else
        snprintf(buf, len, "would be decided by %s%s%s%s (cheapest: %s, ~%.3g s)", a, b, c, d, p->cheapest, p->cost_s);
}

/* Greedy, cheapest first: how many unsure cases fit in budget_s. */
static int cmp_cost(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int gb_cmp_decidable_within(const gb_cmp_item *items, size_t n, double budget_s, double *spent) {
    double *c = malloc((n ? n : 1) * sizeof *c);
    size_t k = 0;
    *spent = 0;
    if (!c) return 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].decide.have && !items[i].decide.on_threshold && isfinite(items[i].decide.cost_s))
            c[k++] = items[i].decide.cost_s;
    qsort(c, k, sizeof *c, cmp_cost);
    int fit = 0;
    for (size_t i = 0; i < k && *spent + c[i] <= budget_s; i++) *spent += c[i], fit++;
    free(c);
    return fit;
}
