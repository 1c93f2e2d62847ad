/* test_compare_rules.c — compare's rules on their own: the parsing of
 * durations, percentages and policies. (The samples-only Mann-Whitney test
 * and its tests went with it: compare judges rounds and processes,
 * compare_stats.h.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "export.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

/* ---- Mann–Whitney ------------------------------------------------------ */

TEST(durations_need_a_unit) {
    double d;
    char why[200];
    CHECK(gb_parse_duration("10us", &d, why, sizeof why) == 0 && fabs(d - 10e-6) < 1e-18);
    CHECK(gb_parse_duration("0.5ms", &d, why, sizeof why) == 0 && fabs(d - 5e-4) < 1e-18);
    CHECK(gb_parse_duration("2e-5s", &d, why, sizeof why) == 0 && fabs(d - 2e-5) < 1e-18);
    CHECK(gb_parse_duration("0", &d, why, sizeof why) == 0 && d == 0); /* zero needs no unit */
    CHECK(gb_parse_duration("10", &d, why, sizeof why) != 0);          /* was read as 10 seconds */
    CHECK(strstr(why, "10: give a unit: 10us, 10ms or 10s") != NULL);
    CHECK(gb_parse_duration("10 us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration("-1us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration("us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration("10min", &d, why, sizeof why) != 0 && strstr(why, "unknown unit") != NULL);
}

TEST(percent_and_policy_parsing) {
    double t;
    char pw[200];
    CHECK(gb_parse_percent("5%", &t, pw, sizeof pw) == 0 && fabs(t - 0.05) < 1e-15);
    CHECK(gb_parse_percent("12.5%", &t, pw, sizeof pw) == 0 && fabs(t - 0.125) < 1e-15);
    /* a bare number is neither read as percent nor as a fraction */
    CHECK(gb_parse_percent("0.05", &t, pw, sizeof pw) != 0);
    CHECK(strstr(pw, "'0.05' has no % sign: give it as 0.05% (or, if a fraction was meant, 5%)") != NULL);
    CHECK(gb_parse_percent("5", &t, pw, sizeof pw) != 0);
    CHECK(gb_parse_percent("5x", &t, pw, sizeof pw) != 0);
    CHECK(gb_parse_percent("-1%", &t, pw, sizeof pw) != 0);
    gb_err e = {{0}};
    const char *why = e.msg;
    cJSON *doc = cJSON_Parse("{\"threshold\": \"5%\", \"ops\": {\"fft\": {\"threshold\": \"10%\","
                             " \"backends\": {\"cpu\": {\"threshold\": \"20%\", \"alpha\": 0.05}}}}}");
    gb_policy *p = gb_policy_from_json(doc, "p.json", &e);
    CHECK(p != NULL);
    gb_rule base = {0.03, 0.01, 0};
    CHECK_NEAR(gb_policy_rule(p, "matmul", "cuda", base, 0).threshold, 0.05, 1e-15);
    CHECK_NEAR(gb_policy_rule(p, "matmul", "cuda", base, GB_CLI_THRESHOLD).threshold, 0.03, 1e-15); /* CLI wins over top */
    CHECK_NEAR(gb_policy_rule(p, "fft", "cuda", base, GB_CLI_THRESHOLD).threshold, 0.10, 1e-15);   /* op wins over CLI */
    gb_rule r = gb_policy_rule(p, "fft", "cpu", base, 0);
    CHECK_NEAR(r.threshold, 0.20, 1e-15);
    CHECK_NEAR(r.alpha, 0.05, 1e-15);
    gb_policy_free(p);
    cJSON_Delete(doc);
    /* min_change: a duration, top level and per op; the CLI's wins over the top level */
    doc = cJSON_Parse("{\"min_change\": \"50us\", \"ops\": {\"svd\": {\"min_change\": \"1ms\"}}}");
    p = gb_policy_from_json(doc, "p.json", &e);
    CHECK(p != NULL);
    gb_rule mb = {0.05, 0.01, 10e-6};
    CHECK_NEAR(gb_policy_rule(p, "fft", "cuda", mb, 0).min_change_s, 50e-6, 1e-18);
    CHECK_NEAR(gb_policy_rule(p, "fft", "cuda", mb, GB_CLI_MIN_CHANGE).min_change_s, 10e-6, 1e-18);
    CHECK_NEAR(gb_policy_rule(p, "svd", "cpu", mb, GB_CLI_MIN_CHANGE).min_change_s, 1e-3, 1e-18);
    gb_policy_free(p);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"min_change\": \"ten us\"}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: (top level).min_change: expected a duration") != NULL);
    cJSON_Delete(doc);
    /* numbers without their unit or sign are refused, as on the command line */
    doc = cJSON_Parse("{\"ops\": {\"svd\": {\"min_change\": 0.001}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: ops.svd.min_change: 0.001 is not a string: write it with its unit") != NULL);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"threshold\": 0.05}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: (top level).threshold: 0.05 is not a string: write it with its % sign") != NULL);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"threshold\": \"5\"}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "has no % sign") != NULL);
    cJSON_Delete(doc);
    /* the share of cases that must be present */
    doc = cJSON_Parse("{\"require_present\": \"90%\"}");
    p = gb_policy_from_json(doc, "p.json", &e);
    CHECK(p != NULL);
    CHECK_NEAR(gb_policy_require_present(p, 1), 0.9, 1e-15);
    CHECK_NEAR(gb_policy_require_present(NULL, 1), 1, 0);
    gb_policy_free(p);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"ops\": {\"fft\": {\"treshold\": \"10%\"}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: ops.fft: unknown key \"treshold\"") != NULL);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"ops\": {\"fftw\": {}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "unknown op \"fftw\"") != NULL);
    cJSON_Delete(doc);
    /* backends: those the results model knows */
    doc = cJSON_Parse("{\"ops\": {\"fft\": {\"backends\": {\"rocm\": {}}}}}");
    CHECK(gb_policy_from_json(doc, "p.json", &e) == NULL);
    CHECK(strstr(why, "p.json: ops.fft.backends.rocm: unknown backend \"rocm\" (expected cpu or cuda)") != NULL);
    cJSON_Delete(doc);
}

