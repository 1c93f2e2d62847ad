/* test_results_io.c — reading and checking results files (through the
 * model), and writing JSON atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_io.h"
#include "results_model.h"
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

/* Load path through the model; the message in e. */
static int load(const char *path, gb_err *e) {
    gb_results r;
    int rc = gb_results_load(path, &r, e);
    gb_results_free(&r);
    return rc;
}

TEST(results_load_rejects_missing_schema) {
    gb_err e = {{0}};
    const char *p = write_tmp("noschema.json", "{\"cases\": []}");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "not a gpubench results file (no \"schema\")") != NULL);
    CHECK(strncmp(e.msg, p, strlen(p)) == 0);
    unlink(p);
}

TEST(results_load_rejects_other_schema_version) {
    gb_err e = {{0}};
    const char *p = write_tmp("v7.json", "{\"schema\": \"gpubench-results\", \"schema_version\": 7, \"cases\": []}");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, ": schema_version 7, this gpubench reads 1") != NULL);
    unlink(p);
}

TEST(results_load_names_line_of_malformed_json) {
    gb_err e = {{0}};
    const char *p = write_tmp("bad.json", "{\n  \"schema\": \"gpubench-results\",\n  \"op\" matmul\n}\n");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, ": line 3, column 8: malformed JSON near '") != NULL);
    unlink(p);
}

TEST(results_load_reports_unreadable_file) {
    gb_err e = {{0}};
    CHECK(load("/nonexistent/r.json", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "/nonexistent/r.json: cannot open") != NULL);
}

TEST(results_load_checks_case_run_index) {
    gb_err e = {{0}};
    const char *p = write_tmp("runs.json", "{\"schema\": \"gpubench-results\", \"schema_version\": 1,"
                              " \"runs\": [{\"name\": \"a\"}], \"cases\": [{\"run\": 1}]}");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "cases[0].run") != NULL);
    unlink(p);
}

TEST(results_write_atomic_round_trips_and_replaces) {
    gb_err e = {{0}};
    char path[256];
    snprintf(path, sizeof path, "/tmp/gb_rio_%d_out.json", (int)getpid());
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON_AddArrayToObject(doc, "cases");
    CHECK(gb_json_write_atomic(doc, path, &e) == GB_OK);
    cJSON_AddStringToObject(doc, "note", "second");
    CHECK(gb_json_write_atomic(doc, path, &e) == GB_OK);
    cJSON *back = NULL;
    CHECK(gb_json_read_file(path, &back, &e) == GB_OK);
    CHECK(back && cJSON_Compare(doc, back, 1));
    cJSON_Delete(back);
    gb_results r;
    CHECK(gb_results_load(path, &r, &e) == GB_OK);
    CHECK(r.nruns == 1 && !r.merged && r.ncases == 0);
    gb_results_free(&r);
    cJSON_Delete(doc);
    unlink(path);
    /* no temp file left behind */
    char out[512];
    snprintf(path, sizeof path, "ls -a /tmp | grep -c '^.gb_rio_%d_out.json.tmp' || true", (int)getpid());
    gb_test_sh(path, out, sizeof out);
    CHECK(atoi(out) == 0);
}

TEST(results_write_atomic_reports_missing_directory) {
    gb_err e = {{0}};
    cJSON *doc = cJSON_CreateObject();
    CHECK(gb_json_write_atomic(doc, "/nonexistent-dir/r.json", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "/nonexistent-dir/r.json: cannot create a temporary file") != NULL);
    cJSON_Delete(doc);
}
