/* compare_stats.h — how much a result moves, and whether a change is real.
 *
 * A result's samples come in three layers, and each layer has its own noise:
 *
 *   process   one `gpubench run` (a results file). Some costs are fixed for
 *             the life of a process: where buffers landed, which plan FFTW
 *             picked, a launch queue's state. Measured on the H100 host: most
 *             cases move 2-5% between processes, FFTW r2c 32x32 with
 *             planner=measure 85% (5.2 or 9.5 us), while its rounds within
 *             one process agree to 2%.
 *   round     one visit of the suite within a process (runner.h). The
 *             machine drifts over seconds: clocks, neighbours.
 *   sample    one repetition within a round.
 *
 * Everything here works on log times (a change is a ratio). For one result:
 *   m[p][r]   the median of round r of process p (robust to slow outliers);
 *   v_w       the sampling variance of such a median, from the round's own
 *             spread (pi/2 * (1.4826 MAD)^2 / n), averaged over rounds;
 *   s_r^2     the variance of round medians around their process's mean,
 *             pooled over the processes of both sides (df = sum(R_p - 1));
 *             its excess over v_w is the between-round drift, net of
 *             sampling noise: sigma_r^2 = max(0, s_r^2 - v_w);
 *   s_p^2     the variance of process means around their side's mean
 *             (needs two or more processes on a side); its excess over what
 *             the rounds explain is the between-process variance sigma_p^2.
 * The change is d = mean of the current side's process means - the
 * baseline's, with
 *   Var(d) = sum over sides of (sigma_p^2 + (v_w + sigma_r^2) / R) / k
 * (k processes of R rounds on that side). A variance measured with few
 * degrees of freedom is shrunk toward what the other cases of the same
 * comparison showed (the moderated variance of limma: (d0*s0^2 + df*s^2) /
 * (d0 + df), df + d0 degrees of freedom, d0 = GB_NOISE_PRIOR_DF), so that a
 * baseline of two runs is usable and a case that truly moves (FFTW's 85%)
 * keeps most of its own variance. With one process a side, a case's own
 * between-process variance cannot be measured: the typical one is taken from
 * how the changes of all cases spread around their median (robust: a few
 * real regressions do not move it), and its degrees of freedom are only the
 * prior's — the verdict says so. The interval is a t interval with
 * Welch–Satterthwaite degrees of freedom (the sampling variance counts
 * GB_MAD_EFFICIENCY * (n - 1) of them a round: a MAD of 2 samples a round
 * says little). docs/regression-statistics.md has
 * the why and the simulation that checks it. */
#ifndef GB_COMPARE_STATS_H
#define GB_COMPARE_STATS_H
#include <stddef.h>

/* How many degrees of freedom the suite-wide typical variance counts for. */
#define GB_NOISE_PRIOR_DF 4.0
/* One run a side and fewer than 8 cases: no case's between-process noise
 * can be measured, nor learnt from how the cases' changes spread. Rather
 * than call every case unsure (a x10 slowdown of a 3-case suite passed), a
 * process sd this large is assumed — the worst the H100 host showed for a
 * small case (4-20%, results/reference/quick-h100-run*.json) — as known, not
 * estimated: only a change far beyond it is established. */
#define GB_ASSUMED_PROCESS_SD 0.20
/* The least between-process sd the spread of one run a side may claim: the
 * estimate is a difference of two noisy variances and came out 0 on a loaded
 * machine (process_sd 0 in false alarms). Two processes of one binary on
 * one idle machine never agree better than this (the quietest case of the
 * H100 host's runs moved 1-2%), so no estimate may claim they do. */
#define GB_MIN_PROCESS_SD 0.005
/* The MAD's efficiency for normal data (relative to the standard deviation). */
#define GB_MAD_EFFICIENCY 0.37

/* One process's samples of one result (a view into a results file). */
typedef struct {
    const double *samples;   /* seconds, in the order taken */
    size_t n;
    const size_t *round_n;   /* samples per round; NULL or 0 rounds: one round */
    size_t rounds;
} gb_proc_view;

/* What one result's processes and rounds say, before the suite-wide priors. */
typedef struct {
    int ok;                  /* 0: no usable samples (reason set) */
    char reason[120];
    int kb, kc;              /* processes a side */
    double rb, rc;           /* mean rounds per process a side */
    double mean_b, mean_c;   /* mean of the process means (log seconds) */
    double vw;               /* sampling variance of one round median */
    double df_w;             /* its degrees of freedom (a MAD of few samples is itself noisy) */
    double sr2;              /* variance of round medians within a process (includes vw) */
    double df_r;             /* its degrees of freedom */
    double sp2;              /* variance of process means within a side */
    double df_p;             /* its degrees of freedom (0: one process a side) */
    double proc_spread_b;    /* baseline's slowest/fastest process median - 1 (NAN: one process) */
    double proc_spread_c;
    double round_spread;     /* largest slowest/fastest round median - 1 within any one process */
} gb_case_noise;

/* Summarise one result from kb baseline and kc current processes. */
void gb_noise_summarize(const gb_proc_view *base, int kb, const gb_proc_view *cur, int kc, gb_case_noise *out);

/* The typical between-round and between-process variances of a comparison's
 * cases: the priors every case's own estimate is shrunk toward. */
typedef struct {
    double round_var;        /* net between-round variance of a round median */
    double proc_var;         /* between-process variance; NAN when unknown */
    int proc_from_spread;    /* 1: from how the cases' changes spread (one process a side) */
    int proc_assumed;        /* 1: GB_ASSUMED_PROCESS_SD (one process a side, too few cases) */
    int proc_floored;        /* 1: the spread's estimate was under GB_MIN_PROCESS_SD, which it took */
    size_t cases;            /* cases it was estimated from */
    /* the degrees of freedom each prior counts for when shrinking one case's
     * own estimate: GB_NOISE_PRIOR_DF, less where the cases' own variances
     * spread far beyond what their degrees of freedom explain (0: the
     * default, for priors built by hand) */
    double round_df0, proc_df0;
} gb_noise_prior;
void gb_noise_priors(const gb_case_noise *c, size_t n, gb_noise_prior *pr);
/* compare's guards on priors learnt from one process a side: the spread's
 * estimate no lower than GB_MIN_PROCESS_SD, and GB_ASSUMED_PROCESS_SD where
 * too few cases left it unknown (both then as known, not estimated). The
 * fleet report keeps the priors as learnt. */
void gb_noise_priors_guard(gb_noise_prior *pr);
/* compare --confirm's second stage: every suspect's rounds and processes are
 * measured in the baseline's runs and N fresh ones (14 process and 32 round
 * degrees of freedom at 8 and 8), and on a host like the H100 VM they differ
 * from case to case far more than those degrees explain (rounds drift 5% in
 * one case, 50% in another). A fixed GB_NOISE_PRIOR_DF then pulls a quiet
 * case's variance up to the noisy suspects' typical one and hides its 10%
 * regression. This learns each prior's weight from that spread (limma's
 * estimate, at most GB_NOISE_PRIOR_DF: where the cases agree nothing
 * changes) and moves the prior's scale to match (round_df0, proc_df0,
 * round_var, proc_var). In stage 1 only where every case's baseline
 * measures itself (gb_noise_baselines_measure_themselves): with a short
 * baseline the cases' own variances are too rough, and the fixed weight's
 * extra degrees of freedom are what let a noisy case's x1.5 show. */
void gb_noise_priors_weigh(const gb_case_noise *c, size_t n, gb_noise_prior *pr);
/* Does every compared case have GB_LEARNT_WEIGHT_BASELINE_RUNS or more
 * baseline processes? Its own between-process variance then has at least
 * the fixed prior's GB_NOISE_PRIOR_DF degrees of freedom, and stage 1
 * learns the prior's weight as stage 2 does. Measured 2026-11-27: on the
 * eight same-build runs of an H200 VM (`history calibrate --inject 1.2`,
 * each run against the other seven) x1.2 flagged by stage 1 in 124 of 420
 * long-case judgements instead of 70, no run flagging a case either way;
 * simulated at 8 baseline runs with case noise 0.3-30%, a quiet case's x1.2
 * in 197 of 200 pairs instead of 0, same-build pairs failing stage 1 in 1
 * of 200 instead of 3 (docs/regression-statistics.md). */
#define GB_LEARNT_WEIGHT_BASELINE_RUNS ((int)GB_NOISE_PRIOR_DF + 1)
int gb_noise_baselines_measure_themselves(const gb_case_noise *c, size_t n);

/* The change of one result and its uncertainty: d (log ratio), its standard
 * error and degrees of freedom (INFINITY: normal); the between-round and
 * between-process variances used. Returns 0, or -1 when the process
 * variance is unknown (se is then NAN). */
typedef struct {
    double d, se, df;
    double round_var, proc_var;
    int proc_measured;       /* the case's own processes contributed (df_p > 0) */
    int proc_assumed;        /* the process variance is GB_ASSUMED_PROCESS_SD's, not measured */
} gb_change;
int gb_noise_change(const gb_case_noise *c, const gb_noise_prior *pr, gb_change *out);

/* One comparison's cases judged as a family (compare, the fleet report): each
 * case's change against the priors learnt from all of them (noise[i].ok == 0:
 * not compared; want[i] == 0: left out of the family, though its noise still
 * teaches the priors; want may be NULL), the p-value of "the change is beyond
 * half of threshold[i]" (one-sided, doubled), Holm over the cases tested, and
 * the (1 - alpha[i]) t interval of the change. */
typedef struct {
    int have;                /* 0: not estimated (no usable samples, or the process variance unknown) */
    gb_change ch;
    double p, p_holm;        /* NAN unless have */
    double change, lo, hi;   /* ratio - 1 and its interval; NAN unless have */
} gb_family_change;
/* Returns the size of the family (the cases with have == 1), or (size_t)-1
 * on out of memory. */
size_t gb_noise_family(const gb_case_noise *noise, const int *want, size_t n, const double *threshold,
                       const double *alpha, gb_family_change *out);
/* The same against given priors (compare --confirm's second stage: its
 * family, the suspects, is too small and too selected to learn them from). */
size_t gb_noise_family_with(const gb_case_noise *noise, const int *want, size_t n, const double *threshold,
                            const double *alpha, const gb_noise_prior *prior, gb_family_change *out);

/* compare --confirm's second stage reuses the baseline runs that chose the
 * suspects: a baseline that came out fast by chance makes a case both a
 * suspect (stage 1's change d1 large) and slow-looking again in stage 2
 * (d2 = the confirmation runs against the same baseline), so testing d2 as
 * if it were fresh flags unchanged cases. With Vb the variance of the
 * baseline's mean, Cov(d1, d2) = Vb; beta = Vb / Var(d1), and
 * d2 - beta * d1 is uncorrelated with d1, so selecting on d1 does not bias
 * it. It estimates (1 - beta) times the change; divided by that, the change
 * and its standard error, free of the selection. Variances from stage 2's
 * (better measured) components, applied to stage 1's current side of kc1
 * processes of rc1 rounds. p: of "the change is beyond half of threshold,
 * slower" (doubled, as gb_noise_family's). */
typedef struct {
    double beta;        /* the baseline's share of stage 1's variance */
    double d, se, df;   /* the selection-free change (log ratio), its standard error and df */
    double p;           /* one-sided (doubled) p of a slowdown beyond threshold / 2 */
} gb_confirm_test;
void gb_confirm_conditional(const gb_case_noise *n2, const gb_change *ch2, double d1, int kc1, double rc1,
                            double threshold, gb_confirm_test *out);

/* Student's t: distribution function and quantile (df may be INFINITY). */
double gb_t_cdf(double t, double df);
double gb_t_quantile(double p, double df);

/* Holm's step-down adjusted p-values: hypothesis i is rejected at
 * family-wise level alpha when adj[i] <= alpha (adj = max over the smaller
 * p-values of min(1, (m - rank) * p)). p[i] NAN is not tested: adj[i] NAN,
 * and not counted in the family of m. */
void gb_holm(const double *p, size_t n, double *adj);
#endif
