/* test_compare_shift_spread.c — the machine-wide shift judged against how
 * much a run's level moves on its own (compare_shift.c): baselines of one
 * real results file whose every result is scaled by a per-run level (as the
 * H200's CPU side moved 0.78-1.12 from process to process) and a per-case
 * jitter, through the real gb_compare_judge_runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results_model.h"
#include "testlib.h"

#define H1 "results/reference/quick-h100-run1.json"
#define NB 7

/* A deterministic jitter in [-1, 1] of (run, case, result). */
static double jitter(unsigned run, size_t c, size_t r) {
    unsigned long long x = (run + 1) * 0x9E3779B97F4A7C15ull ^ (c + 1) * 0xC2B2AE3D27D4EB4Full ^ (r + 7) * 0x165667B1ull;
    x ^= x >> 29, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 32;
    return (double)(x % 2001) / 1000.0 - 1.0;
}

/* Every result of doc (of the backend, or all when NULL) times level, each
 * case also by its own few percent. */
static void level(gb_results *doc, double f, unsigned run) {
    for (size_t c = 0; c < doc->ncases; c++)
        for (size_t r = 0; r < doc->cases[c].nresults; r++) {
            gb_result *x = &doc->cases[c].results[r];
            double g = f * exp(0.03 * jitter(run, c, r));
            for (size_t i = 0; i < x->nsamples; i++) x->samples[i] *= g;
            x->stats.median *= g;
        }
}

static gb_compare_result *judge_level(gb_results *base, double cur_level, gb_results *cur) {
    static const double lv[NB] = {1.00, 1.12, 0.88, 1.08, 0.92, 1.15, 0.95};
    const gb_results *bp[NB];
    const char *bn[NB] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7"}, *cn = "cur";
    gb_err e = {{0}};
    for (unsigned i = 0; i < NB; i++) {
        if (gb_results_load(H1, &base[i], &e) != GB_OK) return NULL;
        level(&base[i], lv[i], i);
        bp[i] = &base[i];
    }
    if (gb_results_load(H1, cur, &e) != GB_OK) return NULL;
    level(cur, cur_level, 99);
    const gb_results *cp = cur;
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    return gb_compare_judge_runs(bp, bn, NB, &cp, &cn, 1, &o);
}

static void free_all(gb_results *base, gb_results *cur, gb_compare_result *res) {
    gb_compare_result_free(res);
    for (int i = 0; i < NB; i++) gb_results_free(&base[i]);
    gb_results_free(cur);
}

/* A same-build run whose whole level is 20% slower, within how much the
 * seven baseline runs' levels move among themselves (log sd ~10%): shown
 * with the spread and "none differ", never failed, the cases judged raw. */
TEST(compare_shift_within_the_baseline_runs_own_spread_is_shown_never_failed) {
    gb_results base[NB], cur;
    gb_compare_result *res = judge_level(base, 1.2, &cur);
    if (!CHECK(res != NULL)) return;
    int within = 0;
    for (size_t i = 0; i < res->nshifts; i++) {
        const gb_cmp_shift *sh = &res->shifts[i];
        CHECK(sh->spread_runs == NB && sh->spread_sd > 0.05 && sh->spread_sd < 0.2);
        CHECK(sh->lo <= 1 && sh->hi >= 1 && sh->ratio > 1.1);
        CHECK(!sh->applied && strstr(sh->differs, "none of build, libraries, ceilings differ"));
        within += sh->status == GB_SHIFT_WITHIN_SPREAD;
    }
    CHECK(res->nshifts >= 1 && within == (int)res->nshifts);
    CHECK(res->summary.shift_regressions == 0);
    for (size_t i = 0; i < res->nitems; i++)
        if (isfinite(res->items[i].change)) CHECK(res->items[i].change == res->items[i].raw_change);
    free_all(base, &cur, res);
}

/* Every case 2.5 times slower (a -O0 build) is far beyond that spread: an
 * unexplained shift, a regression, exit 1. */
TEST(compare_shift_beyond_the_baseline_runs_spread_fails) {
    gb_results base[NB], cur;
    gb_compare_result *res = judge_level(base, 2.5, &cur);
    if (!CHECK(res != NULL)) return;
    int unexplained = 0;
    for (size_t i = 0; i < res->nshifts; i++) {
        CHECK(res->shifts[i].lo > 1 && res->shifts[i].spread_runs == NB);
        unexplained += res->shifts[i].status == GB_SHIFT_UNEXPLAINED && res->shifts[i].applied;
    }
    CHECK(unexplained >= 1 && res->summary.shift_regressions >= 1 && res->exit_code == 1);
    free_all(base, &cur, res);
}

/* A shift of too few cases whose interval excludes 1 is not "none
 * established": its own line says too few cases. */
TEST(compare_shift_interval_and_its_word_never_contradict) {
    gb_cmp_shift sh = {.backend = "cpu", .cases = 3, .ratio = 4.188, .lo = 1.199, .hi = 76.3, .status = GB_SHIFT_NONE,
                       .ceiling_ratio = NAN};
    snprintf(sh.differs, sizeof sh.differs, "none of build, libraries, ceilings differ");
    char t[800];
    gb_cmp_shift_text(&sh, 0.05, t, sizeof t);
    CHECK(strstr(t, "too few cases to establish a common shift") != NULL);
    CHECK(strstr(t, "no common shift established") == NULL);
}
