/* test_export.c — `gpubench export`: Google Benchmark JSON in Google
 * Benchmark's own shape (a row per repetition, then the aggregates, threads
 * as run), read by its own compare.py; github-action-benchmark's list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "results_io.h"
#include "results_model.h"
#include "stats.h"
#include "testlib.h"

#define D "tests/data/compare/"

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* ---- export -------------------------------------------------------------- */

/* A file whose results have no rounds recorded: one repetition each (its
 * time the median of all samples), the four aggregates, the fields
 * compare.py reads, the CPU's threads from the run. */
TEST(export_gbench_without_rounds_is_one_repetition_and_aggregates) {
    gb_err err = {{0}};
    gb_results doc;
    if (!CHECK(gb_results_load(D "base.json", &doc, &err) == GB_OK)) return;
    cJSON *g = gb_export_gbench_doc(&doc);
    CHECK(g != NULL);
    const cJSON *benches = get(g, "benchmarks");
    /* 22 ok results: a repetition and 4 aggregates each (was 20 rows a result: one a sample) */
    CHECK(cJSON_GetArraySize(benches) == 22 * 5);
    int iterations = 0, medians = 0, ok_fields = 1, cpu_threads = 1;
    for (const cJSON *b = benches->child; b; b = b->next) {
        /* what Google Benchmark's compare.py reads */
        static const char *const need[] = {"name", "run_name", "run_type", "real_time", "cpu_time", "time_unit",
                                           "family_index", "per_family_instance_index", "repetitions", "threads",
                                           "iterations"};
        for (int k = 0; k < 11; k++) ok_fields &= get(b, need[k]) != NULL;
        const char *rt = get(b, "run_type")->valuestring;
        iterations += strcmp(rt, "iteration") == 0;
        const cJSON *an = get(b, "aggregate_name");
        medians += an && strcmp(an->valuestring, "median") == 0;
        if (strstr(get(b, "name")->valuestring, "/cpu/host")) cpu_threads &= get(b, "threads")->valueint == 48;
        else cpu_threads &= get(b, "threads")->valueint == 1;
    }
    CHECK(ok_fields);
    CHECK(iterations == 22);
    CHECK(medians == 22);
    CHECK(cpu_threads); /* context.cpu_threads_used for the CPU, 1 for the GPU (was 1 for every result) */
    const cJSON *first = benches->child;
    CHECK(strcmp(get(first, "name")->valuestring, "matmul/float32/512x512x512/math=default/cpu/host") == 0);
    CHECK(get(first, "iterations")->valueint == 20 && get(first, "repetitions")->valueint == 1);
    const cJSON *ctx = get(g, "context");
    CHECK(cJSON_IsArray(get(ctx, "caches")));
    CHECK(strcmp(get(ctx, "library_build_type")->valuestring, "release") == 0);
    cJSON_Delete(g);

    cJSON *a = gb_export_benchmark_action_doc(&doc);
    CHECK(cJSON_IsArray(a) && cJSON_GetArraySize(a) == 22);
    const cJSON *e = a ? a->child : NULL;
    CHECK(e && strcmp(cJSON_GetObjectItemCaseSensitive(e, "unit")->valuestring, "ms") == 0);
    CHECK(e && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "value")));
    CHECK(e && strncmp(cJSON_GetObjectItemCaseSensitive(e, "range")->valuestring, "\xc2\xb1 ", 3) == 0);
    cJSON_Delete(a);
    gb_results_free(&doc);
}

/* A result of three rounds: three repetitions, each of its round's
 * samples (iterations) and their median (real_time, in the unit its median
 * reads 1 to 1000 in); the aggregates over the three; cv as a fraction. */
TEST(export_gbench_rows_are_the_rounds_and_aggregates_over_them) {
    gb_err err = {{0}};
    gb_results doc;
    if (!CHECK(gb_results_load(D "drift_base.json", &doc, &err) == GB_OK)) return;
    cJSON *g = gb_export_gbench_doc(&doc);
    const cJSON *benches = get(g, "benchmarks");
    const gb_result *r = &doc.cases[0].results[0];
    if (!CHECK(g && r->nrounds == 3 && r->nsamples == 30)) goto out;
    double med[3];
    for (int k = 0; k < 3; k++) {
        gb_stats st;
        gb_stats_compute(r->samples + 10 * k, 10, &st);
        med[k] = st.median;
    }
    gb_stats all;
    gb_stats_compute(r->samples, 30, &all);
    const char *unit = all.median >= 1e-3 ? "ms" : "us";
    double scale = all.median >= 1e-3 ? 1e3 : 1e6;
    const cJSON *b = benches->child;
    for (int k = 0; k < 3; k++, b = b->next) {
        CHECK(!strcmp(get(b, "run_type")->valuestring, "iteration") && get(b, "repetition_index")->valueint == k);
        CHECK(get(b, "iterations")->valueint == 10 && get(b, "repetitions")->valueint == 3);
        CHECK_NEAR(get(b, "real_time")->valuedouble, med[k] * scale, 1e-9 * scale);
        CHECK(!strcmp(get(b, "time_unit")->valuestring, unit));
    }
    double lo = fmin(med[0], fmin(med[1], med[2])), hi = fmax(med[0], fmax(med[1], med[2]));
    double mid = med[0] + med[1] + med[2] - lo - hi;
    static const char *const agg[] = {"mean", "median", "stddev", "cv"};
    for (int a = 0; a < 4; a++, b = b->next) {
        CHECK(b && !strcmp(get(b, "aggregate_name")->valuestring, agg[a]) && get(b, "iterations")->valueint == 3);
        if (a == 1) CHECK_NEAR(get(b, "real_time")->valuedouble, mid * scale, 1e-9 * scale);
        if (a == 0) CHECK_NEAR(get(b, "real_time")->valuedouble, (med[0] + med[1] + med[2]) / 3 * scale, 1e-9 * scale);
        if (a == 3) CHECK(get(b, "real_time")->valuedouble < 1 && !strcmp(get(b, "aggregate_unit")->valuestring, "percentage"));
    }
out:
    cJSON_Delete(g);
    gb_results_free(&doc);
}

/* Google Benchmark's own compare.py (Debian's libbenchmark-tools) reads two
 * exports and compares every result: its table names each, with the U test
 * over the repetitions. */
TEST(export_gbench_is_read_by_google_benchmarks_compare_py) {
    const char *tool = "/usr/share/benchmark/compare.py";
    char cmd[2048], out[1 << 16];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import scipy, numpy' 2>/dev/null && test -r %s", tool);
    if (gb_test_sh(cmd, NULL, 0) != 0) {
        SKIP("Google Benchmark's compare.py (libbenchmark-tools) or SciPy is not installed (install-deps.sh --test)");
        return;
    }
    const char *a = gb_test_tmp("gbench_a.json"), *b = gb_test_tmp("gbench_b.json");
    snprintf(cmd, sizeof cmd, "%1$s export %3$sdrift_base.json --format gbench -o %4$s && "
                              "%1$s export %3$sdrift_slower30.json --format gbench -o %5$s && "
                              "NO_COLOR=1 /usr/bin/python3 %2$s --no-color benchmarks %4$s %5$s",
             gb_test_binary(), tool, D, a, b);
    int rc = gb_test_sh(cmd, out, sizeof out);
    if (!CHECK(rc == 0)) fprintf(stderr, "    %d: %.1500s\n", rc, out);
    CHECK(strstr(out, "matmul/float32/512x512x512/math=default/cpu/host_median") != NULL);
    CHECK(strstr(out, "matmul/float32/512x512x512/math=default/cpu/host_pvalue") != NULL);
    CHECK(strstr(out, "U Test, Repetitions: 3 vs 3") != NULL);
    CHECK(strstr(out, "Traceback") == NULL);
}

/* Every median and change in compare's table has three significant figures,
 * trailing zeros kept: "8.00 ms", not "8 ms"; "+0.83%" and "-32.0%". */
