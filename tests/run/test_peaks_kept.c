/* test_peaks_kept.c — ceilings kept per machine and build (peaks_kept.h):
 * the store's rules on a scripted clock, and two runs of the binary: the
 * second uses the first's ceilings, marked kept, and --peak fresh measures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "peaks_kept.h"
#include "testlib.h"

/* Saved at t, usable until t + GB_PEAKS_KEEP_S, not before t (a clock set
 * back) nor after; raised by a result that beat them; another context or salt is another
 * file. Times are given, not read from a clock. */
TEST(peaks_kept_hold_for_their_context_and_age_and_only_values_a_measurement_gives) {
    char old[2048] = "";
    const char *had = getenv("XDG_CACHE_HOME");
    if (had) snprintf(old, sizeof old, "%s", had);
    const char *dir = gb_test_tmp("peaks_cache");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    gb_test_sh(cmd, NULL, 0);
    setenv("XDG_CACHE_HOME", dir, 1);

    cJSON *ctx = cJSON_Parse("{\"hostname\":\"h1\",\"date\":\"2026-01-01T00:00:00Z\",\"cpu\":{\"model\":\"X\"}}");
    cJSON *ctx_later = cJSON_Parse("{\"hostname\":\"h1\",\"date\":\"2026-01-02T00:00:00Z\",\"cpu\":{\"model\":\"X\"}}");
    cJSON *ctx_other = cJSON_Parse("{\"hostname\":\"h1\",\"date\":\"2026-01-01T00:00:00Z\",\"cpu\":{\"model\":\"Y\"}}");
    char p1[2048], p2[2048], p3[2048], p4[2048], from[64];
    CHECK(gb_peaks_kept_path("cpu", ctx, "d=0", p1, sizeof p1) != NULL);
    CHECK(gb_peaks_kept_path("cpu", ctx_later, "d=0", p2, sizeof p2) != NULL);
    CHECK(gb_peaks_kept_path("cpu", ctx_other, "d=0", p3, sizeof p3) != NULL);
    CHECK(gb_peaks_kept_path("cpu", ctx, "d=1", p4, sizeof p4) != NULL);
    CHECK(strcmp(p1, p2) == 0);                         /* the date is not what they hold for */
    CHECK(strcmp(p1, p3) != 0 && strcmp(p1, p4) != 0); /* another CPU, another device */

    cJSON *peaks = cJSON_Parse("{\"triad_gbs\": 20.5, \"gemm_float32_gflops\": 100}");
    const double t = 1.8e9;
    gb_peaks_kept_save(p1, peaks, t);
    double age = -1;
    cJSON *got = gb_peaks_kept_load(p1, t + 60, from, sizeof from, &age, NULL, 0);
    CHECK(got && cJSON_Compare(got, peaks, 1));
    CHECK(age == 60 && strcmp(from, "2027-01-15T08:00:00Z") == 0);
    cJSON_Delete(got);
    CHECK((got = gb_peaks_kept_load(p1, t + GB_PEAKS_KEEP_S + 1, from, sizeof from, &age, NULL, 0)) == NULL);
    CHECK((got = gb_peaks_kept_load(p1, t - 1, from, sizeof from, &age, NULL, 0)) == NULL);
    /* ceilings that failed are never kept */
    cJSON *failed = cJSON_Parse("{\"error\": \"no memory\"}");
    gb_peaks_kept_save(p3, failed, t);
    CHECK(gb_peaks_kept_load(p3, t, from, sizeof from, &age, NULL, 0) == NULL);
    /* garbage kept as truth (#41): a rate that is a word, a huge negative,
     * an object, a NaN written as null: the file is not used, the key named */
    const char *garbage[][2] = {{"{\"copy_gbs\": \"fast\", \"triad_gbs\": 20}", "peaks.copy_gbs"},
                                {"{\"triad_gbs\": -1e308}", "peaks.triad_gbs"},
                                {"{\"gemm_float32_library\": {\"x\": 1}}", "peaks.gemm_float32_library"},
                                {"{\"gemm_float64_gflops\": null}", "peaks.gemm_float64_gflops"},
                                {"{\"threads\": 0}", "peaks.threads"}};
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        cJSON *bad = cJSON_Parse(garbage[i][0]);
        gb_peaks_kept_save(p4, bad, t);
        char why[256] = "x";
        cJSON *k = gb_peaks_kept_load(p4, t + 60, from, sizeof from, &age, why, sizeof why);
        if (!CHECK(k == NULL && strstr(why, garbage[i][1]))) fprintf(stderr, "    %s -> \"%s\"\n", garbage[i][0], why);
        cJSON_Delete(k);
        cJSON_Delete(bad);
    }
    /* and a sane file says nothing */
    char why[256] = "x";
    cJSON *k = gb_peaks_kept_load(p1, t + 60, from, sizeof from, &age, why, sizeof why);
    CHECK(k && why[0] == '\0');
    cJSON_Delete(k);
    gb_peaks_kept_forget(p4);
    gb_peaks_kept_forget(p1);
    CHECK(gb_peaks_kept_load(p1, t + 60, from, sizeof from, &age, NULL, 0) == NULL);
    cJSON_Delete(failed);
    cJSON_Delete(peaks);
    cJSON_Delete(ctx);
    cJSON_Delete(ctx_later);
    cJSON_Delete(ctx_other);
    if (*old) setenv("XDG_CACHE_HOME", old, 1);
    else unsetenv("XDG_CACHE_HOME");
}

static cJSON *cpu_peaks(const char *path) {
    cJSON *doc = gb_test_load_json(path);
    cJSON *p = doc ? cJSON_DetachItemFromObject(cJSON_GetObjectItem(doc, "peaks"), "cpu") : NULL;
    cJSON_Delete(doc);
    return p;
}

/* A one-off run measures the ceilings once, quickly; the next on the same machine
 * and build uses them and marks them kept in the results (same values,
 * kept_from, kept_age_s); --peak fresh measures. A memory-bound op: its
 * results are never held against a compute ceiling, whose being beaten on
 * a busy machine would (rightly) forget the ceilings and make this test
 * depend on the machine's load. */
TEST(cli_second_run_uses_kept_ceilings_and_peak_fresh_measures) {
    const char *dir = gb_test_tmp("peaks_cli");
    char cmd[1024], out[4096];
    const char *base = "XDG_CACHE_HOME=%s %s run --op reduction --sizes 64 --dtype float32 --backend cpu --quiet %s "
                       "--out %s/r%d.json 2>&1 >/dev/null";
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    gb_test_sh(cmd, NULL, 0);
    char r[3][2100];
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, base, dir, gb_test_binary(), i == 2 ? "--peak fresh" : "", dir, i);
        CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
        snprintf(r[i], sizeof r[i], "%s/r%d.json", dir, i);
    }
    cJSON *a = cpu_peaks(r[0]), *b = cpu_peaks(r[1]), *c = cpu_peaks(r[2]);
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK(!cJSON_GetObjectItem(a, "kept_from") && !cJSON_GetObjectItem(c, "kept_from"));
        CHECK(cJSON_IsString(cJSON_GetObjectItem(b, "kept_from")));
        CHECK(cJSON_IsNumber(cJSON_GetObjectItem(b, "kept_age_s")) &&
              cJSON_GetObjectItem(b, "kept_age_s")->valuedouble >= 0);
        /* a run's first ceilings are the quick ones; --peak fresh measures in full */
        const cJSON *qa = cJSON_GetObjectItem(a, "gemm_target_s"), *qc = cJSON_GetObjectItem(c, "gemm_target_s");
        CHECK(cJSON_IsNumber(qa) && qa->valuedouble < 0.1 && cJSON_IsNumber(qc) && qc->valuedouble >= 0.3);
        const cJSON *x = cJSON_GetObjectItem(a, "triad_gbs"), *y = cJSON_GetObjectItem(b, "triad_gbs");
        CHECK(x && y && x->valuedouble == y->valuedouble);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
}

#include "run_peaks.h"

#include "results_model.h"

/* A result that went past a kept compute ceiling raises the kept value to
 * its rate (the file still there), the other keys and the date untouched;
 * a bandwidth ceiling beaten from cache, or a result within the slack,
 * changes nothing. */
TEST(peaks_kept_beaten_ceiling_is_raised_not_forgotten) {
    const char *path = gb_test_tmp("beaten_peaks.json");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "gemm_float32_gflops", 100);
    cJSON_AddNumberToObject(p, "triad_gbs", 10);
    gb_peaks_kept_save(path, p, 1000);
    cJSON_Delete(p);
    gb_run_peaks rp;
    memset(&rp, 0, sizeof rp);
    snprintf(rp.kept[0], sizeof rp.kept[0], "%s", path);
    snprintf(rp.name[0], sizeof rp.name[0], "cpu");
    gb_result r[3];
    memset(r, 0, sizeof r);
    r[0].backend = r[1].backend = r[2].backend = "cpu";
    r[0].peak = r[2].peak = "cpu.gemm_float32_gflops";
    r[1].peak = "cpu.triad_gbs";
    r[0].gflops = 180, r[0].pct_of_peak = 180;
    r[1].gflops = 1, r[1].gbs = 30, r[1].pct_of_peak = 300;
    r[2].gflops = 104, r[2].pct_of_peak = 104;
    gb_case_result c;
    memset(&c, 0, sizeof c);
    c.results = r;
    c.nresults = 3;
    gb_results res;
    memset(&res, 0, sizeof res);
    res.cases = &c;
    res.ncases = 1;
    CHECK(gb_run_peaks_after(&rp, &res) == 1);
    char from[64];
    double age = 0;
    cJSON *k = gb_peaks_kept_load(path, 1010, from, sizeof from, &age, NULL, 0);
    CHECK(k != NULL);
    if (k) {
        CHECK(cJSON_GetObjectItem(k, "gemm_float32_gflops")->valuedouble == 180);
        CHECK(cJSON_GetObjectItem(k, "triad_gbs")->valuedouble == 10);
        CHECK(age == 10);
    }
    cJSON_Delete(k);
    CHECK(gb_run_peaks_after(&rp, &res) == 0); /* already at 180 */
}
