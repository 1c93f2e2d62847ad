/* test_compare_verdicts.c — issue 30's defects, each reproduced: compare on
 * real results files (the committed fixtures and H100 runs), changed in
 * memory the way the defect needs, through the real gb_compare_judge_runs. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_stats.h"
#include "results_model.h"
#include "testlib.h"
#include "writer.h"

#define D "tests/data/compare/"
#define H1 "results/reference/quick-h100-run1.json"

static int load(const char *path, gb_results *doc) {
    gb_err e = {{0}};
    return gb_results_load(path, doc, &e) == GB_OK ? 0 : -1;
}

static void scale_all(gb_results *doc, double f, size_t only_case) {
    for (size_t c = 0; c < doc->ncases; c++)
        for (size_t r = 0; r < doc->cases[c].nresults; r++) {
            if (only_case != (size_t)-1 && c != only_case) continue;
            gb_result *x = &doc->cases[c].results[r];
            for (size_t i = 0; i < x->nsamples; i++) x->samples[i] *= f;
        }
}

static gb_compare_result *judge(const gb_results *const *b, size_t nb, const gb_results *c, const gb_compare_options *o) {
    const char *bn[8] = {"b0.json", "b1.json", "b2.json", "b3.json", "b4.json", "b5.json", "b6.json", "b7.json"};
    const char *cn = "cur.json";
    return gb_compare_judge_runs(b, bn, nb, &c, &cn, 1, o);
}

/* 1: every current result skipped said "0 compared ... Result: pass" */
TEST(compare_defect1_all_current_skipped_is_exit_2_and_skips_are_not_present) {
    gb_results base, cur;
    if (!CHECK(load(D "base.json", &base) == 0 && load(D "base.json", &cur) == 0)) return;
    for (size_t c = 0; c < cur.ncases; c++)
        for (size_t r = 0; r < cur.cases[c].nresults; r++) cur.cases[c].results[r].status = GB_RS_SKIPPED;
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    const gb_results *bp = &base;
    gb_compare_result *res = judge(&bp, 1, &cur, &o);
    CHECK(res && res->exit_code == 2 && strstr(res->error, "nothing was compared"));
    gb_compare_result_free(res);
    /* half skipped: --require-present 100% is not met by skips */
    for (size_t c = 0; c < cur.ncases / 2; c++)
        for (size_t r = 0; r < cur.cases[c].nresults; r++) cur.cases[c].results[r].status = GB_RS_OK;
    res = judge(&bp, 1, &cur, &o);
    CHECK(res && res->exit_code == 2 && strstr(res->error, "a skip is not a measurement"));
    CHECK(res && res->summary.present < 0.9);
    gb_compare_result_free(res);
    gb_results_free(&base);
    gb_results_free(&cur);
}

/* 2: one run a side and under 8 cases: a x10 slowdown was "unsure", exit 0 */
TEST(compare_defect2_small_suite_one_run_a_side_fails_on_a_x10_slowdown) {
    gb_results base, cur;
    if (!CHECK(load(D "base.json", &base) == 0 && load(D "base.json", &cur) == 0)) return;
    size_t keep_b = base.ncases, keep_c = cur.ncases;
    base.ncases = cur.ncases = 2; /* 6 results: fewer than 8 cases */
    scale_all(&cur, 10, 0);
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    const gb_results *bp = &base;
    gb_compare_result *res = judge(&bp, 1, &cur, &o);
    CHECK(res && res->exit_code == 1);
    CHECK(res && res->items[0].verdict == GB_V_REGRESSION);
    CHECK(res && strstr(res->items[2].reason, "") != NULL); /* the others judged, not errors */
    /* +10% is far inside an assumed 20% process sd: not a regression */
    gb_compare_result_free(res);
    scale_all(&cur, 0.11, 0);
    res = judge(&bp, 1, &cur, &o);
    CHECK(res && res->items[0].verdict != GB_V_REGRESSION);
    gb_compare_result_free(res);
    base.ncases = keep_b, cur.ncases = keep_c;
    gb_results_free(&base);
    gb_results_free(&cur);
}

static int has_warning(const gb_compare_result *r, const char *a, const char *b) {
    for (size_t i = 0; i < r->warnings.n; i++)
        if (strstr(r->warnings.item[i], a) && (!b || strstr(r->warnings.item[i], b))) return 1;
    return 0;
}

/* 3: only the first file of each side was checked for its machine */
TEST(compare_defect3_every_baseline_file_is_checked_and_the_odd_one_named) {
    gb_results b[3], cur;
    for (int i = 0; i < 3; i++) CHECK(load(D "base.json", &b[i]) == 0);
    if (!CHECK(load(D "base.json", &cur) == 0)) return;
    gb_value *odd = &b[2].runs[0].context.f_cpu_model;
    free(odd->text);
    odd->kind = GB_VAL_STRING;
    odd->text = strdup("AMD EPYC 9654");
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    const gb_results *bp[3] = {&b[0], &b[1], &b[2]};
    gb_compare_result *res = judge(bp, 3, &cur, &o);
    CHECK(res && has_warning(res, "within the baseline", "b2.json"));
    CHECK(res && has_warning(res, "AMD EPYC 9654", NULL));
    gb_compare_result_free(res);
    /* the odd file first: it is the one named, not the others */
    const gb_results *bq[3] = {&b[2], &b[0], &b[1]};
    res = judge(bq, 3, &cur, &o);
    CHECK(res && has_warning(res, "within the baseline", "b0.json"));
    CHECK(res && !has_warning(res, "within the baseline", "b1.json"));
    CHECK(res && !has_warning(res, "in the current run", NULL));
    gb_compare_result_free(res);
    for (int i = 0; i < 3; i++) gb_results_free(&b[i]);
    gb_results_free(&cur);
}

/* 4: a -O0 build was never named */
TEST(compare_defect4_build_flags_and_compiler_are_compared_and_commits_shown) {
    gb_results base, cur;
    if (!CHECK(load(D "base.json", &base) == 0 && load(D "base.json", &cur) == 0)) return;
    char *js = cur.runs[0].context.json, *at = js ? strstr(js, "\"-O3\"") : NULL;
    if (!CHECK(at != NULL)) return;
    at[3] = '0'; /* "-O0" */
    char *c = strstr(js, "abc123");
    if (c) c[0] = 'f';
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    const gb_results *bp = &base;
    gb_compare_result *res = judge(&bp, 1, &cur, &o);
    CHECK(res && has_warning(res, "builds differ: build.flags is \"-O3\" in the baseline, \"-O0\"", NULL));
    CHECK(res && strstr(res->build_note, "abc123") && strstr(res->build_note, "fbc123"));
    gb_compare_result_free(res);
    gb_results_free(&base);
    gb_results_free(&cur);
}

static void scale_peaks(gb_results *doc, const char *backend, double f) {
    gb_peaks *p = &doc->runs[0].peaks;
    for (size_t s = 0; s < p->n; s++) {
        if (strcmp(p->set[s].backend, backend)) continue;
        for (size_t i = 0; i < p->set[s].values.n; i++)
            if (p->set[s].values.item[i].v.kind == GB_VAL_NUMBER) p->set[s].values.item[i].v.num *= f;
    }
}

/* 5: 8% slower everywhere flagged every case; now one shift line, the cases
 * judged net of it, and the shift itself judged against the ceilings */
TEST(compare_defect5_machine_wide_shift_is_named_once_and_judged_by_the_ceilings) {
    gb_results b1, b2, cur;
    if (!CHECK(load(H1, &b1) == 0 && load("results/reference/quick-h100-run2.json", &b2) == 0 &&
               load("results/reference/quick-h100-run4.json", &cur) == 0))
        return;
    scale_all(&cur, 1.3, (size_t)-1);
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    const gb_results *bp[2] = {&b1, &b2};
    gb_compare_result *res = judge(bp, 2, &cur, &o);
    if (!CHECK(res != NULL)) return;
    /* run4's CPU ceilings were 11-16% lower than run1's (a fresh VM): its
     * CPU shift is partly the machine; the GPU's ceilings did not move */
    int applied = 0, unexplained = 0;
    for (size_t i = 0; i < res->nshifts; i++)
        if (res->shifts[i].applied) {
            applied++;
            CHECK(res->shifts[i].ratio > 1.2);
            unexplained += res->shifts[i].status == GB_SHIFT_UNEXPLAINED && !strcmp(res->shifts[i].backend, "cuda");
        }
    CHECK(applied == 2 && unexplained == 1);
    CHECK(res->summary.shift_regressions >= 1 && res->exit_code == 1);
    /* net of it, not every case is a regression; the raw change is kept */
    CHECK(res->summary.count[GB_V_REGRESSION] < (int)res->summary.compared / 4);
    int raw_kept = 0;
    for (size_t i = 0; i < res->nitems; i++) raw_kept += isfinite(res->items[i].raw_change) && res->items[i].raw_change > 0.15;
    CHECK(raw_kept > (int)res->summary.compared / 2);
    gb_compare_result_free(res);
    /* the ceilings fell as much: the machine, a warning, no failure from it */
    scale_peaks(&cur, "cpu", 1 / 1.3);
    scale_peaks(&cur, "cuda", 1 / 1.3);
    res = judge(bp, 2, &cur, &o);
    if (!CHECK(res != NULL)) return;
    CHECK(res->summary.shift_regressions == 0);
    for (size_t i = 0; i < res->nshifts; i++)
        if (res->shifts[i].applied) CHECK(res->shifts[i].status == GB_SHIFT_MACHINE);
    gb_compare_result_free(res);
    gb_results_free(&b1);
    gb_results_free(&b2);
    gb_results_free(&cur);
}

/* 6: the one-run process sd, a difference of two noisy variances, came out 0 */
TEST(compare_defect6_one_run_process_sd_never_collapses_to_zero) {
    gb_case_noise c[20];
    memset(c, 0, sizeof c);
    for (int i = 0; i < 20; i++) {
        c[i].ok = 1;
        c[i].kb = c[i].kc = 1;
        c[i].rb = c[i].rc = 3;
        c[i].vw = 0.01 * 0.01;   /* rounds noisy... */
        c[i].sr2 = 0.03 * 0.03;
        c[i].df_r = 4;
        c[i].mean_b = 0;
        c[i].mean_c = (i % 2 ? 1 : -1) * 0.001; /* ...changes spread less than they explain */
    }
    gb_noise_prior pr;
    gb_noise_priors(c, 20, &pr);
    CHECK(pr.proc_from_spread == 1 && pr.proc_var < GB_MIN_PROCESS_SD * GB_MIN_PROCESS_SD); /* the collapse */
    gb_noise_priors_guard(&pr); /* what compare does with it */
    CHECK(sqrt(pr.proc_var) >= GB_MIN_PROCESS_SD * 0.999);
}

/* 7: mannwhitney.c was kept though compare no longer used it: no module of
 * core is left that nothing includes */
TEST(compare_defect7_every_core_header_is_included_outside_its_module) {
    DIR *d = opendir("src/core");
    if (!CHECK(d != NULL)) return;
    struct dirent *de;
    int unused = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 3 || strcmp(de->d_name + l - 2, ".h")) continue;
        char cmd[400];
        snprintf(cmd, sizeof cmd,
                 "grep -rl --include=*.c --include=*.h '#include \"%s\"' src cpu_backends gpu_backends | "
                 "grep -v 'src/core/%.*s\\.c$' | grep -q .", de->d_name, (int)(l - 2), de->d_name);
        if (system(cmd) != 0) {
            printf("    unused core header: %s\n", de->d_name);
            unused++;
        }
    }
    closedir(d);
    CHECK(unused == 0);
    FILE *f = fopen("src/core/mannwhitney.c", "r");
    CHECK(f == NULL);
    if (f) fclose(f);
}

/* all unsure is its own outcome; --fail-on-unsure makes it fail */
TEST(compare_all_unsure_is_its_own_outcome_and_fail_on_unsure_fails_it) {
    gb_results base, cur;
    if (!CHECK(load(H1, &base) == 0 && load("results/reference/quick-h100-run2.json", &cur) == 0)) return;
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    o.rule.threshold = 0.001; /* nothing can be "same" at 0.1% */
    const gb_results *bp = &base;
    gb_compare_result *res = judge(&bp, 1, &cur, &o);
    if (!CHECK(res != NULL)) return;
    int decided = res->summary.count[GB_V_SAME] + res->summary.count[GB_V_REGRESSION] +
                  res->summary.count[GB_V_IMPROVEMENT];
    if (decided == 0) {
        CHECK(res->summary.all_unsure && res->exit_code == 0);
        cJSON *doc = gb_compare_result_json(res);
        CHECK(!strcmp(cJSON_GetObjectItemCaseSensitive(doc, "outcome")->valuestring, "all_unsure"));
        cJSON_Delete(doc);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        gb_compare_render(res, &gb_writer_term, f);
        fclose(f);
        CHECK(strstr(buf, "Result: ALL UNSURE") != NULL);
        CHECK(strstr(buf, "All unsure: ") != NULL);
        free(buf);
        gb_compare_result_free(res);
        o.fail_on_unsure = 1;
        res = judge(&bp, 1, &cur, &o);
        CHECK(res && res->exit_code == 1);
    } else {
        CHECK(decided == 0);
    }
    gb_compare_result_free(res);
    gb_results_free(&base);
    gb_results_free(&cur);
}

/* each unsure case says what would decide it; the summary counts how many
 * fit in the budget; the HTML table's verdict column has its header */
TEST(compare_unsure_cases_say_what_would_decide_them) {
    gb_results b1, b2, cur;
    if (!CHECK(load(H1, &b1) == 0 && load("results/reference/quick-h100-run2.json", &b2) == 0 &&
               load("results/reference/quick-h100-run4.json", &cur) == 0))
        return;
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1, .budget_s = 1e6};
    const gb_results *bp[2] = {&b1, &b2};
    gb_compare_result *res = judge(bp, 2, &cur, &o);
    if (!CHECK(res != NULL)) return;
    int unsure = 0, planned = 0, costed = 0;
    for (size_t i = 0; i < res->nitems; i++) {
        const gb_cmp_item *it = &res->items[i];
        if (it->verdict != GB_V_UNSURE || !it->has_noise || it->plan_changed) continue;
        unsure++;
        planned += it->decide.have;
        if (it->decide.processes) {
            /* more processes must be what the variance says: recompute one */
            costed += isfinite(it->decide.cost_s) && it->decide.cost_s > 0;
        }
    }
    CHECK(unsure > 0 && planned == unsure && costed > 0);
    CHECK(res->summary.decidable > 0 && res->summary.decidable <= unsure);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gb_compare_render_verbose(res, &gb_writer_html, f, 1);
    fclose(f);
    CHECK(strstr(buf, "<th>verdict</th>") != NULL);
    CHECK(strstr(buf, "would be decided by") != NULL);
    free(buf);
    gb_compare_result_free(res);
    gb_results_free(&b1);
    gb_results_free(&b2);
    gb_results_free(&cur);
}

/* A plan that changed between rounds (extra.round_plans, recorded where a
 * round prepared its state again) is a reason, not a regression. */
TEST(compare_a_plan_changed_in_a_round_is_a_reason_not_a_regression) {
    gb_results b1, b2, cur;
    if (!CHECK(load(D "base.json", &b1) == 0 && load(D "same.json", &b2) == 0 && load(D "base.json", &cur) == 0))
        return;
    gb_err e = {{0}};
    cJSON *ex = cJSON_Parse("{\"plan\": \"fftw:a\", \"round_plans\": [\"fftw:a\", \"fftw:a\", \"fftw:a\"]}");
    cJSON *exc = cJSON_Parse("{\"plan\": \"fftw:a\", \"round_plans\": [\"fftw:a\", \"fftw:b\", \"fftw:b\"]}");
    CHECK(gb_kvlist_from_cjson(&b1.cases[0].results[0].extra, ex, "extra", &e) == GB_OK);
    CHECK(gb_kvlist_from_cjson(&b2.cases[0].results[0].extra, ex, "extra", &e) == GB_OK);
    CHECK(gb_kvlist_from_cjson(&cur.cases[0].results[0].extra, exc, "extra", &e) == GB_OK);
    cJSON_Delete(ex);
    cJSON_Delete(exc);
    scale_all(&cur, 3, 0);
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1};
    const gb_results *bp[2] = {&b1, &b2};
    gb_compare_result *res = judge(bp, 2, &cur, &o);
    if (!CHECK(res != NULL)) return;
    CHECK(res->items[0].plan_changed == 1);
    CHECK(res->items[0].verdict == GB_V_UNSURE);
    CHECK(strstr(res->items[0].reason, "chose a plan") != NULL);
    gb_compare_result_free(res);
    gb_results_free(&b1);
    gb_results_free(&b2);
    gb_results_free(&cur);
}
