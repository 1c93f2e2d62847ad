/* test_results_io.c — loading, checking and atomically writing results files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_io.h"
#include "testlib.h"

static const char *write_tmp(const char *name, const char *text) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/gb_rio_%d_%s", (int)getpid(), name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

TEST(results_load_rejects_missing_schema) {
    char why[256] = "";
    const char *p = write_tmp("noschema.json", "{\"cases\": []}");
    CHECK(gb_results_load_json(p, why, sizeof why) == NULL);
    CHECK(strstr(why, "not a gpubench results file (no \"schema\")") != NULL);
    CHECK(strncmp(why, p, strlen(p)) == 0);
    unlink(p);
}

TEST(results_load_rejects_other_schema_version) {
    char why[256] = "";
    const char *p = write_tmp("v7.json", "{\"schema\": \"gpubench-results\", \"schema_version\": 7, \"cases\": []}");
    CHECK(gb_results_load_json(p, why, sizeof why) == NULL);
    CHECK(strstr(why, ": schema_version 7, this gpubench reads 1") != NULL);
    unlink(p);
}

TEST(results_load_names_line_of_malformed_json) {
    char why[256] = "";
    const char *p = write_tmp("bad.json", "{\n  \"schema\": \"gpubench-results\",\n  \"op\" matmul\n}\n");
    CHECK(gb_results_load_json(p, why, sizeof why) == NULL);
    CHECK(strstr(why, ": line 3: malformed JSON near '") != NULL);
    unlink(p);
}

TEST(results_load_reports_unreadable_file) {
    char why[256] = "";
    CHECK(gb_results_load_json("/nonexistent/r.json", why, sizeof why) == NULL);
    CHECK(strstr(why, "/nonexistent/r.json: cannot open") != NULL);
}

TEST(results_load_checks_case_run_index) {
    char why[256] = "";
    const char *p = write_tmp("runs.json", "{\"schema\": \"gpubench-results\", \"schema_version\": 1,"
                              " \"runs\": [{\"name\": \"a\"}], \"cases\": [{\"run\": 1}]}");
    CHECK(gb_results_load_json(p, why, sizeof why) == NULL);
    CHECK(strstr(why, "cases[0].run") != NULL);
    unlink(p);
}

TEST(results_write_atomic_round_trips_and_replaces) {
    char why[256] = "", path[256];
    snprintf(path, sizeof path, "/tmp/gb_rio_%d_out.json", (int)getpid());
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON_AddArrayToObject(doc, "cases");
    CHECK(gb_results_write_atomic(doc, path, why, sizeof why) == 0);
    cJSON_AddStringToObject(doc, "note", "second");
    CHECK(gb_results_write_atomic(doc, path, why, sizeof why) == 0);
    cJSON *back = gb_results_load_json(path, why, sizeof why);
    CHECK(back != NULL);
    CHECK(cJSON_Compare(doc, back, 1));
    CHECK(gb_results_run_count(back) == 1);
    CHECK(gb_results_run(back, 0) == back);
    cJSON_Delete(back);
    cJSON_Delete(doc);
    unlink(path);
    /* no temp file left behind */
    char out[512];
    snprintf(path, sizeof path, "ls -a /tmp | grep -c '^.gb_rio_%d_out.json.tmp' || true", (int)getpid());
    gb_test_sh(path, out, sizeof out);
    CHECK(atoi(out) == 0);
}

TEST(results_write_atomic_reports_missing_directory) {
    char why[256] = "";
    cJSON *doc = cJSON_CreateObject();
    CHECK(gb_results_write_atomic(doc, "/nonexistent-dir/r.json", why, sizeof why) == -1);
    CHECK(strstr(why, "/nonexistent-dir/r.json: cannot create a temporary file") != NULL);
    cJSON_Delete(doc);
}
