/* test_fleet.c — the fleet report (src/results/fleet.c) on the committed
 * fixtures of tests/data/fleet/ (made by make_fixtures.py there: a column
 * 1.5x slower in its samples, a column within the noise, a failed case). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "plot.h"
#include "results_model.h"
#include "writer.h"
#include "testlib.h"

#define D "tests/data/fleet/"

static cJSON *fleet_of(const char *const *paths, size_t n, const char *timing) {
    gb_results docs[4];
    const gb_results *dp[4] = {NULL};
    gb_err e = {{0}};
    for (size_t i = 0; i < n; i++) {
        if (gb_results_load(paths[i], &docs[i], &e) != GB_OK) {
            fprintf(stderr, "%s\n", e.msg);
            for (size_t j = 0; j < i; j++) gb_results_free(&docs[j]);
            return NULL;
        }
        dp[i] = &docs[i];
    }
    gb_fleet_options o = GB_FLEET_DEFAULT_OPTIONS;
    o.timing = timing;
    cJSON *doc = gb_fleet_build(dp, paths, n, &o, &e);
    if (!doc) fprintf(stderr, "%s\n", e.msg);
    for (size_t i = 0; i < n; i++) gb_results_free(&docs[i]);
    return doc;
}

/* The fleet of the files as the terminal table prints it (malloc'd; NULL on failure). */
static char *fleet_table(const char *const *paths, size_t n) {
    gb_results docs[4];
    const gb_results *dp[4] = {NULL};
    gb_err e = {{0}};
    size_t loaded = 0;
    char *text = NULL;
    for (; loaded < n; loaded++) {
        if (gb_results_load(paths[loaded], &docs[loaded], &e) != GB_OK) goto out;
        dp[loaded] = &docs[loaded];
    }
    gb_fleet_result *typed = gb_fleet_judge(dp, paths, n, NULL, &e);
    size_t len = 0;
    FILE *f = typed ? open_memstream(&text, &len) : NULL;
    if (f) {
        gb_fleet_render_result(typed, &gb_writer_term, f);
        fclose(f);
    }
    gb_fleet_result_free(typed);
out:
    for (size_t j = 0; j < loaded; j++) gb_results_free(&docs[j]);
    return text;
}

static const cJSON *column(const cJSON *doc, const char *name) {
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "columns"))
        if (!strcmp(cJSON_GetObjectItem(c, "name")->valuestring, name)) return c;
    return NULL;
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int flagged(const cJSON *doc, const char *name) {
    const cJSON *c = column(doc, name);
    return c && cJSON_IsTrue(cJSON_GetObjectItem(c, "flagged_slow"));
}

TEST(fleet_flags_the_node_made_1_5x_slower_and_not_the_noisy_one) {
    const char *p[] = {D "merged.json"};
    cJSON *doc = fleet_of(p, 1, NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    CHECK(!strcmp(cJSON_GetObjectItem(doc, "timing")->valuestring, "device"));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "columns")) == 4);
    CHECK(flagged(doc, "node03"));
    CHECK(num(column(doc, "node03"), "slow") == 12);
    CHECK_NEAR(num(column(doc, "node03"), "median_relative"), 1.5, 0.05);
    /* node02 is 1% slower: inside the noise, never called slow */
    CHECK(column(doc, "node02") && !flagged(doc, "node02"));
    CHECK(num(column(doc, "node02"), "slow") == 0);
    CHECK(!flagged(doc, "node01") && !flagged(doc, "node04"));
    cJSON_Delete(doc);
}

TEST(fleet_reference_is_the_median_column_of_each_row) {
    const char *p[] = {D "merged.json"};
    cJSON *doc = fleet_of(p, 1, NULL);
    if (!CHECK(doc != NULL)) return;
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "rows")) {
        int ref = (int)num(row, "reference");
        const cJSON *cells = cJSON_GetObjectItem(row, "cells");
        const cJSON *rc = cJSON_GetArrayItem(cells, ref);
        CHECK(!strcmp(cJSON_GetObjectItem(rc, "verdict")->valuestring, "reference"));
        CHECK_NEAR(num(rc, "relative"), 1.0, 1e-12);
        int below = 0, above = 0, usable = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cells) {
            double rel = num(c, "relative");
            if (!isfinite(rel)) continue;
            usable++;
            below += rel < 1.0;
            above += rel > 1.0;
        }
        /* the lower middle of the medians: at most half below, at most half above */
        CHECK(below <= (usable - 1) / 2 && above <= usable / 2);
        CHECK(num(row, "spread") > 0.4); /* node03's 1.5x is in every row */
    }
    cJSON_Delete(doc);
}

TEST(fleet_lists_failed_cases_and_the_merge_notes) {
    const char *p[] = {D "merged.json"};
    cJSON *doc = fleet_of(p, 1, NULL);
    if (!CHECK(doc != NULL)) return;
    CHECK(num(column(doc, "node04"), "not_measured") == 2); /* fft 256, both dtypes */
    const cJSON *notes = cJSON_GetObjectItem(doc, "notes");
    CHECK(cJSON_GetArraySize(notes) == 1 && strstr(cJSON_GetArrayItem(notes, 0)->valuestring, "node05"));
    char *text = fleet_table(p, 1);
    if (!CHECK(text != NULL)) return;
    CHECK(strstr(text, "node03") && strstr(text, "SLOW"));
    CHECK(strstr(text, "fft/float32/256x256/kind=r2c/cuda/device on node04: failed: cuFFT: CUFFT_INTERNAL_ERROR"));
    CHECK(strstr(text, "task 4 (node05): no results file"));
    free(text);
    cJSON_Delete(doc);
}

TEST(fleet_devices_of_one_run_are_its_columns) {
    const char *p[] = {D "devices.json"};
    cJSON *doc = fleet_of(p, 1, NULL);
    if (!CHECK(doc != NULL)) return;
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "columns")) == 3);
    CHECK(column(doc, "gpu0") && column(doc, "gpu1") && column(doc, "gpu2"));
    CHECK(flagged(doc, "gpu2") && !flagged(doc, "gpu1") && !flagged(doc, "gpu0"));
    const cJSON *dev = cJSON_GetObjectItem(column(doc, "gpu2"), "device");
    CHECK(num(dev, "index") == 2 && !strcmp(cJSON_GetObjectItem(dev, "pci_bus_id")->valuestring, "00000000:38:00.0"));
    cJSON_Delete(doc);
    /* the end-to-end timing is a fleet too, and gpu2 is slow there as well */
    doc = fleet_of(p, 1, "end_to_end");
    if (!CHECK(doc != NULL)) return;
    CHECK(flagged(doc, "gpu2") && !flagged(doc, "gpu1"));
    cJSON_Delete(doc);
}

TEST(fleet_of_cpu_only_files_has_a_column_per_run_on_the_host_timing) {
    const char *p[] = {D "cpu_a.json", D "cpu_b.json"};
    cJSON *doc = fleet_of(p, 2, NULL);
    if (!CHECK(doc != NULL)) return;
    CHECK(!strcmp(cJSON_GetObjectItem(doc, "timing")->valuestring, "host"));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "columns")) == 2);
    CHECK(column(doc, "cpu-a") && column(doc, "cpu-b"));
    CHECK(!flagged(doc, "cpu-a") && !flagged(doc, "cpu-b"));
    cJSON_Delete(doc);
}

TEST(fleet_of_an_absent_timing_is_an_error_naming_it) {
    const char *p[] = {D "cpu_a.json"};
    gb_results r;
    gb_err e = {{0}};
    if (!CHECK(gb_results_load(p[0], &r, &e) == GB_OK)) return;
    const gb_results *dp[] = {&r};
    gb_fleet_options o = GB_FLEET_DEFAULT_OPTIONS;
    o.timing = "device";
    CHECK(gb_fleet_build(dp, p, 1, &o, &e) == NULL);
    CHECK(strstr(e.msg, "cpu_a.json") && strstr(e.msg, "\"device\""));
    gb_results_free(&r);
}

static char out[1 << 16];

TEST(cli_report_fleet_formats_and_errors) {
    char cmd[1024];
    const char *bin = gb_test_binary();
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "merged.json --format csv", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(!strncmp(out, "case,op,dtype,shape,params,backend,timing,column,", 49));
    CHECK(strstr(out, ",node03,node03,0,GPU-00000002-0000-0000-0000-000000000000,ok,"));
    CHECK(strstr(out, ",slow,"));
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "merged.json --format md", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "| case | node01 | node02 | node03 | node04 | spread |") && strstr(out, "**SLOW**"));
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "cpu_a.json " D "cpu_b.json --format json", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    cJSON *j = cJSON_Parse(out);
    CHECK(j && !strcmp(cJSON_GetObjectItem(j, "schema")->valuestring, "gpubench-fleet"));
    cJSON_Delete(j);
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "merged.json --format pdf", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "not a fleet format"));
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "merged.json --op fft", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0 && strstr(out, "Fleet: 4 columns, 4 cases") && !strstr(out, "matmul"));
    snprintf(cmd, sizeof cmd, "%s report --fleet", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "expected one or more results files"));
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "merged.json " D "nope.json", bin);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "nope.json"));
}

/* `report --fleet --plot DIR`: DIR/fleet.json (the document the table was
 * rendered from) and the heatmap drawn from it; without matplotlib, one
 * line saying what to install and exit 2. */
TEST(cli_report_fleet_plot_draws_the_heatmap) {
    char python[4096];
    gb_err why = {{0}};
    if (gb_plot_find_python(python, sizeof python, &why) != GB_OK) {
        SKIP(why.msg);
        return;
    }
    char dir[] = "/tmp/gb_test_fleet_plot_XXXXXX", cmd[6144], path[256];
    if (!CHECK(mkdtemp(dir) != NULL)) return;
    snprintf(cmd, sizeof cmd, "%s report --fleet " D "merged.json --plot %s/p", gb_test_binary(), dir);
    int rc = gb_test_sh(cmd, out, sizeof out);
    if (!CHECK(rc == 0)) fprintf(stderr, "    %s\n", out);
    snprintf(path, sizeof path, "%s/p/fleet.png", dir);
    FILE *f = fopen(path, "rb");
    unsigned char sig[8] = {0};
    CHECK(f && fread(sig, 1, 8, f) == 8 && !memcmp(sig, "\x89PNG\r\n\x1a\n", 8));
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/p/fleet.json", dir);
    cJSON *j = NULL;
    FILE *fj = fopen(path, "r");
    if (fj) {
        static char buf[1 << 17];
        size_t n = fread(buf, 1, sizeof buf - 1, fj);
        buf[n] = 0;
        fclose(fj);
        j = cJSON_Parse(buf);
    }
    CHECK(j && !strcmp(cJSON_GetObjectItem(j, "schema")->valuestring, "gpubench-fleet"));
    cJSON_Delete(j);
    /* the same document through plot.py with matplotlib hidden */
    snprintf(cmd, sizeof cmd,
             "mkdir -p %1$s/shim/matplotlib && echo 'raise ModuleNotFoundError(\"No module named matplotlib\", "
             "name=\"matplotlib\")' > %1$s/shim/matplotlib/__init__.py && PYTHONPATH=%1$s/shim %2$s scripts/plot.py "
             "%1$s/p/fleet.json --out %1$s/q",
             dir, python);
    rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 2 && strstr(out, "python3-matplotlib") && !strstr(out, "Traceback"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

/* The srun tasks of `slurm --per-gpu` (one job, one host, a file per GPU)
 * are one node: its verdict pools every task's cases and it says how many
 * runs it holds; each GPU stays a column. The same host outside a job (two
 * runs of one machine) stays two nodes. */
static const char *with_job(const char *src, const char *name, const char *host, const char *job) {
    cJSON *d = gb_test_load_json(src);
    cJSON *ctx = cJSON_GetObjectItem(d, "context");
    cJSON_ReplaceItemInObject(ctx, "hostname", cJSON_CreateString(host));
    if (job) {
        cJSON *j = cJSON_AddObjectToObject(ctx, "job");
        cJSON_AddStringToObject(j, "scheduler", "slurm");
        cJSON_AddStringToObject(j, "job_id", job);
    }
    const char *path = gb_test_tmp(name);
    CHECK(gb_test_write_json(path, d) == 0);
    cJSON_Delete(d);
    return path;
}

TEST(fleet_tasks_of_one_job_on_one_host_are_one_node) {
    const char *p[4];
    p[0] = with_job(D "cpu_a.json", "t0.json", "gpu-node-1", "4242");
    p[1] = with_job(D "cpu_b.json", "t1.json", "gpu-node-1", "4242");
    p[2] = with_job(D "cpu_a.json", "t2.json", "gpu-node-2", "4243");
    p[3] = with_job(D "cpu_b.json", "t3.json", "gpu-node-2", NULL);
    cJSON *doc = fleet_of(p, 4, NULL);
    if (!CHECK(doc != NULL)) return;
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "columns")) == 4);
    const cJSON *nodes = cJSON_GetObjectItem(doc, "nodes");
    CHECK(cJSON_GetArraySize(nodes) == 3);
    const cJSON *n0 = cJSON_GetArrayItem(nodes, 0);
    CHECK(num(n0, "runs") == 2 && num(n0, "columns") == 2);
    CHECK(strstr(cJSON_GetObjectItem(n0, "name")->valuestring, "gpu-node-1 (2 tasks of job 4242)") != NULL);
    CHECK(num(cJSON_GetArrayItem(nodes, 1), "runs") == 1 && num(cJSON_GetArrayItem(nodes, 2), "runs") == 1);
    cJSON_Delete(doc);
}
