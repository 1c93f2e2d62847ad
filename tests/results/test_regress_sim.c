/* test_regress_sim.c — the regression check against a simulated machine.
 *
 * Synthetic results with the noise real runs have, in layers:
 *   samples   lognormal, each case its own spread (1-10%), plus 2% slow
 *             outliers (x1.2 to x3);
 *   rounds    every round of a process drifts by a lognormal factor;
 *   processes every process (results file) shifts every case by its own
 *             lognormal factor.
 * Sample counts follow the suites: suites/quick.json gives a round
 * min_time_s / 3 = 16.7 ms of samples (at most 333), suites/default.json
 * 167 ms (at least 2). The pairs go through the real gb_compare_runs, the
 * code `gpubench compare` runs; the seeds are fixed, so every rate below is
 * the same on every run of `make test` (deterministic, not flaky), and a
 * held-out check can change GB_SIM_SEED.
 *
 * Asserted (issue 15's targets; docs/regression-statistics.md has the table
 * this prints):
 *   same build, 100 cases, 2% round drift, 2% process shift: at most 1 pair
 *   in 100 flags anything (a regression or an improvement);
 *   +10% on a 100 us and on a 5 us case, quick-suite counts: >= 90%;
 *   x1.5 on a 5 us case: >= 95%;
 *   +20% on a 10 ms case, default-suite counts: >= 90%. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results_model.h"
#include "testlib.h"

#ifndef GB_SIM_SEED
#define GB_SIM_SEED 20261124u
#endif

/* ---- a small deterministic generator (xorshift64*, Box-Muller) ---------- */
typedef struct { unsigned long long s; } sim_rng;
static double uni(sim_rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return ((r->s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static double gauss(sim_rng *r) {
    double u = uni(r), v = uni(r);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* One simulated case: its true time, sample spread, samples per round. */
typedef struct {
    double t, spread;
    int per_round;
    double round_sd, proc_sd; /* this case's own drift and process shift (0: the sim_noise's) */
} sim_case;

typedef struct {
    double round_drift, proc_shift; /* lognormal sds */
    double outliers;                /* share of slow samples */
    int rounds;
    int plan_cases;                 /* the last this many cases pick one of two "plans" a process, */
    double plan_ratio;              /* this much apart (FFTW measure: 5.2 or 9.5 us) */
    int plan_recorded;              /* the results say which plan (extra.plan), as cpu_fft.c does */
    int plan_per;                   /* 0: a plan per process; 1: per round; 2: per sample */
    double heavy;                   /* share of samples whose noise is 5x wider (a heavy tail) */
} sim_noise;

/* samples a round gets: the suite's min_time_s / rounds of them, bounded by
 * its reps (min_reps 5 split over the rounds, max_reps 999 divided) */
static int per_round(double t, double min_time_s, int rounds) {
    int n = (int)ceil(min_time_s / rounds / t);
    if (n < 2) n = 2;
    if (n > 999 / rounds) n = 999 / rounds;
    return n;
}
#define QUICK_ROUND_S 0.05   /* suites/quick.json min_time_s */
#define DEFAULT_ROUND_S 0.5  /* suites/default.json min_time_s */

/* One process's results file for the cases; factor[i] scales case i. */
static void sim_run_only(gb_results *doc, const sim_case *cs, size_t n, const double *factor, const sim_noise *nz,
                         const int *only, sim_rng *rng) {
    gb_err e = {{0}};
    gb_results_init(doc, "sim", 0, &e);
    for (size_t i = 0; i < n; i++) {
        if (only && !only[i]) continue; /* a run of some cases only (run --case) */
        gb_case_result *c = gb_results_add_case(doc);
        free(c->op); free(c->dtype);
        c->op = strdup("matmul");
        c->dtype = strdup("float64");
        c->rank = 1;
        c->shape = malloc(sizeof *c->shape);
        c->shape[0] = (double)(i + 1);
        gb_result *r = gb_case_add_result(c);
        free(r->backend); free(r->timing);
        r->backend = strdup("cpu");
        r->timing = strdup("host");
        r->status = GB_RS_OK;
        r->nrounds = (size_t)nz->rounds;
        r->round_sizes = malloc(r->nrounds * sizeof *r->round_sizes);
        r->nsamples = (size_t)(cs[i].per_round * nz->rounds);
        r->samples = malloc(r->nsamples * sizeof *r->samples);
        r->has |= GB_R_HAS_ROUNDS | GB_R_HAS_SAMPLES;
        double proc = exp((cs[i].proc_sd > 0 ? cs[i].proc_sd : nz->proc_shift) * gauss(rng));
        int plan_case = (int)(n - i) <= nz->plan_cases;
        if (plan_case && nz->plan_per == 0) {
            /* the plan this process picked; recorded as the CPU backend does */
            int slow = uni(rng) < 0.5;
            if (slow) proc *= nz->plan_ratio;
            if (nz->plan_recorded) {
                    r->extra.item = calloc(1, sizeof *r->extra.item);
                r->extra.item[0].key = strdup("plan");
                r->extra.item[0].v.kind = GB_VAL_STRING;
                r->extra.item[0].v.text = strdup(slow ? "fftw:slow" : "fftw:fast");
                r->extra.n = 1;
                r->extra.present = 1;
            }
        }
        size_t at = 0;
        for (int k = 0; k < nz->rounds; k++) {
            double drift = exp((cs[i].round_sd > 0 ? cs[i].round_sd : nz->round_drift) * gauss(rng));
            r->round_sizes[k] = (size_t)cs[i].per_round;
            /* a plan per round (FFTW or cuBLAS heuristics re-run per visit) */
            if (plan_case && nz->plan_per == 1 && uni(rng) < 0.5) drift *= nz->plan_ratio;
            for (int j = 0; j < cs[i].per_round; j++) {
                double wide = nz->heavy > 0 && uni(rng) < nz->heavy ? 5 : 1;
                double x = cs[i].t * factor[i] * proc * drift * exp(wide * cs[i].spread * gauss(rng));
                if (plan_case && nz->plan_per == 2 && uni(rng) < 0.5) x *= nz->plan_ratio;
                if (uni(rng) < nz->outliers) x *= 1.2 + 1.8 * uni(rng);
                r->samples[at++] = x;
            }
        }
    }
}

static void sim_run(gb_results *doc, const sim_case *cs, size_t n, const double *factor, const sim_noise *nz,
                    sim_rng *rng) {
    sim_run_only(doc, cs, n, factor, nz, NULL, rng);
}

/* A suite of n cases: times log-uniform over 5 us - 10 ms, spreads 1-10%. */
static void sim_suite(sim_case *cs, size_t n, double min_time_s, int rounds, sim_rng *rng) {
    for (size_t i = 0; i < n; i++) {
        cs[i].t = 5e-6 * exp(log(10e-3 / 5e-6) * uni(rng));
        cs[i].spread = 0.01 + 0.09 * uni(rng);
        cs[i].per_round = per_round(cs[i].t, min_time_s, rounds);
        cs[i].round_sd = cs[i].proc_sd = 0;
    }
}

typedef struct {
    int flagged_pairs;  /* pairs where anything was flagged */
    int target_hits;    /* trials where the target case was a regression */
    int other_flags;    /* flags on cases other than the target */
} sim_tally;

/* trials of: kb baseline runs and one current run of the suite, case
 * `target` (or none: -1) scaled by `factor` in the current run */
static void sim_trials(int trials, size_t n, sim_case *cs, int target, double factor, const sim_noise *nz, int kb,
                       unsigned seed, sim_tally *out) {
    memset(out, 0, sizeof *out);
    sim_rng rng = {0x9E3779B97F4A7C15ull ^ ((unsigned long long)seed << 17 | seed)};
    double *one = malloc(n * sizeof *one), *scaled = malloc(n * sizeof *scaled);
    for (size_t i = 0; i < n; i++) one[i] = scaled[i] = 1;
    if (target >= 0) scaled[target] = factor;
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    for (int t = 0; t < trials; t++) {
        gb_results docs[9];
        const gb_results *bp[8];
        const char *names[8] = {"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"};
        for (int k = 0; k < kb; k++) { sim_run(&docs[k], cs, n, one, nz, &rng); bp[k] = &docs[k]; }
        sim_run(&docs[kb], cs, n, scaled, nz, &rng);
        const gb_results *cp = &docs[kb];
        const char *cn = "cur";
        cJSON *cmp = gb_compare_runs(bp, names, (size_t)kb, &cp, &cn, 1, &o);
        int any = 0;
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(cmp, "comparisons");
        int i = 0;
        for (const cJSON *it = list ? list->child : NULL; it; it = it->next, i++) {
            const char *v = cJSON_GetObjectItemCaseSensitive(it, "verdict")->valuestring;
            int flag = !strcmp(v, "regression") || !strcmp(v, "improvement");
            any |= flag;
            if (flag && getenv("GB_SIM_DEBUG")) { char *js = cJSON_PrintUnformatted(it); printf("%s\n", js); free(js); }
            if (i == target && !strcmp(v, "regression")) out->target_hits++;
            else if (flag) out->other_flags++;
            if (i == target && strcmp(v, "regression") && getenv("GB_SIM_MISS")) {
                char *js = cJSON_PrintUnformatted(it);
                printf("MISS %s\n", js);
                free(js);
            }
        }
        out->flagged_pairs += any;
        cJSON_Delete(cmp);
        for (int k = 0; k <= kb; k++) gb_results_free(&docs[k]);
    }
    free(one);
    free(scaled);
}

static const sim_noise drifty = {0.02, 0.02, 0.02, 3, 0, 1, 0, 0, 0}; /* the same-build model */
static const sim_noise quiet = {0, 0, 0.02, 3, 0, 1, 0, 0, 0};        /* samples and outliers only */
/* the same, with 3 cases whose process picks one of two plans 85% apart,
 * and the plan recorded in the results */
static const sim_noise plans = {0.02, 0.02, 0.02, 3, 3, 1.85, 1, 0, 0};

static int same_build(const sim_noise *nz, int kb, unsigned seed, const char *what) {
    enum { N = 100 };
    sim_case cs[N];
    sim_rng rng = {seed};
    sim_suite(cs, N, QUICK_ROUND_S, nz->rounds, &rng);
    sim_tally t;
    sim_trials(100, N, cs, -1, 1, nz, kb, seed, &t);
    printf("  sim: same build, %d cases, %s, %d baseline run%s: %d of 100 pairs flag anything\n", N, what, kb,
           kb == 1 ? "" : "s", t.flagged_pairs);
    return t.flagged_pairs;
}

TEST(sim_same_build_100_cases_flags_at_most_1_pair_in_100) {
    CHECK(same_build(&drifty, 1, GB_SIM_SEED + 1, "2% round drift, 2% process shift") <= 1);
    CHECK(same_build(&quiet, 1, GB_SIM_SEED + 2, "no drift") <= 1);
    CHECK(same_build(&drifty, 3, GB_SIM_SEED + 3, "2% round drift, 2% process shift") <= 1);
    CHECK(same_build(&plans, 1, GB_SIM_SEED + 4, "2% drift and shift, 3 recorded plan cases 85% apart") <= 1);
}

/* One case of the given time and spread planted in a 100-case suite,
 * slowed by factor in the current run; how often it is flagged. */
static int detect(double t, double spread, double round_s, double factor, const sim_noise *nz, int kb,
                  unsigned seed, const char *what) {
    enum { N = 100 };
    sim_case cs[N];
    sim_rng rng = {seed};
    sim_suite(cs, N, QUICK_ROUND_S, nz->rounds, &rng);
    cs[0] = (sim_case){t, spread, per_round(t, round_s, nz->rounds), 0, 0};
    sim_tally tl;
    sim_trials(100, N, cs, 0, factor, nz, kb, seed, &tl);
    printf("  sim: %s, %d samples a round, %d rounds, drift %g%%, process shift %g%%, %d baseline run%s: "
           "flagged in %d of 100 (other cases flagged: %d)\n", what, cs[0].per_round, nz->rounds,
           100 * nz->round_drift, 100 * nz->proc_shift, kb, kb == 1 ? "" : "s", tl.target_hits, tl.other_flags);
    return tl.target_hits;
}

TEST(sim_detects_slowdowns_at_the_targets) {
    CHECK(detect(100e-6, 0.05, QUICK_ROUND_S, 1.10, &quiet, 1, GB_SIM_SEED + 11, "+10% on 100 us, quick") >= 90);
    CHECK(detect(5e-6, 0.05, QUICK_ROUND_S, 1.10, &quiet, 1, GB_SIM_SEED + 12, "+10% on 5 us, quick") >= 90);
    CHECK(detect(5e-6, 0.10, QUICK_ROUND_S, 1.50, &quiet, 1, GB_SIM_SEED + 13, "x1.5 on 5 us, quick") >= 95);
    CHECK(detect(10e-3, 0.05, DEFAULT_ROUND_S, 1.20, &quiet, 1, GB_SIM_SEED + 14, "+20% on 10 ms, default") >= 90);
}

/* The table of docs/regression-statistics.md under drift and process
 * shifts, with more rounds and baseline runs: what detection costs there.
 * Printed only with GB_SIM_TABLE=1 (about a minute). */
TEST(sim_table_under_drift) {
    if (!getenv("GB_SIM_TABLE")) {
        SKIP("set GB_SIM_TABLE=1 for the table under drift");
        return;
    }
    /* 3 cases whose process picks one of two plans 85% apart: recorded
     * (extra.plan) and not */
    sim_noise unrecorded = plans;
    unrecorded.plan_recorded = 0;
    for (int kb = 1; kb <= 5; kb += 2) {
        same_build(&plans, kb, GB_SIM_SEED + 30, "3 recorded plan cases 85% apart");
        same_build(&unrecorded, kb, GB_SIM_SEED + 30, "3 unrecorded plan cases 85% apart");
    }
    sim_noise nz[3] = {{0.02, 0, 0.02, 3, 0, 1, 0, 0, 0}, {0.02, 0, 0.02, 9, 0, 1, 0, 0, 0}, {0.02, 0.02, 0.02, 3, 0, 1, 0, 0, 0}};
    for (int k = 0; k < 3; k++)
        for (int kb = 1; kb <= 5; kb += 4) {
            detect(100e-6, 0.05, QUICK_ROUND_S, 1.10, &nz[k], kb, GB_SIM_SEED + 21, "+10% on 100 us, quick");
            detect(5e-6, 0.05, QUICK_ROUND_S, 1.10, &nz[k], kb, GB_SIM_SEED + 22, "+10% on 5 us, quick");
            detect(5e-6, 0.10, QUICK_ROUND_S, 1.50, &nz[k], kb, GB_SIM_SEED + 23, "x1.5 on 5 us, quick");
            detect(10e-3, 0.05, DEFAULT_ROUND_S, 1.20, &nz[k], kb, GB_SIM_SEED + 24, "+20% on 10 ms, default");
        }
}

/* ---- compare --confirm at the H100 host's noise -------------------------
 *
 * That VM (results/reference/quick-h100-run*.json): rounds drift 5-25%
 * (round sd, as compare measures it), and the small cases move between
 * processes by 4-20% sd (4-5 runs spread 10-55%); the 3.7 us CPU GEMM (64^3,
 * float32) 12.5% between processes and 12.6% between rounds. Here every case
 * has its own round sd (5-25%) and process sd (4-20% under 50 us, 2-5%
 * above); one current run and kb baseline runs are judged (stage 1), the
 * suspects are re-measured in N fresh simulated processes (runs of those
 * cases only, as `run --case` makes) and judged again (stage 2), by the real
 * gb_compare_runs both times. */
static void host_suite(sim_case *cs, size_t n, sim_rng *rng) {
    sim_suite(cs, n, QUICK_ROUND_S, 3, rng);
    for (size_t i = 0; i < n; i++) {
        cs[i].round_sd = 0.05 + 0.20 * uni(rng);
        cs[i].proc_sd = cs[i].t < 50e-6 ? 0.04 + 0.16 * uni(rng) : 0.02 + 0.03 * uni(rng);
        /* rounds drift 5-25%: 40 samples make a round's median as good as
         * 333 would for this, and keep the simulation to seconds */
        if (cs[i].per_round > 40) cs[i].per_round = 40;
    }
}

typedef struct {
    int flagged_pairs;   /* pairs failing (a regression) after the confirmation */
    int improvements;    /* pairs with a (false) improvement: stage 1's, --confirm does not re-measure those */
    int stage1_pairs;    /* pairs stage 1 alone would have failed */
    int target_hits;     /* the target a confirmed regression */
    int suspects;        /* suspects re-measured, over all trials */
    int big, big_same;   /* cases of 100 us or more, and of those "same" in the end (issue 29's target) */
} confirm_tally;

/* trials of kb baseline runs and one current run (target scaled by factor,
 * and anomaly, when >= 0, scaled x50 in that one current process only: the
 * dposv 64^2 case of the H100 host, 3-20 ms in one process, 74 us in the
 * others), then --confirm with nconf fresh processes */
static const sim_noise host_noise = {0, 0, 0.02, 3, 0, 1, 0, 0, 0};
static const sim_noise *confirm_noise = &host_noise; /* the noise confirm_trials simulates */

static void confirm_trials(int trials, size_t n, const sim_case *cs, int target, double factor, int anomaly, int kb,
                           int nconf, unsigned seed, confirm_tally *out) {
    memset(out, 0, sizeof *out);
    sim_rng rng = {0x9E3779B97F4A7C15ull ^ ((unsigned long long)seed << 17 | seed)};
    const sim_noise nz = *confirm_noise;
    double *one = malloc(n * sizeof *one), *scaled = malloc(n * sizeof *scaled), *cur = malloc(n * sizeof *cur);
    int *sus = calloc(n, sizeof *sus);
    for (size_t i = 0; i < n; i++) one[i] = scaled[i] = 1;
    if (target >= 0) scaled[target] = factor;
    for (size_t i = 0; i < n; i++) cur[i] = scaled[i] * ((int)i == anomaly ? 50 : 1);
    const char *names[32] = {"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "c0", "c1", "c2", "c3", "c4", "c5",
                             "c6", "c7", "c8", "c9", "c10", "c11", "c12", "c13", "c14", "c15"};
    for (int t = 0; t < trials; t++) {
        gb_results docs[8], conf[16];
        const gb_results *bp[8], *cp[16];
        for (int k = 0; k < kb; k++) { sim_run(&docs[k], cs, n, one, &nz, &rng); bp[k] = &docs[k]; }
        gb_results curdoc;
        sim_run(&curdoc, cs, n, cur, &nz, &rng);
        const gb_results *cd = &curdoc;
        const char *cn = "cur";
        gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1, .confirm_runs = nconf};
        cJSON *one_stage = gb_compare_runs(bp, names, (size_t)kb, &cd, &cn, 1, &o);
        int i = 0, any_sus = 0;
        for (const cJSON *it = cJSON_GetObjectItemCaseSensitive(one_stage, "comparisons")->child; it; it = it->next, i++) {
            sus[i] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "suspect"));
            any_sus |= sus[i];
            out->suspects += sus[i];
        }
        out->stage1_pairs += cJSON_GetObjectItemCaseSensitive(one_stage, "exit_code")->valueint != 0;
        cJSON *two = one_stage;
        if (any_sus) {
            for (int k = 0; k < nconf; k++) { sim_run_only(&conf[k], cs, n, scaled, &nz, sus, &rng); cp[k] = &conf[k]; }
            o.confirm = cp;
            o.confirm_names = names + 8;
            o.nconfirm = (size_t)nconf;
            two = gb_compare_runs(bp, names, (size_t)kb, &cd, &cn, 1, &o);
            for (int k = 0; k < nconf; k++) gb_results_free(&conf[k]);
        }
        int any = 0, better = 0;
        i = 0;
        for (const cJSON *it = cJSON_GetObjectItemCaseSensitive(two, "comparisons")->child; it; it = it->next, i++) {
            const char *v = cJSON_GetObjectItemCaseSensitive(it, "verdict")->valuestring;
            int flag = !strcmp(v, "regression") && i != target;
            any |= flag;
            better |= !strcmp(v, "improvement");
            if (i == target && !strcmp(v, "regression")) out->target_hits++;
            if (cs[i].t >= 100e-6 && i != target) out->big++, out->big_same += !strcmp(v, "same");
            if (i == target && strcmp(v, "regression") && getenv("GB_SIM_MISS"))
                printf("MISS %s: %s\n", v, cJSON_GetObjectItemCaseSensitive(it, "reason")->valuestring);
            if (flag && getenv("GB_SIM_DEBUG"))
                printf("DBG case %d t=%g round_sd=%g proc_sd=%g verdict %s: %s\n", i, cs[i].t, cs[i].round_sd,
                       cs[i].proc_sd, v, cJSON_GetObjectItemCaseSensitive(it, "reason")->valuestring);
        }
        out->flagged_pairs += any;
        out->improvements += better;
        if (two != one_stage) cJSON_Delete(two);
        cJSON_Delete(one_stage);
        for (int k = 0; k < kb; k++) gb_results_free(&docs[k]);
        gb_results_free(&curdoc);
    }
    free(one), free(scaled), free(cur), free(sus);
}

/* x1.5 on a 5 us case with the 3.7 us GEMM's noise (process 12.5%, rounds
 * 12.6%), planted in a host-like suite: how often --confirm keeps it. */
static int confirm_detect(double proc_sd, double factor, int kb, int nconf, unsigned seed) {
    enum { N = 100 };
    sim_case cs[N];
    sim_rng rng = {seed};
    host_suite(cs, N, &rng);
    cs[0] = (sim_case){5e-6, 0.05, per_round(5e-6, QUICK_ROUND_S, 3), 0.126, proc_sd};
    confirm_tally t;
    confirm_trials(100, N, cs, 0, factor, -1, kb, nconf, seed, &t);
    printf("  sim --confirm: x%.2g on 5 us (process sd %.3g%%, rounds 12.6%%), host-like suite, %d baseline runs, "
           "N = %d: confirmed in %d of 100, other cases failed %d pairs (stage 1 alone failed %d pairs; %.1f "
           "suspects a pair)\n", factor, 100 * proc_sd, kb, nconf, t.target_hits, t.flagged_pairs, t.stage1_pairs,
           t.suspects / 100.0);
    return t.target_hits;
}

static int confirm_same_build(int kb, int nconf, int anomaly, unsigned seed) {
    enum { N = 100 };
    sim_case cs[N];
    sim_rng rng = {seed};
    host_suite(cs, N, &rng);
    confirm_tally t;
    confirm_trials(100, N, cs, -1, 1, anomaly ? 1 : -1, kb, nconf, seed, &t);
    printf("  sim --confirm: same build%s, host-like suite, %d baseline runs, N = %d: %d of 100 pairs fail "
           "(stage 1 alone: %d; %.1f suspects a pair re-measured; pairs with a false improvement: %d)\n",
           anomaly ? ", one case x50 in the current process" : "", kb, nconf, t.flagged_pairs, t.stage1_pairs,
           t.suspects / 100.0, t.improvements);
    return t.flagged_pairs;
}

/* A suite as uneven as the H200 VMs' (issue #29: each case's rounds drift
 * 0.5-30% and its processes move 0.3-30%, log-uniform), with a history's
 * eight baseline runs and stage 1 alone (history check without --confirm):
 * a quiet case (processes 1%, rounds 2%) made x1.2 slower is flagged in at
 * least 90 of 100 pairs, and same-build pairs fail in at most 2 of 100.
 * With the prior's fixed weight the quiet case's variance was pulled up to
 * the suite's typical and it was flagged in 0 of 200 (2026-11-27); with
 * eight runs each case's own variance has the degrees of freedom to be
 * believed, and stage 1 learns the weight (compare_stats.h). */
static void uneven_suite(sim_case *cs, size_t n, sim_rng *rng) {
    sim_suite(cs, n, QUICK_ROUND_S, 3, rng);
    for (size_t i = 0; i < n; i++) {
        cs[i].round_sd = 0.005 * exp(log(60.0) * uni(rng));
        cs[i].proc_sd = 0.003 * exp(log(100.0) * uni(rng));
        if (cs[i].per_round > 40) cs[i].per_round = 40;
    }
}

TEST(sim_stage1_with_eight_baseline_runs_finds_a_quiet_case_among_noisy_ones) {
    enum { N = 100 };
    sim_case cs[N];
    sim_rng rng = {GB_SIM_SEED + 81};
    uneven_suite(cs, N, &rng);
    confirm_tally t;
    confirm_trials(100, N, cs, -1, 1, -1, 8, 0, GB_SIM_SEED + 82, &t);
    printf("  sim stage 1: same build, uneven suite, 8 baseline runs: %d of 100 pairs fail\n", t.stage1_pairs);
    CHECK(t.stage1_pairs <= 2);
    cs[0] = (sim_case){150e-6, 0.03, per_round(150e-6, QUICK_ROUND_S, 3), 0.02, 0.01};
    confirm_trials(100, N, cs, 0, 1.2, -1, 8, 0, GB_SIM_SEED + 83, &t);
    printf("  sim stage 1: x1.2 on a quiet 150 us case, uneven suite, 8 baseline runs: flagged in %d of 100, "
           "other cases failed %d pairs\n", t.target_hits, t.flagged_pairs);
    CHECK(t.target_hits >= 90);
    CHECK(t.flagged_pairs <= 2);
}

/* Asserted at the default N (8: 3 does not reach these, the table in
 * docs/regression-statistics.md has each N): same-build pairs, with and
 * without a one-process anomaly, fail at most 1 in 100; x1.5 on a 5 us case
 * moving 4% between processes and x2 on one moving 12.5% are confirmed in
 * 95 of 100. x1.5 at 12.5% is in the table only: no N reaches 95 with a
 * 4-run baseline (its own 4 processes leave the change a 6% sd). */
TEST(sim_confirm_at_real_host_noise) {
    CHECK(confirm_same_build(4, GB_CONFIRM_DEFAULT_RUNS, 0, GB_SIM_SEED + 41) <= 1);
    CHECK(confirm_same_build(4, GB_CONFIRM_DEFAULT_RUNS, 1, GB_SIM_SEED + 42) <= 1);
    CHECK(confirm_detect(0.04, 1.5, 4, GB_CONFIRM_DEFAULT_RUNS, GB_SIM_SEED + 43) >= 95);
    CHECK(confirm_detect(0.125, 2.0, 4, GB_CONFIRM_DEFAULT_RUNS, GB_SIM_SEED + 44) >= 95);
}

/* What N and the baseline buy at that noise (GB_SIM_TABLE=1). */
TEST(sim_confirm_table) {
    if (!getenv("GB_SIM_TABLE")) {
        SKIP("set GB_SIM_TABLE=1 for the --confirm table");
        return;
    }
    static const int ns[] = {1, 3, 5, 8, 16};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        confirm_same_build(4, ns[k], 0, GB_SIM_SEED + 51);
        confirm_same_build(4, ns[k], 1, GB_SIM_SEED + 52);
        confirm_detect(0.125, 1.5, 4, ns[k], GB_SIM_SEED + 53);
        confirm_detect(0.125, 2.0, 4, ns[k], GB_SIM_SEED + 54);
        confirm_detect(0.04, 1.5, 4, ns[k], GB_SIM_SEED + 55);
        confirm_detect(0.125, 1.5, 8, ns[k], GB_SIM_SEED + 56);
        confirm_detect(0.125, 2.0, 1, ns[k], GB_SIM_SEED + 57);
    }
}

/* ---- issue 30: power with an N-run baseline (a history) and --confirm ----
 *
 * The baseline is N runs (what `history check` builds from the last N runs
 * of the machine: N baseline documents, gb_compare_runs), the current one
 * run, the suspects re-measured in compare --ci's 16 fresh processes
 * (GB_SIM_KB and GB_SIM_NCONF change the two; GB_SIM_ROUNDS the rounds of
 * every process). Noise models:
 *   issue     the issue's: samples 1-10% lognormal with 2% slow outliers and
 *             5% of samples 5x wider (a heavy tail), 2% round drift, 2%
 *             process shift;
 *   h100      every case's round and process sd drawn from what compare
 *             measured on the committed same-build H100 quick runs (run1,
 *             run2 against run4, run5), by the case's time (under or over
 *             50 us), the same heavy tail;
 *   plans     h100, and 30% of cases switching between two plans 15% apart
 *             each round (and, a second row, each sample), not recorded.
 * Printed with GB_SIM_TABLE=1 (docs/ci.md has the table; minutes: 500 A/A
 * pairs a model, GB_SIM_PAIRS changes it, a fifth of it a slowdown row).
 * The A/A rows also count issue 29's target: the share of the cases of
 * 100 us or more that end "same". */
#define POWER_CASES 100
static double h100_round[2][256], h100_proc[2][256];
static size_t h100_n[2];

static void h100_noise_load(void) {
    if (h100_n[0] || h100_n[1]) return;
    static const char *const f[4] = {"results/reference/quick-h100-run1.json", "results/reference/quick-h100-run2.json",
                                      "results/reference/quick-h100-run4.json", "results/reference/quick-h100-run5.json"};
    gb_results d[4];
    gb_err e = {{0}};
    for (int i = 0; i < 4; i++)
        if (gb_results_load(f[i], &d[i], &e) != GB_OK) return;
    const gb_results *bp[2] = {&d[0], &d[1]}, *cp[2] = {&d[2], &d[3]};
    const char *names[4] = {"run1", "run2", "run4", "run5"};
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 0};
    gb_compare_result *r = gb_compare_judge_runs(bp, names, 2, cp, names + 2, 2, &o);
    for (size_t i = 0; r && i < r->nitems; i++) {
        const gb_cmp_item *it = &r->items[i];
        if (!it->has_noise) continue;
        int big = it->baseline.median_s >= 50e-6;
        if (h100_n[big] >= 256) continue;
        h100_round[big][h100_n[big]] = it->round_sd;
        h100_proc[big][h100_n[big]++] = it->process_sd;
    }
    gb_compare_result_free(r);
    for (int i = 0; i < 4; i++) gb_results_free(&d[i]);
}

/* A suite whose cases carry the H100 runs' round and process sd. */
static void h100_suite(sim_case *cs, size_t n, double round_s, sim_rng *rng) {
    h100_noise_load();
    sim_suite(cs, n, round_s, 3, rng);
    for (size_t i = 0; i < n; i++) {
        int big = cs[i].t >= 50e-6;
        size_t k = h100_n[big] ? (size_t)(uni(rng) * (double)h100_n[big]) : 0;
        cs[i].round_sd = h100_n[big] ? fmax(1e-4, h100_round[big][k]) : 0.05;
        cs[i].proc_sd = h100_n[big] ? fmax(1e-4, h100_proc[big][k]) : 0.05;
        if (cs[i].per_round > 40) cs[i].per_round = 40;
    }
}

typedef struct {
    const char *name;
    sim_noise nz;
    int h100;   /* cases' sds drawn from the H100 runs */
} power_model;

static const power_model power_models[] = {
    {"issue", {0.02, 0.02, 0.02, 3, 0, 1, 0, 0, 0.05}, 0},
    {"h100", {0, 0, 0.02, 3, 0, 1, 0, 0, 0.05}, 1},
    {"h100+plans/round", {0, 0, 0.02, 3, 30, 1.15, 0, 1, 0.05}, 1},
    {"h100+plans/sample", {0, 0, 0.02, 3, 30, 1.15, 0, 2, 0.05}, 1},
};

/* The 95% Wilson interval of k in n, in percent. */
static void wilson(int k, int n, double *lo, double *hi) {
    double z = 1.96, p = (double)k / n, den = 1 + z * z / n, mid = (p + z * z / (2.0 * n)) / den;
    double half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / den;
    *lo = 100 * fmax(0, mid - half);
    *hi = 100 * fmin(1, mid + half);
}

/* confirming processes of the power table (GB_SIM_NCONF; default compare
 * --ci's) */
static int power_nconf = GB_CI_CONFIRM_RUNS;

/* One row: trials pairs of kb baseline runs and one current run (target
 * case 0 of time t scaled by factor; factor 1: an A/A pair), --confirm 8. */
static int power_row(const power_model *pm, int kb, int trials, double t, double factor, double round_s,
                     unsigned seed) {
    sim_case cs[POWER_CASES];
    sim_rng rng = {seed};
    if (pm->h100) h100_suite(cs, POWER_CASES, QUICK_ROUND_S, &rng);
    else sim_suite(cs, POWER_CASES, QUICK_ROUND_S, pm->nz.rounds, &rng);
    /* GB_SIM_ROUNDS: every process measures this many rounds (run
     * --rounds: the suite's min_time_s split over them) */
    sim_noise nz = pm->nz;
    if (getenv("GB_SIM_ROUNDS") && atoi(getenv("GB_SIM_ROUNDS")) > 0) {
        nz.rounds = atoi(getenv("GB_SIM_ROUNDS"));
        for (size_t i = 0; i < POWER_CASES; i++) {
            cs[i].per_round = per_round(cs[i].t, QUICK_ROUND_S, nz.rounds);
            if (pm->h100 && cs[i].per_round > 40) cs[i].per_round = 40;
        }
    }
    int target = factor != 1 ? 0 : -1;
    /* the target case has the noise in every model: 2% drift and shift */
    if (target == 0) cs[0] = (sim_case){t, 0.03, per_round(t, round_s, nz.rounds), 0.02, 0.02};
    if (target == 0 && round_s == 0) cs[0].per_round = 2; /* the row: 2 samples a round */
    confirm_noise = &nz;
    confirm_tally tl;
    confirm_trials(trials, POWER_CASES, cs, target, factor, -1, kb, power_nconf, seed, &tl);
    confirm_noise = &host_noise;
    double lo, hi;
    if (target < 0) {
        wilson(tl.flagged_pairs, trials, &lo, &hi);
        printf("  sim power: %-18s A/A, %d baseline runs + --confirm %d: %d of %d pairs fail (%.1f%% [%.1f, %.1f]); "
               "stage 1 alone %d; %.1f suspects a pair; cases of 100 us or more 'same': %.0f%%\n", pm->name, kb,
               power_nconf, tl.flagged_pairs, trials, 100.0 * tl.flagged_pairs / trials, lo, hi, tl.stage1_pairs,
               tl.suspects / (double)trials, tl.big ? 100.0 * tl.big_same / tl.big : 0);
    } else {
        wilson(tl.target_hits, trials, &lo, &hi);
        printf("  sim power: %-18s x%.2f at %.3g us (%d samples a round), %d baseline runs + --confirm %d: "
               "detected %d of %d (%.1f%% [%.1f, %.1f]); other cases failed %d pairs\n", pm->name, factor, t * 1e6,
               cs[0].per_round, kb, power_nconf, tl.target_hits, trials, 100.0 * tl.target_hits / trials,
               lo, hi, tl.flagged_pairs);
    }
    return target < 0 ? tl.flagged_pairs : tl.target_hits;
}

/* In every `make test`, a guard on what the table measures (docs/ci.md):
 * compare --ci's recipe (8 baseline runs, 16 confirming processes) catches
 * +10% of a quiet case at 100 us and at 5 us in a suite whose noise is
 * drawn from the H100 runs. 30 pairs a row (seconds), so the bound is loose
 * (25: the table's 93-97 in 100 land 27-30 here; 8 processes with the
 * second stage's old fixed prior, 50-55 in 100, would land about 16). */
TEST(sim_ci_recipe_catches_10_percent_at_h100_noise) {
    const power_model *h100 = &power_models[1];
    CHECK(power_row(h100, GB_CI_BASELINE_RUNS, 30, 100e-6, 1.10, QUICK_ROUND_S, GB_SIM_SEED + 111) >= 25);
    CHECK(power_row(h100, GB_CI_BASELINE_RUNS, 30, 5e-6, 1.10, QUICK_ROUND_S, GB_SIM_SEED + 112) >= 25);
}

TEST(sim_power_table_history_baseline_and_confirm) {
    if (!getenv("GB_SIM_TABLE")) {
        SKIP("set GB_SIM_TABLE=1 for the power table (minutes)");
        return;
    }
    int kb = getenv("GB_SIM_KB") ? atoi(getenv("GB_SIM_KB")) : GB_CI_BASELINE_RUNS;
    int pairs = getenv("GB_SIM_PAIRS") ? atoi(getenv("GB_SIM_PAIRS")) : 500;
    if (kb < 1 || kb > 8) kb = 8;
    power_nconf = getenv("GB_SIM_NCONF") ? atoi(getenv("GB_SIM_NCONF")) : GB_CI_CONFIRM_RUNS;
    if (power_nconf < 1 || power_nconf > 16) power_nconf = GB_CI_CONFIRM_RUNS;
    /* GB_SIM_ROWS: a comma list of aa, 100us, 5us, x1.5, 10ms (default all);
     * GB_SIM_MODELS: how many of the models, in order (default all) */
    const char *rows = getenv("GB_SIM_ROWS") ? getenv("GB_SIM_ROWS") : "aa,100us,5us,x1.5,10ms";
    size_t nm = sizeof power_models / sizeof *power_models;
    if (getenv("GB_SIM_MODELS") && atoi(getenv("GB_SIM_MODELS")) > 0 && (size_t)atoi(getenv("GB_SIM_MODELS")) < nm)
        nm = (size_t)atoi(getenv("GB_SIM_MODELS"));
    for (size_t m = 0; m < nm; m++) {
        const power_model *pm = &power_models[m];
        if (strstr(rows, "aa")) power_row(pm, kb, pairs, 0, 1, QUICK_ROUND_S, GB_SIM_SEED + 60 + (unsigned)m);
        if (strstr(rows, "100us"))
            power_row(pm, kb, pairs / 5, 100e-6, 1.10, QUICK_ROUND_S, GB_SIM_SEED + 70 + (unsigned)m);
        if (strstr(rows, "5us")) power_row(pm, kb, pairs / 5, 5e-6, 1.10, QUICK_ROUND_S, GB_SIM_SEED + 80 + (unsigned)m);
        if (strstr(rows, "x1.5")) power_row(pm, kb, pairs / 5, 5e-6, 1.50, QUICK_ROUND_S, GB_SIM_SEED + 90 + (unsigned)m);
        /* +20% at 10 ms with 2 samples a round (round_s 0: the count forced) */
        if (strstr(rows, "10ms")) power_row(pm, kb, pairs / 5, 10e-3, 1.20, 0, GB_SIM_SEED + 100 + (unsigned)m);
    }
}
