/* test_export.c — `gpubench export`: Google Benchmark JSON, one repetition
 * per sample plus the aggregates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

#define D "tests/data/compare/"

/* ---- export -------------------------------------------------------------- */

TEST(export_gbench_has_one_repetition_per_sample_and_aggregates) {
    gb_err err = {{0}};
    gb_results doc;
    if (!CHECK(gb_results_load(D "base.json", &doc, &err) == GB_OK)) return;
    cJSON *g = gb_export_gbench_doc(&doc);
    CHECK(g != NULL);
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(g, "benchmarks");
    /* 21 results x 20 samples, the 3-sample svd cpu result, 4 aggregates each */
    CHECK(cJSON_GetArraySize(benches) == 21 * 20 + 3 + 22 * 4);
    int iterations = 0, medians = 0, ok_fields = 1;
    for (const cJSON *b = benches->child; b; b = b->next) {
        /* what Google Benchmark's compare.py reads */
        static const char *const need[] = {"name", "run_name", "run_type", "real_time", "cpu_time", "time_unit",
                                           "family_index", "per_family_instance_index", "repetitions"};
        for (int k = 0; k < 9; k++) ok_fields &= cJSON_GetObjectItemCaseSensitive(b, need[k]) != NULL;
        const char *rt = cJSON_GetObjectItemCaseSensitive(b, "run_type")->valuestring;
        iterations += strcmp(rt, "iteration") == 0;
        const cJSON *an = cJSON_GetObjectItemCaseSensitive(b, "aggregate_name");
        medians += an && strcmp(an->valuestring, "median") == 0;
    }
    CHECK(ok_fields);
    CHECK(iterations == 21 * 20 + 3);
    CHECK(medians == 22);
    const cJSON *first = benches->child;
    CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(first, "name")->valuestring,
                 "matmul/float32/512x512x512/math=default/cpu/host") == 0);
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(g, "context");
    CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(ctx, "caches")));
    CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(ctx, "library_build_type")->valuestring, "release") == 0);
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

/* Every median and change in compare's table has three significant figures,
 * trailing zeros kept: "8.00 ms", not "8 ms"; "+0.83%" and "-32.0%". */
