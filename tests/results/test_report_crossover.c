/* test_report_crossover.c — where the GPU wins: the crossover along a size
 * sweep (report.h: gb_crossover_find), as computed and as stored in a
 * results document, and the scalar size of a shape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "gb.h"
#include "plot.h"
#include "report.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

/* ---- crossover ------------------------------------------------------------ */

TEST(crossover_interpolates_in_log_log) {
    double size[] = {100, 400}, sp[] = {0.5, 2};
    gb_crossover x;
    CHECK(gb_crossover_find(size, sp, 2, &x) == GB_CROSS_INTERPOLATED);
    CHECK_NEAR(x.size, 200, 1e-9);
    CHECK_NEAR(x.lo, 100, 1e-9);
    CHECK_NEAR(x.hi, 400, 1e-9);
    CHECK(x.sign_changes == 1);
    gb_crossover_free(&x);
    /* Unsorted, with a point below and one above: only the bracketing pair counts. */
    double s2[] = {1000, 10, 100, 50}, p2[] = {4, 0.1, 2, 0.5};
    CHECK(gb_crossover_find(s2, p2, 4, &x) == GB_CROSS_INTERPOLATED);
    /* log-log line through (50, 0.5) and (100, 2): zero at 50·2^(1/2). */
    CHECK_NEAR(x.size, 50 * sqrt(2.0), 1e-9);
    CHECK_NEAR(x.tested_min, 10, 1e-12);
    CHECK_NEAR(x.tested_max, 1000, 1e-9);
    gb_crossover_free(&x);
}

TEST(crossover_below_smallest_and_not_reached) {
    gb_crossover x;
    double s[] = {128, 512, 2048}, win[] = {1.5, 3, 9}, lose[] = {0.01, 0.2, 0.9};
    CHECK(gb_crossover_find(s, win, 3, &x) == GB_CROSS_BELOW_SMALLEST);
    CHECK(isnan(x.size));
    CHECK(x.sign_changes == 0);
    gb_crossover_free(&x);
    CHECK(gb_crossover_find(s, lose, 3, &x) == GB_CROSS_NOT_REACHED);
    CHECK(isnan(x.size));
    CHECK_NEAR(x.tested_max, 2048, 1e-9);
    gb_crossover_free(&x);
    /* A GPU that wins, loses, wins again: the first crossing is the status's,
     * every change is counted (and listed: tests/results/test_crossover.c). */
    double s3[] = {1, 2, 3, 4}, p3[] = {0.5, 2, 0.5, 2};
    CHECK(gb_crossover_find(s3, p3, 4, &x) == GB_CROSS_INTERPOLATED);
    CHECK(x.sign_changes == 3);
    CHECK(x.size > 1 && x.size < 2);
    gb_crossover_free(&x);
    /* Unusable points are ignored; nothing usable is NO_DATA. */
    double s4[] = {100, 0, 400}, p4[] = {0, 3, -1};
    CHECK(gb_crossover_find(s4, p4, 3, &x) == GB_CROSS_NO_DATA);
    /* Repeated sizes are merged by geometric mean: 0.25 and 1 at 100 → 0.5. */
    double s5[] = {100, 100, 400}, p5[] = {0.25, 1, 2};
    CHECK(gb_crossover_find(s5, p5, 3, &x) == GB_CROSS_INTERPOLATED);
    CHECK_NEAR(x.size, 200, 1e-9);
    CHECK(x.points == 2);
    gb_crossover_free(&x);
}

/* A case with speedups and no results (the crossover reads only these). */
static cJSON *synthetic_case(const char *op, int n, double sp_dev, double sp_e2e) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "op", op);
    cJSON_AddStringToObject(c, "dtype", "float32");
    cJSON *shape = cJSON_AddArrayToObject(c, "shape");
    for (int i = 0; i < 3; i++) cJSON_AddItemToArray(shape, cJSON_CreateNumber(n));
    cJSON *params = cJSON_AddObjectToObject(c, "params");
    cJSON_AddStringToObject(params, "math", "default");
    cJSON_AddArrayToObject(c, "results");
    cJSON *sp = cJSON_AddObjectToObject(c, "speedup");
    cJSON_AddNumberToObject(sp, "device", sp_dev);
    if (sp_e2e > 0) cJSON_AddNumberToObject(sp, "end_to_end", sp_e2e);
    return c;
}

static const cJSON *find_cross(const cJSON *xs, const char *op, const char *timing) {
    const cJSON *x;
    cJSON_ArrayForEach(x, xs) {
        if (!strcmp(cJSON_GetObjectItem(x, "op")->valuestring, op) &&
            !strcmp(cJSON_GetObjectItem(x, "timing")->valuestring, timing))
            return x;
    }
    return NULL;
}

TEST(crossover_stored_in_results) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    cJSON_AddItemToArray(cases, synthetic_case("matmul", 400, 2, 0.2));
    cJSON_AddItemToArray(cases, synthetic_case("matmul", 100, 0.5, 0.1));
    cJSON_AddItemToArray(cases, synthetic_case("fft", 64, 3, 0));
    cJSON_AddItemToArray(cases, synthetic_case("fft", 256, 5, 0));
    cJSON_AddArrayToObject(doc, "crossover");  /* replaced, not appended to */
    cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "crossover"), cJSON_Parse("{\"op\": \"stale\", \"dtype\": \"x\","
        " \"timing\": \"device\", \"size\": null, \"status\": \"not_reached\", \"size_measure\": \"n\","
        " \"tested_min\": 1, \"tested_max\": 1, \"points\": 1, \"sign_changes\": 0}"));
    /* the runner's path: the model computes it and writes it */
    gb_results model;
    gb_err err = {{0}};
    CHECK(gb_results_from_json(doc, "synthetic", &model, &err) == GB_OK);
    CHECK(gb_crossover_update(&model, &err) == GB_OK);
    cJSON_Delete(doc);
    doc = gb_results_to_json(&model, 0);
    gb_results_free(&model);
    const cJSON *xs = cJSON_GetObjectItem(doc, "crossover");
    CHECK(cJSON_IsArray(xs));
    CHECK(cJSON_GetArraySize(xs) == 3);  /* fft has no end-to-end speedups */
    const cJSON *m = find_cross(xs, "matmul", "device");
    CHECK(m && !strcmp(cJSON_GetObjectItem(m, "status")->valuestring, "interpolated"));
    if (m) CHECK_NEAR(cJSON_GetObjectItem(m, "size")->valuedouble, 200, 1e-9);
    if (m) CHECK(!strcmp(cJSON_GetObjectItem(m, "size_measure")->valuestring, "n"));
    const cJSON *e = find_cross(xs, "matmul", "end_to_end");
    CHECK(e && !strcmp(cJSON_GetObjectItem(e, "status")->valuestring, "not_reached"));
    if (e) CHECK(cJSON_IsNull(cJSON_GetObjectItem(e, "size")));
    const cJSON *f = find_cross(xs, "fft", "device");
    CHECK(f && !strcmp(cJSON_GetObjectItem(f, "status")->valuestring, "below_smallest"));
    CHECK(find_cross(xs, "fft", "end_to_end") == NULL);
    cJSON_Delete(doc);
}

TEST(scalar_size_is_geometric_mean_for_shapes) {
    double rect[] = {10000, 1000}, cube[] = {512, 512, 512};
    gb_case_result c = {.rank = 2, .shape = rect};
    int sq = -1;
    CHECK_NEAR(gb_case_scalar_size(&c, &sq), sqrt(1e7), 1e-6);
    CHECK(sq == 0);
    c.rank = 3;
    c.shape = cube;
    CHECK_NEAR(gb_case_scalar_size(&c, &sq), 512, 0);
    CHECK(sq == 1);
}

